/*
 * What the triage report (src/report/) asks of the query layer beyond
 * query.h: the evidence behind a leak suspect (GC roots, GCs survived,
 * objects that are merely not yet collected), the heap after each GC,
 * objects above a size, and a recording's settings.  Like query.h, these
 * read the store through an open query and allocate nothing per sample;
 * the report includes this header and query.h, nothing below them.
 *
 * Every function works on the query's kind and filters (a drill-down
 * key included), so "the evidence for site X" is a query whose
 * options.key is X.
 */
#ifndef HS_QUERY_FINDINGS_H
#define HS_QUERY_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query/query.h"

/* The liveness facts of the query's filtered samples (agent samples,
 * jdk.OldObjectSample); zero counts for a kind without liveness. */
struct query_evidence {
	uint64_t samples;      /* with a known fate */
	uint64_t alive_at_end; /* alive when their recording ended */
	uint64_t dead;	       /* found dead */
	uint64_t with_root;    /* OldObjectSample with a path to a GC root */
	uint64_t rooted_elsewhere; /* samples with a root in the same
				      recordings, of any key: roots were
				      searched for (path-to-gc-roots) */
	uint64_t old_gc_1;	   /* alive at the end and survived >= 1 GC */
	uint64_t old_gc_many;	   /* ... >= QUERY_MANY_GCS GCs */
	uint64_t young_unrooted;   /* alive at the end, no root, no GC
				    survived: not yet collected */
	int64_t median_gcs;	   /* GCs survived by the live ones; -1 none */
	int64_t max_gcs;
	int64_t bytes_alive;  /* estimated bytes of those alive at end */
	int64_t largest_size; /* the largest object size known; -1 */
	const char *root;     /* the most common root (borrowed); NULL */
	uint64_t n_gcs;	      /* GCs seen in the recordings involved */
};

#define QUERY_MANY_GCS 4

int query_evidence(struct query *q, struct query_evidence *ev, struct err *e);

/* One "After GC" (or "Before GC") heap summary. */
struct query_heap_point {
	int64_t time_ns;
	int64_t used, committed, reserved; /* REC_NONE when absent */
};

/*
 * The heap summaries of recording rec taken at `when` ("After GC",
 * "Before GC"), in time order.  *out is malloc'ed and owned by the
 * caller (free()); *n may be 0.
 */
int query_heap_summaries(struct query *q, uint32_t rec, const char *when,
			 struct query_heap_point **out, size_t *n,
			 struct err *e);

/* Objects of at least min_size bytes among the filtered samples, by
 * allocation site (the sizes: TLAB events' allocationSize, agent
 * sizes, OldObjectSample objectSize).  Rows are malloc'ed, keys are
 * borrowed from q; the caller frees *rows.  Sorted by bytes. */
struct query_size_row {
	const char *key;
	uint64_t objects; /* samples at or above min_size */
	int64_t bytes;	  /* their sizes' sum */
	int64_t largest;
};

int query_large_objects(struct query *q, int64_t min_size,
			struct query_size_row **rows, size_t *n_rows,
			struct err *e);

/* A recording's setting by name ("jdk.ObjectAllocationSample#throttle",
 * "agent#interval"): borrowed from the store, NULL when absent. */
const char *query_setting(struct query *q, uint32_t rec, const char *name);

/* Every setting of recording rec, for the appendix: the strings are
 * borrowed from the store, the two arrays malloc'ed (the caller frees
 * them); returns the count. */
size_t query_settings(struct query *q, uint32_t rec, const char ***names,
		      const char ***values);

#endif
