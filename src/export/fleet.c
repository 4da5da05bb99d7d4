/*
 * The fleet layout of the CSV export (docs/export.md, "Fleet layout"):
 * DIR/recording=ID/ holds one recording's tables, so that the exports
 * of many stores, written into one DIR, read as one dataset in DuckDB,
 * Spark or Trino (Hive partitioning).  Every sample row carries what a
 * query over the fleet groups by (recording id, host, source, JVM,
 * kind, class, thread, site) so that no join is needed for the common
 * questions, and the stacks come flat: each stack's frames as one
 * string, and a (stack, position, frame) table, so that no engine needs
 * recursion over a trie.  The schema is versioned by the schema_version
 * column; later versions only add columns at the end.
 * Like the CSV tables, it is the whole store: the filters do not apply.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "export/export.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/newfile.h"
#include "util/term.h"
#include "util/xalloc.h"

#define FLEET_SCHEMA_VERSION 1

struct fout {
	FILE *f;
	gzFile gz;
	struct newfile nf; /* newfile.h: f or gz write a duplicate of its fd */
	struct buf path, row;
	bool failed;
	int errnum; /* the first failure's */
};

static int fout_open(struct fout *o, const char *dir, const char *name, bool gz,
		     const char *header)
{
	int d = -1;

	buf_init(&o->path);
	buf_init(&o->row);
	o->failed = false;
	o->errnum = 0;
	o->f = NULL;
	o->gz = NULL;
	buf_addf(&o->path, "%s/%s.csv%s", dir, name, gz ? ".gz" : "");
	/* zlib and stdio close what they are given: they get a duplicate,
	 * and nf's own is synced and named once they have written the end */
	errno = 0;
	if (newfile_open(&o->nf, o->path.data, 0666) == 0)
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
		term_fprintf(stderr, "heapsift export: error: writing %s: %s\n",
			     o->path.data, err_io_reason(saved));
		buf_release(&o->path);
		buf_release(&o->row);
		return -1;
	}
	buf_addf(&o->row, "%s\r\n", header);
	return 0;
}

static void fout_flush(struct fout *o)
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

/* Rows are gathered and written 64 KiB at a time. */
static void fout_row_end(struct fout *o)
{
	buf_adds(&o->row, "\r\n");
	if (o->row.len >= 65536)
		fout_flush(o);
}

static int fout_close(struct fout *o)
{
	int errnum;

	fout_flush(o);
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
	if (errnum)
		newfile_abandon(&o->nf);
	else if (newfile_commit(&o->nf, o->path.data) < 0)
		errnum = errno; /* synced, named, renamed: or removed */
	if (errnum)
		term_fprintf(stderr, "heapsift export: error: writing %s: %s\n",
			     o->path.data, err_io_reason(errnum));
	buf_release(&o->path);
	buf_release(&o->row);
	return errnum ? -1 : 0;
}

/* The table is not to be kept (the store could not be read, which the
 * caller says): closed, its file removed. */
static void fout_abandon(struct fout *o)
{
	if (o->gz)
		(void)gzclose(o->gz);
	else
		fclose(o->f);
	newfile_abandon(&o->nf);
	buf_release(&o->path);
	buf_release(&o->row);
}

static void f_str(struct fout *o, const char *s, bool last)
{
	buf_add_csv_name(&o->row, s, strlen(s));
	if (!last)
		buf_addch(&o->row, ',');
}

static void f_int(struct fout *o, int64_t v, bool last)
{
	if (v != REC_NONE)
		buf_add_i64(&o->row, v);
	if (!last)
		buf_addch(&o->row, ',');
}

/* The recording's id in a folder name: letters, digits, '.', '_' and
 * '-' kept, anything else '_' (Hive partition values are path parts). */
static void fleet_id(struct buf *out, const char *id, uint32_t rec)
{
	const char *p;

	for (p = id; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		buf_addch(out, (ch >= 'a' && ch <= 'z') ||
					       (ch >= 'A' && ch <= 'Z') ||
					       (ch >= '0' && ch <= '9') ||
					       ch == '.' || ch == '_' ||
					       ch == '-'
				       ? ch
				       : '_');
	}
	buf_addf(out, "-%u", rec);
}

/* The default id: the store's file name without its folder and .hsdb. */
static char *default_id(const char *store_path)
{
	const char *base = strrchr(store_path, '/');
	size_t n;

	base = base ? base + 1 : store_path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".hsdb"))
		n -= 5;
	{
		char *id = xmalloc(n + 1);

		memcpy(id, base, n);
		id[n] = '\0';
		return id;
	}
}

/* One export's state, shared by the tables of each recording. */
struct fleet {
	const struct export_fleet_options *fo;
	struct query *q;
	struct query_cursor *c;
	unsigned char *used; /* [query_n_stacks]: the recording's stacks */
	const char **labels; /* query_path_frames()' */
	size_t cap;
	struct buf rid, folder, m;
	struct err *e;
};

/* A table could not be created, or the store could not be read: stop
 * (a table that could not be finished is only noted, and the
 * recording's other tables are still written). */
#define FLEET_STOP (-2)

/* DIR/recording=ID/fleet_recordings.csv: the recording's one row. */
static int fleet_recording(struct fleet *f, const struct query_recording *x)
{
	struct fout fr;

	if (fout_open(&fr, f->folder.data, "fleet_recordings", f->fo->gzip,
		      "schema_version,recording_id,host,source,format,"
		      "jvm_name,jvm_version,start_ns,end_ns,chunks,"
		      "bytes_skipped") < 0)
		return FLEET_STOP;
	f_int(&fr, FLEET_SCHEMA_VERSION, false);
	f_str(&fr, f->rid.data, false);
	f_str(&fr, f->fo->host, false);
	f_str(&fr, x->source, false);
	f_str(&fr, x->format, false);
	f_str(&fr, x->jvm_name, false);
	f_str(&fr, x->jvm_version, false);
	f_int(&fr, x->start_ns, false);
	f_int(&fr, x->end_ns, false);
	f_int(&fr, x->n_chunks, false);
	f_int(&fr, (int64_t)x->bytes_skipped, true);
	fout_row_end(&fr);
	return fout_close(&fr);
}

/* One sample's row of fleet_samples.csv; its stack is marked used. */
static void fleet_sample(struct fleet *f, struct fout *fs,
			 const struct query_recording *x,
			 const struct query_sample *y)
{
	int64_t bytes = y->bytes == REC_NONE ? 0 : y->bytes;
	const char *site;
	int32_t line;

	f_int(fs, FLEET_SCHEMA_VERSION, false);
	f_str(fs, f->rid.data, false);
	f_str(fs, f->fo->host, false);
	f_str(fs, x->source, false);
	f_str(fs, x->jvm_name, false);
	f_str(fs, x->jvm_version, false);
	f_int(fs, y->time_ns, false);
	f_str(fs, sample_kind_name(y->kind), false);
	f_str(fs, y->thread, false);
	f_str(fs, y->cls, false);
	f_int(fs, y->stack, false);
	query_node_frame(f->q, y->stack, &f->m, &line, &site);
	f_str(fs, site, false);
	f_int(fs, bytes, false);
	if (sample_kind_ht(y->kind) && y->size > 0)
		buf_addf(&fs->row, "%.6f,", (double)bytes / (double)y->size);
	else if (query_kind_objects(y->kind))
		buf_adds(&fs->row, "1,");
	else
		buf_addch(&fs->row, ',');
	f_int(fs, y->size, false);
	f_int(fs, y->truncated, false);
	if (y->fate) {
		f_str(fs, y->fate, false);
		f_int(fs, y->death_ns, true);
	} else {
		buf_addch(&fs->row, ',');
	}
	fout_row_end(fs);
	f->used[y->stack] = 1;
}

/* DIR/recording=ID/fleet_samples.csv: a pass over the blocks that hold
 * recording r's samples (query_cursor): they are never all in memory. */
static int fleet_samples(struct fleet *f, uint32_t r,
			 const struct query_recording *x)
{
	struct query_sample y;
	struct fout fs;
	int more;

	if (fout_open(&fs, f->folder.data, "fleet_samples", f->fo->gzip,
		      "schema_version,recording_id,host,source,"
		      "jvm_name,jvm_version,time_ns,kind,thread,class,"
		      "stack_id,site,est_bytes,est_objects,size,"
		      "truncated,state,death_ns") < 0)
		return FLEET_STOP;
	more = query_cursor_rewind(f->c, r, f->e);
	while (more >= 0 && (more = query_cursor_next(f->c, &y, f->e)) > 0)
		fleet_sample(f, &fs, x, &y);
	if (more < 0) {
		/* the caller checked the store whole first: only a file
		 * changed under us gets here */
		fout_abandon(&fs);
		return FLEET_STOP;
	}
	return fout_close(&fs);
}

/* Stack node's rows: its one row of fleet_stacks.csv, and its frames in
 * fleet_stack_frames.csv, position 0 the allocating frame, then out to
 * the outermost caller. */
static void fleet_stack(struct fleet *f, struct fout *fk, struct fout *ff,
			uint32_t node)
{
	size_t depth, d, pos = 0;
	uint32_t at = node;

	depth = query_path_frames(f->q, node, f->labels, f->cap);
	if (depth > f->cap) {
		f->cap = depth;
		f->labels =
			xreallocarray(f->labels, f->cap, sizeof(*f->labels));
		query_path_frames(f->q, node, f->labels, f->cap);
	}
	f_int(fk, FLEET_SCHEMA_VERSION, false);
	f_str(fk, f->rid.data, false);
	f_int(fk, node, false);
	f_int(fk, (int64_t)depth, false);
	f_str(fk, depth ? f->labels[0] : "(no stack)", false);
	buf_reset(&f->m);
	for (d = depth; d-- > 0;) {
		export_folded_frame(&f->m, f->labels[d]);
		if (d)
			buf_addch(&f->m, ';');
	}
	f_str(fk, f->m.data, true);
	fout_row_end(fk);
	while (at) {
		const char *site;
		int32_t line;
		uint32_t up = query_node_frame(f->q, at, &f->m, &line, &site);

		f_int(ff, FLEET_SCHEMA_VERSION, false);
		f_str(ff, f->rid.data, false);
		f_int(ff, node, false);
		f_int(ff, (int64_t)pos++, false);
		f_str(ff, site, false);
		f_str(ff, f->m.data, false);
		f_int(ff, line >= 0 ? line : REC_NONE, true);
		fout_row_end(ff);
		at = up;
	}
}

/* The stacks the recording's samples used (and only those), flat. */
static int fleet_stacks(struct fleet *f)
{
	uint32_t node, n = query_n_stacks(f->q);
	struct fout fk, ff;
	int rc;

	if (fout_open(&fk, f->folder.data, "fleet_stacks", f->fo->gzip,
		      "schema_version,recording_id,stack_id,depth,"
		      "site,frames") < 0)
		return FLEET_STOP;
	if (fout_open(&ff, f->folder.data, "fleet_stack_frames", f->fo->gzip,
		      "schema_version,recording_id,stack_id,position,"
		      "frame,method,line") < 0) {
		fout_close(&fk);
		return FLEET_STOP;
	}
	for (node = 0; node < n; node++) {
		if (!f->used[node])
			continue;
		f->used[node] = 0; /* for the next recording */
		fleet_stack(f, &fk, &ff, node);
	}
	rc = fout_close(&fk);
	rc |= fout_close(&ff);
	return rc;
}

/* Recording r's folder and its four tables: 0, -1 when a table could not
 * be finished, FLEET_STOP when nothing more is to be tried. */
static int fleet_one(struct fleet *f, const char *id, uint32_t r)
{
	struct query_recording x;
	int rc = 0, st;

	buf_reset(&f->rid);
	fleet_id(&f->rid, id, r);
	buf_reset(&f->folder);
	buf_addf(&f->folder, "%s/recording=%s", f->fo->dir, f->rid.data);
	if (mkdir(f->folder.data, 0777) < 0 && errno != EEXIST) {
		term_fprintf(stderr,
			     "heapsift export: error: cannot create %s: %s\n",
			     f->folder.data, strerror(errno));
		return FLEET_STOP;
	}
	query_recording_facts(f->q, r, &x);
	if ((st = fleet_recording(f, &x)) == FLEET_STOP)
		return FLEET_STOP;
	rc |= st;
	if ((st = fleet_samples(f, r, &x)) == FLEET_STOP)
		return FLEET_STOP;
	rc |= st;
	if ((st = fleet_stacks(f)) == FLEET_STOP)
		return FLEET_STOP;
	return rc | st;
}

int export_fleet(struct store *s, const char *store_path,
		 const struct export_fleet_options *fo, struct err *e)
{
	struct fleet f = {.fo = fo, .e = e};
	struct query_options qo;
	char *id;
	uint32_t r, n;
	int rc = 0;

	query_options_init(&qo);
	if (query_open(s, &qo, &f.q, e) < 0)
		return ERR_FAIL;
	if (query_cursor_new(f.q, &f.c, e) < 0) {
		query_free(f.q);
		return ERR_FAIL;
	}
	id = fo->id ? xstrdup(fo->id) : default_id(store_path);
	n = query_n_stacks(f.q);
	f.used = xcalloc(n ? n : 1, 1);
	buf_init(&f.rid);
	buf_init(&f.folder);
	buf_init(&f.m);
	n = query_n_recordings(f.q);
	for (r = 0; r < n && rc == 0; r++)
		rc = fleet_one(&f, id, r);
	query_cursor_free(f.c);
	free(f.labels);
	free(f.used);
	free(id);
	query_free(f.q);
	buf_release(&f.folder);
	buf_release(&f.rid);
	buf_release(&f.m);
	return rc ? -1 : 0;
}
