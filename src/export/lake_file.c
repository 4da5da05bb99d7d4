/*
 * The fleet lake's table files: rows written as CSV (plain or gzipped),
 * a part's file rewritten less the rows of some recordings and with new
 * ones, and the manifest read back from the recordings files.  Parquet's
 * are in lake_parquet.c.  Every file is made without a name and renamed
 * over its target (newfile.h), so a reader sees the old file or the new
 * one, whole.
 */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/lake_int.h"
#include "record/record.h"
#include "util/err.h"
#include "util/xalloc.h"

/* --- writing rows --------------------------------------------------------- */

int lake_out_open(struct lake_out *o, const char *target, bool gz, bool guard,
		  enum lake_table t, struct err *e)
{
	int d = -1;

	memset(o, 0, sizeof(*o));
	buf_init(&o->row);
	buf_init(&o->cell);
	buf_init(&o->target);
	buf_adds(&o->target, target);
	o->guard = guard;
	errno = 0;
	if (newfile_open(&o->nf, target, 0666) == 0)
		d = dup(o->nf.fd);
	if (d >= 0 && gz)
		o->gz = gzdopen(d, "wb6");
	else if (d >= 0)
		o->f = fdopen(d, "wb");
	if (!o->f && !o->gz) {
		int saved = errno ? errno : ENOMEM;

		if (d >= 0)
			close(d);
		newfile_abandon(&o->nf);
		buf_release(&o->row);
		buf_release(&o->cell);
		buf_release(&o->target);
		return err_set(e, ERR_IO, "writing %s: %s", target,
			       err_io_reason(saved));
	}
	o->open = true;
	lake_header(&o->row, t);
	buf_adds(&o->row, "\r\n");
	return 0;
}

static void out_flush(struct lake_out *o)
{
	if (!o->row.len || o->failed) {
		buf_reset(&o->row);
		return;
	}
	errno = 0;
	if (o->gz) {
		if (gzwrite(o->gz, o->row.data, (unsigned)o->row.len) !=
		    (int)o->row.len)
			o->failed = true;
	} else if (fwrite(o->row.data, 1, o->row.len, o->f) != o->row.len) {
		o->failed = true;
	}
	if (o->failed)
		o->errnum = errno ? errno : EIO;
	buf_reset(&o->row);
}

/* A cell's separator: none before the row's first. */
static void sep(struct lake_out *o)
{
	if (o->row.len && o->row.data[o->row.len - 1] != '\n')
		buf_addch(&o->row, ',');
}

/* The value a text cell holds: the name as on a terminal, and for a
 * spreadsheet's sake a formula's first character behind an apostrophe
 * (buf_add_csv's rule, docs/export.md "Formulas"). */
void lake_cell_value(struct buf *out, const char *s, bool guard)
{
	size_t start = out->len;

	buf_add_printable(out, s, strlen(s));
	if (guard && out->len - start > 1 &&
	    memchr("=+-@", out->data[start], 4)) {
		buf_addch(out, '\0');
		memmove(out->data + start + 1, out->data + start,
			out->len - start - 1);
		out->data[start] = '\'';
	}
}

void lake_out_text(struct lake_out *o, const char *s)
{
	size_t i;

	sep(o);
	if (!s || !*s)
		return; /* NULL: not known */
	buf_reset(&o->cell);
	lake_cell_value(&o->cell, s, o->guard);
	buf_addch(&o->row, '"');
	for (i = 0; i < o->cell.len; i++) {
		if (o->cell.data[i] == '"')
			buf_addch(&o->row, '"');
		buf_addch(&o->row, o->cell.data[i]);
	}
	buf_addch(&o->row, '"');
}

void lake_out_int(struct lake_out *o, int64_t v)
{
	sep(o);
	if (v != REC_NONE)
		buf_add_i64(&o->row, v);
}

void lake_out_u64(struct lake_out *o, uint64_t v)
{
	sep(o);
	buf_add_u64(&o->row, v);
}

void lake_out_bool(struct lake_out *o, bool v)
{
	sep(o);
	buf_adds(&o->row, v ? "true" : "false");
}

void lake_out_double(struct lake_out *o, double v)
{
	sep(o);
	if (!isnan(v))
		buf_addf(&o->row, "%.6f", v);
}

void lake_out_null(struct lake_out *o)
{
	sep(o);
}

void lake_out_end(struct lake_out *o)
{
	buf_adds(&o->row, "\r\n");
	o->rows++;
	if (o->row.len >= 65536)
		out_flush(o);
}

/* Whole lines, as read (line ends included). */
static void out_raw(struct lake_out *o, const char *s, size_t len)
{
	buf_add(&o->row, s, len);
	o->rows++;
	if (o->row.len >= 65536)
		out_flush(o);
}

int lake_out_finish(struct lake_out *o, struct err *e)
{
	int errnum;

	if (!o->open)
		return 0;
	out_flush(o);
	errnum = o->failed ? o->errnum : 0;
	errno = 0;
	if (o->gz) {
		if (gzclose(o->gz) != Z_OK && !errnum)
			errnum = errno ? errno : EIO;
	} else {
		if ((ferror(o->f) || fflush(o->f)) && !errnum)
			errnum = errno ? errno : EIO;
		if (fclose(o->f) && !errnum)
			errnum = errno ? errno : EIO;
	}
	o->gz = NULL;
	o->f = NULL;
	o->open = false;
	buf_release(&o->row);
	buf_release(&o->cell);
	if (errnum)
		return err_set(e, ERR_IO, "writing %s: %s", o->target.data,
			       err_io_reason(errnum));
	return 0;
}

void lake_out_abandon(struct lake_out *o)
{
	buf_release(&o->target);
	if (o->open) {
		if (o->gz)
			(void)gzclose(o->gz);
		else if (o->f)
			fclose(o->f);
		buf_release(&o->row);
		buf_release(&o->cell);
		o->open = false;
	}
	newfile_abandon(&o->nf);
}

/* --- ids -------------------------------------------------------------------- */

void lake_id_hex(char out[17], uint64_t id)
{
	snprintf(out, 17, "%016llx", (unsigned long long)id);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool lake_row_id(const char *line, size_t len, uint64_t *id)
{
	uint64_t v = 0;
	size_t i;

	if (len < 18 || line[0] != '"' || line[17] != '"')
		return false;
	for (i = 1; i <= 16; i++) {
		int h = hexval(line[i]);

		if (h < 0)
			return false;
		v = v << 4 | (uint64_t)h;
	}
	*id = v;
	return true;
}

/* --- reading lines ---------------------------------------------------------- */

/* Lines of a file, plain or gzipped (zlib reads both), line ends kept. */
struct lines {
	gzFile gz;
	char *chunk;
	size_t at, n;
	unsigned n_line; /* of the line last read, from 1 */
	bool eof;
	struct buf line;
};

static int lines_open_fd(struct lines *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		close(fd);
		return -1;
	}
	r->chunk = xmalloc(1 << 16);
	buf_init(&r->line);
	return 0;
}

/* 1 and the next line in r->line, 0 at the end, -1 on a read error */
static int lines_next(struct lines *r)
{
	buf_reset(&r->line);
	r->n_line++;
	for (;;) {
		char *nl;

		if (r->at == r->n) {
			int got;

			if (r->eof)
				return r->line.len ? 1 : 0;
			got = gzread(r->gz, r->chunk, 1 << 16);
			if (got < 0)
				return -1;
			if (got == 0)
				r->eof = true;
			r->at = 0;
			r->n = (size_t)got;
			continue;
		}
		nl = memchr(r->chunk + r->at, '\n', r->n - r->at);
		if (nl) {
			size_t k = (size_t)(nl - (r->chunk + r->at)) + 1;

			buf_add(&r->line, r->chunk + r->at, k);
			r->at += k;
			return 1;
		}
		buf_add(&r->line, r->chunk + r->at, r->n - r->at);
		r->at = r->n;
	}
}

static void lines_close(struct lines *r)
{
	if (r->gz)
		(void)gzclose(r->gz);
	free(r->chunk);
	buf_release(&r->line);
	r->gz = NULL;
	r->chunk = NULL;
}

/* A damaged line of a lake's file: PATH:LINE: why. */
static int line_damage(struct err *e, const char *path, const struct lines *r,
		       const char *why)
{
	err_set_line(e, ERR_FORMAT, r->n_line, 0, "%s", why);
	err_source(e, path);
	return ERR_FAIL;
}

/* Whether line is table t's header. */
static bool is_header(const struct buf *line, enum lake_table t)
{
	struct buf h = BUF_INIT;
	bool same;

	lake_header(&h, t);
	buf_adds(&h, "\r\n");
	same = line->len == h.len && !memcmp(line->data, h.data, h.len);
	buf_release(&h);
	return same;
}

/* Copy r's rows (its header checked, then skipped) into out: only
 * those of the recordings in keep (NULL: all). */
static int copy_rows(struct lines *r, const char *what, enum lake_table t,
		     const struct u64map *keep, struct lake_out *out,
		     struct err *e)
{
	int rc = lines_next(r);

	if (rc > 0 && !is_header(&r->line, t))
		return line_damage(e, what, r,
				   "its header is not the lake's (schema 2, "
				   "docs/export.md): written by another "
				   "heapsift? export into a new folder");
	while (rc > 0 && (rc = lines_next(r)) > 0) {
		uint64_t id, v;

		/* a row without its recording's id is damage, said, never
		 * dropped in silence: a rewrite would lose it */
		if (!lake_row_id(r->line.data, r->line.len, &id))
			return line_damage(e, what, r,
					   "a row without a recording id "
					   "(damaged, or not written by "
					   "heapsift)");
		if (keep && !u64map_get(keep, id, &v))
			continue;
		out_raw(out, r->line.data, r->line.len);
	}
	if (rc < 0)
		return line_damage(e, what, r,
				   "cannot be read (a damaged gzip stream?)");
	return 0;
}

/* --- a part's file rewritten --------------------------------------------- */

int lake_file_write(const char *target, enum lake_format f, enum lake_table t,
		    const struct u64map *keep, struct lake_out *add,
		    struct duckdb_dl *d, uint64_t *rows, struct err *e)
{
	struct lake_out out;
	struct lines r;
	int fd, rc = 0;

	if (f == LAKE_PARQUET)
		return lake_parquet_write(target, t, keep, add, d, rows, e);
	*rows = 0;
	fd = open(target, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		return err_set(e, ERR_IO, "reading %s: %s", target,
			       err_io_reason(errno));
	if (fd < 0 && add) { /* a new part: its staged file, as it is */
		*rows = add->rows;
		if (newfile_commit(&add->nf, target) < 0)
			return err_set(e, ERR_IO, "writing %s: %s", target,
				       err_io_reason(errno));
		return 0;
	}
	if (fd < 0)
		return 0; /* nothing was there, nothing comes */
	if (lake_out_open(&out, target, f == LAKE_CSV_GZ, false, t, e) < 0) {
		close(fd);
		return ERR_FAIL;
	}
	out.rows = 0;
	if (lines_open_fd(&r, fd) < 0) {
		lake_out_abandon(&out);
		return err_set(e, ERR_IO, "reading %s", target);
	}
	rc = copy_rows(&r, target, t, keep, &out, e);
	lines_close(&r);
	if (rc == 0 && add) {
		int d2 = dup(add->nf.fd);

		if (d2 < 0 || lseek(d2, 0, SEEK_SET) < 0 ||
		    lines_open_fd(&r, d2) < 0) {
			if (d2 >= 0)
				close(d2);
			rc = err_set(e, ERR_IO, "reading the rows for %s",
				     target);
		} else {
			rc = copy_rows(&r, target, t, NULL, &out, e);
			lines_close(&r);
		}
	}
	*rows = out.rows;
	if (rc == 0 && lake_out_finish(&out, e) < 0)
		rc = ERR_FAIL;
	if (rc < 0 || *rows == 0) {
		lake_out_abandon(&out);
		if (rc == 0 && unlink(target) < 0 && errno != ENOENT)
			rc = err_set(e, ERR_IO, "removing %s: %s", target,
				     err_io_reason(errno));
		return rc;
	}
	buf_release(&out.target);
	if (newfile_commit(&out.nf, target) < 0)
		return err_set(e, ERR_IO, "writing %s: %s", target,
			       err_io_reason(errno));
	return 0;
}

/* --- the manifest ------------------------------------------------------------ */

/* The next CSV field of line from *at (quotes undone), into out; false
 * past the row's end. */
static bool csv_field(const struct buf *line, size_t *at, struct buf *out)
{
	size_t i = *at, n = line->len;

	buf_reset(out);
	while (n && (line->data[n - 1] == '\n' || line->data[n - 1] == '\r'))
		n--;
	if (i > n)
		return false;
	if (i < n && line->data[i] == '"') {
		for (i++; i < n; i++) {
			if (line->data[i] == '"') {
				if (i + 1 < n && line->data[i + 1] == '"') {
					buf_addch(out, '"');
					i++;
					continue;
				}
				i++;
				break;
			}
			buf_addch(out, line->data[i]);
		}
	} else {
		while (i < n && line->data[i] != ',')
			buf_addch(out, line->data[i++]);
	}
	*at = i + 1; /* past the comma */
	return true;
}

/* One recordings file's rows. */
static int manifest_file(const char *path, const char *day, const char *part,
			 lake_manifest_fn *row, void *ctx, struct err *e)
{
	struct buf idf = BUF_INIT, casef = BUF_INIT, f = BUF_INIT;
	struct lines r;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0 || lines_open_fd(&r, fd) < 0)
		return err_set(e, ERR_IO, "reading %s: %s", path,
			       err_io_reason(errno));
	rc = lines_next(&r);
	if (rc > 0 && !is_header(&r.line, LT_RECORDINGS))
		rc = line_damage(e, path, &r,
				 "its header is not the lake's (schema 2, "
				 "docs/export.md): written by another "
				 "heapsift? export into a new folder");
	while (rc > 0 && (rc = lines_next(&r)) > 0) {
		size_t at = 0;
		uint64_t id;

		if (!lake_row_id(r.line.data, r.line.len, &id)) {
			rc = line_damage(e, path, &r,
					 "a row without a recording id "
					 "(damaged, or not written by "
					 "heapsift)");
			break;
		}
		uint64_t samples = 0;
		int k;

		csv_field(&r.line, &at, &idf);
		csv_field(&r.line, &at, &casef);
		/* the samples column: the twelfth (lake_schema.c) */
		for (k = 2; k <= 11 && csv_field(&r.line, &at, &f); k++)
			if (k == 11 && f.data)
				samples = strtoull(f.data, NULL, 10);
		rc = row(ctx, day, part, id, casef.data ? casef.data : "",
			 samples);
		if (rc < 0)
			break;
		rc = 1;
	}
	if (rc == -1 && !err_isset(e))
		line_damage(e, path, &r,
			    "cannot be read (a damaged gzip stream?)");
	lines_close(&r);
	buf_release(&idf);
	buf_release(&casef);
	buf_release(&f);
	return rc < 0 ? ERR_FAIL : 0;
}

/* Whether name is "part-" and 16 hex digits, then "." ext. */
static bool is_part(const char *name, const char *ext)
{
	size_t i;

	if (strncmp(name, "part-", 5))
		return false;
	for (i = 5; i < 21; i++)
		if (hexval(name[i]) < 0)
			return false;
	return name[21] == '.' && !strcmp(name + 22, ext);
}

int lake_read_manifest(const char *dir, enum lake_format f, struct duckdb_dl *d,
		       lake_manifest_fn *row, void *ctx, struct err *e)
{
	struct buf path = BUF_INIT;
	struct dirent *de;
	DIR *top;
	int rc = 0;

	buf_addf(&path, "%s/recordings", dir);
	top = opendir(path.data);
	if (!top) {
		int errnum = errno;

		buf_release(&path);
		if (errnum == ENOENT)
			return 0; /* a new lake */
		return err_set(e, ERR_IO, "reading %s/recordings: %s", dir,
			       err_io_reason(errnum));
	}
	while (rc == 0 && (de = readdir(top))) {
		struct dirent *fe;
		DIR *sub;

		if (strncmp(de->d_name, "day=", 4) || strlen(de->d_name) != 14)
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/recordings/%s", dir, de->d_name);
		if (!(sub = opendir(path.data)))
			continue; /* removed meanwhile, or not a folder */
		while (rc == 0 && (fe = readdir(sub))) {
			char part[22];

			if (!is_part(fe->d_name, lake_ext(f)))
				continue;
			memcpy(part, fe->d_name, 21);
			part[21] = '\0';
			buf_reset(&path);
			buf_addf(&path, "%s/recordings/%s/%s", dir, de->d_name,
				 fe->d_name);
			if (f == LAKE_PARQUET)
				rc = lake_parquet_manifest(path.data,
							   de->d_name + 4, part,
							   d, row, ctx, e);
			else
				rc = manifest_file(path.data, de->d_name + 4,
						   part, row, ctx, e);
		}
		closedir(sub);
	}
	closedir(top);
	buf_release(&path);
	return rc;
}
