"""Shares of the client JVMs' CPU during the fan-out (async-profiler cpu, collapsed, threads): by thread and path."""
import collections, glob, gzip, re, sys
d, first, last = sys.argv[1], sys.argv[2], sys.argv[3]
files = [f for f in glob.glob(d + '/*.collapsed*') if first <= f.rsplit('-', 1)[1].split('.')[0][-6:] <= last]
cat = collections.Counter(); lod = collections.Counter(); tot = 0
def thread_kind(t):
    for k, p in [('GC', r'G1|GC Thread|Conc|Refine'), ('JIT', r'Compiler'), ('Lettuce I/O', r'nioEventLoop'),
                 ('executor (views, listeners)', r'fleet-exec|pool-|lodestar'), ('timer/scheduler', r'timer|sched')]:
        if re.search(p, t):
            return k
    return 'other: ' + re.sub(r'[-\d]+', 'N', t)[:40]
for f in files:
    for line in (gzip.open(f, 'rt') if f.endswith('.gz') else open(f)):
        stack, n = line.rstrip().rsplit(' ', 1); n = int(n); fr = stack.split(';'); tot += n
        t = re.sub(r' tid=\d+', '', fr[0].strip('[]'))
        k = thread_kind(t); cat[k] += n
        s = ';'.join(fr)
        if 'FleetMember.heardRaw' in s or 'FleetMember$' in s and 'smessage' in s and 'lodestar/redis' not in s:
            lod['raw path: FleetMember listener (incl. its recording)'] += n
        if 'io/lodestar/redis' in s or 'io/lodestar/core' in s:
            top = next((x for x in fr if x.startswith('io/lodestar/redis/') or x.startswith('io/lodestar/core/')), '')
            lod['Lodestar frames (any thread)'] += n
        if 'FleetMember.lambda$listener' in s or 'FleetMember.record' in s:
            lod['harness recording (both paths)'] += n
        for key, pat in [('JSON parse of events', r'Json\.|ViewEvents|readTree|parse'), ('SHA-1 digest', r'sha1|SHA|MessageDigest|DigestBase'),
                         ('snapshot copy', r'Snapshot|ReadTable|TopicTable'), ('SerialExecutor.drain', r'SerialExecutor.drain'),
                         ('RESP decode / channelRead', r'CommandHandler.channelRead'), ('smessage routing in RedisBackend', r'RedisBackend\$\d+\.smessage')]:
            if re.search(pat, s):
                lod[key] += n
print(len(files), 'files;', tot, 'samples (5 ms each)')
for k, n in cat.most_common(): print(f'  {100*n/tot:5.1f}%  {k}')
print('-- by path (inclusive, overlapping)')
for k, n in lod.most_common(): print(f'  {100*n/tot:5.1f}%  {k}')
