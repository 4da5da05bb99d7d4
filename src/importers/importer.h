/*
 * The importer interface (libarchive's model).
 *
 * Every importer is one const struct importer_ops, listed in registry.c.
 * The registry offers each stream's first bytes to every probe; the probe
 * scores them (0 = not mine, 100 = an exact signature) without consuming
 * anything, and the highest bid wins.  Exact-signature probes are asked
 * first and a score of 100 ends the auction, so the heuristic text probes
 * only ever see what no binary format claimed.
 *
 * open/next/close drive the actual import into a record sink; they are
 * filled in as each importer lands (issues 3, 5, 6) and are NULL until
 * then, which the registry reports as "recognised but not importable yet"
 * rather than pretending.
 */
#ifndef HS_IMPORTER_H
#define HS_IMPORTER_H

#include <stddef.h>

#include <stdint.h>

#include "util/err.h"

struct input;
struct sink;
struct err;

/* What a stream is; the stable names are what `scan` prints. */
enum import_kind {
	KIND_UNKNOWN = 0,
	KIND_JFR,
	KIND_AGENT,
	KIND_CODEHEAP,
	KIND_JAVACORE,
	KIND__COUNT
};

const char *import_kind_name(enum import_kind kind);

/* How far into a stream the probes may look. */
#define PROBE_PREFIX (64 * 1024)

enum probe_class {
	PROBE_SIGNATURE, /* exact magic bytes: asked first */
	PROBE_TEXT,	 /* heuristics over text: asked last */
};

/* What the caller gives an import besides the bytes and the sink. */
struct import_env {
	const char *source; /* display name of the member */
	/* a problem the import read past: damaged or unfinished data */
	void (*warn)(void *ctx, const struct err *e);
	void *ctx;
	uint64_t max_chunk_bytes; /* JFR: refuse larger chunks (0: 1 GiB) */
	/* JFR: threads decoding chunks (0, 1: none, the calling thread
	 * decodes); the sink is called on the calling thread either way,
	 * with the same records in the same order */
	unsigned jobs;
};

/* A warning through env->warn, formatted, at offset (ERR_NO_OFFSET for
 * none), with the member's name as its source. */
void import_warnf(const struct import_env *env, enum err_code code,
		  uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same at a 1-based line of a text input. */
void import_warn_line(const struct import_env *env, enum err_code code,
		      uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

struct importer_ops {
	const char *name;
	enum import_kind kind;
	enum probe_class probe_class;
	/*
	 * Score prefix (len bytes, at most PROBE_PREFIX; complete says the
	 * whole stream fits in it).  0..100.  Must not read past len and
	 * must accept any bytes at all.
	 */
	int (*probe)(const unsigned char *prefix, size_t len, int complete);
	/*
	 * Import one stream into sink; NULL until the importer exists.
	 * Damage it can read past goes to env->warn and the import goes on;
	 * a negative return (e filled) means nothing more could be read, or
	 * the sink asked to stop.
	 */
	int (*import)(struct input *in, const struct sink *sink,
		      const struct import_env *env, struct err *e);
};

#endif
