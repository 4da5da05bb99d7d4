/*
 * The cache of stores made from inputs (browse and report import into
 * it): $XDG_CACHE_HOME/heapsift, else ~/.cache/heapsift, made 0700.  A
 * store there is named by a hash of the inputs' absolute paths, sizes
 * and modification times and of heapsift's and the store format's
 * versions, so it is reused while they are unchanged.
 *
 * What is in the folder is trusted only as far as the folder is: it
 * must be a real folder (not a symbolic link) of the user's own that no
 * one else can write into, and a cache entry a regular file of the
 * user's that no one else can write; anything else is refused with a
 * message, never followed (a link planted there would otherwise have
 * the import replace whatever it points to).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "store/store.h"
#include "util/buf.h"

/* Is path (never followed) a folder (dir) or a regular file of ours that
 * no one else can write?  1 yes, 0 missing, -1 after a message. */
static int cache_trusted(const char *cmd, const char *path, bool dir)
{
	const char *what = dir ? "the cache folder" : "the cache file";
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT && !dir)
			return 0;
		fprintf(stderr, "heapsift %s: error: %s %s: %s\n", cmd, what,
			path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode) ||
	    (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		fprintf(stderr,
			"heapsift %s: error: %s %s is %s; not used (remove "
			"it, or import with heapsift import -o CASE.hsdb "
			"and give that)\n",
			cmd, what, path,
			S_ISLNK(st.st_mode)   ? "a symbolic link"
			: S_ISDIR(st.st_mode) ? "a folder"
			: dir		      ? "not a folder"
					      : "not a regular file");
		return -1;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr,
			"heapsift %s: error: %s %s belongs to user %ld, not "
			"to you (%ld); not used (remove it, or import with "
			"heapsift import -o CASE.hsdb and give that)\n",
			cmd, what, path, (long)st.st_uid, (long)geteuid());
		return -1;
	}
	if (st.st_mode & 022) {
		fprintf(stderr,
			"heapsift %s: error: %s %s can be written by others "
			"(mode %04o); not used (chmod go-w %s)\n",
			cmd, what, path, (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	return 1;
}

int cli_cache_check(const char *cmd, const char *path)
{
	return cache_trusted(cmd, path, false);
}

/* The cache folder, made (0700) when missing; NULL after a message. */
static char *cache_dir(const char *cmd)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct buf b = BUF_INIT;
	size_t i;

	/* XDG: a relative path is invalid and must be ignored */
	if (x && x[0] == '/')
		buf_addf(&b, "%s/heapsift", x);
	else if (home && *home)
		buf_addf(&b, "%s/.cache/heapsift", home);
	else {
		fprintf(stderr,
			"heapsift %s: error: neither "
			"XDG_CACHE_HOME nor HOME is set: no place "
			"for the cache store; import with heapsift "
			"import -o CASE.hsdb and give that\n",
			cmd);
		buf_release(&b);
		return NULL;
	}
	for (i = 1; i <= b.len; i++)
		if (i == b.len || b.data[i] == '/') {
			char c = b.data[i];

			b.data[i] = '\0';
			if (mkdir(b.data, 0700) < 0 && errno != EEXIST) {
				fprintf(stderr,
					"heapsift %s: error: cannot make "
					"the cache folder %s: %s\n",
					cmd, b.data, strerror(errno));
				buf_release(&b);
				return NULL;
			}
			b.data[i] = c;
		}
	if (cache_trusted(cmd, b.data, true) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* FNV-1a: the name must be the same in every run, and hash_bytes() is
 * seeded per process (against hostile keys, no concern here). */
static uint64_t fnv1a(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The cache store's path for these inputs; NULL after a message. */
char *cli_cache_path(const char *cmd, int n, char **inputs)
{
	struct buf key = BUF_INIT, path = BUF_INIT;
	char *dir;
	int i;

	/* a new heapsift or store format makes a new cache store */
	buf_addf(&key, "heapsift %s store %u.%u\n", HS_VERSION,
		 (unsigned)STORE_MAJOR, (unsigned)STORE_MINOR);
	for (i = 0; i < n; i++) {
		char real[PATH_MAX];
		struct stat st;

		if (!strcmp(inputs[i], "-")) {
			fprintf(stderr,
				"heapsift %s: error: standard input "
				"cannot be cached; heapsift import -o "
				"CASE.hsdb - and give CASE.hsdb\n",
				cmd);
			buf_release(&key);
			return NULL;
		}
		if (!realpath(inputs[i], real) || stat(real, &st) < 0) {
			fprintf(stderr, "heapsift %s: error: %s: %s\n", cmd,
				inputs[i], strerror(errno));
			buf_release(&key);
			return NULL;
		}
		buf_addf(&key, "%s\n%lld %lld.%09ld\n", real,
			 (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec);
	}
	dir = cache_dir(cmd);
	if (!dir) {
		buf_release(&key);
		return NULL;
	}
	buf_addf(&path, "%s/%016llx.hsdb", dir,
		 (unsigned long long)fnv1a(key.data, key.len));
	free(dir);
	buf_release(&key);
	return buf_detach(&path, NULL);
}
