"""Per-event slowest delivery (fleet.json) against the client JVMs' GC pauses (-Xlog:gc*,safepoint with time)."""
import json, re, sys, datetime, gzip, glob, gzip
fleet, gclogs = sys.argv[1], sys.argv[2:]
d = json.load(open(fleet))
f = d['fanOut']
def ts(s): return datetime.datetime.strptime(s, '%Y-%m-%dT%H:%M:%S.%f%z').timestamp()
pauses = {}
for g in gclogs:
    ps = []
    for line in (gzip.open(g, 'rt') if g.endswith('.gz') else open(g)):
        m = re.match(r'\[(\S+?)\]\[\S+\] GC\(\d+\) (Pause \S+( \(\S+\))?).* (\d+\.\d+)ms$', line.strip())
        if m:
            end = ts(m.group(1)); dur = float(m.group(4)) / 1000
            ps.append((end - dur, end, m.group(2)))
    pauses[g] = ps
def overlap(ps, a, b): return sum(max(0, min(b, e) - max(a, s)) for s, e, _ in ps)
for kind in ('Lodestar', 'Raw'):
    p99 = f['lodestar' if kind == 'Lodestar' else 'raw']['p99']
    print(f'== {kind}: pooled p99 {p99} us')
    for jvm, (name, j) in enumerate(sorted(f['perJvm'].items())):
        ev = j['events' + kind]
        for g in gclogs:
            tot_slow = [overlap(pauses[g], w / 1e6, w / 1e6 + s / 1e6) for _, w, s in ev]
        slow = sorted(ev, key=lambda e: -e[2])
        print(f'  {name}: events {len(ev)}, slowest >p99: {sum(1 for e in ev if e[2] > p99)}; median slowest {sorted(e[2] for e in ev)[len(ev)//2]} us')
        for seq, w, s in slow[:8]:
            ov = {g.split('-')[-1]: round(overlap(pauses[g], w / 1e6, w / 1e6 + s / 1e6) * 1000, 1) for g in gclogs}
            print(f'    seq {seq} at {datetime.datetime.utcfromtimestamp(w/1e6).strftime("%H:%M:%S.%f")[:-3]} slowest {s/1000:.1f} ms; GC pause ms inside window per log {ov}')
for g in gclogs:
    ps = pauses[g]
    print(g, 'pauses', len(ps), 'total ms', round(sum(e - s for s, e, _ in ps) * 1000), 'longest ms', round(max(e - s for s, e, _ in ps) * 1000, 1))
