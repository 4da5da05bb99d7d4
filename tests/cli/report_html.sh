#!/bin/sh
# heapsift report --format=html as a reader's browser shows it: headless
# Chromium at a 1400 px wide window runs tests/export/report_check.js in
# the page (nothing wider than the window, each table inside its box,
# the axes' ticks round values and round times, increasing, the flame
# graph as wide as its section), and takes a screenshot for a person to
# look at (written where EXPORT_SCREENSHOTS says).  The recordings lie
# in a folder with a long name, as a case's unpacked bundle does, so
# that the tables carry names with nowhere to break.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/export/chromium.sh"
F="$HS_FIXTURES/jfr"
W="$T/work"
LONG="$W/case00012345_customer_production_cluster_euwest1_node17_heapdumps_and_flightrecordings_collected_by_support_20261121T231647Z_please_keep_until_closed_0123456789"
mkdir -p "$LONG"
cp "$F/jdk17-profile-tlab.jfr" "$F/jdk17-leak-gcroots.jfr" "$LONG/"

# check PAGE: tests/export/report_check.js run in a copy of PAGE, a
# failure for each check that fails
check() {
	python3 - "$1" "$HERE/export/report_check.js" >"$W/page.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
js = open(sys.argv[2], encoding="utf-8").read()
i = page.rindex("</body>")
sys.stdout.write(page[:i] + '<pre id="hs-out"></pre>\n<script>' + js + "</script>\n" + page[i:])
PY
	chrome_checks "$W/page.html" hs-out "$W/report_checks.txt"
}

t_begin report_html_fits_1400px_with_round_axes
run report --format=html -o "$W/r.html" "$LONG/jdk17-profile-tlab.jfr" "$LONG/jdk17-leak-gcroots.jfr"
expect_rc 0
if ! have_chromium; then
	t_skip "$NOCHROME"
else
	check "$W/r.html"
	t_end
fi

# a store given: the appendix's table names the recordings by their
# long paths
t_begin report_html_of_a_store_fits_1400px
"$HEAPSIFT" import -o "$W/c.hsdb" "$LONG/jdk17-profile-tlab.jfr" "$LONG/jdk17-leak-gcroots.jfr" >/dev/null 2>&1
run report --format=html -o "$W/s.html" "$W/c.hsdb"
expect_rc 0
if ! have_chromium; then
	t_skip "$NOCHROME"
else
	check "$W/s.html"
	t_end
fi

t_begin report_html_screenshot_at_1400px
if ! have_chromium; then
	t_skip "$NOCHROME"
else
	chrome_picture "file://$W/r.html" "$W/report.png" 1400 6000 20000
	t_end
fi

t_summary
