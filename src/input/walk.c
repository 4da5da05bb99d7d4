/*
 * The input walker declared in walk.h: the limits, the sniffing of
 * containers by their first bytes, the reporting of problems every level
 * uses, and the top level (a file, mapped or read, standard input, or
 * memory).  The containers' levels, read through libarchive, are
 * walk_container.c's.  A folder given is walked here too, its files
 * listed by folder.h.
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

#include "input/folder.h"
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

/* Report the failure of in, a stream given whole (display its name),
 * that no level inside it has: a limit's cut as a warning, the rest as
 * errors. */
static void report_whole(struct walk *w, struct input *in, const char *display)
{
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
	report_whole(w, in, display);
	return w->abort_rc;
}

/* --- a folder ------------------------------------------------------------ */

/*
 * A folder given is walked as the archive of it would be (folder.h walks
 * it): one level, whose regular files are its members at depth 1, in
 * name order, counted against the limits of one input as an archive's
 * entries and members are.  A member is named by its path: the folder
 * as given, "/", its path inside (that path alone is its member path),
 * so the name is one a shell can open.
 */
struct folder_walk {
	struct walk *w;
	const char *top; /* the folder as given */
	struct buf display;
	uint64_t n_files;
};

static const char *folder_name(struct folder_walk *fw, const char *rel)
{
	size_t len = strlen(fw->top);

	buf_reset(&fw->display);
	buf_adds(&fw->display, fw->top);
	if (len && fw->top[len - 1] != '/')
		buf_addch(&fw->display, '/');
	buf_adds(&fw->display, rel);
	return fw->display.data;
}

static bool folder_entry(void *ctx, const char *rel)
{
	struct folder_walk *fw = ctx;
	struct walk *w = fw->w;

	(void)rel;
	w->stats->entries++;
	if (++w->entries > w->lim->max_members) {
		walk_reportf(w, PROBLEM_WARNING, ERR_LIMIT, fw->top,
			     ERR_NO_OFFSET,
			     "more than %llu entries in the folder "
			     "(--max-members), rest skipped",
			     (unsigned long long)w->lim->max_members);
		w->stop = true;
	}
	return !w->stop;
}

static bool folder_file(void *ctx, const char *rel, int fd,
			const struct stat *st)
{
	struct folder_walk *fw = ctx;
	struct walk *w = fw->w;
	const char *display = folder_name(fw, rel);
	bool input_cut = w->lim->max_input_bytes - w->input_bytes <
			 w->lim->max_member_bytes;
	struct fd_pull fp = {fd};
	struct input in;

	fw->n_files++;
	if (!map_file(&in, display, fd, st))
		input_init_pull(&in, display, fd_pull, &fp, 0);
	if (!walk_stream(w, &in, NULL, display, rel, "", 1, fd)) {
		uint64_t skipped;

		/* what the reader left counts, as a tar's does: the next
		 * file must not get this one's share of the input's bytes */
		if (!w->stop)
			input_skip(&in, UINT64_MAX, &skipped);
		w->input_bytes += input_offset(&in);
		if (in.failed && in.err.code == ERR_LIMIT && input_cut)
			w->stop = true; /* --max-input-size: the input ends */
	}
	report_whole(w, &in, display);
	input_release(&in);
	mapped_path = NULL;
	return !w->stop;
}

static void folder_skipped(void *ctx, const char *rel, enum folder_skip why,
			   const char *detail)
{
	struct folder_walk *fw = ctx;
	struct walk *w = fw->w;
	const char *display = folder_name(fw, rel);

	switch (why) {
	case FOLDER_LINK_OUTSIDE:
		walk_reportf(w, PROBLEM_WARNING, ERR_UNSUPPORTED, display,
			     ERR_NO_OFFSET,
			     "a symbolic link out of the folder (to %s): not "
			     "followed",
			     detail);
		break;
	case FOLDER_LINK_BROKEN:
		walk_reportf(w, PROBLEM_WARNING, ERR_UNSUPPORTED, display,
			     ERR_NO_OFFSET,
			     "a symbolic link to nothing (to %s): not followed",
			     detail);
		break;
	case FOLDER_LINK_LOOP:
		walk_reportf(w, PROBLEM_WARNING, ERR_UNSUPPORTED, display,
			     ERR_NO_OFFSET,
			     "a symbolic link round a loop (to %s): not "
			     "followed",
			     detail);
		break;
	case FOLDER_LOOP:
		walk_reportf(
			w, PROBLEM_WARNING, ERR_UNSUPPORTED, display,
			ERR_NO_OFFSET,
			"a folder that holds itself (a loop): not entered");
		break;
	case FOLDER_TOO_DEEP:
		walk_reportf(w, PROBLEM_WARNING, ERR_LIMIT, display,
			     ERR_NO_OFFSET,
			     "path in the folder longer than %d bytes: skipped",
			     FOLDER_PATH_MAX);
		break;
	case FOLDER_UNREADABLE:
		walk_reportf(w, PROBLEM_ERROR, ERR_IO, display, ERR_NO_OFFSET,
			     "cannot open: %s", detail);
		break;
	}
}

static int walk_folder_input(struct walk *w, int fd, const char *path)
{
	static const struct folder_ops ops = {folder_entry, folder_file,
					      folder_skipped};
	struct folder_walk fw = {w, path, BUF_INIT, 0};
	char *real;

	if (!w->lim->max_depth) {
		walk_reportf(w, PROBLEM_WARNING, ERR_LIMIT, path, ERR_NO_OFFSET,
			     "a folder is a level, and --max-depth is 0: not "
			     "read");
		return 0;
	}
	real = realpath(path, NULL);
	if (!real) {
		walk_reportf(w, PROBLEM_ERROR, ERR_IO, path, ERR_NO_OFFSET,
			     "cannot open: %s", strerror(errno));
		return ERR_FAIL;
	}
	folder_walk(fd, real, &ops, &fw);
	if (!fw.n_files && !w->stop)
		walk_reportf(w, PROBLEM_WARNING, ERR_FORMAT, path,
			     ERR_NO_OFFSET, "folder holds no files");
	free(real);
	buf_release(&fw.display);
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
		rc = walk_folder_input(&w, fd, path);
		if (!is_stdin)
			close(fd);
		return rc;
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
