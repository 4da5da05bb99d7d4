/*
 * What every view of the browser looks at: the store, the sample kind
 * and the time range chosen, and the queries over them, opened once
 * and shared.  A view caches what it computed from a query together
 * with the model's generation, and recomputes only when the generation
 * has moved on (the kind or the time range changed): keys that only
 * move a cursor or fold a tree never query.
 */
#ifndef HS_TUI_MODEL_H
#define HS_TUI_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "query/diff.h"
#include "query/query.h"

struct model {
	struct store *s; /* borrowed */
	int kind;	 /* enum sample_kind, or -1: the query's default */
	int estimate;	 /* enum query_estimate, or -1: the default */
	int64_t from_ns, to_ns; /* INT64_MIN, INT64_MAX: everything */
	unsigned gen;		/* bumped by every change of the above */
	struct query *q;	/* the range applied; lazily opened */
	struct query *q_all;	/* the whole span (the timeline) */
	/* the whole span of the chosen kind: the timeline's axis */
	int64_t first_ns, last_ns;
	uint64_t kind_counts[SAMPLE__COUNT];
	int64_t start_ns; /* time 0: query_time_origin() */
	/* The baseline (docs/browse.md): a recording or a time range that
	 * the Allocations, tree and Survivors views compare the shown
	 * samples with. */
	bool base_on;
	int64_t base_recording; /* -1: a time range */
	int64_t base_from_ns, base_to_ns;
	/* the comparisons: [0] of the kind shown, [1] of another kind (the
	 * Survivors view asks a kind with liveness) */
	struct model_cmp {
		int kind;
		struct query *q_base, *q_new; /* owned */
		struct diff *diff;
		unsigned gen;
		bool valid;
	} cmp[2];
};

/* Open the base query.  <0 with e set when the store is damaged. */
int model_init(struct model *m, struct store *s, struct err *e);
void model_release(struct model *m);

/* The query with the time range (owned by m; valid until the next
 * model_set_* or model_release).  NULL with e set on failure. */
struct query *model_query(struct model *m, struct err *e);
/* The same without the time range. */
struct query *model_query_all(struct model *m, struct err *e);

/*
 * Open a query of m's kind and range with extra options (a drill-down
 * key, another kind): the caller owns it (query_free).  extra may be
 * NULL; its kind is used when >= 0, its from/to never.
 */
int model_open_query(struct model *m, const struct query_options *extra,
		     struct query **out, struct err *e);

void model_set_range(struct model *m, int64_t from_ns, int64_t to_ns);
bool model_has_range(const struct model *m);
void model_set_kind(struct model *m, int kind);

/*
 * The baseline: recording rec (>= 0) or the time range from..to (rec
 * -1); model_clear_base() drops it.  Each bumps the generation.
 */
void model_set_base(struct model *m, int64_t rec, int64_t from_ns,
		    int64_t to_ns);
void model_clear_base(struct model *m);
/*
 * The comparison of what is shown with the baseline (owned by m, valid
 * until the next model_set_* or model_release): the new side is the
 * time range when one is selected, else, with a recording as the
 * baseline, the next recording (the last one's: the one before), else
 * every recording.  NULL with e set when there is no baseline or a
 * query fails.  Its tables are shared: a view that keeps one copies it
 * (diff_table_dup()).
 */
struct diff *model_diff(struct model *m, struct err *e);
/* The same for samples of another kind (kind < 0: the kind shown). */
struct diff *model_diff_kind(struct model *m, int kind, struct err *e);

/* The estimate of ObjectAllocationSample's bytes: -1 the query's
 * default, else enum query_estimate.  Bumps the generation. */
void model_set_estimate(struct model *m, int estimate);
/* The kind shown (resolving -1). */
enum sample_kind model_kind(struct model *m);

#endif
