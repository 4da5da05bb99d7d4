#!/usr/bin/env python3
"""Write synthetic heapsift agent recordings from the format's spec
(docs/formats/agent-recording.md), independently of the C agent, for the
importer's tests, and print the ground truth the importer must find.

usage: make_recording.py SCENARIO OUT.hsa > truth.json

Scenarios:
  basic      three sites with known sizes, interval 64 KiB, Poisson; some
             samples die after GC 1 or 2, some are alive at the end, one
             is untracked; END present.
  openj9     the same samples, sampler = systematic.
  killed     basic without the final ALIVE/COUNTERS/END (a JVM killed
             after its last flush), plus half a record at the end.
  corrupt    basic with one byte of the second SAMPLES batch flipped.
  oddnames   basic with App.drop named "drop it;now": a space and a
             semicolon in a frame (the folded export must escape it).

The truth: per class and per site, samples and the unbiased weights
(docs/formats/agent-recording.md: Poisson s / (1 - exp(-s/I)); systematic I if s < I else s),
the fates, the GC count, and for 'killed'/'corrupt' where the readable
part ends.
"""
import json
import math
import struct
import sys

MAGIC = b"\x89HSA\r\n\x1a\n"
T0 = 1_700_000_000_000_000_000
INTERVAL = 64 * 1024


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def s(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def frame(rtype, payload):
    head = struct.pack("<I", rtype)
    return struct.pack("<I", len(payload)) + head + payload + struct.pack(
        "<I", crc32c(head + payload))


def weight(sampler, size):
    if sampler == 2:
        return INTERVAL if size < INTERVAL else size
    return size / -math.expm1(-size / INTERVAL)


def build(sampler, ending=True, drop="drop"):
    out = bytearray(MAGIC + struct.pack("<HHI", 1, 0, 0))
    hdr = struct.pack("<QQIIII", T0, INTERVAL, 64, 4242, sampler, 1000)
    hdr += s("OpenJDK 64-Bit Server VM" if sampler == 1 else "Eclipse OpenJ9 VM")
    hdr += s("17.0.15+6") + s("Test Vendor") + s("file=x.hsa,interval=64k")
    hdr += s("make_recording.py")
    out += frame(1, hdr)
    classes = {1: "[B", 2: "java/lang/String", 3: "[Ljava/lang/Object;"}
    display = {1: "byte[]", 2: "java.lang.String", 3: "java.lang.Object[]"}
    for cid, name in classes.items():
        out += frame(2, struct.pack("<I", cid) + s(name))
    # methods: 10 App.retain, 11 App.drop, 12 App.main, 13 HashMap.resize
    methods = {10: (4, "retain"), 11: (4, drop), 12: (4, "main"),
               13: (5, "resize")}
    out += frame(2, struct.pack("<I", 4) + s("com/example/App"))
    out += frame(2, struct.pack("<I", 5) + s("java/util/HashMap"))
    for mid, (cid, name) in methods.items():
        out += frame(3, struct.pack("<III", mid, cid, 0) + s(name) + s("()V"))
    out += frame(4, struct.pack("<IIq", 1, 0, 1) + s("main"))
    out += frame(4, struct.pack("<IIq", 2, 0, 17) + s("worker-1"))
    # stacks, innermost first
    stacks = {1: [(10, 5, 20), (12, 1, 5)],      # retain <- main
              2: [(11, 7, 30), (12, 9, 6)],      # drop <- main
              3: [(13, 40, 700), (11, 7, 30), (12, 9, 6)]}  # resize<-drop<-main
    site = {1: "com.example.App.retain:20", 2: "com.example.App.%s:30" % drop,
            3: "java.util.HashMap.resize:700"}
    for sid, frames in stacks.items():
        p = struct.pack("<III", sid, 1 if sid == 3 else 0, len(frames))
        for m, bci, line in frames:
            p += struct.pack("<Iii", m, bci, line)
        out += frame(5, p)
    # samples: (id, t, size, thread, class, stack, gc, flags)
    samples = []
    sid = 0
    for i in range(40):
        sid += 1
        samples.append((sid, T0 + 1000 * sid, 1024 * (1 + i % 4), 1, 1, 1,
                        0 if i < 20 else 1, 1))
    for i in range(30):
        sid += 1
        samples.append((sid, T0 + 1000 * sid, 100_000, 2, 3, 2,
                        0 if i < 15 else 1, 1))
    for i in range(10):
        sid += 1
        samples.append((sid, T0 + 1000 * sid, 24, 2, 2, 3, 1,
                        1 if i else 2))  # the first: table full
    # deaths: drop's (class 3) samples die after GC 1 or 2; half of
    # resize's die after GC 2; retain's live to the end
    deaths, alive = {}, []
    for (i, t, size, th, c, st, gc, fl) in samples:
        if not fl & 1:
            continue
        if c == 3:
            deaths[i] = (T0 + 10_000_000 + i, gc + 1, 0)
        elif c == 2 and i % 2 == 0:
            deaths[i] = (T0 + 20_000_000 + i, 2, 2 - gc - 1)
        else:
            alive.append(i)

    def sample_batch(part):
        p = b""
        for (i, t, size, th, c, st, gc, fl) in part:
            p += struct.pack("<QqQIIIIII", i, t, size, th, c, st, gc, fl, 0)
        return p

    batch_offsets = []
    batch_offsets.append(len(out))
    out += frame(6, sample_batch(samples[:50]))
    gcs = struct.pack("<IIqq", 1, 0, T0 + 5_000_000, T0 + 6_000_000)
    out += frame(8, gcs)
    batch_offsets.append(len(out))
    out += frame(6, sample_batch(samples[50:]))
    out += frame(8, struct.pack("<IIqq", 2, 0, T0 + 15_000_000, T0 + 16_000_000))
    d = b""
    for i, (t, gc, surv) in sorted(deaths.items()):
        d += struct.pack("<QqII", i, t, gc, surv)
    out += frame(7, d)
    counters = [len(samples), len(samples), len(samples) - 1, 1, 0,
                len(deaths), 2, 0, 3, len(out), 0, 0]
    out += frame(9, struct.pack("<12Q", *counters))
    last_flush = len(out)
    if ending:
        out += frame(10, b"".join(struct.pack("<Q", i) for i in alive))
        counters[10] = len(alive)
        out += frame(9, struct.pack("<12Q", *counters))
        out += frame(11, struct.pack("<q", T0 + 30_000_000))
    truth = {"classes": {}, "sites": {}, "samples": len(samples),
             "deaths": len(deaths), "alive": len(alive) if ending else 0,
             "at_cut": 0 if ending else len(alive), "untracked": 1,
             "gcs": 2, "batch_offsets": batch_offsets,
             "last_flush": last_flush}
    for (i, t, size, th, c, st, gc, fl) in samples:
        w = weight(sampler, size)
        for key, table in ((display[c], "classes"), (site[st], "sites")):
            r = truth[table].setdefault(key, {"samples": 0, "bytes": 0.0,
                                               "rounded": 0})
            r["samples"] += 1
            r["bytes"] += w
            r["rounded"] += int(math.floor(w + 0.5))
    # what is still alive when the recording ends, per site
    truth["alive_sites"] = {}
    for (i, t, size, th, c, st, gc, fl) in samples:
        if ending and i in alive:
            r = truth["alive_sites"].setdefault(site[st], {"samples": 0,
                                                           "bytes": 0.0})
            r["samples"] += 1
            r["bytes"] += weight(sampler, size)
    return out, truth


def main():
    scenario, path = sys.argv[1], sys.argv[2]
    if scenario in ("basic", "corrupt"):
        data, truth = build(1)
    elif scenario == "oddnames":
        data, truth = build(1, drop="drop it;now")
    elif scenario == "openj9":
        data, truth = build(2)
    elif scenario == "killed":
        data, truth = build(1, ending=False)
        data += frame(6, b"\0" * 48)[:30]  # half a record
        truth["readable_end"] = truth["last_flush"]
    else:
        sys.exit("unknown scenario " + scenario)
    if scenario == "corrupt":
        off = truth["batch_offsets"][1] + 8 + 20
        data = bytearray(data)
        data[off] ^= 0x40
        truth["readable_end"] = truth["batch_offsets"][1]
    with open(path, "wb") as f:
        f.write(data)
    truth["file_len"] = len(data)
    json.dump(truth, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
