#!/bin/sh
# The JVM's name is printed once: JDK 17 and later record jvmVersion as
# "OpenJDK 64-Bit Server VM (17.0.15+6-...) for linux-amd64 ...", which
# already begins with jvmName.  `dump --stats`, `info` and the browser's
# overview show the version as the JDK's own `jfr print` gives it, with no
# name before it.  Needs a JDK to make the recording.
. "$(dirname "$0")/lib.sh"

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 ||
	! command -v jfr >/dev/null 2>&1; then
	t_begin jvm_name_printed_once
	t_skip "no JDK (java, javac, jfr) on PATH"
	t_summary
fi

J=$T/work/jvm
mkdir -p "$J"
cat >"$J/Idle.java" <<'JAVA'
public class Idle {
	public static void main(String[] a) throws Exception { Thread.sleep(200); }
}
JAVA
(cd "$J" && javac Idle.java &&
	java -XX:StartFlightRecording:filename=idle.jfr,settings=default Idle) \
	>"$J/java.log" 2>&1

t_begin jvm_name_printed_once
if [ ! -s "$J/idle.jfr" ]; then
	t_fail "the JVM made no recording: $(tail -n 3 "$J/java.log")"
else
	# the truth: jdk.JVMInformation as the JDK reads it
	jfr print --events jdk.JVMInformation "$J/idle.jfr" >"$J/info.txt"
	name=$(sed -n 's/^ *jvmName = "\(.*\)"$/\1/p' "$J/info.txt" | head -n 1)
	version=$(sed -n 's/^ *jvmVersion = "\(.*\)"$/\1/p' "$J/info.txt" | head -n 1 |
		sed 's/\\"/"/g')
	case $version in
	"$name "*) ;;
	*) t_fail "jvmVersion '$version' does not begin with jvmName '$name': the case this test is for is gone" ;;
	esac
	run dump --stats "$J/idle.jfr"
	expect_rc 0
	first=$(printf '%s\n' "$out" | head -n 1)
	case $first in
	*", $version") ;;
	*) t_fail "dump --stats header does not end in ', $version': $first" ;;
	esac
	case $first in
	*"$name $name"*) t_fail "dump --stats prints the name twice: $first" ;;
	esac
	run import -o "$T/work/idle.hsdb" "$J/idle.jfr"
	expect_rc 0
	run info "$T/work/idle.hsdb"
	expect_rc 0
	expect_out_line "  jvm         $version"
fi
t_end
t_summary
