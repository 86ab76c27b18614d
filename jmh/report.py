#!/usr/bin/env python3
"""Turns one run of jmh/run.sh into the Markdown tables docs/benchmarks.md quotes. Every ratio is between two
figures of that one run.

    python3 jmh/report.py docs/benchmarks/full          # a directory written by jmh/run.sh
    python3 jmh/report.py RESULTS.json                  # or a single JMH JSON result file

The directory holds jmh.json (every JMH result, merged), redis-stats.jsonl (Redis' own statistics of every write
benchmark's measurement iterations) and propagation.json (the cross-process harness); each is optional. Writes are
compared with the same script by a plain EVALSHA and with the fixed floor (floorRegister), against the budget of
issue 27.
"""
import json
import os
import sys
from collections import defaultdict

PREFIX = "io.lodestar.jmh."
WRITE_OPS = ["register", "renew", "deregister", "setMetadata", "configSet"]
SCRIPTS = {"floorRegister": "floor_register.lua (the fixed floor, jmh)", "register": "register_instance.lua",
           "renew": "renew_instance.lua", "deregister": "deregister_instance.lua",
           "setMetadata": "update_instance.lua", "configSet": "set_config.lua"}
# Issue 27: Redis µs per call of each Lodestar write ÷ the floor's in the same run, at most this (renew: lower).
BUDGET = {"renew": 0.5}
DEFAULT_BUDGET = 1.3
THROUGHPUT_BUDGET = 0.9  # register ops/s ÷ the floor script's, at 4 and 16 threads


def name(result):
    return result["benchmark"].removeprefix(PREFIX)


def cls(result):
    return name(result).rsplit(".", 1)[0]


def method(result):
    return name(result).rsplit(".", 1)[1]


def params(result):
    return result.get("params") or {}


def alloc(result):
    metric = result.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
    return None if metric is None else metric["score"]


def score(result):
    return result["primaryMetric"]["score"]


def error(result):
    e = result["primaryMetric"].get("scoreError")
    return e if isinstance(e, (int, float)) and e == e else None  # "NaN" after a single iteration -> None


def fmt(value, digits=None):
    if value is None:
        return "—"
    if digits is None:
        digits = 0 if abs(value) >= 100 else (1 if abs(value) >= 10 else 2)
    return f"{value:,.{digits}f}"


def with_error(result):
    return f"{fmt(score(result))} ± {fmt(error(result))}" if error(result) is not None else fmt(score(result))


def ratio_text(value):
    return "—" if value is None else f"{value:.2f}×"


def find(results, klass, meth, threads=None, **wanted):
    for r in results:
        if cls(r) == klass and method(r) == meth and (threads is None or r["threads"] == threads) \
                and all(str(params(r).get(k)) == str(v) for k, v in wanted.items()):
            return r
    return None


def load(path):
    if os.path.isdir(path):
        jmh = os.path.join(path, "jmh.json")
        stats = os.path.join(path, "redis-stats.jsonl")
        propagation = os.path.join(path, "propagation.json")
    else:
        jmh, stats, propagation = path, None, None
    results = json.load(open(jmh)) if jmh and os.path.exists(jmh) else []
    redis = []
    if stats and os.path.exists(stats):
        redis = [json.loads(line) for line in open(stats) if line.strip()]
    prop = json.load(open(propagation)) if propagation and os.path.exists(propagation) else None
    return results, redis, prop


def reads(results, w):
    view_floor = [("getInstances", "DiscoveryReadBenchmark", "viewGetInstances", "mapGetInstances",
                   ("instances", "servicesHeld")),
                  ("getServices", "DiscoveryReadBenchmark", "viewGetServices", "mapGetServices", ("servicesHeld",)),
                  ("config get", "ConfigReadBenchmark", "viewGet", "mapGet", ()),
                  ("getInstances of any service, random order", "ScaleReadBenchmark", "viewGetInstancesOfAny",
                   "mapGetInstancesOfAny", ("services", "meters"))]
    rows = []
    for label, klass, view_m, floor_m, keys in view_floor:
        for view in sorted((r for r in results if cls(r) == klass and method(r) == view_m),
                           key=lambda r: (r["threads"], [param_order(params(r).get(k, 0)) for k in keys])):
            wanted = {k: params(view)[k] for k in keys if k in params(view)}
            floor = find(results, klass, floor_m, view["threads"], **wanted)
            rows.append((label, view, floor))
    if not rows:
        return []
    w("### Reads: the view against the in-memory floor (same run)\n")
    w("Floor: `ConcurrentHashMap.get` of the same kind of immutable value (see docs/benchmarks.md). "
      "ns/op per thread, ± the 99.9 % confidence interval.\n")
    w("| Read | Parameters | Threads | View ns/op | View B/op | Floor ns/op | Floor B/op | View / floor |")
    w("|---|---|--:|--:|--:|--:|--:|--:|")
    ratios = []
    for label, view, floor in rows:
        ratio = score(view) / score(floor) if floor else None
        ratios.append((label, view, ratio))
        w(f"| {label} | {param_text(view)} | {view['threads']} | {with_error(view)} | {fmt(alloc(view))} | "
          f"{with_error(floor) if floor else '—'} | {fmt(alloc(floor)) if floor else '—'} | {ratio_text(ratio)} |")
    w("")
    return ratios


def param_order(value):
    """Numbers by value, anything else (true/false) by its text, after the numbers."""
    try:
        return 0, int(value), ""
    except (TypeError, ValueError):
        return 1, 0, str(value)


def param_text(result):
    return ", ".join(f"{k}={v}" for k, v in sorted(params(result).items())) or "—"


def direct(results, w):
    out = {}
    rows = []
    for d in sorted((r for r in results if name(r) == "DiscoveryReadBenchmark.directGetInstances"),
                    key=lambda r: (r["threads"], int(params(r)["instances"]))):
        raw = find(results, "DiscoveryReadBenchmark", "rawHgetall", d["threads"], instances=params(d)["instances"])
        view = find(results, "DiscoveryReadBenchmark", "viewGetInstances", d["threads"],
                    instances=params(d)["instances"])
        rows.append(("getInstances (direct) vs raw HGETALL", d, raw, view))
    for d in (r for r in results if name(r) == "DiscoveryReadBenchmark.directGetServices"):
        view = find(results, "DiscoveryReadBenchmark", "viewGetServices", d["threads"],
                    servicesHeld=params(d)["servicesHeld"])
        rows.append(("getServices (direct)", d, None, view))
    for d in (r for r in results if name(r) == "ConfigReadBenchmark.directGet"):
        raw = find(results, "ConfigReadBenchmark", "rawReadConfig", d["threads"])
        view = find(results, "ConfigReadBenchmark", "viewGet", d["threads"])
        rows.append(("config get (directConfig) vs raw read_config EVALSHA", d, raw, view))
    if not rows:
        return out
    w("### Direct reads (Redis on every call) against their raw floor and the view (same run)\n")
    w("| Read | Parameters | Threads | Direct µs/op | Direct B/op | Raw µs/op | Raw B/op | Raw / direct "
      "(speed) | Direct / raw (B/op) | Direct / view (time) |")
    w("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for label, d, raw, view in rows:
        speed = score(raw) / score(d) if raw else None
        allocation = alloc(d) / alloc(raw) if raw and alloc(raw) else None
        cached = score(d) / score(view) if view else None
        if label.startswith("getInstances"):
            out[(d["threads"], params(d)["instances"])] = (speed, allocation)
        err = f" ± {fmt(error(d) / 1000)}" if error(d) is not None else ""
        w(f"| {label} | {param_text(d)} | {d['threads']} | {fmt(score(d) / 1000)}{err} "
          f"| {fmt(alloc(d))} | {fmt(score(raw) / 1000) if raw else '—'} | {fmt(alloc(raw)) if raw else '—'} | "
          f"{ratio_text(speed)} | {ratio_text(allocation)} | {fmt(cached)}× |")
    w("")
    return out


# Commands no script runs: the harness's INFO (and, in runs before 2026-11-27, CONFIG RESETSTAT), a connection's
# set-up, and the script calls themselves. Everything else in a write benchmark's statistics is run by its scripts.
NOT_SCRIPT = {"info", "hello", "ping", "select", "auth", "command", "evalsha", "eval"}
NOT_SCRIPT_PREFIXES = ("config|", "client|", "script|", "command|")


def script_command(command):
    return command not in NOT_SCRIPT and not command.startswith(NOT_SCRIPT_PREFIXES)


class Cost:
    """Redis' cost of one benchmark over its measurement iterations."""

    def __init__(self):
        self.calls = self.usec = self.commands = self.command_usec = self.ran_dry = 0
        self.cpu = 0.0

    def per_call(self, value):
        return value / self.calls if self.calls else None

    @property
    def usec_per_call(self):
        return self.per_call(self.usec)

    @property
    def cpu_usec_per_call(self):
        return self.per_call(self.cpu * 1e6)

    @property
    def commands_per_call(self):
        return self.per_call(self.commands)

    @property
    def command_usec_per_call(self):
        """The µs Redis counted for the script's commands themselves (their own commandstats usec)."""
        return self.per_call(self.command_usec)

    @property
    def rest_usec_per_call(self):
        """The rest of the EVALSHA's µs: Lua's own work and the glue of each redis.call."""
        return self.per_call(self.usec - self.command_usec)


def redis_costs(stats):
    """(benchmark, threads) -> Cost: EVALSHA calls and µs, the commands the scripts ran, Redis CPU, over the
    measurement iterations."""
    acc = defaultdict(Cost)
    for line in stats:
        evalsha = line["commands"].get("evalsha", {"calls": 0, "usec": 0})
        a = acc[(line["benchmark"].removeprefix(PREFIX), line["threads"])]
        a.calls += evalsha["calls"]
        a.usec += evalsha["usec"]
        a.commands += sum(c["calls"] for name, c in line["commands"].items() if script_command(name))
        a.command_usec += sum(c["usec"] for name, c in line["commands"].items() if script_command(name))
        a.cpu += line["redisCpuSeconds"]
        a.ran_dry += line.get("poolRanDry", 0)
    return acc


def writes(results, stats, w):
    costs = redis_costs(stats)
    ops = WRITE_OPS
    rows = []
    for r in results:
        if not cls(r).startswith("WriteBenchmark") or method(r) not in ops:
            continue
        raw_name = "raw" + method(r)[0].upper() + method(r)[1:]
        raw = find(results, cls(r), raw_name)
        rows.append((method(r), r, raw))
    rows.sort(key=lambda x: (ops.index(x[0]), x[1]["threads"]))
    out = {}
    if not rows:
        return out
    w("### Writes against the same script by a plain EVALSHA (same run, same concurrency)\n")
    w("ops/s summed over the threads, ± the 99.9 % confidence interval. Redis µs/call: `INFO commandstats` "
      "usec / calls of EVALSHA over the measurement iterations; Redis CPU µs/call: the server's used_cpu_user + "
      "used_cpu_sys over the same iterations, per EVALSHA.\n")
    w("| Write | Threads | Lodestar ops/s | Raw EVALSHA ops/s | Lodestar / raw | Lodestar B/op | Raw B/op | "
      "Redis µs/call (Lodestar, raw) | Redis CPU µs/call (Lodestar, raw) |")
    w("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for op, r, raw in rows:
        ratio = score(r) / score(raw) if raw else None
        out[(op, r["threads"])] = ratio
        mine = costs.get((name(r), r["threads"]))
        theirs = costs.get((name(raw), raw["threads"])) if raw else None

        def pair(attribute):
            return ", ".join(fmt(getattr(cost, attribute), 1) if cost else "—" for cost in (mine, theirs))

        w(f"| {op} | {r['threads']} | {with_error(r)} | {with_error(raw) if raw else '—'} | {ratio_text(ratio)} | "
          f"{fmt(alloc(r))} | {fmt(alloc(raw)) if raw else '—'} | {pair('usec_per_call')} | "
          f"{pair('cpu_usec_per_call')} |")
    w("")
    return out


def floor_rows(results, stats):
    """[(method, threads, result, Cost, floor result, floor Cost)] for every write benchmark with a floor beside it
    at the same thread count."""
    costs = redis_costs(stats)
    rows = []
    for r in results:
        if not cls(r).startswith("WriteBenchmark"):
            continue
        floor = find(results, cls(r), "floorRegister")
        if floor is None:
            continue
        rows.append((method(r), r["threads"], r, costs.get((name(r), r["threads"])), floor,
                     costs.get((name(floor), floor["threads"]))))

    def order(row):
        op = row[0].removeprefix("raw")
        op = op[0].lower() + op[1:]
        return (-1 if op == "floorRegister" else WRITE_OPS.index(op) if op in WRITE_OPS else 99,
                row[0].startswith("raw"), row[1])
    return sorted(rows, key=order)


def floor_table(results, stats, w):
    """The write benchmarks against the fixed floor (issue 27). Returns {(method, threads): (µs ratio, ops ratio)}."""
    rows = floor_rows(results, stats)
    out = {}
    if not rows:
        return out
    w("### Writes against the fixed floor (same run)\n")
    w("Floor: `floorRegister`, floor_register.lua of the jmh jar (TIME, HSET of 5 fields, ZADD, INCR, SADD, SPUBLISH "
      "of about 149 B) by a plain EVALSHA; it never changes with Lodestar's scripts. Redis µs/call: `INFO "
      "commandstats` EVALSHA usec / calls over the measurement iterations; commands/call: every other command "
      "Redis counted in them (the scripts' own: TYPE, HGET, ...; not the harness's INFO) / EVALSHA calls. "
      "÷ floor: the benchmark's Redis µs/call ÷ the floor's at the same thread count. `raw*`: Lodestar's script "
      "by a plain EVALSHA.\n")
    w("| Benchmark | Script | Threads | ops/s | Redis µs/call | Commands/call | ÷ floor (Redis µs) | ops/s ÷ floor's |")
    w("|---|---|--:|--:|--:|--:|--:|--:|")
    for meth, threads, r, cost, floor, floor_cost in rows:
        usec = cost.usec_per_call if cost else None
        floor_usec = floor_cost.usec_per_call if floor_cost else None
        ratio = usec / floor_usec if usec is not None and floor_usec else None
        speed = score(r) / score(floor)
        out[(meth, threads)] = (ratio, speed)
        op = meth.removeprefix("raw")
        script = SCRIPTS.get(op[0].lower() + op[1:], "—")
        dry = f" ({cost.ran_dry:,} calls found the pool empty)" if cost and cost.ran_dry else ""
        w(f"| {meth}{dry} | {script} | {threads} | {with_error(r)} | {fmt(usec, 1)} | "
          f"{fmt(cost.commands_per_call, 1) if cost else '—'} | {ratio_text(ratio)} | {ratio_text(speed)} |")
    w("")
    w("Per script, the Lodestar call's EVALSHAs at all thread counts pooled; of a call's Redis µs, those its commands "
      "took (their own commandstats usec) and the rest (Lua's own work and the glue of each redis.call), each "
      "also as a ratio to the floor's:\n")
    w("| Script | Commands per call | Redis µs per call | Ratio to the floor | µs in its commands | µs in the rest "
      "| Rest ÷ the floor's rest |")
    w("|---|--:|--:|--:|--:|--:|--:|")
    pooled = defaultdict(Cost)
    for meth, threads, r, cost, floor, floor_cost in rows:
        if cost and not meth.startswith("raw"):
            p = pooled[meth]
            p.calls += cost.calls
            p.usec += cost.usec
            p.commands += cost.commands
            p.command_usec += cost.command_usec
    floor = pooled.get("floorRegister")
    floor_usec = floor.usec_per_call if floor else None
    floor_rest = floor.rest_usec_per_call if floor else None
    for meth, p in pooled.items():
        ratio = p.usec_per_call / floor_usec if floor_usec and p.usec_per_call is not None else None
        rest = p.rest_usec_per_call / floor_rest if floor_rest and p.rest_usec_per_call is not None else None
        w(f"| {SCRIPTS.get(meth, meth)} | {fmt(p.commands_per_call, 1)} | {fmt(p.usec_per_call, 1)} | "
          f"{ratio_text(ratio)} | {fmt(p.command_usec_per_call, 1)} | {fmt(p.rest_usec_per_call, 1)} | "
          f"{ratio_text(rest)} |")
    w("")
    return out


def floor_budget(floor_ratios, w):
    if not floor_ratios:
        return
    w("### Issue 27 budget, from this run\n")
    w("| Budget | Reached | Met |")
    w("|---|---|---|")

    def verdict(ok):
        return "—" if ok is None else ("yes" if ok else "**no**")

    for op in WRITE_OPS:
        rows = sorted((t, usec) for (m, t), (usec, _) in floor_ratios.items() if m == op and usec is not None)
        if rows:
            limit = BUDGET.get(op, DEFAULT_BUDGET)
            w(f"| {op}: Redis µs/call ≤ {limit}× the floor's | "
              f"{', '.join(f'{r:.2f}× at {t}' for t, r in rows)} | {verdict(all(r <= limit for _, r in rows))} |")
    rows = sorted((t, speed) for (m, t), (_, speed) in floor_ratios.items() if m == "register" and t in (4, 16))
    if rows:
        w(f"| register ops/s ≥ {THROUGHPUT_BUDGET}× the floor script's at 4 and 16 threads | "
          f"{', '.join(f'{r:.2f}× at {t}' for t, r in rows)} | "
          f"{verdict(all(r >= THROUGHPUT_BUDGET for _, r in rows))} |")
    w("")


def choose(results, w):
    rows = [r for r in results if cls(r) == "ChooseBenchmark"]
    if not rows:
        return
    w("### Load balancer choice (no Redis)\n")
    w("| Strategy | Instances | Threads | `choose` ns/op | with selectors ns/op | B/op |")
    w("|---|--:|--:|--:|--:|--:|")
    seen = set()
    for r in sorted(rows, key=lambda r: (params(r)["strategy"], int(params(r)["instances"]), r["threads"])):
        key = (params(r)["strategy"], params(r)["instances"], r["threads"])
        if key in seen:
            continue
        seen.add(key)
        c = find(rows, "ChooseBenchmark", "choose", r["threads"], strategy=key[0], instances=key[1])
        s = find(rows, "ChooseBenchmark", "chooseWithSelectors", r["threads"], strategy=key[0], instances=key[1])
        w(f"| {key[0]} | {key[1]} | {key[2]} | {with_error(c) if c else '—'} | {with_error(s) if s else '—'} | "
          f"{fmt(max(alloc(x) or 0 for x in (c, s) if x))} |")
    w("")


def sampled(results, w):
    rows = [r for r in results if r["mode"] == "sample"]
    if not rows:
        return
    w("### In-JVM propagation (JMH sample mode)\n")
    w("| Benchmark | Mean | p50 | p90 | p99 | p99.9 | Max | Unit |")
    w("|---|--:|--:|--:|--:|--:|--:|---|")
    for r in rows:
        pm = r["primaryMetric"]
        p = pm.get("scorePercentiles", {})
        w(f"| {name(r)} | {fmt(pm['score'])} | {fmt(p.get('50.0'))} | {fmt(p.get('90.0'))} | {fmt(p.get('99.0'))} "
          f"| {fmt(p.get('99.9'))} | {fmt(p.get('100.0'))} | {pm['scoreUnit']} |")
    w("")


def propagation(prop, w):
    if not prop:
        return {}
    s = prop["settings"]
    w("### Cross-process propagation (writer and listener in separate JVMs, paced)\n")
    w(f"{prop['started']} – {prop['finished']}: {s['rounds']} rounds after {s['warmupRounds']} unpaced warm-up "
      f"rounds, each write after a random 0–{s['maxPauseMs']} ms pause; direct-executor listener compared: "
      f"{s.get('compareDirect', False)}; probe: {s['probe']}. Clocks: {prop['clockCheck']['pings']} pings, "
      f"{prop['clockCheck']['outOfOrder']} out of order.\n")
    w("| Metric | Samples | Mean µs | p50 µs | p90 µs | p99 µs | p99.9 µs | Max µs |")
    w("|---|--:|--:|--:|--:|--:|--:|--:|")
    for metric, m in prop["metrics"].items():
        w(f"| {metric} | {m['count']} | {fmt(m['mean'], 0)} | {m['p50']:,} | {m['p90']:,} | {m['p99']:,} | "
          f"{m['p99.9']:,} | {m['max']:,} |")
    w("")
    ratios = prop.get("ratios", {})
    labels = {"propagation.p50": "lodestar.propagation / raw.propagation, p50",
              "propagation.p99": "lodestar.propagation / raw.propagation, p99",
              "registerCall.p50": "lodestar.register.call / raw.evalsha.call, p50",
              "registerCall.p99": "lodestar.register.call / raw.evalsha.call, p99",
              "directExecutor.p50": "lodestar.direct.propagation / lodestar.propagation, p50",
              "directExecutor.p99": "lodestar.direct.propagation / lodestar.propagation, p99"}
    w("| Ratio | µs | Reference µs | Ratio |")
    w("|---|--:|--:|--:|")
    for key, r in ratios.items():
        w(f"| {labels.get(key, key)} | {r['lodestarMicros']:,.0f} | {r['baselineMicros']:,.0f} | "
          f"{ratio_text(r.get('ratio'))} |")
    w("")
    return ratios


def targets(view_ratios, direct_ratios, write_ratios, prop_ratios, w):
    w("### Issue 17 goals, from this run\n")
    w("| Goal | Reached | Met |")
    w("|---|---|---|")

    def verdict(ok):
        return "—" if ok is None else ("yes" if ok else "**no**")

    names = {"propagation.p50": "Propagation p50 ≤ 1.5× raw SPUBLISH → SSUBSCRIBE",
             "propagation.p99": "Propagation p99 ≤ 2× raw",
             "registerCall.p50": "Register call (paced) p50 ≤ 1.5× raw EVALSHA of the script"}
    for key, label in names.items():
        r = prop_ratios.get(key)
        if r and r.get("ratio") is not None:
            w(f"| {label} | {r['lodestarMicros']:,.0f} µs vs {r['baselineMicros']:,.0f} µs: "
              f"{r['ratio']:.2f}× | {verdict(r.get('met'))} |")
    for (threads, instances), (speed, allocation) in sorted(direct_ratios.items(), key=lambda x: int(x[0][1])):
        if str(instances) == "10":
            w(f"| directDiscovery().getInstances (10 instances, {threads} thread) ≥ 0.9× raw HGETALL, ≤ 2× its "
              f"allocation | {ratio_text(speed)} speed, {ratio_text(allocation)} allocation | "
              f"{verdict(None if speed is None or allocation is None else speed >= 0.9 and allocation <= 2)} |")
    for op in ("register", "configSet", "renew", "setMetadata", "deregister"):
        rows = sorted((t, r) for (o, t), r in write_ratios.items() if o == op and r is not None)
        if rows:
            text = ", ".join(f"{r:.2f}× at {t}" for t, r in rows)
            w(f"| {op} ≥ 0.9× raw EVALSHA at 1, 4, 16 threads | {text} | "
              f"{verdict(all(r >= 0.9 for _, r in rows))} |")
    worst = {}
    for label, view, ratio in view_ratios:
        if ratio is not None:
            worst[label] = max(worst.get(label, 0), ratio)
    for label, ratio in worst.items():
        w(f"| View {label} against the floor (no goal; the issue's scale goal is ≤ 1.5×) | worst {ratio:.2f}× | — |")
    w("")


def main(path):
    results, stats, prop = load(path)
    out = []
    w = out.append
    view_ratios = reads(results, w)
    direct_ratios = direct(results, w)
    write_ratios = writes(results, stats, w)
    floor_ratios = floor_table(results, stats, w)
    prop_ratios = propagation(prop, w)
    choose(results, w)
    sampled(results, w)
    floor_budget(floor_ratios, w)
    if view_ratios or direct_ratios or prop_ratios or any(r is not None for r in write_ratios.values()):
        targets(view_ratios, direct_ratios, write_ratios, prop_ratios, w)  # none of them in a run of the writes alone
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 jmh/report.py RUN_DIRECTORY|RESULTS.json")
    main(sys.argv[1])
