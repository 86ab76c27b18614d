#!/usr/bin/env bash
# A fleet of Lodestar clients watching the same services, against raw SSUBSCRIBE connections, and a Redis restart
# with the whole fleet connected (issue 33). See io.lodestar.jmh.FleetHarness for what is measured.
#
#   jmh/fleet.sh [clients [jvms]] [harness options]
#   jmh/fleet.sh small [harness options]     # a quick check: 100 clients in 2 JVMs, 50 + 100 events
#   jmh/fleet.sh 200 2 --cluster             # the same on the test kit's local 3-master cluster, per-master figures
#   jmh/fleet.sh 1000 2 --cluster --child-jvm-args "-Xmx2500m"   # a cluster client holds ~1.3 MB of heap
#
# Defaults: 1,000 clients in 2 JVMs, 20 services each, 100 warm-up and 400 measured events of each kind, one event
# every 50 ms (about 50 s of writes), then the restart. Harness options: --services N --writes N --warmup N
# --block N --interval-ms N --fresh-timeout-ms N --no-restart --cluster --child-jvm-args "-Xmx1g".
# Writes summary.md (also printed), fleet.json and run.txt to docs/benchmarks/fleet/<date>-<commit>-<clients>x<jvms>/
# (with -cluster appended for --cluster; --out DIR elsewhere). Redis: a private server from the test kit, or
# LODESTAR_REDIS_URI (no restart then); with --cluster always the kit's private 3-master cluster (a rolling restart).
set -euo pipefail
cd "$(dirname "$0")/.."

extra=()
if [[ ${1:-} == small ]]; then
  shift
  clients=100; jvms=2; extra=(--warmup 50 --writes 100)
else
  clients=1000; jvms=2
  if [[ ${1:-} =~ ^[0-9]+$ ]]; then clients=$1; shift; fi
  if [[ ${1:-} =~ ^[0-9]+$ ]]; then jvms=$1; shift; fi
fi

jar=$(jmh/jar.sh)
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
suffix=""
for arg in "$@"; do
  if [[ $arg == --cluster ]]; then suffix="-cluster"; fi
done
out="docs/benchmarks/fleet/$(date -u +%F)-$commit-${clients}x${jvms}$suffix"
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
  if [[ ${args[i]} == --out ]]; then out=${args[i + 1]}; fi # run.txt goes where the harness writes
done
mkdir -p "$out"
{
  echo "started: $(date -u +%FT%TZ)"
  echo "commit: $commit$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "machine: $(nproc) CPUs, $(uname -srm), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "redis: $(redis-server --version 2>/dev/null || echo 'LODESTAR_REDIS_URI')"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/run.txt"
# timeout: a last bound around the harness' own (which stops its JVMs and Redis on any exit)
status=0
timeout --kill-after=30s 45m java -cp "$jar" io.lodestar.jmh.FleetHarness --clients "$clients" --jvms "$jvms" \
  --commit "$commit" --out "$out" "${extra[@]}" "$@" || status=$?
{
  echo "finished: $(date -u +%FT%TZ) (exit $status)"
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$out/run.txt"
exit $status
