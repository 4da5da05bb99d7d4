/*
 * The commands' side of the ingest pipeline (ingest/ingest.h): what it
 * finds, said under the command's name ("heapsift CMD: ..."), and the
 * exit status made from how it ended.  cli_import() is what heapsift
 * import does, and what every store command given inputs does through
 * the cache store (cache.h); report listens to the pipeline itself (its
 * inventory) and words its messages with the same helpers.
 *
 * The rule for inputs that no importer recognises is the pipeline's
 * (ingest.h); struct cli_intake is that rule for a command that walks
 * its inputs its own way (dump), its messages under the command's name.
 */
#ifndef HS_CLI_INTAKE_H
#define HS_CLI_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ingest/ingest.h"

struct input_limits;
struct member;

/*
 * What heapsift import does, for import and for the commands that import
 * into the cache store (cache.h): every input into the store at out,
 * written atomically (with append, after the recordings already there);
 * messages as "heapsift CMD: ...", inputs that are not recognised by the
 * pipeline's rule, and the summary line on summary (NULL: standard
 * output; the commands with output of their own give stderr).  Returns
 * the exit status: 0; 1 an input not read or not recognised, nothing to
 * import, or the store not written; 3 damaged data skipped, a limit hit,
 * a duplicate skipped.  The caller has checked that out may be written
 * (cli_output_check(), or the cache's own checks).
 */
struct cli_import_opts {
	const char *cmd;
	const char *out;
	bool append;
	unsigned jobs; /* 0: the default (cli_jobs) */
	const struct input_limits *lim;
	FILE *summary;
};
int cli_import(const struct cli_import_opts *o, int n, char **inputs);

/* The pipeline's ctx for the helpers below: whose messages, which store
 * (borrowed). */
struct cli_ingest {
	const char *cmd;
	const char *out;
};

/* A progress line as import draws it (cli_progress()): "importing M",
 * "imported M: N samples so far", "reading M: N MiB", cleared when the
 * walk is over. */
void cli_ingest_progress(void *ctx, const struct ingest_progress *p);
/* "heapsift CMD: waiting for another heapsift writing OUT" */
void cli_ingest_waiting(void *ctx);

struct cli_intake {
	struct ingest_intake rule;
	const char *cmd;
};

/* The rule for what any importer reads (ingest_intake_init), or for
 * one kind (ingest_intake_init_kind), said as "heapsift CMD: ...". */
void cli_intake_init(struct cli_intake *t, const char *cmd);
void cli_intake_init_kind(struct cli_intake *t, const char *cmd,
			  const char *one, const char *many, const char *reads);
void cli_intake_release(struct cli_intake *t);
/* ingest_intake_begin(), _member(), _refused() and _end() */
void cli_intake_begin(struct cli_intake *t, const char *input);
void cli_intake_member(struct cli_intake *t, const struct member *m,
		       bool recognised, size_t bytes);
bool cli_intake_refused(struct cli_intake *t, const struct member *m,
			const struct err *e);
bool cli_intake_end(struct cli_intake *t);

#endif
