#!/usr/bin/env python3
"""Run a command and print what memory it took, for tests/bench.

    peak_mem.py CMD [ARG...]

Prints one line: wall seconds, user CPU seconds, peak RSS (the kernel's
ru_maxrss, what `/usr/bin/time -f %M` prints), and the peaks of its two
parts, anonymous memory (RssAnon: heap, stacks, anonymous mappings) and
file pages mapped (RssFile: a mapped recording, a spooled chunk), as
KiB, read from /proc/PID/status every 2 ms (a shorter peak can be
missed; ru_maxrss cannot).  heapsift's memory budget
(docs/design/memory.md) is about the anonymous part: mapped file pages
are page cache, which the kernel takes back when it needs them.  The
command's output is discarded; the line ends with its exit status.
"""
import resource
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    t0 = time.monotonic()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    peak = {"RssAnon": 0, "RssFile": 0}
    path = "/proc/%d/status" % p.pid
    while p.poll() is None:
        try:
            with open(path) as f:
                for line in f:
                    k = line.split(":", 1)[0]
                    if k in peak:
                        peak[k] = max(peak[k], int(line.split()[1]))
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.002)
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("%.2f %.2f %d %d %d %d" % (wall, ru.ru_utime, ru.ru_maxrss,
                                     peak["RssAnon"], peak["RssFile"],
                                     p.returncode))


if __name__ == "__main__":
    main()
