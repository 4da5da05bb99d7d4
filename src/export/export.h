/*
 * The interchange exports: a store's filtered samples in the formats
 * other tools read (docs/export.md).  Each writer takes an open query
 * (its kind and filters are the caller's: the CLI's --kind and filter
 * options) and appends the whole file to a buffer; the caller writes it
 * out.  They read through query.h only, like every front end.  The CSV
 * tables, which are the store itself rather than a view of it, are
 * src/cli/cmd_export.c's (from store_table_rows()); the fleet lake's are
 * in lake.h.
 */
#ifndef HS_EXPORT_H
#define HS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query/query.h"

struct buf;
struct err;
struct store;

enum export_value {
	EXPORT_VALUE_BYTES,   /* estimated bytes (the default) */
	EXPORT_VALUE_SAMPLES, /* samples */
	EXPORT_VALUE_OBJECTS, /* estimated objects, rounded per stack */
};

bool export_value_parse(const char *s, enum export_value *v);
const char *export_value_name(enum export_value v);
/* The i-th name export_value_parse() takes, NULL past the last. */
const char *export_value_word(size_t i);

/*
 * A frame as the folded format writes it: the site label
 * (class.method:line) with control bytes and invalid UTF-8 as \xNN, a
 * backslash as \\ (buf_add_printable), and ';', which separates frames,
 * as \x3b.  Spaces stay: readers take the value after the last space.
 */
void export_folded_frame(struct buf *out, const char *label);

/* Collapsed stacks, one line a stack, root first: "a;b;c 1234\n".
 * Stacks whose value is 0 are left out.  ERR_USAGE when v is
 * EXPORT_VALUE_OBJECTS and the kind has no object count. */
int export_folded(struct query *q, enum export_value v, struct buf *out,
		  struct err *e);

/* A gzipped pprof profile.proto (sample types: docs/export.md). */
int export_pprof(struct query *q, struct buf *out, struct err *e);

/*
 * One gzipped pprof profile of several kinds (queries[]: one query a
 * kind, each with the same filters, in kind order): each kind's sample
 * types named "WORD.TYPE" (tlab.alloc_space: sample_kind_word()), one
 * sample a stack of each kind, 0 in the other kinds' values.
 */
int export_pprof_kinds(struct query *const *queries, size_t n_queries,
		       struct buf *out, struct err *e);

/*
 * An OpenTelemetry profiles request (ExportProfilesServiceRequest,
 * v1development, from the vendored src/formats/otlp/), uncompressed: one
 * ResourceProfiles a recording that holds samples of the kinds asked,
 * with its JVM and name, and in it one Profile per kind and sample type
 * (the pprof export's types).  o: the filters; o->kind -1: every kind
 * the store holds.  docs/export.md.
 */
int export_otlp(struct store *s, const struct query_options *o, struct buf *out,
		struct err *e);

/*
 * speedscope's JSON file format: one "sampled" profile per sample kind,
 * for every kind the store holds (queries[] has one query a kind, each
 * with the same filters), weighted by v.  name names the file.
 */
int export_speedscope(struct query *const *queries, size_t n_queries,
		      enum export_value v, const char *name, struct buf *out,
		      struct err *e);

/* The flame graph as one standalone SVG file (the report's drawing). */
int export_svg(struct query *q, struct buf *out, struct err *e);

#endif
