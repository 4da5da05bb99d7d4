/*
 * The cache store for inputs given where a store is expected (every
 * command that reads a store: top, tree, timeline, survivors, diff,
 * codeheap, export, info, browse, report), and the one way those
 * commands open their operands: cache.c says where the cache lives and
 * how it is named.
 */
#ifndef HS_CLI_CACHE_H
#define HS_CLI_CACHE_H

/* The cache store's path for these inputs (malloc'ed), the cache folder
 * made when missing; NULL after a message "heapsift CMD: error: ..."
 * (standard input cannot be cached, an input is missing, no HOME). */
char *cli_cache_path(const char *cmd, int n, char **inputs);

/* Whether the cache file at path (a store, or the report's inventory
 * beside it) may be used: 1 it is a regular file of the user's that no
 * one else can write, 0 it does not exist, -1 after a message "heapsift
 * CMD: error: ..." (a symbolic link, a folder, a fifo, another user's
 * file, or one others can write: never followed, never replaced). */
int cli_cache_check(const char *cmd, const char *path);

/*
 * The store a command reads, from its operands (heapsift(1), INPUTS):
 * exactly one heapsift store is read as it is; anything else
 * (recordings, bundles, code-heap reports: what heapsift import reads)
 * is imported first into the cache store of those inputs, with the
 * default limits, or that store is reused while the inputs' paths,
 * sizes and modification times are unchanged.  The import's messages
 * are the command's ("heapsift CMD: ..."), by the ingest pipeline's rule
 * for what is not recognised (ingest/ingest.h, through cli_import()), and
 * its summary goes to standard error (standard output is the
 * command's).
 *
 * Returns 0 with *path (malloc'ed: the operand, or the cache store) and
 * *status, the exit status the inputs give: EXIT_OK; EXIT_WARNED when
 * damaged data was skipped or a limit hit, also when a cache store
 * imported so is reused (a note says so: the warnings are the import's,
 * not repeated); EXIT_ERROR when an input could not be read but others
 * were (such a cache store is imported again next time, so that the
 * error is said again).  Otherwise an exit status after a message
 * (nothing given, a store among inputs, nothing imported) and *path is
 * NULL.
 */
int cli_store_path(const char *cmd, int n, char **operands, char **path,
		   int *status);

/*
 * Keep beside the cache store at store the exit status of the import
 * that made it ("STORE.status", when not 0), for cli_store_path() to
 * reuse it by: a command that imports into the cache store its own way
 * (report, with its inventory) calls it too, since every command shares
 * one cache store per set of inputs.  Failing to write it removes the
 * store (imported again next time), with a warning.
 */
void cli_cache_keep_status(const char *cmd, const char *store, int status);

/* cli_store_path(), then the store opened: 0 with *s open (and *path,
 * *status as there), or an exit status after a message. */
struct store;
int cli_store_open(const char *cmd, int n, char **operands, struct store **s,
		   char **path, int *status);

#endif
