"""Where a write's Redis time goes (issue 27): register_instance.lua, update_instance.lua and set_config.lua stopped
early at each step, and set_config with one piece at a time taken out, each probe as the "before" scripts of
compare_scripts.py beside the unchanged scripts ("after"), so every figure is paired with the same fixed floor in
the same server. compare_scripts.py's environment passes through: IR=1 ROUNDS=1 CHUNK=200 counts instructions
(deterministic), ROUNDS=20 CHUNK=25 measures µs.

Probes, each made from the scripts directory given by a text change (the probe fails if the text is not found):
- stop_*: the script returns 1 before the named step; cumulative, so the difference between two neighbours is
  that step's work. A register stops only for the measured calls (instance ids "n..."), so that the set-up's
  registrations still run;
- without_*: the whole config set without one piece of its version's write: the history XADD, the SPUBLISH (its
  message still built), the audit record, or the entry's cjson.encode (the content itself stored in its place).

Usage: write_probe.py <scripts dir> <floor_register.lua> > out.txt (with IR=1 about 15 s per probe, needs valgrind)."""
import os, shutil, subprocess, sys, tempfile

SCRIPTS, FLOOR = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
STOP = 'if ARGV[1] then return 1 end\n'
ONLY_MEASURED = "if string.byte(ARGV[1]) == 110 then return 1 end\n"  # 'n': the measured registrations' ids
PROBES = {
    'register stop_before_helpers': ('register_instance.lua', '--#include common.lua'),
    'register stop_before_stamp': ('register_instance.lua', 'local existing, stamp = read_service'),
    'register stop_before_reads': ('register_instance.lua', 'local fresh = not existing'),
    'register stop_before_writes': ('register_instance.lua', 'if fresh then\n'),
    'register stop_before_json': ('register_instance.lua', 'local registered_at = existing'),
    'register stop_before_publish': ('register_instance.lua', 'if existing and same_public'),
    'update stop_before_helpers': ('update_instance.lua', '--#include common.lua'),
    'update stop_before_stamp': ('update_instance.lua', 'local existing, stamp = read_service'),
    'update stop_before_deadline': ('update_instance.lua', 'local deadline = redis.call'),
    'update stop_before_decode': ('update_instance.lua', 'local instance = decoded(existing)'),
    'update stop_before_change': ('update_instance.lua', 'local owner = instance.owner'),
    'update stop_before_encode': ('update_instance.lua', 'local public = cjson.encode(instance)'),
    'update stop_before_publish': ('update_instance.lua', 'local stored = owner and'),
    'setconfig stop_before_helpers': ('set_config.lua', '--#include basics.lua'),
    'setconfig stop_before_header': ('set_config.lua', 'local version, hash, current_format'),
    'setconfig stop_before_hash_check': ('set_config.lua', 'local new_hash = ARGV[6]'),
    'setconfig stop_before_version': ('set_config.lua', 'local new_version = write_version'),
    'setconfig without_history_xadd': (
        'config_common.lua',
        "  redis.call('XADD', k.history, 'MAXLEN', digits(limit), number .. '-0', 'entry', entry) -- the first write\n",
        ''),
    'setconfig without_spublish': ('config_common.lua', "  redis.call('SPUBLISH', k.channel,", '  local _ = ('),
    'setconfig without_audit': (
        'set_config.lua', "audit(k, expected >= 0 and 'cas' or 'set', new_hash, version, stamp.rev + 1)\n", ''),
    'setconfig without_entry_encode': (
        'config_common.lua',
        '  local entry = cjson.encode({version = version, format = format, hash = hash, createdAt = created_at,\n'
        '    updatedAt = now, content = content, from = from})',
        '  local entry = content'),
}


def main():
    for name, (file, old, *new) in PROBES.items():
        # a stop: the text gets a return before it (a register's only for the measured calls)
        new = new[0] if new else (ONLY_MEASURED if file == 'register_instance.lua' else STOP) + old
        write = name.split()[0]
        probe = os.path.join(tempfile.mkdtemp(prefix='probe-'), 'scripts')
        shutil.copytree(SCRIPTS, probe)
        path = os.path.join(probe, file)
        text = open(path).read()
        if old not in text:
            raise SystemExit('%s: %r not found in %s' % (name, old, file))
        open(path, 'w').write(text.replace(old, new, 1))
        out = subprocess.run([sys.executable, os.path.join(HERE, 'compare_scripts.py'), probe, SCRIPTS, FLOOR],
                             env=dict(os.environ, ONLY=write), check=True,
                             capture_output=True, text=True).stdout
        rows = [l for l in out.split('\n') if l.startswith('| %s |' % write)]
        print('%s (before = the probe, after = the script):' % name)
        print('\n'.join(rows), flush=True)
        shutil.rmtree(os.path.dirname(probe))


if __name__ == '__main__':
    main()
