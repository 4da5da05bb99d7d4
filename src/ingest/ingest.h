/*
 * The ingest pipeline: the one way recordings get into a store.  Every
 * command that takes recordings comes here, import itself, report, and
 * every store command given inputs instead of a store (through the
 * cache store, src/cli/cache.c): each input is walked down to its
 * members (input/walk.h), each member's first bytes are offered to the
 * importers (importers/registry.h: the highest bid wins), the winner
 * imports it into a store writer (store/store.h), a recording already
 * in the store is dropped (--append), and the store is committed, with
 * the store's lock held from before the old store is read until the
 * new one is in place.  Inputs that no importer recognises follow one
 * rule (below), which decides which inputs could not be read.
 *
 * The pipeline prints nothing and knows no command: what it finds (each
 * member, each problem, its progress, a wait for another writer) goes
 * to its caller through struct ingest_ops, which words it, and how it
 * ended comes back in struct ingest_result, from which the caller makes
 * its exit status.  It knows nothing of queries, findings or front
 * ends.
 */
#ifndef HS_INGEST_H
#define HS_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importers/registry.h"
#include "util/buf.h"
#include "util/err.h"

struct input_limits;
struct member;

/* How bad a problem is; the name is the word the messages use. */
enum ingest_severity {
	INGEST_NOTE,	/* said, and nothing is wrong */
	INGEST_WARNING, /* damaged data skipped, a limit hit: done anyway */
	INGEST_ERROR,	/* something asked for could not be read */
};
const char *ingest_severity_name(enum ingest_severity sev);

/* --- the rule for inputs that no importer recognises ------------------------ */

/*
 * The rule every command that imports follows (docs/inputs.md, "Inputs
 * that are not recognised"; heapsift(1) states it for users):
 *
 *   - A file named on the command line, or what its compression holds,
 *     that no importer recognises could not be read: one error, "FILE:
 *     not a recording or report heapsift reads (...); not read", and the
 *     input counts as not read (exit status 1); the other inputs are
 *     still read.
 *   - A member of a bundle that no importer recognises (its README, its
 *     logs) is what bundles hold besides their recordings: one note per
 *     bundle says how many and which, and nothing is wrong.  A bundle in
 *     which no member at all is recognised could not be read, as a named
 *     file: an error.
 *   - A file named on the command line that an importer recognises but
 *     refuses as a format heapsift does not read (a JFR recording of
 *     format 0.9 or 1.0), with nothing imported from it, could not be
 *     read either: its importer's message is an error, and the input
 *     counts as not read.  In a bundle it stays a warning, as damage
 *     does.
 *   - What has no bytes (an empty file, a stream cut before its first
 *     byte) or failed to read is the walker's to report, not this rule's.
 *
 * ingest_run() follows it itself; a command that walks inputs its own
 * way (dump, which reads JFR only) keeps a struct ingest_intake and
 * calls the functions below around its walk.  Its messages go to say()
 * as errors or notes, ERR_UNSUPPORTED, with the input as their source.
 */
typedef void ingest_say_fn(void *ctx, enum ingest_severity sev,
			   const struct err *e);

struct ingest_intake {
	/* what the command reads, for the messages: one, several, and
	 * what it reads in full ("a recording or report heapsift reads",
	 * "recordings or reports heapsift reads", "no importer recognises
	 * ...: heapsift reads JFR and ...") */
	const char *one, *many, *reads;
	ingest_say_fn *say;
	void *ctx;
	const char *input;	 /* the input being walked (borrowed) */
	uint64_t recognised;	 /* its members an importer bid on */
	uint64_t unrecognised;	 /* ... and those no importer bid on */
	struct buf names;	 /* the first unrecognised members, for notes */
	bool named_unrecognised; /* the input itself is such a stream */
	bool named_refused;	 /* ... or one its importer refused */
	uint64_t not_read;	 /* inputs this rule found unreadable */
};

/* For what any importer reads; say(ctx, ...) gets the messages. */
void ingest_intake_init(struct ingest_intake *t, ingest_say_fn *say, void *ctx);
/* For a command that reads one kind (dump: JFR recordings), named by
 * one, many and reads as above (borrowed). */
void ingest_intake_init_kind(struct ingest_intake *t, const char *one,
			     const char *many, const char *reads,
			     ingest_say_fn *say, void *ctx);
void ingest_intake_release(struct ingest_intake *t);

/* Before walking input (borrowed until ingest_intake_end()). */
void ingest_intake_begin(struct ingest_intake *t, const char *input);

/* A member probed: recognised when an importer bid on it; bytes is how
 * much of it the probe saw (0: empty or unreadable, the walker's). */
void ingest_intake_member(struct ingest_intake *t, const struct member *m,
			  bool recognised, size_t bytes);

/*
 * m's importer failed with e, nothing imported from it: true when e
 * refuses m's format (ERR_UNSUPPORTED) and m is the input itself, which
 * then could not be read (the caller says e as an error, not a warning,
 * and ingest_intake_end() counts the input); false otherwise.
 */
bool ingest_intake_refused(struct ingest_intake *t, const struct member *m,
			   const struct err *e);

/* After walking the input: says what was not recognised (the error or
 * the note above) and returns true when the input could not be read
 * (then t->not_read has counted it). */
bool ingest_intake_end(struct ingest_intake *t);

/* --- the pipeline ------------------------------------------------------------ */

struct ingest_options {
	const char *out; /* the store to write (borrowed) */
	/* keep the recordings already in out (a missing out is made); an
	 * input recording already there is dropped (a duplicate) */
	bool append;
	unsigned jobs; /* threads decoding JFR chunks (import_env.jobs) */
	const struct input_limits *lim; /* borrowed */
	/* read each member to its end after its import (or instead of
	 * one), so that its size and any damage past what the importer
	 * read are known in member_done (report's inventory) */
	bool read_whole;
};

/* One member as the pipeline saw it: borrowed, valid during the call. */
struct ingest_member {
	const struct member *m; /* the walker's: display, path, input.. */
	struct probe_result pr; /* the auction; pr.ops NULL: nobody bid */
	uint32_t recordings;	/* recordings its import added */
	/* append: its recording was already in the store, as recording
	 * duplicate_of, imported from duplicate_source (NULL: unknown) */
	bool duplicate;
	uint32_t duplicate_of;
	const char *duplicate_source;
};

/* Where a problem comes from; the caller may word or count them apart. */
enum ingest_problem {
	INGEST_FROM_WALK,     /* the walker's: damaged, unreadable, a limit */
	INGEST_FROM_INTAKE,   /* the rule above: an input not read, a note */
	INGEST_FROM_IMPORTER, /* an importer's warning: damage read past */
	/* an importer that stopped: its member partly imported, or not a
	 * named input (a warning) */
	INGEST_IMPORT_STOPPED,
	/* ... that refused a named input's format, nothing imported (an
	 * error; the rule counts the input as not read) */
	INGEST_IMPORT_REFUSED,
	/* ... stopped by the store's writer failing (its spill: no space
	 * left, I/O), which then ends the run as INGEST_WRITE_FAILED with
	 * the reason: a caller that says that may pass over this one */
	INGEST_STORE_STOPPED,
};

enum ingest_stage {
	INGEST_IMPORTING, /* a member's import begins */
	INGEST_IMPORTED,  /* ... and ended: samples in the store so far */
	INGEST_READING,	  /* read_whole: offset bytes of it read */
	INGEST_WALKED,	  /* every input walked; the commit comes next */
};

struct ingest_progress {
	enum ingest_stage stage;
	const char *display; /* the member (borrowed); NULL for WALKED */
	uint64_t samples;    /* IMPORTED */
	uint64_t offset;     /* READING */
};

/* What the pipeline tells its caller as it goes; ctx is the caller's.
 * Only problem is required.  Nothing passed may be kept past the call. */
struct ingest_ops {
	/* a member found, before anything is read of it */
	void (*member_begin)(void *ctx, const struct member *m);
	/* ... and done with: probed, imported or not (read to its end
	 * with read_whole) */
	void (*member_done)(void *ctx, const struct ingest_member *im);
	/* e->source is what it is about (a member, an input) */
	void (*problem)(void *ctx, enum ingest_problem from,
			enum ingest_severity sev, const struct err *e);
	void (*progress)(void *ctx, const struct ingest_progress *p);
	/* another writer holds out's lock: said once, before waiting */
	void (*waiting)(void *ctx);
};

/* How the run ended. */
enum ingest_outcome {
	INGEST_WRITTEN,	     /* out committed */
	INGEST_UNCHANGED,    /* append: every recording was already in out */
	INGEST_EMPTY,	     /* no recording could be imported: not written */
	INGEST_LOCK_FAILED,  /* out could not be locked: nothing read */
	INGEST_OPEN_FAILED,  /* append: out could not be read: nothing read */
	INGEST_WRITE_FAILED, /* the writer or the commit failed */
};

struct ingest_result {
	enum ingest_outcome outcome;
	uint32_t recordings; /* in the store, append's included */
	uint64_t samples;    /* ... and their samples */
	uint64_t added;	     /* recordings the inputs added */
	uint64_t duplicates; /* input recordings dropped as already there */
	/* importers' warnings and stops, and the duplicates: each one said
	 * as a warning through ops->problem or member_done */
	uint64_t warnings;
	uint64_t walk_warnings, walk_errors; /* the walker's (walk_stats) */
	/* inputs that could not be opened, or that the rule above found
	 * unreadable */
	uint64_t inputs_failed;
};

/*
 * Walk the n inputs (paths, "-" for standard input; borrowed) into the
 * store at o->out, telling ops (with ctx) as it goes.  The caller has
 * checked that o->out may be written.  *r is filled in every case.
 * Returns 0 when the store was written or, appending, was already
 * complete; ERR_FAIL otherwise, with r->outcome saying why and e the
 * reason.  Problems with the inputs alone (damage, an input not read)
 * do not fail the run: they are in *r for the caller's exit status.
 * Everything the pipeline allocates is freed before it returns.
 */
int ingest_run(const struct ingest_options *o, int n, char **inputs,
	       const struct ingest_ops *ops, void *ctx, struct ingest_result *r,
	       struct err *e);

#endif
