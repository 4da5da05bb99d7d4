/*
 * The fleet lake's schema, version 2: the four tables' columns in order,
 * with the types DuckDB gives them when it writes Parquet.  docs/export.md
 * ("The fleet lake") says what each means and gives the same schema as
 * DuckDB and Spark DDL; tests/cli/lake.sh creates the tables from that
 * DDL and compares them with what export writes.  Later versions only
 * add columns at the end.
 */
#include <stdio.h>

#include "export/lake_int.h"

#define COLS(a) a, sizeof(a) / sizeof(a[0])

static const struct lake_column recordings[] = {
	{"recording_id", "VARCHAR"},   {"case_id", "VARCHAR"},
	{"host", "VARCHAR"},	       {"source", "VARCHAR"},
	{"format", "VARCHAR"},	       {"jvm_name", "VARCHAR"},
	{"jvm_version", "VARCHAR"},    {"start_ns", "BIGINT"},
	{"end_ns", "BIGINT"},	       {"chunks", "BIGINT"},
	{"bytes_skipped", "BIGINT"},   {"samples", "BIGINT"},
	{"alloc_estimate", "VARCHAR"}, {"schema_version", "INTEGER"},
	{"exported_by", "VARCHAR"},
};

static const struct lake_column samples[] = {
	{"recording_id", "VARCHAR"},
	{"host", "VARCHAR"},
	{"time_ns", "BIGINT"},
	{"kind", "VARCHAR"},
	{"thread", "VARCHAR"},
	{"class", "VARCHAR"},
	{"site", "VARCHAR"},
	{"stack_id", "BIGINT"},
	{"est_bytes", "BIGINT"},
	{"est_bytes_jfr", "BIGINT"},
	{"alloc_estimate", "VARCHAR"},
	{"est_objects", "DOUBLE"},
	{"size", "BIGINT"},
	{"truncated", "BOOLEAN"},
	{"state", "VARCHAR"},
	{"death_ns", "BIGINT"},
};

static const struct lake_column stacks[] = {
	{"recording_id", "VARCHAR"},
	{"stack_id", "BIGINT"},
	{"depth", "INTEGER"},
	{"frame_ids", "VARCHAR"},
};

static const struct lake_column frames[] = {
	{"recording_id", "VARCHAR"}, {"frame_id", "BIGINT"},
	{"name", "VARCHAR"},	     {"method", "VARCHAR"},
	{"line", "INTEGER"},
};

const struct lake_table_def lake_tables[LT_N] = {
	[LT_RECORDINGS] = {"recordings", COLS(recordings)},
	[LT_SAMPLES] = {"samples", COLS(samples)},
	[LT_STACKS] = {"stacks", COLS(stacks)},
	[LT_FRAMES] = {"frames", COLS(frames)},
};

void lake_header(struct buf *out, enum lake_table t)
{
	size_t i;

	for (i = 0; i < lake_tables[t].n_cols; i++) {
		if (i)
			buf_addch(out, ',');
		buf_adds(out, lake_tables[t].cols[i].name);
	}
}

void lake_duckdb_columns(struct buf *out, enum lake_table t)
{
	size_t i;

	buf_addch(out, '{');
	for (i = 0; i < lake_tables[t].n_cols; i++)
		buf_addf(out, "%s'%s': '%s'", i ? ", " : "",
			 lake_tables[t].cols[i].name,
			 lake_tables[t].cols[i].type);
	buf_addch(out, '}');
}

const char *lake_ext(enum lake_format f)
{
	switch (f) {
	case LAKE_CSV_GZ:
		return "csv.gz";
	case LAKE_PARQUET:
		return "parquet";
	default:
		return "csv";
	}
}
