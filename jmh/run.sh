#!/usr/bin/env bash
# Runs everything docs/benchmarks.md quotes, in one go, and prints the summary its tables are filled from.
#
#   jmh/run.sh [full|short|writes] [extra JMH arguments for every JMH run, e.g. -jvmArgs -Xmx2g]
#
# Writes docs/benchmarks/<mode>/ (writes: docs/benchmarks/writes-floor/<date>-<commit>/; JMH's own output goes to
# jmh/target/run-<mode>/*.log): jmh.json (every JMH result of the run, merged), redis-stats.jsonl (Redis'
# INFO commandstats and CPU of every write benchmark's measurement iterations), propagation.json (the
# cross-process harness: every sample, percentiles, ratios), summary.md (the tables; also printed) and run.txt
# (machine, JDK, Redis, load, times). Commit the full run's directory with the doc that quotes it.
#
# Runs, in this order:
#   1. reads at 1 thread: view, in-memory floor and direct reads (DiscoveryReadBenchmark, ConfigReadBenchmark;
#      instances 10 and 1000, 1000 services held), ChooseBenchmark (1000 instances), and ScaleReadBenchmark (a
#      view of 10,000 services read in random order, against a map of the same lists; reads uncounted, and counted
#      for a bound Micrometer registry);
#   2. the view and floor reads again at 2 and at 4 threads (instances 10);
#   3. every write, its raw EVALSHA baseline and the fixed floor (floorRegister) at 1, 4 and 16 threads
#      (WriteBenchmark*Threads);
#   4. cross-process propagation (jmh/propagation.sh --compare-direct): writer and listener JVMs, paced writes,
#      raw baselines, and a listener on the view thread beside the default one.
# full:  JMH -f 1 -wi 2 -w 1s -i 4 -r 1s; the writes -wi 8 -w 1s -i 5 -r 1s (a write benchmark's throughput
#        climbs for its first 5-10 s, Lodestar's a little longer: JIT on two shared cores); propagation 200 rounds
#        of 4 writes (0-500 ms pauses) after 300 warm-up rounds. 12 min 59 s on 2 mostly idle cores; 15 min 19 s with other builds running.
# short: JMH -f 1 -wi 1 -w 1s -i 1 -r 1s; propagation 20 rounds (0-100 ms). A smoke test of the whole chain
#        (about 7 minutes, most of it starting JVMs and Redis servers); its figures are not worth quoting.
# writes: step 3 only, without the raw baselines: the five Lodestar writes and the fixed floor at 1, 4 and 16
#        threads with the full run's write settings, and the issue 27 table (Redis µs and commands per call, ratio
#        to the floor, the µs in the script's commands and in the rest: Lua and the redis.call glue, the budget).
#        Each run keeps its own directory, so a "before" and an "after" sit side by side.
# Every JMH run adds -prof gc (B/op: gc.alloc.rate.norm, all threads). Redis: a private redis-server per JMH fork
# from the test kit, or LODESTAR_REDIS_URI (the write benchmarks then CONFIG RESETSTAT that server).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-full}"
[[ $# -gt 0 ]] && shift
case "$mode" in
  full)  jmh=(-f 1 -wi 2 -w 1s -i 4 -r 1s); writes=(-f 1 -wi 8 -w 1s -i 5 -r 1s); prop=(--events 200 --warmup 300 --max-pause-ms 500 --compare-direct) ;;
  short) jmh=(-f 1 -wi 1 -w 1s -i 1 -r 1s); writes=("${jmh[@]}"); prop=(--events 20 --warmup 50 --max-pause-ms 100 --compare-direct) ;;
  writes) jmh=(); writes=(-f 1 -wi 8 -w 1s -i 5 -r 1s); prop=() ;;
  *)     echo "usage: jmh/run.sh [full|short|writes] [extra JMH arguments]" >&2; exit 2 ;;
esac
all_writes='WriteBenchmark(1Thread|4Threads|16Threads)\.'
lodestar_writes='WriteBenchmark(1Thread|4Threads|16Threads)\.(register|renew|deregister|setMetadata|configSet|floorRegister)$'

jar=$(jmh/jar.sh)

out="docs/benchmarks/$mode"
[[ $mode == writes ]] && out="docs/benchmarks/writes-floor/$(date -u +%F)-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
mkdir -p "$out"
rm -f "$out"/jmh-*.json "$out"/jmh.json "$out"/redis-stats.jsonl "$out"/propagation.json "$out"/summary.md
stats="$(pwd)/$out/redis-stats.jsonl"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
started="$(date -u +%FT%TZ)"
start_seconds=$SECONDS
load_before="$(load)"
echo "$started jmh/run.sh $mode; load average: $load_before" >&2

logs="jmh/target/run-$mode"
mkdir -p "$logs"
run_jmh() {
  local part="$1"; shift
  local settings=("${jmh[@]}")
  [[ $part == writes ]] && settings=("${writes[@]}")
  echo "=== $(date -u +%T) JMH $part (log: $logs/$part.log)" >&2
  if ! java -jar "$jar" "${settings[@]}" -prof gc -jvmArgsAppend "-Dlodestar.jmh.redisStats=$stats" \
      -rf json -rff "$out/jmh-$part.json" "$@" > "$logs/$part.log" 2>&1; then
    tail -40 "$logs/$part.log" >&2
    echo "JMH $part failed; see $logs/$part.log" >&2
    exit 1
  fi
  grep -E '^(WARNING|<failure>)|Exception' "$logs/$part.log" | head -5 >&2 || true
}

if [[ $mode == writes ]]; then
  run_jmh writes "$lodestar_writes" "$@"
else
  reads='DiscoveryReadBenchmark|ConfigReadBenchmark'
  view_reads='DiscoveryReadBenchmark\.(view|map)|ConfigReadBenchmark\.(view|map)'
  run_jmh reads-1 -t 1 "$reads" -p instances=10,1000 -p servicesHeld=1000 "$@"
  run_jmh choose -t 1 ChooseBenchmark -p instances=1000 "$@"
  run_jmh scale-reads -t 1 ScaleReadBenchmark -p meters=false,true "$@"
  run_jmh reads-2 -t 2 "$view_reads" -p instances=10 -p servicesHeld=1000 "$@"
  run_jmh reads-4 -t 4 "$view_reads" -p instances=10 -p servicesHeld=1000 "$@"
  run_jmh writes "$all_writes" "$@"
  echo "=== $(date -u +%T) cross-process propagation (log: $logs/propagation.log)" >&2
  jmh/propagation.sh "${prop[@]}" --out "$out/propagation.json" > "$logs/propagation.log" 2>&1 \
    || { tail -40 "$logs/propagation.log" >&2; echo "propagation failed" >&2; exit 1; }
fi

python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
merged = []
for part in ("reads-1", "choose", "scale-reads", "reads-2", "reads-4", "writes"):
    path = os.path.join(out, f"jmh-{part}.json")
    if os.path.exists(path):
        merged += json.load(open(path))
json.dump(merged, open(os.path.join(out, "jmh.json"), "w"), indent=2)
PY
rm -f "$out"/jmh-*.json

finished="$(date -u +%FT%TZ)"
load_after="$(load)"
{
  echo "Run: \`jmh/run.sh $mode${*:+ $*}\`, $started – $finished ($(( (SECONDS - start_seconds) / 60 )) min $(( (SECONDS - start_seconds) % 60 )) s)"
  echo "Code: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!docs/benchmarks' 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | xargs)),"\
       "$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null) memory, $(uname -sr)"
  echo "JDK: $(java -version 2>&1 | head -1)"
  if [[ -n ${LODESTAR_REDIS_URI:-} ]]; then
    echo "Redis: LODESTAR_REDIS_URI (redacted)"
  else
    kit="$(grep -h -m1 -o 'Redis for tests: .*' "$logs"/*.log 2>/dev/null | head -1 | cut -d' ' -f4-)"
    echo "Redis: a private server per JMH fork from the test kit: ${kit:-see the run log} (--save '' --appendonly no)"
  fi
  if [[ $mode == writes ]]; then
    echo "JMH settings: ${writes[*]} -prof gc, $lodestar_writes"
  else
    echo "JMH settings: ${jmh[*]} -prof gc (writes: ${writes[*]}); propagation: ${prop[*]}"
  fi
  echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after"
} > "$out/run.txt"
python3 jmh/report.py "$out" > "$out/summary.md"
cat "$out/run.txt"
echo
cat "$out/summary.md"
echo "Results: $out/ (jmh.json, redis-stats.jsonl,$([[ $mode == writes ]] || echo ' propagation.json,') summary.md, run.txt)" >&2
