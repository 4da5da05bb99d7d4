/*
 * The input walker's insides, shared by its two files: walk.c (the top
 * level, the sniffing, the reporting of problems) and walk_container.c
 * (the containers' levels, through libarchive).  Private to src/input.
 */
#ifndef HS_WALK_INT_H
#define HS_WALK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "input/walk.h"
#include "util/err.h"

struct input;
struct entry; /* walk_container.c's: a member being read out of a layer */

/* One input being walked. */
struct walk {
	const struct input_limits *lim;
	const struct walk_ops *ops;
	void *ctx;
	struct walk_stats *stats;
	const char *input_name;
	uint64_t input_bytes; /* decompressed at every level */
	uint64_t entries;     /* archive entries of this input */
	bool stop;	      /* stop the whole input */
	int abort_rc;	      /* the member callback's stop value */
};

/* Count problem e of severity sev and hand it to the problem callback. */
void walk_report(struct walk *w, enum problem_severity sev,
		 const struct err *e);

/* walk_report() a problem of code at offset in source, in words made
 * from fmt. */
void walk_reportf(struct walk *w, enum problem_severity sev, enum err_code code,
		  const char *source, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* The severity a failure of code is reported with: an error for I/O,
 * a warning for what the input holds. */
enum problem_severity walk_severity(enum err_code code);

/*
 * Walk stream in, shown as display at path (the names a member gets)
 * and depth levels down: a container becomes a layer whose members are
 * walked in turn, within the depth limit; anything else is a member,
 * handed to the callback with compression, the filters undone to reach
 * it.  en is the member of the layer above that in reads (NULL at the
 * top, and for a folder's files); seek_fd the file itself where in is a
 * regular file, else -1.  True when in was a container (its members'
 * bytes, not its own, were counted against the input's limit).
 */
bool walk_stream(struct walk *w, struct input *in, struct entry *en,
		 const char *display, const char *path, const char *compression,
		 unsigned depth, int seek_fd);

#endif
