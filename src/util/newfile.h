/*
 * A file written whole beside the one it replaces (a store, an export's
 * files, a report, the cache's notes), and put in place by a rename, so
 * that the target is always the old file or the new one.
 *
 * The new file has no name while it is written, where the file system
 * allows it (O_TMPFILE in the target's folder): a process killed
 * however, even by SIGKILL, leaves nothing behind.  It is synced, then
 * linked under a temporary name (.BASE.tmpPID.NONCE.N, beside the
 * target), and at once renamed over the target: the name lives for two
 * system calls.  Where the file system has no O_TMPFILE (NFS, some FUSE
 * file systems) it is made under that temporary name from the start.
 *
 * Either way, the writer holds an flock(2) on the file from its creation
 * on, and its temporary name is registered with die_unlink_add() while
 * it has one, so that die() and the fatal signals remove it (xalloc.h).
 * What is left by a process that could not remove it (SIGKILL, a power
 * cut, a crash between the link and the rename) is removed by
 * newfile_sweep(), which the next import into that folder runs.
 *
 * Not for files that are appended to or edited in place, nor for
 * anything but regular files; the caller picks the target and checks
 * what it may replace (cli_output_check).
 */
#ifndef HS_NEWFILE_H
#define HS_NEWFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/buf.h"

struct newfile {
	int fd;		/* the file being written; -1: none */
	bool named;	/* tmp is its name, registered with die_unlink_add */
	struct buf tmp; /* its temporary name; after a failure to make
			 * one, the name last tried (for messages) */
};

/* newfile_name: copy the file into its temporary name rather than link
 * it (where /proc is missing, and HEAPSIFT_STORE_NO_LINK=1 for tests). */
#define NEWFILE_COPY 2u

/* A temporary file is stale, and removed by newfile_sweep(), only once
 * it is at least this old (last written), besides unlocked and its
 * process gone (newfile_sweep). */
#define NEWFILE_STALE_SECONDS 600

/*
 * Begin target's new file, in target's folder, with mode (less the
 * umask, as open(2)'s), opened for reading and writing: without a name
 * where the file system allows it and /proc is there to link it by (and
 * HEAPSIFT_NO_TMPFILE is not set, which tests use to take the other
 * way), else under its temporary name.
 * 0, or -1 with errno (nf->tmp: the name that could not be made).  nf
 * is initialised either way; newfile_abandon() releases it.
 */
int newfile_open(struct newfile *nf, const char *target, mode_t mode);
/* The same in folder dir, for a target not known yet, without a name or
 * not at all (-1, errno EOPNOTSUPP where the file system cannot): the
 * store's samples as they come, which a kill must never leave behind. */
int newfile_open_in(struct newfile *nf, const char *dir, mode_t mode);

/*
 * Give the file its temporary name beside target, if it has none: a link
 * (linkat of /proc/self/fd/N), else, or with NEWFILE_COPY, a copy into a
 * file made under that name with the file's mode, synced.  Sync the file
 * first (fsync), so that the name appears only on whole data.  0, or -1
 * with errno and *doing saying what failed ("creating" or "copying
 * into", followed by nf->tmp in a message).
 */
int newfile_name(struct newfile *nf, const char *target, unsigned flags,
		 const char **doing);

/*
 * Rename the named file over target and close it.  0, or -1 with errno
 * (the temporary file removed, target untouched).  Either way nf holds
 * no file after.  The directory is not synced: the caller says what a
 * failure to do so means.
 *
 * HEAPSIFT_HOLD_NAMED=1 (tests): before the rename, say "heapsift:
 * holding TMP" on standard error and wait for a signal, so that a test
 * can interrupt the writer while the file has its name.
 */
int newfile_replace(struct newfile *nf, const char *target);

/* fsync, newfile_name() and newfile_replace() in one, for writers with
 * one message for every failure: 0, or -1 with errno (the temporary file
 * removed, nf released). */
int newfile_commit(struct newfile *nf, const char *target);

/* Close and remove the file (a failure, a write abandoned), release nf;
 * a no-op on an nf that holds no file. */
void newfile_abandon(struct newfile *nf);

/* The attempt-th temporary name for target: "DIR/.BASE.tmpPID.NONCE.N",
 * NONCE the clock's nanoseconds in hex. */
void newfile_tmp_name(struct buf *tmp, const char *target, unsigned attempt);

/*
 * Remove the temporary files in dir that writers which died left: names
 * of the pattern above, regular files, that no process holds locked
 * (a writer always does: the kernel lets go of a dead process's lock
 * however it died), last written NEWFILE_STALE_SECONDS or more ago, and
 * whose PID is not a live process here (kill(pid, 0) fails with ESRCH).
 * Each proof covers a gap in another: the PID may have been reused (the
 * lock and the age still tell), a writer on another host of an NFS mount
 * without shared locks has a PID meaningless here (the age tells: such a
 * writer's file is written all along), an older heapsift did not lock
 * (its PID tells, on this host).  The number removed; problems (a folder
 * that cannot be read) are not errors: nothing is removed.
 */
unsigned newfile_sweep(const char *dir);

#endif
