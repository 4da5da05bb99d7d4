/*
 * The input walker declared in walk.h.
 *
 * Each container is one "layer": a libarchive reader fed by a source,
 * which is a file descriptor (the input itself), a memory buffer (a zip
 * or 7z member, which libarchive can only read seekably, slurped within
 * the limits), or the stream of the member that holds it.  Each member is
 * an input whose pull function calls archive_read_data() on its layer and
 * counts bytes against the limits.
 *
 * Problems are reported by the level they belong to, once: a layer whose
 * own source failed stays quiet, because that failure is the level
 * below's to report (a truncated .tar.gz shows up as one message about
 * the gzip data, not one per level).
 */
#include "input/walk.h"

#include <archive.h>
#include <archive_entry.h>
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
#include "util/buf.h"
#include "util/size.h"
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

/* One input being walked. */
struct walk {
	const struct input_limits *lim;
	const struct walk_ops *ops;
	void *ctx;
	struct walk_stats *stats;
	const char *input_name;
	uint64_t input_bytes; /* decompressed at every level */
	uint64_t entries;     /* archive entries of this input */
	bool stop;	      /* stop the whole input */
	int abort_rc;	      /* the member callback's stop value */
};

enum source_kind { SRC_FD, SRC_MEM, SRC_INPUT };

struct layer {
	struct walk *w;
	struct archive *a;
	const char *display; /* the container's display name */
	const char *path;
	unsigned depth; /* of the container stream */
	enum container kind;
	const char *filter; /* CONTAINER_COMPRESSED: its name by the sniff */
	enum source_kind src;
	int fd;		    /* SRC_FD: read with pread() */
	unsigned char *mem; /* SRC_MEM data or the SRC_FD buffer */
	bool mem_owned;
	size_t mem_len;
	uint64_t pos;	  /* SRC_FD and SRC_MEM position */
	struct input *in; /* SRC_INPUT */
	size_t pending;	  /* SRC_INPUT bytes handed out, to consume */
	bool src_failed;  /* the source failed: reported below */
	bool src_eof;
	bool fatal; /* libarchive said the layer is unusable */
	/* a compressed layer that libarchive opened with no filter: its
	 * bidders declined the header, and the raw reader hands the stream
	 * on as it is */
	bool passthrough;
	bool no_header;	    /* ... and its stream ended inside that header */
	uint64_t in_bytes;  /* fed to libarchive */
	uint64_t out_bytes; /* read out of it */
};

/* The state behind one member's input. */
struct entry {
	struct layer *L;
	uint64_t bytes;
	bool upstream; /* the failure is the layer's source's */
	bool stop_layer;
	bool container; /* the member turned out to be an archive itself */
	bool cut;	/* bytes past the member limit were dropped */
};

static void report(struct walk *w, enum problem_severity sev,
		   const struct err *e)
{
	if (sev == PROBLEM_ERROR)
		w->stats->errors++;
	else
		w->stats->warnings++;
	w->ops->problem(w->ctx, sev, e);
}

static void reportf(struct walk *w, enum problem_severity sev,
		    enum err_code code, const char *source, uint64_t offset,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void reportf(struct walk *w, enum problem_severity sev,
		    enum err_code code, const char *source, uint64_t offset,
		    const char *fmt, ...)
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
	report(w, sev, &e);
	buf_release(&msg);
}

static enum problem_severity severity_of(enum err_code code)
{
	return code == ERR_IO ? PROBLEM_ERROR : PROBLEM_WARNING;
}

/* "4 GiB" for a limit message. */
static const char *human(uint64_t n, char *out, size_t size)
{
	static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;

	while (u < 4 && n >= 1024 && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	snprintf(out, size, "%llu %s", (unsigned long long)n, unit[u]);
	return out;
}

static const char *container_name(enum container kind)
{
	switch (kind) {
	case CONTAINER_COMPRESSED:
		return "compressed data";
	case CONTAINER_TAR:
		return "tar archive";
	case CONTAINER_ZIP:
		return "zip archive (cut short, or not a zip)";
	case CONTAINER_7Z:
		return "7z archive (cut short, or not a 7z)";
	case CONTAINER_NONE:
		break;
	}
	return "stream";
}

/*
 * Did a compressed layer fail because its stream ends too soon?  Only
 * when its source reached its end and libarchive's words are those of a
 * cut stream: "truncated gzip input" (gzip, bzip2, lz4, and zstd with a
 * capital T), LZMA_BUF_ERROR's "No progress is possible" (xz and lzma
 * with nothing more to read), or no words at all (gzip's trailer cut
 * short: consume_trailer() fails without a message).  A checksum that
 * does not match at the end of a whole stream is damage, not a cut.
 */
static bool layer_truncated(struct layer *L)
{
	const char *m = archive_error_string(L->a);

	return L->src_eof && (!m || strstr(m, "runcated") ||
			      strstr(m, "No progress is possible"));
}

/* Fill e with a compressed layer's failure, at offset (the member's
 * decompressed bytes), in words that say which of the two it is. */
static int compressed_failure(struct layer *L, struct err *e, uint64_t offset)
{
	const char *m = archive_error_string(L->a);

	if (layer_truncated(L))
		return err_set_at(e, ERR_TRUNC, offset,
				  "truncated %s stream: it ends after %llu "
				  "compressed byte%s, %s%s%s%s",
				  L->filter, (unsigned long long)L->in_bytes,
				  L->in_bytes == 1 ? "" : "s",
				  L->no_header ? "inside its header"
					       : "before its end",
				  m ? " (" : "", m ? m : "", m ? ")" : "");
	return err_set_at(e, ERR_FORMAT, offset, "damaged %s stream: %s",
			  L->filter, m ? m : "unreadable data");
}

/* --- sources: what a layer's libarchive reader reads from ------------ */

static la_ssize_t source_read(struct archive *a, void *ctx, const void **buffer)
{
	struct layer *L = ctx;
	const unsigned char *p;
	size_t avail;
	ssize_t n;

	switch (L->src) {
	case SRC_FD:
		do
			n = pread(L->fd, L->mem, INPUT_BLOCK, (off_t)L->pos);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			archive_set_error(a, errno, "read failed: %s",
					  strerror(errno));
			return -1;
		}
		L->pos += (uint64_t)n;
		if (L->pos > L->in_bytes)
			L->in_bytes = L->pos;
		L->src_eof = n == 0;
		*buffer = L->mem;
		return n;
	case SRC_MEM:
		avail = L->mem_len - (size_t)L->pos;
		if (avail > INPUT_BLOCK)
			avail = INPUT_BLOCK;
		*buffer = L->mem + L->pos;
		L->pos += avail;
		if (L->pos > L->in_bytes)
			L->in_bytes = L->pos;
		L->src_eof = avail == 0;
		return (la_ssize_t)avail;
	case SRC_INPUT:
		input_consume(L->in, L->pending);
		L->pending = 0;
		if (input_peek(L->in, 1, &p, &avail) < 0) {
			L->src_failed = true;
			archive_set_error(a, EIO, "%s", L->in->err.msg);
			return -1;
		}
		L->pending = avail;
		L->in_bytes += avail;
		L->src_eof = avail == 0;
		*buffer = p;
		return (la_ssize_t)avail;
	}
	return -1;
}

static la_int64_t source_seek(struct archive *a, void *ctx, la_int64_t off,
			      int whence)
{
	struct layer *L = ctx;
	uint64_t size, base;
	struct stat st;

	(void)a;
	if (L->src == SRC_MEM) {
		size = L->mem_len;
	} else {
		if (fstat(L->fd, &st) < 0)
			return ARCHIVE_FATAL;
		size = (uint64_t)st.st_size;
	}
	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = L->pos;
		break;
	case SEEK_END:
		base = size;
		break;
	default:
		return ARCHIVE_FATAL;
	}
	/* before the start is an error; past the end reads as end of data
	 * (base <= size always: pos never passes the end) */
	if (off < 0) {
		uint64_t back =
			(uint64_t) - (off + 1) + 1; /* |off|, even INT64_MIN */

		if (back > base)
			return ARCHIVE_FATAL;
		base -= back;
	} else if ((uint64_t)off > size - base) {
		base = size;
	} else {
		base += (uint64_t)off;
	}
	L->pos = base;
	return (la_int64_t)base;
}

/* --- members ----------------------------------------------------------- */

/* Would taking n more bytes out of L break the ratio limit? */
static bool ratio_exceeded(const struct layer *L, uint64_t n,
			   const struct input_limits *lim)
{
	uint64_t in = L->in_bytes ? L->in_bytes : 1, bound, out;

	if (!u64_add(L->out_bytes, n, &out))
		return true;
	if (out <= lim->ratio_grace || !u64_mul(in, lim->max_ratio, &bound))
		return false;
	return out > bound;
}

static int entry_pull(void *ctx, unsigned char *dst, size_t room, size_t *got,
		      struct err *e)
{
	struct entry *en = ctx;
	struct layer *L = en->L;
	struct walk *w = L->w;
	const struct input_limits *lim = w->lim;
	la_ssize_t n;
	char h[32];

	*got = 0;
	if (en->cut) {
		/* the last read was cut at the member limit: the rest is
		 * over it */
		en->stop_layer = L->kind == CONTAINER_COMPRESSED;
		return err_set_at(e, ERR_LIMIT, en->bytes,
				  "member larger than %s (--max-member-size): "
				  "rest skipped",
				  human(lim->max_member_bytes, h, sizeof(h)));
	}
	n = archive_read_data(L->a, dst, room);
	if (n < 0) {
		if (L->src_failed) {
			/* the stream this archive is read from failed: the
			 * member inherits that failure, at its own offset */
			en->upstream = true;
			return err_set_at(e, L->in->err.code, en->bytes, "%s",
					  L->in->err.msg);
		}
		if (n <= ARCHIVE_FATAL)
			L->fatal = true;
		if (L->kind == CONTAINER_COMPRESSED)
			return compressed_failure(L, e, en->bytes);
		return err_set_at(e, L->src_eof ? ERR_TRUNC : ERR_FORMAT,
				  en->bytes, "damaged: %s",
				  archive_error_string(L->a)
					  ? archive_error_string(L->a)
					  : "unreadable data");
	}
	/* Limits are checked before the bytes are taken, so that the offset
	 * in a message is the size the member's listing shows.  The member
	 * limit is for what gets listed or held in memory; a stream that is
	 * itself an archive is bounded by its members' limits, the ratio
	 * and the input limit. */
	if (n == 0)
		return 0; /* the end: a member of exactly the limit is whole */
	if (!en->container && en->bytes == lim->max_member_bytes) {
		/* the rest of a compressed stream costs its decompression to
		 * skip, so that level ends here; an archive moves on to the
		 * next member */
		en->stop_layer = L->kind == CONTAINER_COMPRESSED;
		return err_set_at(e, ERR_LIMIT, en->bytes,
				  "member larger than %s (--max-member-size): "
				  "rest skipped",
				  human(lim->max_member_bytes, h, sizeof(h)));
	}
	/* up to the limit is kept, for the importer to use */
	if (!en->container && (uint64_t)n > lim->max_member_bytes - en->bytes) {
		n = (la_ssize_t)(lim->max_member_bytes - en->bytes);
		en->cut = true;
	}
	if (!en->container && w->input_bytes == lim->max_input_bytes) {
		en->stop_layer = true;
		w->stop = true;
		return err_set_at(e, ERR_LIMIT, en->bytes,
				  "input larger than %s decompressed "
				  "(--max-input-size): rest skipped",
				  human(lim->max_input_bytes, h, sizeof(h)));
	}
	/* up to the input's limit is kept too */
	if (!en->container &&
	    (uint64_t)n > lim->max_input_bytes - w->input_bytes)
		n = (la_ssize_t)(lim->max_input_bytes - w->input_bytes);
	if (ratio_exceeded(L, (uint64_t)n, lim)) {
		en->stop_layer = true;
		return err_set_at(
			e, ERR_LIMIT, en->bytes,
			"compression ratio above %llu:1 (--max-ratio; %llu "
			"bytes out of %llu): rest of %s skipped",
			(unsigned long long)lim->max_ratio,
			(unsigned long long)(L->out_bytes + (uint64_t)n),
			(unsigned long long)L->in_bytes, L->display);
	}
	en->bytes += (uint64_t)n;
	L->out_bytes += (uint64_t)n;
	if (!en->container)
		w->input_bytes += (uint64_t)n;
	*got = (size_t)n;
	return 0;
}

/* Absolute, drive-lettered or climbing out with "..": would escape a
 * directory if anyone extracted it (heapsift never does). */
static bool unsafe_path(const char *name)
{
	const char *p = name;

	if (name[0] == '/' || name[0] == '\\' || (name[0] && name[1] == ':'))
		return true;
	while (*p) {
		size_t n = strcspn(p, "/\\");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* "gzip" or "zstd+gzip": the filters, outermost first. */
static void filter_names(struct archive *a, struct buf *out)
{
	int i, n = archive_filter_count(a);

	/* index 0 is nearest the reader; the last one is "none" */
	for (i = n - 1; i >= 0; i--) {
		const char *name = archive_filter_name(a, i);

		if (archive_filter_code(a, i) == ARCHIVE_FILTER_NONE || !name)
			continue;
		if (out->len)
			buf_addch(out, '+');
		buf_adds(out, name);
	}
}

static void walk_stream(struct walk *w, struct input *in, struct entry *en,
			const char *display, const char *path,
			const char *compression, unsigned depth, int seek_fd);

/*
 * The layer's source failed while libarchive read headers: report that
 * failure here, under the container's name, unless a deeper level has.
 */
static void report_source_failure(struct walk *w, struct layer *L)
{
	struct err e;

	if (L->src != SRC_INPUT || L->in->reported)
		return;
	e = L->in->err;
	err_source(&e, L->display);
	e.offset = input_offset(L->in);
	report(w, severity_of(e.code), &e);
	L->in->reported = true;
}

/* Read all of in into memory, for the readers that must seek. */
static int slurp(struct walk *w, struct input *in, const char *display,
		 unsigned char **data, size_t *len)
{
	struct buf b = BUF_INIT;
	char h[32];

	for (;;) {
		const unsigned char *p;
		size_t avail;

		if (input_peek(in, 1, &p, &avail) < 0) {
			buf_release(&b);
			return ERR_FAIL;
		}
		if (!avail)
			break;
		if (b.len + avail > w->lim->max_member_bytes) {
			/* the one size limit an archive stream has: the
			 * memory it would take */
			reportf(w, PROBLEM_WARNING, ERR_LIMIT, display,
				w->lim->max_member_bytes,
				"archive to be read in memory is larger than "
				"%s "
				"(--max-member-size)",
				human(w->lim->max_member_bytes, h, sizeof(h)));
			buf_release(&b);
			return 1;
		}
		buf_add(&b, p, avail);
		input_consume(in, avail);
	}
	*data = (unsigned char *)buf_detach(&b, len);
	return 0;
}

static int failed_pull(void *ctx, unsigned char *dst, size_t room, size_t *got,
		       struct err *e)
{
	(void)dst;
	(void)room;
	*got = 0;
	*e = *(const struct err *)ctx;
	return ERR_FAIL;
}

/*
 * A compressed layer that failed before anything came out of it (cut
 * inside its header or its first block, or damaged there): listed as a
 * member of no bytes whose reading failed, so that every command shows
 * it with its status (truncated, damaged), and reported once, here.
 */
static void compressed_unread(struct walk *w, struct layer *L, const char *path,
			      unsigned depth)
{
	struct input in;
	struct err e;

	err_init(&e);
	compressed_failure(L, &e, 0);
	err_source(&e, L->display);
	input_init_pull(&in, L->display, failed_pull, &e, 0);
	{
		struct member m = {L->display, w->input_name, path,
				   L->filter,  depth,	      &in};
		int rc = w->ops->member(w->ctx, &m);

		w->stats->members++;
		if (rc < 0) {
			w->stop = true;
			w->abort_rc = rc;
		}
	}
	report(w, severity_of(e.code), &e);
	in.reported = true;
	input_release(&in);
}

static void walk_layer(struct walk *w, struct input *in, const char *display,
		       const char *path, enum container kind, unsigned depth,
		       int seek_fd)
{
	struct layer L;
	struct archive_entry *ent;
	struct buf child_display = BUF_INIT, child_path = BUF_INIT;
	struct buf filters = BUF_INIT;
	uint64_t n_members = 0;
	int r;

	memset(&L, 0, sizeof(L));
	L.w = w;
	L.display = display;
	L.path = path;
	L.depth = depth;
	L.kind = kind;
	L.fd = -1;

	if (kind == CONTAINER_ZIP || kind == CONTAINER_7Z) {
		L.src = SRC_MEM;
		L.mem_owned = true;
		if (seek_fd >= 0) {
			L.src = SRC_FD;
			L.fd = seek_fd;
			L.mem = xmalloc(INPUT_BLOCK);
		} else if (!in->pull && in->offset == 0) {
			/* already in memory, whole: read it in place */
			L.mem = (unsigned char *)in->data;
			L.mem_len = in->end;
			L.mem_owned = false;
		} else if (slurp(w, in, display, &L.mem, &L.mem_len) != 0) {
			return; /* a failure of in: the caller reports */
		}
	} else {
		L.src = SRC_INPUT;
		L.in = in;
	}
	if (kind == CONTAINER_COMPRESSED) {
		const unsigned char *p;
		size_t avail;

		/* walk_stream() sniffed these very bytes */
		L.filter = input_peek(in, SNIFF_LEN, &p, &avail) == 0
				   ? walk_sniff_filter(p, avail)
				   : NULL;
		if (!L.filter)
			L.filter = "compressed";
	}

	L.a = archive_read_new();
	if (!L.a)
		die("out of memory creating an archive reader");
	switch (kind) {
	case CONTAINER_ZIP:
		archive_read_support_format_zip_seekable(L.a);
		break;
	case CONTAINER_7Z:
		archive_read_support_format_7zip(L.a);
		break;
	case CONTAINER_TAR:
		archive_read_support_format_tar(L.a);
		archive_read_support_format_gnutar(L.a);
		break;
	case CONTAINER_COMPRESSED:
		/* Only decompress: what comes out is sniffed again as a
		 * stream of its own.  Letting libarchive choose between tar
		 * and raw here would let tar claim any stream that starts
		 * with 512 zero bytes (its end marker) and list nothing. */
		archive_read_support_filter_gzip(L.a);
		archive_read_support_filter_bzip2(L.a);
		archive_read_support_filter_xz(L.a);
		archive_read_support_filter_lzma(L.a);
		archive_read_support_filter_zstd(L.a);
		archive_read_support_filter_lz4(L.a);
		archive_read_support_format_raw(L.a);
		archive_read_support_format_empty(L.a); /* gzip of nothing */
		break;
	case CONTAINER_NONE:
		BUG("walk_layer on a plain stream");
	}
	archive_read_set_callback_data(L.a, &L);
	archive_read_set_read_callback(L.a, source_read);
	if (L.src != SRC_INPUT)
		archive_read_set_seek_callback(L.a, source_seek);
	if (archive_read_open1(L.a) != ARCHIVE_OK) {
		if (L.src_failed)
			report_source_failure(w, &L);
		else if (kind == CONTAINER_COMPRESSED)
			compressed_unread(w, &L, path, depth);
		else
			reportf(w, PROBLEM_WARNING,
				L.src_eof ? ERR_TRUNC : ERR_FORMAT, display,
				L.in_bytes, "damaged %s, skipped: %s",
				container_name(kind),
				archive_error_string(L.a));
		goto out;
	}
	if (kind == CONTAINER_COMPRESSED &&
	    archive_filter_code(L.a, 0) == ARCHIVE_FILTER_NONE) {
		/* The first bytes are a compressor's magic, but no bidder
		 * took the header.  When the stream ended inside it, it is a
		 * cut stream (gzip's magic alone, a bzip2 header without its
		 * block), never a stream nested in itself; otherwise it is
		 * read as the plain bytes it is. */
		if (L.src_eof) {
			L.no_header = true;
			compressed_unread(w, &L, path, depth);
			goto out;
		}
		L.passthrough = true;
		if (strcmp(L.filter, "lzma")) /* lzma's sniff is a guess */
			reportf(w, PROBLEM_WARNING, ERR_FORMAT, display, 0,
				"starts with %s's magic, but its header is "
				"not %s's: read as it is",
				L.filter, L.filter);
	}

	for (;;) {
		struct entry en = {&L, 0, false, false, false, false};
		struct input child;
		const char *name;
		bool raw;

		r = archive_read_next_header(L.a, &ent);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_WARN) {
			reportf(w, PROBLEM_WARNING, ERR_FORMAT, display,
				L.in_bytes, "%s", archive_error_string(L.a));
		} else if (r != ARCHIVE_OK) {
			if (L.src_failed)
				report_source_failure(w, &L);
			else if (kind == CONTAINER_COMPRESSED && !n_members)
				compressed_unread(w, &L, path, depth);
			else
				reportf(w, PROBLEM_WARNING,
					L.src_eof ? ERR_TRUNC : ERR_FORMAT,
					display, L.in_bytes,
					"damaged, rest skipped: %s",
					archive_error_string(L.a));
			break;
		}
		raw = archive_format(L.a) == ARCHIVE_FORMAT_RAW;
		if (!raw)
			w->stats->entries++;
		/* counted per input, as the option says */
		if (!raw && ++w->entries > w->lim->max_members) {
			reportf(w, PROBLEM_WARNING, ERR_LIMIT, display,
				ERR_NO_OFFSET,
				"more than %llu archive members "
				"(--max-members), "
				"rest skipped",
				(unsigned long long)w->lim->max_members);
			w->stop = true;
			break;
		}
		if (archive_entry_filetype(ent) != AE_IFREG)
			continue;
		name = archive_entry_pathname(ent);
		if (!name)
			name = "(unnamed)";
		buf_reset(&child_display);
		buf_reset(&child_path);
		buf_reset(&filters);
		buf_adds(&child_display, display);
		buf_adds(&child_path, path);
		if (raw) {
			filter_names(L.a, &filters);
		} else {
			buf_addch(&child_display, '!');
			buf_adds(&child_display, name);
			if (child_path.len)
				buf_addch(&child_path, '!');
			buf_adds(&child_path, name);
		}
		if (!raw && archive_entry_is_encrypted(ent)) {
			reportf(w, PROBLEM_WARNING, ERR_UNSUPPORTED,
				child_display.data, ERR_NO_OFFSET,
				"encrypted member skipped");
			continue;
		}
		if (!raw && unsafe_path(name))
			reportf(w, PROBLEM_WARNING, ERR_FORMAT,
				child_display.data, ERR_NO_OFFSET,
				"member path is absolute or leaves the archive "
				"(read in place, never extracted)");

		input_init_pull(&child, child_display.data, entry_pull, &en, 0);
		/* a compressed stream's content is no new archive level */
		walk_stream(w, &child, &en, child_display.data, child_path.data,
			    filters.data,
			    kind == CONTAINER_COMPRESSED ? depth : depth + 1,
			    -1);
		/* What the member callback left unread, libarchive would
		 * decompress unseen to reach the next member of a tar or a
		 * solid 7z: read it here instead, so the limits count it. */
		if (!child.failed && !en.container && !w->stop &&
		    (kind == CONTAINER_TAR || kind == CONTAINER_7Z)) {
			uint64_t skipped;

			input_skip(&child, UINT64_MAX, &skipped);
		}
		n_members++;
		/* The deepest level that sees a failure reports it, under the
		 * member's name; the levels above it stay quiet. */
		if (child.failed && !child.reported) {
			report(w, severity_of(child.err.code), &child.err);
			child.reported = true;
		}
		if (en.upstream)
			L.in->reported = true;
		input_release(&child);
		if (en.upstream || en.stop_layer || L.fatal || w->stop)
			break;
	}
	/* a compressed stream of nothing is still a member: an empty one */
	if (kind == CONTAINER_COMPRESSED && !n_members && r == ARCHIVE_EOF &&
	    !w->stop) {
		struct input empty;

		filter_names(L.a, &filters);
		input_init_memory(&empty, display, "", 0);
		{
			struct member m = {display,	 w->input_name, path,
					   filters.data, depth,		&empty};
			int rc = w->ops->member(w->ctx, &m);

			w->stats->members++;
			if (rc < 0) {
				w->stop = true;
				w->abort_rc = rc;
			}
		}
		input_release(&empty);
	}
out:
	archive_read_free(L.a);
	if (L.mem_owned)
		free(L.mem);
	if (L.src == SRC_INPUT && L.pending)
		input_consume(L.in, L.pending);
	buf_release(&child_display);
	buf_release(&child_path);
	buf_release(&filters);
}

static void walk_stream(struct walk *w, struct input *in, struct entry *en,
			const char *display, const char *path,
			const char *compression, unsigned depth, int seek_fd)
{
	const unsigned char *p;
	size_t avail;
	enum container kind;

	/* A stream that fails this early (a limit, damage) is still listed,
	 * as a member, so that the listing shows it with its status; the
	 * failure itself is reported by whoever owns in. */
	if (input_peek(in, SNIFF_LEN, &p, &avail) < 0)
		kind = CONTAINER_NONE;
	else
		kind = walk_sniff(p, avail);
	/* what a layer passed through unopened is not opened again */
	if (en && en->L->passthrough)
		kind = CONTAINER_NONE;
	if (kind != CONTAINER_NONE) {
		/* compression inside compression that libarchive did not
		 * strip in one go does count as a level */
		if (kind == CONTAINER_COMPRESSED && en &&
		    en->L->kind == CONTAINER_COMPRESSED)
			depth++;
		if (depth < w->lim->max_depth) {
			if (en) {
				/* its bytes so far were counted as a member's */
				en->container = true;
				w->input_bytes -= en->bytes;
			}
			walk_layer(w, in, display, path, kind, depth, seek_fd);
			return;
		}
		reportf(w, PROBLEM_WARNING, ERR_LIMIT, display, ERR_NO_OFFSET,
			"more than %u nested archive or compression level%s "
			"(--max-depth); "
			"listed unopened",
			w->lim->max_depth, w->lim->max_depth == 1 ? "" : "s");
	}
	{
		struct member m = {display,	w->input_name, path,
				   compression, depth,	       in};
		int rc = w->ops->member(w->ctx, &m);

		w->stats->members++;
		if (rc < 0) {
			w->stop = true;
			w->abort_rc = rc;
		}
	}
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
		reportf(w, PROBLEM_WARNING, ERR_FORMAT, display, ERR_NO_OFFSET,
			"file is empty");
	walk_stream(w, in, NULL, display, "", "", 0, seek_fd);
	if (in->failed && !in->reported) {
		struct err e = in->err;

		err_set_at(&e, ERR_IO, input_offset(in), "%s", in->err.msg);
		err_source(&e, display);
		report(w, PROBLEM_ERROR, &e);
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
			reportf(&w, PROBLEM_ERROR, ERR_IO, path, ERR_NO_OFFSET,
				"cannot open: %s", strerror(errno));
			return ERR_FAIL;
		}
	}
	if (fstat(fd, &st) < 0) {
		reportf(&w, PROBLEM_ERROR, ERR_IO, path, ERR_NO_OFFSET,
			"cannot stat: %s", strerror(errno));
		if (!is_stdin)
			close(fd);
		return ERR_FAIL;
	}
	if (S_ISDIR(st.st_mode)) {
		reportf(&w, PROBLEM_ERROR, ERR_IO, path, ERR_NO_OFFSET,
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
