/*
 * May a command write its output at this path?  The one check every
 * command that writes a file or folder makes before it writes anything:
 * import, export and report (diff writes standard output only, and has
 * no -o), so that heapsift never destroys what it did not make.
 *
 * The rules (heapsift(1), OUTPUT FILES):
 *   - a path that does not exist may always be written;
 *   - a store output may replace a regular file only when it is a
 *     heapsift store (its magic), anything else only with --force;
 *   - a report output likewise only a report heapsift wrote: one whose
 *     first 512 bytes hold REPORT_MARK (report/report.h), a token no
 *     person writes by accident; anything else only with --force.  The
 *     words "heapsift report" are no mark: a person's notes about a
 *     report hold them (issue 39), and so a report of a heapsift from
 *     before the mark needs --force too;
 *   - a file output (export's one-file formats) replaces an existing
 *     regular file only with --force;
 *   - a folder output (export) may write into a folder that is empty or
 *     holds nothing but files the command itself writes (names[]), into
 *     any other folder only with --force (other files are left alone);
 *   - never, not even with --force: a symbolic link (the link would be
 *     replaced, not what it points to: give the real path), a device,
 *     fifo or socket, a folder where a file goes, a file where a folder
 *     goes, or one of the command's own inputs (same device and inode);
 *   - an empty path (-o "") is a usage error, said while the options
 *     are parsed (cli_output_arg()).
 * The check and the write are not atomic: a path changed in between by
 * someone else is not caught (the writers still never follow a link
 * when they rename a complete file into place).
 */
#ifndef HS_CLI_OUTPUT_H
#define HS_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

enum cli_output_kind {
	CLI_OUTPUT_STORE,  /* one file, a heapsift store */
	CLI_OUTPUT_FOLDER, /* a folder of files named in names[] */
	CLI_OUTPUT_REPORT, /* one file, a report (heapsift report -o) */
	CLI_OUTPUT_FILE,   /* one file of any kind (export --format=svg...):
			      an existing one only with --force */
};

struct cli_output {
	const char *path;
	enum cli_output_kind kind;
	/* CLI_OUTPUT_FOLDER: the file names the command writes, NULL
	 * last; a leftover temporary file ".NAME.tmp..." of one counts;
	 * a name ending in '*' stands for every name with its prefix */
	const char *const *names;
	bool force; /* --force: replace what is not ours, where allowed */
};

/*
 * 0 when the command may write o->path; otherwise prints one clear
 * "heapsift CMD: error: ..." on stderr and returns EXIT_ERROR.  inputs
 * are the command's input paths ("-" is standard input), compared by
 * device and inode with the output.
 */
int cli_output_check(const char *cmd, const struct cli_output *o,
		     char *const *inputs, int n_inputs);

/*
 * Write len bytes to path through a temporary file beside it (pid-named,
 * O_EXCL), fsynced and renamed into place, so that path is the old file
 * or the whole new one.  0, or -1 after one "heapsift CMD: error: cannot
 * write PATH: why" on stderr (the temporary file removed).  Call
 * cli_output_check() first.
 */
int cli_write_file(const char *cmd, const char *path, const void *data,
		   size_t len);

/* 0 when arg, the value of -o (--output), names a path; an empty one
 * is a usage error (said, EXIT_USAGE returned) in every command, with
 * what (e.g. "a store, -o CASE.hsdb") to say what to give instead. */
int cli_output_arg(const char *cmd, const char *arg, const char *what);

/* Is path a regular file that starts with the store magic?  Never
 * blocks (a fifo is not a store). */
bool cli_is_store(const char *path);
/* Is path a regular file that heapsift report wrote: does REPORT_MARK
 * (report/report.h) occur in its first REPORT_MARK_SPAN bytes? */
bool cli_is_report(const char *path);

#endif
