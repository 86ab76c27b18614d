"""The README's tables from write_cost.py's raw JSON files: one Markdown row per variant and run, with the commands
per call, Redis µs per call (the 20th percentile of the chunks: the least preempted, see write_cost.py's report),
the floor's, the ratio (median of the paired chunk ratios, with quartiles), and for a variant of the real register
the change against the real register's ratio in the same run.
Usage: summarize.py raw/appendonly-no.json raw/appendonly-yes.json"""
import json, statistics, sys


def q(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(p * len(xs)))]


runs = [(path, json.load(open(path))) for path in sys.argv[1:]]
print('| variant | run | commands per call | Redis µs per call (p20 chunk) | floor µs | ratio to floor (p25–p75) '
      '| vs register | CPU ratio | pairs |')
print('|---|---|---|---|---|---|---|---|---|')
labels = list(dict.fromkeys(label for _, raw in runs for label in raw['results']))
for label in labels:
    for path, raw in runs:
        if label not in raw['results']:
            continue
        rows = raw['results'][label]
        ratios = [x['variant']['us'] / x['floor']['us'] for x in rows]
        base = statistics.median(x['variant']['us'] / x['floor']['us'] for x in raw['results'].get('register', rows))
        cmds = statistics.median(sum(x['variant']['inner'].values()) for x in rows)
        delta = (statistics.median(ratios) - base if label.startswith('register') and label != 'register'
                 and 'register' in raw['results'] else None)
        print('| %s | %s | %.1f | %.1f | %.1f | **%.2f** (%.2f–%.2f) | %s | %.2f | %d |' % (
            label, path.split('/')[-1][:-5], cmds, q([x['variant']['us'] for x in rows], .2),
            q([x['floor']['us'] for x in rows], .2), statistics.median(ratios), q(ratios, .25), q(ratios, .75),
            '%+.2f' % delta if delta is not None else '',
            statistics.median(x['variant']['cpu'] / x['floor']['cpu'] for x in rows), len(rows)))
for path, raw in runs:
    print('\n%s: Redis %s, appendonly %s, %d rounds x %d pairs x %d calls, started %s, load average %s before, %s '
          'after, per-pair 1-min load %.1f-%.1f' % (
              path, raw['redis'], 'yes' if raw['appendonly'] else 'no', raw['rounds'], raw['pairs'], raw['chunk'],
              raw['started'], ' / '.join('%.1f' % x for x in raw['load_before']),
              ' / '.join('%.1f' % x for x in raw['load_after']),
              min(x['load'] for rows in raw['results'].values() for x in rows),
              max(x['load'] for rows in raw['results'].values() for x in rows)))
