/*
 * The allocation wrappers and fatal exits declared in xalloc.h, and the
 * registry of temporary files that die() and the fatal signals remove.
 */
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/size.h"

/* die() may run on a worker thread while the main one registers, and a
 * signal's handler at any moment: the slots are atomic pointers, which
 * the handler may read (lock-free, so async-signal-safe) */
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2,
	       "the signal handler needs lock-free atomic pointers");
static const char *_Atomic die_unlink_paths[DIE_UNLINK_MAX];

/* The signals that end the process by default and can be caught (a
 * crash's, SIGSEGV and the like, are left to the core and the
 * sanitizers; the next import removes what they leave, store.h). */
static const int die_signals[] = {
	SIGHUP,	   SIGINT,  SIGQUIT, SIGTERM, SIGPIPE,	 SIGALRM,
	SIGUSR1,   SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
	SIGPOLL,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};
#define N_DIE_SIGNALS (sizeof(die_signals) / sizeof(*die_signals))

/* The handler's installation, while any path is registered: under the
 * lock, never touched by the handler but for die_prev, which is written
 * before the handler is installed and read by it. */
static pthread_mutex_t die_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned die_n_paths;
static struct sigaction die_prev[N_DIE_SIGNALS];
static bool die_caught[N_DIE_SIGNALS];

void die_unlink_all(void)
{
	size_t i;

	for (i = 0; i < DIE_UNLINK_MAX; i++) {
		const char *p = atomic_exchange(&die_unlink_paths[i], NULL);

		if (p)
			unlink(p);
	}
}

static void die_on_signal(int sig)
{
	int saved = errno;
	size_t i;

	die_unlink_all();
	/* the action found before, then the signal again: delivered once
	 * this handler returns (it is blocked until then), it ends the
	 * process as it would have, or runs curses' handler */
	for (i = 0; i < N_DIE_SIGNALS; i++)
		if (die_signals[i] == sig)
			sigaction(sig, &die_prev[i], NULL);
	raise(sig);
	errno = saved;
}

static void sigset_die(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < N_DIE_SIGNALS; i++)
		sigaddset(set, die_signals[i]);
}

static void die_catch(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = die_on_signal;
	/* one at a time: a second signal waits for the first's end */
	sigset_die(&sa.sa_mask);
	for (i = 0; i < N_DIE_SIGNALS; i++) {
		die_caught[i] = false;
		if (sigaction(die_signals[i], NULL, &die_prev[i]) < 0 ||
		    die_prev[i].sa_handler == SIG_IGN)
			continue; /* nohup's SIGHUP stays ignored */
		die_caught[i] = sigaction(die_signals[i], &sa, NULL) == 0;
	}
}

static void die_uncatch(void)
{
	size_t i;

	for (i = 0; i < N_DIE_SIGNALS; i++)
		if (die_caught[i])
			sigaction(die_signals[i], &die_prev[i], NULL);
}

bool die_unlink_add(const char *path)
{
	size_t i;

	for (i = 0; i < DIE_UNLINK_MAX; i++) {
		const char *none = NULL;

		if (atomic_compare_exchange_strong(&die_unlink_paths[i], &none,
						   path)) {
			pthread_mutex_lock(&die_lock);
			if (die_n_paths++ == 0)
				die_catch();
			pthread_mutex_unlock(&die_lock);
			return true;
		}
	}
	return false; /* left to newfile_sweep() */
}

void die_unlink_remove(const char *path)
{
	size_t i;

	for (i = 0; i < DIE_UNLINK_MAX; i++) {
		const char *p = path;

		if (atomic_compare_exchange_strong(&die_unlink_paths[i], &p,
						   NULL)) {
			pthread_mutex_lock(&die_lock);
			if (die_n_paths && --die_n_paths == 0)
				die_uncatch();
			pthread_mutex_unlock(&die_lock);
			return;
		}
	}
}

void die_signals_block(sigset_t *old)
{
	sigset_t set;

	sigset_die(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void die_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void die(const char *fmt, ...)
{
	va_list ap;

	die_unlink_all();
	fflush(stdout);
	fputs("heapsift: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "heapsift: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		die("out of memory reallocating to %zu bytes", size);
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (!size_mul(n, size, &total))
		die("allocation of %zu x %zu bytes overflows", n, size);
	return xrealloc(p, total);
}

char *xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

char *xmemdup(const void *p, size_t len)
{
	size_t total;
	char *q;

	if (!size_add(len, 1, &total))
		die("allocation of %zu bytes overflows", len);
	q = xmalloc(total);
	if (len)
		memcpy(q, p, len);
	q[len] = '\0';
	return q;
}
