/*
 * The one rule for inputs that no importer recognises, shared by every
 * command that imports: import itself, every command that reads a store
 * when it is given inputs instead (through the cache store, cache.h),
 * and report (which lists each member in its inventory too).
 *
 *   - A file named on the command line, or what its compression holds,
 *     that no importer recognises could not be read: one error under the
 *     command's own name, "heapsift CMD: error: FILE: not a recording or
 *     report heapsift reads (...)", and exit status 1; the other inputs
 *     are still read.
 *   - A member of a bundle that no importer recognises (its README, its
 *     logs) is what bundles hold besides their recordings: one note per
 *     bundle says how many and which, and the exit status is unchanged.
 *     A bundle in which no member at all is recognised could not be
 *     read, as a named file: an error, exit status 1.
 *   - A file named on the command line that an importer recognises but
 *     refuses as a format heapsift does not read (a JFR recording of
 *     format 0.9 or 1.0), with nothing imported from it, could not be
 *     read either: its importer's message is an error, exit status 1.
 *     In a bundle it stays a warning (exit status 3), as damage does.
 *   - What has no bytes (an empty file, a stream cut before its first
 *     byte) or failed to read is the walker's to report (a warning, exit
 *     status 3), not this rule's.
 *
 * docs/inputs.md ("Inputs that are not recognised") and heapsift(1)
 * state the rule for users.
 */
#ifndef HS_CLI_INTAKE_H
#define HS_CLI_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct member;

struct cli_intake {
	const char *cmd;
	/* what the command reads, for its messages: one, several, and
	 * what it reads in full ("a recording or report heapsift reads",
	 * "recordings or reports heapsift reads", "it reads JFR and ...") */
	const char *one, *many, *reads;
	const char *input;	 /* the input being walked (borrowed) */
	uint64_t recognised;	 /* its members an importer bid on */
	uint64_t unrecognised;	 /* ... and those no importer bid on */
	struct buf names;	 /* the first unrecognised members, for notes */
	bool named_unrecognised; /* the input itself is such a stream */
	bool named_refused;	 /* ... or one its importer refused */
	uint64_t not_read;	 /* inputs this rule found unreadable */
};

/* For the commands that import: what any importer reads. */
void cli_intake_init(struct cli_intake *t, const char *cmd);
/* For a command that reads one kind (dump: JFR recordings), named by
 * one, many and reads as above (borrowed). */
void cli_intake_init_kind(struct cli_intake *t, const char *cmd,
			  const char *one, const char *many, const char *reads);
void cli_intake_release(struct cli_intake *t);

/* Before walking input (borrowed until cli_intake_end()). */
void cli_intake_begin(struct cli_intake *t, const char *input);

/*
 * A member the command probed: recognised when an importer bid on it;
 * bytes is how much of it the probe saw (0: empty or unreadable, which
 * this rule leaves to the walker's messages).
 */
void cli_intake_member(struct cli_intake *t, const struct member *m,
		       bool recognised, size_t bytes);

/*
 * m's importer failed with e, nothing imported from it: true when e
 * refuses m's format (ERR_UNSUPPORTED) and m is the input itself, which
 * then could not be read (the caller prints e as an error, not a
 * warning, and cli_intake_end() counts the input); false otherwise.
 */
struct err;
bool cli_intake_refused(struct cli_intake *t, const struct member *m,
			const struct err *e);

/*
 * After walking the input: says what was not recognised (the error or
 * the note above) and returns true when the input could not be read
 * (then t->not_read has counted it).
 */
bool cli_intake_end(struct cli_intake *t);

#endif
