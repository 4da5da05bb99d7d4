/*
 * Findings: what the triage rules (rules.c, finding_rule_table[]) make
 * of a store, ranked by severity, each with its evidence and the
 * command that shows more; `heapsift report` renders them and the
 * browser's Findings view lists them, both from query_findings().
 * The rules are clients of the query engine, through query.h alone:
 * what they ask beyond the views (the store's JVMs, the evidence
 * behind a leak suspect, the heap after each GC, objects above a size,
 * a recording's settings) is declared there.  The front ends include
 * this header and query.h, nothing below them.  Nothing here renders:
 * names from files are kept raw, and each front end cleans them for
 * its target.
 */
#ifndef HS_QUERY_FINDINGS_H
#define HS_QUERY_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query/query.h"

struct store;
struct buf;

/* --- findings ------------------------------------------------------------ */

enum finding_severity {
	FINDING_INFO = 0,
	FINDING_WARNING,
	FINDING_CRITICAL,
};

const char *finding_severity_name(enum finding_severity s);

/* A named number of a finding, for machines (the report's JSON
 * "figures"). */
struct finding_fact {
	const char *name; /* static */
	double value;
	const char *unit; /* static: "bytes", "bytes/s", "%", "samples".. */
};

#define FINDING_MAX_FACTS 16

struct finding {
	const char *rule; /* the rule's name (static) */
	enum finding_severity severity;
	double weight;	  /* order within a severity, larger first */
	bool few_samples; /* rests on too few samples: said, ranked lower */
	char *subject;	  /* what it is about (a site, a heap); may be NULL */
	char *sentence;	  /* one sentence */
	char **evidence;  /* lines */
	size_t n_evidence;
	char *command; /* the heapsift command that shows more */
	char *fix;     /* what usually fixes it; NULL */
	struct finding_fact facts[FINDING_MAX_FACTS];
	size_t n_facts;
	int figure; /* index into findings.figures; -1 none */
	int jvm;    /* index into findings.jvms: the JVM it is about */
};

enum finding_figure_kind {
	FIG_RATE, /* allocation rate over time; peaks marked */
	FIG_LIVE, /* live set of leak suspects over time */
	FIG_HEAP, /* heap used after GC over time */
	FIG_MAP,  /* a code heap's granule map */
};

struct finding_series {
	char *name;
	double *y; /* [n_points] */
};

struct finding_figure {
	enum finding_figure_kind kind;
	char *title;
	const char *unit; /* of y: "bytes/s", "bytes", "samples" */
	size_t n_points;
	/* [n_points]; FIG_RATE: the start of the time each point's rate
	 * is over (where a recording starts inside a bucket, there) */
	int64_t *t_ns;
	/* FIG_RATE: [n_points] the nanoseconds each rate is over, the
	 * time its bucket covers (query_bucket.covered_ns); else NULL */
	int64_t *covered_ns;
	struct finding_series *series;
	size_t n_series;
	size_t *peaks; /* FIG_RATE: indexes of peak points */
	size_t n_peaks;
	/* FIG_MAP: one character per cell as the reports print them
	 * (' ' empty, '0'-'9' tenths, '*' full), and the fill 0..1 (-1
	 * nothing there) */
	char *cells;
	double *fill;
	size_t n_cells;
	uint64_t cell_bytes; /* bytes a cell covers */
};

/* The most recordings a finding's command lists in --recording (the
 * CLI's limit); a JVM of more gets a command without it. */
#define FINDINGS_MAX_RECS 64

/* Every finding of a store, most severe first, and the pictures they
 * point at, and the JVMs they are about.  Owned: findings_release()
 * frees it all. */
struct findings {
	struct finding *findings;
	size_t n_findings;
	struct finding_figure *figures;
	size_t n_figures;
	struct query_jvm *jvms; /* every JVM of the store */
	size_t n_jvms;
};

/*
 * Run every rule of finding_rule_table[] on each JVM of store s alone
 * (query_jvms(); those the filters leave a recording of), under filters
 * (the user's; a drill-down key is not honoured), and sort what they
 * find into one ranking; each finding names its JVM (finding.jvm), and
 * where the store holds several, its command selects the JVM's
 * recordings (--recording=N,N..) unless filters chose one.
 * store_arg and filter_args are pasted into each finding's command:
 * the store as a shell word, and the filters as options (" --from=.."
 * with a leading space; "" none).  <0 with e set when the store is
 * damaged; *out is then empty.
 */
int query_findings(struct store *s, const struct query_options *filters,
		   const char *store_arg, const char *filter_args,
		   struct findings *out, struct err *e);
void findings_release(struct findings *fs);

/* The JVM finding f of fs is about, in words, raw (each front end
 * cleans it): "pid 4767, recording 0 (SOURCE)", "pid 4767, recordings
 * 0,1,2 (SOURCE and 2 more)", "JVM of recording 0 (SOURCE)", appended
 * to out; false, nothing added,
 * where f names none. */
bool findings_jvm_text(struct buf *out, const struct findings *fs,
		       const struct finding *f);

struct findings_ctx;

/* One rule: a row of finding_rule_table[] and its function. */
struct finding_rule {
	const char *name;
	const char *reads; /* what it reads */
	const char *fires; /* when it fires */
	const char *severity;
	const char *text; /* what a finding of it means */
	int (*fn)(struct findings_ctx *c, const struct finding_rule *rule,
		  struct err *e);
};

extern const struct finding_rule finding_rule_table[];

/* A shell word: 'quoted' when it needs to be (for the commands). */
void findings_shell_word(struct buf *out, const char *s);
/* A regex that matches s literally (PCRE2). */
void findings_regex_literal(struct buf *out, const char *s);

#endif
