/*
 * DuckDB's C library, loaded when it is asked for (dlopen), for the
 * exports only DuckDB writes (Parquet: heapsift issue 40).  heapsift
 * neither links against DuckDB nor needs it to build or run: a machine
 * without it lacks those formats, and says how to get the library.
 *
 * Where the library is looked for: $HEAPSIFT_LIBDUCKDB when it is set
 * and not empty (a path to libduckdb.so, or a bare file name, which the
 * loader then searches for), else "libduckdb.so" through the dynamic
 * loader's search (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib).
 * Every function heapsift calls (duckdb_api.h) is resolved at open, so
 * a library that lacks one fails there, naming it, and never later.
 *
 * A handle holds one in-memory database and one connection to it; it is
 * used by one thread at a time.  SQL errors come back in DuckDB's own
 * words, after "duckdb: ", with its lines joined into one (the caret
 * under a query's text left out).
 */
#ifndef HS_DUCKDB_DL_H
#define HS_DUCKDB_DL_H

#include <stddef.h>

struct buf;
struct err;
struct duckdb_dl;

/* The environment variable that names the library. */
#define DUCKDB_DL_ENV "HEAPSIFT_LIBDUCKDB"

/*
 * Load the library, open an in-memory database and a connection: 0 and
 * *out, to duckdb_dl_close(); else <0 and *out NULL, with e set.  A
 * library that cannot be loaded, or lacks a function, is ERR_USAGE: the
 * message says where it looked, the loader's own words (dlerror()), and
 * how to get the library (`npm install @duckdb/node-bindings-linux-x64`,
 * or libduckdb-linux-amd64.zip from DuckDB's releases, then
 * HEAPSIFT_LIBDUCKDB=/path/to/libduckdb.so).  A database that will not
 * open is ERR_IO with DuckDB's words.
 *
 * The database is told never to download an extension
 * (autoinstall_known_extensions off): heapsift works offline, and a
 * format whose extension is not already there is an error, not a fetch.
 */
int duckdb_dl_open(struct duckdb_dl **out, struct err *e);

/* Run SQL whose result is of no interest (COPY, CREATE, SET; several
 * statements separated by ';' are allowed): 0, or <0 with e holding
 * DuckDB's error text (ERR_IO). */
int duckdb_dl_exec(struct duckdb_dl *d, const char *sql, struct err *e);

/*
 * Callback of duckdb_dl_query(): one result row, its n_cols values cast
 * to text by DuckDB (vals[i] NULL for SQL NULL), borrowed for the call.
 * 0 goes on to the next row; any other value stops the query.
 */
typedef int (*duckdb_dl_row_fn)(void *ctx, size_t n_cols,
				const char *const *vals);

/*
 * Run a query and call row() once a row, in the result's order: 0 after
 * the last row, the callback's value when it returned nonzero (the rows
 * after are not visited), or <0 with e holding DuckDB's error text
 * (ERR_IO), or naming a value that could not be cast to text.  The
 * whole result is held in memory by DuckDB while it is read: for small
 * answers (counts, checks), not for moving samples.
 */
int duckdb_dl_query(struct duckdb_dl *d, const char *sql, duckdb_dl_row_fn row,
		    void *ctx, struct err *e);

/* DuckDB's version, as duckdb_library_version() says it ("v1.5.6"):
 * borrowed, valid until duckdb_dl_close(). */
const char *duckdb_dl_version(const struct duckdb_dl *d);

/* Disconnect, close the database and release the library; NULL is
 * allowed. */
void duckdb_dl_close(struct duckdb_dl *d);

/* Append s to out as one SQL string literal: in single quotes, each '
 * doubled ("it's" is 'it''s'); a file name into a COPY, say. */
void duckdb_dl_quote(struct buf *out, const char *s);

#endif
