/*
 * DuckDB through dlopen(): the library found at run time, its functions
 * resolved by name into a table (duckdb_api.h), one in-memory database.
 *
 * The library is opened RTLD_NODELETE: libduckdb is C++ with threads,
 * static objects and thread-local storage of its own, and unmapping it
 * while any of those could still run (a thread-local destructor at a
 * thread's exit, a static destructor at the process's) would crash far
 * from here.  duckdb_dl_close() still drops our reference, so a second
 * duckdb_dl_open() finds the same library already loaded.
 */
#include "export/duckdb_dl.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/duckdb_api.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

/* dlsym() returns an object pointer that we store into function
 * pointers; POSIX requires the two to have one size and representation */
_Static_assert(sizeof(void *) == sizeof(duckdb_api_query_fn),
	       "function and object pointers differ in size");
/* a column count from DuckDB becomes a size_t for the row callback */
_Static_assert(sizeof(size_t) >= sizeof(duckdb_api_idx),
	       "size_t is narrower than DuckDB's idx_t");

struct duckdb_dl {
	void *lib;
	struct duckdb_api api;
	duckdb_api_database db;
	duckdb_api_connection con;
	const char *version;
};

/* The name each member of struct duckdb_api has in the library. */
static const struct {
	const char *name;
	size_t offset;
} duckdb_dl_sym_table[] = {
	{"duckdb_open_ext", offsetof(struct duckdb_api, open_ext)},
	{"duckdb_connect", offsetof(struct duckdb_api, connect)},
	{"duckdb_query", offsetof(struct duckdb_api, query)},
	{"duckdb_result_error", offsetof(struct duckdb_api, result_error)},
	{"duckdb_row_count", offsetof(struct duckdb_api, row_count)},
	{"duckdb_column_count", offsetof(struct duckdb_api, column_count)},
	{"duckdb_value_is_null", offsetof(struct duckdb_api, value_is_null)},
	{"duckdb_value_varchar", offsetof(struct duckdb_api, value_varchar)},
	{"duckdb_free", offsetof(struct duckdb_api, free)},
	{"duckdb_destroy_result", offsetof(struct duckdb_api, destroy_result)},
	{"duckdb_disconnect", offsetof(struct duckdb_api, disconnect)},
	{"duckdb_close", offsetof(struct duckdb_api, close)},
	{"duckdb_library_version",
	 offsetof(struct duckdb_api, library_version)},
};

#define DUCKDB_DL_N_SYMS \
	(sizeof(duckdb_dl_sym_table) / sizeof(duckdb_dl_sym_table[0]))

/* The names DuckDB publishes its library under for this machine: the
 * npm package of prebuilt bindings, and the release's zip. */
#if defined(__aarch64__)
#define DUCKDB_DL_NPM "@duckdb/node-bindings-linux-arm64"
#define DUCKDB_DL_ZIP "libduckdb-linux-arm64.zip"
#else
#define DUCKDB_DL_NPM "@duckdb/node-bindings-linux-x64"
#define DUCKDB_DL_ZIP "libduckdb-linux-amd64.zip"
#endif

/* How to get the library: said by every failure to load it.  Before the
 * loader's words, which come last, so that a message cut at
 * ERR_MSG_MAX loses the end of those and never the advice. */
#define DUCKDB_DL_HOWTO                                                        \
	"DuckDB's C library comes with `npm install " DUCKDB_DL_NPM            \
	"` (node_modules/" DUCKDB_DL_NPM "/libduckdb.so) or in " DUCKDB_DL_ZIP \
	" from github.com/duckdb/duckdb/releases; then "                       \
	"set " DUCKDB_DL_ENV "=/path/to/libduckdb.so"

/*
 * DuckDB's error text as one line: its messages run over several
 * ("Parser Error: ...\n\nLINE 1: SELEC 1\n        ^"), and a struct err
 * is printed on one, where err_format() would show each newline as
 * \x0a.  The lines are joined with a space, trimmed; empty ones and the
 * caret under the query, which points at nothing once joined, are left
 * out.
 */
static int duckdb_dl_fail(struct err *e, const char *what, const char *text)
{
	struct buf flat = BUF_INIT;
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\r\n"), a = 0, b = len;

		while (a < b && (p[a] == ' ' || p[a] == '\t'))
			a++;
		while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
			b--;
		if (a < b && strspn(p + a, "^ \t") < b - a) {
			if (flat.len)
				buf_addch(&flat, ' ');
			buf_add(&flat, p + a, b - a);
		}
		p += len;
		p += strspn(p, "\r\n");
	}
	err_set(e, ERR_IO, "duckdb: %s%s", what, flat.data);
	buf_release(&flat);
	return ERR_FAIL;
}

/* The failure of duckdb_query() into r: DuckDB's words, kept in r. */
static int duckdb_dl_result_fail(struct duckdb_dl *d,
				 union duckdb_api_result *r, struct err *e)
{
	const char *msg = d->api.result_error(r);

	return duckdb_dl_fail(e, "",
			      msg && *msg ? msg
					  : "the query failed, and DuckDB "
					    "gave no reason");
}

/* Load the library and fill d->api; on failure e says why and how to
 * get it. */
static int duckdb_dl_load(struct duckdb_dl *d, struct err *e)
{
	const char *env = getenv(DUCKDB_DL_ENV);
	const char *name = env && *env ? env : "libduckdb.so";
	const char *why;
	size_t i;

	dlerror();
	d->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!d->lib) {
		why = dlerror();
		if (env && *env)
			return err_set(e, ERR_USAGE,
				       "duckdb: cannot load %s (named by "
				       "%s); " DUCKDB_DL_HOWTO
				       " (the loader said: %s)",
				       name, DUCKDB_DL_ENV,
				       why ? why : "no reason");
		return err_set(e, ERR_USAGE,
			       "duckdb: cannot load %s (%s is not set: "
			       "searched LD_LIBRARY_PATH, /etc/ld.so.cache, "
			       "/lib and /usr/lib); " DUCKDB_DL_HOWTO
			       " (the loader said: %s)",
			       name, DUCKDB_DL_ENV, why ? why : "no reason");
	}
	for (i = 0; i < DUCKDB_DL_N_SYMS; i++) {
		void *sym;

		dlerror();
		sym = dlsym(d->lib, duckdb_dl_sym_table[i].name);
		if (!sym) {
			why = dlerror();
			return err_set(e, ERR_USAGE,
				       "duckdb: %s has no function %s: not "
				       "DuckDB's C library, or a version "
				       "heapsift cannot use (it needs "
				       "1.x); " DUCKDB_DL_HOWTO
				       " (the loader said: %s)",
				       name, duckdb_dl_sym_table[i].name,
				       why ? why : "no reason");
		}
		memcpy((char *)&d->api + duckdb_dl_sym_table[i].offset, &sym,
		       sizeof(sym));
	}
	return 0;
}

int duckdb_dl_open(struct duckdb_dl **out, struct err *e)
{
	struct duckdb_dl *d = xcalloc(1, sizeof(*d));
	char *why = NULL;

	*out = NULL;
	if (duckdb_dl_load(d, e) < 0)
		goto fail;
	if (d->api.open_ext(NULL, &d->db, NULL, &why) != DUCKDB_API_SUCCESS) {
		duckdb_dl_fail(e, "cannot open an in-memory database: ",
			       why && *why ? why : "no reason given");
		if (why)
			d->api.free(why);
		d->db = NULL;
		goto fail;
	}
	if (d->api.connect(d->db, &d->con) != DUCKDB_API_SUCCESS) {
		err_set(e, ERR_IO, "duckdb: cannot connect to its database");
		d->con = NULL;
		goto fail;
	}
	if (duckdb_dl_exec(d, "SET autoinstall_known_extensions = false", e) <
	    0)
		goto fail;
	d->version = d->api.library_version();
	if (!d->version)
		d->version = "unknown";
	*out = d;
	return 0;
fail:
	duckdb_dl_close(d);
	return ERR_FAIL;
}

int duckdb_dl_exec(struct duckdb_dl *d, const char *sql, struct err *e)
{
	union duckdb_api_result r;
	int rc = 0;

	/* zeroed: DuckDB writes only the part it knows of */
	memset(&r, 0, sizeof(r));
	/* never a NULL result, which duckdb_query() allows: the error
	 * text lives in it */
	if (d->api.query(d->con, sql, &r) != DUCKDB_API_SUCCESS)
		rc = duckdb_dl_result_fail(d, &r, e);
	d->api.destroy_result(&r);
	return rc;
}

int duckdb_dl_query(struct duckdb_dl *d, const char *sql, duckdb_dl_row_fn row,
		    void *ctx, struct err *e)
{
	union duckdb_api_result r;
	duckdb_api_idx n_cols, n_rows, i, j;
	char **vals = NULL;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (d->api.query(d->con, sql, &r) != DUCKDB_API_SUCCESS) {
		rc = duckdb_dl_result_fail(d, &r, e);
		goto out;
	}
	n_cols = d->api.column_count(&r);
	n_rows = d->api.row_count(&r);
	vals = xcalloc(n_cols ? (size_t)n_cols : 1, sizeof(*vals));
	for (i = 0; i < n_rows && rc == 0; i++) {
		for (j = 0; j < n_cols; j++) {
			if (d->api.value_is_null(&r, j, i))
				continue;
			vals[j] = d->api.value_varchar(&r, j, i);
			if (!vals[j]) {
				rc = err_set(e, ERR_IO,
					     "duckdb: the value in column %llu "
					     "of row %llu has no text form",
					     (unsigned long long)j + 1,
					     (unsigned long long)i + 1);
				break;
			}
		}
		if (rc == 0)
			rc = row(ctx, (size_t)n_cols,
				 (const char *const *)vals);
		for (j = 0; j < n_cols; j++) {
			if (vals[j])
				d->api.free(vals[j]);
			vals[j] = NULL;
		}
	}
out:
	free(vals);
	d->api.destroy_result(&r);
	return rc;
}

const char *duckdb_dl_version(const struct duckdb_dl *d)
{
	return d->version;
}

void duckdb_dl_close(struct duckdb_dl *d)
{
	if (!d)
		return;
	/* duckdb_disconnect() and duckdb_close() take NULL handles, but
	 * the functions are there only when the library loaded */
	if (d->con)
		d->api.disconnect(&d->con);
	if (d->db)
		d->api.close(&d->db);
	if (d->lib)
		dlclose(d->lib);
	free(d);
}

void duckdb_dl_quote(struct buf *out, const char *s)
{
	buf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_addch(out, '\'');
		buf_addch(out, *s);
	}
	buf_addch(out, '\'');
}
