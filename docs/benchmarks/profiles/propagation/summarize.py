#!/usr/bin/env python3
"""Per-event figures from the flame graphs of `jmh/propagation.sh --profile DIR` (wall-clock, collapsed text).

    summarize.py DIR

DIR holds profile.properties (rounds, seconds profiled), {writer,listener}-wall-all.collapsed[.gz] (every sample)
and -wall-runnable.collapsed[.gz] (samples of a thread that was running or runnable). A thread is sampled about
every (seconds profiled / its samples in -all): that is the weight of one of its samples. Prints, per JVM and
thread, the runnable time per measured round in microseconds, split by what the stack shows (a sample goes to the
first group of GROUPS whose pattern matches its stack).
"""
import collections
import gzip
import os
import re
import sys

GROUPS = [  # (name, regex on one frame); a sample goes to the group of its leaf-most frame that matches one
    ("wake another thread (unpark: futex wake)", r"pthread_cond_signal|pthread_cond_broadcast|__lll_lock_wake|Unsafe_Unpark"),
    ("write(2): a socket, a pipe, or the eventfd that wakes a Netty event loop", r"__GI_write|__libc_write|writev|__send"),
    ("socket read", r"__GI_read|__libc_read|readv|__recv"),
    ("epoll_wait (the I/O loop's wait, returning)", r"epoll_wait"),
    ("spin-yield of an idle pool thread (SynchronousQueue.poll)", r"sched_yield"),
    ("waiting on a lock or condition (returning)", r"futex_abstimed_wait|futex_wait|Parker::park"),
    ("JIT compiler", r"CompileBroker|C2Compiler|Compilation::|Compile::"),
    ("the harness (the listener after its time stamp; the writer's loop)", r"^io/lodestar/jmh/"),
    ("Jackson-jr map parse", r"^com/fasterxml/jackson"),
    ("InstanceReader (event and instance read by hand)", r"InstanceReader"),
    ("instance JSON (Json: map reading, writing), building, validation (ServiceInstance, Validation)",
     r"io/lodestar/redis/Json|ServiceInstance|Validation|FrozenMetadata"),
    ("ServiceSource batch (apply, merge, snapshot)", r"ServiceSource"),
    ("view bookkeeping (SyncedView, ViewListener, SerialExecutor, TopicTable)",
     r"SyncedView|ViewListener|SerialExecutor|TopicTable|RevisionWaiters|ViewHealth"),
    ("register call, Lodestar client side", r"RedisServiceRegistry|LuaScript|Lease|io/lodestar/redis/Keys"),
    ("Lettuce / Netty", r"^io/lettuce|^io/netty"),
    ("JDK executors, queues, futures", r"^java/util/concurrent"),
]


def load(path):
    rows = []
    if not os.path.exists(path):
        path += ".gz"
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            frames = stack.split(";")
            thread = re.sub(r" tid=\d+", "", frames[0]).strip("[]")
            thread = re.sub(r"-jmh-[0-9a-z]+", "", thread)
            rows.append((thread, ";".join(frames[1:]), int(n)))
    return rows


def classify(stack):
    """The group of the leaf-most frame that matches one (frames are joined by ';', root first)."""
    for frame in reversed(stack.split(";")):
        for name, pattern in GROUPS:
            if re.search(pattern, frame):
                return name
    return "other"


def main():
    directory = sys.argv[1]
    with open(f"{directory}/profile.properties") as f:
        props = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    events, seconds = int(props["rounds"]), float(props["seconds"])
    print(f"{events} rounds, {seconds:.0f} s profiled, load average {props.get('loadavg.start')} at the start,"
          f" {props.get('loadavg.stop')} at the end")
    for jvm in ("listener", "writer"):
        everything = load(f"{directory}/{jvm}-wall-all.collapsed")
        runnable = load(f"{directory}/{jvm}-wall-runnable.collapsed")
        per_thread = collections.Counter()
        for thread, _, n in everything:
            per_thread[thread] += n
        print(f"## {jvm} JVM")
        busy = collections.Counter()
        for thread, _, n in runnable:
            busy[thread] += n
        for thread, samples in busy.most_common(12):
            weight_us = seconds * 1e6 / per_thread[thread]
            print(f"\n### {thread}: {samples} runnable samples of {per_thread[thread]}, "
                  f"{weight_us:.0f} µs each: {samples * weight_us / events:.0f} µs per round")
            groups = collections.Counter()
            for t, stack, n in runnable:
                if t != thread:
                    continue
                groups[classify(stack)] += n
            for name, n in groups.most_common(10):
                print(f"  {n * weight_us / events:7.1f} µs/round  {n:5d}  {name}")


if __name__ == "__main__":
    main()
