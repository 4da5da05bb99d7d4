#!/usr/bin/env python3
"""Check `heapsift codeheap --csv` against the facts the fixtures' README
lists (fixtures/codeheap/README.md, written by the person who captured the
files, from the files themselves).  Nothing expected here comes from
heapsift's own output.

usage: check_readme.py HEAPSIFT FIXTURE_DIR WORKDIR
Prints "ok NAME" / "FAIL NAME: why" per file and returns 1 on any failure.
"""
import csv, gzip, io, os, re, subprocess, sys

heapsift, fdir, work = sys.argv[1:4]
readme = open(os.path.join(fdir, "README.md"), encoding="utf-8").read()


def fixture(name):
    for cand in (name, name + ".gz"):
        p = os.path.join(fdir, cand)
        if os.path.exists(p):
            return p
    raise SystemExit("missing fixture " + name)


def heapsift_csv(name, *args):
    store = os.path.join(work, re.sub(r"\W", "_", name) + ".hsdb")
    if not os.path.exists(store):
        r = subprocess.run([heapsift, "import", "-o", store, fixture(name)],
                           capture_output=True, text=True)
        if r.returncode not in (0, 3):
            raise RuntimeError("import failed: " + r.stderr)
    r = subprocess.run([heapsift, "codeheap", store, "--csv", *args],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("codeheap failed: " + r.stderr)
    return list(csv.DictReader(io.StringIO(r.stdout)))


def k(s):  # "2496K" -> bytes
    return int(s.rstrip("Kk")) * 1024


failed = 0
checked = 0


def report(name, errs):
    global failed, checked
    checked += 1
    if errs:
        failed += 1
        print("FAIL %s: %s" % (name, "; ".join(errs[:6])))
    else:
        print("ok " + name)


# --- analytics reports: "#### `file`" sections ---------------------------
sections = re.split(r"^#### `([^`]+)`\s*$", readme, flags=re.M)
for i in range(1, len(sections), 2):
    name, body = sections[i], sections[i + 1]
    errs = []
    try:
        rows = [r for r in heapsift_csv(name) if r["kind"] == "analytics"]
    except RuntimeError as e:
        report(name, [str(e)])
        continue
    reports = re.split(r"^Report (\d+): ", body, flags=re.M)[1:]
    got_snaps = sorted({r["snapshot"] for r in rows}, key=int)
    if len(got_snaps) != len(reports) // 2:
        errs.append("%d reports, README says %d" % (len(got_snaps), len(reports) // 2))
    for ri in range(0, len(reports), 2):
        text = reports[ri + 1]
        snap = got_snaps[ri // 2] if ri // 2 < len(got_snaps) else None
        mine = [r for r in rows if r["snapshot"] == snap]
        table = [l for l in text.splitlines() if l.startswith("| `")]
        if len(mine) != len(table):
            errs.append("report %s: %d heaps, README %d" % (reports[ri], len(mine), len(table)))
        for line in table:
            cols = [c.strip() for c in line.strip().strip("|").split("|")]
            heap = cols[0].strip("`")
            r = next((x for x in mine if x["heap"] == heap), None)
            if r is None:
                errs.append("no heap " + heap)
                continue
            want = {}
            want["segment_size"] = cols[1]
            g, gs = re.match(r"(\d+) x (\d+)", cols[2]).groups()
            want["granules"], want["granule_size"] = g, gs
            c, rs = cols[3].split(" / ")
            want["capacity"], want["reserved"] = str(k(c)), str(k(rs))
            want["low"] = cols[4]
            ub = re.match(r"(\d+) \((\d+)k\)", cols[5]).groups()
            fb = re.match(r"(\d+) \((\d+)k\)", cols[6]).groups()
            want["used_blocks"], want["used"] = ub[0], str(int(ub[1]) * 1024)
            want["free_blocks"], want["free"] = fb[0], str(int(fb[1]) * 1024)
            m = re.match(r"0x[0-9a-f]+ = (\d+) bytes, `(.*)`; table has (\d+) rows", cols[11])
            if m:
                want["largest_used"], want["largest_used_name"], want["top_rows"] = m.groups()
            m = re.match(r"0x[0-9a-f]+ = (\d+) bytes \(free block #\d+ of (\d+) listed\)", cols[12])
            if m:
                want["largest_free"], want["free_rows"] = m.groups()
            elif cols[12].startswith("none"):
                want["largest_free"], want["free_rows"] = "0", "0"
                want["fragmentation"] = "0.0000"
            for key, val in want.items():
                if r[key] != val:
                    errs.append("%s %s: %r, README %r" % (heap, key, r[key], val))
        gm = re.search(r"^Granule maps: (.*)$", text, flags=re.M)
        if gm:
            for heap, n, g in re.findall(r"`([^`]+)`: (\d+) granule maps, every map covers exactly (\d+) granules", gm.group(1)):
                r = next((x for x in mine if x["heap"] == heap), None)
                if r and (r["maps"] != n or r["granules"] != g):
                    errs.append("%s: %s maps of %s granules, README %s of %s" % (heap, r["maps"], r["granules"], n, g))
        mn = re.search(r"^MethodNames entry lines \(address-prefixed\): (.*)$", text, flags=re.M)
        if mn:
            for heap, n in re.findall(r"`([^`]+)` (\d+)", mn.group(1)):
                r = next((x for x in mine if x["heap"] == heap), None)
                if r and r["named_rows"] != n:
                    errs.append("%s: %s method-name rows, README %s" % (heap, r["named_rows"], n))
    report(name, errs)

# --- Compiler.codecache summaries ------------------------------------------
summ = readme.split("### `Compiler.codecache` / `PrintCodeCache` summaries")[1].split("###")[0]
for line in summ.splitlines():
    m = re.match(r"\| `([^`]+)` \| (\d+): (.*?) \| `\[(0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+)\]`", line)
    if not m:
        continue
    name, nheaps, heaps, lo, hi, rhi = m.groups()
    errs = []
    rows = [r for r in heapsift_csv(name) if r["kind"] == "summary"]
    if len(rows) != int(nheaps):
        errs.append("%d heaps, README %s" % (len(rows), nheaps))
    nums = re.findall(r"(\d+)/(\d+)/(\d+)/(\d+)", heaps) or \
        [re.search(r"size=(\d+)Kb used=(\d+)Kb max_used=(\d+)Kb free=(\d+)Kb", heaps).groups()]
    for r, (size, used, mx, free) in zip(rows, nums):
        for key, val in (("reserved", size), ("used", used), ("max_used", mx), ("free", free)):
            if r[key] != str(int(val) * 1024):
                errs.append("%s %s %s, README %s KB" % (r["heap"], key, r[key], val))
    if rows and (rows[0]["low"] != lo or rows[0]["high"] != hi):
        errs.append("bounds %s %s, README %s %s" % (rows[0]["low"], rows[0]["high"], lo, hi))
    if rows and rows[0]["capacity"] != str(int(hi, 16) - int(lo, 16)):
        errs.append("capacity %s, bounds say %d" % (rows[0]["capacity"], int(hi, 16) - int(lo, 16)))
    report(name, errs)

# --- Compiler.codelist ------------------------------------------------------
cl = readme.split("### `Compiler.codelist`")[1].split("###")[0]
for line in cl.splitlines():
    m = re.match(r"\| `([^`]+)` \| (\d+) \| (.*?) \| (.*?) \|", line)
    if not m:
        continue
    name, n, levels, states = m.groups()
    store = os.path.join(work, re.sub(r"\W", "_", name) + ".hsdb")
    heapsift_csv(name)  # imports
    r = subprocess.run([heapsift, "codeheap", store], capture_output=True, text=True)
    g = re.search(r"(\d+) compiled methods; by level 0:(\d+) 1:(\d+) 2:(\d+) 3:(\d+) 4:(\d+)\n"
                  r"  by state: (.*)\n", r.stdout)
    errs = []
    got = None
    if not g:
        errs.append("no codelist line in: " + r.stdout[:200])
    else:
        # JDK 17 numbers the states 0 in use, 1 not used, 2 not entrant
        # (compiledMethod.hpp); the README counts the printed numbers
        by = dict(re.findall(r"([a-z][a-z ()0-9+-]*?) (\d+)(?:,|$)", g.group(7).strip()))
        got = list(g.groups()[:6]) + [by.get("in use", "0"), by.get("not used", "0"),
                                      by.get("not entrant", "0")]
    if got:
        want_l = dict(re.findall(r"(\d): (\d+)", levels))
        want_s = dict(re.findall(r"(\d): (\d+)", states))
        if got[0] != n:
            errs.append("%s entries, README %s" % (got[0], n))
        for lv in range(5):
            if got[1 + lv] != want_l.get(str(lv), "0"):
                errs.append("level %d: %s, README %s" % (lv, got[1 + lv], want_l.get(str(lv), "0")))
        for st in range(3):
            if got[6 + st] != want_s.get(str(st), "0"):
                errs.append("state %d: %s, README %s" % (st, got[6 + st], want_s.get(str(st), "0")))
    report(name, errs)

# --- the free-space-only files (README prose) ------------------------------
for name, heap, blocks, largest in (
        ("jdk17-seg-analytics-freespace-after-aggregate.txt", "CodeHeap 'non-profiled nmethods'", "1", "298752"),
        ("jdk17-seg-analytics-freespace-after-aggregate.txt", "CodeHeap 'profiled nmethods'", "2", "3373440"),
        ("jdk17-seg-analytics-freespace-after-aggregate.txt", "CodeHeap 'non-nmethods'", "1", "13312"),
        ("jdk17-noseg-analytics-freespace-after-aggregate.txt", "CodeHeap", "506", "3199360")):
    rows = heapsift_csv(name)
    r = next((x for x in rows if x["heap"] == heap), None)
    errs = []
    if r is None:
        errs.append("no heap " + heap)
    elif r["free_rows"] != blocks or r["largest_free"] != largest:
        errs.append("%s free rows %s largest %s, README %s / %s" % (heap, r["free_rows"], r["largest_free"], blocks, largest))
    report(name + " " + heap, errs)

print("checked %d, failed %d" % (checked, failed))
sys.exit(1 if failed or checked < 20 else 0)
