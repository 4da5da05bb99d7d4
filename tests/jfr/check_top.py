#!/usr/bin/env python3
"""Check `heapsift top --csv` output against the references the JDK's own
`jfr` tool made for each fixture (X.expected.json, X.ObjectAllocationSample
.tsv.gz, see fixtures/jfr/src/gen_refs.py), and help tests/cli/store.sh
with the store's layout.  Nothing here reads heapsift's code or output to
decide what is expected.

usage:
  check_top.py alloc X.expected.json CLASS.csv SITE.csv THREAD.csv
      per-class, per-method (site rows summed per class.method) and
      per-thread-name samples and weights against the top lists of
      jdk.ObjectAllocationSample; totals against count and sum_weight
  check_top.py reference X.tsv.gz CLASS.csv SITE.csv THREAD.csv APP.csv
      every row (class, class.method:line, thread, app-site) against the
      full per-sample reference
  check_top.py outside X.expected.json CLASS.csv SITE.csv
  check_top.py tlab X.expected.json CLASS.csv
  check_top.py old X.expected.json CLASS.csv
  check_top.py recordings CSV NAME=X.expected.json...
      one row per recording (key ends in /NAME), samples = count,
      est_bytes = sum_weight
  check_top.py expect_rows CSV GROUP X.tsv.gz... [--include RE]
      [--exclude RE] [--class RE] [--thread RE] [--before NS] [--after NS]
      the exact rows a filtered top must give, from the references
  check_top.py total CSV          prints "ROWS SAMPLES EST_BYTES"
  check_top.py keys CSV           prints the keys, one a line
  check_top.py chunk_start X.jfr  the first chunk's start (ns, header)
  check_top.py iso NS             NS as 2026-11-21T23:16:50.123456789Z
  check_top.py layout STORE       offsets to damage: "OFFSET WHERE FLIPPED
                                  ORIGINAL", WHERE header, toc, pad or a
                                  section id, the bytes in octal
  check_top.py forge STORE DIR START COUNT
                                  damaged copies of STORE with checksums
                                  that agree (DIR/N.hsdb), "N SECTION
                                  OFFSET BYTES" for each; COUNT 0 prints
                                  how many there are
Prints what differs and exits 1, or exits 0 silently.
"""
import collections
import csv
import datetime
import gzip
import io
import json
import math
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "estimates"))
from pooled import strata_m, variance  # noqa: E402

HEADER = ["samples", "est_bytes", "est_objects", "share", "rel_err",
          "biased"]
problems = []


def fail(msg):
    problems.append(msg)


def finish():
    if problems:
        print("\n".join(problems[:40]))
        if len(problems) > 40:
            print(f"... and {len(problems) - 40} more")
        sys.exit(1)
    sys.exit(0)


# --- the JVM's names in the form `jfr print` shows them --------------------

PRIM = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int",
        "J": "long", "S": "short", "Z": "boolean"}


def display(raw):
    """[B -> byte[], [[Ljava/lang/Object; -> java.lang.Object[][],
    java/util/HashMap$Node -> java.util.HashMap$Node"""
    if raw is None:
        return None
    dims = 0
    while raw.startswith("["):
        dims += 1
        raw = raw[1:]
    if dims:
        if raw in PRIM:
            base = PRIM[raw]
        elif raw.startswith("L") and raw.endswith(";"):
            base = raw[1:-1].replace("/", ".")
        else:
            base = raw.replace("/", ".")
    else:
        base = raw.replace("/", ".")
    return base + "[]" * dims


# --- heapsift's CSV ----------------------------------------------------------

def read_csv(path, group=None, pooled=True):
    """Rows as (key, samples, est_bytes, est_objects, share, rel_err,
    biased); checks the form on the way (header, CRLF, seven fields,
    arithmetic of share, the bounds of rel_err: pooled, the rows of
    ObjectAllocationSample, whose pooled term may pass 1)."""
    data = open(path, "rb").read()
    name = os.path.basename(path)
    if not data:
        fail(f"{name}: empty output")
        return []
    if not data.endswith(b"\r\n"):
        fail(f"{name}: does not end in CRLF")
    lines = data.split(b"\r\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if any(b"\n" in l or b"\r" in l for l in lines):
        fail(f"{name}: a line does not end in CRLF")
    text = data.decode("utf-8")
    rd = list(csv.reader(io.StringIO(text, newline="")))
    if not rd:
        fail(f"{name}: no header")
        return []
    head = rd[0]
    if head[1:] != HEADER or (group and head[0] != group):
        fail(f"{name}: header {head!r}")
    rows = []
    for r in rd[1:]:
        if len(r) != 7:
            fail(f"{name}: row {r!r} has {len(r)} fields")
            continue
        try:
            rows.append((r[0], int(r[1]), int(r[2]),
                         None if r[3] == "" else float(r[3]),
                         float(r[4]), float(r[5]), r[6]))
        except ValueError:
            fail(f"{name}: row {r!r} is not numbers")
    total = sum(r[2] for r in rows)
    total_samples = sum(r[1] for r in rows)
    for r in rows:
        # docs/export.md: the share of est_bytes; of samples where the
        # rows carry no bytes at all (OldObjectSample before JDK 21)
        if total:
            want_share, basis = r[2] / total, "est_bytes/total"
        else:
            want_share = r[1] / total_samples if total_samples else 0.0
            basis = "samples/total"
        if abs(r[4] - want_share) > 1.5e-6:
            fail(f"{name}: {r[0]}: share {r[4]}, {basis} "
                 f"{want_share:.6f}")
        if r[1] <= 0:
            fail(f"{name}: {r[0]}: {r[1]} samples")
        elif r[5] != 0.0 and not (1 / math.sqrt(r[1]) - 0.6e-4 <= r[5]
                                  and (pooled or r[5] <= 1 + 0.6e-4)):
            # sqrt(sum w^2) / sum w lies between 1/sqrt(n) (equal
            # weights) and 1 (one weight); 0 is exact (OutsideTLAB); the
            # pooled term (docs/estimates.md) only raises it, past 1
            # where a thread's heavy weights fell on other sites
            fail(f"{name}: {r[0]}: rel_err {r[5]} outside [1/sqrt({r[1]}),"
                 f" {'inf' if pooled else '1'}]")
        if r[6] not in ("", "few", "mixed"):
            fail(f"{name}: {r[0]}: biased is {r[6]!r}")
    keys = [r[0] for r in rows]
    if group in ("class", "site", "recording"):
        dup = [k for k, n in collections.Counter(keys).items() if n > 1]
        if dup:
            fail(f"{name}: keys appear twice: {dup}")
    order = [(r[2], r[1]) for r in rows]
    if order != sorted(order, reverse=True):
        fail(f"{name}: rows not sorted by est_bytes, then samples")
    return rows


def by_key(rows, strip_line=False):
    n, w = collections.Counter(), collections.Counter()
    for r in rows:
        k = r[0]
        if strip_line:
            k = re.sub(r":-?\d+$", "", k)
        n[k] += r[1]
        w[k] += r[2]
    return n, w


def compare(what, got_n, got_w, want_n, want_w, keys=None):
    for k in (keys if keys is not None else set(want_n) | set(got_n)):
        if got_n.get(k, 0) != want_n.get(k, 0):
            fail(f"{what} {k}: heapsift {got_n.get(k, 0)} samples, "
                 f"jfr {want_n.get(k, 0)}")
        if want_w is not None and got_w.get(k, 0) != want_w.get(k, 0):
            fail(f"{what} {k}: heapsift {got_w.get(k, 0)} bytes, "
                 f"jfr {want_w.get(k, 0)}")


def totals(what, rows, n, w):
    gn, gw = sum(r[1] for r in rows), sum(r[2] for r in rows)
    if gn != n:
        fail(f"{what}: total {gn} samples, jfr {n}")
    if w is not None and gw != w:
        fail(f"{what}: total {gw} bytes, jfr {w}")


# --- the per-sample reference ------------------------------------------------

FRAME = re.compile(r"(.*?)\((.*?)\)(.*?):(-?\d+)@(-?\d+):([A-Za-z ]+)(?:;|$)")


def ns(iso):
    date, frac = iso.rstrip("Z").split(".")
    t = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0"))


def samples(path):
    """(time_ns, thread, class display, weight, [(class.method, line)],
    java thread id, the stack as printed)"""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            frames = []
            for m in FRAME.finditer(c[6]):
                cm = m.group(1)
                cls, _, meth = cm.rpartition(".")
                frames.append((cls.replace("/", ".") + "." + meth,
                               int(m.group(4))))
            yield (ns(c[0]), c[2], display(c[3]), int(c[4]), frames, c[1],
                   c[6])


def site(frames):
    if not frames:
        return None  # heapsift's own name for "no stack"
    m, line = frames[0]
    return f"{m}:{line}" if line >= 0 else m


# app-site: the first frame from the site outwards that is not in the
# library (heapsift top --help, query.h's default); None when there is
# none, whatever heapsift then shows
LIBRARY = re.compile(r"^(java|javax|jdk|sun|com\.sun)\.")


def app_site(frames):
    for i, (m, line) in enumerate(frames):
        if not LIBRARY.search(m):
            return site(frames[i:])
    return None


def reference_rows(paths, group, inc=None, exc=None, cls=None, thr=None,
                   before=None, after=None):
    n, w = collections.Counter(), collections.Counter()
    sq, pool = collections.Counter(), collections.Counter()
    # the pooled term's m (tests/estimates/pooled.py), per file (a
    # recording), by the key the view's rows hold: its thread, class or
    # node (the stack: the frames as jfr prints them), over the window
    by = group if group in ("class", "thread") else "node"
    m = {}
    for p in paths:
        m[p] = strata_m([(x[5], x[6], x[2], x[3]) for x in samples(p)
                         if (before is None or x[0] < before) and
                         (after is None or x[0] >= after)], by)
    for p in paths:
        for t, thread, c, weight, frames, tid, stack in samples(p):
            names = [f[0] for f in frames]
            if inc and not any(inc.search(x) for x in names):
                continue
            if exc and any(exc.search(x) for x in names):
                continue
            if cls and not cls.search(c or ""):
                continue
            if thr and not thr.search(thread or ""):
                continue
            if before is not None and t >= before:
                continue
            if after is not None and t < after:
                continue
            k = {"class": c, "thread": thread} [group] \
                if group in ("class", "thread") else \
                site(frames) if group == "site" else app_site(frames)
            n[k] += 1
            w[k] += weight
            sq[k] += weight * weight
            pool[k] += weight * m[p][{"thread": tid, "class": c,
                                      "node": stack}[by]]
    reference_rows.squares = {k: variance(sq[k], pool[k]) for k in sq}
    return n, w


def check_rows(what, rows, n, w, strip=False):
    """rows against the reference's exact keys; the reference's None key
    (no stack; for app-site also no frame outside the library) stands for
    the heapsift keys the reference lacks, together."""
    gn, gw = by_key(rows, strip)
    if None in n:
        extra = [k for k in gn if k not in n]
        en = sum(gn.pop(k) for k in extra)
        ew = sum(gw.pop(k) for k in extra)
        if (en, ew) != (n[None], w[None]):
            fail(f"{what}: heapsift rows {extra} hold {en} samples, {ew} "
                 f"bytes; the reference's samples without a stack (or an "
                 f"application frame) {n[None]} samples, {w[None]} bytes")
        del n[None], w[None]
    compare(what, gn, gw, n, w)


# --- commands ------------------------------------------------------------------

def cmd_alloc(exp_path, class_csv, site_csv, thread_csv):
    a = json.load(open(exp_path))["ObjectAllocationSample"]
    cr = read_csv(class_csv, "class")
    sr = read_csv(site_csv, "site")
    tr = read_csv(thread_csv, "thread")
    for what, rows in (("by class", cr), ("by site", sr), ("by thread", tr)):
        totals(what, rows, a["count"], a["sum_weight"])
        if any(r[3] is not None for r in rows):
            fail(f"{what}: est_objects given for weight samples")
    gn, gw = by_key(cr)
    want = {display(e["key"]): e for e in a["top_classes_by_weight"]}
    compare("class", gn, gw, {k: e["count"] for k, e in want.items()},
            {k: e["weight"] for k, e in want.items()}, want)
    if len(cr) != a["distinct_classes"]:
        fail(f"by class: {len(cr)} rows, jfr {a['distinct_classes']} "
             "distinct classes")
    gn, gw = by_key(sr, strip_line=True)
    want = {e["key"]: e for e in a["top_methods_by_weight"]}
    compare("method", gn, gw, {k: e["count"] for k, e in want.items()},
            {k: e["weight"] for k, e in want.items()}, want)
    gn, gw = by_key(tr)
    want = {e["key"]: e for e in a["threads_by_weight"]}
    compare("thread", gn, gw, {k: e["count"] for k, e in want.items()},
            {k: e["weight"] for k, e in want.items()}, want)


def cmd_reference(tsv, class_csv, site_csv, thread_csv, app_csv=None):
    for group, path in (("class", class_csv), ("site", site_csv),
                        ("thread", thread_csv), ("app-site", app_csv)):
        if path is None:
            continue
        n, w = reference_rows([tsv], group)
        sq = reference_rows.squares
        rows = read_csv(path, group)
        # the relative standard error from the JDK's own weights
        # (docs/estimates.md): the square root of the larger of the sum
        # of squares and the pooled term, over the sum, to the 4
        # decimals of the CSV
        for r in rows:
            k = r[0]
            if k in w and w[k] > 0 and abs(
                    r[5] - math.sqrt(sq[k]) / w[k]) > 0.6e-4:
                fail(f"{group} {k}: rel_err {r[5]}, the reference's "
                     f"sqrt(max(sum w^2, pool))/sum w "
                     f"{math.sqrt(sq[k]) / w[k]:.6f}")
        check_rows(group, rows, n, w)


def cmd_outside(exp_path, class_csv, site_csv):
    o = json.load(open(exp_path))["jdk.ObjectAllocationOutsideTLAB"]
    for group, path, key, strip in (
            ("class", class_csv, "top_classes_by_allocationSize", False),
            ("site", site_csv, "top_methods_by_allocationSize", True)):
        rows = read_csv(path, group, pooled=False)
        totals(f"outside by {group}", rows, o["count"],
               o["sum_allocationSize"])
        gn, gw = by_key(rows, strip)
        want = {(display(e["key"]) if group == "class" else e["key"]): e
                for e in o[key]}
        compare(f"outside {group}", gn, gw,
                {k: e["count"] for k, e in want.items()},
                {k: e["weight"] for k, e in want.items()}, want)


def cmd_tlab(exp_path, class_csv):
    t = json.load(open(exp_path))["jdk.ObjectAllocationInNewTLAB"]
    rows = read_csv(class_csv, "class", pooled=False)
    totals("tlab by class", rows, t["count"], t["sum_tlabSize"])
    gn, gw = by_key(rows)
    want = {display(e["key"]): e for e in t["top_classes_by_allocationSize"]}
    compare("tlab class", gn, gw, {k: e["count"] for k, e in want.items()},
            None, want)


def cmd_old(exp_path, class_csv):
    o = json.load(open(exp_path))["OldObjectSample"]
    rows = read_csv(class_csv, "class", pooled=False)
    totals("old by class", rows, o["count"], None)
    gn, gw = by_key(rows)
    want = {display(e["key"]): e["count"]
            for e in o["top_object_classes_by_count"]}
    compare("old class", gn, gw, want, None, want)


def cmd_recordings(path, *pairs):
    rows = read_csv(path, "recording")
    want = {}
    for p in pairs:
        name, _, exp = p.partition("=")
        a = json.load(open(exp))["ObjectAllocationSample"]
        want[name] = (a["count"], a["sum_weight"])
    if len(rows) != len(want):
        fail(f"{len(rows)} recording rows, {len(want)} expected: "
             f"{[r[0] for r in rows]}")
    seen = set()
    for r in rows:
        name = os.path.basename(r[0])
        if name not in want:
            fail(f"row {r[0]}: no such recording expected")
            continue
        seen.add(name)
        if (r[1], r[2]) != want[name]:
            fail(f"recording {r[0]}: {r[1]} samples, {r[2]} bytes; jfr "
                 f"{want[name][0]} samples, {want[name][1]} bytes")
    for name in set(want) - seen:
        fail(f"recording {name}: no row")


def cmd_expect_rows(path, group, *args):
    tsvs, opts = [], {}
    args = list(args)
    while args:
        a = args.pop(0)
        if a.startswith("--"):
            opts[a[2:]] = args.pop(0)
        else:
            tsvs.append(a)
    rx = {k: re.compile(opts[k]) for k in ("include", "exclude", "class",
                                          "thread") if k in opts}
    n, w = reference_rows(
        tsvs, group, rx.get("include"), rx.get("exclude"), rx.get("class"),
        rx.get("thread"),
        int(opts["before"]) if "before" in opts else None,
        int(opts["after"]) if "after" in opts else None)
    check_rows(group, read_csv(path, group), n, w)


def cmd_total(path):
    rows = read_csv(path)
    print(len(rows), sum(r[1] for r in rows), sum(r[2] for r in rows))


def cmd_keys(path):
    for r in read_csv(path):
        print(r[0])


def cmd_chunk_start(path):
    with open(path, "rb") as f:
        h = f.read(68)
    if h[:4] != b"FLR\0":
        fail(f"{path}: no JFR chunk header")
        return
    print(struct.unpack(">q", h[32:40])[0])


def cmd_iso(v):
    v = int(v)
    t = datetime.datetime.fromtimestamp(v // 1_000_000_000,
                                        datetime.timezone.utc)
    print(t.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (v % 1_000_000_000))


def cmd_layout(path):
    """The offsets to damage, each with where it lies: the whole header,
    much of the table, the first and last byte of every section, every
    padding byte, and 60 spread evenly over the file."""
    d = open(path, "rb").read()
    size = len(d)
    magic, major, minor, hlen, flen, toc_off, n_sec = struct.unpack(
        "<8sHHIQQI", d[:36])
    if flen != size or magic != b"\x89HSDB\r\n\x1a":
        fail(f"{path}: not an intact store")
        return
    where = {}
    for o in range(64):
        where[o] = "header"
    toc_end = toc_off + 32 * n_sec
    secs = []
    for i in range(n_sec):
        sid, rec_len, off, length, crc, res = struct.unpack(
            "<4sIQQII", d[toc_off + 32 * i:toc_off + 32 * i + 32])
        secs.append((off, off + length, sid.decode("ascii")))
    # the table: its first and last entries whole, of the others the
    # low and high bytes of every field
    picks = set(range(64)) | set(range(toc_off, toc_off + 32)) | \
        set(range(toc_end - 32, toc_end))
    for e in range(toc_off, toc_end, 32):
        picks |= {e + k for k in (0, 3, 4, 7, 8, 15, 16, 23, 24, 27, 28, 31)}
    for a, b, sid in secs:
        if b > a:
            picks |= {a, b - 1}
    picks |= {i * (size - 1) // 59 for i in range(60)}

    def at(o):
        if o < 64:
            return "header"
        if toc_off <= o < toc_end:
            return "toc"
        for a, b, sid in secs:
            if a <= o < b:
                return sid
        return "pad"

    pads = [o for o in range(64, size) if at(o) == "pad"] \
        if size < 64 << 20 else []
    for o in pads:
        if d[o] != 0:
            fail(f"padding byte at {o} is {d[o]}, the format says 0")
    picks |= set(pads)
    for o in sorted(picks):
        print(o, at(o), "%o" % (d[o] ^ 0xff), "%o" % d[o])


# CRC32C (Castagnoli, reflected 0x82F63B78), as docs/formats/store.md says
CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    CRC_TABLE.append(_c)


def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c = CRC_TABLE[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def forgeries(d):
    """(section id, offset, new bytes) for damage a checksum cannot see:
    in the middle record of every section (and the trie's first two),
    every 32-bit word set to 0xffffffff, 0x7fffffff and 0x80000000 (the
    high half of an int64 too), every byte section's byte to 0xff, 0x80
    and 0x05."""
    toc_off, n_sec = struct.unpack("<QI", d[24:36])
    out = []
    for i in range(n_sec):
        sid, rec_len, off, length, _, _ = struct.unpack(
            "<4sIQQII", d[toc_off + 32 * i:toc_off + 32 * i + 32])
        sid = sid.decode("ascii")
        if not length:
            continue
        n = length // rec_len
        recs = {n // 2} | ({0, 1} if sid == "TRIE" and n > 1 else set())
        if sid == "STRS":
            recs |= {0, n - 1}
        if sid == "SBLK":  # the sample blocks: some 30 bytes, spread
            recs |= {k * (n - 1) // 29 for k in range(30)}
        for r in sorted(recs):
            at = off + r * rec_len
            if rec_len < 4:
                out += [(sid, at, bytes([v])) for v in (0xFF, 0x80, 0x05)]
                continue
            for w in range(0, rec_len, 4):
                out += [(sid, at + w, struct.pack("<I", v))
                        for v in (0xFFFFFFFF, 0x7FFFFFFF, 0x80000000)]
    return out


def fix_block_crc(d, toc_off, n_sec, at):
    """The checksum of the sample block holding byte at, in the sample
    index, made to agree with its bytes (the index's own is done by the
    caller, as every section's)."""
    secs = {}
    for i in range(n_sec):
        sid, _, off, length, _, _ = struct.unpack(
            "<4sIQQII", d[toc_off + 32 * i:toc_off + 32 * i + 32])
        secs[sid.decode("ascii")] = (off, length)
    ix_off, ix_len = secs["SIDX"]
    bl_off = secs["SBLK"][0]
    for b in range(ix_off, ix_off + ix_len, 48):
        boff, blen = struct.unpack("<QI", d[b + 8:b + 20])
        if bl_off + boff <= at < bl_off + boff + blen:
            struct.pack_into("<I", d, b + 20,
                             crc32c(d[bl_off + boff:bl_off + boff + blen]))


def cmd_forge(src, outdir, start, count):
    """Write damaged copies of the store src whose checksums all agree
    (section, table, header): outdir/N.hsdb, and print "N SECTION OFFSET
    BYTES" for each.  With count 0, print how many there are."""
    d0 = open(src, "rb").read()
    toc_off, n_sec = struct.unpack("<QI", d0[24:36])
    all_ = forgeries(d0)
    if int(count) == 0:
        print(len(all_))
        return
    for k in range(int(start), min(int(start) + int(count), len(all_))):
        sid, at, new = all_[k]
        d = bytearray(d0)
        d[at:at + len(new)] = new
        if sid == "SBLK":
            fix_block_crc(d, toc_off, n_sec, at)
        for i in range(n_sec):
            e = toc_off + 32 * i
            esid, _, off, length, _, _ = struct.unpack("<4sIQQII",
                                                       d[e:e + 32])
            if off <= at < off + length or \
                    (sid == "SBLK" and esid == b"SIDX"):
                struct.pack_into("<I", d, e + 24,
                                 crc32c(d[off:off + length]))
        struct.pack_into("<I", d, 36,
                         crc32c(d[toc_off:toc_off + 32 * n_sec]))
        struct.pack_into("<I", d, 40, 0)
        struct.pack_into("<I", d, 40, crc32c(d[:64]))
        open(os.path.join(outdir, "%d.hsdb" % k), "wb").write(d)
        print(k, sid, at, new.hex())


def main():
    cmds = {"alloc": cmd_alloc, "reference": cmd_reference,
            "outside": cmd_outside, "tlab": cmd_tlab, "old": cmd_old,
            "recordings": cmd_recordings, "expect_rows": cmd_expect_rows,
            "total": cmd_total, "keys": cmd_keys,
            "chunk_start": cmd_chunk_start, "iso": cmd_iso,
            "layout": cmd_layout, "forge": cmd_forge}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
    finish()


if __name__ == "__main__":
    main()
