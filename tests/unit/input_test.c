/*
 * Unit tests for src/input: the byte stream (peek, consume, read, skip,
 * lines, offsets, sticky errors) and the walker over archives built in
 * memory with libarchive's writer, so that every expected name, size and
 * kind is known by construction.
 */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "input/input.h"
#include "input/walk.h"
#include "test.h"
#include "util/buf.h"

TEST(input_memory_peek_consume_read)
{
	struct input in;
	const unsigned char *p;
	size_t avail, got;
	char dst[8];
	uint64_t skipped;

	input_init_memory(&in, "mem", "hello world", 11);
	CHECK_INT(input_peek(&in, 5, &p, &avail), ==, 0);
	CHECK_UINT(avail, ==, 11);
	CHECK(!memcmp(p, "hello", 5));
	input_consume(&in, 6);
	CHECK_UINT(input_offset(&in), ==, 6);
	CHECK_INT(input_read(&in, dst, 3, &got), ==, 0);
	CHECK_UINT(got, ==, 3);
	CHECK(!memcmp(dst, "wor", 3));
	CHECK_INT(input_skip(&in, 100, &skipped), ==, 0);
	CHECK_UINT(skipped, ==, 2);
	CHECK_INT(input_peek(&in, 1, &p, &avail), ==, 0);
	CHECK_UINT(avail, ==, 0);
	CHECK(input_error(&in) == NULL);
	input_release(&in);
}

/* A pull source that hands out 'total' bytes of a counting pattern in
 * pieces of at most 'piece', then fails if fail_at is reached. */
struct pattern {
	size_t total, piece, done, fail_at;
};

static int pattern_pull(void *ctx, unsigned char *dst, size_t room, size_t *got,
			struct err *e)
{
	struct pattern *s = ctx;
	size_t n = s->total - s->done, i;

	if (s->fail_at && s->done >= s->fail_at) {
		*got = 0;
		return err_set(e, ERR_IO, "device on fire");
	}
	if (n > room)
		n = room;
	if (n > s->piece)
		n = s->piece;
	for (i = 0; i < n; i++)
		dst[i] = (unsigned char)((s->done + i) % 251);
	s->done += n;
	*got = n;
	return 0;
}

/* A mapped file read in uneven steps past several drop steps: every
 * byte is what was written, and offsets count as for memory. */
TEST(input_mapped_reads_every_byte_while_dropping_pages)
{
	char path[] = "/tmp/hs-input-map-XXXXXX";
	size_t len = (size_t)13 << 20, i, off = 0;
	unsigned char *data = malloc(len);
	const unsigned char *p;
	struct input in;
	size_t avail;
	void *m;
	int fd, bad = 0;

	CHECK(data != NULL);
	for (i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, data, len) == (ssize_t)len);
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	input_init_mapped(&in, path, m, len);
	while (off < len && !bad) {
		size_t step = 1 + (off * 7919) % 300000;

		CHECK_INT(input_peek(&in, step, &p, &avail), ==, 0);
		if (step > avail)
			step = avail;
		bad = memcmp(p, data + off, step) != 0;
		input_consume(&in, step);
		off += step;
		bad |= input_offset(&in) != off;
	}
	CHECK_INT(bad, ==, 0);
	CHECK_UINT(off, ==, len);
	CHECK(in.dropped > 0); /* pages were let go on the way */
	CHECK_INT(input_peek(&in, 1, &p, &avail), ==, 0);
	CHECK_UINT(avail, ==, 0);
	input_release(&in); /* unmaps */
	close(fd);
	unlink(path);
	free(data);
}

/* Resident pages of m[from, to) (mincore), in pages. */
static size_t resident_pages(void *m, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (to - from) / page, i,
	       in = 0;
	unsigned char *v = malloc(n ? n : 1);

	if (v && !mincore((char *)m + from, to - from, v))
		for (i = 0; i < n; i++)
			in += v[i] & 1;
	free(v);
	return in;
}

/* A file of len bytes in dir, written, synced and dropped from the page
 * cache; -1, or its descriptor (path filled) when it was dropped. */
static int cold_file(const char *dir, char *path, size_t path_len, size_t len)
{
	static unsigned char block[1 << 16];
	size_t done;
	void *m;
	int fd, cold;

	snprintf(path, path_len, "%s/hs-prefetch-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	memset(block, 0x5a, sizeof(block));
	for (done = 0; done < len; done += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			break;
	fsync(fd); /* clean pages: the advice below can drop them */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	cold = done >= len && m != MAP_FAILED &&
	       resident_pages(m, 0, len) <
		       len / (size_t)sysconf(_SC_PAGESIZE) / 20;
	if (m != MAP_FAILED)
		munmap(m, len);
	if (!cold) {
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/* A range of a file that is not in the page cache, wider than the most
 * one read-ahead request reads (8 MB on the machines here), is read in
 * the background; nothing happens before it, past the end or for a
 * memory stream. */
TEST(input_prefetch_reads_a_cold_range_in_the_background)
{
	size_t len = (size_t)40 << 20, from = (size_t)4 << 20,
	       to = (size_t)36 << 20, got = 0,
	       want = (to - from) / (size_t)sysconf(_SC_PAGESIZE);
	char path[256];
	struct input in;
	int fd, tries;
	void *m;

	/* /tmp may be memory (tmpfs) whose pages cannot be dropped */
	fd = cold_file("/tmp", path, sizeof(path), len);
	if (fd < 0)
		fd = cold_file(".", path, sizeof(path), len);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED) {
		close(fd);
		unlink(path);
		return;
	}
	input_init_mapped(&in, path, m, len);
	input_prefetch(&in, from, to - from);
	CHECK_UINT(in.prefetched, ==, to);
	/* the reads were only asked for: wait for the disk */
	for (tries = 0; tries < 500 && got < want; tries++) {
		got = resident_pages(m, from, to);
		if (got < want)
			usleep(10000);
	}
	CHECK_UINT(got, ==, want);
	/* asked again, or past the end: clipped, never beyond the file */
	input_prefetch(&in, from, 1);
	CHECK_UINT(in.prefetched, ==, to);
	input_prefetch(&in, len - 1000, UINT64_MAX);
	CHECK_UINT(in.prefetched, ==, len);
	input_prefetch(&in, len, 10);
	input_prefetch(&in, UINT64_MAX, UINT64_MAX);
	CHECK_UINT(in.prefetched, ==, len);
	input_release(&in);
	close(fd);
	unlink(path);
	input_init_memory(&in, "mem", "abc", 3);
	input_prefetch(&in, 0, 3);
	CHECK_UINT(in.prefetched, ==, 0);
	input_release(&in);
}

TEST(input_pull_peeks_across_pieces_and_grows)
{
	struct pattern s = {300000, 777, 0, 0};
	struct input in;
	const unsigned char *p;
	size_t avail, i;
	int ok = 1;

	input_init_pull(&in, "pat", pattern_pull, &s, 1024);
	/* more than the buffer at once: must grow, not fail */
	CHECK_INT(input_peek(&in, 200000, &p, &avail), ==, 0);
	CHECK_UINT(avail, >=, 200000);
	for (i = 0; i < 200000; i++)
		ok &= p[i] == (unsigned char)(i % 251);
	CHECK(ok);
	input_consume(&in, 123457);
	CHECK_INT(input_peek(&in, 10, &p, &avail), ==, 0);
	CHECK(p[0] == (unsigned char)(123457 % 251));
	CHECK_UINT(input_offset(&in), ==, 123457);
	input_release(&in);
}

TEST(input_pull_error_is_sticky_and_named)
{
	struct pattern s = {100000, 4096, 0, 8192};
	struct input in;
	const unsigned char *p;
	size_t avail;
	uint64_t skipped;

	input_init_pull(&in, "disk.jfr", pattern_pull, &s, 4096);
	CHECK_INT(input_skip(&in, 1000000, &skipped), <, 0);
	CHECK_UINT(skipped, ==, 8192); /* everything before the failure */
	CHECK(input_error(&in) != NULL);
	CHECK_STR(in.err.source, "disk.jfr");
	CHECK_STR(in.err.msg, "device on fire");
	CHECK_INT(input_peek(&in, 1, &p, &avail), <, 0);
	input_release(&in);
}

/* input_limit(): a pulled stream longer than its limit gives every byte
 * before it, then fails with the limit's error, sticky; one of exactly
 * the limit is whole, and nothing past the limit is pulled but one
 * look. */
TEST(input_limit_cuts_a_pulled_stream_at_its_bytes)
{
	struct pattern s = {100000, 3000, 0, 0};
	struct input in;
	struct err le;
	uint64_t skipped;
	const unsigned char *p;
	size_t avail;

	err_init(&le);
	err_set_at(&le, ERR_LIMIT, 10000, "over the limit");
	input_init_pull(&in, "pipe", pattern_pull, &s, 4096);
	CHECK_INT(input_peek(&in, 512, &p, &avail), ==, 0); /* a sniff */
	input_limit(&in, 10000, &le);
	CHECK_INT(input_skip(&in, UINT64_MAX, &skipped), <, 0);
	CHECK_UINT(skipped, ==, 10000);
	CHECK_INT(in.err.code, ==, ERR_LIMIT);
	CHECK_STR(in.err.msg, "over the limit");
	CHECK_STR(in.err.source, "pipe");
	CHECK_UINT(s.done, <=, 10000 + 3000); /* one look past it */
	CHECK_INT(input_peek(&in, 1, &p, &avail), <, 0);
	input_release(&in);

	/* exactly the limit: whole */
	s.total = 10000;
	s.done = 0;
	input_init_pull(&in, "pipe", pattern_pull, &s, 4096);
	input_limit(&in, 10000, &le);
	CHECK_INT(input_skip(&in, UINT64_MAX, &skipped), ==, 0);
	CHECK_UINT(skipped, ==, 10000);
	CHECK(input_error(&in) == NULL);
	input_release(&in);

	/* a limit below what the sniff buffered: cut there */
	s.total = 100000;
	s.done = 0;
	input_init_pull(&in, "pipe", pattern_pull, &s, 4096);
	CHECK_INT(input_peek(&in, 512, &p, &avail), ==, 0);
	input_limit(&in, 100, &le);
	CHECK_INT(input_peek(&in, 512, &p, &avail), <, 0);
	CHECK_UINT(avail, ==, 100);
	CHECK(p[99] == 99);
	input_release(&in);
}

/* A memory or mapped stream keeps its bytes in place (stable) under a
 * limit, and ends at it with the limit's error. */
TEST(input_limit_cuts_a_memory_stream_in_place)
{
	static const char text[] = "0123456789abcdef";
	struct input in;
	struct err le;
	const unsigned char *p;
	size_t avail, got;
	char dst[32];

	err_init(&le);
	err_set_at(&le, ERR_LIMIT, 10, "over");
	input_init_memory(&in, "mem", text, 16);
	input_limit(&in, 10, &le);
	CHECK(input_is_stable(&in));
	CHECK_INT(input_peek(&in, 4, &p, &avail), ==, 0);
	CHECK_UINT(avail, ==, 10);
	CHECK(p == (const unsigned char *)text);
	CHECK_INT(input_read(&in, dst, sizeof(dst), &got), <, 0);
	CHECK_UINT(got, ==, 10);
	CHECK_STR(in.err.msg, "over");
	input_release(&in);

	input_init_memory(&in, "mem", text, 16);
	input_limit(&in, 16, &le);
	CHECK_INT(input_read(&in, dst, sizeof(dst), &got), ==, 0);
	CHECK_UINT(got, ==, 16);
	CHECK(input_error(&in) == NULL);
	input_release(&in);
}

TEST(input_lines_strip_crlf_and_count)
{
	const char text[] = "first\r\nsecond\n\nlast-without-newline";
	struct input in;
	const char *line;
	size_t len;

	input_init_memory(&in, "t", text, sizeof(text) - 1);
	CHECK_INT(input_line(&in, &line, &len), ==, 0);
	CHECK(len == 5 && !memcmp(line, "first", 5));
	CHECK_UINT(in.line, ==, 2);
	CHECK_INT(input_line(&in, &line, &len), ==, 0);
	CHECK(len == 6 && !memcmp(line, "second", 6));
	CHECK_INT(input_line(&in, &line, &len), ==, 0);
	CHECK_UINT(len, ==, 0);
	CHECK_INT(input_line(&in, &line, &len), ==, 0);
	CHECK(len == 20 && !memcmp(line, "last-without-newline", 20));
	CHECK_UINT(in.line, ==, 4);
	CHECK_INT(input_line(&in, &line, &len), ==, 1);
	input_release(&in);
}

TEST(input_lines_across_pulls_and_too_long)
{
	/* 3000 lines, then one that is too long */
	static char text[40000];
	struct input in;
	const char *line;
	size_t len, n = 0, i;
	int ok = 1;

	for (i = 0; i < 3000; i++)
		n += (size_t)sprintf(text + n, "line %04zu\n", i);
	{
		struct input mem;
		/* reference: a memory stream */
		input_init_memory(&mem, "m", text, n);
		for (i = 0; i < 3000; i++) {
			char want[16];

			sprintf(want, "line %04zu", i);
			ok &= input_line(&mem, &line, &len) == 0 && len == 9 &&
			      !memcmp(line, want, 9);
		}
		CHECK(ok);
		CHECK_INT(input_line(&mem, &line, &len), ==, 1);
		input_release(&mem);
	}
	input_init_memory(&in, "long", text, n);
	in.max_line = 5;
	CHECK_INT(input_line(&in, &line, &len), <, 0);
	CHECK(input_error(&in) != NULL);
	CHECK_CONTAINS(in.err.msg, "line longer than 5 bytes");
	CHECK_UINT(in.err.line, ==, 1);
	input_release(&in);
}

/* --- the walker over archives made in memory ------------------------- */

struct wfile {
	const char *name;
	const void *data;
	size_t len;
};

static int write_cb_open(struct archive *a, void *ctx)
{
	(void)a;
	(void)ctx;
	return ARCHIVE_OK;
}

static la_ssize_t write_cb(struct archive *a, void *ctx, const void *p,
			   size_t n)
{
	(void)a;
	buf_add(ctx, p, n);
	return (la_ssize_t)n;
}

/* Pack files into out with the given libarchive format and filter
 * ("raw" format takes exactly one file). */
static void pack(struct buf *out, const char *format, const char *filter,
		 const struct wfile *files, size_t n)
{
	struct archive *a = archive_write_new();
	size_t i;

	CHECK(archive_write_set_format_by_name(a, format) == ARCHIVE_OK);
	if (filter)
		CHECK(archive_write_add_filter_by_name(a, filter) ==
		      ARCHIVE_OK);
	archive_write_set_bytes_in_last_block(a, 1);
	CHECK(archive_write_open(a, out, write_cb_open, write_cb, NULL) ==
	      ARCHIVE_OK);
	for (i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, files[i].name);
		archive_entry_set_size(e, (la_int64_t)files[i].len);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		CHECK(archive_write_header(a, e) == ARCHIVE_OK);
		CHECK(archive_write_data(a, files[i].data, files[i].len) ==
		      (la_ssize_t)files[i].len);
		archive_entry_free(e);
	}
	CHECK(archive_write_close(a) == ARCHIVE_OK);
	archive_write_free(a);
}

struct seen {
	struct buf rows;     /* "display|path|compression|bytes|status\n" */
	struct buf problems; /* "W|E source: message\n" */
};

static int seen_member(void *ctx, const struct member *m)
{
	struct seen *s = ctx;
	uint64_t skipped;

	input_skip(m->in, UINT64_MAX, &skipped);
	buf_addf(&s->rows, "%s|%s|%s|%llu|%s\n", m->display, m->path,
		 m->compression, (unsigned long long)input_offset(m->in),
		 input_error(m->in) ? err_code_name(input_error(m->in)->code)
				    : "ok");
	return 0;
}

static void seen_problem(void *ctx, enum problem_severity sev,
			 const struct err *e)
{
	struct seen *s = ctx;

	buf_addch(&s->problems, sev == PROBLEM_ERROR ? 'E' : 'W');
	buf_addch(&s->problems, ' ');
	err_format(e, &s->problems);
	buf_addch(&s->problems, '\n');
}

static const struct walk_ops seen_ops = {seen_member, seen_problem};

static void walk_buf(struct seen *s, const char *name, const struct buf *b,
		     const struct input_limits *lim_in)
{
	struct input_limits lim;
	struct walk_stats st = {0, 0, 0, 0};

	if (lim_in)
		lim = *lim_in;
	else
		input_limits_default(&lim);
	buf_init(&s->rows);
	buf_init(&s->problems);
	walk_memory(name, b->data, b->len, &lim, &seen_ops, s, &st);
}

static void seen_release(struct seen *s)
{
	buf_release(&s->rows);
	buf_release(&s->problems);
}

static const char jfr_head[] = "FLR\0\0\2\0\1 pretend chunk";

TEST(walk_plain_stream_is_one_member)
{
	struct seen s;
	struct buf b = BUF_INIT;

	buf_add(&b, "just text\n", 10);
	walk_buf(&s, "notes.txt", &b, NULL);
	CHECK_STR(s.rows.data, "notes.txt|||10|ok\n");
	CHECK_STR(s.problems.data, "");
	seen_release(&s);
	buf_release(&b);
}

/* A plain stream given directly is a member and an input: both limits
 * hold for it, the smaller first, as warnings of the limit. */
TEST(walk_plain_stream_obeys_the_size_limits)
{
	struct seen s;
	struct buf b = BUF_INIT;
	struct input_limits lim;
	size_t i;

	for (i = 0; i < 5000; i++)
		buf_addch(&b, 'x');
	input_limits_default(&lim);
	lim.max_member_bytes = 1024;
	walk_buf(&s, "notes.txt", &b, &lim);
	CHECK_STR(s.rows.data, "notes.txt|||1024|limit\n");
	CHECK_STR(s.problems.data,
		  "W notes.txt: member larger than 1 KiB (--max-member-size): "
		  "rest skipped at offset 1024\n");
	seen_release(&s);
	input_limits_default(&lim);
	lim.max_input_bytes = 2000;
	walk_buf(&s, "notes.txt", &b, &lim);
	CHECK_STR(s.rows.data, "notes.txt|||2000|limit\n");
	CHECK_CONTAINS(s.problems.data, "(--max-input-size): rest skipped");
	seen_release(&s);
	input_limits_default(&lim);
	lim.max_input_bytes = 5000;
	walk_buf(&s, "notes.txt", &b, &lim);
	CHECK_STR(s.rows.data, "notes.txt|||5000|ok\n");
	seen_release(&s);
	buf_release(&b);
}

TEST(walk_nested_tar_gz_zip_zstd)
{
	struct wfile jfr = {"rec.jfr", jfr_head, sizeof(jfr_head) - 1};
	struct buf zst = BUF_INIT, zip = BUF_INIT, tgz = BUF_INIT;
	struct wfile in_zip[2], in_tar[2];
	struct seen s;

	pack(&zst, "raw", "zstd", &jfr, 1);
	in_zip[0] = (struct wfile){"rec.jfr.zst", zst.data, zst.len};
	in_zip[1] = (struct wfile){"readme.txt", "hi\n", 3};
	pack(&zip, "zip", NULL, in_zip, 2);
	in_tar[0] = (struct wfile){"logs/app.zip", zip.data, zip.len};
	in_tar[1] = (struct wfile){"logs/gc.log", "gc\n", 3};
	pack(&tgz, "pax", "gzip", in_tar, 2);

	walk_buf(&s, "case-1234.tar.gz", &tgz, NULL);
	CHECK_STR(s.rows.data,
		  "case-1234.tar.gz!logs/app.zip!rec.jfr.zst|logs/app.zip!"
		  "rec.jfr.zst|zstd|22|ok\n"
		  "case-1234.tar.gz!logs/app.zip!readme.txt|logs/app.zip!"
		  "readme.txt||3|ok\n"
		  "case-1234.tar.gz!logs/gc.log|logs/gc.log||3|ok\n");
	CHECK_STR(s.problems.data, "");
	seen_release(&s);
	buf_release(&zst);
	buf_release(&zip);
	buf_release(&tgz);
}

TEST(walk_7z_and_every_filter)
{
	static const char *filters[] = {"gzip", "bzip2", "xz", "zstd", "lz4"};
	struct wfile f = {"a.jfr", jfr_head, sizeof(jfr_head) - 1};
	struct buf b = BUF_INIT;
	struct seen s;
	size_t i;

	for (i = 0; i < 5; i++) {
		struct buf want = BUF_INIT;

		buf_reset(&b);
		pack(&b, "raw", filters[i], &f, 1);
		walk_buf(&s, "x", &b, NULL);
		buf_addf(&want, "x||%s|22|ok\n", filters[i]);
		CHECK_STR(s.rows.data, want.data);
		seen_release(&s);
		buf_release(&want);
	}
	buf_reset(&b);
	pack(&b, "7zip", NULL, &f, 1);
	walk_buf(&s, "y.7z", &b, NULL);
	CHECK_STR(s.rows.data, "y.7z!a.jfr|a.jfr||22|ok\n");
	seen_release(&s);
	buf_release(&b);
}

TEST(walk_truncated_gzip_reports_once)
{
	static char big[200000];
	struct wfile f = {"big.bin", big, sizeof(big)};
	struct buf b = BUF_INIT;
	struct seen s;
	size_t i;
	uint32_t x = 2463534242u;

	/* xorshift32: incompressible, so half the .gz is half the data */
	for (i = 0; i < sizeof(big); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		big[i] = (char)x;
	}
	pack(&b, "raw", "gzip", &f, 1);
	buf_setlen(&b, b.len / 2);
	walk_buf(&s, "big.bin.gz", &b, NULL);
	CHECK_CONTAINS(s.rows.data, "big.bin.gz||gzip|");
	/* some data came out before the cut, and not all of it */
	CHECK(!strstr(s.rows.data, "|0|") && !strstr(s.rows.data, "|200000|"));
	CHECK_CONTAINS(s.rows.data, "|truncated\n");
	CHECK_CONTAINS(s.problems.data,
		       "W big.bin.gz: truncated gzip stream: it ends after ");
	/* exactly one problem line */
	CHECK(strchr(s.problems.data, '\n') ==
	      s.problems.data + s.problems.len - 1);
	seen_release(&s);
	buf_release(&b);
}

TEST(walk_limits_ratio_member_depth_count)
{
	static char zeros[4 << 20];
	struct wfile f = {"zeros", zeros, sizeof(zeros)};
	struct wfile many[20];
	struct buf b = BUF_INIT, inner = BUF_INIT;
	struct input_limits lim;
	struct seen s;
	int i;

	input_limits_default(&lim);
	lim.ratio_grace = 1 << 20;
	pack(&b, "zip", NULL, &f, 1);
	walk_buf(&s, "bomb.zip", &b, &lim);
	/* 1 MiB comes out before the ratio is checked, in 64 KiB reads;
	 * the next read would make it 1114112 bytes from a zip of
	 * about 4 KiB */
	CHECK_STR(s.rows.data, "bomb.zip!zeros|zeros||1048576|limit\n");
	{
		struct buf want = BUF_INIT;

		buf_addf(&want,
			 "W bomb.zip!zeros: compression ratio above 200:1 "
			 "(--max-ratio; 1114112 bytes out of %zu): rest of "
			 "bomb.zip skipped at offset 1048576\n",
			 b.len);
		CHECK_STR(s.problems.data, want.data);
		buf_release(&want);
	}

	input_limits_default(&lim);
	lim.max_member_bytes = 1000;
	seen_release(&s);
	walk_buf(&s, "bomb.zip", &b, &lim);
	/* the first 1000 bytes are kept and listed */
	CHECK_CONTAINS(s.rows.data, "bomb.zip!zeros|zeros||1000|limit\n");
	CHECK_CONTAINS(s.problems.data, "W bomb.zip!zeros: member larger than "
					"1000 bytes (--max-member-size): rest "
					"skipped at offset 1000");

	/* depth: a zip in a zip with max_depth 1 lists the inner unopened */
	input_limits_default(&lim);
	lim.max_depth = 1;
	buf_reset(&inner);
	{
		struct wfile t = {"t.txt", "x", 1};
		struct wfile z;

		pack(&inner, "zip", NULL, &t, 1);
		z = (struct wfile){"inner.zip", inner.data, inner.len};
		buf_reset(&b);
		pack(&b, "zip", NULL, &z, 1);
	}
	seen_release(&s);
	walk_buf(&s, "outer.zip", &b, &lim);
	CHECK_CONTAINS(s.rows.data, "outer.zip!inner.zip|inner.zip||");
	CHECK_CONTAINS(s.problems.data, "(--max-depth)");

	/* member count */
	for (i = 0; i < 20; i++)
		many[i] = (struct wfile){"m", "1", 1};
	buf_reset(&b);
	pack(&b, "ustar", NULL, many, 20);
	input_limits_default(&lim);
	lim.max_members = 5;
	seen_release(&s);
	walk_buf(&s, "many.tar", &b, &lim);
	CHECK_CONTAINS(s.problems.data, "more than 5 archive members "
					"(--max-members)");
	{
		size_t rows = 0;
		const char *p;

		for (p = s.rows.data; (p = strchr(p, '\n')); p++)
			rows++;
		CHECK_UINT(rows, ==, 5);
	}
	seen_release(&s);
	buf_release(&b);
	buf_release(&inner);
}

TEST(walk_flags_unsafe_member_paths)
{
	struct wfile f[3] = {{"../../etc/passwd", "x", 1},
			     {"/abs/path", "y", 1},
			     {"ok/..hidden", "z", 1}};
	struct buf b = BUF_INIT;
	struct seen s;

	pack(&b, "pax", NULL, f, 3);
	walk_buf(&s, "evil.tar", &b, NULL);
	CHECK_CONTAINS(s.rows.data, "evil.tar!../../etc/passwd|");
	CHECK_CONTAINS(s.rows.data, "evil.tar!/abs/path|");
	CHECK_CONTAINS(s.rows.data, "evil.tar!ok/..hidden|");
	CHECK_CONTAINS(s.problems.data, "W evil.tar!../../etc/passwd: member "
					"path is absolute or leaves");
	CHECK_CONTAINS(s.problems.data, "W evil.tar!/abs/path: member path");
	CHECK(!strstr(s.problems.data, "..hidden"));
	seen_release(&s);
	buf_release(&b);
}

TEST(walk_sniff_signatures)
{
	unsigned char tar[512];

	CHECK_INT(walk_sniff((const unsigned char *)"\x1f\x8b\x08", 3), ==,
		  CONTAINER_COMPRESSED);
	CHECK_INT(walk_sniff((const unsigned char *)"BZh9", 4), ==,
		  CONTAINER_COMPRESSED);
	CHECK_INT(walk_sniff((const unsigned char *)"BZhx", 4), ==,
		  CONTAINER_NONE);
	CHECK_INT(walk_sniff((const unsigned char *)"PK\3\4", 4), ==,
		  CONTAINER_ZIP);
	CHECK_INT(walk_sniff((const unsigned char *)"7z\xbc\xaf\x27\x1c", 6),
		  ==, CONTAINER_7Z);
	CHECK_INT(walk_sniff((const unsigned char *)"FLR\0", 4), ==,
		  CONTAINER_NONE);
	CHECK_INT(walk_sniff((const unsigned char *)"", 0), ==, CONTAINER_NONE);
	memset(tar, 0, sizeof(tar));
	memcpy(tar + 257, "ustar", 5);
	CHECK_INT(walk_sniff(tar, sizeof(tar)), ==, CONTAINER_TAR);
	CHECK_INT(walk_sniff(tar, 261), ==, CONTAINER_NONE);
}
