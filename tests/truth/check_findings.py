#!/usr/bin/env python3
"""Checks a `heapsift report --format=json` against an expectation file
of the truth corpus (fixtures/truth/README.md).

    check_findings.py REPORT.json CASE.expect

The expectation file says which findings a correct report must give and
must not give.  Its lines (blank lines and '#' comments are ignored;
'input:' and 'args:' lines are for tests/cli/truth_corpus.sh):

    must    RULE SUBJECT [jvm=RE] [min=SEV] [max=SEV]
        at least one finding of RULE whose subject matches the regular
        expression SUBJECT (re.search; '*' is any subject, and a finding
        without a subject too), whose JVM (the finding's "recording"
        object: its "jvm" or "source") matches jvm=RE, and whose severity
        lies within min..max (info < warning < critical)
    mustnot RULE SUBJECT [min=SEV]
        no finding of RULE (or '*', any rule) matching SUBJECT at
        severity min (default info) or above
    first   RULE SUBJECT
        the first finding of RULE in the report's ranking matches SUBJECT
    top     SUBJECT
        the report's first finding (the one a support engineer acts on)
        matches SUBJECT, written RULE:SUBJECT
    every   RULE SUBJECT jvm=RE
        at least one finding of RULE matches SUBJECT, and every one that
        does names a JVM matching jvm=RE (a rule's findings all belong
        to that JVM)
    every-finding-names-its-jvm
        every finding carries a "recording" object with a non-empty
        "source", a "jvm" name and its recordings' "ids"

A finding's "recording" object (docs/report.schema.json) names the one
JVM it is about: "ids" (its recordings, as --recording takes them),
"source" (the first one's file, e.g. BUNDLE!jvm-alpha/alpha.jfr), "jvm"
(e.g. "pid 4767") and "pid"; jvm=RE is matched against "JVM SOURCE".

The expected values come from the workload's printed truth and from the
JDK's `jfr`, never from heapsift's output (the README says, case by case,
where each came from).  Exit 0 when every line holds; else each broken
line is printed on stderr and the exit is 1.  A file with no check at
all is an error: a case that checks nothing is not a test.
"""
import json
import re
import sys

SEV = {"info": 0, "warning": 1, "critical": 2}


def opts(words):
    o = {}
    for w in words:
        if "=" not in w:
            raise SystemExit("bad option %r (want key=value)" % w)
        k, v = w.split("=", 1)
        if k in ("min", "max") and v not in SEV:
            raise SystemExit("bad severity %r" % v)
        o[k] = v
    return o


def subj_ok(pat, f):
    if pat == "*":
        return True
    return f.get("subject") is not None and re.search(pat, f["subject"]) is not None


def jvm_of(f):
    r = f.get("recording")
    if not isinstance(r, dict):
        return ""
    return "%s %s" % (r.get("jvm") or "", r.get("source") or "")


def show(f):
    return "%s %s [%s] %s" % (f.get("rule"), f.get("subject"), f.get("severity"),
                              (f.get("sentence") or "")[:160])


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    rep = json.load(open(sys.argv[1]))
    finds = rep.get("findings")
    if not isinstance(finds, list):
        raise SystemExit("%s: no findings list" % sys.argv[1])
    bad = []
    checks = 0
    for n, line in enumerate(open(sys.argv[2]), 1):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith(("input:", "args:")):
            continue
        w = line.split()
        kind = w[0]
        where = "%s:%d: %s" % (sys.argv[2], n, line)
        checks += 1
        if kind == "must":
            rule, pat, o = w[1], w[2], opts(w[3:])
            lo, hi = SEV[o.get("min", "info")], SEV[o.get("max", "critical")]
            hit = [f for f in finds if f.get("rule") == rule and subj_ok(pat, f)]
            if "jvm" in o:
                hit = [f for f in hit if re.search(o["jvm"], jvm_of(f))]
            ok = [f for f in hit if lo <= SEV.get(f.get("severity"), -1) <= hi]
            if not ok:
                bad.append("%s\n  matching findings: %s" %
                           (where, "; ".join(show(f) for f in hit) or "none"))
        elif kind == "mustnot":
            rule, pat, o = w[1], w[2], opts(w[3:])
            lo = SEV[o.get("min", "info")]
            hit = [f for f in finds if (rule == "*" or f.get("rule") == rule)
                   and subj_ok(pat, f) and SEV.get(f.get("severity"), 9) >= lo]
            if hit:
                bad.append("%s\n  found: %s" % (where, "; ".join(show(f) for f in hit)))
        elif kind == "first":
            rule, pat = w[1], w[2]
            of = [f for f in finds if f.get("rule") == rule]
            if not of or not subj_ok(pat, of[0]):
                bad.append("%s\n  first: %s" % (where, show(of[0]) if of else "none"))
        elif kind == "top":
            rule, _, pat = w[1].partition(":")
            if not finds or finds[0].get("rule") != rule or not subj_ok(pat or "*", finds[0]):
                bad.append("%s\n  top: %s" % (where, show(finds[0]) if finds else "none"))
        elif kind == "every":
            rule, pat, o = w[1], w[2], opts(w[3:])
            if "jvm" not in o:
                raise SystemExit("%s: every needs jvm=RE" % where)
            hit = [f for f in finds if f.get("rule") == rule and subj_ok(pat, f)]
            other = [f for f in hit if not re.search(o["jvm"], jvm_of(f))]
            if not hit or other:
                bad.append("%s\n  %s" % (where, "; ".join(
                    "%s of %s" % (show(f), jvm_of(f)) for f in other) or "none"))
        elif kind == "every-finding-names-its-jvm":
            for f in finds:
                r = f.get("recording")
                if (not isinstance(r, dict) or not r.get("source") or not r.get("jvm")
                        or not r.get("ids")):
                    bad.append("%s\n  no JVM: %s" % (where, show(f)))
        else:
            raise SystemExit("%s: unknown check %r" % (where, kind))
    if checks == 0:
        raise SystemExit("%s: no checks: a case that checks nothing is not a test" % sys.argv[2])
    if bad:
        sys.stderr.write("\n".join(bad) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
