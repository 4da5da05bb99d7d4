/* TEMPORARY STUB */
#include "export/duckdb_dl.h"
#include "util/buf.h"
#include "util/err.h"
int duckdb_dl_open(struct duckdb_dl **out, struct err *e) { *out = NULL; return err_set(e, ERR_USAGE, "no duckdb yet"); }
int duckdb_dl_exec(struct duckdb_dl *d, const char *sql, struct err *e) { (void)d; (void)sql; return err_set(e, ERR_USAGE, "stub"); }
int duckdb_dl_query(struct duckdb_dl *d, const char *sql, int (*row)(void *ctx, size_t ncols, const char *const *vals), void *ctx, struct err *e) { (void)d; (void)sql; (void)row; (void)ctx; return err_set(e, ERR_USAGE, "stub"); }
const char *duckdb_dl_version(const struct duckdb_dl *d) { (void)d; return ""; }
void duckdb_dl_close(struct duckdb_dl *d) { (void)d; }
void duckdb_dl_quote(struct buf *out, const char *s) { buf_addch(out, '\''); for (; *s; s++) { if (*s == '\'') buf_addch(out, '\''); buf_addch(out, *s);} buf_addch(out, '\''); }
