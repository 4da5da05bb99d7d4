#!/usr/bin/env python3
"""Names with Markdown's characters, for tests/cli/report_md.sh: the
inputs that carry them, and the check that a real renderer shows each
one as it was written.

usage: md_names.py make DIR
           DIR/case-77.tar.gz: a bundle whose members (under case-77/)
           are small JFR recordings (tests/jfr/make_jfr.py), each with
           its own member name, stack class and thread name from NAMES
           below; DIR/TITLE_FILE: one recording named so, for the title
       md_names.py check HTML MODE BUNDLE
           HTML is pandoc's rendering (-t html) of heapsift report
           --format=md over BUNDLE (the path as given), MODE "gfm" (-f
           gfm: pipe tables read as tables) or "commonmark" (-f
           commonmark: no tables; the table checks are left out)
       md_names.py check-title HTML MODE
           the same for the report over DIR/TITLE_FILE: its heading

Every name is written here by hand; what must come out is that name,
with a backslash shown as two (the one rule of docs/inputs.md, "Names on
a terminal", which every format of the report shares).  The sites are
CLASS.make:3 (make_jfr.py --class), every recording has one thread
(--thread) and three values that make every rule the checks read fire:
large-arrays (its evidence names the site at a list item's start),
allocation-hot-spot (its sentence begins with the site and names the
thread; its evidence names the thread) and the JVM line naming the
member.  Exit 0 when all agree, 1 with what differs on stderr.
"""
import html.parser
import io
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_JFR = os.path.join(HERE, "..", "jfr", "make_jfr.py")
VALUES = ["1000000", "2000000", "50000000"]

# (member under case-77/, the stack's class, the thread)
NAMES = [
    ("app-1.0.jfr", "com.example.App", "main"),
    ("a_b*c[d]e.jfr", "# Hash", "_under_"),
    ("p|q <x> &amp;.jfr", "Outer$Inner$1", "wo*rk_er"),
    ("x!.jfr", "1. First", "`tick` ``two``"),
    ("~~gone~~.jfr", "- Dash", "pipe|line <x> &amp; &#42; <!-- c -->"),
    ("[link](x).jfr", "> Quote", "# hash"),
    ("__init__.jfr", "+ Plus", "1. one"),
    ("![img](y).jfr", "*Star*", "**bold** ~~gone~~"),
    ("$HOME$.jfr", "_Priv_", "[link](x) ![img](y)"),
    ("back\\slash.jfr", "<T>Gen", "a\\b $HOME"),
    ("2) two.jfr", "~~~Fence", "> quote"),
    ("===.jfr", "2) Second", "---"),
]
TITLE_FILE = "x_y*z #"
# the only emphasis a report of these recordings has is its own
OWN_EM = {"It rests on few samples or GCs, and is ranked lower for it.",
          "Allocation rate"}
# what the renderer may make of the report; anything else (strong, del,
# a, img, blockquote, ol, h4, hr, raw HTML) came from a name
ALLOWED = {"h1", "h2", "h3", "p", "ul", "li", "table", "thead", "tbody",
           "tr", "th", "td", "code", "em", "pre", "colgroup", "col"}
BLOCKS = {"h1", "h2", "h3", "p", "li", "td", "th", "em", "code"}


def shown(name):
    """The name as every format shows it: a backslash as two."""
    return name.replace("\\", "\\\\")


def jfr(path, cls, thread):
    data = subprocess.run(
        [sys.executable, MAKE_JFR, "--class", cls, "--thread", thread, "-"]
        + VALUES, check=True, stdout=subprocess.PIPE).stdout
    if path:
        with open(path, "wb") as f:
            f.write(data)
    return data


def make(out_dir):
    with tarfile.open(os.path.join(out_dir, "case-77.tar.gz"), "w:gz",
                      format=tarfile.PAX_FORMAT) as t:
        for member, cls, thread in NAMES:
            data = jfr(None, cls, thread)
            info = tarfile.TarInfo("case-77/" + member)
            info.size = len(data)
            info.mtime = 1767225600
            t.addfile(info, io.BytesIO(data))
    jfr(os.path.join(out_dir, TITLE_FILE), "com.example.Title", "main")


class Blocks(html.parser.HTMLParser):
    """Each element of BLOCKS with its whole text (entities decoded,
    inner elements' text included), and every tag seen."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open = []  # [tag, text] of the BLOCKS elements open
        self.blocks = []  # (tag, text)
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag in BLOCKS:
            self.open.append([tag, ""])

    def handle_endtag(self, tag):
        if tag in BLOCKS:
            for i in range(len(self.open) - 1, -1, -1):
                if self.open[i][0] == tag:
                    self.blocks.append(tuple(self.open.pop(i)))
                    break

    def handle_data(self, data):
        for b in self.open:
            b[1] += data


def parse(path):
    p = Blocks()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    p.close()
    return p


def common(p, bad):
    for tag in sorted(p.tags - ALLOWED):
        bad.append("an element <%s> that the report never writes: a name "
                   "made markup" % tag)
    for tag, text in p.blocks:
        if tag == "em" and text not in OWN_EM:
            bad.append("emphasis that is not the report's own: %r" % text)


def want(p, bad, tag, how, text, what):
    test = {"equals": lambda t: t == text,
            "startswith": lambda t: t.startswith(text),
            "endswith": lambda t: t.endswith(text),
            "contains": lambda t: text in t}[how]
    if not any(b[0] == tag and test(b[1]) for b in p.blocks):
        near = [b[1] for b in p.blocks if b[0] == tag][:3]
        bad.append("%s: no <%s> that %s %r (the first: %r)"
                   % (what, tag, how, text, near))


def check(path, mode, bundle):
    p, bad = parse(path), []
    common(p, bad)
    want(p, bad, "h1", "equals", "heapsift report: " +
         shown(os.path.basename(bundle)), "title")
    for member, cls, thread in NAMES:
        site = shown(cls) + ".make:3"
        th = shown(thread)
        display = shown(bundle + "!case-77/" + member)
        what = "member %r" % member
        want(p, bad, "h3", "endswith", "allocation-hot-spot: " + site, what)
        want(p, bad, "p", "startswith",
             site + " allocates 100% of the sampled bytes", what)
        want(p, bad, "p", "contains", "mostly on thread %s (100%%)" % th,
             what)
        want(p, bad, "li", "startswith", site + ": 3 objects", what)
        want(p, bad, "li", "startswith",
             "thread of the top site: %s, 100%%" % th, what)
        want(p, bad, "p", "contains", "(%s)" % display, what)
        if mode == "gfm":
            want(p, bad, "td", "equals", site, what)
            want(p, bad, "td", "equals", display, what)
    return bad


def check_title(path, mode):
    p, bad = parse(path), []
    common(p, bad)
    want(p, bad, "h1", "equals", "heapsift report: " + shown(TITLE_FILE),
         "title")
    return bad


def main():
    a = sys.argv[1:]
    if a[:1] == ["make"] and len(a) == 2:
        make(a[1])
        return
    if a[:1] == ["check"] and len(a) == 4:
        bad = check(a[1], a[2], a[3])
    elif a[:1] == ["check-title"] and len(a) == 3:
        bad = check_title(a[1], a[2])
    else:
        sys.exit(__doc__)
    if bad:
        sys.stderr.write("\n".join(bad[:20]) + "\n")
        if len(bad) > 20:
            sys.stderr.write("... and %d more\n" % (len(bad) - 20))
        sys.exit(1)


if __name__ == "__main__":
    main()
