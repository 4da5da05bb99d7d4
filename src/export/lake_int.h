/*
 * The fleet lake's parts, private to src/export/lake*.c: the schema
 * (lake_schema.c), the table files (lake_file.c: rows written, parts
 * rewritten, Parquet through DuckDB) and a store's rows (lake_rows.c).
 * lake.c holds the lake: its marker, manifest and commit.
 */
#ifndef HS_LAKE_INT_H
#define HS_LAKE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

#include "export/lake.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/newfile.h"

struct duckdb_dl;
struct query;

/* The schema's version: the lake's marker and every recordings row. */
#define LAKE_SCHEMA_VERSION 2

enum lake_table { LT_RECORDINGS, LT_SAMPLES, LT_STACKS, LT_FRAMES, LT_N };

struct lake_column {
	const char *name;
	const char *type; /* DuckDB's: VARCHAR, BIGINT, INTEGER, ... */
};

struct lake_table_def {
	const char *name;
	const struct lake_column *cols;
	size_t n_cols;
};

extern const struct lake_table_def lake_tables[LT_N];

/* The table's header row (without the line end). */
void lake_header(struct buf *out, enum lake_table t);
/* DuckDB's columns={'name': 'TYPE', ...} for read_csv. */
void lake_duckdb_columns(struct buf *out, enum lake_table t);
/* The file name's extension for format f: "csv", "csv.gz", "parquet". */
const char *lake_ext(enum lake_format f);

/*
 * One table's rows being written: CSV, gzipped where gz, into a file
 * without a name (newfile.h) in the folder of the file it will become.
 * Text cells are always quoted (so that every reader's dialect
 * detection agrees), spelt as on a terminal (buf_add_printable), and,
 * where guard, with a spreadsheet's formula guarded (buf_add_csv: not in
 * the rows staged for Parquet, which no spreadsheet runs).  An empty
 * cell is SQL NULL: not known.
 */
struct lake_out {
	struct newfile nf;
	FILE *f;
	gzFile gz;
	struct buf row, cell;
	struct buf target; /* the file it will become, for messages */
	bool guard;
	bool open, failed;
	int errnum;
	uint64_t rows;
};

int lake_out_open(struct lake_out *o, const char *target, bool gz, bool guard,
		  enum lake_table t, struct err *e);
void lake_out_text(struct lake_out *o, const char *s);
void lake_out_int(struct lake_out *o, int64_t v); /* REC_NONE: NULL */
void lake_out_u64(struct lake_out *o, uint64_t v);
void lake_out_bool(struct lake_out *o, bool v);
void lake_out_double(struct lake_out *o, double v); /* NaN: NULL */
void lake_out_null(struct lake_out *o);
void lake_out_end(struct lake_out *o); /* the row's line end */
/* Flush and close the stream; the file (nf) stays, to be read or
 * named.  0, or <0 with e set. */
int lake_out_finish(struct lake_out *o, struct err *e);
void lake_out_abandon(struct lake_out *o);

/* The value a text cell of s holds (what a reader sees, quotes undone):
 * as on a terminal, and where guard a formula behind an apostrophe. */
void lake_cell_value(struct buf *out, const char *s, bool guard);

/* A recording id as the lake writes it: 16 lower-case hex digits. */
void lake_id_hex(char out[17], uint64_t id);
/* The id at the start of a CSV row ("0123456789abcdef",...): true and
 * *id, or false for a row that does not begin so. */
bool lake_row_id(const char *line, size_t len, uint64_t *id);

/*
 * Write target (a table file of format f) as the rows of the old file
 * at target, where there is one, of the recordings in keep only (rows
 * of any other recording are dropped: replaced, removed, or left by an
 * export killed in its commit), then the rows staged in add (NULL:
 * none; finished), and put it in place by a rename.  *rows: the rows the new file holds; a file left
 * with none is removed instead.  d: DuckDB, for Parquet.
 * 0, or <0 with e set (target untouched).
 */
int lake_file_write(const char *target, enum lake_format f, enum lake_table t,
		    const struct u64map *keep, struct lake_out *add,
		    struct duckdb_dl *d, uint64_t *rows, struct err *e);

/* The recordings rows of every part of the lake (the manifest), as
 * (day, part, recording id, case id, its samples rows): one call of
 * row() each. */
typedef int lake_manifest_fn(void *ctx, const char *day, const char *part,
			     uint64_t id, const char *case_id,
			     uint64_t samples);
int lake_read_manifest(const char *dir, enum lake_format f, struct duckdb_dl *d,
		       lake_manifest_fn *row, void *ctx, struct err *e);

/*
 * The rows of one store's recordings (lake_rows.c).  For each recording,
 * route() says where its rows go: the four staging files of its part
 * (NULL: the recording is not exported, e.g. it has no time).
 */
struct lake_rec {
	uint32_t rec;	  /* in the store */
	uint64_t id;	  /* its lake id */
	char day[11];	  /* YYYY-MM-DD, "" not known */
	uint64_t samples; /* rows written */
};
typedef struct lake_out **lake_route_fn(void *ctx, const struct lake_rec *r);
int lake_store_rows(struct store *s, const char *case_id, const char *host,
		    lake_route_fn *route, void *ctx, struct err *e);

/* lake_parquet.c: lake_file_write() and lake_read_manifest() for
 * Parquet, through DuckDB. */
int lake_parquet_write(const char *target, enum lake_table t,
		       const struct u64map *keep, struct lake_out *add,
		       struct duckdb_dl *d, uint64_t *rows, struct err *e);
int lake_parquet_manifest(const char *path, const char *day, const char *part,
			  struct duckdb_dl *d, lake_manifest_fn *row, void *ctx,
			  struct err *e);

#endif
