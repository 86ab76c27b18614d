"""Where a Lodestar write's Redis time goes (issue 27): variants of the real write scripts, each with one thing
removed, calibration scripts, lean shapes, and the same scripts as a Redis Functions library (FCALL), each measured
against the fixed floor (jmh/.../floor_register.lua) in the same run.

Method (the RESP client and the alternating chunks come from sdk-redis/src/test/python/measure_write_cost.py on the
`writes` branch): the program starts its own redis-server on a free port (--save '' and --appendonly no or yes),
loads every variant, pre-fills each variant's own 10 services (own hash tags, so no variant sees another's state),
then for ROUNDS rounds, for every variant in a rotated order: PAIRS times a chunk of CHUNK floor calls, then a chunk
of CHUNK calls of the variant. Per chunk: Redis µs per call of the outer command (INFO commandstats,
cmdstat_evalsha / cmdstat_fcall usec), main-thread CPU µs per call (INFO cpu) and inner commands per call (the other
cmdstat counters). A variant's ratio is the median over its chunks of (its chunk ÷ the floor chunk just before it).

Usage: write_cost.py <scripts dir> <floor_register.lua> <out.json> [--aof]   (prints the table; the JSON holds
every chunk)
Env: ROUNDS (6), PAIRS (16), CHUNK (25), REDIS (/usr/bin/redis-server), SET: unset for every variant; lua for the
Lua-only decomposition; renew for the renewals and the lean renewal given only its four keys; alone for register and
renew with nothing else loaded in either Lua VM; sweep for one sweep_service call on a service with nothing
overdue. No dependency beyond Python 3."""
import json, os, re, statistics, subprocess, sys, tempfile, time

SCRIPTS, FLOOR, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
AOF = '--aof' in sys.argv
ROUNDS, PAIRS, CHUNK = (int(os.environ.get(k, d)) for k, d in (('ROUNDS', '6'), ('PAIRS', '16'), ('CHUNK', '25')))
HERE = os.path.dirname(os.path.abspath(__file__))


import harness  # noqa: E402 (shared with compare_scripts.py)
from harness import R, free_port  # noqa: E402


# ---- the scripts, expanded as LuaScript.java does (--#include, nested) ----
def source(name):
    return harness.source(SCRIPTS, name)


def expand(text):
    return harness.expand(SCRIPTS, text)


def body_of(text):
    """A script without its includes (for the Functions library, which defines the helpers once)."""
    return '\n'.join(l for l in text.split('\n') if not l.startswith('--#include '))


HELPERS = ['basics.lua', 'instances.lua', 'due.lua', 'stamps.lua']
FUNCS = ['now_ms', 'current_revision', 'decoded', 'ttl_of', 'stored_ttl', 'owner_suffix', 'with_owner', 'public_of',
         'same_public', 'refile_due', 'file_due', 'tombstoned', 'new_incarnation', 'incarnation', 'read_stamp',
         'next_revision', 'save_stamp', 'publish', 'announce', 'expire']
REGISTER_CALLS = ['now_ms', 'owner_suffix', 'with_owner', 'same_public', 'refile_due', 'file_due', 'tombstoned',
                  'new_incarnation', 'read_stamp', 'next_revision', 'save_stamp', 'publish']


def drop_functions(text, names):
    out, skipping = [], False
    for l in text.split('\n'):
        m = re.match(r'local function (\w+)\(', l)
        if m and m.group(1) in names:
            skipping = True
        if not skipping:
            out.append(l)
        elif l == 'end':
            skipping = False
    return '\n'.join(out)


def edit(text, old, new, last=False):
    n = text.count(old)
    assert n >= 1, 'not in the script: ' + old
    if last:
        i = text.rindex(old); return text[:i] + new + text[i + len(old):]
    assert n == 1, 'more than once in the script: ' + old
    return text.replace(old, new)


REG = expand(source('register_instance.lua'))
RENEW = expand(source('renew_instance.lua'))
DEREG = expand(source('deregister_instance.lua'))

# register, one thing removed at a time (the path measured is "register new": an id the service does not hold).
# Each edit is (old text, new text, replace its last occurrence only).
COMMAND_EDITS = {
    'SPUBLISH': ("redis.call('SPUBLISH', channel, ", 'local _ = (', False),
    # the client's clock (seconds) instead of TIME
    'TIME': ("local t = redis.call('TIME')\n  return tonumber", "local t = {ARGV[6], '0'}\n  return tonumber", False),
    'HGET': ("local existing = redis.call('HGET', instances, id)", 'local existing = false', False),
    'ZSCORE deadline': ("redis.call('ZSCORE', deadlines, id)", 'false', False),
    'ZSCORE due': ("redis.call('ZSCORE', KEYS[8], instances)", "'1'", False),
    'MGET': ("redis.call('MGET', rev_key, inc_key, digest_key or rev_key)",
             "{'7', '0123456789abcdef', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'}", False),
    'ZREM tombstone': ("redis.call('ZREM', tombstones, id)", 'local _ = 0', False),
    'HLEN': ("redis.call('HLEN', instances)", '5', False),
    'ZADD deadline': ("redis.call('ZADD', deadlines, new_deadline, id)", 'local _ = 0', False),
    'HSET': ("redis.call('HSET', instances, id, stored)", 'local _ = 0', True),
    'MSET': ("redis.call('MSET', unpack(args))", 'local _ = args', False),
}
OTHER_EDITS = {
    'sha1hex': ('redis.sha1hex(stamp.digest .. event)', "'da39a3ee5e6b4b0d3255bfef95601890afd80709'", False),
    'cjson': ('cjson.encode(id)', "'\"' .. id .. '\"'", False),
}
# Cheaper shapes that keep the guarantees (README, question 3), applied together:
# - the tombstone lives in the instances hash too (field "~id"), so the one read of the instance (HMGET) also says
#   whether a tombstone is to be cleared: no ZREM on a plain registration;
# - the instance count is kept in the stamp (a fourth key read by the same MGET, written by the same MSET): no HLEN;
# - the deadline is read only for an instance that exists (a new one's ZADD is the script's first write, now that
#   the tombstone's ZREM is gone, so the key is still proven before anything else is written).
LEAN_EDITS = [
    ("local existing = redis.call('HGET', instances, id)",
     "local existing, tomb = unpack(redis.call('HMGET', instances, id, '~' .. id))", False),
    ("local deadline = redis.call('ZSCORE', deadlines, id)",
     "local deadline = existing and redis.call('ZSCORE', deadlines, id)", False),
    ("redis.call('ZREM', tombstones, id)", "if tomb then redis.call('HDEL', instances, '~' .. id) end", False),
    ("count = redis.call('HLEN', instances) + 1", 'count = stamp.count + 1\n  stamp.count = count', False),
    ("redis.call('MGET', rev_key, inc_key, digest_key or rev_key)",
     "redis.call('MGET', rev_key, inc_key, digest_key or rev_key, rev_key .. ':count')", False),
    ("digest = v[3] or ''}", "digest = v[3] or '', count = tonumber(v[4] or '0')}", False),
    ("  redis.call('MSET', unpack(args))",
     "  if stamp.count then\n    args[#args + 1], args[#args + 2] = stamp.rev_key .. ':count', stamp.count\n  end\n"
     "  redis.call('MSET', unpack(args))", False),
]
# renew touching only the deadline: HGET (owner check), TIME, ZADD; the due entry is no longer refiled when this
# instance held the earliest deadline, so it stays early (never late): the sweep looks once more and refiles it.
RENEW_LEAN_EDITS = [
    ("local filed = redis.call('ZSCORE', KEYS[8], instances)\nif not stored then\n",
     "if not stored then\n  local filed = redis.call('ZSCORE', KEYS[8], instances)\n", False),
    ("  if not filed or tonumber(filed) > now then\n    refile_due(deadlines, filed)\n  end\n", '', False),
]


def apply(text, edits):
    for e in edits:
        text = edit(text, *e)
    return text


REGISTER_VARIANTS = {'register': REG}
for k, e in list(COMMAND_EDITS.items()) + list(OTHER_EDITS.items()):
    REGISTER_VARIANTS['register -' + k] = edit(REG, *e)
REGISTER_VARIANTS['register -unused helpers'] = drop_functions(REG, set(FUNCS) - set(REGISTER_CALLS))
# all eleven commands gone: what is left is the Lua (closures, string work, sha1hex, cjson) and EVALSHA itself
REGISTER_VARIANTS['register, no command (Lua only)'] = apply(REG, COMMAND_EDITS.values())
REGISTER_VARIANTS['register lean'] = apply(REG, LEAN_EDITS)
RENEW_LEAN = apply(RENEW, RENEW_LEAN_EDITS)

FLAT = open(os.path.join(HERE, 'flat_register.lua')).read()
FAKE_DIGEST = "'da39a3ee5e6b4b0d3255bfef95601890afd80709'"


def no_command(text, edits):
    """A script's Lua work without its commands: the edits give what a call returns where the script reads a
    table; every other redis.call becomes select('#', ...), so its arguments are still built."""
    return apply(text, edits).replace("redis.call('", "select('#', '")


# SET=renew: the lean renew given only the four keys it uses (instances, deadlines, due set, tombstones), not the
# eight every service script is given today
def four_keys(text):
    return text.replace('KEYS[8]', 'KEYS[3]').replace('KEYS[5]', 'KEYS[4]')


RENEW_LEAN_4 = four_keys(RENEW_LEAN)


# SET=lua: where the Lua-only time of a register goes (a second, shorter run; README, question 1)
LUA_ONLY = REGISTER_VARIANTS['register, no command (Lua only)']
UNUSED = set(FUNCS) - set(REGISTER_CALLS)
LUA_VARIANTS = {
    'Lua only -sha1hex': edit(LUA_ONLY, *OTHER_EDITS['sha1hex']),
    'Lua only -sha1hex -cjson -unused helpers': drop_functions(
        apply(LUA_ONLY, [OTHER_EDITS['sha1hex'], OTHER_EDITS['cjson']]), UNUSED),
    'flat register -sha1hex': edit(FLAT, "redis.sha1hex((v[3] or '') .. event)", FAKE_DIGEST),
    'flat register, no command': no_command(FLAT, [
        ("local t = redis.call('TIME')", "local t = {ARGV[6], '0'}", False),
        ("local v = redis.call('MGET', KEYS[3], KEYS[7], KEYS[6])",
         "local v = {'7', '0123456789abcdef', " + FAKE_DIGEST + "}", False)]),
}
CALIBRATION = {
    'empty': 'return 1',
    '20 closures': '\n'.join('local function f%d(a) return a + %d end' % (i, i) for i in range(20)) + '\nreturn 1',
    'helpers only (common.lua)': expand('--#include common.lua') + '\nreturn 1',
    '1 GET': "return redis.call('GET', KEYS[1])",
    '5 GET': "for i = 1, 5 do redis.call('GET', KEYS[1]) end return 1",
    '10 GET': "for i = 1, 10 do redis.call('GET', KEYS[1]) end return 1",
    'SPUBLISH 150 B': "return redis.call('SPUBLISH', KEYS[1], string.rep('x', 150))",
    'SPUBLISH 450 B': "return redis.call('SPUBLISH', KEYS[1], string.rep('x', 450))",
    'sha1hex 400 B': "return redis.sha1hex(string.rep(ARGV[1], 400))",
}


# ---- the Functions library: helpers defined once at load, KEYS/ARGV upvalues set by each call ----
def library(name, bodies):
    parts = ['#!lua name=' + name, 'local KEYS, ARGV']
    parts += [source(h) for h in HELPERS]
    for name, body in bodies.items():
        parts.append('local function %s_body()\n%s\nend' % (name, body))
        parts.append("redis.register_function('%s', function(keys, args) KEYS, ARGV = keys, args return %s_body() end)"
                     % (name, name))
    return '\n'.join(parts)


def standalone_library(name, text):
    """A function whose body is the whole script, helpers and all (defined again on every call, as by EVALSHA)."""
    return "#!lua name=%s\nredis.register_function('%s', function(KEYS, ARGV)\n%s\nend)" % (name, name, text)


def main():
    port = free_port()
    tmp = tempfile.mkdtemp(prefix='write-cost-')
    args = [os.environ.get('REDIS', '/usr/bin/redis-server'), '--port', str(port), '--bind', '127.0.0.1',
            '--save', '', '--dir', tmp, '--appendonly', 'yes' if AOF else 'no']
    server = subprocess.Popen(args, stdout=open(os.path.join(tmp, 'log'), 'w'), stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                r = R(port); r.call('PING'); break
            except OSError:
                time.sleep(0.05)
        run(r)
    finally:
        server.terminate(); server.wait(10)


def run(r):
    version = re.search(r'redis_version:(\S+)', r.call('INFO', 'server')).group(1)
    floor_text = open(FLOOR).read()
    sha = {}
    evals = dict(REGISTER_VARIANTS)
    evals.update({'flat register (same 11 commands, no helpers)': FLAT,
                  'renew (lease)': RENEW, 'renew lean (HGET, TIME, ZADD)': RENEW_LEAN,
                  'deregister': DEREG, 'floor (EVALSHA)': floor_text})
    evals.update(CALIBRATION)
    evals.update(LUA_VARIANTS)
    evals['renew lean, 4 keys'] = RENEW_LEAN_4
    evals['sweep_service'] = expand(source('sweep_service.lua'))
    evals['floor, no command'] = no_command(floor_text, [
        ("local time = redis.call('TIME')", "local time = {'1790000000', '0'}", False)])
    for name, text in evals.items():
        sha[name] = r.call('SCRIPT', 'LOAD', text)
    r.call('FUNCTION', 'LOAD', 'REPLACE', library('lodestar', {
        'register_instance': body_of(source('register_instance.lua')),
        'renew_instance': body_of(source('renew_instance.lua')),
        'deregister_instance': body_of(source('deregister_instance.lua')),
        'floor': floor_text, 'empty': 'return 1'}))
    r.call('FUNCTION', 'LOAD', 'REPLACE', apply(library('lodestar_lean', {
        'register_lean': body_of(source('register_instance.lua'))}), LEAN_EDITS))
    r.call('FUNCTION', 'LOAD', 'REPLACE', apply(library('lodestar_renew_lean', {
        'renew_lean': body_of(source('renew_instance.lua'))}), RENEW_LEAN_EDITS))
    r.call('FUNCTION', 'LOAD', 'REPLACE', standalone_library('whole', REG))
    r.call('FUNCTION', 'LOAD', 'REPLACE', four_keys(apply(library('lodestar_renew_lean_4', {
        'renew_lean_4': body_of(source('renew_instance.lua'))}), RENEW_LEAN_EDITS)))
    r.call('FUNCTION', 'LOAD', 'REPLACE', apply(library('lodestar_lua_only', {
        'register_lua_only': body_of(source('register_instance.lua'))}), COMMAND_EDITS.values()))

    owner = '0123456789abcdef'
    counter = [0]

    def inst(host='10.0.0.1'):
        return json.dumps({"host": host, "port": 8080, "secure": False, "weight": 100, "status": "UP", "ttl": 30000,
                           "metadata": {"zone": "eu-1a", "version": "1.4.2"}}, separators=(',', ':'))

    def skeys(ns, svc):
        t = 'lodestar:{%s:%d}:svc-%d:' % (ns, svc, svc)
        return [t + 'instances', t + 'deadlines', t + 'revision', t + 'events', t + 'tombstones', t + 'digest',
                t + 'incarnation', 'lodestar:{%s:%d}:due' % (ns, svc)]

    def fresh():
        counter[0] += 1; return counter[0]

    def now_s():
        return str(int(time.time()))

    def reg_call(head, ns):
        def make():
            i = fresh(); svc = i % 10
            return head + skeys(ns, svc) + ['inst-%d' % i, inst(), 30000, 'register', owner, now_s()]
        return make

    PREFILL = 50  # instances per service before measuring, so each service has a due entry, a stamp, a count

    def prefill(ns):
        cmds = [['EVALSHA', sha['register'], 8] + skeys(ns, k % 10) + ['pre-%d' % k, inst(), 30000, 'register', owner]
                for k in range(PREFILL * 10)]
        r.pipe(cmds)
        for svc in range(10):  # as the sweep leaves it: the due entry at the service's earliest deadline
            k = skeys(ns, svc)
            r.call('ZADD', k[7], r.call('ZRANGE', k[1], 0, 0, 'WITHSCORES')[1], k[0])
        return [(k % 10, 'pre-%d' % k) for k in range(PREFILL * 10)]

    def renew_call(head, ns, pool):
        j = [0]

        def make():
            svc, iid = pool[j[0] % len(pool)]; j[0] += 1
            return head + skeys(ns, svc) + [iid, owner, 30000]
        return make

    def dereg_call(head, ns):
        def make():
            # an instance registered just before by the setup of this chunk (see chunk_setup)
            svc, iid = dereg_pool.pop()
            return head + skeys(ns, svc) + [iid, 60000]
        return make

    def floor_make(head):
        def make():
            i = fresh()
            return head + ['lodestar-floor:{f}:instance:%d' % i, 'lodestar-floor:{f}:deadlines',
                           'lodestar-floor:{f}:revision', 'lodestar-floor:{f}:ids', 'lodestar-floor:{f}:events',
                           'inst-%d' % i, '10.0.0.1', '8080', '100', '{"zone":"eu-1a","version":"1.4.2"}', '30000']
        return make

    dereg_pool = []
    variants = []  # (label, outer command, maker, setup or None)
    for idx, name in enumerate(list(REGISTER_VARIANTS) + ['flat register (same 11 commands, no helpers)']):
        ns = 'v%d' % idx; prefill(ns)
        variants.append((name, 'evalsha', reg_call(['EVALSHA', sha[name], 8], ns), None))
    ns = 'fr'; prefill(ns)
    variants.append(('FCALL register (library, helpers once)', 'fcall',
                     reg_call(['FCALL', 'register_instance', 8], ns), None))
    ns = 'fw'; prefill(ns)
    variants.append(('FCALL register (whole script as the function)', 'fcall',
                     reg_call(['FCALL', 'whole', 8], ns), None))
    ns = 'fl'; prefill(ns)
    variants.append(('FCALL register lean', 'fcall', reg_call(['FCALL', 'register_lean', 8], ns), None))
    for label, head in [('renew (lease)', ['EVALSHA', sha['renew (lease)'], 8]),
                        ('renew lean (HGET, TIME, ZADD)', ['EVALSHA', sha['renew lean (HGET, TIME, ZADD)'], 8]),
                        ('FCALL renew (lease)', ['FCALL', 'renew_instance', 8]),
                        ('FCALL renew lean', ['FCALL', 'renew_lean', 8])]:
        ns = 'n%d' % len(variants); pool = prefill(ns)
        variants.append((label, head[0].lower(), renew_call(head, ns, pool), None))
    for label, head in [('deregister', ['EVALSHA', sha['deregister'], 8]),
                        ('FCALL deregister', ['FCALL', 'deregister_instance', 8])]:
        ns = 'd%d' % len(variants); prefill(ns)

        def setup(ns=ns):  # registers CHUNK instances (outside the measured window) for the chunk to deregister
            ids = [(i % 10, 'inst-%d' % i) for i in (fresh() for _ in range(CHUNK))]
            r.pipe([['EVALSHA', sha['register'], 8] + skeys(ns, s) + [iid, inst(), 30000, 'register', owner]
                    for s, iid in ids])
            dereg_pool[:] = ids
        variants.append((label, head[0].lower(), dereg_call(head, ns), setup))
    variants.append(('FCALL floor', 'fcall', floor_make(['FCALL', 'floor', 5]), None))
    variants.append(('FCALL empty', 'fcall', lambda: ['FCALL', 'empty', 0], None))
    r.call('SET', 'cal:{c}:k', 'v')
    for name in CALIBRATION:
        variants.append((name, 'evalsha', (lambda name=name: ['EVALSHA', sha[name], 1, 'cal:{c}:k', 'abcd']), None))
    floor = floor_make(['EVALSHA', sha['floor (EVALSHA)'], 5])
    if os.environ.get('SET') == 'alone':
        # only what the variants below call is loaded, in each Lua VM: is FCALL's gain the smaller heap of the
        # Functions VM (this run loads ~45 scripts by SCRIPT LOAD, Lodestar itself ~30) or the call itself?
        r.call('SCRIPT', 'FLUSH'); r.call('FUNCTION', 'FLUSH')
        for name in ('register', 'renew (lease)', 'floor (EVALSHA)'):
            r.call('SCRIPT', 'LOAD', evals[name])
        r.call('FUNCTION', 'LOAD', library('lodestar', {
            'register_instance': body_of(source('register_instance.lua')),
            'renew_instance': body_of(source('renew_instance.lua')),
            'deregister_instance': body_of(source('deregister_instance.lua')),
            'floor': floor_text, 'empty': 'return 1'}))
        variants = [v for v in variants if v[0] in ('register', 'FCALL register (library, helpers once)',
                                                    'renew (lease)', 'FCALL renew (lease)', 'FCALL floor')]
    if os.environ.get('SET') == 'sweep':
        # what the lean renewal moves to the sweep: one sweep_service call on a service with nothing overdue
        variants = [v for v in variants if v[0] in ('renew (lease)', 'renew lean (HGET, TIME, ZADD)')]
        ns = 'sw'; prefill(ns)

        def sweep(j=[0]):
            svc = j[0] % 10; j[0] += 1
            k = skeys(ns, svc)
            return ['EVALSHA', sha['sweep_service'], 9] + k + ['lodestar:{%s:%d}:master' % (ns, svc), 100, '', 30000, 0]
        variants.append(('sweep_service, nothing overdue', 'evalsha', sweep, None))
    if os.environ.get('SET') == 'renew':
        variants = [v for v in variants if 'renew' in v[0]]
        for label, head in [('renew lean, 4 keys', ['EVALSHA', sha['renew lean, 4 keys'], 4]),
                            ('FCALL renew lean, 4 keys', ['FCALL', 'renew_lean_4', 4])]:
            ns = 'r%d' % len(variants); pool = prefill(ns)

            def make(head=head, ns=ns, pool=pool, j=[0]):
                svc, iid = pool[j[0] % len(pool)]; j[0] += 1
                k = skeys(ns, svc)
                return head + [k[0], k[1], k[7], k[4], iid, owner, 30000]
            variants.append((label, head[0].lower(), make, None))
    if os.environ.get('SET') == 'lua':
        keep = {'register', 'register, no command (Lua only)', 'flat register (same 11 commands, no helpers)',
                'empty'}
        variants = [v for v in variants if v[0] in keep]
        for name in LUA_VARIANTS:
            ns = 'l%d' % len(variants); prefill(ns)
            variants.append((name, 'evalsha', reg_call(['EVALSHA', sha[name], 8], ns), None))
        ns = 'lf'; prefill(ns)
        variants.append(('FCALL register, no command (Lua only)', 'fcall',
                         reg_call(['FCALL', 'register_lua_only', 8], ns), None))
        variants.append(('floor, no command', 'evalsha', floor_make(['EVALSHA', sha['floor, no command'], 5]), None))
        ns = 'le'
        variants.append(('empty, register arguments', 'evalsha', reg_call(['EVALSHA', sha['empty'], 8], ns), None))
        variants.append(('FCALL empty, register arguments', 'fcall', reg_call(['FCALL', 'empty', 8], ns), None))

    def stats():
        out = {}
        for m in re.finditer(r'cmdstat_([^:]+):calls=(\d+),usec=(\d+)', r.call('INFO', 'commandstats')):
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        info = r.call('INFO', 'cpu')
        cpu = sum(float(re.search(k + r':([\d.]+)', info).group(1)) for k in
                  ('used_cpu_user_main_thread', 'used_cpu_sys_main_thread')) * 1e6
        return out, cpu

    def chunk(outer, make):
        cmds = [make() for _ in range(CHUNK)]
        (s0, c0) = stats()
        r.pipe(cmds)
        (s1, c1) = stats()
        calls = s1[outer][0] - s0.get(outer, (0, 0))[0]
        usec = s1[outer][1] - s0.get(outer, (0, 0))[1]
        inner = {k: v[0] - s0.get(k, (0, 0))[0] for k, v in s1.items()
                 if k not in (outer, 'info') and v[0] != s0.get(k, (0, 0))[0]}
        return {'us': usec / calls, 'cpu': (c1 - c0) / calls,
                'inner': {k: n / calls for k, n in inner.items()}}

    raw = {'redis': version, 'appendonly': AOF, 'chunk': CHUNK, 'pairs': PAIRS, 'rounds': ROUNDS,
           'load_before': os.getloadavg(), 'started': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
           'results': {v[0]: [] for v in variants}}
    for rnd in range(ROUNDS):
        order = variants[rnd % len(variants):] + variants[:rnd % len(variants)]
        for label, outer, make, setup in order:
            for _ in range(PAIRS):
                f = chunk('evalsha', floor)
                if setup:
                    setup()
                v = chunk(outer, make)
                raw['results'][label].append({'floor': f, 'variant': v, 'load': os.getloadavg()[0]})
        print('round %d done, load %.1f' % (rnd + 1, os.getloadavg()[0]), file=sys.stderr)
    raw['load_after'] = os.getloadavg()
    raw['used_memory'] = re.search(r'used_memory_human:(\S+)', r.call('INFO', 'memory')).group(1)
    json.dump(raw, open(OUT, 'w'), indent=1)
    report(raw)


def q(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(p * len(xs)))]


def report(raw):
    """Per variant: inner commands per call; Redis µs per call (commandstats) of the variant and of the floor, as the
    median over chunks and as the 20th percentile (the least preempted chunks: on a loaded machine the OS preempts
    redis-server inside some chunks, which only ever adds time); the ratio to the floor chunk just before, as the
    median and quartiles over pairs; and the ratio of main-thread CPU time (which preemption does not inflate, but
    which also counts reading requests and writing replies)."""
    print('redis %s, appendonly %s, %d rounds x %d pairs x %d calls; load %s -> %s' % (
        raw['redis'], 'yes' if raw['appendonly'] else 'no', raw['rounds'], raw['pairs'], raw['chunk'],
        ' '.join('%.1f' % x for x in raw['load_before']), ' '.join('%.1f' % x for x in raw['load_after'])))
    print('%-46s %5s | %6s %6s | %6s %6s %6s | %5s %11s | %5s' % (
        'variant', 'cmds', 'µs p50', 'floor', 'µs p20', 'floor', 'ratio', 'ratio', 'p25-p75', 'cpu'))
    print('%-46s %5s | %13s | %13s %6s | %17s | %5s' % ('', '', 'median chunk', 'p20 chunk', 'of p20',
                                                        'paired, median', 'ratio'))
    for label, rows in raw['results'].items():
        cmds = statistics.median(sum(x['variant']['inner'].values()) for x in rows)
        v = [x['variant']['us'] for x in rows]
        f = [x['floor']['us'] for x in rows]
        ratios = [x['variant']['us'] / x['floor']['us'] for x in rows]
        print('%-46s %5.1f | %6.2f %6.2f | %6.2f %6.2f %6.2f | %5.2f %5.2f-%5.2f | %5.2f' % (
            label, cmds, statistics.median(v), statistics.median(f), q(v, .2), q(f, .2), q(v, .2) / q(f, .2),
            statistics.median(ratios), q(ratios, .25), q(ratios, .75),
            statistics.median(x['variant']['cpu'] / x['floor']['cpu'] for x in rows)))


if __name__ == '__main__':
    main()
