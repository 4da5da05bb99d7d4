/*
 * The input walker declared in walk.h: the limits, the sniffing of
 * containers by their first bytes, the reporting of problems every level
 * uses, and the top level (a file, mapped or read, standard input, or
 * memory).  The containers' levels, read through libarchive, are
 * walk_container.c's.
 */
#include "input/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/input.h"
#include "input/walk_int.h"
#include "util/buf.h"
#include "util/xalloc.h"

void input_limits_default(struct input_limits *lim)
{
	lim->max_member_bytes = LIMIT_MEMBER_BYTES;
	lim->max_input_bytes = LIMIT_INPUT_BYTES;
	lim->max_ratio = LIMIT_RATIO;
	lim->ratio_grace = LIMIT_RATIO_GRACE;
	lim->max_depth = LIMIT_DEPTH;
	lim->max_members = LIMIT_MEMBERS;
}

enum container walk_sniff(const unsigned char *p, size_t len)
{
	static const struct {
		const char *magic;
		size_t len;
		enum container kind;
	} sigs[] = {
		{"\x1f\x8b", 2, CONTAINER_COMPRESSED}, /* gzip */
		{"\xfd\x37\x7a\x58\x5a\x00", 6, CONTAINER_COMPRESSED}, /* xz */
		{"\x28\xb5\x2f\xfd", 4, CONTAINER_COMPRESSED}, /* zstd */
		{"\x04\x22\x4d\x18", 4, CONTAINER_COMPRESSED}, /* lz4 */
		{"\x02\x21\x4c\x18", 4, CONTAINER_COMPRESSED}, /* lz4 legacy */
		{"PK\x03\x04", 4, CONTAINER_ZIP},
		{"PK\x05\x06", 4, CONTAINER_ZIP}, /* empty zip */
		{"PK\x07\x08", 4, CONTAINER_ZIP}, /* spanned */
		{"7z\xbc\xaf\x27\x1c", 6, CONTAINER_7Z},
	};
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (len >= sigs[i].len &&
		    !memcmp(p, sigs[i].magic, sigs[i].len))
			return sigs[i].kind;
	/* bzip2: "BZh" and a block size digit */
	if (len >= 4 && !memcmp(p, "BZh", 3) && p[3] >= '1' && p[3] <= '9')
		return CONTAINER_COMPRESSED;
	/* legacy .lzma: the usual properties byte (lc=3 lp=0 pb=2), a
	 * dictionary of 4 KiB to 1.5 GiB, and an uncompressed size that is
	 * either unknown (all ones, what xz writes) or below 2^48 */
	if (len >= 13 && p[0] == 0x5d) {
		uint32_t dict = (uint32_t)p[1] | (uint32_t)p[2] << 8 |
				(uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
		bool unknown = true;
		size_t i2;

		for (i2 = 5; i2 < 13; i2++)
			unknown &= p[i2] == 0xff;
		if (dict >= 4096 && dict <= 0x60000000u &&
		    (unknown || (p[11] == 0 && p[12] == 0)))
			return CONTAINER_COMPRESSED;
	}
	/* POSIX and GNU tar: "ustar" at 257 */
	if (len >= 262 && !memcmp(p + 257, "ustar", 5))
		return CONTAINER_TAR;
	return CONTAINER_NONE;
}

const char *walk_sniff_filter(const unsigned char *p, size_t len)
{
	if (walk_sniff(p, len) != CONTAINER_COMPRESSED)
		return NULL;
	switch (p[0]) {
	case 0x1f:
		return "gzip";
	case 0xfd:
		return "xz";
	case 0x28:
		return "zstd";
	case 0x04:
	case 0x02:
		return "lz4";
	case 'B':
		return "bzip2";
	}
	return "lzma";
}

/* --- problems ------------------------------------------------------------ */

void walk_report(struct walk *w, enum problem_severity sev, const struct err *e)
{
	if (sev == PROBLEM_ERROR)
		w->stats->errors++;
	else
		w->stats->warnings++;
	w->ops->problem(w->ctx, sev, e);
}

void walk_reportf(struct walk *w, enum problem_severity sev, enum err_code code,
		  const char *source, uint64_t offset, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	struct err e;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	err_init(&e);
	err_set_at(&e, code, offset, "%s", msg.data);
	err_source(&e, source);
	walk_report(w, sev, &e);
	buf_release(&msg);
}

enum problem_severity walk_severity(enum err_code code)
{
	return code == ERR_IO ? PROBLEM_ERROR : PROBLEM_WARNING;
}

/* --- top level ----------------------------------------------------------- */

struct fd_pull {
	int fd;
};

static int fd_pull(void *ctx, unsigned char *dst, size_t room, size_t *got,
		   struct err *e)
{
	struct fd_pull *f = ctx;
	ssize_t n;

	do
		n = read(f->fd, dst, room);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		*got = 0;
		return err_set(e, ERR_IO, "read failed: %s", strerror(errno));
	}
	*got = (size_t)n;
	return 0;
}

/*
 * A regular file is mapped rather than read: decoding then reads the
 * page cache in place, with no copy through a buffer (5 to 10% of
 * decoding a large recording).  If another process truncates the file
 * while it is mapped, touching the lost pages raises SIGBUS; that ends
 * the process with a message naming the file instead of a bare crash.
 */
static const char *volatile mapped_path;

static void put_err(const char *s)
{
	ssize_t n = write(2, s, strlen(s));

	(void)n;
}

static void on_sigbus(int sig)
{
	const char *path = mapped_path;

	(void)sig;
	die_unlink_all(); /* as die() would */
	put_err("heapsift: fatal: ");
	put_err(path ? path : "an input file");
	put_err(": the file shrank while it was being read\n");
	_exit(1);
}

static bool map_file(struct input *in, const char *path, int fd,
		     const struct stat *st)
{
	static bool handler;
	void *m;

	if (!S_ISREG(st->st_mode) || st->st_size <= 0 ||
	    (uint64_t)st->st_size > SIZE_MAX)
		return false;
	m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return false; /* read() it instead */
	(void)madvise(m, (size_t)st->st_size, MADV_SEQUENTIAL);
	if (!handler) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigbus;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		handler = true;
	}
	mapped_path = path;
	input_init_mapped(in, path, m, (size_t)st->st_size);
	return true;
}

static int walk_top(struct walk *w, struct input *in, const char *display,
		    int seek_fd)
{
	const unsigned char *p;
	size_t avail;

	if (input_peek(in, 1, &p, &avail) == 0 && avail == 0)
		walk_reportf(w, PROBLEM_WARNING, ERR_FORMAT, display,
			     ERR_NO_OFFSET, "file is empty");
	walk_stream(w, in, NULL, display, "", "", 0, seek_fd);
	if (in->failed && !in->reported && in->err.code == ERR_LIMIT) {
		/* a limit (input_limit): where it cut, as a warning */
		struct err e = in->err;

		err_source(&e, display);
		walk_report(w, PROBLEM_WARNING, &e);
	} else if (in->failed && !in->reported) {
		struct err e = in->err;

		err_set_at(&e, ERR_IO, input_offset(in), "%s", in->err.msg);
		err_source(&e, display);
		walk_report(w, PROBLEM_ERROR, &e);
	}
	return w->abort_rc;
}

static void walk_setup(struct walk *w, const char *name,
		       const struct input_limits *lim,
		       const struct walk_ops *ops, void *ctx,
		       struct walk_stats *stats)
{
	memset(w, 0, sizeof(*w));
	w->lim = lim;
	w->ops = ops;
	w->ctx = ctx;
	w->stats = stats;
	w->input_name = name;
}

int walk_input(const char *path, const struct input_limits *lim,
	       const struct walk_ops *ops, void *ctx, struct walk_stats *stats)
{
	struct walk w;
	struct fd_pull fp;
	struct input in;
	struct stat st;
	int fd, rc;
	bool is_stdin = strcmp(path, "-") == 0;

	walk_setup(&w, path, lim, ops, ctx, stats);
	if (is_stdin) {
		fd = 0;
	} else {
		do
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		while (fd < 0 && errno == EINTR);
		if (fd < 0) {
			walk_reportf(&w, PROBLEM_ERROR, ERR_IO, path,
				     ERR_NO_OFFSET, "cannot open: %s",
				     strerror(errno));
			return ERR_FAIL;
		}
	}
	if (fstat(fd, &st) < 0) {
		walk_reportf(&w, PROBLEM_ERROR, ERR_IO, path, ERR_NO_OFFSET,
			     "cannot stat: %s", strerror(errno));
		if (!is_stdin)
			close(fd);
		return ERR_FAIL;
	}
	if (S_ISDIR(st.st_mode)) {
		walk_reportf(
			&w, PROBLEM_ERROR, ERR_IO, path, ERR_NO_OFFSET,
			"is a directory; give the files in it, or an archive");
		if (!is_stdin)
			close(fd);
		return ERR_FAIL;
	}
	fp.fd = fd;
	if (!map_file(&in, path, fd, &st))
		input_init_pull(&in, path, fd_pull, &fp, 0);
	rc = walk_top(&w, &in, path, S_ISREG(st.st_mode) ? fd : -1);
	input_release(&in);
	mapped_path = NULL;
	if (!is_stdin)
		close(fd);
	return rc;
}

int walk_memory(const char *name, const void *data, size_t len,
		const struct input_limits *lim, const struct walk_ops *ops,
		void *ctx, struct walk_stats *stats)
{
	struct walk w;
	struct input in;
	int rc;

	walk_setup(&w, name, lim, ops, ctx, stats);
	input_init_memory(&in, name, data, len);
	rc = walk_top(&w, &in, name, -1);
	input_release(&in);
	return rc;
}
