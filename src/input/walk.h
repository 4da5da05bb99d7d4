/*
 * Walking an input: a path or "-", possibly compressed, possibly an
 * archive holding archives, down to the plain streams ("members") that
 * importers read.  Everything is read in place through libarchive, in
 * memory: nothing is ever extracted to disk.
 *
 * Containers recognised by their first bytes: gzip, bzip2, xz, lzma,
 * zstd and lz4 streams; tar, zip and 7z archives; any nesting of them
 * (a .tar.gz holding a .zip holding a .jfr.zst).  Every member gets a
 * display name that says where it came from:
 *     case-1234.tar.gz!logs/app.zip!rec.jfr.zst
 * where "!" separates archive levels and a compressed single file keeps
 * its own name.
 *
 * Hostile input is bounded by struct input_limits; every limit has a
 * default, a command-line option and a message naming both.  Problems go
 * to the problem callback as they are found, each reported exactly once
 * by the level it belongs to, and never stop the walk of other members
 * unless they make the rest unreadable.
 */
#ifndef HS_WALK_H
#define HS_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct input;

struct input_limits {
	uint64_t max_member_bytes; /* decompressed bytes of one member */
	uint64_t max_input_bytes; /* decompressed bytes, all levels, one input */
	uint64_t max_ratio;	  /* decompressed : compressed, per level */
	uint64_t ratio_grace;	  /* bytes out before the ratio is checked */
	unsigned max_depth;	  /* archive and compression levels */
	uint64_t max_members;	  /* archive entries in one input */
};

#define LIMIT_MEMBER_BYTES (4ull << 30)
#define LIMIT_INPUT_BYTES  (16ull << 30)
#define LIMIT_RATIO	   200u
#define LIMIT_RATIO_GRACE  (8ull << 20)
#define LIMIT_DEPTH	   8u
#define LIMIT_MEMBERS	   100000u

void input_limits_default(struct input_limits *lim);

/* One plain stream found by the walk.  Every pointer is borrowed and
 * valid only during the member callback. */
struct member {
	const char *display;	 /* full display name */
	const char *input;	 /* the input as given on the command line */
	const char *path;	 /* the part after "input!", "" for the input */
	const char *compression; /* filters removed from this member, e.g.
				    "zstd" or "gzip+xz"; "" when none */
	unsigned depth;		 /* container levels above it */
	struct input *in;	 /* its bytes, decompressed */
};

enum problem_severity {
	PROBLEM_WARNING, /* damaged input skipped, a limit hit, suspicious */
	PROBLEM_ERROR,	 /* could not read what was asked for */
};

struct walk_ops {
	/* Called for each member; read as much of m->in as wanted.  A
	 * negative return stops the whole walk and is returned by
	 * walk_input(). */
	int (*member)(void *ctx, const struct member *m);
	/* e->source is the display name of what the problem is about. */
	void (*problem)(void *ctx, enum problem_severity sev,
			const struct err *e);
};

struct walk_stats {
	uint64_t members; /* member callbacks made */
	uint64_t entries; /* archive entries seen, of any type */
	uint64_t warnings;
	uint64_t errors;
};

/*
 * Walk one input ("-" is standard input).  Returns 0 when the input was
 * walked, even if problems were reported; <0 when it could not be opened
 * at all (reported through ops->problem) or when the member callback
 * asked to stop (its value).  Adds to *stats.
 */
int walk_input(const char *path, const struct input_limits *lim,
	       const struct walk_ops *ops, void *ctx, struct walk_stats *stats);

/* The same over bytes in memory (tests, fuzzing): name is the display
 * name of the buffer. */
int walk_memory(const char *name, const void *data, size_t len,
		const struct input_limits *lim, const struct walk_ops *ops,
		void *ctx, struct walk_stats *stats);

/* What the first bytes of a stream say it is. */
enum container {
	CONTAINER_NONE = 0, /* a plain stream: a member */
	CONTAINER_COMPRESSED,
	CONTAINER_TAR,
	CONTAINER_ZIP,
	CONTAINER_7Z,
};
/* Bytes walk_sniff() wants to see (tar's magic sits at offset 257). */
#define SNIFF_LEN 512
enum container walk_sniff(const unsigned char *p, size_t len);
/* The compressor whose magic starts p ("gzip", "bzip2", "xz", "lzma",
 * "zstd", "lz4"), as libarchive names its filters; NULL when p does
 * not start a compressed stream. */
const char *walk_sniff_filter(const unsigned char *p, size_t len);

#endif
