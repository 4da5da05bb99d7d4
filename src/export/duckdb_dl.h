/* TEMPORARY STUB (not to be committed): helper's module replaces it */
#ifndef HS_DUCKDB_DL_H
#define HS_DUCKDB_DL_H
#include <stddef.h>
struct buf; struct err; struct duckdb_dl;
int duckdb_dl_open(struct duckdb_dl **out, struct err *e);
int duckdb_dl_exec(struct duckdb_dl *d, const char *sql, struct err *e);
int duckdb_dl_query(struct duckdb_dl *d, const char *sql, int (*row)(void *ctx, size_t ncols, const char *const *vals), void *ctx, struct err *e);
const char *duckdb_dl_version(const struct duckdb_dl *d);
void duckdb_dl_close(struct duckdb_dl *d);
void duckdb_dl_quote(struct buf *out, const char *s);
#endif
