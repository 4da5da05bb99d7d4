/*
 * The browser: a full-screen ncurses front end over one store.  It asks
 * the query layer for everything it shows and knows nothing of input
 * formats; `heapsift browse` (src/cli/cmd_browse.c) opens or imports the
 * store and hands it over.
 */
#ifndef HS_TUI_H
#define HS_TUI_H

#include "util/err.h"

struct store;

/*
 * Run the browser on s (borrowed; the caller closes it afterwards) until
 * the user quits.  name is what the title bar calls the store,
 * store_path how the findings' commands name it (the path given, or the
 * cache store's).  Needs a
 * terminal on stdin and stdout.  0 on a normal quit; <0 with e set when
 * the store cannot be read or the terminal cannot be set up.
 *
 * HEAPSIFT_BROWSE_STAMP, when set, names a file to which one line
 * "SEQ KEY_NS DRAWN_NS" is appended after every redraw that followed a
 * key (CLOCK_MONOTONIC): what `make bench` measures; the terminal's
 * title is then set to "hs-browse-SEQ", after the screen's bytes, so
 * that a test knows when the terminal has drawn them.
 */
/* The baseline given on the command line (browse --base): recording
 * (>= 0), else the time range from..to. */
struct tui_base {
	bool set;
	int64_t recording;
	int64_t from_ns, to_ns;
};

/* estimate: enum query_estimate to start with (browse --estimate), or
 * -1 for the default; W switches it. */
int tui_browse(struct store *s, const char *name, const char *store_path,
	       const struct tui_base *base, int estimate, struct err *e);

#endif
