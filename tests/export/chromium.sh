# Sourced (POSIX sh) by the suites that open heapsift's pictures in
# headless Chromium (tests/cli/flame_svg.sh, tests/cli/report_html.sh).
#
#   have_chromium          CHROME set to Debian's chromium, installed
#                          first where this runs as root with apt-get
#                          (build-aux/deps.sh ci installs it too); 1 when
#                          it cannot be had (then skip, visibly)
#   chrome_dom HTML OUT    the page's DOM after its scripts ran, dumped
#                          into OUT (--dump-dom, a virtual time budget so
#                          that fonts load and timers run); stderr in
#                          OUT.err
#   chrome_shot URL PNG W H  a screenshot of URL at a W x H window
NOCHROME="no chromium, and it cannot be installed here (apt-get install chromium)"
have_chromium() {
	CHROME=$(command -v chromium || command -v chromium-browser || true)
	if [ -z "$CHROME" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1
		CHROME=$(command -v chromium || command -v chromium-browser || true)
	fi
	[ -n "$CHROME" ]
}
# the flags every run shares: a profile and HOME of the suite's own, so
# that nothing is written outside $T
_chrome() {
	mkdir -p "$T/chrome-home"
	HOME="$T/chrome-home" timeout 120 "$CHROME" --headless=new --no-sandbox \
		--disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$T/chrome-home/profile" "$@"
}
chrome_dom() {
	_chrome --window-size=1400,1000 --virtual-time-budget=10000 \
		--dump-dom "file://$1" >"$2" 2>"$2.err"
}
chrome_shot() {
	_chrome --window-size="$3,$4" --screenshot="$2" "$1" \
		>/dev/null 2>"$2.err"
}
# chrome_picture URL PNG W H MIN: a screenshot of URL that no script
# error spoiled and that is not blank (a PNG of one colour compresses to
# far under MIN bytes); a failure of the current case otherwise; kept in
# $EXPORT_SCREENSHOTS where set, for a person to look at
chrome_picture() {
	chrome_shot "$1" "$2" "$3" "$4" || t_fail "chromium failed: $(tail -3 "$2.err")"
	grep -E 'Uncaught|Refused to' "$2.err" >"$2.console" &&
		t_fail "console: $(head -3 "$2.console")"
	[ "$(wc -c <"$2")" -gt "$5" ] || t_fail "screenshot of $(wc -c <"$2") bytes: blank?"
	[ -n "${EXPORT_SCREENSHOTS:-}" ] && cp "$2" "$EXPORT_SCREENSHOTS"/
	return 0
}
# chrome_checks PAGE ID OUT: run PAGE, whose script writes its checks
# ("ok ..." or "FAIL ...", then "end") into <pre id="ID">; the lines into
# OUT, and a failure of the current case for each FAIL line, or when
# the checks did not finish
chrome_checks() {
	chrome_dom "$1" "$3.dom" || t_fail "chromium failed: $(tail -3 "$3.dom.err")"
	sed -n '/<pre id="'"$2"'">/,/<\/pre>/p' "$3.dom" |
		sed 's/<[^>]*>//g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g' >"$3"
	grep -q '^end$' "$3" || t_fail "the checks did not finish: $(head -5 "$3")"
	while IFS= read -r _cc_line; do
		case $_cc_line in FAIL*) t_fail "$_cc_line" ;; esac
	done <"$3"
	[ -n "${EXPORT_SCREENSHOTS:-}" ] && cp "$3" "$EXPORT_SCREENSHOTS"/
	return 0
}
