/*
 * Private to the report's rules (rules.c, the table and the rules on
 * allocation; rules_survivors.c, the leak suspects; rules_heap.c, the
 * heap after GC and the old objects; rules_codeheap.c): the helpers and
 * thresholds they share, and the rule functions the table names.
 */
#ifndef HS_QUERY_RULES_INT_H
#define HS_QUERY_RULES_INT_H

#include "findings/findings.h"
#include "findings/findings_int.h"
#include "query/query.h"

/* Below this many samples an estimate's relative error (1/sqrt(n)) is
 * over 30%: the finding says so and ranks lower. */
#define FEW_SAMPLES 10

/* JMC's IncreasingLiveSet anchor: 1% of the live set per second */
#define LIVE_GROWTH_PCT 1.0
/* at least this many GCs after the warm-up before growth is judged */
#define MIN_GCS 5

/*
 * What a key's jdk.OldObjectSample events prove (query/old_emissions.h):
 * each object once, alive at the end only where the last emission shows
 * it, and its sizes' sum never shown as a live set above the heap used
 * after the GC before that emission, which holds every object the
 * emission shows (docs/report.md).
 */
static inline bool old_sizes_disagree(const struct query_evidence *ev)
{
	return ev->size_alive >= 0 && ev->heap_after_gc > 0 &&
	       ev->size_alive > ev->heap_after_gc;
}

/* The --kind value of kind k. */
const char *rules_kind_opt(enum sample_kind k);
/* "heapsift VIEW STORE ARGS FILTERS" */
char *rules_command(struct findings_ctx *c, const char *view, const char *args);
/* The top rows by `by` of c's filters with kind (or -1) and, when key
 * is not NULL, a drill-down to key under key_by: 0 with *q the caller's
 * to free (rows and t borrowed from it), or <0 with e set and nothing
 * to free. */
int rules_top_rows(struct findings_ctx *c, int kind, const char *key,
		   enum query_group key_by, enum query_group by,
		   struct query **q, const struct query_row **rows, size_t *n,
		   struct query_total *t, struct err *e);

int rule_leaks(struct findings_ctx *c, const struct finding_rule *rule,
	       struct err *e);
int rule_heap_after_gc(struct findings_ctx *c, const struct finding_rule *rule,
		       struct err *e);
int rule_old_objects(struct findings_ctx *c, const struct finding_rule *rule,
		     struct err *e);
int rule_code_heaps(struct findings_ctx *c, const struct finding_rule *rule,
		    struct err *e);

#endif
