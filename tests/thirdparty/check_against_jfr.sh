#!/bin/sh
# check_against_jfr.sh: compare jfr_events.py (our independent Python JFR reader)
# with the JDK's `jfr print --json` on per-group counts and sums.
#
# Usage: check_against_jfr.sh SPEC...
#   SPEC = FILE:TYPE[:FIELD,FIELD...[:CHUNKS[:BY]]]
#     FILE    a .jfr or .jfr.gz
#     TYPE    event type name, e.g. jdk.ObjectAllocationSample
#     FIELDs  integer fields to sum per group (may be empty)
#     CHUNKS  1-based chunk list ("1,2" or "1-2") to compare on: those chunks
#             are copied into a temporary file that `jfr` reads (use it when
#             `jfr` misreads other chunks of the file, e.g. Datadog's); default all
#     BY      class (default: the objectClass name), class=FIELD.PATH (the Class
#             reached through that path, e.g. class=object.type for
#             jdk.OldObjectSample), stack-top (first frame Class.method), thread
# With no SPEC, runs the built-in list below over $FIXTURES (default: the
# repository's fixtures/ folder).
# Prints one "ok ..." or "FAIL ..." line per SPEC; exits 1 if any failed.
# Needs python3 and the JDK's `jfr` on PATH (set JFR=/path/to/jfr to override).

here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
jfr=${JFR:-jfr}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chkjfr.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ $# -eq 0 ]; then
    fx=${FIXTURES:-$here/../../fixtures}
    S=jdk.ObjectAllocationSample:weight
    I=jdk.ObjectAllocationInNewTLAB:allocationSize,tlabSize
    O=jdk.ObjectAllocationOutsideTLAB:allocationSize
    set --
    for f in default profile-tlab multichunk leak-gcroots killed-unfinished; do
        set -- "$@" "$fx/jfr/jdk17-$f.jfr:$S" "$fx/jfr/jdk17-$f.jfr:$I" "$fx/jfr/jdk17-$f.jfr:$O" \
            "$fx/jfr/jdk17-$f.jfr:jdk.OldObjectSample:arrayElements::class=object.type"
    done
    set -- "$@" "$fx/jfr/jdk17-profile-tlab.jfr:$S::stack-top" "$fx/jfr/jdk17-multichunk.jfr:$S::thread"
    for f in alloc alloc-live alloc-tlab cpu-alloc; do
        set -- "$@" "$fx/thirdparty/$f.jfr:$I" "$fx/thirdparty/$f.jfr:$O" \
            "$fx/thirdparty/$f.jfr:profiler.LiveObject:allocationSize" "$fx/thirdparty/$f.jfr:$S"
    done
    set -- "$@" "$fx/thirdparty/alloc-tlab.jfr:$I::stack-top"
    # Datadog's file: jfr misreads chunk 3 (Datadog's own); compare chunks 1-2 only.
    dd=$fx/thirdparty/datadog-event-with-type-zero.jfr.gz
    set -- "$@" "$dd:$S:1-2" "$dd:$I:1-2" "$dd:$O:1-2" "$dd:jdk.OldObjectSample:arrayElements:1-2:class=object.type" \
        "$dd:$S:1-2:stack-top"
fi

fail=0
n=0
for spec in "$@"; do
    n=$((n + 1))
    file=$(printf '%s' "$spec" | cut -d: -f1)
    type=$(printf '%s' "$spec" | cut -d: -f2)
    fields=$(printf '%s' "$spec" | cut -s -d: -f3 | tr ',' ' ')
    chunks=$(printf '%s' "$spec" | cut -s -d: -f4)
    by=$(printf '%s' "$spec" | cut -s -d: -f5)
    [ -n "$by" ] || by=class
    clsargs=
    case "$by" in class=*) clsargs="--class-field ${by#class=}"; by=class ;; esac
    sumargs=
    [ -n "$fields" ] && sumargs="--sum $fields"
    label="$(basename "$file") $type by $by${clsargs:+ ($clsargs)}${fields:+ sum $fields}${chunks:+ chunks $chunks}"
    if [ ! -r "$file" ]; then
        echo "FAIL $label: cannot read $file"; fail=1; continue
    fi
    # jfr reads plain files only: decompress / cut out chunks with our reader.
    in=$file
    case "$file" in *.gz) chunks_all=1 ;; *) chunks_all= ;; esac
    if [ -n "$chunks" ] || [ -n "$chunks_all" ]; then
        in=$tmp/in$n.jfr
        if [ -n "$chunks" ]; then
            "$py" "$here/jfr_events.py" split "$file" "$in" --chunk "$chunks" || { echo "FAIL $label: split"; fail=1; continue; }
        else
            "$py" -c 'import gzip,sys; open(sys.argv[2],"wb").write(gzip.open(sys.argv[1]).read())' "$file" "$in" || { echo "FAIL $label: gunzip"; fail=1; continue; }
        fi
    fi
    # shellcheck disable=SC2086
    if ! "$jfr" print --json --stack-depth 1 --events "$type" "$in" > "$tmp/jfr$n.json" 2> "$tmp/jfr$n.err"; then
        echo "FAIL $label: jfr print failed: $(head -c 300 "$tmp/jfr$n.err")"; fail=1; continue
    fi
    # shellcheck disable=SC2086
    "$py" "$here/jfr_json_count.py" "$tmp/jfr$n.json" --type "$type" --by "$by" $clsargs $sumargs > "$tmp/ref$n.json" || { echo "FAIL $label: jfr_json_count"; fail=1; continue; }
    # shellcheck disable=SC2086
    "$py" "$here/jfr_events.py" count "$in" --type "$type" --by "$by" $clsargs $sumargs > "$tmp/ours$n.json" 2> "$tmp/ours$n.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $label: jfr_events.py exit $rc: $(head -c 300 "$tmp/ours$n.err") $(head -c 300 "$tmp/ours$n.json")"; fail=1; continue
    fi
    if msg=$("$py" - "$tmp/ref$n.json" "$tmp/ours$n.json" <<'EOF'
import json, sys
ref = json.load(open(sys.argv[1]))
ours = json.load(open(sys.argv[2]))
diffs = []
if ref["total"] != ours["total"]:
    diffs.append("total jfr=%s ours=%s" % (ref["total"], ours["total"]))
if ref.get("sums") != ours.get("sums"):
    diffs.append("sums jfr=%s ours=%s" % (ref.get("sums"), ours.get("sums")))
rg, og = ref.get("groups", {}), ours.get("groups", {})
for k in sorted(set(rg) | set(og)):
    if rg.get(k) != og.get(k):
        diffs.append("group %r jfr=%s ours=%s" % (k, rg.get(k), og.get(k)))
if diffs:
    print("; ".join(diffs[:5]) + ("; ... %d differences" % len(diffs) if len(diffs) > 5 else ""))
    sys.exit(1)
s = ", ".join("%s=%s" % kv for kv in sorted((ref.get("sums") or {}).items()))
print("%d events, %d groups%s" % (ref["total"], len(rg), ", " + s if s else ""))
EOF
    ); then
        echo "ok $label: $msg"
    else
        echo "FAIL $label: $msg"; fail=1
    fi
done
exit $fail
