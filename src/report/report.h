/*
 * The triage report (heapsift report, docs/report.md): a model built
 * from a store through the query layer, and renderers that print it as
 * text, Markdown, JSON or one self-contained HTML page.
 *
 * The model holds every name from the inputs raw, as the files spelled
 * it: each renderer escapes for its target (report_clean() first, so
 * that invalid UTF-8 and control characters never reach any of them).
 * Findings come from the rules in rules.c, one table, one row and one
 * function per rule.  Nothing here reads the store below query.h and
 * query/findings.h.
 */
#ifndef HS_REPORT_H
#define HS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "importers/sink.h"
#include "query/query.h"

struct store;
struct buf;

enum report_severity {
	REPORT_INFO = 0,
	REPORT_WARNING,
	REPORT_CRITICAL,
};

const char *report_severity_name(enum report_severity s);

/* A named number of a finding, for machines (JSON "figures"). */
struct report_fact {
	const char *name; /* static */
	double value;
	const char *unit; /* static: "bytes", "bytes/s", "%", "samples".. */
};

#define REPORT_MAX_FACTS 16

struct report_finding {
	const char *rule; /* the rule's name (static) */
	enum report_severity severity;
	double weight;	  /* order within a severity, larger first */
	bool few_samples; /* rests on too few samples: said, ranked lower */
	char *subject;	  /* what it is about (a site, a heap); may be NULL */
	char *sentence;	  /* one sentence */
	char **evidence;  /* lines */
	size_t n_evidence;
	char *command; /* the heapsift command that shows more */
	char *fix;     /* what usually fixes it; NULL */
	struct report_fact facts[REPORT_MAX_FACTS];
	size_t n_facts;
	int figure; /* index into report.figures; -1 none */
};

enum report_figure_kind {
	FIG_RATE, /* allocation rate over time; peaks marked */
	FIG_LIVE, /* live set of leak suspects over time */
	FIG_HEAP, /* heap used after GC over time */
	FIG_MAP,  /* a code heap's granule map */
};

struct report_series {
	char *name;
	double *y; /* [n_points] */
};

struct report_figure {
	enum report_figure_kind kind;
	char *title;
	const char *unit; /* of y: "bytes/s", "bytes", "samples" */
	size_t n_points;
	int64_t *t_ns; /* [n_points] */
	struct report_series *series;
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

/* A node of the flame graph (the call tree, from query_tree()). */
struct report_flame_node {
	char *label;
	uint32_t parent; /* UINT32_MAX for the root */
	uint32_t depth;
	int64_t bytes;
	uint64_t samples;
	double x; /* left edge, share of the root's bytes */
};

/* One member of the inputs, as `heapsift scan` lists it, with what
 * became of it. */
struct report_member {
	char *display;	   /* input!member */
	char *kind;	   /* jfr, agent, codeheap, javacore, unknown */
	int confidence;	   /* the probe's, 0-100 */
	uint64_t bytes;	   /* decompressed */
	char *compression; /* "" none */
	char *status; /* imported, damaged, unfinished, skipped, limit, error */
	char *reason; /* why, from the importer or the walker; "" none */
	uint32_t recordings; /* imported from it */
};

struct report_recording {
	char *source, *format, *jvm;
	int64_t start_ns, end_ns; /* INT64_MIN: not recorded */
	uint32_t n_chunks;
	uint64_t samples[SAMPLE__COUNT];
	uint64_t bytes_skipped;
	uint64_t gcs;	 /* "After GC" heap summaries */
	char *sampling;	 /* the sampling settings, one line; "" none */
	char **settings; /* "name=value" */
	size_t n_settings;
};

struct report {
	char *title;	  /* the inputs, as given */
	char *store_path; /* the store the findings come from */
	bool from_store;  /* a store was given: no member listing */
	char *version;
	struct report_member *members;
	size_t n_members;
	char **problems; /* input-level problems (cannot open, limits) */
	size_t n_problems;
	struct report_finding *findings; /* sorted: most severe first */
	size_t n_findings;
	struct report_figure *figures;
	size_t n_figures;
	struct report_flame_node *flame;
	size_t n_flame;
	char *flame_kind; /* the sample kind the flame graph shows */
	struct report_recording *recs;
	size_t n_recs;
	char *filters; /* the filters given, as options; "" none */
};

/* What the rules read: the store, its query options (the filters the
 * user gave), and the report they add findings to. */
struct report_ctx {
	struct store *s;
	const struct query_options *filters;
	const char *store_arg;	 /* the store, shell-quoted, for commands */
	const char *filter_args; /* the filters, shell-quoted; "" none */
	struct report *r;
	uint64_t kind_counts[SAMPLE__COUNT];
};

/* One rule: a row of report_rule_table[] and its function. */
struct report_rule {
	const char *name;
	const char *reads; /* what it reads */
	const char *fires; /* when it fires */
	const char *severity;
	const char *text; /* what a finding of it means */
	int (*fn)(struct report_ctx *c, const struct report_rule *rule,
		  struct err *e);
};

extern const struct report_rule report_rule_table[];

/* Run every rule, then the figures and the appendix; sort the findings.
 * <0 with e set when the store is damaged. */
int report_build(struct report_ctx *c, struct err *e);
void report_release(struct report *r);

/* A new finding of rule (zeroed, figure -1), owned by c->r. */
struct report_finding *report_add(struct report_ctx *c, const char *rule,
				  enum report_severity sev);
void report_evidence(struct report_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_fact(struct report_finding *f, const char *name, double value,
		 const char *unit);
char *report_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int report_add_figure(struct report *r, enum report_figure_kind kind,
		      const char *title, const char *unit, size_t n_points);

/* Drop the figure added last (a rule that made it and then did not
 * fire). */
void report_drop_figure(struct report *r);

/* A query of c's filters with kind (or -1: the filters' own) and,
 * when key is not NULL, a drill-down to key under by. */
int report_query(struct report_ctx *c, int kind, const char *key,
		 enum query_group by, struct query **q, struct err *e);

/* Text from a file made safe: valid UTF-8, no control characters (C0,
 * DEL, C1), each bad byte as \xNN and a backslash as \\. */
void report_clean(struct buf *out, const char *s);
/* The same for a command line, whose backslashes are the regexes' own
 * and must be pasted as they are. */
void report_clean_command(struct buf *out, const char *s);
/* A shell word: 'quoted' when it needs to be. */
void report_shell_word(struct buf *out, const char *s);
/* A regex that matches s literally (PCRE2). */
void report_regex_literal(struct buf *out, const char *s);
/* "1.23 GB", as the views print sizes (powers of 1000). */
const char *report_bytes(int64_t n, char *out, size_t size);
const char *report_duration(int64_t ns, char *out, size_t size);
/* An instant as ISO 8601 UTC, to the millisecond; "(not recorded)" for
 * INT64_MIN. */
void report_time(struct buf *out, int64_t ns);

enum report_format {
	REPORT_TEXT,
	REPORT_MD,
	REPORT_HTML,
	REPORT_JSON,
};

bool report_format_parse(const char *s, enum report_format *f);
/* Render r into out. */
void report_render(const struct report *r, enum report_format f,
		   struct buf *out);
void report_render_text(const struct report *r, struct buf *out);
void report_render_md(const struct report *r, struct buf *out);
void report_render_json(const struct report *r, struct buf *out);
void report_render_html(const struct report *r, struct buf *out);

/* The estimates, for every format's appendix. */
extern const char *const report_estimate_notes[];

#endif
