/*
 * The cache of stores made from inputs (browse and report import into
 * it): $XDG_CACHE_HOME/heapsift, else ~/.cache/heapsift, made 0700.  A
 * store there is named by a hash of the inputs' absolute paths, sizes
 * and contents (each file's XXH64, read whole: see content_key()) and
 * of heapsift's and the store format's versions, so it is reused while
 * they are unchanged, and never once a byte of an input has changed.
 *
 * What is in the folder is trusted only as far as the folder is: it
 * must be a real folder (not a symbolic link) of the user's own that no
 * one else can write into, and a cache entry a regular file of the
 * user's that no one else can write; anything else is refused with a
 * message, never followed (a link planted there would otherwise have
 * the import replace whatever it points to).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/intake.h"
#include "cli/output.h"
#include "importers/importer.h"
#include "importers/registry.h"
#include "input/folder.h"
#include "input/walk.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/newfile.h"
#include "util/term.h"
#include "util/xalloc.h"
#include "util/xxh64.h"

/* Is path (never followed) a folder (dir) or a regular file of ours that
 * no one else can write?  1 yes, 0 missing, -1 after a message. */
static int cache_trusted(const char *cmd, const char *path, bool dir)
{
	const char *what = dir ? "the cache folder" : "the cache file";
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT && !dir)
			return 0;
		term_fprintf(stderr, "heapsift %s: error: %s %s: %s\n", cmd,
			     what, path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode) ||
	    (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		term_fprintf(
			stderr,
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
		term_fprintf(
			stderr,
			"heapsift %s: error: %s %s belongs to user %ld, not "
			"to you (%ld); not used (remove it, or import with "
			"heapsift import -o CASE.hsdb and give that)\n",
			cmd, what, path, (long)st.st_uid, (long)geteuid());
		return -1;
	}
	if (st.st_mode & 022) {
		term_fprintf(
			stderr,
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
		term_fprintf(stderr,
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
				term_fprintf(stderr,
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

/* Read fd whole through XXH64: 0 with *len and *hash, or an errno. */
static int hash_fd(int fd, uint64_t *len, uint64_t *hash)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *data = xmalloc(CHUNK);
	struct xxh64 h;
	int errnum = 0;

	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	xxh64_init(&h, 0);
	*len = 0;
	for (;;) {
		ssize_t got = read(fd, data, CHUNK);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			errnum = errno;
			break;
		}
		if (!got)
			break;
		xxh64_update(&h, data, (size_t)got);
		*len += (uint64_t)got;
	}
	free(data);
	*hash = xxh64_value(&h);
	return errnum;
}

/* A folder's key: what its walk (input/folder.h, the walker's own) sees,
 * every file's path, size and bytes, and every entry it reports. */
struct folder_key {
	const char *cmd, *input;
	struct buf *key;
	uint64_t entries;
	bool failed;
};

static bool key_entry(void *ctx, const char *rel)
{
	struct folder_key *fk = ctx;

	(void)rel;
	/* the import of a store command stops there too (its limits are
	 * the defaults): what comes after changes nothing it reads */
	return ++fk->entries <= LIMIT_MEMBERS;
}

static bool key_file(void *ctx, const char *rel, int fd, const struct stat *st)
{
	struct folder_key *fk = ctx;
	uint64_t len, hash;
	int errnum = hash_fd(fd, &len, &hash);

	(void)st;
	if (errnum) {
		term_fprintf(stderr,
			     "heapsift %s: error: %s/%s: cannot read: %s\n",
			     fk->cmd, fk->input, rel, strerror(errnum));
		fk->failed = true;
		return false;
	}
	buf_addf(fk->key, "%s\n%llu %016llx\n", rel, (unsigned long long)len,
		 (unsigned long long)hash);
	return true;
}

static void key_skipped(void *ctx, const char *rel, enum folder_skip why,
			const char *detail)
{
	struct folder_key *fk = ctx;

	/* what the import warns about is kept with the store's status */
	buf_addf(fk->key, "%s\n%d %s\n", rel, (int)why, detail);
}

static int folder_key(const char *cmd, const char *input, const char *real,
		      struct buf *key)
{
	static const struct folder_ops ops = {key_entry, key_file, key_skipped};
	struct folder_key fk = {cmd, input, key, 0, false};
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		term_fprintf(stderr,
			     "heapsift %s: error: %s: cannot open: %s\n", cmd,
			     input, strerror(errno));
		return -1;
	}
	buf_addf(key, "%s/\n", real);
	folder_walk(fd, real, &ops, &fk);
	close(fd);
	return fk.failed ? -1 : 0;
}

/*
 * The key of one input, real (its absolute path, st its stat), added to
 * key: 0, or -1 after a message.
 *
 * The key must change whenever the bytes do.  Size and modification time
 * do not: a recording copied over another of the same size keeps the
 * time touch -r, cp -p, tar or rsync give it, and a stale report came
 * back without a word (issue 39).  A sample of the file (its JFR chunk
 * headers, its first and last megabytes) would miss a change elsewhere,
 * and a bundle's compressed bytes say nothing of their members' headers
 * without inflating them.  So a regular file is read whole through XXH64
 * (util/xxh64.h), at 3 to 4 GB/s from the page cache: the cost is one
 * more read of each input on every use of the cache, about 2.5 ms for
 * the biggest fixture (2.5 MB) and 0.3 s a gigabyte on a hit, against
 * an import that reads it several times slower (docs/perf-log.md,
 * 2026-11-29).  A folder is every file the walker reads in it, each read
 * so (folder_key()): a file changed, added or removed changes the key.
 * A pipe, device or socket cannot be read twice, once for the key and
 * once for the import: refused, as standard input is.
 */
static int content_key(const char *cmd, const char *input, const char *real,
		       const struct stat *st, struct buf *key)
{
	struct stat fst;
	uint64_t len, hash;
	int fd, errnum;

	if (S_ISDIR(st->st_mode))
		return folder_key(cmd, input, real, key);
	/* O_NONBLOCK: a fifo, or one put in the file's place since the
	 * stat, must not hang the open */
	fd = S_ISREG(st->st_mode)
		     ? open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
		     : -2;
	if (fd == -1 || (fd >= 0 && fstat(fd, &fst) < 0)) {
		term_fprintf(stderr,
			     "heapsift %s: error: %s: cannot open: %s\n", cmd,
			     input, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd < 0 || !S_ISREG(fst.st_mode)) {
		term_fprintf(
			stderr,
			"heapsift %s: error: %s is not a regular file (a pipe, "
			"device or socket), whose bytes cannot be read once "
			"for the cache's key and again for the import; "
			"heapsift import -o CASE.hsdb %s, and give "
			"CASE.hsdb\n",
			cmd, input, input);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	errnum = hash_fd(fd, &len, &hash);
	close(fd);
	if (errnum) {
		term_fprintf(stderr,
			     "heapsift %s: error: %s: cannot read: %s\n", cmd,
			     input, strerror(errnum));
		return -1;
	}
	/* the bytes hashed, not the size stat said before */
	buf_addf(key, "%s\n%llu %016llx\n", real, (unsigned long long)len,
		 (unsigned long long)hash);
	return 0;
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
			term_fprintf(stderr,
				     "heapsift %s: error: standard input "
				     "cannot be cached; heapsift import -o "
				     "CASE.hsdb - and give CASE.hsdb\n",
				     cmd);
			buf_release(&key);
			return NULL;
		}
		if (!realpath(inputs[i], real) || stat(real, &st) < 0) {
			term_fprintf(
				stderr,
				"heapsift %s: error: %s: cannot open: %s\n",
				cmd, inputs[i], strerror(errno));
			buf_release(&key);
			return NULL;
		}
		if (content_key(cmd, inputs[i], real, &st, &key) < 0) {
			buf_release(&key);
			return NULL;
		}
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

/*
 * Beside a cache store, "STORE.status" keeps the exit status of the
 * import that made it when that was not 0: "3" (damaged data skipped, a
 * limit hit), or "1" (an input not read).  A store whose import said 1
 * is not reused: the inputs are read again and the error said again.
 */
static char *status_path(const char *store)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s.status", store);
	return buf_detach(&b, NULL);
}

/* The kept status: EXIT_OK when there is none, -1 after a message. */
static int status_read(const char *cmd, const char *store)
{
	char *p = status_path(store);
	int rc = cli_cache_check(cmd, p), st = EXIT_OK;
	FILE *f;

	if (rc > 0 && (f = fopen(p, "r")) != NULL) {
		if (fscanf(f, "%d", &st) != 1 ||
		    (st != EXIT_WARNED && st != EXIT_ERROR))
			st = EXIT_ERROR; /* unreadable: import again */
		fclose(f);
	}
	free(p);
	return rc < 0 ? -1 : st;
}

void cli_cache_keep_status(const char *cmd, const char *store, int st)
{
	char *p = status_path(store);
	struct newfile nf;
	char line[32];
	int len = snprintf(line, sizeof(line), "%d\n", st);
	bool ok;

	if (st == EXIT_OK) {
		unlink(p);
		free(p);
		return;
	}
	/* newfile.h: nothing left behind by a signal */
	ok = newfile_open(&nf, p, 0666) == 0;
	if (ok) {
		errno = 0;
		if (write(nf.fd, line, (size_t)len) != len) {
			if (!errno)
				errno = ENOSPC; /* a short write */
			ok = false;
		}
	}
	if (!ok) {
		int errnum = errno;

		newfile_abandon(&nf);
		errno = errnum;
	} else {
		ok = newfile_commit(&nf, p) == 0;
	}
	if (!ok) {
		term_fprintf(stderr,
			     "heapsift %s: warning: cannot write %s: %s (the "
			     "cache store will be imported again)\n",
			     cmd, p, strerror(errno));
		unlink(store);
	}
	free(p);
}

/*
 * One plain file given where a store is read that is no store and that
 * no importer recognises: a damaged store, or a file of another kind.
 * Both are said, with the store's own words (what is damaged in it), and
 * true returned; false for anything that may be imported (a recording,
 * a bundle, a compressed file, a pipe: the import says the rest).
 */
static bool neither_store_nor_input(const char *cmd, const char *path)
{
	static unsigned char prefix[PROBE_PREFIX];
	struct probe_result pr;
	struct store *s;
	struct stat st;
	struct err e;
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false; /* the import names the failure */
	got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
		      ? read(fd, prefix, sizeof(prefix))
		      : -1;
	close(fd);
	if (got < 0)
		return false;
	pr = importer_probe(prefix, (size_t)got, got < (ssize_t)sizeof(prefix));
	if (pr.ops || walk_sniff(prefix, (size_t)got) != CONTAINER_NONE)
		return false;
	err_init(&e);
	if (store_open(path, &s, &e) == 0) {
		store_close(s); /* cannot be: it failed cli_is_store() */
		return false;
	}
	term_fprintf(
		stderr,
		"heapsift %s: error: %s: neither a heapsift store (%s) nor "
		"a recording or report heapsift reads (no importer "
		"recognises its first bytes: heapsift reads JFR and heapsift "
		"agent recordings, HotSpot code-heap reports and OpenJ9 "
		"javacores)\n",
		cmd, path, e.msg);
	return true;
}

int cli_store_path(const char *cmd, int n, char **operands, char **path,
		   int *status)
{
	struct input_limits lim;
	struct cli_import_opts io = {cmd, NULL, false, 0, &lim, stderr};
	char *cached;
	int i, rc, kept;

	*path = NULL;
	*status = EXIT_OK;
	if (n < 1)
		return cli_usage_error(cmd, "give a store, or the recordings "
					    "or bundles to read");
	if (n == 1 && cli_is_store(operands[0])) {
		*path = xstrdup(operands[0]);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (cli_is_store(operands[i]))
			return cli_usage_error(
				cmd,
				"%s is a heapsift store: give it "
				"alone, or give only inputs to "
				"import (heapsift import --append "
				"adds inputs to a store)",
				operands[i]);
	if (n == 1 && neither_store_nor_input(cmd, operands[0]))
		return EXIT_ERROR;
	cached = cli_cache_path(cmd, n, operands);
	if (!cached)
		return EXIT_ERROR;
	rc = cli_cache_check(cmd, cached);
	kept = rc > 0 ? status_read(cmd, cached) : EXIT_OK;
	if (rc < 0 || kept < 0) {
		free(cached);
		return EXIT_ERROR;
	}
	if (rc > 0 && kept != EXIT_ERROR && cli_is_store(cached)) {
		term_fprintf(stderr, "heapsift %s: using %s\n", cmd, cached);
		if (kept == EXIT_WARNED)
			term_fprintf(
				stderr,
				"heapsift %s: note: its import skipped damaged "
				"data or hit a limit (exit status 3); heapsift "
				"scan lists the inputs' members and their "
				"status\n",
				cmd);
		*path = cached;
		*status = kept;
		cli_inputs_status(kept);
		return 0;
	}
	/* missing, or not a store (a crash cannot leave one half written,
	 * but a disk error or a hand can), or its import failed an input:
	 * made again; a file there is ours (cli_cache_check) */
	if (rc > 0) {
		char *sp = status_path(cached);

		/* ours (cli_cache_check): not left to pass for this import */
		unlink(cached);
		unlink(sp);
		free(sp);
	}
	input_limits_default(&lim);
	io.out = cached;
	cli_progress_done();
	term_fprintf(stderr, "heapsift %s: importing into %s\n", cmd, cached);
	fflush(stdout);
	rc = cli_import(&io, n, operands);
	if (!cli_is_store(cached) ||
	    (rc != EXIT_OK && rc != EXIT_WARNED && rc != EXIT_ERROR)) {
		/* nothing imported: cli_import said why */
		free(cached);
		return rc == EXIT_OK ? EXIT_ERROR : rc;
	}
	cli_cache_keep_status(cmd, cached, rc);
	*path = cached;
	*status = rc;
	cli_inputs_status(rc);
	return 0;
}

int cli_store_open(const char *cmd, int n, char **operands, struct store **s,
		   char **path, int *status)
{
	struct err e;
	int rc = cli_store_path(cmd, n, operands, path, status);

	*s = NULL;
	if (rc)
		return rc;
	err_init(&e);
	if (store_open(*path, s, &e) < 0 && strcmp(*path, operands[0]) &&
	    cli_cache_check(cmd, *path) > 0) {
		/* a cache store that no longer opens (a disk error, a hand:
		 * a crash cannot leave one half written) is made again */
		cli_problem(cmd, "warning", &e);
		term_fprintf(stderr,
			     "heapsift %s: the cache store is made again\n",
			     cmd);
		unlink(*path);
		free(*path);
		rc = cli_store_path(cmd, n, operands, path, status);
		if (rc)
			return rc;
		err_init(&e);
		store_open(*path, s, &e);
	}
	if (!*s) {
		cli_problem(cmd, "error", &e);
		free(*path);
		*path = NULL;
		*s = NULL;
		return EXIT_ERROR;
	}
	return 0;
}
