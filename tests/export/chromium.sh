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
