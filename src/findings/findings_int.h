/*
 * Private to findings.c and rules.c: what a rule function gets (the
 * store, the user's filters, the findings so far) and the helpers with
 * which it adds findings, evidence, facts and figures.
 */
#ifndef HS_QUERY_FINDINGS_INT_H
#define HS_QUERY_FINDINGS_INT_H

#include "findings/findings.h"
#include "util/human.h"

struct findings_ctx {
	struct store *s;
	const struct query_options *filters;
	const char *store_arg;	 /* the store, shell-quoted, for commands */
	const char *filter_args; /* the filters, shell-quoted; "" none */
	struct findings *out;
	uint64_t kind_counts[SAMPLE__COUNT]; /* the JVM's samples */
	int jvm;	      /* the JVM the rules run on: out->jvms[jvm] */
	const char *jvm_args; /* the option that selects it, for commands
				 (" --recording=N"); "" */
};

/* Recording rec is in the rules' scope: of the JVM they run on, and
 * kept by the user's filters.  For the rules that read recordings one
 * by one (heap summaries, code heaps). */
bool findings_rec_in_scope(const struct findings_ctx *c, uint32_t rec);

/* A new finding of rule (zeroed, figure -1), owned by c->out. */
struct finding *findings_add(struct findings_ctx *c, const char *rule,
			     enum finding_severity sev);
void finding_add_evidence(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void finding_add_fact(struct finding *f, const char *name, double value,
		      const char *unit);
const char *findings_duration(int64_t ns, char *out, size_t size);
/* Move finding i of from, and its figure (its own, not shared), to the
 * end of c->out; from keeps an empty finding in its place. */
struct finding *findings_move(struct findings_ctx *c, struct findings *from,
			      size_t i);
/* A new figure of fs with n_points times (zeroed); its index. */
int findings_add_figure(struct findings *fs, enum finding_figure_kind kind,
			const char *title, const char *unit, size_t n_points);
/* Drop the figure added last (a rule that made it and then did not
 * fire). */
void findings_drop_figure(struct findings *fs);

/* A query of c's filters with kind (or -1: the filters' own) and,
 * when key is not NULL, a drill-down to key under by. */
int findings_query(struct findings_ctx *c, int kind, const char *key,
		   enum query_group by, struct query **q, struct err *e);

#endif
