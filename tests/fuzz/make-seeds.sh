#!/bin/sh
# Make the fuzzers' seed corpora from the fixtures: small containers of
# every kind the walker opens, nested, and the first bytes of each real
# input for the probes.  Written to build-fuzz/corpus/ (not committed:
# they are derived from fixtures/ and cheap to make).
set -eu
cd "$(dirname "$0")/../.."
out=build-fuzz/corpus
rm -rf "$out"
mkdir -p "$out/walk" "$out/probe" "$out/jfr" "$out/jfr_struct" "$out/store" \
	"$out/agentrec" "$out/codeheap" "$out/javacore"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
head -c 3000 fixtures/jfr/jdk17-leak-gcroots.jfr >"$w/rec.jfr"
head -c 2000 fixtures/javacore/javacore.20230830.134339.30220.0001.txt >"$w/jc.txt"
cp fixtures/codeheap/jdk17-seg-jcmd-codecache.txt "$w/cc.txt"
for f in rec.jfr jc.txt cc.txt; do cp "$w/$f" "$out/walk/plain-$f"; done
gzip -c "$w/rec.jfr" >"$out/walk/rec.jfr.gz"
bzip2 -c "$w/rec.jfr" >"$out/walk/rec.jfr.bz2"
xz -c "$w/rec.jfr" >"$out/walk/rec.jfr.xz"
xz --format=lzma -c "$w/rec.jfr" >"$out/walk/rec.jfr.lzma"
zstd -q -c "$w/rec.jfr" >"$out/walk/rec.jfr.zst"
lz4 -q -c "$w/rec.jfr" >"$out/walk/rec.jfr.lz4"
(cd "$w" && bsdtar -cf "$OLDPWD/$out/walk/a.tar" rec.jfr cc.txt)
(cd "$w" && bsdtar --format zip -cf "$OLDPWD/$out/walk/a.zip" rec.jfr jc.txt)
(cd "$w" && bsdtar --format 7zip -cf "$OLDPWD/$out/walk/a.7z" rec.jfr cc.txt)
(cd "$w" && bsdtar --format zip -cf inner.zip rec.jfr &&
	bsdtar -czf "$OLDPWD/$out/walk/nested.tar.gz" inner.zip cc.txt)
# each glob must match: an unmatched one stays as it is
need() { [ -e "$1" ] || { echo "make-seeds: no fixture matches $1" >&2; exit 1; }; }
for f in fixtures/jfr/*.jfr fixtures/codeheap/*.txt fixtures/javacore/*.txt; do
	need "$f"
	head -c 4096 "$f" >"$out/probe/$(basename "$f")"
done
# whole recordings, and cuts that end inside the metadata, a checkpoint
# and the event stream
for f in leak-gcroots killed-unfinished; do
	cp "fixtures/jfr/jdk17-$f.jfr" "$out/jfr/$f.jfr"
	for n in 9000 120000 200000; do
		head -c "$n" "fixtures/jfr/jdk17-$f.jfr" >"$out/jfr/$f-$n.jfr"
	done
done
# other writers' recordings (docs/formats/jfr.md, "Other writers"):
# async-profiler's default, live and tlab modes, and the Datadog chunk
# of the public recording alone (its third: the JDK's two are above)
for f in alloc-live alloc-tlab; do
	need "fixtures/thirdparty/$f.jfr"
	cp "fixtures/thirdparty/$f.jfr" "$out/jfr/ap-$f.jfr"
	head -c 12000 "fixtures/thirdparty/$f.jfr" >"$out/jfr/ap-$f-12000.jfr"
done
need fixtures/thirdparty/datadog-event-with-type-zero.jfr.gz
gzip -dc fixtures/thirdparty/datadog-event-with-type-zero.jfr.gz |
	python3 -c "import struct, sys
b = sys.stdin.buffer.read(); at = 0; n = 0
while at + 16 <= len(b) and b[at:at + 4] == b'FLR\\0':
    size = struct.unpack('>Q', b[at + 8:at + 16])[0]; n += 1
    if n == 3: sys.stdout.buffer.write(b[at:at + size])
    at += size" >"$out/jfr/dd-chunk3.jfr"
[ -s "$out/jfr/dd-chunk3.jfr" ] || { echo "make-seeds: no Datadog chunk" >&2; exit 1; }
# small synthetic chunks written by the JFR unit tests' chunk writer
HS_FUZZ_SEEDS="$out/jfr" HS_FIXTURES=fixtures build/unit-tests \
	jfr_synthetic_chunk_through_the_importer >/dev/null
# the structure-aware JFR harness mutates inside whole chunks: the whole
# recordings and synthetic chunks, and two chunks end to end
cp "$out"/jfr/leak-gcroots.jfr "$out"/jfr/killed-unfinished.jfr \
	"$out"/jfr/synthetic-*.jfr "$out"/jfr/ap-alloc-live.jfr \
	"$out"/jfr/ap-alloc-tlab.jfr "$out"/jfr/dd-chunk3.jfr "$out/jfr_struct/"
cat "$out"/jfr/synthetic-*.jfr >"$out/jfr_struct/two-chunks.jfr"
# small stores made from the fixtures
./heapsift import -o "$out/store/leak.hsdb" fixtures/jfr/jdk17-leak-gcroots.jfr >/dev/null
head -c 110000 fixtures/jfr/jdk17-killed-unfinished.jfr >"$w/tiny.jfr"
./heapsift import -o "$out/store/tiny.hsdb" "$w/tiny.jfr" >/dev/null 2>&1 || true
# agent recordings written from the format's spec
for sc in basic openj9 killed corrupt; do
	python3 tests/agent/make_recording.py "$sc" "$out/agentrec/$sc.hsa" >/dev/null
done
# stores with code-heap snapshots (store 1.2): a small report, a summary,
# a code list
./heapsift import -o "$out/store/codeheap.hsdb" \
	fixtures/codeheap/jdk17-noseg-analytics-aggregate-16384.txt \
	fixtures/codeheap/jdk17-seg-jcmd-codecache.txt >/dev/null 2>&1 || true
gzip -dc fixtures/codeheap/jdk17-noseg-analytics-all-65536.txt.gz >"$w/ch.txt"
./heapsift import -o "$out/store/codeheap-maps.hsdb" "$w/ch.txt" >/dev/null 2>&1 || true
# stores with liveness and GC sections (store 1.1)
python3 tests/agent/make_recording.py basic "$w/a.hsa" >/dev/null
python3 tests/agent/make_recording.py killed "$w/k.hsa" >/dev/null
./heapsift import -o "$out/store/agent.hsdb" "$w/a.hsa" >/dev/null 2>&1 || true
./heapsift import -o "$out/store/killed.hsdb" "$w/k.hsa" >/dev/null 2>&1 || true

# code-heap reports: whole small files, and slices of the big ones that
# start at each kind of section (maps, tables, legends, free lists)
for f in fixtures/codeheap/*.txt fixtures/codeheap/*.gz; do
	need "$f"
	b=$(basename "$f" .gz)
	case $f in *.gz) gzip -dc "$f" >"$w/ch.txt" ;; *) cp "$f" "$w/ch.txt" ;; esac
	head -c 20000 "$w/ch.txt" >"$out/codeheap/$b.head"
	for pat in "B L O C K" "S P A C E   U" "M E T H O D   A" "M E T H O D   N" \
		"F R E E" "U S E D" "Block types"; do
		n=$(grep -n "$pat" "$w/ch.txt" | head -1 | cut -d: -f1)
		[ -n "$n" ] || continue
		tail -n +$((n > 3 ? n - 3 : 1)) "$w/ch.txt" | head -c 12000 \
			>"$out/codeheap/$b.$(echo "$pat" | tr -d ' ')"
	done
done
# javacores: the small one whole; of the big ones, NATIVEMEMINFO through
# MEMINFO with the class segments thinned to 20, so that the JIT blocks
# after them are within reach of the fuzzer
cp fixtures/javacore/*.txt "$out/javacore/"
for f in fixtures/javacore/*.gz; do
	need "$f"
	gzip -dc "$f" >"$w/jc.txt"
	awk '/^1STSEGTYPE/{c=($0 ~ /Class Memory/);k=0} !(c && /^1STSEGMENT/ && ++k>20)' \
		"$w/jc.txt" |
		sed -n '/^0SECTION       NATIVEMEMINFO/,/^0SECTION       LOCKS/p' \
			>"$out/javacore/$(basename "$f" .gz).mem"
done
