"""The five benchmarked writes of two versions of the scripts, and the newer as Redis Functions, in one run (issue 27:
a before/after that a loaded machine cannot skew, since every chunk is paired with a floor chunk just before it,
and the decision on FCALL): each write by EVALSHA from the "before" and the "after" scripts directory, and the
"after" script, unchanged, as the body of a function of one library (redis.register_function(name, function(KEYS,
ARGV) <the expanded script> end)), each measured beside the fixed floor (jmh/.../floor_register.lua by EVALSHA).

Method: a private redis-server on a free port (--save '' --appendonly no); each write and mode has its own service
(10 instances, the due entry filed at the earliest deadline) or config; then ROUNDS rounds of, for every write and
mode, 3 pairs of a chunk of CHUNK floor calls and a chunk of CHUNK calls of the write. Redis µs per call of a chunk:
INFO commandstats usec / calls of its outer command (evalsha or fcall). A write's ratio is the median over its pairs
of (its chunk ÷ the floor chunk just before it); q1 and q3 are the quartiles of those ratios.

Each version runs on its own key layout: 8 keys per service script (revision, digest and incarnation as keys of
their own, the scripts before 2026-11-28) or 5 (the stamp in the instances hash), told from its register script;
and a config set passes the content's SHA-1 unless the version's set_config.lua computes it.

Usage: compare_scripts.py <before scripts dir> <after scripts dir> <floor_register.lua> > out.txt
Env: ROUNDS (6), CHUNK (100: calls per chunk; 1 measures each call on its own, between two INFO calls, as a write
arriving alone meets Redis, with colder caches than back-to-back calls), FCALL (1: also the "after" scripts as
functions), PREFILL (instances registered in the register service, and members in the floor's shared keys, before
the rounds), REDIS (redis-server), PRUNE_BEFORE (1: the "before" scripts without the helpers they do not call, as
LuaScript.java sends them since 2026-11-28; 0: whole, as before; the "after" ones are always without them),
IR (1: count instructions instead of µs: the server runs under valgrind's callgrind, which counts the instructions
executed inside EVALSHA and FCALL only, and a chunk's figure is those instructions per call, from the counters zeroed
before the chunk and dumped after it. Deterministic, so one round of one pair per write resolves what µs on a shared
machine cannot; but an instruction is not a µs: cache misses, allocation and the kernel weigh differently, so it
shows what a change saves in the work Redis does, not the budget's figure. Needs valgrind, about 50x slower),
ONLY (the writes measured, by the names of the table's rows, comma-separated; all five by default)."""
import glob, hashlib, json, os, re, statistics, subprocess, sys, tempfile, time

from harness import R, free_port, load, source

BEFORE, AFTER, FLOOR = sys.argv[1], sys.argv[2], sys.argv[3]
MODES = ('before', 'after', 'fcall') if os.environ.get('FCALL') == '1' else ('before', 'after')
IR = os.environ.get('IR') == '1'
# the instances' TTL (ms): under valgrind a round takes minutes, and an update of an instance past its deadline takes
# the cheap path that expires it
TTL = 3600000 if IR else 30000
MEASURED = os.environ.get('ONLY', 'register,renew,deregister,update,setconfig').split(',')
ROUNDS, CHUNK = int(os.environ.get('ROUNDS', '6')), int(os.environ.get('CHUNK', '100'))
PRUNE_BEFORE = os.environ.get('PRUNE_BEFORE', '1') == '1'
WRITES = {'register': 'register_instance.lua', 'renew': 'renew_instance.lua',
          'deregister': 'deregister_instance.lua', 'update': 'update_instance.lua', 'setconfig': 'set_config.lua'}
# a config entry's keys: 10 until 2026-11-28 (revision, incarnation and a versions set of their own, history a hash),
# then 7 (the stamp in the current hash, history a stream), told from the version's set_config.lua
CONFIG = {10: ('content', 'history', 'versions', 'revision', 'events', 'incarnation', 'log', 'gray', 'gray:revision',
               'gray:events'),
          7: ('content', 'history', 'events', 'log', 'gray', 'gray:revision', 'gray:events')}
INSTANCE = ('{"serviceId":"orders","instanceId":"%s","host":"10.0.0.1","port":8080,"weight":100,"status":"UP",'
            '"metadata":{"zone":"eu-west-1a","version":"1.4.2"},"ttl":%d}')
OWNER = '0123456789abcdef'


def token(i):
    """A write's token, as Lodestar's client draws one (random; here distinct per call): scripts since 2026-11-28
    publish it as the event's digest, earlier ones ignore it."""
    return '%032x' % (i * 0x9E3779B97F4A7C15 % (1 << 128))


def service_keys(tag, stamp_keys):
    t = 'lodestar:{t}:svc:{%s}' % tag
    if stamp_keys:
        return [t + ':instances', t + ':deadlines', t + ':rev', t + ':events', t + ':tomb', t + ':digest', t + ':inc',
                'lodestar:{t}:due:{%s}' % tag]
    return [t + ':instances', t + ':deadlines', t + ':events', t + ':tomb', 'lodestar:{t}:due:{%s}' % tag]


DUMPS = tempfile.mkdtemp(prefix='callgrind-') if IR else None


def main():
    port = free_port()
    valgrind = ['valgrind', '--tool=callgrind', '--toggle-collect=evalShaCommand', '--toggle-collect=fcallCommand',
                '--callgrind-out-file=%s/cg.%%p' % DUMPS] if IR else []
    server = subprocess.Popen(valgrind + [os.environ.get('REDIS', 'redis-server'), '--port', str(port), '--save', '',
                                          '--appendonly', 'no'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):  # valgrind takes seconds to start
        try:
            r = R(port)
            r.call('PING')
            break
        except OSError:
            time.sleep(0.1)
    else:
        server.terminate()
        raise SystemExit('redis-server did not answer on port %d within 20 s' % port)
    try:
        run(r, server.pid)
    finally:
        server.terminate()


def instructions(pid, send):
    """The instructions callgrind counted inside EVALSHA and FCALL while send() ran."""
    subprocess.run(['callgrind_control', '--zero', str(pid)], check=True, capture_output=True)
    send()
    dumps = len(glob.glob(DUMPS + '/cg.*'))
    subprocess.run(['callgrind_control', '--dump', str(pid)], check=True, capture_output=True)
    for _ in range(100):
        files = sorted(glob.glob(DUMPS + '/cg.*'), key=os.path.getmtime)
        if len(files) > dumps:
            totals = [l for l in open(files[-1]) if l.startswith(('summary:', 'totals:'))]
            if totals:
                return int(totals[0].split()[1])
        time.sleep(0.1)
    raise RuntimeError('callgrind wrote no dump')


def run(r, pid):
    scripts = {name: load(AFTER, file) for name, file in WRITES.items()}
    # the layout of each mode: service stamps as keys of their own (8 keys) or in the instances hash (5)
    stamp_keys = {mode: 'KEYS[8]' in source(BEFORE if mode == 'before' else AFTER, 'register_instance.lua')
                  for mode in MODES}
    # who hashes a config's content: the script (its callers passed '', before 2026-11-28) or the client
    script_hashes = {mode: 'sha1hex(content)' in source(BEFORE if mode == 'before' else AFTER, 'set_config.lua')
                     for mode in MODES}
    config_keys = {mode: CONFIG[10 if 'KEYS[8..10]' in source(BEFORE if mode == 'before' else AFTER, 'set_config.lua')
                               else 7] for mode in MODES}
    sha = {(name, 'after'): r.call('SCRIPT', 'LOAD', text) for name, text in scripts.items()}
    sha.update({(name, 'before'): r.call('SCRIPT', 'LOAD', load(BEFORE, file, PRUNE_BEFORE))
                for name, file in WRITES.items()})
    sha[('floor', 'before')] = r.call('SCRIPT', 'LOAD', open(FLOOR).read())
    if 'fcall' in MODES:
        r.call('FUNCTION', 'LOAD', 'REPLACE', '#!lua name=lodestar_check\n' + ''.join(
            "redis.register_function('%s', function(KEYS, ARGV)\n%s\nend)\n" % item for item in scripts.items()))
    counter = [0]

    def register(keys, id, mode):  # set-up, by the mode's own script (the layouts may differ)
        script = sha[('register', 'before' if mode == 'before' else 'after')]
        return ['EVALSHA', script, len(keys), *keys, id, INSTANCE % (id, TTL), TTL, 'register', OWNER]

    for name in WRITES:
        for mode in MODES:
            keys = service_keys(name + mode, stamp_keys[mode])
            r.pipe([register(keys, 'i%d' % i, mode) for i in range(10)])
            first = r.call('ZRANGE', keys[1], 0, 0, 'WITHSCORES')
            r.call('ZADD', keys[-1], first[1], keys[0])  # as the sweep leaves it
    prefill = int(os.environ.get('PREFILL', '0'))
    floor = 'lodestar-floor:{t}:'
    for start in range(0, prefill, 1000):
        ids = ['p%d' % i for i in range(start, min(start + 1000, prefill))]
        for mode in MODES:
            r.pipe([register(service_keys('register' + mode, stamp_keys[mode]), id, mode) for id in ids])
        r.pipe([['ZADD', floor + 'deadlines', i, id] for i, id in enumerate(ids)] + [['SADD', floor + 'ids', *ids]])

    def chunk(name, mode):
        """CHUNK calls of the write (or the floor), and the deregistered instances registered before them."""
        head = ['FCALL', name] if mode == 'fcall' else ['EVALSHA', sha[(name, mode)]]
        keys = service_keys(name + mode, stamp_keys[mode]) if name != 'floor' else None
        calls = []
        for _ in range(CHUNK):
            counter[0] += 1
            i = counter[0]
            if name == 'floor':
                t = 'lodestar-floor:{t}:'
                calls.append(head + [5, t + 'instance:id%d' % i, t + 'deadlines', t + 'revision', t + 'ids',
                                     t + 'events', 'id%d' % i, '10.0.0.1', '8080', '100',
                                     '{"zone":"eu-west-1a","version":"1.4.2"}', '30000'])
            elif name == 'register':
                calls.append(head + [len(keys), *keys, 'n%d' % i, INSTANCE % ('n%d' % i, TTL), TTL, 'register', OWNER,
                                     token(i)])
            elif name == 'renew':
                calls.append(head + [len(keys), *keys, 'i%d' % (i % 10), OWNER, TTL])
            elif name == 'deregister':
                r.call(*register(keys, 'd%d' % i, mode))
                calls.append(head + [len(keys), *keys, 'd%d' % i, 60000, 'deregister', token(i)])
            elif name == 'update':
                calls.append(head + [len(keys), *keys, 'i%d' % (i % 10), 'replace', json.dumps({'call': str(i)}),
                                     '[]', token(i)])
            else:
                c = 'lodestar:{t}:cfg:{%s}:' % (name + mode)
                content = 'a=%d\n' % i + ''.join('key.%02d=some.value.here.%08d\n' % (k, i) for k in range(30))  # 1 KiB
                calls.append(head + [len(config_keys[mode]), *(c + key for key in config_keys[mode]), 'app',
                                     content, 'PROPERTIES', '10', '-1',
                                     '' if script_hashes[mode] else hashlib.sha1(content.encode()).hexdigest(),
                                     'bench', 'localhost'])
        return calls

    def us_per_call(outer, calls):
        if IR:
            return instructions(pid, lambda: r.pipe(calls)) / len(calls)

        def stat():
            m = re.search(r'cmdstat_%s:calls=(\d+),usec=(\d+)' % outer, r.call('INFO', 'commandstats'))
            return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        before = stat()
        r.pipe(calls)
        after = stat()
        return (after[1] - before[1]) / (after[0] - before[0])

    pairs = {}
    load_before = open('/proc/loadavg').read().split()[:3]
    for _ in range(ROUNDS):
        for name in MEASURED:
            for mode in MODES:
                for _ in range(3):
                    floor = us_per_call('evalsha', chunk('floor', 'before'))
                    write = us_per_call('fcall' if mode == 'fcall' else 'evalsha', chunk(name, mode))
                    pairs.setdefault((name, mode), []).append((write, floor))
    print('Redis %s, %d rounds x 3 pairs x %d calls; load average before %s, after %s' % (
        re.search(r'redis_version:(\S+)', r.call('INFO', 'server')).group(1), ROUNDS, CHUNK,
        ' '.join(load_before), ' '.join(open('/proc/loadavg').read().split()[:3])))
    unit = 'instructions' if IR else 'Redis µs'
    print('| write | scripts, by | %s per call | floor %s per call | ratio to the floor (q1–q3) |' % (unit, unit))
    print('|---|---|--:|--:|--:|')
    for (name, mode), xs in pairs.items():
        ratios = [w / f for w, f in xs]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        label = {'before': 'before, EVALSHA', 'after': 'after, EVALSHA', 'fcall': 'after, FCALL'}[mode]
        print('| %s | %s | %.1f | %.1f | %.2f (%.2f–%.2f) |' % (name, label, statistics.median(w for w, _ in xs),
              statistics.median(f for _, f in xs), statistics.median(ratios), q1, q3))


if __name__ == '__main__':
    main()
