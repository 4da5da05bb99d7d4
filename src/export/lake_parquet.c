/*
 * The fleet lake in Parquet: DuckDB (libduckdb, loaded at run time:
 * duckdb_dl.h) writes each part's file from the rows heapsift staged as
 * CSV and the old file's rows it keeps, with the schema's types
 * (lake_schema.c) and zstd compression; heapsift has no Parquet writer
 * of its own.  The new file is written under a temporary name beside
 * its target (registered, so that die() and the fatal signals remove
 * it), synced and renamed over the target.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/duckdb_dl.h"
#include "export/lake_int.h"
#include "util/err.h"
#include "util/xalloc.h"

/* The keep set as an SQL list of strings. */
static void id_list(struct buf *sql, const struct u64map *keep)
{
	size_t pos = 0, n = 0;
	uint64_t id, v;

	buf_addch(sql, '(');
	while (u64map_next(keep, &pos, &id, &v)) {
		char hex[17];

		lake_id_hex(hex, id);
		buf_addf(sql, "%s'%s'", n++ ? ", " : "", hex);
	}
	buf_addch(sql, ')');
}

static int count_row(void *ctx, size_t n, const char *const *v)
{
	uint64_t *rows = ctx;

	if (n >= 1 && v[0])
		*rows = strtoull(v[0], NULL, 10);
	return 0;
}

static int sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int lake_parquet_write(const char *target, enum lake_table t,
		       const struct u64map *keep, struct lake_out *add,
		       struct duckdb_dl *d, uint64_t *rows, struct err *e)
{
	struct buf sql = BUF_INIT, tmp = BUF_INIT, fdpath = BUF_INIT;
	bool old = access(target, F_OK) == 0, from_old;
	unsigned attempt;
	int rc = 0;

	*rows = 0;
	from_old = old && (!keep || keep->n_items > 0);
	if (!from_old && !add) {
		if (old && unlink(target) < 0)
			return err_set(e, ERR_IO, "removing %s: %s", target,
				       err_io_reason(errno));
		return 0;
	}
	/* a name no file has (DuckDB writes over whatever is there) */
	for (attempt = 0; attempt < 100; attempt++) {
		struct stat st;

		newfile_tmp_name(&tmp, target, attempt);
		if (lstat(tmp.data, &st) < 0 && errno == ENOENT)
			break;
	}
	buf_adds(&sql, "COPY (");
	if (from_old) {
		buf_adds(&sql, "SELECT * FROM read_parquet(");
		duckdb_dl_quote(&sql, target);
		buf_adds(&sql, ", hive_partitioning = false)");
		if (keep) {
			buf_adds(&sql, " WHERE recording_id IN ");
			id_list(&sql, keep);
		}
	}
	if (add) {
		buf_addf(&fdpath, "/proc/self/fd/%d", add->nf.fd);
		if (lseek(add->nf.fd, 0, SEEK_SET) < 0) {
			rc = err_set(e, ERR_IO, "reading the rows for %s: %s",
				     target, err_io_reason(errno));
			goto out;
		}
		if (from_old)
			buf_adds(&sql, " UNION ALL ");
		buf_adds(&sql, "SELECT * FROM read_csv(");
		duckdb_dl_quote(&sql, fdpath.data);
		buf_adds(&sql, ", header = true, delim = ',', quote = '\"', "
			       "escape = '\"', auto_detect = false, "
			       "hive_partitioning = false, columns = ");
		lake_duckdb_columns(&sql, t);
		buf_addch(&sql, ')');
	}
	buf_adds(&sql, ") TO ");
	duckdb_dl_quote(&sql, tmp.data);
	buf_adds(&sql, " (FORMAT parquet, COMPRESSION zstd)");
	die_unlink_add(tmp.data);
	rc = duckdb_dl_query(d, sql.data, count_row, rows, e);
	if (rc < 0) {
		err_prefix(e, "writing %s", target);
	} else if (*rows == 0) {
		if (unlink(target) < 0 && errno != ENOENT)
			rc = err_set(e, ERR_IO, "removing %s: %s", target,
				     err_io_reason(errno));
	} else if (sync_path(tmp.data) < 0 || rename(tmp.data, target) < 0) {
		rc = err_set(e, ERR_IO, "writing %s: %s", target,
			     err_io_reason(errno));
	}
	unlink(tmp.data); /* gone after the rename; else not to be kept */
	die_unlink_remove(tmp.data);
out:
	buf_release(&sql);
	buf_release(&tmp);
	buf_release(&fdpath);
	return rc;
}

struct manifest_ctx {
	const char *day, *part;
	lake_manifest_fn *row;
	void *ctx;
	int rc;
	bool bad;
};

static bool parse_id(const char *s, uint64_t *id)
{
	char q[19];

	if (!s || strlen(s) != 16)
		return false;
	snprintf(q, sizeof(q), "\"%s\"", s);
	return lake_row_id(q, 18, id);
}

static int manifest_row(void *ctx, size_t n, const char *const *v)
{
	struct manifest_ctx *m = ctx;
	uint64_t id;

	if (n < 2 || !parse_id(v[0], &id)) {
		m->bad = true;
		return 1;
	}
	m->rc = m->row(m->ctx, m->day, m->part, id, v[1] ? v[1] : "",
		       n >= 3 && v[2] ? strtoull(v[2], NULL, 10) : 0);
	return m->rc < 0 ? 1 : 0;
}

int lake_parquet_manifest(const char *path, const char *day, const char *part,
			  struct duckdb_dl *d, lake_manifest_fn *row, void *ctx,
			  struct err *e)
{
	struct manifest_ctx m = {day, part, row, ctx, 0, false};
	struct buf sql = BUF_INIT;
	int rc;

	buf_adds(&sql,
		 "SELECT recording_id, case_id, samples FROM read_parquet(");
	duckdb_dl_quote(&sql, path);
	buf_adds(&sql, ", hive_partitioning = false)");
	rc = duckdb_dl_query(d, sql.data, manifest_row, &m, e);
	buf_release(&sql);
	if (rc < 0) {
		err_prefix(e, "reading %s", path);
		return ERR_FAIL;
	}
	if (m.bad)
		return err_set(e, ERR_FORMAT,
			       "%s: a row without a recording id: not the "
			       "lake's schema %d",
			       path, LAKE_SCHEMA_VERSION);
	return m.rc < 0 ? ERR_FAIL : 0;
}
