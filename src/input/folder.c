/*
 * The walk of a folder given as an input (folder.h): its entries in name
 * order, never through a link, never round a loop, never opening what
 * is not a regular file or a folder.
 */
#include "input/folder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/xalloc.h"

struct folder_id {
	dev_t dev;
	ino_t ino;
};

struct folder_run {
	const struct folder_ops *ops;
	void *ctx;
	const char *real;
	struct buf rel;
	struct folder_id *up; /* the folders from the top to this one */
	size_t n_up, up_alloc;
	bool stop;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in folder dirfd, sorted (owned by the caller, each and the
 * array); NULL with errno set when it cannot be listed. */
static char **list_names(int dirfd, size_t *n)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char **names = NULL;
	size_t alloc = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int errnum = errno;

		close(fd);
		errno = errnum;
		return NULL;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			names = xreallocarray(names, alloc, sizeof(*names));
		}
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), by_name);
	else
		names = xmalloc(sizeof(*names));
	return names;
}

/* Is resolved (a real path) the folder or inside it? */
static bool inside(const char *resolved, const char *real)
{
	size_t len = strlen(real);

	if (len == 1 && real[0] == '/')
		return true;
	return !strncmp(resolved, real, len) &&
	       (resolved[len] == '/' || resolved[len] == '\0');
}

/* A link, never followed: said where it leads out, nowhere or round. */
static void link_entry(struct folder_run *f, int dirfd, const char *name)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(dirfd, name, target, sizeof(target) - 1);
	struct buf full = BUF_INIT;
	char *resolved;

	target[len > 0 ? len : 0] = '\0';
	/* no link above it was followed: this is its real place */
	buf_addf(&full, "%s/%s", strcmp(f->real, "/") ? f->real : "",
		 f->rel.data);
	resolved = realpath(full.data, NULL);
	if (!resolved)
		f->ops->skipped(f->ctx, f->rel.data,
				errno == ELOOP ? FOLDER_LINK_LOOP
					       : FOLDER_LINK_BROKEN,
				target);
	else if (!inside(resolved, f->real))
		f->ops->skipped(f->ctx, f->rel.data, FOLDER_LINK_OUTSIDE,
				target);
	free(resolved);
	buf_release(&full);
}

static void walk_folder(struct folder_run *f, int dirfd);

static void sub_folder(struct folder_run *f, int dirfd, const char *name)
{
	int fd = openat(dirfd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	size_t i;

	if (fd < 0 || fstat(fd, &st) < 0) {
		f->ops->skipped(f->ctx, f->rel.data, FOLDER_UNREADABLE,
				strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < f->n_up; i++)
		if (f->up[i].dev == st.st_dev && f->up[i].ino == st.st_ino) {
			f->ops->skipped(f->ctx, f->rel.data, FOLDER_LOOP, "");
			close(fd);
			return;
		}
	if (f->n_up == f->up_alloc) {
		f->up_alloc *= 2;
		f->up = xreallocarray(f->up, f->up_alloc, sizeof(*f->up));
	}
	f->up[f->n_up++] = (struct folder_id){st.st_dev, st.st_ino};
	walk_folder(f, fd);
	f->n_up--;
	close(fd);
}

static void regular_file(struct folder_run *f, int dirfd, const char *name)
{
	/* O_NONBLOCK: a fifo put in the file's place since it was listed
	 * must not block the open */
	int fd = openat(dirfd, name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
				O_NOCTTY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		f->ops->skipped(f->ctx, f->rel.data, FOLDER_UNREADABLE,
				strerror(errno));
	} else if (S_ISREG(st.st_mode)) {
		/* reads of a regular file never block: the flag is moot,
		 * but cleared for whoever reads it */
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (!f->ops->file(f->ctx, f->rel.data, fd, &st))
			f->stop = true;
	}
	if (fd >= 0)
		close(fd);
}

static void walk_folder(struct folder_run *f, int dirfd)
{
	size_t base = f->rel.len, n, i;
	char **names = list_names(dirfd, &n);
	struct stat st;

	if (!names) {
		f->ops->skipped(f->ctx, base ? f->rel.data : ".",
				FOLDER_UNREADABLE, strerror(errno));
		return;
	}
	for (i = 0; i < n && !f->stop; i++) {
		buf_setlen(&f->rel, base);
		if (base)
			buf_addch(&f->rel, '/');
		buf_adds(&f->rel, names[i]);
		if (!f->ops->entry(f->ctx, f->rel.data)) {
			f->stop = true;
			break;
		}
		if (f->rel.len > FOLDER_PATH_MAX)
			f->ops->skipped(f->ctx, f->rel.data, FOLDER_TOO_DEEP,
					"");
		else if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			f->ops->skipped(f->ctx, f->rel.data, FOLDER_UNREADABLE,
					strerror(errno));
		else if (S_ISLNK(st.st_mode))
			link_entry(f, dirfd, names[i]);
		else if (S_ISDIR(st.st_mode))
			sub_folder(f, dirfd, names[i]);
		else if (S_ISREG(st.st_mode))
			regular_file(f, dirfd, names[i]);
		/* else a fifo, device or socket: never opened */
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	buf_setlen(&f->rel, base);
}

bool folder_walk(int dirfd, const char *real, const struct folder_ops *ops,
		 void *ctx)
{
	struct folder_run f;
	struct stat st;

	memset(&f, 0, sizeof(f));
	f.ops = ops;
	f.ctx = ctx;
	f.real = real;
	buf_init(&f.rel);
	f.up_alloc = 16;
	f.up = xreallocarray(NULL, f.up_alloc, sizeof(*f.up));
	if (fstat(dirfd, &st) == 0)
		f.up[f.n_up++] = (struct folder_id){st.st_dev, st.st_ino};
	walk_folder(&f, dirfd);
	free(f.up);
	buf_release(&f.rel);
	return !f.stop;
}
