/*
 * One container level of the input walker (walk.h, walk_int.h).
 *
 * Each container is one "layer": a libarchive reader fed by a source,
 * which is a file descriptor (the input itself, or the spool's temporary
 * file that holds a zip or 7z member whole, since libarchive can read
 * them only seekably), a memory buffer (such a member when it is small:
 * util/spool.h), or the stream of the member that holds it.  Each member is
 * an input whose pull function calls archive_read_data() on its layer and
 * counts bytes against the limits.  walk_stream() decides whether a
 * stream is a container (a new layer) or a member to hand to the
 * callback; the two recurse into each other down the levels.
 *
 * Problems are reported by the level they belong to, once: a layer whose
 * own source failed stays quiet, because that failure is the level
 * below's to report (a truncated .tar.gz shows up as one message about
 * the gzip data, not one per level).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/input.h"
#include "input/walk.h"
#include "input/walk_int.h"
#include "util/buf.h"
#include "util/size.h"
#include "util/spool.h"
#include "util/xalloc.h"

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
	struct spool spool; /* a zip or 7z read out of a stream, held whole */
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

/* Hand member m to the callback; a negative return stops the input. */
static void hand_member(struct walk *w, const struct member *m)
{
	int rc = w->ops->member(w->ctx, m);

	w->stats->members++;
	if (rc < 0) {
		w->stop = true;
		w->abort_rc = rc;
	}
}

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
	walk_report(w, walk_severity(e.code), &e);
	L->in->reported = true;
}

/*
 * All of in, for the readers that must seek (a zip's central directory is
 * at its end), into L's spool: in memory up to the spool's threshold, in
 * a temporary file without a name past it, so that a zip in a zip in a
 * tar.gz costs a file each level and not its size in memory.  0 with L's
 * source set; ERR_FAIL where in failed (the caller reports); 1 where it
 * is over the member limit or the file could not be written (reported
 * here).
 */
static int spool_input(struct walk *w, struct input *in, struct layer *L)
{
	struct err e;
	char h[32];

	err_init(&e);
	for (;;) {
		const unsigned char *p;
		size_t avail;

		if (input_peek(in, 1, &p, &avail) < 0)
			return ERR_FAIL;
		if (!avail)
			break;
		if (L->spool.len + avail > w->lim->max_member_bytes) {
			/* the one size limit an archive stream has: the
			 * bytes it would take to hold it whole */
			walk_reportf(
				w, PROBLEM_WARNING, ERR_LIMIT, L->display,
				w->lim->max_member_bytes,
				"archive to be read whole is larger than %s "
				"(--max-member-size)",
				human(w->lim->max_member_bytes, h, sizeof(h)));
			return 1;
		}
		if (spool_add(&L->spool, p, avail, &e) < 0) {
			err_prefix(&e, "cannot hold the archive whole to read "
				       "it");
			err_source(&e, L->display);
			e.offset = L->spool.len;
			walk_report(w, PROBLEM_ERROR, &e);
			return 1;
		}
		input_consume(in, avail);
	}
	if (spool_fd(&L->spool) >= 0) {
		L->src = SRC_FD;
		L->fd = spool_fd(&L->spool);
		L->mem = xmalloc(INPUT_BLOCK);
		L->mem_owned = true;
		return 0;
	}
	/* in memory: the spool's buffer, read in place */
	{
		const unsigned char *p;

		spool_map(&L->spool, &p, &e);
		L->mem = (unsigned char *)p;
	}
	L->mem_len = (size_t)L->spool.len;
	L->mem_owned = false;
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

		hand_member(w, &m);
	}
	walk_report(w, walk_severity(e.code), &e);
	in.reported = true;
	input_release(&in);
}

/* --- a layer: its source, its reader, its members ------------------------- */

/*
 * L's source for its kind: a zip or a 7z is read seekably, from the file
 * itself (seek_fd), from in's bytes where they are in memory whole, or
 * from a spool of them (spool_input()); the others stream from in.  A
 * compressed layer also takes its filter's name from the sniff.  False
 * where in failed while it was spooled (the caller reports it) or could
 * not be spooled (reported).
 */
static bool layer_source(struct walk *w, struct layer *L, struct input *in,
			 int seek_fd)
{
	if (L->kind == CONTAINER_ZIP || L->kind == CONTAINER_7Z) {
		L->src = SRC_MEM;
		L->mem_owned = true;
		if (seek_fd >= 0) {
			L->src = SRC_FD;
			L->fd = seek_fd;
			L->mem = xmalloc(INPUT_BLOCK);
		} else if (!in->pull && in->offset == 0) {
			/* already in memory, whole: read it in place */
			L->mem = (unsigned char *)in->data;
			L->mem_len = in->end;
			L->mem_owned = false;
		} else if (spool_input(w, in, L) != 0) {
			return false;
		}
	} else {
		L->src = SRC_INPUT;
		L->in = in;
	}
	if (L->kind == CONTAINER_COMPRESSED) {
		const unsigned char *p;
		size_t avail;

		/* walk_stream() sniffed these very bytes */
		L->filter = input_peek(in, SNIFF_LEN, &p, &avail) == 0
				    ? walk_sniff_filter(p, avail)
				    : NULL;
		if (!L->filter)
			L->filter = "compressed";
	}
	return true;
}

/* L's libarchive reader: the formats or filters of its kind, reading
 * from L's source. */
static void layer_reader(struct layer *L)
{
	L->a = archive_read_new();
	if (!L->a)
		die("out of memory creating an archive reader");
	switch (L->kind) {
	case CONTAINER_ZIP:
		archive_read_support_format_zip_seekable(L->a);
		break;
	case CONTAINER_7Z:
		archive_read_support_format_7zip(L->a);
		break;
	case CONTAINER_TAR:
		archive_read_support_format_tar(L->a);
		archive_read_support_format_gnutar(L->a);
		break;
	case CONTAINER_COMPRESSED:
		/* Only decompress: what comes out is sniffed again as a
		 * stream of its own.  Letting libarchive choose between tar
		 * and raw here would let tar claim any stream that starts
		 * with 512 zero bytes (its end marker) and list nothing. */
		archive_read_support_filter_gzip(L->a);
		archive_read_support_filter_bzip2(L->a);
		archive_read_support_filter_xz(L->a);
		archive_read_support_filter_lzma(L->a);
		archive_read_support_filter_zstd(L->a);
		archive_read_support_filter_lz4(L->a);
		archive_read_support_format_raw(L->a);
		archive_read_support_format_empty(L->a); /* gzip of nothing */
		break;
	case CONTAINER_NONE:
		BUG("walk_layer on a plain stream");
	}
	archive_read_set_callback_data(L->a, L);
	archive_read_set_read_callback(L->a, source_read);
	if (L->src != SRC_INPUT)
		archive_read_set_seek_callback(L->a, source_seek);
}

/* Open L's reader.  False where the layer ends there, its failure
 * reported (or, for a compressed layer, listed as a member unread). */
static bool layer_open(struct walk *w, struct layer *L)
{
	if (archive_read_open1(L->a) != ARCHIVE_OK) {
		if (L->src_failed)
			report_source_failure(w, L);
		else if (L->kind == CONTAINER_COMPRESSED)
			compressed_unread(w, L, L->path, L->depth);
		else
			walk_reportf(w, PROBLEM_WARNING,
				     L->src_eof ? ERR_TRUNC : ERR_FORMAT,
				     L->display, L->in_bytes,
				     "damaged %s, skipped: %s",
				     container_name(L->kind),
				     archive_error_string(L->a));
		return false;
	}
	if (L->kind == CONTAINER_COMPRESSED &&
	    archive_filter_code(L->a, 0) == ARCHIVE_FILTER_NONE) {
		/* The first bytes are a compressor's magic, but no bidder
		 * took the header.  When the stream ended inside it, it is a
		 * cut stream (gzip's magic alone, a bzip2 header without its
		 * block), never a stream nested in itself; otherwise it is
		 * read as the plain bytes it is. */
		if (L->src_eof) {
			L->no_header = true;
			compressed_unread(w, L, L->path, L->depth);
			return false;
		}
		L->passthrough = true;
		if (strcmp(L->filter, "lzma")) /* lzma's sniff is a guess */
			walk_reportf(w, PROBLEM_WARNING, ERR_FORMAT, L->display,
				     0,
				     "starts with %s's magic, but its header "
				     "is not %s's: read as it is",
				     L->filter, L->filter);
	}
	return true;
}

/* A member's names: where it is shown, its path inside the input, and
 * for the raw stream of a compressed layer, the filters undone. */
struct member_names {
	struct buf display, path, filters;
};

/* The names of member name of L; the raw stream of a compressed layer
 * keeps L's own and takes its filters'. */
static void name_member(struct layer *L, const char *name, bool raw,
			struct member_names *nm)
{
	buf_reset(&nm->display);
	buf_reset(&nm->path);
	buf_reset(&nm->filters);
	buf_adds(&nm->display, L->display);
	buf_adds(&nm->path, L->path);
	if (raw) {
		filter_names(L->a, &nm->filters);
	} else {
		buf_addch(&nm->display, '!');
		buf_adds(&nm->display, name);
		if (nm->path.len)
			buf_addch(&nm->path, '!');
		buf_adds(&nm->path, name);
	}
}

/*
 * Walk L's current member (names nm) as a stream of its own, read what
 * the callback left of it, and report its failure where this is the
 * deepest level that saw it.  True when the layer stops there.
 */
static bool walk_member(struct walk *w, struct layer *L,
			const struct member_names *nm)
{
	struct entry en = {L, 0, false, false, false, false};
	struct input child;

	input_init_pull(&child, nm->display.data, entry_pull, &en, 0);
	/* a compressed stream's content is no new archive level */
	walk_stream(w, &child, &en, nm->display.data, nm->path.data,
		    nm->filters.data,
		    L->kind == CONTAINER_COMPRESSED ? L->depth : L->depth + 1,
		    -1);
	/* What the member callback left unread, libarchive would
	 * decompress unseen to reach the next member of a tar or a
	 * solid 7z: read it here instead, so the limits count it. */
	if (!child.failed && !en.container && !w->stop &&
	    (L->kind == CONTAINER_TAR || L->kind == CONTAINER_7Z)) {
		uint64_t skipped;

		input_skip(&child, UINT64_MAX, &skipped);
	}
	/* The deepest level that sees a failure reports it, under the
	 * member's name; the levels above it stay quiet. */
	if (child.failed && !child.reported) {
		walk_report(w, walk_severity(child.err.code), &child.err);
		child.reported = true;
	}
	if (en.upstream)
		L->in->reported = true;
	input_release(&child);
	return en.upstream || en.stop_layer || L->fatal || w->stop;
}

/* A member header libarchive could not read: the source's failure, a
 * compressed layer unread, or damage; the rest of L is skipped. */
static void header_failed(struct walk *w, struct layer *L, uint64_t n_members)
{
	if (L->src_failed)
		report_source_failure(w, L);
	else if (L->kind == CONTAINER_COMPRESSED && !n_members)
		compressed_unread(w, L, L->path, L->depth);
	else
		walk_reportf(w, PROBLEM_WARNING,
			     L->src_eof ? ERR_TRUNC : ERR_FORMAT, L->display,
			     L->in_bytes, "damaged, rest skipped: %s",
			     archive_error_string(L->a));
}

/*
 * Member names in UTF-8, whatever the process's locale.  libarchive hands
 * a name over in the charset of the locale's LC_CTYPE, converting to it
 * from what the archive declares: a pax "path" and a zip name flagged
 * UTF-8 (bsdtar, Python, 7-Zip, Info-ZIP for names outside ASCII), a
 * 7z name is UTF-16, and in the "C" locale a program gets when it never
 * calls setlocale(), as heapsift's commands do not (the browser does,
 * for its drawing, after its import), "réunion.jfr" cannot be converted:
 * a warning, and a zip or 7z member's name lost.  So the walker
 * reads each header under a UTF-8 locale of this thread's own
 * (uselocale(), POSIX 2008), with no effect on the rest of the process.
 * Names the archive stores as bytes (ustar, GNU tar, a zip name not
 * flagged UTF-8, a pax name marked hdrcharset=BINARY) are handed over as
 * those bytes in any locale: a name that is not valid UTF-8 is kept, and
 * shown escaped like any other (buf_add_printable()).  A zip name
 * flagged UTF-8 that is not cannot be kept: libarchive drops a name it
 * fails to convert (warned about; the member is "(unnamed)").  Where no
 * UTF-8 locale exists at all, the process's is used, as before.
 */
static locale_t utf8_ctype;

static void utf8_ctype_make(void)
{
	/* C.UTF-8: glibc 2.35+, musl, Debian's and Fedora's older glibc
	 * (as C.utf8); then the common ones */
	static const char *const names[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8",
					    "en_US.utf8"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !utf8_ctype; i++)
		utf8_ctype = newlocale(LC_CTYPE_MASK, names[i], (locale_t)0);
}

/* The next header of L and its member's name (NULL when it has none),
 * read under the UTF-8 locale; ARCHIVE_OK, ARCHIVE_WARN... as
 * archive_read_next_header(). */
static int next_header(struct layer *L, struct archive_entry **ent,
		       const char **name)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	locale_t old = (locale_t)0;
	int r;

	pthread_once(&once, utf8_ctype_make);
	if (utf8_ctype)
		old = uselocale(utf8_ctype);
	r = archive_read_next_header(L->a, ent);
	*name = r == ARCHIVE_OK || r == ARCHIVE_WARN
			? archive_entry_pathname(*ent)
			: NULL;
	if (utf8_ctype)
		uselocale(old);
	return r;
}

/*
 * Walk L's members in order, within the member count's limit: regular
 * files only, never an encrypted one.  Returns the last header's status
 * (ARCHIVE_EOF: the layer was read to its end); *n_members counts the
 * members walked.
 */
static int layer_members(struct walk *w, struct layer *L,
			 struct member_names *nm, uint64_t *n_members)
{
	struct archive_entry *ent;
	const char *name;
	bool raw;
	int r;

	for (;;) {
		r = next_header(L, &ent, &name);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_WARN) {
			walk_reportf(w, PROBLEM_WARNING, ERR_FORMAT, L->display,
				     L->in_bytes, "%s",
				     archive_error_string(L->a));
		} else if (r != ARCHIVE_OK) {
			header_failed(w, L, *n_members);
			break;
		}
		raw = archive_format(L->a) == ARCHIVE_FORMAT_RAW;
		if (!raw)
			w->stats->entries++;
		/* counted per input, as the option says */
		if (!raw && ++w->entries > w->lim->max_members) {
			walk_reportf(w, PROBLEM_WARNING, ERR_LIMIT, L->display,
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
		if (!name)
			name = "(unnamed)";
		name_member(L, name, raw, nm);
		if (!raw && archive_entry_is_encrypted(ent)) {
			walk_reportf(w, PROBLEM_WARNING, ERR_UNSUPPORTED,
				     nm->display.data, ERR_NO_OFFSET,
				     "encrypted member skipped");
			continue;
		}
		if (!raw && unsafe_path(name))
			walk_reportf(w, PROBLEM_WARNING, ERR_FORMAT,
				     nm->display.data, ERR_NO_OFFSET,
				     "member path is absolute or leaves the "
				     "archive (read in place, never "
				     "extracted)");
		(*n_members)++;
		if (walk_member(w, L, nm))
			break;
	}
	return r;
}

/* A compressed stream of nothing is still a member: an empty one. */
static void list_empty(struct walk *w, struct layer *L, struct buf *filters)
{
	struct input empty;

	filter_names(L->a, filters);
	input_init_memory(&empty, L->display, "", 0);
	{
		struct member m = {L->display,	  w->input_name, L->path,
				   filters->data, L->depth,	 &empty};

		hand_member(w, &m);
	}
	input_release(&empty);
}

/*
 * One container level: the container of kind that in holds (display,
 * path and depth its names and level; seek_fd the file itself, where in
 * is a regular file), read through libarchive, each member walked as a
 * stream of its own.
 */
static void walk_layer(struct walk *w, struct input *in, const char *display,
		       const char *path, enum container kind, unsigned depth,
		       int seek_fd)
{
	struct layer L;
	struct member_names nm = {BUF_INIT, BUF_INIT, BUF_INIT};
	uint64_t n_members = 0;
	int r;

	memset(&L, 0, sizeof(L));
	L.w = w;
	L.display = display;
	L.path = path;
	L.depth = depth;
	L.kind = kind;
	L.fd = -1;
	spool_init(&L.spool, spool_mem_max());
	if (!layer_source(w, &L, in, seek_fd)) {
		spool_release(&L.spool);
		return; /* a failure of in: the caller reports */
	}
	layer_reader(&L);
	if (layer_open(w, &L)) {
		r = layer_members(w, &L, &nm, &n_members);
		if (kind == CONTAINER_COMPRESSED && !n_members &&
		    r == ARCHIVE_EOF && !w->stop)
			list_empty(w, &L, &nm.filters);
	}
	archive_read_free(L.a);
	if (L.mem_owned)
		free(L.mem);
	spool_release(&L.spool);
	if (L.src == SRC_INPUT && L.pending)
		input_consume(L.in, L.pending);
	buf_release(&nm.display);
	buf_release(&nm.path);
	buf_release(&nm.filters);
}

/*
 * A plain stream given directly (a file, a fifo, a device, standard
 * input) or a file of a folder given is a member and an input as much as
 * one read out of an archive: the same two limits hold, the smaller
 * first, in entry_pull()'s words (a device or a pipe would otherwise be
 * read for ever).
 */
static void top_limits(struct walk *w, struct input *in)
{
	const struct input_limits *lim = w->lim;
	/* a folder's files share its input's bytes (0 before the first) */
	uint64_t room = lim->max_input_bytes - w->input_bytes;
	struct err e;
	char h[32];

	err_init(&e);
	if (lim->max_member_bytes <= room)
		err_set_at(&e, ERR_LIMIT, lim->max_member_bytes,
			   "member larger than %s (--max-member-size): "
			   "rest skipped",
			   human(lim->max_member_bytes, h, sizeof(h)));
	else
		err_set_at(&e, ERR_LIMIT, room,
			   "input larger than %s (--max-input-size): rest "
			   "skipped",
			   human(lim->max_input_bytes, h, sizeof(h)));
	input_limit(in, e.offset, &e);
}

bool walk_stream(struct walk *w, struct input *in, struct entry *en,
		 const char *display, const char *path, const char *compression,
		 unsigned depth, int seek_fd)
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
			return true;
		}
		walk_reportf(
			w, PROBLEM_WARNING, ERR_LIMIT, display, ERR_NO_OFFSET,
			"more than %u nested archive or compression level%s "
			"(--max-depth); "
			"listed unopened",
			w->lim->max_depth, w->lim->max_depth == 1 ? "" : "s");
	}
	if (!en)
		top_limits(w, in);
	{
		struct member m = {display,	w->input_name, path,
				   compression, depth,	       in};

		hand_member(w, &m);
	}
	return false;
}
