#!/usr/bin/env python3
"""The layer rules of docs/development.md, checked on what the compiler saw.

usage: build-aux/layering.py [--root DIR] BUILD

Reads the dependency files that -MMD writes beside each object
(BUILD/src/**/*.d, and BUILD/pic/**/*.d for the agent): each lists every
header its source reaches, through any chain of includes, so an include
that only passes through an allowed header still counts.  A .d whose
source no longer exists (an object left from a file since moved) is
skipped.  For every header a source reaches in another layer, the source's
layer must be allowed it below; every violation is printed as

    layering: SOURCE reaches HEADER (LAYER may not use LAYER)

and the exit status is 1.  "(A may not use B beyond P)" says that A may
use only P of B; "(A may not use B internals)" that the header is a
*_int.h, which only its own layer includes.  Finding no dependency file at
all is an error (exit 2): the check must never pass for want of input.
"""

import glob
import os
import sys

# Each layer's folders, relative to the repository root; "gen/" stands for
# BUILD/gen/, where the generated sources are (protoc-c's pprof code).
LAYERS = {
    "util": ["src/util/"],
    "record": ["src/record/"],
    "formats": ["src/formats/", "gen/formats/"],
    "input": ["src/input/"],
    "importers": ["src/importers/"],
    "store": ["src/store/"],
    "ingest": ["src/ingest/"],
    "query": ["src/query/"],
    "findings": ["src/findings/"],
    "report": ["src/report/"],
    "export": ["src/export/"],
    "tui": ["src/tui/"],
    "cli": ["src/cli/"],
    "agent": ["agent/"],
}

# What each layer's sources may reach besides their own layer: a layer by
# name, or a path (a folder ending in '/', or one header) inside a layer,
# which then allows that part of it only.
ALLOW = {
    "util": [],
    "record": ["util"],
    # the generated protobuf code, pprof's and OpenTelemetry's profiles
    "formats": ["util", "gen/formats/pprof/", "gen/formats/otlp/"],
    "input": ["util"],
    "importers": ["util", "record", "formats", "input"],
    "store": ["util", "record", "formats"],
    "ingest": ["util", "record", "formats", "input", "importers", "store"],
    # store.h still includes the on-disk format's header
    "query": ["util", "record", "store", "src/formats/store/"],
    "findings": ["util", "record", "query"],
    "report": ["util", "record", "query", "findings"],
    # the generated headers of the formats export writes (protoc-c's
    # pprof and OTLP profiles code), never a format reader of src/formats/
    "export": ["util", "record", "query", "findings", "gen/formats/pprof/",
               "gen/formats/otlp/"],
    "tui": ["util", "record", "query", "findings"],
    "cli": ["util", "record", "formats", "input", "importers", "store",
            "ingest", "query", "findings", "report", "export", "tui"],
    "agent": ["src/util/crc32c.h", "src/formats/agentrec/"],
}

# The headers of a layer that other layers may reach, where that is not
# all of them: the store is used through store.h, the named interface.
PUBLIC = {
    "store": ["src/store/store.h"],
}


def layer_of(path):
    """The layer a root-relative path belongs to, or None."""
    for name, prefixes in LAYERS.items():
        for p in prefixes:
            if path.startswith(p):
                return name
    return None


def rel(path, root, build):
    """A path from a .d file, relative to the root ("gen/..." for BUILD/gen);
    None for one outside the tree (a library's header)."""
    a = os.path.normpath(os.path.join(root, path))
    gen = os.path.join(build, "gen") + os.sep
    if a.startswith(gen):
        return "gen/" + a[len(gen):]
    if a.startswith(root + os.sep):
        return a[len(root) + 1:]
    return None


def parse_d(text):
    """The first rule of a .d file: (source, [headers])."""
    text = text.replace("\\\n", " ")
    first = text.split("\n", 1)[0]
    if ":" not in first:
        return None, []
    deps = first.split(":", 1)[1].split()
    if not deps:
        return None, []
    return deps[0], deps[1:]


def judge(src_layer, hdr, hdr_layer):
    """None when src_layer may reach hdr, else why not."""
    if hdr_layer == src_layer:
        return None
    name = hdr_layer or hdr.split("/", 1)[0]
    if os.path.basename(hdr).endswith("_int.h"):
        return "%s may not use %s internals" % (src_layer, name)
    allow = ALLOW[src_layer]
    parts = [a for a in allow if "/" in a and layer_of(a) == hdr_layer]
    if hdr_layer in allow:
        pub = PUBLIC.get(hdr_layer)
        if pub is None or hdr in pub:
            return None
        return "%s may not use %s beyond %s" % (src_layer, name,
                                                ", ".join(pub))
    if any(hdr.startswith(p) if p.endswith("/") else hdr == p
           for p in parts):
        return None
    if parts:
        return "%s may not use %s beyond %s" % (src_layer, name,
                                                ", ".join(parts))
    return "%s may not use %s" % (src_layer, name)


def main(argv):
    root = os.getcwd()
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--root":
        root = args[1]
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write("usage: build-aux/layering.py [--root DIR] BUILD\n")
        return 2
    root = os.path.abspath(root)
    build = os.path.abspath(os.path.join(root, args[0]))
    files = sorted(
        glob.glob(os.path.join(build, "src", "**", "*.d"), recursive=True) +
        glob.glob(os.path.join(build, "pic", "**", "*.d"), recursive=True))
    bad = set()
    n_sources = 0
    for d in files:
        with open(d, encoding="utf-8", errors="replace") as f:
            src, headers = parse_d(f.read())
        if src is None:
            continue
        src = rel(src, root, build)
        if src is None or not os.path.exists(os.path.join(root, src)):
            continue  # an object left from a source since moved
        n_sources += 1
        src_layer = layer_of(src)
        if src_layer is None:
            bad.add("layering: %s is in no layer (add its folder to "
                    "build-aux/layering.py)" % src)
            continue
        for h in headers:
            hdr = rel(h, root, build)
            if hdr is None:
                continue
            why = judge(src_layer, hdr, layer_of(hdr))
            if why:
                bad.add("layering: %s reaches %s (%s)" % (src, hdr, why))
    if not n_sources:
        sys.stderr.write("layering: no dependency files of existing sources "
                         "under %s/src or %s/pic: build first (make)\n" %
                         (args[0], args[0]))
        return 2
    for line in sorted(bad):
        print(line)
    if bad:
        print("layering: %d violation%s in %d sources (docs/development.md, "
              "The layers)" % (len(bad), "" if len(bad) == 1 else "s",
                               n_sources))
        return 1
    print("layering: %d sources, every include within its layer's rules" %
          n_sources)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
