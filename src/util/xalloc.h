/*
 * Allocation that cannot fail, and the two ways to stop the process.
 *
 * Out-of-memory and broken invariants are the only fatal conditions in
 * heapsift (bad input never is), so every allocation goes through these
 * wrappers and callers never test for NULL.  The third way a process
 * stops, a signal, removes the same temporary files as die().  Nothing
 * here knows about formats or the CLI.
 */
#ifndef HS_XALLOC_H
#define HS_XALLOC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Print "heapsift: fatal: ..." and exit(1).  For out-of-memory only. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A temporary file that is removed if the process ends before it is put
 * in place (a store or an export being written must not be left
 * behind): die_unlink_add(path) from before the file has its name (or
 * with the signals of die_signals_block() blocked around its creation),
 * die_unlink_remove(path) once it is renamed or removed.  path is
 * borrowed until then.  At most DIE_UNLINK_MAX are held at a time; past
 * that, die_unlink_add() returns false and the file is not removed on a
 * signal (newfile_sweep() removes it later, as after a SIGKILL): only a
 * fleet lake export into many days at once, where the file system has
 * no O_TMPFILE, names that many.
 *
 * die() removes them before it exits.  So does every catchable signal
 * whose default action ends the process (SIGHUP, SIGINT, SIGQUIT,
 * SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
 * SIGVTALRM, SIGPROF and, where they exist, SIGPOLL, SIGPWR and
 * SIGSTKFLT): while any path is registered a handler is installed for
 * those that were not ignored when the first was added; it removes the
 * files, puts back the action it found (the default, or a handler such
 * as curses') and raises the signal again, so that the process ends as
 * it would have, with the signal's status.  The handler calls only
 * async-signal-safe functions.  Threads other than the main one keep
 * these signals blocked (die_signals_block() around pthread_create()),
 * so that the handler runs on the thread that adds and removes paths
 * and never sees one half-removed.
 */
#define DIE_UNLINK_MAX 256
bool die_unlink_add(const char *path);
void die_unlink_remove(const char *path);
/* Remove every registered file now (async-signal-safe): for a fatal
 * signal's own handler, before it ends the process. */
void die_unlink_all(void);
/* Block those signals in the calling thread, the old mask in *old;
 * die_signals_restore(old) after.
 * Around pthread_create(), so that the new thread inherits the block, and
 * around a file's creation and die_unlink_add(), so that no signal comes
 * between the two. */
void die_signals_block(sigset_t *old);
void die_signals_restore(const sigset_t *old);

/* A broken invariant: print file:line and abort() so that a core or a
 * sanitizer report shows where. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Owned results; free() them.  Sizes are checked for overflow. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t len); /* adds a NUL after len bytes */

#endif
