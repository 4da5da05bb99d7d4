/*
 * The triage report (heapsift report, docs/report.md): a model built
 * from a store through the query layer, and renderers that print it as
 * text, Markdown, JSON or one self-contained HTML page.
 *
 * The model holds every name from the inputs raw, as the files spelled
 * it: each renderer escapes for its target (report_clean() first, so
 * that invalid UTF-8 and control characters never reach any of them).
 * Findings come from the query layer (query_findings(), the rules of
 * src/findings/rules.c), the same that the browser's Findings view lists.
 * Nothing here reads the store below query.h and findings/findings.h.
 */
#ifndef HS_REPORT_H
#define HS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record/record.h"
#include "findings/findings.h"
#include "query/query.h"
#include "util/flame.h"

struct store;
struct buf;

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

/* A row of the comparison with the baseline: a site that changed
 * beyond noise (diff_top() by site, docs/diff.md). */
struct report_cmp_row {
	char *site;
	uint64_t samples[2]; /* base, new */
	double value[2];     /* est bytes per second (or in all, !per_second) */
	double delta;
	double ratio; /* INFINITY: nothing in the base */
	double p, q;
	int change; /* +1 grew, -1 shrank */
};

/* "Compared with the baseline" (report --base): what the samples of the
 * new side tell from those of the base, by site. */
struct report_compare {
	char *base, *new_side; /* each side as the options that pick it */
	char *kind;
	bool per_second;
	/* the test (docs/diff.md): "weights" (a z-test on the estimate,
	 * jdk.ObjectAllocationSample), "rates" or "shares" (the exact
	 * binomial on the samples, exposure seconds or samples); static */
	const char *test;
	/* jdk.ObjectAllocationSample: the estimate both sides give, "jfr"
	 * or "corrected" (static); NULL for other kinds */
	const char *estimate;
	double alpha;
	double seconds[2];
	uint64_t samples[2];
	double value[2];
	size_t n_compared, n_changed;
	struct report_cmp_row *rows; /* the changed ones, diff_top()'s order */
	char *sentence;		     /* the normalization and the count */
	char *command;		     /* heapsift diff that lists every row */
	char *error;		     /* why there is no comparison; NULL */
};

struct report {
	char *title;	  /* the inputs, as given */
	char *store_path; /* the store the findings come from */
	/* why there is no store though inputs were read: the cache store
	 * could not be written (a full disk); NULL otherwise */
	char *store_error;
	bool from_store; /* a store was given: no member listing */
	char *version;
	struct report_member *members;
	size_t n_members;
	char **problems; /* input-level problems (cannot open, limits) */
	size_t n_problems;
	struct findings found;	  /* sorted: most severe first */
	struct flame_node *flame; /* query_flame()'s */
	size_t n_flame;
	char *flame_kind; /* the sample kind the flame graph shows */
	/* the JVMs whose samples it adds together (those the filters
	 * leave): more than one is a fleet picture, and says so */
	size_t flame_jvms;
	struct report_recording *recs;
	size_t n_recs;
	char *filters;		    /* the filters given, as options; "" none */
	struct report_compare *cmp; /* NULL: no baseline given */
};

/* What the report is made from: the store, its query options (the
 * filters the user gave), and the report it fills. */
struct report_ctx {
	struct store *s;
	const struct query_options *filters;
	/* what the commands it prints read, shell-quoted: the inputs as
	 * given (each command imports them into the same cache store, or
	 * reuses it), or the store when a store was given */
	const char *store_arg;
	/* the same for heapsift diff, which takes one operand a side: the
	 * store where several inputs were given */
	const char *diff_arg;
	const char *filter_args; /* the filters, shell-quoted; "" none */
	/* the baseline (report --base): each side's query options and
	 * names, and the diff options that select them; NULL: none */
	const struct query_options *base, *base_new;
	const char *base_name, *new_name, *base_args;
	struct report *r;
};

/* The findings (query_findings()), the comparison with the baseline
 * when one is given, the flame graph and the appendix.
 * <0 with e set when the store is damaged. */
int report_build(struct report_ctx *c, struct err *e);
void report_release(struct report *r);

/* Text from a file made safe: valid UTF-8, no control characters (C0,
 * DEL, C1), each bad byte as \xNN and a backslash as \\. */
void report_clean(struct buf *out, const char *s);
/* The same for a command line, whose backslashes are the regexes' own
 * and must be pasted as they are. */
void report_clean_command(struct buf *out, const char *s);
/* A value of the comparison: "+1.92 MB/s" (sign: + for growth), and
 * a ratio: "2.00x", "new" where the base had nothing. */
const char *report_cmp_value(const struct report_compare *x, double v,
			     bool sign, char *out, size_t size);
const char *report_cmp_ratio(double ratio, char *out, size_t size);
/* The verdict's word: grew, shrank or "". */
const char *report_cmp_change(int change);
/* The JVM finding f is about (its findings.jvms entry); NULL where it
 * names none. */
const struct query_jvm *report_jvm_of(const struct report *r,
				      const struct finding *f);
/* The JVM of f in words, raw (each renderer cleans it): "pid 4767,
 * recording 0 (SOURCE)", "pid 4767, recordings 0,1,2 (SOURCE and 2
 * more)"; "" where f names none. */
void report_jvm_text(struct buf *out, const struct report *r,
		     const struct finding *f);
/*
 * The mark of a report heapsift wrote: a token no person writes by
 * accident (the random hex makes it so), in the first 512 bytes of every
 * format, each in its own way: text's first line, a comment atop the
 * Markdown and in the HTML head, a "mark" field in the JSON, always
 * before the title (whose length the inputs set).  report -o replaces an
 * existing file only when it carries the mark (cli/output.h,
 * cli_is_report()); the words "heapsift report" alone, which a person's
 * notes about a report hold too, are no mark.  Changing it makes every
 * earlier report a file -o needs --force to replace.
 */
#define REPORT_MARK	 "heapsift-report-mark-7f3c9a1e"
#define REPORT_MARK_SPAN 512

enum report_format {
	REPORT_TEXT,
	REPORT_MD,
	REPORT_HTML,
	REPORT_JSON,
};

bool report_format_parse(const char *s, enum report_format *f);
/* The i-th name report_format_parse() takes (its aliases aside), NULL
 * past the last. */
const char *report_format_word(size_t i);
/* Render r into out. */
void report_render(const struct report *r, enum report_format f,
		   struct buf *out);
void report_render_text(const struct report *r, struct buf *out);
void report_render_md(const struct report *r, struct buf *out);
void report_render_json(const struct report *r, struct buf *out);
void report_render_html(const struct report *r, struct buf *out);

/*
 * Text from a file (cleaned by report_clean() here) as Markdown that
 * reads as that text, where (REPORT_MD_*) says it goes: a backslash
 * goes before a character only where CommonMark (with GFM's tables and
 * strikethrough) would read it as markup there: always before '\\',
 * '`', '[' and ']'; '*', '_' and '~' where their run could open or
 * close emphasis (so "a_b" stays so); '<' before what could start an
 * autolink or HTML; '&' before what could read as an entity; '!' before
 * '['; '$' at a word's start (GitHub's math); '|' in a table cell; at a
 * block's start the one character that would make another block (a
 * heading's '#', '>', a bullet, "1." or "1)", a thematic break or a
 * code fence) and a leading space as "&#32;"; in a heading a closing
 * run of '#'.  Never '.', '-' or '!' inside a word (docs/report.md).
 */
#define REPORT_MD_BLOCK	  1u /* the text begins a paragraph or list item */
#define REPORT_MD_CELL	  2u /* in a pipe table's cell */
#define REPORT_MD_HEADING 4u /* ends an ATX heading's line */
void report_md_text(struct buf *out, const char *s, unsigned where);

/* The estimates, for every format's appendix. */
/* The appendix's notes on how the estimates are made, one by one: the
 * note at *i or after it that concerns r (those of other writers' kinds
 * only where r has their samples), *i moved past it; NULL at the end. */
const char *report_estimate_note(const struct report *r, size_t *i);

#endif
