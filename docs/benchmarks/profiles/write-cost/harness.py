"""What write_cost.py and compare_scripts.py share: a minimal RESP client, a free local port, and the scripts expanded as
LuaScript.java does (--#include, nested; then, since 2026-11-28, without the helpers the script does not call: load).
Python 3 only, no dependency."""
import os, re, socket


class R:
    def __init__(s, port):
        s.sock = socket.create_connection(('127.0.0.1', port)); s.buf = b''

    @staticmethod
    def enc(args):
        out = [b'*%d\r\n' % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b'$%d\r\n%s\r\n' % (len(a), a))
        return b''.join(out)

    def line(s):
        while b'\r\n' not in s.buf:
            s.buf += s.sock.recv(1 << 20)
        l, s.buf = s.buf.split(b'\r\n', 1); return l

    def read(s):
        l = s.line(); t = l[:1]
        if t in (b'+', b':'): return l[1:].decode()
        if t == b'-': return Exception(l[1:].decode())
        if t == b'$':
            n = int(l[1:])
            if n < 0: return None
            while len(s.buf) < n + 2: s.buf += s.sock.recv(1 << 20)
            v, s.buf = s.buf[:n], s.buf[n + 2:]; return v.decode()
        if t == b'*':
            n = int(l[1:]); return None if n < 0 else [s.read() for _ in range(n)]
        raise ValueError(l)

    def pipe(s, cmds):
        out = []
        for i in range(0, len(cmds), 200):
            batch = cmds[i:i + 200]
            s.sock.sendall(b''.join(s.enc(c) for c in batch))
            out += [s.read() for _ in batch]
        errs = [o for o in out if isinstance(o, Exception)]
        if errs: raise errs[0]
        return out

    def call(s, *a): return s.pipe([a])[0]


def free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p


def source(scripts, name):
    return open(os.path.join(scripts, name)).read()


def expand(scripts, text):
    return '\n'.join(expand(scripts, source(scripts, l[len('--#include '):].strip())) if l.startswith('--#include ')
                     else l for l in text.split('\n'))


def code(line):
    """A line without its comment, as LuaScript.code."""
    if line.lstrip().startswith('--'):
        return ''
    return line.split(' -- ', 1)[0]


def without_unused_helpers(text):
    """As LuaScript.withoutUnusedHelpers: drops top-level helpers no code outside them names, until none is left."""
    lines = text.split('\n')
    while True:
        for start, line in enumerate(lines):
            m = re.match(r'local function (\w+)\(', line)
            if not m:
                continue
            end = lines.index('end', start)
            call = re.compile(r'\b%s\b' % re.escape(m.group(1)))
            if not any(call.search(code(l)) for i, l in enumerate(lines) if i < start or i > end):
                del lines[start:end + 1]
                break
        else:
            return '\n'.join(lines)


def load(scripts, name, prune=True):
    """A script as LuaScript.load sends it (prune=False: as it did before 2026-11-28)."""
    text = expand(scripts, source(scripts, name))
    return without_unused_helpers(text) if prune else text
