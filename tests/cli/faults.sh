#!/bin/sh
# Faults and concurrency (issue 16): a full disk under import, --append,
# export, report and the cache store (a small tmpfs; skipped visibly
# where mounting is not allowed), a read-only file system, a folder the
# user cannot write (setpriv to nobody), /dev/full, low ulimit -n and -v,
# two writers of one store at once (docs/formats/store.md, "Writers take
# turns"), readers while the store is replaced, SIGKILL at random moments
# of import and --append, and what may be planted in the cache folder.
# Every failure must be exit status 1 with a message naming the file,
# never a crash, never a changed old store, never a temporary file left.
# Sample counts come from the fixtures' expected.json (the JDK's jfr):
# jdk17-default 2188 ObjectAllocationSample + 120 OldObjectSample = 2308,
# jdk17-leak-gcroots 7899 + 290 OutsideTLAB + 85 OldObjectSample = 8274,
# jdk17-multichunk 2492 + 244 = 2736.
. "$(dirname "$0")/lib.sh"
F=$HS_FIXTURES/jfr
W=$T/work
A=$F/jdk17-leak-gcroots.jfr
B=$F/jdk17-default.jfr
C=$F/jdk17-multichunk.jfr
NA=8274 NB=2308 NC=2736

MOUNTS=$T/mounts
: >"$MOUNTS"
TMUX_F="tmux -L hs-faults-$$ -f /dev/null"
faults_cleanup() {
	$TMUX_F kill-server >/dev/null 2>&1
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done <"$MOUNTS"
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
	nobody_dir_done
}
trap faults_cleanup EXIT INT TERM

# tmpfs_at DIR KIB: a tmpfs of KIB KiB at DIR (made); fails where
# mounting is not allowed (not root, no CAP_SYS_ADMIN, a container)
tmpfs_at() {
	mkdir -p "$1" &&
		mount -t tmpfs -o "size=${2}k,mode=0755" tmpfs "$1" 2>/dev/null &&
		echo "$1" >>"$MOUNTS"
}
unmount() { umount "$1" && rmdir "$1"; }
can_mount=0
if tmpfs_at "$T/probe" 64; then
	can_mount=1
	unmount "$T/probe"
fi
NO_MOUNT="cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)"

# fill DIR KIB: fill the file system of DIR, then free KIB KiB of it
fill() {
	dd if=/dev/zero of="$1/fill" bs=4096 2>/dev/null
	[ "$2" -gt 0 ] && truncate -s "-${2}K" "$1/fill"
	return 0
}
# left DIR: the names in DIR, one line, sorted
left() { (cd "$1" && ls -A | LC_ALL=C sort | tr '\n' ' '); }
# no_crash WHAT: the last run ended by exit, with 0, 1, 2 or 3
no_crash() {
	case $rc in
	0 | 1 | 2 | 3) ;;
	*) t_fail "$1: exit status $rc (a crash?); stderr: $(printf '%s' "$err" | head -c 300)" ;;
	esac
	case $err in
	*BUG* | *Segmentation* | *Aborted* | *sanitizer*)
		t_fail "$1: $(printf '%s' "$err" | head -c 300)"
		;;
	esac
}
# samples STORE: the sample count info --check gives, after checking
samples() {
	run info --check "$1"
	printf '%s\n' "$out" | sed -n 's/^store .*: [0-9]* recordings\{0,1\}, \([0-9]*\) samples, every section verified$/\1/p'
}

run import -o "$W/b.hsdb" "$B"
run import -o "$W/a.hsdb" "$A"
[ "$(samples "$W/b.hsdb")" = $NB ] || {
	echo "FAIL setup: the jdk17-default store does not hold $NB samples"
	echo "0 passed, 1 failed"
	exit 1
}

# --- 1. a full disk -------------------------------------------------------------

t_begin full_disk_import_and_append_keep_the_old_store
if [ $can_mount = 0 ]; then
	t_skip "$NO_MOUNT"
else
	D=$W/full
	n=0
	# the free room left decides where the writing fails: the spill
	# file, the store's temporary file, the rollups' spill, the fsync
	for room in 0 8 32 128 256 512; do
		for mode in "" --append; do
			tmpfs_at "$D" 4096 || t_fail "cannot mount $D"
			cp "$W/b.hsdb" "$D/S.hsdb"
			fill "$D" $room
			# shellcheck disable=SC2086
			run import $mode -o "$D/S.hsdb" "$A" "$C"
			n=$((n + 1))
			no_crash "import $mode with $room KiB free"
			expect_rc 1
			expect_err "$D/S.hsdb"
			expect_err "no space left on device"
			cmp -s "$D/S.hsdb" "$W/b.hsdb" ||
				t_fail "import $mode with $room KiB free changed the old store"
			[ "$(left "$D")" = "S.hsdb fill " ] ||
				t_fail "import $mode with $room KiB free left: $(left "$D")"
			unmount "$D"
		done
	done
	# and with room enough the same mount takes it: the failures were
	# the disk's
	tmpfs_at "$D" 4096
	cp "$W/b.hsdb" "$D/S.hsdb"
	run import --append -o "$D/S.hsdb" "$A"
	expect_rc 0
	[ "$(samples "$D/S.hsdb")" = $((NB + NA)) ] || t_fail "with room: not $((NB + NA)) samples: $out"
	unmount "$D"
	echo "  ($n imports on a full disk)"
	t_end
fi

t_begin full_disk_export_and_report_leave_no_temporary_file
if [ $can_mount = 0 ]; then
	t_skip "$NO_MOUNT"
else
	D=$W/full
	n=0
	for room in 0 16 64; do
		for args in "--format=csv -o $D/csv" \
			"--format=csv --layout=fleet -o $D/fleet" \
			"--format=pprof -o $D/x.pb.gz" "--format=folded -o $D/x.folded" \
			"--format=speedscope -o $D/x.json" "--format=svg -o $D/x.svg"; do
			tmpfs_at "$D" 1024 || t_fail "cannot mount $D"
			fill "$D" $room
			# shellcheck disable=SC2086
			run export "$W/a.hsdb" $args
			n=$((n + 1))
			no_crash "export $args, $room KiB free"
			# a small file may fit in 16 KiB; nothing fits in 0
			if [ $room = 0 ] || [ $rc != 0 ]; then
				expect_rc 1
				expect_err "$D/"
				expect_err "no space left on device"
			fi
			tmps=$(find "$D" -name '.*' | head -n 3)
			[ -z "$tmps" ] || t_fail "export $args, $room KiB free, left $tmps"
			unmount "$D"
		done
		tmpfs_at "$D" 1024
		fill "$D" $room
		run report "$W/a.hsdb" --format=html -o "$D/r.html"
		n=$((n + 1))
		no_crash "report, $room KiB free"
		if [ $room = 0 ] || [ $rc != 0 ]; then
			expect_rc 1
			expect_err "cannot write $D/r.html: no space left on device"
			[ "$(left "$D")" = "fill " ] || t_fail "report, $room KiB free, left: $(left "$D")"
		fi
		unmount "$D"
	done
	echo "  ($n exports and reports on a full disk)"
	t_end
fi

t_begin full_disk_cache_store_of_report_diff_and_browse
if [ $can_mount = 0 ]; then
	t_skip "$NO_MOUNT"
else
	D=$W/cache
	tmpfs_at "$D" 64
	export XDG_CACHE_HOME="$D"
	run report "$A"
	no_crash "report into a full cache"
	expect_rc 1
	expect_err "$D/heapsift/"
	expect_err "no space left on device"
	[ -z "$(left "$D/heapsift")" ] || t_fail "report left $(left "$D/heapsift")"
	# the report itself says why there is nothing, and its inventory
	# agrees: the member was read but not stored (issue 39: "Nothing
	# could be imported" beside a member marked imported)
	case $out in
	*"Nothing could be imported"*) t_fail "the report says nothing could be imported: $out" ;;
	esac
	printf '%s\n' "$out" | grep -q "^Nothing was stored, so there is nothing to judge: the cache store $D/heapsift/.*no space left on device" ||
		t_fail "the report does not say the cache store could not be written: $out"
	printf '%s\n' "$out" | grep -q " imported  *$A\$" && t_fail "the inventory marks $A imported: $out"
	run report --format=json "$A"
	expect_rc 1
	printf '%s\n' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
m = r["inventory"]["members"]
assert [x["member"] for x in m] == [sys.argv[1]], m
assert m[0]["status"] == "error" and m[0]["recordings"] == 0, m
assert "no space left on device" in m[0]["reason"], m
assert r["store"] is None and not r["findings"], r["store"]
' "$A" 2>"$W/bad" || t_fail "the JSON report: $(cat "$W/bad")"
	[ -z "$(left "$D/heapsift")" ] || t_fail "report left $(left "$D/heapsift")"
	run diff "$A" "$B"
	no_crash "diff into a full cache"
	expect_rc 1
	expect_err "no space left on device"
	# what the failed diff may keep: the first cache store, which fit
	for x in $(left "$D/heapsift"); do
		case $x in
		*.hsdb) run info --check "$D/heapsift/$x" && expect_rc 0 ;;
		*) t_fail "diff left $x" ;;
		esac
	done
	rm -f "$D/heapsift"/*
	unset XDG_CACHE_HOME
	if command -v tmux >/dev/null 2>&1; then
		# browse imports before it draws: a terminal, then the error
		$TMUX_F new-session -d -x 80 -y 24 \
			"cd '$T/cwd' && env -i PATH='$PATH' HOME='$T/home' \
			XDG_CACHE_HOME='$D' TMPDIR='$T/tmp' TERM=screen \
			'$HEAPSIFT' browse '$A' 2>'$W/browse.err'; \
			echo \$? >'$W/browse.rc'"
		i=0
		while [ ! -s "$W/browse.rc" ] && [ $i -lt 1000 ]; do
			sleep 0.02
			i=$((i + 1))
		done
		[ "$(cat "$W/browse.rc" 2>/dev/null)" = 1 ] ||
			t_fail "browse into a full cache: exit $(cat "$W/browse.rc" 2>/dev/null)"
		grep -q "no space left on device" "$W/browse.err" ||
			t_fail "browse into a full cache: $(cat "$W/browse.err")"
		[ -z "$(left "$D/heapsift")" ] || t_fail "browse left $(left "$D/heapsift")"
		$TMUX_F kill-server >/dev/null 2>&1
	else
		echo "  (no tmux: browse into a full cache not tried)"
	fi
	unmount "$D"
	t_end
fi

# --- 2. other write failures -------------------------------------------------------

t_begin read_only_file_system_is_a_clear_error
if [ $can_mount = 0 ]; then
	t_skip "$NO_MOUNT"
else
	D=$W/ro
	tmpfs_at "$D" 2048
	cp "$W/b.hsdb" "$D/S.hsdb"
	mount -o remount,ro "$D" || t_fail "cannot remount $D read-only"
	for mode in "" --append; do
		# shellcheck disable=SC2086
		run import $mode -o "$D/S.hsdb" "$A"
		no_crash "import $mode on a read-only file system"
		expect_rc 1
		expect_err "$D/S.hsdb"
		expect_err "Read-only file system"
	done
	cmp -s "$D/S.hsdb" "$W/b.hsdb" || t_fail "the store on the read-only mount changed"
	run import -o "$D/new.hsdb" "$A"
	expect_rc 1
	expect_err "$D/new.hsdb"
	expect_err "Read-only file system"
	run export "$D/S.hsdb" --format=csv -o "$D/csv"
	no_crash "export csv into a read-only folder"
	expect_rc 1
	expect_err "$D/csv"
	run export "$D/S.hsdb" --format=pprof -o "$D/x.pb.gz"
	expect_rc 1
	expect_err "cannot write $D/x.pb.gz: Read-only file system"
	run report "$D/S.hsdb" -o "$D/r.txt"
	expect_rc 1
	expect_err "cannot write $D/r.txt: Read-only file system"
	export XDG_CACHE_HOME="$D"
	run report "$A"
	expect_rc 1
	expect_err "cannot make the cache folder $D/heapsift: Read-only file system"
	unset XDG_CACHE_HOME
	[ "$(left "$D")" = "S.hsdb " ] || t_fail "left on the read-only mount: $(left "$D")"
	umount "$D" && rmdir "$D"
	t_end
fi

t_begin a_folder_the_user_cannot_write
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	t_skip "needs root and setpriv to run as nobody"
elif ! nobody_dir; then
	t_skip "$nobody_why"
else
	# nobody runs a copy of the binary, in a folder of its own that it
	# can reach (nobody_dir): the clone, and $T, may be closed to it.
	# It can read the fixture and the store there, but not write into D
	# (root's, 0755): chmod alone would not stop root
	N=$NOBODY_DIR
	D=$N/rootonly
	mkdir -p "$D"
	chmod 0755 "$D"
	cp "$W/b.hsdb" "$D/S.hsdb"
	cp "$A" "$N/a.jfr"
	chmod 0644 "$D/S.hsdb" "$N/a.jfr"
	nob() {
		(cd "$N" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env TMPDIR="$D" LC_ALL=C "$N/heapsift" "$@" >"$T/out" 2>"$T/err" </dev/null)
		rc=$?
		err=$(cat "$T/err")
	}
	for mode in "" --append; do
		# shellcheck disable=SC2086
		nob import $mode -o "$D/S.hsdb" "$N/a.jfr"
		no_crash "import $mode as nobody"
		expect_rc 1
		expect_err "$D/S.hsdb"
		expect_err "Permission denied"
	done
	cmp -s "$D/S.hsdb" "$W/b.hsdb" || t_fail "nobody changed the store"
	nob export "$D/S.hsdb" --format=csv -o "$D/csv"
	expect_rc 1
	expect_err "$D/csv"
	expect_err "Permission denied"
	nob export "$D/S.hsdb" --format=folded -o "$D/x.folded"
	expect_rc 1
	expect_err "cannot write $D/x.folded: Permission denied"
	[ "$(left "$D")" = "S.hsdb " ] || t_fail "left: $(left "$D")"
	nobody_dir_done
	t_end
fi

t_begin output_a_folder_or_a_device_and_standard_output_on_dev_full
mkdir -p "$W/dir"
run import -o "$W/dir" "$A"
expect_rc 1
expect_err "is a folder"
run export "$W/b.hsdb" --format=folded -o "$W/dir"
expect_rc 1
expect_err "$W/dir is a folder"
run report "$W/b.hsdb" -o "$W/dir"
expect_rc 1
expect_err "$W/dir is a folder"
run export "$W/b.hsdb" --format=pprof -o /dev/full
expect_rc 1
expect_err "/dev/full is a device"
run export "$W/b.hsdb" --format=csv -o /dev/full
expect_rc 1
expect_err "/dev/full is a device"
[ -d "$W/dir" ] && [ -z "$(left "$W/dir")" ] || t_fail "the folder was changed"
# every command that prints, with standard output on /dev/full: exit 1
# and the reason, never a silent loss
n=0
for cmd in "info $W/b.hsdb" "info --check $W/b.hsdb" "top $W/b.hsdb" \
	"top --csv $W/b.hsdb" "tree $W/b.hsdb" "timeline $W/b.hsdb" \
	"survivors $W/b.hsdb" "diff $W/b.hsdb $W/a.hsdb" "report $W/b.hsdb" \
	"report --format=json $W/b.hsdb" "export $W/b.hsdb --format=folded" \
	"export $W/b.hsdb --format=pprof" "export $W/b.hsdb --format=speedscope" \
	"export $W/b.hsdb --format=svg" "scan $A" "dump $A" "dump --stats $A"; do
	# shellcheck disable=SC2086
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" $cmd >/dev/full 2>"$T/err" </dev/null)
	rc=$?
	err=$(cat "$T/err")
	n=$((n + 1))
	no_crash "$cmd >/dev/full"
	[ $rc = 1 ] || t_fail "$cmd >/dev/full: exit $rc, want 1"
	printf '%s\n' "$err" | grep -q "no space left on device" ||
		t_fail "$cmd >/dev/full: stderr: $(printf '%s' "$err" | head -c 200)"
done
echo "  ($n commands onto /dev/full)"
rm -rf "$W/dir"
t_end

# ulimit -n N: so few descriptors that something cannot be opened (the
# input, the lock, the spill file, the temporary store): exit 1 with an
# error, the old store intact, or the work done
t_begin few_file_descriptors
n=0 failed=0
D=$W/fd
mkdir -p "$D"
# the fewest the dynamic loader starts the program with (it opens the
# shared libraries), and up from there
kmin=3
while [ $kmin -lt 16 ] && ! (ulimit -n $kmin && exec "$HEAPSIFT" --version) >/dev/null 2>&1; do
	kmin=$((kmin + 1))
done
for k in $(seq $kmin $((kmin + 8))); do
	for cmd in import append export info top report; do
		cp "$W/b.hsdb" "$D/S.hsdb"
		case $cmd in
		import) set -- import -o "$D/S.hsdb" "$A" ;;
		append) set -- import --append -o "$D/S.hsdb" "$A" ;;
		export) set -- export "$D/S.hsdb" --format=csv -o "$D/csv" --force ;;
		info) set -- info --check "$D/S.hsdb" ;;
		top) set -- top "$D/S.hsdb" --by site ;;
		report) set -- report "$A" ;;
		esac
		# the redirections outside: dash moves descriptors above 9
		# to redirect, which ulimit -n forbids
		rm -f "$T/err"
		(cd "$T/cwd" && ulimit -n $k && exec env XDG_CACHE_HOME="$D/cache" \
			TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" "$@") \
			>"$T/out" 2>"$T/err" </dev/null
		rc=$?
		err=$(cat "$T/err")
		n=$((n + 1))
		no_crash "$cmd with ulimit -n $k"
		if [ $rc = 1 ]; then
			failed=$((failed + 1))
			printf '%s\n' "$err" | grep -q "error" ||
				t_fail "$cmd with ulimit -n $k: exit 1 without an error: $err"
		fi
		case $cmd in
		import | append)
			if [ $rc = 0 ]; then
				want=$NA
				[ $cmd = append ] && want=$((NA + NB))
				[ "$(samples "$D/S.hsdb")" = $want ] ||
					t_fail "$cmd with ulimit -n $k: exit 0 but not $want samples"
			else
				cmp -s "$D/S.hsdb" "$W/b.hsdb" ||
					t_fail "$cmd with ulimit -n $k: exit $rc and the store changed"
			fi
			;;
		esac
		stray=$(cd "$D" && ls -A | grep -v -x -e S.hsdb -e csv -e cache)
		[ -z "$stray" ] || t_fail "$cmd with ulimit -n $k left $stray"
		rm -rf "$D/cache"
	done
done
[ $failed -gt 0 ] || t_fail "no command failed even with $kmin descriptors: nothing was tested"
echo "  ($n runs with $kmin to $((kmin + 8)) descriptors, $failed of them out of descriptors)"
rm -rf "$D"
t_end

# ulimit -v V: out of memory at a point that moves with V, from the least
# the program loads with up: exit 1 with "out of memory", nothing left
t_begin little_memory
# ulimit -v, under which the sanitizers' shadow memory cannot start: in
# a sanitized build (make check) their allocator fails every allocation
# above a size instead, as malloc fails when memory runs out, which takes
# heapsift down the same path
D=$W/mem
mkdir -p "$D"
n=0 oom=0
# limited CMD...: heapsift CMD under the limit $v (KiB of address space,
# or MB of the largest allocation when sanitized); sets rc and err
limited() {
	if [ -n "${HS_SANITIZED:-}" ]; then
		(cd "$T/cwd" && exec env TMPDIR="$T/tmp" LC_ALL=C \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=$v" \
			"$HEAPSIFT" "$@") >"$T/out" 2>"$T/err" </dev/null
	else
		(cd "$T/cwd" && ulimit -v $v && exec env TMPDIR="$T/tmp" \
			LC_ALL=C "$HEAPSIFT" "$@") >"$T/out" 2>"$T/err" </dev/null
	fi
	rc=$?
	err=$(cat "$T/err")
}
if [ -n "${HS_SANITIZED:-}" ]; then
	limits=" 1 2 4 8 16 32 64"
	unit=MB
else
	base=0
	for v in 8000 16000 24000 32000 40000 48000 56000 64000 80000 100000 150000; do
		if (ulimit -v $v && exec "$HEAPSIFT" --version) >/dev/null 2>&1; then
			base=$v
			break
		fi
	done
	[ $base = 0 ] && t_fail "heapsift --version does not start even with 150 MB"
	limits=
	v=$base
	while [ $base != 0 ] && [ $v -le $((base + 48000)) ]; do
		limits="$limits $v"
		v=$((v + 3000))
	done
	unit=KiB
fi
for v in $limits; do
	for cmd in import append export report; do
		cp "$W/b.hsdb" "$D/S.hsdb"
		case $cmd in
		import) set -- import -o "$D/S.hsdb" "$C" "$A" ;;
		append) set -- import --append -o "$D/S.hsdb" "$C" ;;
		export) set -- export "$W/a.hsdb" --format=csv -o "$D/csv" --force ;;
		report) set -- report "$W/a.hsdb" ;;
		esac
		limited "$@"
		n=$((n + 1))
		no_crash "$cmd with a limit of $v $unit"
		if [ $rc = 1 ]; then
			case $err in
			*"out of memory"*) oom=$((oom + 1)) ;;
			*) t_fail "$cmd with a limit of $v $unit: exit 1, but: $err" ;;
			esac
			case $cmd in
			import | append)
				cmp -s "$D/S.hsdb" "$W/b.hsdb" ||
					t_fail "$cmd with a limit of $v $unit: the store changed"
				;;
			esac
		fi
		stray=$(cd "$D" && ls -A | grep -v -x -e S.hsdb -e csv)
		[ -z "$stray" ] || t_fail "$cmd with a limit of $v $unit left $stray"
		stray=$(find "$D/csv" -name '.*' 2>/dev/null | head -n 3)
		[ -z "$stray" ] || t_fail "$cmd with a limit of $v $unit left $stray"
	done
done
[ $oom -gt 0 ] || t_fail "no run ran out of memory under limits of$limits $unit: nothing was tested"
echo "  ($n runs under limits of$limits $unit, $oom out of memory)"
rm -rf "$D"
t_end

# --- 3. two writers --------------------------------------------------------------

# The first --append reads its input from a fifo, so it holds the store's
# lock until the test writes the recording into the fifo; the second,
# started meanwhile, must wait, say so, and then add its recording to the
# first's store.  Without the lock the second would finish first and the
# first's rename would drop its recording (the lost update).
t_begin two_appends_at_once_keep_both_recordings
D=$W/two
mkdir -p "$D"
cp "$W/b.hsdb" "$D/S.hsdb"
mkfifo "$D/in.jfr"
(cd "$T/cwd" && TMPDIR="$T/tmp" exec "$HEAPSIFT" import --append -o "$D/S.hsdb" "$D/in.jfr" \
	>"$D/1.out" 2>"$D/1.err" </dev/null) &
p1=$!
# the first holds the lock (flock(1) cannot take it) before the second
# starts
i=0
while flock -n "$D/S.hsdb" true && [ $i -lt 500 ]; do
	sleep 0.02
	i=$((i + 1))
done
(cd "$T/cwd" && TMPDIR="$T/tmp" exec "$HEAPSIFT" import --append -o "$D/S.hsdb" "$A" \
	>"$D/2.out" 2>"$D/2.err" </dev/null) &
p2=$!
i=0
while ! grep -q "waiting for another heapsift writing $D/S.hsdb" "$D/2.err" 2>/dev/null && [ $i -lt 500 ]; do
	sleep 0.02
	i=$((i + 1))
done
grep -q "waiting for another heapsift writing $D/S.hsdb" "$D/2.err" ||
	t_fail "the second writer did not say it waits: $(cat "$D/2.err")"
kill -0 $p2 2>/dev/null || t_fail "the second writer did not wait"
cmp -s "$D/S.hsdb" "$W/b.hsdb" || t_fail "the store changed while both waited"
cat "$C" >"$D/in.jfr"
wait $p1
rc1=$?
wait $p2
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] || t_fail "exit $rc1 and $rc2: $(cat "$D/1.err" "$D/2.err")"
[ "$(samples "$D/S.hsdb")" = $((NB + NC + NA)) ] ||
	t_fail "not $((NB + NC + NA)) samples after both: $out"
run info "$D/S.hsdb"
for r in "$B" "$D/in.jfr" "$A"; do
	printf '%s\n' "$out" | grep -q "^recording [0-2]: $r\$" || t_fail "recording $r lost: $out"
done
rm -rf "$D"
t_end

# Two plain imports at once, several times: each ends whole (exit 0),
# the store is one of the two, checked; and so are two --appends racing
# freely (no fifo), which must end with both.
t_begin writers_racing_freely
D=$W/race
mkdir -p "$D"
n=0
while [ $n -lt 6 ]; do
	rm -f "$D/S.hsdb"
	run_bg() {
		(cd "$T/cwd" && TMPDIR="$T/tmp" exec "$HEAPSIFT" "$@" >/dev/null 2>&1 </dev/null)
	}
	run_bg import -o "$D/S.hsdb" "$A" &
	p1=$!
	run_bg import -o "$D/S.hsdb" "$B" &
	p2=$!
	wait $p1 || t_fail "import A exit $?"
	wait $p2 || t_fail "import B exit $?"
	got=$(samples "$D/S.hsdb")
	[ "$got" = $NA ] || [ "$got" = $NB ] || t_fail "two imports: $got samples, neither $NA nor $NB: $err"
	cp "$W/b.hsdb" "$D/S.hsdb"
	run_bg import --append -o "$D/S.hsdb" "$A" &
	p1=$!
	run_bg import --append -o "$D/S.hsdb" "$C" &
	p2=$!
	wait $p1 || t_fail "append A exit $?"
	wait $p2 || t_fail "append C exit $?"
	[ "$(samples "$D/S.hsdb")" = $((NB + NA + NC)) ] ||
		t_fail "two appends racing: not $((NB + NA + NC)) samples: $out $err"
	n=$((n + 1))
done
[ -z "$(cd "$D" && ls -A | grep -v -x S.hsdb)" ] || t_fail "left: $(left "$D")"
rm -rf "$D"
t_end

# Readers while the store is replaced over and over: every info --check
# and top must see a whole store, the old one or the new one.
t_begin readers_see_a_whole_store_while_it_is_replaced
D=$W/readers
mkdir -p "$D"
cp "$W/b.hsdb" "$D/S.hsdb"
(
	i=0
	while [ $i -lt 12 ]; do
		"$HEAPSIFT" import -o "$D/S.hsdb" "$A" >/dev/null 2>&1
		"$HEAPSIFT" import -o "$D/S.hsdb" "$B" >/dev/null 2>&1
		i=$((i + 1))
	done
) &
pw=$!
reads=0 olds=0 news=0
while kill -0 $pw 2>/dev/null; do
	got=$(samples "$D/S.hsdb")
	reads=$((reads + 1))
	case $got in
	"$NA") news=$((news + 1)) ;;
	"$NB") olds=$((olds + 1)) ;;
	*) t_fail "a reader saw $got samples (exit $rc): $err" ;;
	esac
done
wait $pw
[ $reads -gt 0 ] || t_fail "no read while the store was replaced"
echo "  ($reads reads while 24 imports replaced the store: $olds of one, $news of the other)"
rm -rf "$D"
t_end

# --- 4. SIGKILL at random moments --------------------------------------------------

# 50 imports and 50 --appends, each killed after a random delay from 0
# to 1.2 times the whole run's time: the store is always the old one or
# the new one, and info --check passes.  A temporary file the kill left
# is allowed (docs/formats/store.md) and counted.
t_begin killed_100_times_old_or_new
D=$W/kill
mkdir -p "$D"
seed=${HS_SEED:-$(date +%s)}
killed=0 olds=0 news=0 temps=0 runs=0
for mode in import append; do
	if [ $mode = import ]; then
		set -- import -o "$D/S.hsdb" "$A"
		want_new=$NA
	else
		set -- import --append -o "$D/S.hsdb" "$A"
		want_new=$((NB + NA))
	fi
	cp "$W/b.hsdb" "$D/S.hsdb"
	t0=$(date +%s%N)
	(cd "$T/cwd" && TMPDIR="$T/tmp" exec "$HEAPSIFT" "$@" >/dev/null 2>&1 </dev/null)
	t1=$(date +%s%N)
	case "$t0$t1" in
	*N*) took=100 ;;
	*) took=$(((t1 - t0) / 1000000)) ;;
	esac
	[ "$took" -ge 5 ] || took=5
	[ "$(samples "$D/S.hsdb")" = $want_new ] || t_fail "$mode: the whole run did not give $want_new samples"
	delays=$(awk -v s="$seed" -v m="$mode" -v ms="$took" 'BEGIN {
		srand(s + (m == "append"))
		for (i = 0; i < 50; i++) printf "%.4f\n", rand() * ms * 1.2 / 1000 }')
	for d in $delays; do
		cp "$W/b.hsdb" "$D/S.hsdb"
		(cd "$T/cwd" && TMPDIR="$T/tmp" exec "$HEAPSIFT" "$@" >/dev/null 2>&1 </dev/null) &
		pid=$!
		sleep "$d"
		kill -KILL $pid 2>/dev/null
		{ wait $pid; } 2>/dev/null
		[ $? = 137 ] && killed=$((killed + 1))
		runs=$((runs + 1))
		got=$(samples "$D/S.hsdb")
		[ "$rc" = 0 ] || t_fail "$mode killed at $d s (seed $seed): info --check exit $rc: $err"
		case $got in
		"$NB") olds=$((olds + 1)) ;;
		"$want_new") news=$((news + 1)) ;;
		*) t_fail "$mode killed at $d s (seed $seed): $got samples, neither $NB nor $want_new" ;;
		esac
		for x in "$D"/* "$D"/.[!.]*; do
			[ -e "$x" ] || continue
			case "${x#"$D"/}" in
			S.hsdb) ;;
			.S.hsdb.tmp"$pid".*)
				temps=$((temps + 1))
				rm -f "$x"
				;;
			*) t_fail "$mode killed at $d s: unexpected file ${x#"$D"/}" ;;
			esac
		done
	done
done
[ $runs = 100 ] || t_fail "$runs runs, not 100"
[ $killed -ge 20 ] || t_fail "only $killed of $runs runs were killed before they ended (seed $seed)"
echo "  (seed $seed: $killed of $runs runs killed; old store $olds times, new $news; $temps temporary files left by kills)"
rm -rf "$D"
t_end

# --- 5. the cache store ---------------------------------------------------------

# What someone may put where browse, report and diff keep their cache
# stores: each is refused with an error naming it (exit 1), never
# followed, replaced or trusted; a file of ours that is no store is
# imported again.  The cache store's path is found from the folder
# (there is one cache store per set of inputs).
t_begin cache_folder_and_files_that_are_not_safe
D=$W/xdg
export XDG_CACHE_HOME="$D"
run report "$A"
expect_rc 0
cs=$(ls "$D/heapsift"/*.hsdb 2>/dev/null)
[ -f "$cs" ] || t_fail "no cache store in $D/heapsift: $(left "$D/heapsift")"
[ "$(stat -c %a "$D/heapsift")" = 700 ] || t_fail "cache folder mode $(stat -c %a "$D/heapsift"), not 700"
mv "$cs" "$W/good-cache.hsdb"
# a planted symbolic link to a file of the user's: neither followed nor
# replaced (before, report's import replaced the file it pointed to)
printf 'precious\n' >"$W/victim"
for cmd in report diff; do
	rm -f "$cs" "$cs.inventory"
	ln -s "$W/victim" "$cs"
	if [ $cmd = diff ]; then
		run diff "$A" "$W/b.hsdb"
	else
		run report "$A"
	fi
	no_crash "$cmd with a planted link"
	expect_rc 1
	expect_err "the cache file $cs is a symbolic link"
	[ "$(cat "$W/victim")" = precious ] || t_fail "$cmd wrote through the planted link"
	[ -L "$cs" ] || t_fail "$cmd replaced the planted link"
done
rm -f "$cs"
# a link to a fifo would hang a reader: refused before it is opened
mkfifo "$W/fifo"
ln -s "$W/fifo" "$cs"
run report "$A"
expect_rc 1
expect_err "is a symbolic link"
rm -f "$cs"
mkfifo "$cs"
run report "$A"
expect_rc 1
expect_err "the cache file $cs is not a regular file"
rm -f "$cs" "$W/fifo"
# a cache store others may write, or another user's
cp "$W/good-cache.hsdb" "$cs"
chmod 0666 "$cs"
run report "$A"
expect_rc 1
expect_err "the cache file $cs can be written by others (mode 0666)"
chmod 0644 "$cs"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$cs"
	run report "$A"
	expect_rc 1
	expect_err "the cache file $cs belongs to user 65534"
	chown 0 "$cs"
fi
# the inventory beside it is held to the same rules
ln -s "$W/victim" "$cs.inventory"
run report "$A"
expect_rc 1
expect_err "the cache file $cs.inventory is a symbolic link"
rm -f "$cs.inventory"
# the cache folder: writable by others, another user's, a link
chmod 0777 "$D/heapsift"
run report "$A"
expect_rc 1
expect_err "the cache folder $D/heapsift can be written by others (mode 0777)"
run diff "$A" "$W/b.hsdb"
expect_rc 1
expect_err "the cache folder $D/heapsift can be written by others"
chmod 0700 "$D/heapsift"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$D/heapsift"
	run report "$A"
	expect_rc 1
	expect_err "the cache folder $D/heapsift belongs to user 65534"
	chown 0 "$D/heapsift"
fi
mv "$D/heapsift" "$D/real"
ln -s real "$D/heapsift"
run report "$A"
expect_rc 1
expect_err "the cache folder $D/heapsift is a symbolic link"
rm "$D/heapsift"
mv "$D/real" "$D/heapsift"
# none of the refusals wrote anything there
[ "$(left "$D/heapsift")" = "$(basename "$cs") $(basename "$cs").inventory " ] ||
	[ "$(left "$D/heapsift")" = "$(basename "$cs") " ] ||
	t_fail "the refusals left: $(left "$D/heapsift")"
t_end

# A cache store replaced by something hostile: garbage is imported again;
# a store whose bytes were flipped, or a forged store, is refused with an
# error naming the damage, or read as any store is: never a crash.
t_begin cache_store_replaced_by_a_hostile_one
D=$W/xdg
export XDG_CACHE_HOME="$D"
cs=$(ls "$D/heapsift"/*.hsdb 2>/dev/null)
printf 'not a store at all\n' >"$cs"
run report "$A"
no_crash "report over a garbage cache store"
expect_rc 0
[ "$(samples "$cs")" = $NA ] || t_fail "the garbage cache store was not made again: $out"
# bit flips in the cache store (at offsets from its size)
sz=$(size "$cs")
cp "$cs" "$W/cache-good"
n=0 refused=0
for at in 100 1000 5000 $((sz / 3)) $((sz / 2)) $((sz - 200)) $((sz - 8)); do
	cp "$W/cache-good" "$cs"
	printf '\377' | dd of="$cs" bs=1 seek=$at conv=notrunc 2>/dev/null
	cp "$cs" "$W/flipped"
	for cmd in report diff; do
		if [ $cmd = diff ]; then run diff "$A" "$W/b.hsdb"; else run report "$A"; fi
		n=$((n + 1))
		no_crash "$cmd over a cache store flipped at $at"
		[ $rc = 1 ] && refused=$((refused + 1))
		[ $rc = 1 ] && { printf '%s\n' "$err" | grep -q "damaged\|not a heapsift store\|store:" ||
			t_fail "$cmd over a cache store flipped at $at: exit 1 without naming the damage: $err"; }
	done
done
[ $refused -gt 0 ] || t_fail "no flipped cache store was refused"
# forged stores, valid checksums and hostile values (tests/jfr/forge_store.py)
here=$(cd "$(dirname "$0")/.." && pwd)
if python3 "$here/jfr/forge_store.py" "$W/cache-good" "$W/forged" >/dev/null 2>&1; then
	for f in "$W"/forged/*.hsdb; do
		cp "$f" "$cs"
		chmod 0644 "$cs"
		for cmd in report diff; do
			if [ $cmd = diff ]; then run diff "$A" "$W/b.hsdb"; else run report "$A"; fi
			n=$((n + 1))
			no_crash "$cmd over the forged cache store $(basename "$f")"
		done
	done
else
	t_fail "forge_store.py failed"
fi
unset XDG_CACHE_HOME
echo "  ($n runs over hostile cache stores, $refused refused with a message)"
t_end

t_summary
