/*
 * Files written whole beside the ones they replace (newfile.h): without
 * a name until they are complete where the file system allows it, locked
 * by their writer all along, registered for removal by die() and the
 * fatal signals while they have a name, and swept up by the next import
 * when their writer died anyway.
 */
#include "util/newfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

void newfile_tmp_name(struct buf *tmp, const char *target, unsigned attempt)
{
	/* a unique name: pid, time and a counter, retried if taken (a crash
	 * can leave one behind, and pids are reused) */
	struct timespec ts;
	char *dir_copy = xstrdup(target), *base_copy = xstrdup(target);

	clock_gettime(CLOCK_REALTIME, &ts);
	buf_reset(tmp);
	buf_addf(tmp, "%s/.%s.tmp%ld.%lx.%u", dirname(dir_copy),
		 basename(base_copy), (long)getpid(), (unsigned long)ts.tv_nsec,
		 attempt);
	free(dir_copy);
	free(base_copy);
}

/* The writer's lock on its file, which tells newfile_sweep() that it is
 * alive.  A sweeper may hold it for a moment (it looks at a file just
 * made, finds it young and lets go), so this waits; a file system
 * without locks is no failure: the sweep then goes by age and PID. */
static void lock_file(int fd)
{
	while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
}

/* A file made under its temporary name, exclusively, locked, and
 * registered from before it exists (a signal between the two would
 * otherwise leave it).  The fd, or -1 with errno (nf->tmp: the name last
 * tried). */
static int create_named(struct newfile *nf, const char *target, mode_t mode)
{
	unsigned attempt;
	int fd = -1, errnum = 0;

	for (attempt = 0; attempt < 100; attempt++) {
		sigset_t old;

		newfile_tmp_name(&nf->tmp, target, attempt);
		/* registered first, so that the registry's handlers are
		 * installed before the name exists, not while a SIGKILL
		 * could leave it; no signal until open says whether it does
		 * (another's file of that name is not to be removed) */
		die_signals_block(&old);
		die_unlink_add(nf->tmp.data);
		fd = open(nf->tmp.data, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			  mode);
		errnum = errno;
		if (fd < 0)
			die_unlink_remove(nf->tmp.data);
		die_signals_restore(&old);
		if (fd >= 0 || errnum != EEXIST)
			break;
	}
	if (fd < 0) {
		errno = errnum;
		return -1;
	}
	lock_file(fd);
	return fd;
}

/* The name registered and the file removed, nf's name forgotten. */
static void unname(struct newfile *nf)
{
	if (!nf->named)
		return;
	unlink(nf->tmp.data);
	die_unlink_remove(nf->tmp.data);
	nf->named = false;
}

/* A file without a name in dir, locked: the fd, or -1 with errno. */
static int open_nameless(const char *dir, mode_t mode)
{
#ifdef O_TMPFILE
	int fd;

	if (getenv("HEAPSIFT_NO_TMPFILE")) {
		errno = EOPNOTSUPP;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd >= 0)
		lock_file(fd);
	return fd;
#else
	(void)dir;
	(void)mode;
	errno = EOPNOTSUPP;
	return -1;
#endif
}

static void newfile_init(struct newfile *nf)
{
	nf->fd = -1;
	nf->named = false;
	buf_init(&nf->tmp);
}

int newfile_open_in(struct newfile *nf, const char *dir, mode_t mode)
{
	newfile_init(nf);
	nf->fd = open_nameless(dir, mode);
	return nf->fd < 0 ? -1 : 0;
}

int newfile_open(struct newfile *nf, const char *target, mode_t mode)
{
	char *copy = xstrdup(target);

	newfile_init(nf);
	/* without /proc it could only be copied into its name at the end:
	 * better named from the start */
	if (access("/proc/self/fd", X_OK) == 0)
		nf->fd = open_nameless(dirname(copy), mode);
	free(copy);
	if (nf->fd >= 0)
		return 0;
	/* no O_TMPFILE here, or it failed: named from the start (a real
	 * failure, a read-only folder, fails again, and says so) */
	nf->fd = create_named(nf, target, mode);
	if (nf->fd < 0)
		return -1;
	nf->named = true;
	return 0;
}

/* Copy nf's file into fd from its start: 0, or -1 with errno. */
static int copy_into(int from, int fd)
{
	unsigned char *buf = xmalloc((size_t)1 << 20);
	uint64_t at = 0;
	int rc = 0;

	for (;;) {
		ssize_t got = pread(from, buf, (size_t)1 << 20, (off_t)at);
		ssize_t put = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -1 : 0;
			break;
		}
		while (put < got) {
			ssize_t n = pwrite(fd, buf + put, (size_t)(got - put),
					   (off_t)(at + (uint64_t)put));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (!n)
					errno = ENOSPC;
				rc = -1;
				break;
			}
			put += n;
		}
		if (rc < 0)
			break;
		at += (uint64_t)got;
	}
	free(buf);
	return rc;
}

int newfile_name(struct newfile *nf, const char *target, unsigned flags,
		 const char **doing)
{
	struct stat st;
	int fd, errnum;

	*doing = "creating";
	if (nf->named)
		return 0;
	if (!(flags & NEWFILE_COPY)) {
		char proc[64];
		unsigned attempt;

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", nf->fd);
		for (attempt = 0; attempt < 100; attempt++) {
			sigset_t old;
			int rc;

			newfile_tmp_name(&nf->tmp, target, attempt);
			/* registered first, as in create_named(): the name
			 * lives from the link to the rename, two system calls
			 * apart */
			die_signals_block(&old);
			die_unlink_add(nf->tmp.data);
			rc = linkat(AT_FDCWD, proc, AT_FDCWD, nf->tmp.data,
				    AT_SYMLINK_FOLLOW);
			errnum = errno;
			if (rc < 0)
				die_unlink_remove(nf->tmp.data);
			die_signals_restore(&old);
			if (rc == 0) {
				nf->named = true;
				return 0;
			}
			if (errnum != EEXIST)
				break;
		}
	}
	/* no /proc, or a link refused: a copy, with the file's mode (which
	 * the caller may have set with fchmod) */
	if (fstat(nf->fd, &st) < 0)
		return -1;
	fd = create_named(nf, target, 0600);
	if (fd < 0)
		return -1;
	nf->named = true;
	*doing = "copying into";
	if (fchmod(fd, st.st_mode & 07777) < 0 || copy_into(nf->fd, fd) < 0 ||
	    fsync(fd) < 0) {
		errnum = errno;
		close(fd);
		unname(nf);
		errno = errnum;
		return -1;
	}
	close(nf->fd);
	nf->fd = fd;
	return 0;
}

/* HEAPSIFT_HOLD_NAMED (tests): wait here, named, until a signal ends
 * the process. */
static void hold_named(const struct newfile *nf)
{
	const char *v = getenv("HEAPSIFT_HOLD_NAMED");

	if (!v || !*v || !strcmp(v, "0"))
		return;
	fprintf(stderr, "heapsift: holding %s\n", nf->tmp.data);
	fflush(stderr);
	for (;;)
		pause();
}

int newfile_replace(struct newfile *nf, const char *target)
{
	int errnum = 0;

	if (!nf->named)
		BUG("newfile_replace: %s has no name yet", target);
	hold_named(nf);
	if (rename(nf->tmp.data, target) < 0) {
		errnum = errno;
		unlink(nf->tmp.data);
	}
	die_unlink_remove(nf->tmp.data);
	nf->named = false;
	/* the file was synced before it was named: a close has nothing
	 * left to report */
	close(nf->fd);
	nf->fd = -1;
	buf_release(&nf->tmp);
	if (errnum) {
		errno = errnum;
		return -1;
	}
	return 0;
}

int newfile_commit(struct newfile *nf, const char *target)
{
	const char *doing;
	int errnum;

	if (fsync(nf->fd) < 0 || newfile_name(nf, target, 0, &doing) < 0) {
		errnum = errno;
		newfile_abandon(nf);
		errno = errnum;
		return -1;
	}
	return newfile_replace(nf, target);
}

void newfile_abandon(struct newfile *nf)
{
	unname(nf);
	if (nf->fd >= 0)
		close(nf->fd);
	nf->fd = -1;
	buf_release(&nf->tmp);
}

/* Whether name is a temporary file's, ".BASE.tmpPID.NONCE.N"; its PID
 * in *pid. */
static bool tmp_pattern(const char *name, long *pid)
{
	const char *end = name + strlen(name), *p = end, *digits;
	long v = 0;

	if (name[0] != '.')
		return false;
	/* N */
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || p == name || *--p != '.')
		return false;
	/* NONCE */
	end = p;
	while (p > name && p[-1] && strchr("0123456789abcdef", p[-1]))
		p--;
	if (p == end || p == name || *--p != '.')
		return false;
	/* tmpPID */
	end = p;
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || end - p > 10)
		return false;
	digits = p;
	if (p - name < 5 || memcmp(p - 4, ".tmp", 4) != 0)
		return false;
	/* BASE: not empty */
	if (p - 4 == name + 1)
		return false;
	for (; digits < end; digits++)
		v = v * 10 + (*digits - '0');
	if (v <= 0)
		return false;
	*pid = v;
	return true;
}

unsigned newfile_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned removed = 0;
	time_t now = time(NULL);

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st, again;
		long pid;
		int fd;

		if (!tmp_pattern(de->d_name, &pid))
			continue;
		/* for writing where it can, which some file systems' locks
		 * (NFS) want for an exclusive lock */
		fd = openat(dirfd(d), de->d_name,
			    O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				    O_CLOEXEC);
		if (fd < 0 && errno == EACCES)
			fd = openat(dirfd(d), de->d_name,
				    O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					    O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		    /* held: its writer is alive (no locks here: go on by
		     * age and PID) */
		    (flock(fd, LOCK_EX | LOCK_NB) < 0 &&
		     (errno == EWOULDBLOCK || errno == EINTR)) ||
		    now - st.st_mtime < NEWFILE_STALE_SECONDS ||
		    !(kill((pid_t)pid, 0) < 0 && errno == ESRCH)) {
			close(fd);
			continue;
		}
		/* still the file looked at, not one made since */
		if (fstatat(dirfd(d), de->d_name, &again,
			    AT_SYMLINK_NOFOLLOW) == 0 &&
		    again.st_dev == st.st_dev && again.st_ino == st.st_ino &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
		close(fd);
	}
	closedir(d);
	return removed;
}
