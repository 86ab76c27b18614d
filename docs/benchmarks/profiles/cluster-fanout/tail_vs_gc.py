"""Do the fan-out's tail events coincide with the client JVMs' GC pauses? fleet.json (per-event slowest client per JVM)
against -Xlog:gc logs of both client JVMs. Prints, per kind: events beyond the pooled p99 and how many of them had a
stop-the-world pause of either JVM inside [written, written + slowest]; the same share for all events (base rate);
and the young pauses during the measured events."""
import json, re, sys, datetime, gzip
fleet, gclogs = sys.argv[1], sys.argv[2:]
f = json.load(open(fleet))['fanOut']
def ts(s): return datetime.datetime.strptime(s, '%Y-%m-%dT%H:%M:%S.%f%z').timestamp()
pauses = []
for g in gclogs:
    for line in (gzip.open(g, 'rt') if g.endswith('.gz') else open(g)):
        m = re.match(r'\[(\S+?)\]\[\S+\] GC\(\d+\) Pause (Young|Full|Remark|Cleanup|Mark|Relocate)\S*.* (\d+\.\d+)ms$', line.strip())
        if m:
            end = ts(m.group(1)); pauses.append((end - float(m.group(3)) / 1000, end))
def paused(a, b): return sum(max(0, min(b, e) - max(a, s)) for s, e in pauses)
out = {}
for kind in ('Lodestar', 'Raw'):
    p99 = f['lodestar' if kind == 'Lodestar' else 'raw']['p99']
    slowest = {}
    for j in f['perJvm'].values():
        for seq, w, s in j['events' + kind]:
            if s > slowest.get(seq, (0, 0))[1]:
                slowest[seq] = (w, s)
    first = min(w for w, _ in slowest.values()) / 1e6; last = max(w + s for w, s in slowest.values()) / 1e6
    beyond = [(w, s) for w, s in slowest.values() if s > p99]
    hit = sum(1 for w, s in beyond if paused(w / 1e6, (w + s) / 1e6) > 0)
    base = sum(1 for w, s in slowest.values() if paused(w / 1e6, (w + s) / 1e6) > 0)
    during = [round((e - s) * 1000) for s, e in pauses if first <= s <= last]
    print(f'{kind}: p99 {p99/1000:.1f} ms; events beyond it {len(beyond)}, of which {hit} spanned a GC pause; '
          f'all events {len(slowest)}, of which {base} ({100*base/len(slowest):.0f} %) spanned one')
print(f'pauses during the events (both JVMs): {len(during)}, {min(during)}-{max(during)} ms, median {sorted(during)[len(during)//2]} ms, '
      f'{sum(during)} ms in {last-first:.0f} s')
