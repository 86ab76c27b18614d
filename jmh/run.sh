#!/usr/bin/env bash
# Runs the JMH suite and writes jmh/results-<mode>.json (and a Markdown summary, jmh/results-<mode>.md).
#
#   jmh/run.sh [short|full] [extra JMH arguments, e.g. a benchmark regex or -p instances=100]
#
# Starts no Redis itself: every benchmark state starts a private redis-server through the test kit
# (lodestar-test), or uses LODESTAR_REDIS_URI when that is set. Builds jmh/target/benchmarks.jar when missing.
#
# short: one fork, 2 warmup and 3 measurement iterations of each class's length (0.5 s for the load balancer,
#        1 s for Redis reads and writes, 1 s + 2 s for propagation); instances 10 and 1000 (reads, load balancer);
#        1000 services held (reads). 35 benchmarks, about 4 minutes on 2 idle cores. A quick look: error bars are
#        wide and the Redis-backed figures still drift up a little between iterations.
# full:  each class's annotations (2 forks, 5 warmup and 5 measurement iterations) and every parameter:
#        51 benchmarks, about 20 minutes on 2 cores.
# Both add -prof gc, so every result carries its allocation per operation (gc.alloc.rate.norm, all threads).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-short}"
[[ $# -gt 0 ]] && shift
case "$mode" in
  short) settings=(-f 1 -wi 2 -i 3 -p instances=10,1000 -p servicesHeld=1000) ;;
  full)  settings=() ;;
  *)     echo "usage: jmh/run.sh [short|full] [extra JMH arguments]" >&2; exit 2 ;;
esac

jar=jmh/target/benchmarks.jar
if [[ ! -f $jar ]]; then
  echo "Building $jar ..." >&2
  ./mvnw -q -pl jmh -am package -DskipTests
fi

results="jmh/results-$mode.json"
summary="jmh/results-$mode.md"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
started="$(date -u +%FT%TZ)"
load_before="$(load)"
echo "$started load average: $load_before" >&2
java -jar "$jar" "${settings[@]}" -prof gc -rf json -rff "$results" "$@"
load_after="$(load)"
echo "$(date -u +%FT%TZ) load average: $load_after" >&2

if ! command -v python3 > /dev/null; then
  echo "Results: $results (install python3 for the Markdown summary: python3 jmh/report.py $results)" >&2
  exit 0
fi
{
  echo "Run started $started: \`jmh/run.sh $mode${*:+ $*}\`"
  echo
  echo "- Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | xargs)),"\
       "$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null) memory, $(uname -sr)"
  echo "- JDK: $(java -version 2>&1 | head -1)"
  if [[ -n ${LODESTAR_REDIS_URI:-} ]]; then
    echo "- Redis: LODESTAR_REDIS_URI (redacted)"
  else
    echo "- Redis: private servers from the test kit ($(redis-server --version 2>/dev/null | cut -d' ' -f1-3 || echo 'see the run log'))"
  fi
  echo "- Load average (1, 5, 15 min) before: $load_before; after: $load_after"
  echo
  python3 jmh/report.py "$results"
} > "$summary"
echo "Results: $results, summary: $summary" >&2
