#!/usr/bin/env python3
"""Check `heapsift tree --csv` and `heapsift timeline --csv` against sums
computed here, sample by sample, from `heapsift dump --format=tsv`
(which tests/cli/jfr.sh and tests/cli/truth.sh check against the JDK's
own `jfr print --json`).  Nothing here reads heapsift's query code: the
arithmetic follows the definitions in docs/heapsift.1 and docs/export.md.

  a node of the call tree is a path of sites (class.method:line, the
  line left out when it is negative, the class normalised) from the outermost caller in, or
  from the allocating frame out with --inverted; frames of the same site
  under the same parent are one node.  A node's samples and est_bytes
  are those of every sample whose stack starts with its path; its self
  samples and bytes those allocated by the node's own frame (whose
  stack is exactly its path; inverted, the nodes under the root); the
  root "all" holds every sample, its self the samples without a stack.
  share = est_bytes / the root's (samples / the root's where no sample
  carries a size); parent_share = the same over the parent's.

  a timeline bucket of width W starts at a multiple of W nanoseconds
  since the Unix epoch.  The time covered is the union of the
  recordings' spans, each from its first chunk's start to its last
  chunk's end, as the JFR files' chunk headers give them (start and
  duration, read here from the files given with --jfr, comma-separated,
  one recording each, all holding samples of the kind), cut to the window
  [from, to); covered_s is the part of a bucket inside it.  The rows run from the bucket of the earlier of the first sample
  and the start of the time covered to the bucket of the later of the
  last sample and the end of the time covered, empty buckets included;
  alloc_rate = est_bytes / covered_s, sample_rate = samples / covered_s,
  both empty where covered_s is 0.

usage:
  check_views.py tree DUMP.tsv TREE.csv [--inverted] [--depth N] [filters]
  check_views.py timeline DUMP.tsv TL.csv --bucket NS --jfr REC.jfr [filters]
  check_views.py second DUMP.tsv KIND K
      prints the ISO time of the whole second K seconds after the first
      KIND sample (for --from/--to)
filters: --kind K (default alloc) --class RE --thread RE --from NS --to NS
(the window is [from, to)); DUMP.tsv may be several, comma-separated, one
a recording (their threads apart, as the pooled term's strata)
Prints what differs and exits 1, or prints a one-line summary.
"""
import collections
import csv
import datetime
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "estimates"))
from pooled import strata_m, variance  # noqa: E402

FRAME = re.compile(r"(.*?)\((.*?)\)(.*?):(-?\d+)@(-?\d+):([A-Za-z ]+)(?:;|$)")
problems = []


def fail(msg):
    problems.append(msg)


def ns(iso):
    date, _, frac = iso.rstrip("Z").partition(".")
    t = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0"))


def iso(v):
    s, f = divmod(v, 1_000_000_000)
    t = datetime.datetime.fromtimestamp(s, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % f


def norm_class(c):
    """A class name normalised as docs/export.md's table, "Normalised
    names", says (heapsift's default; written from that table, not from
    src/query/normalize.c)."""
    dims = ""
    while c.endswith("[]"):
        c, dims = c[:-2], dims + "[]"
    c = re.sub(r"(/[0-9]|\+0x[0-9a-fA-F]).*$", "", c)
    c = re.sub(r"\$\$Lambda\$[0-9]+$", "$$Lambda", c)
    c = re.sub(r"^(?:com\.sun\.proxy\.|jdk\.proxy[0-9]*\.)(\$Proxy[0-9]+)$",
               r"\1", c)
    c = re.sub(r"(^|\.)\$Proxy[0-9]+$", r"\1$Proxy", c)
    c = re.sub(r"(^|\.)(Generated(?:Method|Constructor|"
               r"SerializationConstructor)Accessor)[0-9]+$", r"\1\2", c)
    c = re.sub(r"(\$\$[A-Za-z]*CGLIB[A-Za-z]*)\$\$[0-9A-Za-z_]+$", r"\1", c)
    c = re.sub(r"\$(ByteBuddy|HibernateProxy)\$[0-9A-Za-z_]+$", r"$\1", c)
    return c + dims


def sites(frames):
    """The dump's frames (allocation site first) as site names, their
    classes normalised (the trees' default)."""
    out = []
    for m in FRAME.finditer(frames):
        line = int(m.group(4))
        cls, _, meth = m.group(1).rpartition(".")
        out.append(norm_class(cls) + "." + meth +
                   (":%d" % line if line >= 0 else ""))
    return out


def samples(path, o, view):
    """(time_ns, bytes or None, sites allocation first, pooled term) of
    the samples the filters keep: the pooled term is the bytes times
    their m (pool_m) for ObjectAllocationSample, else 0.  path may name
    several dumps, comma-separated: one a recording."""
    cls = re.compile(o["class"]) if o["class"] else None
    thr = re.compile(o["thread"]) if o["thread"] else None
    # m by the key the view's rows hold (tests/estimates/pooled.py): the
    # thread where it filters by thread; a tree's node; a timeline's
    # class where it filters by class, else its thread
    by = ("thread" if o["thread"] else "node" if view == "tree" else
          "class" if o["class"] else "thread")
    key = {"thread": 2, "node": 7, "class": 4}[by]
    n = 0
    for one in path.split(","):
        m = pool_m(one, o, by)
        with open(one, encoding="utf-8") as f:
            head = f.readline().rstrip("\n").split("\t")
            assert head[:8] == ["kind", "startTime", "javaThreadId",
                                "threadName", "class", "value", "truncated",
                                "frames"], head
            for line in f:
                c = line.rstrip("\n").split("\t")
                if c[0] != o["kind"]:
                    continue
                n += 1
                t = ns(c[1])
                if cls and not cls.search(c[4]):
                    continue
                if thr and not thr.search(c[3]):
                    continue
                if o["from"] is not None and t < o["from"]:
                    continue
                if o["to"] is not None and t >= o["to"]:
                    continue
                b = int(c[5]) if c[5] else None
                yield t, b, sites(c[7]), (b or 0) * m.get(c[key], 0)
    if n == 0:
        fail(f"{path}: no {o['kind']} samples at all: nothing was checked")


def pool_m(path, o, by):
    """m of each thread, node or class (by) for the pooled term
    (docs/estimates.md, tests/estimates/pooled.py), over all the
    recording's ObjectAllocationSample samples in the window [from, to)
    whatever the other filters; none for other kinds."""
    if o["kind"] != "alloc":
        return {}
    rows = []
    with open(path, encoding="utf-8") as f:
        f.readline()
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] != o["kind"] or not c[5]:
                continue
            t = ns(c[1])
            if o["from"] is not None and t < o["from"]:
                continue
            if o["to"] is not None and t >= o["to"]:
                continue
            rows.append((c[2], c[7], c[4], int(c[5])))
    return strata_m(rows, by)


def read_csv(path, header):
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"\r\n"):
        fail(f"{path}: does not end in CRLF")
    rows = list(csv.reader(data.decode("utf-8").splitlines()))
    if not rows or rows[0] != header:
        fail(f"{path}: header {rows[:1]!r}, expected {header!r}")
        return []
    return rows[1:]


def close(a, b, tol):
    return abs(a - b) <= tol


def want_rel(kind, n, w, sq, pool):
    """The ± of n samples of w bytes whose squares sum to sq
    (docs/estimates.md): weights' sqrt(max(sq, pool / 65536)) / w, pool
    the pooled term (0 but for ObjectAllocationSample); exact kinds 0;
    1/sqrt(n) for old objects, or where there are no bytes; None without
    samples."""
    if not n:
        return None
    if kind == "outside":
        return 0.0
    if kind == "old" or w <= 0:
        return 1 / n ** 0.5
    return float(variance(sq, pool)) ** 0.5 / w


def cmd_tree(dump, tree_csv, o):
    depth = o["depth"]
    n, w, sq = (collections.Counter(), collections.Counter(),
                collections.Counter())
    pool = collections.Counter()
    sn, sw = collections.Counter(), collections.Counter()
    sized = False
    for _, b, st, pb in samples(dump, o, "tree"):
        sized = sized or b is not None
        b = b or 0
        path = st if o["inverted"] else st[::-1]
        for d in range(len(path) + 1):
            if depth and d > depth:
                break
            k = tuple(path[:d])
            n[k] += 1
            w[k] += b
            sq[k] += b * b
            pool[k] += pb
        # self: the samples allocated by the node's own frame; the
        # allocating frame ends the path, or starts it when inverted
        own = tuple(path[:1]) if o["inverted"] else tuple(path)
        sn[own] += 1
        sw[own] += b
    total = (w[()] if sized else n[()]) or 1
    rows = read_csv(tree_csv, ["path", "depth", "frame", "samples",
                               "est_bytes", "share", "parent_share",
                               "self_samples", "self_bytes", "rel_err"])
    seen = set()
    for r in rows:
        if len(r) != 10:
            fail(f"row {r!r}: {len(r)} fields")
            continue
        k = tuple(r[0].split(";")) if r[0] else ()
        if k in seen:
            fail(f"node {r[0]!r} twice")
        seen.add(k)
        if k not in n:
            fail(f"node {r[0]!r}: no sample has that path")
            continue
        want_frame = k[-1] if k else "all"
        if r[2] != want_frame or int(r[1]) != len(k):
            fail(f"node {r[0]!r}: depth {r[1]}, frame {r[2]!r}")
        got = (int(r[3]), int(r[4]), int(r[7]), int(r[8]))
        want = (n[k], w[k], sn[k], sw[k])
        if got != want:
            fail(f"node {r[0]!r}: samples, est_bytes, self_samples, "
                 f"self_bytes {got}, from the samples {want}")
        rel = want_rel(o["kind"], n[k], w[k], sq[k], pool[k])
        if rel is None:
            if r[9] != "":
                fail(f"node {r[0]!r}: rel_err {r[9]}, expected none")
        elif r[9] == "" or abs(float(r[9]) - rel) > 0.00006:
            fail(f"node {r[0]!r}: rel_err {r[9]!r}, from the samples "
                 f"{rel:.6f}")
        v = w[k] if sized else n[k]
        if not close(float(r[5]), v / total, 2e-6):
            fail(f"node {r[0]!r}: share {r[5]}, from the samples "
                 f"{v / total:.6f}")
        if k:
            p = k[:-1]
            pv = (w[p] if sized else n[p]) or 1
            if not close(float(r[6]), v / pv, 2e-6):
                fail(f"node {r[0]!r}: parent_share {r[6]}, from the "
                     f"samples {v / pv:.6f}")
    for k in n:
        if k not in seen:
            fail(f"node {';'.join(k)!r} ({n[k]} samples) is missing")
    if not rows:
        fail("no rows")
    finish(f"{len(rows)} nodes match, {n[()]} samples")


def chunk_span(path):
    """[start, end) of a JFR recording from its chunk headers (the JFR
    format: size at offset 8, start in epoch ns at 32, duration at 40,
    each a big-endian int64)."""
    with open(path, "rb") as f:
        data = f.read()
    at, start, end = 0, None, None
    while at + 68 <= len(data) and data[at:at + 4] == b"FLR\0":
        size, = struct.unpack(">q", data[at + 8:at + 16])
        a, d = struct.unpack(">qq", data[at + 32:at + 48])
        start = a if start is None else min(start, a)
        end = a + d if end is None else max(end, a + d)
        if size <= 0:
            break
        at += size
    if start is None:
        fail(f"{path}: no JFR chunk header")
        return 0, 0
    return start, end


def covered(spans, a, b):
    """Nanoseconds of [a, b) inside the union of spans."""
    total, at = 0, a
    for x, y in sorted(spans):
        x, y = max(x, at), min(y, b)
        if y > x:
            total += y - x
            at = y
    return total


def cmd_timeline(dump, tl_csv, o):
    width = o["bucket"]
    assert width and width > 0
    assert o["jfr"], "--jfr REC.jfr is needed for the time covered"
    n, w, sq = (collections.Counter(), collections.Counter(),
                collections.Counter())
    pool = collections.Counter()
    for t, b, _, pb in samples(dump, o, "timeline"):
        k = t // width * width
        n[k] += 1
        w[k] += b or 0
        sq[k] += (b or 0) ** 2
        pool[k] += pb
    rows = read_csv(tl_csv, ["time", "samples", "est_bytes", "alloc_rate",
                             "sample_rate", "rel_err", "covered_s"])
    if not n:
        if rows:
            fail(f"{len(rows)} rows, but no sample passes the filters")
        finish("no samples, no rows")
    spans = []
    for path in o["jfr"].split(","):
        c0, c1 = chunk_span(path)
        if o["from"] is not None:
            c0 = max(c0, o["from"])
        if o["to"] is not None:
            c1 = min(c1, o["to"])
        if c1 > c0:
            spans.append((c0, c1))
    lo, hi = min(n), max(n)
    if spans:
        lo = min(lo, min(a for a, _ in spans) // width * width)
        hi = max(hi, (max(b for _, b in spans) - 1) // width * width)
    want = list(range(lo, hi + width, width))
    if len(rows) != len(want):
        fail(f"{len(rows)} buckets, from the samples and the chunks "
             f"{len(want)} ({iso(want[0])} to {iso(want[-1])})")
    for r, k in zip(rows, want):
        if ns(r[0]) != k:
            fail(f"bucket {r[0]}, from the samples {iso(k)}")
            continue
        if (int(r[1]), int(r[2])) != (n[k], w[k]):
            fail(f"bucket {r[0]}: samples, est_bytes {r[1]}, {r[2]}; "
                 f"from the samples {n[k]}, {w[k]}")
        cov = covered(spans, k, k + width)
        if not close(float(r[6]), cov / 1e9, 0.6e-9):
            fail(f"bucket {r[0]}: covered_s {r[6]}, expected {cov / 1e9}")
        if not cov:
            if r[3] != "" or r[4] != "":
                fail(f"bucket {r[0]}: rates {r[3]!r}, {r[4]!r} where "
                     f"nothing is covered")
            continue
        sec = cov / 1e9
        if not close(float(r[3]), w[k] / sec, 1 + w[k] / sec * 1e-12):
            fail(f"bucket {r[0]}: alloc_rate {r[3]}, expected {w[k] / sec}")
        if not close(float(r[4]), n[k] / sec, 0.0006):
            fail(f"bucket {r[0]}: sample_rate {r[4]}, expected {n[k] / sec}")
        # the ± (docs/estimates.md): weights' sqrt(sum w^2) / sum w, none
        # where there are no bytes; exact kinds 0, counts 1/sqrt(n)
        rel = want_rel(o["kind"], n[k], w[k], sq[k], pool[k])
        if rel is None:
            if r[5] != "":
                fail(f"bucket {r[0]}: rel_err {r[5]}, expected none")
        elif r[5] == "" or abs(float(r[5]) - rel) > 0.00006:
            fail(f"bucket {r[0]}: rel_err {r[5]!r}, expected {rel:.6f}")
    finish(f"{len(rows)} buckets match, {sum(n.values())} samples")


def cmd_second(dump, kind, k):
    o = opts([])
    o["kind"] = kind
    first = min(x[0] for x in samples(dump, o, "timeline"))
    s = first // 1_000_000_000 + int(k)
    print(iso(s * 1_000_000_000)[:19] + "Z")
    sys.exit(0)


def finish(summary):
    if problems:
        print("\n".join(problems[:30]))
        if len(problems) > 30:
            print(f"... and {len(problems) - 30} more")
        sys.exit(1)
    print(summary)
    sys.exit(0)


def opts(args):
    o = {"kind": "alloc", "class": None, "thread": None, "from": None,
         "to": None, "depth": 0, "inverted": False, "bucket": None,
         "jfr": None}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--inverted":
            o["inverted"] = True
            i += 1
            continue
        key = a[2:]
        v = args[i + 1]
        if key in ("from", "to"):
            o[key] = ns(v) if "T" in v else int(v)
        elif key in ("depth", "bucket"):
            o[key] = int(v)
        else:
            o[key] = v
        i += 2
    return o


def main():
    cmd = sys.argv[1]
    if cmd == "tree":
        cmd_tree(sys.argv[2], sys.argv[3], opts(sys.argv[4:]))
    elif cmd == "timeline":
        cmd_timeline(sys.argv[2], sys.argv[3], opts(sys.argv[4:]))
    elif cmd == "second":
        cmd_second(*sys.argv[2:5])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
