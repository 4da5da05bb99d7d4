/*
 * The files of a folder given as an input (an unpacked bundle), in a
 * fixed order and without ever leaving it: the one walk of a folder that
 * the input walker (walk.c: each file a member) and the cache store's key
 * (src/cli/cache.c: each file's bytes hashed) both take, so that the two
 * always see the same files.
 *
 * Each folder's entries are visited in the byte order of their names, a
 * subfolder's files in its place, so two walks of the same tree give the
 * same order whatever readdir() returns.  Nothing is followed that could
 * lead out of the folder or round in a circle:
 *   - a symbolic link is never followed (its target, when inside the
 *     folder, is visited under its own name); one that leads out of the
 *     folder, nowhere or round a loop is reported, one that stays inside
 *     is passed over quietly;
 *   - a subfolder that is one of its own ancestors (a bind mount) is
 *     reported and not entered;
 *   - a fifo, a device or a socket is passed over, never opened (an open
 *     for reading could block);
 *   - every open is relative to the folder above (openat) with
 *     O_NOFOLLOW, so an entry swapped for a link after it was listed is
 *     not followed either, and O_NONBLOCK, so one swapped for a fifo
 *     does not block.
 * It reads no file's bytes and knows nothing of archives or limits: the
 * callbacks do.
 */
#ifndef HS_FOLDER_H
#define HS_FOLDER_H

#include <stdbool.h>
#include <sys/stat.h>

/* A relative path longer than this is not visited (reported): it bounds
 * how deep the walk goes, and the folders it holds open. */
#define FOLDER_PATH_MAX 4095

enum folder_skip {
	FOLDER_LINK_OUTSIDE, /* a link out of the folder */
	FOLDER_LINK_BROKEN,  /* a link to nothing */
	FOLDER_LINK_LOOP,    /* a link that resolves round a loop */
	FOLDER_LOOP,	     /* a subfolder that is its own ancestor */
	FOLDER_TOO_DEEP,     /* a path past FOLDER_PATH_MAX */
	FOLDER_UNREADABLE,   /* an entry that cannot be opened or listed */
};

struct folder_ops {
	/*
	 * Each entry, of any type, before anything else is done with it
	 * (the walker counts them against --max-members).  rel is its path
	 * inside the folder.  False stops the walk.
	 */
	bool (*entry)(void *ctx, const char *rel);
	/*
	 * A regular file: fd is open for reading (closed by the walk after
	 * the call), st its fstat().  False stops the walk.
	 */
	bool (*file)(void *ctx, const char *rel, int fd, const struct stat *st);
	/*
	 * An entry not visited, and why; detail is a link's target or the
	 * system's reason (strerror), "" when there is none.
	 */
	void (*skipped)(void *ctx, const char *rel, enum folder_skip why,
			const char *detail);
};

/*
 * Walk the folder open as dirfd (borrowed: not closed), whose real path
 * (realpath()) is real, for telling where its links lead.  Returns false
 * when a callback stopped the walk, else true.
 */
bool folder_walk(int dirfd, const char *real, const struct folder_ops *ops,
		 void *ctx);

#endif
