/*
 * Writers of one store take turns (store.h, store_lock): an exclusive
 * flock(2) on the store file itself, or on its folder while there is no
 * store yet, held from before the old store is read until the new one
 * has been renamed over it.  Readers take no lock: they map a file that
 * a writer never changes, only replaces.
 *
 * The lock is on the file's inode, and a writer replaces that inode, so
 * a writer that was waiting checks, once it holds the lock, that the
 * path still names the file it locked; if not (the other writer renamed
 * its new store into place), it locks the new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/xalloc.h"

/* flock, through signals; 0, or -1 with errno (EWOULDBLOCK with nb) */
static int lock_fd(int fd, bool nb)
{
	int rc;

	do
		rc = flock(fd, LOCK_EX | (nb ? LOCK_NB : 0));
	while (rc < 0 && errno == EINTR);
	return rc;
}

/* Lock fd, saying once that it waits; 0 or -1 with errno. */
static int lock_or_wait(int fd, store_lock_wait_fn *wait, void *ctx, bool *said)
{
	if (lock_fd(fd, true) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -1;
	if (!*said && wait)
		wait(ctx);
	*said = true;
	return lock_fd(fd, false);
}

int store_lock(const char *path, store_lock_wait_fn *wait, void *ctx,
	       int *fd_out, struct err *e)
{
	bool said = false;
	unsigned tries;

	*fd_out = -1;
	/* each turn of the loop follows one replacement by another
	 * writer; a bound keeps a pathological race from spinning */
	for (tries = 0; tries < 1000; tries++) {
		struct stat locked, now;
		int fd = open(path,
			      O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		bool dir = false;

		if (fd < 0 && errno == ENOENT) {
			/* no store yet: its folder stands for it */
			char *copy = xstrdup(path);

			fd = open(dirname(copy),
				  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			free(copy);
			dir = true;
		}
		if (fd < 0)
			return err_set(e, ERR_IO, "store: cannot lock %s: %s",
				       path, strerror(errno));
		if (lock_or_wait(fd, wait, ctx, &said) < 0) {
			int errnum = errno;

			close(fd);
			return err_set(e, ERR_IO, "store: cannot lock %s: %s",
				       path, strerror(errnum));
		}
		/* still the file (or still no file) that was locked? */
		if (dir ? stat(path, &now) < 0 && errno == ENOENT
			: fstat(fd, &locked) == 0 && stat(path, &now) == 0 &&
				    locked.st_dev == now.st_dev &&
				    locked.st_ino == now.st_ino) {
			*fd_out = fd;
			return 0;
		}
		close(fd);
	}
	return err_set(e, ERR_IO,
		       "store: cannot lock %s: it keeps being replaced", path);
}

void store_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the descriptor */
}
