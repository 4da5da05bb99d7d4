#!/bin/sh
# heapsift export --format=svg as a picture to paste into a ticket, held
# to outside sources: xmllint reads it; the JDK's `jfr` gives the total it
# must say (the weights of jdk.ObjectAllocationSample summed, the events
# counted); headless Chromium draws it and runs tests/export/flame_check.js
# in a page that holds it (labels inside their frames by the browser's
# own measure, search and its share summed from the geometry, zoom and
# reset); and the labels are checked by arithmetic on the file alone, as
# a viewer without scripts shows them.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/export/chromium.sh"
F="$HS_FIXTURES/jfr"
W="$T/work"
REC="$F/jdk17-profile-tlab.jfr"

"$HEAPSIFT" import -o "$W/c.hsdb" "$REC" >/dev/null 2>&1

t_begin svg_is_valid_xml_and_names_what_it_shows
run export "$W/c.hsdb" --format=svg --kind alloc --estimate=jfr -o "$W/flame.svg"
expect_rc 0
if ! command -v xmllint >/dev/null 2>&1; then
	t_skip "no xmllint (apt-get install libxml2-utils)"
else
	xmllint --noout "$W/flame.svg" 2>"$W/xml.err" || t_fail "xmllint: $(head -3 "$W/xml.err")"
	title=$(xmllint --xpath 'string(/*[local-name()="svg"]/*[local-name()="title"])' "$W/flame.svg")
	case $title in
	*jdk.ObjectAllocationSample*bytes*) ;;
	*) t_fail "the <title> is '$title'" ;;
	esac
	t_end
fi

# The labels as a viewer without scripts shows them (an <img>, a ticket's
# preview): in a monospaced font of 12 px a character is 0.6 em, 7.2 px,
# so a label of N characters (one wide character counting two) is at
# most 7.2 N px, and must leave 3 px on each side of its frame.  A name
# that does not fit loses its package (java.util.HashMap.resize:69 is
# HashMap.resize:69), and then what is cut short ends in an ellipsis; a
# name that fits is whole; a frame of 30 px or more has a label.
t_begin svg_labels_fit_their_frames_without_a_browser
python3 - "$W/flame.svg" <<'PY' || t_fail "labels: see above"
import sys, unicodedata
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
style = "".join(e.text or "" for e in root.iter(ns + "style"))
if "12px monospace" not in style:
    sys.exit("  the frames' font is not 12px monospace: %s" % style[:200])
bad, n, cut = [], 0, 0
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
for g in root.iter(ns + "g"):
    if "fr" not in (g.get("class") or "").split():
        continue
    name = g.find(ns + "title").text.split("\n")[0]
    w = float(g.find(ns + "rect").get("width"))
    t = g.find(ns + "text").text or ""
    if t:
        n += 1
    if t and cols(t) * 7.2 > w - 6 + 1e-6:
        bad.append("%r in %.2f px" % (t, w))
    # the name without its package: the class's simple name on
    short = name
    head, sep, line = name.partition(":")
    if head.count(".") >= 2:
        short = ".".join(head.split(".")[-2:]) + sep + line
    if t.endswith("\u2026"):
        cut += 1
        if not short.startswith(t[:-1]):
            bad.append("%r is not the start of %r" % (t, short))
    elif t and t not in (name, short):
        bad.append("%r is not %r" % (t, name))
    if t != name and cols(name) * 7.6 <= w - 6:
        bad.append("%r cut though %r fits in %.2f px" % (t, name, w))
    if w >= 30 and not t:
        bad.append("no label in %.2f px for %r" % (w, name))
if bad:
    sys.exit("  " + "\n  ".join(bad[:5]))
if n < 10 or not cut:
    sys.exit("  %d labels, %d cut" % (n, cut))
PY
t_end

t_begin svg_in_chromium_total_labels_search_zoom
if ! have_chromium; then
	t_skip "$NOCHROME"
elif ! command -v jfr >/dev/null 2>&1; then
	t_skip "no jfr (a JDK's bin/jfr)"
else
	# the expected total, from the JDK's own reader
	jfr print --json --events jdk.ObjectAllocationSample "$REC" >"$W/events.json" ||
		t_fail "jfr print failed"
	python3 - "$W/events.json" "$(basename "$REC")" >"$W/expect.js" <<'PY' || t_fail "jfr's events"
import json, sys
ev = json.load(open(sys.argv[1]))["recording"]["events"]
print("var EXPECT = %s;" % json.dumps({
    "kind": "jdk.ObjectAllocationSample",
    "bytes": sum(e["values"]["weight"] for e in ev),
    "samples": len(ev),
    "recording": sys.argv[2],
    "pattern": "^java\\.",
}))
PY
	{
		printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n<script>'
		cat "$W/expect.js"
		printf '</script>\n'
		sed 1d "$W/flame.svg" # the XML declaration has no place in HTML
		printf '<pre id="out"></pre>\n<script>'
		cat "$HERE/export/flame_check.js"
		printf '</script>\n</body></html>\n'
	} >"$W/page.html"
	chrome_checks "$W/page.html" out "$W/flame_checks.txt"
	t_end
fi

# the picture itself, at its own width, with what a reader needs on it:
# a screenshot that is not blank, written where EXPORT_SCREENSHOTS says
# for a person to look at
t_begin svg_screenshot_at_the_default_width
if ! have_chromium; then
	t_skip "$NOCHROME"
else
	h=$(xmllint --xpath 'string(/*[local-name()="svg"]/@viewBox)' "$W/flame.svg" | awk '{print $4}')
	chrome_picture "file://$W/flame.svg" "$W/flame.png" 1200 "$h" 8000
	t_end
fi

t_summary
