#!/usr/bin/env python3
"""Turns one JMH JSON result file of the Lodestar suite into Markdown: every result, the ratios cached/direct and
write/baseline (each from this one file, so from one run), and the issue's targets with what was reached.

    python3 jmh/report.py jmh/results-short.json > jmh/results-short.md
"""
import json
import sys

PREFIX = "io.lodestar.jmh."


def name(result):
    return result["benchmark"].removeprefix(PREFIX)


def method(result):
    return name(result).rsplit(".", 1)[1]


def params(result):
    return result.get("params") or {}


def alloc(result):
    metric = result.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
    return None if metric is None else metric["score"]


def score(result):
    return result["primaryMetric"]["score"]


def unit(result):
    return result["primaryMetric"]["scoreUnit"]


def percentile(result, p):
    return result["primaryMetric"].get("scorePercentiles", {}).get(p)


def fmt(value, digits=None):
    if value is None:
        return "—"
    if digits is None:
        digits = 0 if abs(value) >= 100 else (1 if abs(value) >= 10 else 2)
    return f"{value:,.{digits}f}"


def param_text(result):
    return ", ".join(f"{k}={v}" for k, v in sorted(params(result).items())) or "—"


def find(results, cls, meth, **wanted):
    for r in results:
        if name(r) == f"{cls}.{meth}" and all(str(params(r).get(k)) == str(v) for k, v in wanted.items()):
            return r
    return None


def main(path):
    with open(path) as f:
        results = json.load(f)
    out = []
    w = out.append

    w("### All results\n")
    w("| Benchmark | Parameters | Threads | Mode | Score | ± Error (99.9 %) | Unit | Alloc B/op |")
    w("|---|---|--:|---|--:|--:|---|--:|")
    for r in results:
        if r["mode"] == "sample":
            continue
        pm = r["primaryMetric"]
        w(f"| {name(r)} | {param_text(r)} | {r['threads']} | {r['mode']} | {fmt(pm['score'])} | "
          f"{fmt(pm['scoreError'])} | {pm['scoreUnit']} | {fmt(alloc(r))} |")

    sampled = [r for r in results if r["mode"] == "sample"]
    if sampled:
        w("\n### Propagation (sample mode)\n")
        w("| Benchmark | Samples | Mean | p50 | p90 | p99 | p99.9 | Max | Unit |")
        w("|---|--:|--:|--:|--:|--:|--:|--:|---|")
        for r in sampled:
            pm = r["primaryMetric"]
            samples = sum(sum(count for _, count in fork_iter)
                          for fork in pm.get("rawDataHistogram", []) for fork_iter in fork)
            w(f"| {name(r)} | {samples:,} | {fmt(pm['score'])} | {fmt(percentile(r, '50.0'))} | "
              f"{fmt(percentile(r, '90.0'))} | {fmt(percentile(r, '99.0'))} | {fmt(percentile(r, '99.9'))} | "
              f"{fmt(percentile(r, '100.0'))} | {pm['scoreUnit']} |")

    # ---------------------------------------------------------------- ratios
    w("\n### Cached (local view) against direct (Redis on every call)\n")
    w("| Read | Parameters | View ns/op | View B/op | Direct ns/op | Direct / view |")
    w("|---|---|--:|--:|--:|--:|")
    read_ratios = {"getInstances": [], "getServices": [], "config get": []}
    for view in results:
        if name(view) == "DiscoveryReadBenchmark.viewGetInstances":
            direct = find(results, "DiscoveryReadBenchmark", "directGetInstances",
                          instances=params(view)["instances"])
            label = "getInstances"
        elif name(view) == "DiscoveryReadBenchmark.viewGetServices":
            direct = find(results, "DiscoveryReadBenchmark", "directGetServices",
                          servicesHeld=params(view)["servicesHeld"])
            label = "getServices"
        elif name(view) == "ConfigReadBenchmark.viewGet":
            direct = find(results, "ConfigReadBenchmark", "directGet")
            label = "config get"
        else:
            continue
        ratio = score(direct) / score(view) if direct else None
        read_ratios[label].append((ratio, alloc(view)))
        w(f"| {label} | {param_text(view)} | {fmt(score(view))} | {fmt(alloc(view))} | "
          f"{fmt(score(direct) if direct else None)} | {fmt(ratio)}× |")

    w("\n### Writes against the raw GET baseline (same run, same concurrency)\n")
    w("| Write | Threads | Write ops/s | Raw GET ops/s | Write / GET |")
    w("|---|--:|--:|--:|--:|")
    write_ratios = {}
    for r in results:
        if not name(r).startswith("WriteBenchmark") or method(r) == "rawGet":
            continue
        cls = name(r).rsplit(".", 1)[0]
        base = find(results, cls, "rawGet")
        ratio = score(r) / score(base) if base else None
        write_ratios[(method(r), r["threads"])] = ratio
        w(f"| {method(r)} | {r['threads']} | {fmt(score(r))} | {fmt(score(base) if base else None)} | "
          f"{fmt(None if ratio is None else 100 * ratio)} % |")

    # ---------------------------------------------------------------- targets
    w("\n### Targets\n")
    w("| Target | Reached | Met |")
    w("|---|---|---|")

    def verdict(ok):
        return "—" if ok is None else ("yes" if ok else "**no**")

    for label in ("getInstances", "config get"):
        rows = [x for x in read_ratios[label] if x[0] is not None]
        if rows:
            worst = min(x[0] for x in rows)
            most = max((x[1] or 0) for x in rows)
            w(f"| Cached {label} ≥ 1,000× direct, 0 B/op | worst {fmt(worst)}×, at most {fmt(most)} B/op | "
              f"{verdict(worst >= 1000 and most < 1)} |")
    weighted = [r for r in results if name(r).startswith("ChooseBenchmark.")
                and params(r).get("strategy") == "WEIGHTED_RANDOM"]
    for meth in ("choose", "chooseWithSelectors"):
        rows = [r for r in weighted if method(r) == meth]
        if rows:
            slowest = max(score(r) for r in rows)
            most = max((alloc(r) or 0) for r in rows)
            sizes = ", ".join(str(params(r)["instances"]) for r in rows)
            w(f"| Weighted {meth} ≤ 50 ns/op, 0 B/op (instances {sizes}) | slowest {fmt(slowest)} ns/op, "
              f"at most {fmt(most)} B/op | {verdict(slowest <= 50 and most < 1)} |")
    for meth in ("register", "renew", "configSet"):
        rows = [(t, ratio) for (m, t), ratio in sorted(write_ratios.items()) if m == meth and ratio is not None]
        if rows:
            text = ", ".join(f"{fmt(100 * ratio)} % at {t} thread{'s' if t > 1 else ''}" for t, ratio in rows)
            w(f"| {meth} ≥ 50 % of raw GET throughput | {text} | {verdict(all(r >= 0.5 for _, r in rows))} |")
    for r in sampled:
        p99 = percentile(r, "99.0")
        ms = p99 / 1000 if unit(r) == "us/op" else (p99 / 1e6 if unit(r) == "ns/op" else None)
        w(f"| Propagation p99 ≤ 2 ms ({method(r)}) | {fmt(ms, 2)} ms | "
          f"{verdict(None if ms is None else ms <= 2)} |")

    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 jmh/report.py RESULTS.json")
    main(sys.argv[1])
