/*
 * The fleet lake: the samples of many stores as four tables that DuckDB,
 * Spark and Trino read as they read any Hive-partitioned data set
 * (docs/export.md, "The fleet lake"; the design: docs/design/lake.md).
 *
 *   LAKE/_heapsift_lake                 what the folder is (format, schema)
 *   LAKE/TABLE/day=YYYY-MM-DD/part-H.EXT
 *
 * TABLE is recordings, samples, stacks or frames; EXT csv, csv.gz or
 * parquet, one for the whole lake.  day is the recording's start (UTC).
 * Each part (one H in one day) holds the rows of a set of recordings in
 * all four tables, and each recording's rows are in exactly one part:
 * the recordings table is the lake's manifest.
 *
 * A recording's id is derived from what the JVM recorded (its JVM,
 * start, end, chunks and settings), so that one recording exported
 * twice, from two stores or two heapsift versions, is one recording.
 * A store is exported as a case (--id, by default the store's absolute
 * path): exporting a case again replaces its recordings' rows and drops
 * those of its recordings that the store no longer holds.
 *
 * Nothing in the lake changes until lake_commit(): lake_add() writes
 * each store's rows into unnamed files beside their parts.  The commit
 * rewrites each part it touches into a new file and renames it over the
 * old one, so a reader sees a recording's rows of a table either all old
 * or all new, never both and never none.
 */
#ifndef HS_LAKE_H
#define HS_LAKE_H

#include <stdbool.h>
#include <stdint.h>

struct err;
struct store;
struct lake;

enum lake_format {
	LAKE_CSV,
	LAKE_CSV_GZ,
	LAKE_PARQUET, /* through libduckdb, loaded at run time */
};

struct lake_options {
	const char *dir;
	enum lake_format format;
	const char *host;   /* the host column; "" not known */
	uint64_t part_rows; /* a part takes recordings up to this many
			      * samples rows */
	/* called before each part the commit writes (NULL: none) */
	void (*progress)(void *ctx, uint64_t part, uint64_t parts);
	void *progress_ctx;
};

/* What a commit did, for the summary the CLI prints. */
struct lake_summary {
	uint64_t recordings; /* written */
	uint64_t replaced;   /* of those, already in the lake */
	uint64_t dropped;    /* removed: no longer in their case's store */
	uint64_t samples;    /* sample rows written */
	uint64_t parts;	     /* parts written or rewritten */
	uint64_t skipped;    /* recordings with no time to place them */
};

/* The default part size, in samples rows (about 100 MB of CSV, 10 MB
 * gzipped, 6 MB of Parquet): large files for the engines, and a bounded
 * rewrite for an export that adds to a part or replaces a recording. */
#define LAKE_PART_ROWS 1000000ull

/*
 * Open (or begin) the lake in o->dir, which exists: lock it against
 * other exports (flock on LAKE/_heapsift_lake, waited for), check that
 * it is a lake of o->format (a lake of another format, or a folder
 * with other things in it, is refused: ERR_USAGE) and read its
 * manifest.  0, or <0 with e set.
 */
int lake_open(const struct lake_options *o, struct lake **out, struct err *e);

/* Store s's recordings as case case_id (the whole store: no filters). */
int lake_add(struct lake *l, struct store *s, const char *case_id,
	     struct err *e);

/* Put the new rows in place (see above).  0, or <0 with e set: the
 * parts renamed before the failure stay, each whole. */
int lake_commit(struct lake *l, struct lake_summary *sum, struct err *e);

/* Release the lock and everything not committed. */
void lake_close(struct lake *l);

#endif
