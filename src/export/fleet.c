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
#include "store/store.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

#define FLEET_SCHEMA_VERSION 1

struct fout {
	FILE *f;
	gzFile gz;
	int gz_fd; /* the gzip file's own descriptor, synced after gzclose */
	struct buf path, tmp, row;
	bool failed;
	int errnum; /* the first failure's */
};

static int fout_open(struct fout *o, const char *dir, const char *name, bool gz,
		     const char *header)
{
	buf_init(&o->path);
	buf_init(&o->tmp);
	buf_init(&o->row);
	o->failed = false;
	o->errnum = 0;
	o->f = NULL;
	o->gz = NULL;
	o->gz_fd = -1;
	buf_addf(&o->path, "%s/%s.csv%s", dir, name, gz ? ".gz" : "");
	buf_addf(&o->tmp, "%s/.%s.csv%s.tmp%ld", dir, name, gz ? ".gz" : "",
		 (long)getpid());
	if (gz) {
		/* zlib closes what it is given: it gets a duplicate, and
		 * this one is synced after gzclose() has written the end */
		o->gz_fd = open(o->tmp.data,
				O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (o->gz_fd >= 0) {
			int d = dup(o->gz_fd);

			o->gz = d >= 0 ? gzdopen(d, "wb6") : NULL;
			if (!o->gz) {
				int saved = errno;

				if (d >= 0)
					close(d);
				close(o->gz_fd);
				unlink(o->tmp.data);
				o->gz_fd = -1;
				errno = saved;
			}
		}
	} else {
		o->f = fopen(o->tmp.data, "wb");
	}
	if (!o->f && !o->gz) {
		fprintf(stderr,
			"heapsift export: error: writing %s (creating %s): "
			"%s\n",
			o->path.data, o->tmp.data,
			err_io_reason(errno ? errno : ENOMEM));
		buf_release(&o->path);
		buf_release(&o->tmp);
		buf_release(&o->row);
		return -1;
	}
	die_unlink_add(o->tmp.data);
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
		errno = 0;
		if (fsync(o->gz_fd) && !errnum)
			errnum = errno ? errno : EIO;
		if (close(o->gz_fd) && !errnum)
			errnum = errno ? errno : EIO;
	} else {
		if ((ferror(o->f) || fflush(o->f) || fsync(fileno(o->f))) &&
		    !errnum)
			errnum = errno ? errno : EIO;
		if (fclose(o->f) && !errnum)
			errnum = errno ? errno : EIO;
	}
	if (!errnum && rename(o->tmp.data, o->path.data) < 0)
		errnum = errno;
	if (errnum) {
		fprintf(stderr, "heapsift export: error: writing %s: %s\n",
			o->path.data, err_io_reason(errnum));
		unlink(o->tmp.data);
	}
	die_unlink_remove(o->tmp.data);
	buf_release(&o->path);
	buf_release(&o->tmp);
	buf_release(&o->row);
	return errnum ? -1 : 0;
}

/* The table is not to be kept (the store could not be read, which the
 * caller says): closed, its temporary file removed. */
static void fout_abandon(struct fout *o)
{
	if (o->gz) {
		(void)gzclose(o->gz);
		close(o->gz_fd);
	} else {
		fclose(o->f);
	}
	unlink(o->tmp.data);
	die_unlink_remove(o->tmp.data);
	buf_release(&o->path);
	buf_release(&o->tmp);
	buf_release(&o->row);
}

static void f_str(struct fout *o, const char *s, bool last)
{
	struct buf p = BUF_INIT;

	buf_add_printable(&p, s, strlen(s));
	buf_add_csv_text(&o->row, p.data, p.len);
	buf_release(&p);
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

static const char *const live_states[] = {"", "dead", "alive_at_end",
					  "alive_at_cut"};

int export_fleet(struct store *s, const char *store_path,
		 const struct export_fleet_options *fo, struct err *e)
{
	const struct store_recording *recs;
	const struct store_liveness *live;
	const struct store_thread *threads;
	const struct store_class *classes;
	struct store_cursor *c = NULL;
	struct store_sample_row x;
	struct query_options qo;
	struct query *q;
	const struct store_node *nodes;
	uint32_t n_recs, n_live, n_threads, n_classes, n_nodes, r;
	char *id = fo->id ? xstrdup(fo->id) : default_id(store_path);
	unsigned char *used = NULL;
	const char **labels = NULL;
	size_t cap = 0;
	struct buf folder = BUF_INIT, rid = BUF_INIT, m = BUF_INIT;
	int rc = 0;

	query_options_init(&qo);
	if (store_verify(s, e) < 0 ||
	    store_recordings(s, &recs, &n_recs, e) < 0 ||
	    store_liveness(s, &live, &n_live, e) < 0 ||
	    store_threads(s, &threads, &n_threads, e) < 0 ||
	    store_classes(s, &classes, &n_classes, e) < 0 ||
	    query_open(s, &qo, &q, e) < 0) {
		free(id);
		return ERR_FAIL;
	}
	if (store_nodes(s, &nodes, &n_nodes, e) < 0 ||
	    store_cursor_new(s, &c, e) < 0) {
		query_free(q);
		free(id);
		return ERR_FAIL;
	}
	used = xcalloc(n_nodes ? n_nodes : 1, 1);
	for (r = 0; r < n_recs && rc == 0; r++) {
		struct fout fr, fs, fk, ff;
		const struct store_recording *rc_ = &recs[r];
		uint32_t li = 0, node;
		int more;

		buf_reset(&rid);
		fleet_id(&rid, id, r);
		buf_reset(&folder);
		buf_addf(&folder, "%s/recording=%s", fo->dir, rid.data);
		if (mkdir(folder.data, 0777) < 0 && errno != EEXIST) {
			fprintf(stderr,
				"heapsift export: error: cannot create %s: "
				"%s\n",
				folder.data, strerror(errno));
			rc = -1;
			break;
		}
		if (fout_open(&fr, folder.data, "fleet_recordings", fo->gzip,
			      "schema_version,recording_id,host,source,format,"
			      "jvm_name,jvm_version,start_ns,end_ns,chunks,"
			      "bytes_skipped") < 0) {
			rc = -1;
			break;
		}
		f_int(&fr, FLEET_SCHEMA_VERSION, false);
		f_str(&fr, rid.data, false);
		f_str(&fr, fo->host, false);
		f_str(&fr, store_str(s, rc_->source), false);
		f_str(&fr, store_str(s, rc_->format), false);
		f_str(&fr, store_str(s, rc_->jvm_name), false);
		f_str(&fr, store_str(s, rc_->jvm_version), false);
		f_int(&fr, rc_->start_ns, false);
		f_int(&fr, rc_->end_ns, false);
		f_int(&fr, rc_->n_chunks, false);
		f_int(&fr, (int64_t)rc_->bytes_skipped, true);
		fout_row_end(&fr);
		rc |= fout_close(&fr);

		if (fout_open(&fs, folder.data, "fleet_samples", fo->gzip,
			      "schema_version,recording_id,host,source,"
			      "jvm_name,jvm_version,time_ns,kind,thread,class,"
			      "stack_id,site,est_bytes,est_objects,size,"
			      "truncated,state,death_ns") < 0) {
			rc = -1;
			break;
		}
		/* a pass over the blocks that hold this recording's samples
		 * (store_cursor): the samples are never all in memory */
		more = store_cursor_rewind(c, r, e);
		while (more >= 0 && (more = store_cursor_next(c, &x, e)) > 0) {
			int64_t bytes;
			const char *site;
			int32_t line;

			while (li < n_live && live[li].sample < x.seq)
				li++;
			if (x.recording != r)
				continue;
			bytes = x.bytes == REC_NONE ? 0 : x.bytes;
			f_int(&fs, FLEET_SCHEMA_VERSION, false);
			f_str(&fs, rid.data, false);
			f_str(&fs, fo->host, false);
			f_str(&fs, store_str(s, rc_->source), false);
			f_str(&fs, store_str(s, rc_->jvm_name), false);
			f_str(&fs, store_str(s, rc_->jvm_version), false);
			f_int(&fs, x.time_ns, false);
			f_str(&fs, sample_kind_name(x.kind), false);
			f_str(&fs,
			      x.thread < n_threads
				      ? store_str(s, threads[x.thread].name)
				      : "",
			      false);
			f_str(&fs,
			      x.cls < n_classes
				      ? store_str(s, classes[x.cls].display)
				      : "",
			      false);
			f_int(&fs, x.node, false);
			query_node_frame(q, x.node, &m, &line, &site);
			f_str(&fs, site, false);
			f_int(&fs, bytes, false);
			if (x.kind == SAMPLE_AGENT && x.size > 0)
				buf_addf(&fs.row, "%.6f,",
					 (double)bytes / (double)x.size);
			else if (query_kind_objects(x.kind))
				buf_adds(&fs.row, "1,");
			else
				buf_addch(&fs.row, ',');
			f_int(&fs, x.size, false);
			f_int(&fs, x.flags & STORE_SAMPLE_TRUNCATED, false);
			if (li < n_live && live[li].sample == x.seq) {
				f_str(&fs,
				      live[li].state < 4
					      ? live_states[live[li].state]
					      : "",
				      false);
				f_int(&fs, live[li].death_ns, true);
			} else {
				buf_addch(&fs.row, ',');
			}
			fout_row_end(&fs);
			used[x.node] = 1;
		}
		if (more < 0) {
			/* checked whole by store_verify() first: only a file
			 * changed under us gets here */
			fout_abandon(&fs);
			rc = -1;
			break;
		}
		rc |= fout_close(&fs);

		if (fout_open(&fk, folder.data, "fleet_stacks", fo->gzip,
			      "schema_version,recording_id,stack_id,depth,"
			      "site,frames") < 0) {
			rc = -1;
			break;
		}
		if (fout_open(&ff, folder.data, "fleet_stack_frames", fo->gzip,
			      "schema_version,recording_id,stack_id,position,"
			      "frame,method,line") < 0) {
			fout_close(&fk);
			rc = -1;
			break;
		}
		for (node = 0; node < n_nodes; node++) {
			size_t depth, d, pos = 0;
			uint32_t at = node;

			if (!used[node])
				continue;
			used[node] = 0; /* for the next recording */
			depth = query_path_frames(q, node, labels, cap);
			if (depth > cap) {
				cap = depth;
				labels = xreallocarray(labels, cap,
						       sizeof(*labels));
				query_path_frames(q, node, labels, cap);
			}
			f_int(&fk, FLEET_SCHEMA_VERSION, false);
			f_str(&fk, rid.data, false);
			f_int(&fk, node, false);
			f_int(&fk, (int64_t)depth, false);
			f_str(&fk, depth ? labels[0] : "(no stack)", false);
			buf_reset(&m);
			for (d = depth; d-- > 0;) {
				export_folded_frame(&m, labels[d]);
				if (d)
					buf_addch(&m, ';');
			}
			f_str(&fk, m.data, true);
			fout_row_end(&fk);
			/* position 0: the allocating frame, then out to the
			 * outermost caller */
			while (at) {
				const char *site;
				int32_t line;
				uint32_t up = query_node_frame(q, at, &m, &line,
							       &site);

				f_int(&ff, FLEET_SCHEMA_VERSION, false);
				f_str(&ff, rid.data, false);
				f_int(&ff, node, false);
				f_int(&ff, (int64_t)pos++, false);
				f_str(&ff, site, false);
				f_str(&ff, m.data, false);
				f_int(&ff, line >= 0 ? line : REC_NONE, true);
				fout_row_end(&ff);
				at = up;
			}
		}
		rc |= fout_close(&fk);
		rc |= fout_close(&ff);
	}
	store_cursor_free(c);
	free(labels);
	free(used);
	free(id);
	query_free(q);
	buf_release(&folder);
	buf_release(&rid);
	buf_release(&m);
	return rc ? -1 : 0;
}
