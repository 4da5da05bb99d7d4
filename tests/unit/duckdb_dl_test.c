/*
 * The DuckDB loader (src/export/duckdb_dl.h).  The cases named
 * duckdb_dl_lib_* and duckdb_dl_search_* need DuckDB's real library:
 * they are TEST_ON_REQUEST, run by tests/cli/duckdb_dl.sh, which finds
 * or installs the library and names it in HS_LIBDUCKDB (or puts its
 * folder in LD_LIBRARY_PATH).  The others need no DuckDB at all.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

#include "export/duckdb_dl.h"
#include "util/buf.h"
#include "util/err.h"

static void check_quote(const char *s, const char *want)
{
	struct buf b = BUF_INIT;

	duckdb_dl_quote(&b, s);
	CHECK_STR(b.data, want);
	buf_release(&b);
}

TEST(duckdb_dl_quote_doubles_quotes)
{
	struct buf b = BUF_INIT;

	check_quote("", "''");
	check_quote("a", "'a'");
	check_quote("it's", "'it''s'");
	check_quote("'", "''''");
	check_quote("''", "''''''");
	check_quote("/tmp/o'neil/x.parquet", "'/tmp/o''neil/x.parquet'");
	/* a backslash is no escape in SQL: left as it is */
	check_quote("a\\'b", "'a\\''b'");
	/* it appends, as every buf_add does */
	buf_adds(&b, "COPY t TO ");
	duckdb_dl_quote(&b, "x.parquet");
	CHECK_STR(b.data, "COPY t TO 'x.parquet'");
	buf_release(&b);
}

/* duckdb_dl_open() with HEAPSIFT_LIBDUCKDB set to lib: it must fail
 * (ERR_USAGE, no handle), and e says so. */
static void open_fails(const char *lib, struct err *e)
{
	struct duckdb_dl *d = (struct duckdb_dl *)&d;

	setenv(DUCKDB_DL_ENV, lib, 1);
	err_init(e);
	CHECK_INT(duckdb_dl_open(&d, e), <, 0);
	CHECK(d == NULL);
	CHECK_INT(e->code, ==, ERR_USAGE);
	/* one line, for err_format() */
	CHECK(!strchr(e->msg, '\n'));
}

/* Every failure to load says how to get the library. */
static void check_howto(const char *msg)
{
	CHECK_CONTAINS(msg, "npm install @duckdb/node-bindings-linux-");
	CHECK_CONTAINS(msg, "github.com/duckdb/duckdb/releases");
	CHECK_CONTAINS(msg, "set HEAPSIFT_LIBDUCKDB=/path/to/libduckdb.so");
}

/* A new empty folder under TMPDIR, in b, to rmdir(). */
static int empty_dir(struct buf *b)
{
	const char *tmp = getenv("TMPDIR");

	buf_addf(b, "%s/duckdb-dl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(b->data))
		return 0;
	test_fail(__FILE__, __LINE__, "mkdtemp %s", b->data);
	return -1;
}

TEST(duckdb_dl_open_missing_library_says_where_and_how)
{
	struct buf dir = BUF_INIT, path = BUF_INIT, want = BUF_INIT;
	struct err e;

	if (empty_dir(&dir) < 0)
		return;
	buf_addf(&path, "%s/libduckdb.so", dir.data);
	open_fails(path.data, &e);
	buf_addf(&want,
		 "duckdb: cannot load %s (named by HEAPSIFT_LIBDUCKDB); ",
		 path.data);
	CHECK_CONTAINS(e.msg, want.data);
	check_howto(e.msg);
#if defined(__x86_64__)
	CHECK_CONTAINS(e.msg, "npm install @duckdb/node-bindings-linux-x64");
	CHECK_CONTAINS(e.msg, "libduckdb-linux-amd64.zip");
#endif
	/* the loader's own words come last: whole, for a short path */
	buf_reset(&want);
	buf_addf(&want,
		 "(the loader said: %s: cannot open shared object file: "
		 "No such file or directory)",
		 path.data);
	if (path.len < 100)
		CHECK_CONTAINS(e.msg, want.data);
	rmdir(dir.data);
	buf_release(&dir);
	buf_release(&path);
	buf_release(&want);
}

TEST(duckdb_dl_open_not_a_library)
{
	const char *path = test_fixture("README.md");
	struct err e;

	CHECK(access(path, R_OK) == 0);
	open_fails(path, &e);
	CHECK_CONTAINS(e.msg, "duckdb: cannot load ");
	CHECK_CONTAINS(e.msg, "README.md (named by HEAPSIFT_LIBDUCKDB)");
	check_howto(e.msg);
	CHECK_CONTAINS(e.msg, "(the loader said: ");
}

/* A library that loads but is not DuckDB's: zlib, which every heapsift
 * binary links, so it is there.  The first function looked for is
 * named. */
TEST(duckdb_dl_open_library_without_the_functions)
{
	struct err e;

	open_fails("libz.so.1", &e);
	CHECK_CONTAINS(e.msg, "duckdb: libz.so.1 has no function "
			      "duckdb_open_ext: not DuckDB's C library");
	CHECK_CONTAINS(e.msg, "undefined symbol: duckdb_open_ext");
	check_howto(e.msg);
}

/* Unset, or set to "": libduckdb.so through the loader's search.  This
 * machine may have one installed; then it must work. */
TEST(duckdb_dl_open_searches_when_unset)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct duckdb_dl *d = NULL;
		struct err e;

		if (i == 0)
			unsetenv(DUCKDB_DL_ENV);
		else
			setenv(DUCKDB_DL_ENV, "", 1);
		err_init(&e);
		if (duckdb_dl_open(&d, &e) == 0) {
			CHECK(d != NULL);
			CHECK(duckdb_dl_version(d)[0] != '\0');
			duckdb_dl_close(d);
			continue;
		}
		CHECK(d == NULL);
		CHECK_INT(e.code, ==, ERR_USAGE);
		CHECK_CONTAINS(e.msg, "duckdb: cannot load libduckdb.so "
				      "(HEAPSIFT_LIBDUCKDB is not set: "
				      "searched LD_LIBRARY_PATH, "
				      "/etc/ld.so.cache, /lib and /usr/lib)");
		check_howto(e.msg);
		CHECK_CONTAINS(e.msg, "libduckdb.so: cannot open shared object "
				      "file");
	}
	duckdb_dl_close(NULL);
}

/* ---- with DuckDB's library (tests/cli/duckdb_dl.sh) ------------------- */

/* The library tests/cli/duckdb_dl.sh found, into HEAPSIFT_LIBDUCKDB;
 * NULL (skip) when the case was run without it. */
static const char *lib_from_suite(void)
{
	const char *lib = getenv("HS_LIBDUCKDB");

	if (!lib || !*lib)
		return NULL;
	setenv(DUCKDB_DL_ENV, lib, 1);
	return lib;
}
#define NEED_LIB()                                                      \
	do {                                                            \
		if (!lib_from_suite())                                  \
			SKIP("HS_LIBDUCKDB does not name libduckdb.so " \
			     "(tests/cli/duckdb_dl.sh sets it)");       \
	} while (0)

/* The rows a query gave, as "a|b|\N" lines (\N for NULL). */
struct rows {
	struct buf text;
	size_t n_rows;
	size_t stop_at; /* return 7 at this row (1-based); 0: never */
};

static int rows_add(void *ctx, size_t n_cols, const char *const *vals)
{
	struct rows *r = ctx;
	size_t i;

	for (i = 0; i < n_cols; i++) {
		if (i)
			buf_addch(&r->text, '|');
		buf_adds(&r->text, vals[i] ? vals[i] : "\\N");
	}
	buf_addch(&r->text, '\n');
	r->n_rows++;
	return r->n_rows == r->stop_at ? 7 : 0;
}

/* Open through HEAPSIFT_LIBDUCKDB; NULL after a failed check. */
static struct duckdb_dl *open_lib(void)
{
	struct duckdb_dl *d = NULL;
	struct err e;

	err_init(&e);
	if (duckdb_dl_open(&d, &e) < 0) {
		test_fail(__FILE__, __LINE__, "duckdb_dl_open: %s", e.msg);
		return NULL;
	}
	return d;
}

/* Run sql through duckdb_dl_query(); its rows, or the error's text
 * after "error: ". */
static void query(struct duckdb_dl *d, const char *sql, struct rows *r)
{
	struct err e;
	int rc;

	err_init(&e);
	buf_reset(&r->text);
	r->n_rows = 0;
	rc = duckdb_dl_query(d, sql, rows_add, r, &e);
	if (rc < 0)
		buf_addf(&r->text, "error: %s", e.msg);
	else if (rc > 0)
		buf_addf(&r->text, "stopped: %d", rc);
}

TEST_ON_REQUEST(duckdb_dl_lib_select_values_as_text)
{
	struct rows r = {BUF_INIT, 0, 0};
	struct buf sql = BUF_INIT;
	struct duckdb_dl *d;

	NEED_LIB();
	if (!(d = open_lib()))
		return;
	/* "v1.5.6" for the npm package's */
	CHECK(duckdb_dl_version(d)[0] == 'v');
	buf_adds(&sql, "SELECT 42, NULL, ");
	duckdb_dl_quote(&sql, "it's");
	CHECK_STR(sql.data, "SELECT 42, NULL, 'it''s'");
	query(d, sql.data, &r);
	CHECK_STR(r.text.data, "42|\\N|it's\n");
	/* several rows, in order, and typed values cast by DuckDB */
	query(d, "SELECT i, i * 0.5, i::VARCHAR || 'x' FROM range(3) t(i)", &r);
	CHECK_STR(r.text.data, "0|0.0|0x\n1|0.5|1x\n2|1.0|2x\n");
	/* no rows: no call */
	query(d, "SELECT 1 WHERE false", &r);
	CHECK_STR(r.text.data, "");
	CHECK_UINT(r.n_rows, ==, 0);
	/* the database was told never to download an extension */
	query(d, "SELECT current_setting('autoinstall_known_extensions')", &r);
	CHECK_STR(r.text.data, "false\n");
	duckdb_dl_close(d);
	/* and again: the library stays loaded, a new database opens */
	if ((d = open_lib())) {
		query(d, "SELECT 'again'", &r);
		CHECK_STR(r.text.data, "again\n");
		duckdb_dl_close(d);
	}
	buf_release(&sql);
	buf_release(&r.text);
}

TEST_ON_REQUEST(duckdb_dl_lib_row_callback_stops_the_query)
{
	struct rows r = {BUF_INIT, 0, 3};
	struct duckdb_dl *d;

	NEED_LIB();
	if (!(d = open_lib()))
		return;
	query(d, "SELECT range FROM range(10)", &r);
	CHECK_STR(r.text.data, "0\n1\n2\nstopped: 7");
	CHECK_UINT(r.n_rows, ==, 3);
	duckdb_dl_close(d);
	buf_release(&r.text);
}

TEST_ON_REQUEST(duckdb_dl_lib_errors_are_duckdbs)
{
	struct rows r = {BUF_INIT, 0, 0};
	struct duckdb_dl *d;
	struct err e;

	NEED_LIB();
	if (!(d = open_lib()))
		return;
	err_init(&e);
	CHECK_INT(duckdb_dl_exec(d, "SELEC 1", &e), <, 0);
	CHECK_INT(e.code, ==, ERR_IO);
	/* DuckDB's words, on one line */
	CHECK_CONTAINS(e.msg, "duckdb: Parser Error: syntax error at or near "
			      "\"SELEC\"");
	CHECK(!strchr(e.msg, '\n'));
	query(d, "SELECT * FROM no_such_table", &r);
	CHECK_CONTAINS(r.text.data, "error: duckdb: Catalog Error: ");
	CHECK_CONTAINS(r.text.data, "no_such_table");
	/* the caret under the query's line is left out */
	CHECK(r.text.len && r.text.data[r.text.len - 1] != '^');
	CHECK_UINT(r.n_rows, ==, 0);
	/* an error at run time, not at parse time */
	query(d, "SELECT CAST('x' AS INTEGER)", &r);
	CHECK_CONTAINS(r.text.data, "error: duckdb: Conversion Error: ");
	/* the connection still works */
	err_init(&e);
	CHECK_INT(duckdb_dl_exec(d, "CREATE TABLE t AS SELECT 1 AS a", &e), ==,
		  0);
	CHECK_STR(e.msg, "");
	query(d, "SELECT a FROM t", &r);
	CHECK_STR(r.text.data, "1\n");
	duckdb_dl_close(d);
	buf_release(&r.text);
}

/* A Parquet file written with COPY and read back; its name has a quote
 * in it, so that duckdb_dl_quote() is what makes the SQL right. */
TEST_ON_REQUEST(duckdb_dl_lib_parquet_round_trip)
{
	struct rows r = {BUF_INIT, 0, 0};
	struct buf dir = BUF_INIT, path = BUF_INIT, sql = BUF_INIT;
	struct duckdb_dl *d;
	struct err e;
	char *bytes;
	size_t len;

	NEED_LIB();
	if (empty_dir(&dir) < 0)
		return;
	buf_addf(&path, "%s/o'neil samples.parquet", dir.data);
	if (!(d = open_lib()))
		goto out;
	buf_adds(&sql, "COPY (SELECT i, 'row ' || i AS s, "
		       "CASE WHEN i % 10 = 0 THEN NULL ELSE i * 2 END AS n "
		       "FROM range(1000) t(i)) TO ");
	duckdb_dl_quote(&sql, path.data);
	buf_adds(&sql, " (FORMAT parquet)");
	err_init(&e);
	CHECK_INT(duckdb_dl_exec(d, sql.data, &e), ==, 0);
	CHECK_STR(e.msg, "");
	/* a Parquet file begins and ends with its magic, "PAR1" */
	bytes = test_read_file(path.data, &len);
	CHECK(bytes != NULL);
	if (bytes) {
		CHECK_UINT(len, >, 8);
		CHECK(len > 8 && memcmp(bytes, "PAR1", 4) == 0 &&
		      memcmp(bytes + len - 4, "PAR1", 4) == 0);
		free(bytes);
	}
	buf_reset(&sql);
	buf_adds(&sql,
		 "SELECT count(*), count(n), sum(i), typeof(any_value(i)), "
		 "typeof(any_value(s)), min(s) FROM read_parquet(");
	duckdb_dl_quote(&sql, path.data);
	buf_adds(&sql, ")");
	query(d, sql.data, &r);
	/* 1000 rows, 100 NULLs, 0 + ... + 999 */
	CHECK_STR(r.text.data, "1000|900|499500|BIGINT|VARCHAR|row 0\n");
	duckdb_dl_close(d);
out:
	unlink(path.data);
	rmdir(dir.data);
	buf_release(&dir);
	buf_release(&path);
	buf_release(&sql);
	buf_release(&r.text);
}

/* HEAPSIFT_LIBDUCKDB unset: the suite runs this one with the library's
 * folder in LD_LIBRARY_PATH (read by the loader when the process
 * starts, so it cannot be set here), and HS_LIBDUCKDB_SEARCH=1 to say
 * so. */
TEST_ON_REQUEST(duckdb_dl_search_finds_the_library)
{
	const char *asked = getenv("HS_LIBDUCKDB_SEARCH");
	struct rows r = {BUF_INIT, 0, 0};
	struct duckdb_dl *d = NULL;
	struct err e;

	if (!asked || strcmp(asked, "1") != 0)
		SKIP("HS_LIBDUCKDB_SEARCH is not 1 (tests/cli/duckdb_dl.sh "
		     "sets it, and LD_LIBRARY_PATH to the library's folder)");
	unsetenv(DUCKDB_DL_ENV);
	err_init(&e);
	CHECK_INT(duckdb_dl_open(&d, &e), ==, 0);
	CHECK_STR(e.msg, "");
	if (d) {
		query(d, "SELECT 6 * 7", &r);
		CHECK_STR(r.text.data, "42\n");
		duckdb_dl_close(d);
	}
	buf_release(&r.text);
}
