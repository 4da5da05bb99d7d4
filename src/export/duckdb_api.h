/*
 * The few functions of DuckDB's C API that heapsift calls, declared as
 * the types of pointers that dlsym() fills in (duckdb_dl.c), so that
 * heapsift builds and runs where DuckDB is not installed: nothing here
 * links against it, and nothing includes DuckDB's duckdb.h, which the
 * library's npm package does not ship.
 *
 * Written from DuckDB's documentation of its C API for the 1.x releases
 * (duckdb.org/docs/clients/c/: "Startup & Shutdown", "Query", the API
 * reference), not copied from duckdb.h; checked against the symbols of
 * DuckDB 1.5.6's libduckdb.so (nm -D).  Where this came from, and
 * DuckDB's MIT license: duckdb_api.README.md beside this file.
 *
 * Only the shapes heapsift relies on are declared: the handles are
 * opaque pointers, and a result is read through the functions below,
 * never through its fields.  The names are DuckDB's with our module's
 * prefix, so that they can never clash with a real duckdb.h.
 */
#ifndef HS_DUCKDB_API_H
#define HS_DUCKDB_API_H

#include <stdbool.h>
#include <stdint.h>

/* DuckDB's idx_t: a row or column index, a count. */
typedef uint64_t duckdb_api_idx;

/* DuckDB's duckdb_state, the return of the calls that can fail. */
enum duckdb_api_state {
	DUCKDB_API_SUCCESS = 0, /* DuckDBSuccess */
	DUCKDB_API_ERROR = 1,	/* DuckDBError */
};

/* duckdb_database, duckdb_connection and duckdb_config: DuckDB's
 * handles are pointers to structs of its own, never looked into. */
typedef struct duckdb_api_database_s *duckdb_api_database;
typedef struct duckdb_api_connection_s *duckdb_api_connection;
typedef struct duckdb_api_config_s *duckdb_api_config;

/*
 * duckdb_result, which, unlike the handles, the caller allocates and
 * duckdb_query() fills in: six words in every 1.x release, documented as
 * three idx_t counts (column, row, rows changed, all deprecated), a
 * pointer to the columns, one to the error message and one to DuckDB's
 * internal data.
 *
 * A later DuckDB could make the struct larger, and then write past a
 * 48-byte one on our stack.  So the caller's storage is this union: the
 * documented layout, and room for five times as much.  heapsift reads
 * no field (only duckdb_row_count() and the other functions below do),
 * so a changed layout of the same size or smaller costs nothing; the
 * room only has to be at least what the library writes.
 */
struct duckdb_api_result_1x {
	duckdb_api_idx deprecated_column_count;
	duckdb_api_idx deprecated_row_count;
	duckdb_api_idx deprecated_rows_changed;
	void *deprecated_columns;
	char *deprecated_error_message;
	void *internal_data;
};
union duckdb_api_result {
	struct duckdb_api_result_1x v1;
	unsigned char room[256];
	/* the strictest alignment a larger struct could ask for */
	long double align_ld;
	void *align_p;
	uint64_t align_u64;
};

/*
 * The functions, DuckDB's name after each type.  open_ext with a NULL
 * path opens an in-memory database; a NULL config takes the defaults;
 * *out_error, set when it fails, is freed with duckdb_free().
 * duckdb_query() must be followed by duckdb_destroy_result() even when
 * it fails (the error text lives in the result).  value_varchar returns
 * the value cast to text, to be freed with duckdb_free(), or NULL when
 * it is NULL or cannot be cast; it and row_count are deprecated in 1.x
 * (in favour of the data-chunk API) but present through 1.5.
 */
typedef enum duckdb_api_state (*duckdb_api_open_ext_fn)(
	const char *path, duckdb_api_database *out_database,
	duckdb_api_config config, char **out_error); /* duckdb_open_ext */
typedef enum duckdb_api_state (*duckdb_api_connect_fn)(
	duckdb_api_database database,
	duckdb_api_connection *out_connection); /* duckdb_connect */
typedef enum duckdb_api_state (*duckdb_api_query_fn)(
	duckdb_api_connection connection, const char *query,
	union duckdb_api_result *out_result); /* duckdb_query */
typedef const char *(*duckdb_api_result_error_fn)(
	union duckdb_api_result *result); /* duckdb_result_error */
typedef duckdb_api_idx (*duckdb_api_row_count_fn)(
	union duckdb_api_result *result); /* duckdb_row_count */
typedef duckdb_api_idx (*duckdb_api_column_count_fn)(
	union duckdb_api_result *result); /* duckdb_column_count */
typedef bool (*duckdb_api_value_is_null_fn)(union duckdb_api_result *result,
					    duckdb_api_idx col,
					    duckdb_api_idx row);
/* duckdb_value_is_null */
typedef char *(*duckdb_api_value_varchar_fn)(union duckdb_api_result *result,
					     duckdb_api_idx col,
					     duckdb_api_idx row);
/* duckdb_value_varchar */
typedef void (*duckdb_api_free_fn)(void *ptr); /* duckdb_free */
typedef void (*duckdb_api_destroy_result_fn)(
	union duckdb_api_result *result); /* duckdb_destroy_result */
typedef void (*duckdb_api_disconnect_fn)(
	duckdb_api_connection *connection); /* duckdb_disconnect */
typedef void (*duckdb_api_close_fn)(
	duckdb_api_database *database); /* duckdb_close */
typedef const char *(*duckdb_api_library_version_fn)(void);
/* duckdb_library_version */

/* The table dlsym() fills: every member is set, or the library is not
 * used at all. */
struct duckdb_api {
	duckdb_api_open_ext_fn open_ext;
	duckdb_api_connect_fn connect;
	duckdb_api_query_fn query;
	duckdb_api_result_error_fn result_error;
	duckdb_api_row_count_fn row_count;
	duckdb_api_column_count_fn column_count;
	duckdb_api_value_is_null_fn value_is_null;
	duckdb_api_value_varchar_fn value_varchar;
	duckdb_api_free_fn free;
	duckdb_api_destroy_result_fn destroy_result;
	duckdb_api_disconnect_fn disconnect;
	duckdb_api_close_fn close;
	duckdb_api_library_version_fn library_version;
};

#endif
