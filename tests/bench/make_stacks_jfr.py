#!/usr/bin/env python3
"""Write a JFR recording with N distinct stack traces, for `make bench`.

    make_stacks_jfr.py [--per-chunk K] [--samples S] [--seed X]
                       [--random-frames 1] N OUT.jfr

A customer's recording of a large application can hold a million
distinct allocation stacks; this makes one of that shape without a JVM,
so that the memory an import takes per distinct stack can be measured
(tests/bench/stacks_bench.sh).  The structures are those of
tests/jfr/make_jfr.py (format 2.0, compressed integers), which the JDK's
`jfr print` reads.

The stacks grow as an application's do: each new one starts from a
recent one (a random stack among the last 1024 made), keeps the part of
it nearest the thread's root (half of it or more) and ends in 1 to 12
new frames; one in 20 starts afresh.  Stacks are 12 to 64 frames deep
(24 on average), over 20,000 methods of 2,000 classes, so that they
share prefixes as real ones do and most of a stack's frames are not new.
A frame is a method at one of its call sites (1 to 4 a method: a line
and a bytecode index), JIT compiled, inlined or interpreted (7:2:1), as
a real method calls others from a few places; --random-frames 1 gives
every new frame a random line and bci instead, so that nearly every
frame is distinct (the worst case for the frame tables).
The recording is cut into chunks of K stacks (default 65,536, about
12 MB: the JDK's default chunk size), each with its own constant pools,
as the JDK writes them; every stack is sampled S times (default 1) by
jdk.ObjectAllocationSample events, on 8 threads, 1 us apart.

Printed on stdout, as `name value` lines, what it wrote (its own truth):
stacks, samples, frames (in all stacks), chunks, weight (the sum of every
sample's weight), bytes.
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "jfr"))
import make_jfr as mj  # noqa: E402

N_CLASSES = 2000
N_METHODS = 20000
N_THREADS = 8
N_ALLOC = 64  # allocated classes
RECENT = 1024


def usage():
    sys.exit(__doc__)


def main():
    args = sys.argv[1:]
    per_chunk, samples, seed, random_frames = 65536, 1, 39, 0
    while args and args[0].startswith("--"):
        if len(args) < 2:
            usage()
        opt, val = args[0], int(args[1])
        args = args[2:]
        if opt == "--per-chunk":
            per_chunk = val
        elif opt == "--samples":
            samples = val
        elif opt == "--seed":
            seed = val
        elif opt == "--random-frames":
            random_frames = val
        else:
            usage()
    if len(args) != 2 or per_chunk < 1 or samples < 1:
        usage()
    n, out = int(args[0]), args[1]
    rng = random.Random(seed)
    vint = mj.vint

    # symbols: class names, method names, two descriptors
    cls_names = ["app/mod%d/Type%d" % (i % 37, i) for i in range(N_CLASSES)]
    alloc_names = ["app/data/Value%d" % i for i in range(N_ALLOC)]
    meth_names = ["m%d" % i for i in range(N_METHODS // N_CLASSES)]
    descs = ["()V", "(Ljava/lang/Object;)Ljava/lang/Object;"]
    symbols = cls_names + alloc_names + meth_names + descs
    sym_id = {s: i + 1 for i, s in enumerate(symbols)}
    # class i (1-based key): its name; methods: class, name, descriptor
    all_cls = cls_names + alloc_names
    pool_sym = b"".join(vint(i + 1) + mj.utf8(s)
                        for i, s in enumerate(symbols))
    pool_cls = b"".join(vint(i + 1) + vint(0) + vint(sym_id[c]) +
                        vint(1) + b"\0" for i, c in enumerate(all_cls))
    per = N_METHODS // N_CLASSES
    pool_meth = b"".join(
        vint(m + 1) + vint(m // per + 1) +
        vint(sym_id[meth_names[m % per]]) + vint(sym_id[descs[m % 2]]) +
        vint(9) + b"\0" for m in range(N_METHODS))
    pool_ftype = vint(1) + mj.utf8("Interpreted") + \
        vint(2) + mj.utf8("JIT compiled") + vint(3) + mj.utf8("Inlined")
    pool_thr = b"".join(
        vint(t + 1) + mj.utf8("worker-%d" % t) + vint(5000 + t) +
        mj.utf8("worker-%d" % t) + vint(t + 10) for t in range(N_THREADS))

    def frame():
        """A new frame: method, line, bci, type, encoded once."""
        m = rng.randrange(N_METHODS)
        if random_frames:
            return (vint(m + 1) + vint(rng.randrange(1, 2000)) +
                    vint(rng.randrange(300)) + vint(rng.randrange(1, 4)))
        site = rng.randrange(1 + m % 4)
        x = rng.randrange(10)
        ftype = 2 if x < 7 else 3 if x < 9 else 1
        return (vint(m + 1) + vint(20 + 7 * site + m % 13) +
                vint(3 + 5 * site) + vint(ftype))

    recent = []
    seen = set()
    made = frames_total = 0
    weight_total = 0
    t = mj.START_TICKS
    chunks = 0
    with open(out, "wb") as f:
        while made < n:
            k = min(per_chunk, n - made)
            stacks = []  # encoded stack pool entries
            events = bytearray()
            chunk_ticks = t
            for i in range(k):
                while True:
                    if not recent or rng.random() < 0.05:
                        st = [frame() for _ in range(rng.randrange(12, 37))]
                    else:
                        p = recent[rng.randrange(len(recent))]
                        keep = rng.randrange(len(p) // 2, len(p))
                        st = p[:keep] + [frame() for _ in
                                         range(rng.randrange(1, 13))]
                        del st[64:]
                    key = b"".join(st)
                    if key not in seen:
                        break
                seen.add(key)
                if len(recent) < RECENT:
                    recent.append(st)
                else:
                    recent[rng.randrange(RECENT)] = st
                sid = i + 1
                # frames are written top first: the root is last
                stacks.append(vint(sid) + b"\0" + vint(len(st)) +
                              b"".join(reversed(st)))
                frames_total += len(st)
                for _ in range(samples):
                    t += 1000
                    w = rng.randrange(16, 1 << 20)
                    weight_total += w
                    events += mj.event(
                        mj.T_ALLOC, vint(t) +
                        vint(rng.randrange(N_THREADS) + 1) + vint(sid) +
                        vint(N_CLASSES + rng.randrange(N_ALLOC) + 1) +
                        vint(w))
            made += k
            pools = [vint(mj.T_SYMBOL) + vint(len(symbols)) + pool_sym,
                     vint(mj.T_CLASS) + vint(len(all_cls)) + pool_cls,
                     vint(mj.T_METHOD) + vint(N_METHODS) + pool_meth,
                     vint(mj.T_FRAMETYPE) + vint(3) + pool_ftype,
                     vint(mj.T_STACK) + vint(k) + b"".join(stacks),
                     vint(mj.T_THREAD) + vint(N_THREADS) + pool_thr]
            cp = mj.event(1, vint(chunk_ticks) + vint(0) + vint(0) +
                          vint(1) + vint(len(pools)) + b"".join(pools))
            meta = mj.metadata()
            meta_at = 68 + len(events)
            cp_at = meta_at + len(meta)
            size = cp_at + len(cp)
            start_ns = mj.START_NS + (chunk_ticks - mj.START_TICKS)
            head = b"FLR\0" + struct.pack(">HHQQQqqqq", 2, 0, size, cp_at,
                                          meta_at, start_ns,
                                          t - chunk_ticks + 1000,
                                          chunk_ticks, mj.TPS)
            head += struct.pack(">I", 1)
            f.write(head)
            f.write(events)
            f.write(meta)
            f.write(cp)
            t += 1000
            chunks += 1
        size = f.tell()
    print("stacks %d" % n)
    print("samples %d" % (n * samples))
    print("frames %d" % frames_total)
    print("chunks %d" % chunks)
    print("weight %d" % weight_total)
    print("bytes %d" % size)


if __name__ == "__main__":
    main()
