/*
 * heapsift diff's inside: cmd_diff.c (the command: its options, the two
 * sides, text and CSV) and cmd_diff_gate.c (the gate a build fails on,
 * --fail-if, and the formats a CI system reads: JUnit XML and a
 * Markdown summary).  Private to src/cli.
 */
#ifndef HS_CMD_DIFF_INT_H
#define HS_CMD_DIFF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli_view.h"
#include "query/diff.h"
#include "util/buf.h"

enum diff_view { DV_TOP, DV_TREE, DV_INVERTED, DV_SURVIVORS, DV_CODEHEAP };
enum diff_format { DF_TEXT, DF_CSV, DF_JUNIT, DF_MARKDOWN };

/* The limit's unit as --fail-if gave it. */
enum gate_unit {
	GU_NONE,  /* no absolute limit */
	GU_PLAIN, /* a bare number: the table's unit, whatever it is */
	GU_BYTES, /* bytes (B, kB, MB, ...) */
	GU_RATE,  /* bytes per second (MB/s) */
};

struct diff_cli {
	enum diff_view view;
	enum query_group by;
	bool by_given, total, format_given;
	enum diff_format format;
	double alpha;
	uint64_t limit, depth;
	bool have_limit, have_depth;
	int64_t base_recording, base_snapshot, snapshot;
	const char *base_from, *base_to;
	struct view_filters f;
	/* the gate: --fail-if (gate_text as given), --fail-scope=total,
	 * --fail-match; --summary's file */
	bool gate, gate_total, scope_given;
	struct diff_gate g;
	enum gate_unit unit;
	const char *gate_text, *match, *summary;
	int n_operands; /* 1 or 2: BASE [NEW] */
	char **operands;
};

/* What the gate made of one table: mark[i] for t->rows[i] (GATE_*), and
 * the total's; checked and crossed count the marks. */
enum { GATE_UNCHECKED, GATE_PASSED, GATE_CROSSED };
struct gate_result {
	unsigned char *mark; /* malloc'ed, one per row; NULL without a gate */
	unsigned char total; /* the total row's mark */
	size_t checked, crossed;
};

/* Option values, into o: 0, or EXIT_USAGE after a message. */
int diff_fail_if_option(struct diff_cli *o, const char *arg);
int diff_fail_scope_option(struct diff_cli *o, const char *arg);
int diff_format_option(struct diff_cli *o, const char *arg);
/* The i-th word of --format and --fail-scope (their parsers' tables),
 * NULL past the last: heapsift completion's. */
const char *diff_format_word(size_t i);
const char *diff_fail_scope_word(size_t i);
/* The options' agreement, once all are read: 0 or EXIT_USAGE. */
int diff_gate_check_options(const struct diff_cli *o);

/*
 * The gate on table t: which rows it checks and which crossed it.  A
 * unit the table does not have (a rate on absolute values, bytes on a
 * table of samples), a total on shares, or a --fail-match that does not
 * compile is an ERR_USAGE error in e.  Without --fail-if, *r is empty.
 */
int diff_gate_run(const struct diff_cli *o, const struct diff_table *t,
		  struct gate_result *r, struct err *e);
void diff_gate_result_release(struct gate_result *r);

/* Shared with the gate's writers: an amount as the text prints it
 * ("+1.23 MB/s"; counts where t counts samples), a ratio ("2.00x",
 * "new", "gone"), a verdict, a q-value. */
const char *diff_amount(const struct diff_table *t, double v, bool sign,
			char *out, size_t size);
const char *diff_ratio_text(const struct diff_row *r, char *out, size_t size);
const char *diff_verdict_text(int change);
const char *diff_q_text(double q, char *out, size_t size);

/* The gate's lines after the text's table, its JUnit XML, its Markdown
 * summary: appended to b.  what names the view ("allocations by site"),
 * keyname the rows' key, names the sides. */
void diff_gate_text(const struct diff_cli *o, const struct diff_table *t,
		    const struct gate_result *r, const char *keyname,
		    struct buf *b);
void diff_junit(const struct diff_cli *o, const struct diff_table *t,
		const struct gate_result *r, const char *what,
		const char *keyname, const char *names[2], struct buf *b);
void diff_markdown(const struct diff_cli *o, const struct diff_table *t,
		   const struct gate_result *r, const char *what,
		   const char *keyname, const char *names[2], struct buf *b);

/* The gate's crossed rows on standard error, for a CI log whatever
 * the format (at most 10, then how many more). */
void diff_gate_stderr(const struct diff_cli *o, const struct diff_table *t,
		      const struct gate_result *r, const char *keyname);

#endif
