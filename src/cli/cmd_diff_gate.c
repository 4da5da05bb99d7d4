/*
 * heapsift diff's gate (--fail-if) and the formats a CI system reads.
 *
 * A build fails on a row that changed beyond noise in the direction
 * asked and moved past every limit given (diff_gate_crosses(), the
 * query layer's: the test and its adjustment are the diff's own, so
 * the gate never calls noise a regression more often than --alpha
 * says).  The checked rows are the table's (--by, a tree's nodes but
 * the root, survivors), or those whose key --fail-match matches, or
 * the total alone (--fail-scope=total).  The exit status 4 (EXIT_GATE)
 * says a row crossed; every format says which.
 *
 * JUnit XML: one test case per checked row, a failure for each that
 * crossed, as Ant's and Maven Surefire's reports have it (testsuites >
 * testsuite > testcase > failure), which every CI system reads.  The
 * Markdown summary is for a pull request: the verdict, the rows that
 * crossed, the other changes beyond noise, and the rows one side lacks,
 * removed ones as well as new ones.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd_diff_int.h"
#include "report/report.h"
#include "util/err.h"
#include "util/human.h"
#include "util/rx.h"
#include "util/term.h"
#include "util/xalloc.h"

/* --- options ------------------------------------------------------------------ */

/* One LIMIT of --fail-if: "5%", "10MB/s", "10MB", "2MiB", "1000". */
static int limit_parse(struct diff_cli *o, const char *s, size_t len)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{"B", 1},
		{"kB", 1e3},
		{"KB", 1e3},
		{"MB", 1e6},
		{"GB", 1e9},
		{"TB", 1e12},
		{"KiB", 1024.0},
		{"MiB", 1048576.0},
		{"GiB", 1073741824.0},
		{"TiB", 1099511627776.0},
	};
	char buf[64], *end;
	double v, mult = 1;
	size_t k, ulen;
	bool rate = false;

	if (len == 0 || len >= sizeof(buf))
		goto bad;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf || !isfinite(v) || v < 0 || buf[0] == '-' ||
	    buf[0] == '+')
		goto bad;
	if (!strcmp(end, "%")) {
		if (!isnan(o->g.rel))
			goto twice;
		o->g.rel = v / 100;
		return 0;
	}
	ulen = strlen(end);
	if (ulen >= 2 && !strcmp(end + ulen - 2, "/s")) {
		rate = true;
		end[ulen - 2] = 0;
	}
	if (*end) {
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
			if (!strcmp(end, units[k].name))
				break;
		if (k == sizeof(units) / sizeof(units[0]))
			goto bad;
		mult = units[k].mult;
	}
	if (!isnan(o->g.abs))
		goto twice;
	o->g.abs = v * mult;
	o->unit = rate ? GU_RATE : *end ? GU_BYTES : GU_PLAIN;
	return 0;
bad:
	return cli_usage_error("diff",
			       "--fail-if: '%.*s' is not a limit: give a "
			       "share of the base (5%%), bytes per second "
			       "(10MB/s), bytes (10MB, with --total) or a "
			       "number in the table's unit",
			       (int)len, s);
twice:
	return cli_usage_error("diff",
			       "--fail-if: '%.*s': one relative limit (N%%) "
			       "and one absolute limit at most",
			       (int)len, s);
}

int diff_fail_if_option(struct diff_cli *o, const char *arg)
{
	const char *p = strchr(arg, ':');
	size_t wlen = p ? (size_t)(p - arg) : strlen(arg);

	o->gate = true;
	o->gate_text = arg;
	o->g.rel = o->g.abs = NAN;
	o->unit = GU_NONE;
	if (wlen == 4 && !strncmp(arg, "grew", 4))
		o->g.dir = 1;
	else if (wlen == 6 && !strncmp(arg, "shrank", 6))
		o->g.dir = -1;
	else if (wlen == 7 && !strncmp(arg, "changed", 7))
		o->g.dir = 0;
	else
		return cli_usage_error("diff",
				       "--fail-if: '%s': give grew, shrank or "
				       "changed, then limits after ':' "
				       "(grew:5%%, grew:5%%:10MB/s)",
				       arg);
	while (p) {
		const char *q = strchr(p + 1, ':');
		size_t len = q ? (size_t)(q - p - 1) : strlen(p + 1);

		if (limit_parse(o, p + 1, len))
			return EXIT_USAGE;
		p = q;
	}
	return 0;
}

/* --fail-scope's words, in the order gate_total false, true */
static const char *const scope_names[] = {"rows", "total"};

const char *diff_fail_scope_word(size_t i)
{
	return i < 2 ? scope_names[i] : NULL;
}

int diff_fail_scope_option(struct diff_cli *o, const char *arg)
{
	o->scope_given = true;
	if (!strcmp(arg, scope_names[0]))
		o->gate_total = false;
	else if (!strcmp(arg, scope_names[1]))
		o->gate_total = true;
	else
		return cli_usage_error(
			"diff", "--fail-scope: '%s': give rows or total", arg);
	return 0;
}

/* --format's words, in enum diff_format's order */
static const char *const format_names[] = {"text", "csv", "junit", "markdown"};
#define N_FORMATS (sizeof(format_names) / sizeof(format_names[0]))

const char *diff_format_word(size_t i)
{
	return i < N_FORMATS ? format_names[i] : NULL;
}

int diff_format_option(struct diff_cli *o, const char *arg)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (!strcmp(arg, format_names[i])) {
			if (o->format_given && o->format != (enum diff_format)i)
				return cli_usage_error(
					"diff", "give one format (--csv is "
						"--format=csv)");
			o->format = (enum diff_format)i;
			o->format_given = true;
			return 0;
		}
	return cli_usage_error("diff",
			       "--format: '%s': give text, csv, junit or "
			       "markdown",
			       arg);
}

int diff_gate_check_options(const struct diff_cli *o)
{
	if (!o->gate && (o->scope_given || o->match))
		return cli_usage_error("diff", "--fail-scope and --fail-match "
					       "say what --fail-if checks: "
					       "give --fail-if");
	if (!o->gate && o->format == DF_JUNIT)
		return cli_usage_error("diff", "--format=junit writes the "
					       "gate's checks: give --fail-if");
	if (o->view == DV_CODEHEAP &&
	    (o->gate || o->summary || o->format >= DF_JUNIT))
		return cli_usage_error("diff",
				       "--codeheap compares snapshots, which "
				       "have no test: no --fail-if, "
				       "--format=junit|markdown or --summary");
	if (o->gate_total && o->match)
		return cli_usage_error("diff", "--fail-match picks rows: not "
					       "with --fail-scope=total");
	return 0;
}

/* --- the gate ------------------------------------------------------------------ */

static int unit_check(const struct diff_cli *o, const struct diff_table *t,
		      struct err *e)
{
	if (o->unit == GU_RATE && !t->per_second)
		return err_set(e, ERR_USAGE,
			       "--fail-if: %s is per second, but the values "
			       "are %s: give the limit %s",
			       o->gate_text,
			       t->by_samples ? "live samples"
			       : t->test == DIFF_TEST_EQUAL
				       ? "live bytes (a stock)"
				       : "absolute (--total)",
			       t->by_samples ? "as a number of samples"
					     : "in bytes (10MB)");
	if (o->unit == GU_BYTES && t->per_second)
		return err_set(e, ERR_USAGE,
			       "--fail-if: %s is in bytes, but the values are "
			       "per second: give a rate (10MB/s) or --total",
			       o->gate_text);
	if (o->unit == GU_BYTES && t->by_samples)
		return err_set(e, ERR_USAGE,
			       "--fail-if: %s is in bytes, but the values are "
			       "live samples (the kind has no sizes here): "
			       "give a number of samples",
			       o->gate_text);
	if (o->gate_total && t->test == DIFF_TEST_SHARE)
		return err_set(e, ERR_USAGE,
			       "--fail-scope=total: %s is a reservoir, whose "
			       "total is its size, not what was allocated: "
			       "check rows",
			       sample_kind_name(t->kind));
	return 0;
}

int diff_gate_run(const struct diff_cli *o, const struct diff_table *t,
		  struct gate_result *r, struct err *e)
{
	bool tree = o->view == DV_TREE || o->view == DV_INVERTED;
	struct rx_user *re = NULL;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!o->gate)
		return 0;
	if (unit_check(o, t, e) < 0)
		return -1;
	if (o->match && !(re = rx_user_new(o->match, e)))
		return -1;
	r->mark = xcalloc(t->n_rows ? t->n_rows : 1, 1);
	if (o->gate_total) {
		r->checked = 1;
		r->total = diff_gate_crosses(&o->g, &t->total) ? GATE_CROSSED
							       : GATE_PASSED;
		r->crossed = r->total == GATE_CROSSED;
		return 0;
	}
	for (i = 0; i < t->n_rows; i++) {
		const struct diff_row *x = &t->rows[i];

		/* a tree's root is the total: --fail-scope=total */
		if (tree && x->parent == UINT32_MAX)
			continue;
		if (re && !rx_user_match(re, x->key))
			continue;
		r->checked++;
		r->mark[i] = diff_gate_crosses(&o->g, x) ? GATE_CROSSED
							 : GATE_PASSED;
		r->crossed += r->mark[i] == GATE_CROSSED;
	}
	rx_user_free(re);
	return 0;
}

void diff_gate_result_release(struct gate_result *r)
{
	free(r->mark);
	r->mark = NULL;
}

/* A row's change in words: "grew +1.23 MB/s (2.00x), q 1e-12". */
static void change_words(const struct diff_table *t, const struct diff_row *x,
			 struct buf *b)
{
	char d[48], w[16], q[16];

	buf_addf(b, "%s %s (%s), q %s",
		 x->change ? diff_verdict_text(x->change) : "changed",
		 diff_amount(t, x->delta, true, d, sizeof(d)),
		 diff_ratio_text(x, w, sizeof(w)),
		 diff_q_text(x->q, q, sizeof(q)));
}

/* The rows that crossed, in the table's order: at most max (0: all);
 * returns how many crossed in all. */
static size_t crossed_rows(const struct diff_table *t,
			   const struct gate_result *r,
			   const struct diff_row **out, size_t max)
{
	size_t i, n = 0;

	if (r->total == GATE_CROSSED) {
		if (max)
			out[0] = &t->total;
		return 1;
	}
	for (i = 0; i < t->n_rows; i++)
		if (r->mark[i] == GATE_CROSSED) {
			if (n < max)
				out[n] = &t->rows[i];
			n++;
		}
	return n;
}

static const char *scope_words(const struct diff_cli *o, const char *keyname)
{
	static char s[96];

	if (o->gate_total)
		return "the total";
	snprintf(s, sizeof(s), "each %s%s", keyname,
		 o->match ? " matching --fail-match" : "");
	return s;
}

void diff_gate_text(const struct diff_cli *o, const struct diff_table *t,
		    const struct gate_result *r, const char *keyname,
		    struct buf *b)
{
	const struct diff_row *rows[10];
	size_t n, i;

	if (!o->gate)
		return;
	buf_adds(b, "\ngate --fail-if=");
	buf_add_printable(b, o->gate_text, strlen(o->gate_text));
	buf_addf(b, " on %s: ", scope_words(o, keyname));
	if (!r->crossed) {
		buf_addf(b, "passed: none of %zu checked crossed it\n",
			 r->checked);
		if (o->gate_total) {
			buf_adds(b, "  total: ");
			change_words(t, &t->total, b);
			buf_addch(b, '\n');
		}
		return;
	}
	buf_addf(b, "FAILED: %zu of %zu checked crossed it (exit status 4)\n",
		 r->crossed, r->checked);
	n = crossed_rows(t, r, rows, 10);
	for (i = 0; i < n && i < 10; i++) {
		buf_adds(b, "  ");
		buf_add_printable(b, rows[i]->key, strlen(rows[i]->key));
		buf_adds(b, ": ");
		change_words(t, rows[i], b);
		buf_addch(b, '\n');
	}
	if (n > 10)
		buf_addf(b, "  (%zu more)\n", n - 10);
}

void diff_gate_stderr(const struct diff_cli *o, const struct diff_table *t,
		      const struct gate_result *r, const char *keyname)
{
	struct buf b = BUF_INIT;
	const struct diff_row *rows[10];
	size_t n, i;

	if (!o->gate || !r->crossed)
		return;
	n = crossed_rows(t, r, rows, 10);
	for (i = 0; i < n && i < 10; i++) {
		buf_reset(&b);
		change_words(t, rows[i], &b);
		/* "site X: grew ...", or "total: grew ..." */
		term_fprintf(stderr,
			     "heapsift diff: --fail-if=%s: %s%s%s: %s\n",
			     o->gate_text, o->gate_total ? "" : keyname,
			     o->gate_total ? "" : " ", rows[i]->key, b.data);
	}
	if (n > 10)
		term_fprintf(stderr, "heapsift diff: --fail-if=%s: %zu more\n",
			     o->gate_text, n - 10);
	buf_release(&b);
}

/* --- JUnit XML ------------------------------------------------------------------ */

/* s as XML text: printable first (no control character may reach XML
 * 1.0), then the five entities. */
static void xml_text(struct buf *b, const char *s)
{
	struct buf p = BUF_INIT;

	buf_add_printable(&p, s, strlen(s));
	buf_add_xml(b, p.data ? p.data : "", p.len);
	buf_release(&p);
}

static void junit_property(struct buf *b, const char *name, const char *v)
{
	buf_addf(b, "      <property name=\"%s\" value=\"", name);
	xml_text(b, v);
	buf_adds(b, "\"/>\n");
}

static void junit_case(const struct diff_cli *o, const struct diff_table *t,
		       const struct diff_row *x, bool crossed,
		       const char *keyname, struct buf *b)
{
	char v0[48], v1[48], d[48], w[16], q[16];
	struct buf m = BUF_INIT;

	buf_adds(b, "    <testcase name=\"");
	xml_text(b, x->key);
	buf_addf(b, "\" classname=\"heapsift.diff.%s\" time=\"0\">\n", keyname);
	if (crossed) {
		change_words(t, x, &m);
		buf_addf(&m, ": past --fail-if=%s", o->gate_text);
		buf_adds(b, "      <failure type=\"heapsift.AllocationGate\" "
			    "message=\"");
		xml_text(b, m.data);
		buf_adds(b, "\"/>\n");
	}
	buf_reset(&m);
	buf_addf(&m,
		 "base %s, new %s, change %s (%s), samples %llu and %llu, "
		 "q %s%s%s",
		 diff_amount(t, x->value[0], false, v0, sizeof(v0)),
		 diff_amount(t, x->value[1], false, v1, sizeof(v1)),
		 diff_amount(t, x->delta, true, d, sizeof(d)),
		 diff_ratio_text(x, w, sizeof(w)),
		 (unsigned long long)x->samples[0],
		 (unsigned long long)x->samples[1],
		 diff_q_text(x->q, q, sizeof(q)), x->change ? ", " : "",
		 diff_verdict_text(x->change));
	buf_adds(b, "      <system-out>");
	xml_text(b, m.data);
	buf_adds(b, "</system-out>\n    </testcase>\n");
	buf_release(&m);
}

void diff_junit(const struct diff_cli *o, const struct diff_table *t,
		const struct gate_result *r, const char *what,
		const char *keyname, const char *names[2], struct buf *b)
{
	char stamp[32], host[256], alpha[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "localhost");
	host[sizeof(host) - 1] = 0;
	snprintf(alpha, sizeof(alpha), "%g", t->alpha);
	buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_addf(b,
		 "<testsuites name=\"heapsift diff\" tests=\"%zu\" "
		 "failures=\"%zu\" errors=\"0\" time=\"0\">\n",
		 r->checked, r->crossed);
	buf_adds(b, "  <testsuite name=\"");
	xml_text(b, what);
	buf_adds(b, ": --fail-if=");
	xml_text(b, o->gate_text);
	buf_addf(b,
		 "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		 "skipped=\"0\" time=\"0\" timestamp=\"%s\" hostname=\"",
		 r->checked, r->crossed, stamp);
	xml_text(b, host);
	buf_adds(b,
		 "\" id=\"0\" package=\"heapsift.diff\">\n    <properties>\n");
	junit_property(b, "base", names[0]);
	junit_property(b, "new", names[1]);
	junit_property(b, "kind", sample_kind_name(t->kind));
	junit_property(b, "values",
		       t->by_samples		    ? "live samples"
		       : t->test == DIFF_TEST_EQUAL ? "live bytes"
		       : t->per_second		    ? "bytes per second"
						    : "bytes");
	junit_property(b, "test", diff_test_text(t->test));
	junit_property(b, "alpha", alpha);
	if (t->estimate_note)
		junit_property(b, "estimate", t->estimate_note);
	buf_adds(b, "    </properties>\n");
	if (o->gate_total)
		junit_case(o, t, &t->total, r->total == GATE_CROSSED, keyname,
			   b);
	for (i = 0; !o->gate_total && i < t->n_rows; i++)
		if (r->mark[i])
			junit_case(o, t, &t->rows[i],
				   r->mark[i] == GATE_CROSSED, keyname, b);
	buf_adds(b, "    <system-out/>\n    <system-err/>\n"
		    "  </testsuite>\n</testsuites>\n");
}

/* --- the Markdown summary --------------------------------------------------------- */

static void md_row(const struct diff_table *t, const struct diff_row *x,
		   struct buf *b)
{
	char v0[48], v1[48], d[48], w[16], q[16];

	buf_adds(b, "| ");
	report_md_text(b, x->key, REPORT_MD_CELL);
	buf_addf(b, " | %s | %s | %s | %s | %s | %s |\n",
		 diff_amount(t, x->value[0], false, v0, sizeof(v0)),
		 diff_amount(t, x->value[1], false, v1, sizeof(v1)),
		 diff_amount(t, x->delta, true, d, sizeof(d)),
		 diff_ratio_text(x, w, sizeof(w)),
		 diff_q_text(x->q, q, sizeof(q)), diff_verdict_text(x->change));
}

static void md_table_head(const char *keyname, struct buf *b)
{
	buf_addf(b,
		 "\n| %s | base | new | change | ratio | q | |\n"
		 "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n",
		 keyname);
}

/* Up to max rows (0: all) that pick() takes, under a bold title, with how many
 * more; nothing when none is taken. */
static void md_section(const struct diff_table *t, const struct gate_result *r,
		       const char *title, const char *keyname,
		       bool (*pick)(const struct diff_row *x,
				    unsigned char mark),
		       size_t max, struct buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < t->n_rows; i++)
		if (pick(&t->rows[i], r->mark ? r->mark[i] : 0))
			n++;
	if (!n)
		return;
	buf_addf(b, "\n**%s** (%zu):\n", title, n);
	md_table_head(keyname, b);
	if (!max)
		max = n;
	for (i = 0, n = 0; i < t->n_rows; i++)
		if (pick(&t->rows[i], r->mark ? r->mark[i] : 0) && n++ < max)
			md_row(t, &t->rows[i], b);
	if (n > max)
		buf_addf(b, "\n%zu more: `heapsift diff` with `--limit=0`.\n",
			 n - max);
}

static bool pick_crossed(const struct diff_row *x, unsigned char mark)
{
	(void)x;
	return mark == GATE_CROSSED;
}

static bool pick_changed(const struct diff_row *x, unsigned char mark)
{
	return x->change && mark != GATE_CROSSED;
}

static bool pick_removed(const struct diff_row *x, unsigned char mark)
{
	(void)mark;
	return x->samples[0] && !x->samples[1];
}

static bool pick_added(const struct diff_row *x, unsigned char mark)
{
	(void)mark;
	return !x->samples[0] && x->samples[1];
}

void diff_markdown(const struct diff_cli *o, const struct diff_table *t,
		   const struct gate_result *r, const char *what,
		   const char *keyname, const char *names[2], struct buf *b)
{
	char v[48];
	int s;

	buf_adds(b, "### heapsift diff: ");
	if (o->gate)
		buf_adds(b, r->crossed ? "the allocation gate FAILED"
				       : "the allocation gate passed");
	else
		report_md_text(b, what, REPORT_MD_HEADING);
	buf_adds(b, "\n\n");
	if (o->gate) {
		buf_adds(b, "`--fail-if=");
		report_clean_command(b, o->gate_text);
		buf_addf(b, "` on %s (%s): %zu of %zu checked crossed it.\n",
			 scope_words(o, keyname), what, r->crossed, r->checked);
		if (o->gate_total) {
			md_table_head("total", b);
			md_row(t, &t->total, b);
		}
		md_section(t, r, "Crossed the gate", keyname, pick_crossed, 0,
			   b);
	}
	md_section(t, r,
		   o->gate ? "Other changes beyond noise"
			   : "Changed beyond noise",
		   keyname, pick_changed, 10, b);
	md_section(t, r, "Removed: in the base only", keyname, pick_removed, 10,
		   b);
	md_section(t, r, "New: in the new side only", keyname, pick_added, 10,
		   b);
	buf_adds(b, "\n");
	for (s = 0; s < 2; s++) {
		buf_adds(b, s ? "; new: " : "Base: ");
		report_md_text(b, names[s], s ? 0 : REPORT_MD_BLOCK);
		buf_addf(b, " (%.3f s, %llu samples, %s)", t->seconds[s],
			 (unsigned long long)t->samples[s],
			 diff_amount(t, t->value[s], false, v, sizeof(v)));
	}
	buf_addf(b, ".  %s of %s.  Test: ",
		 t->per_second ? "Per second" : "Absolute",
		 sample_kind_name(t->kind));
	report_md_text(b, diff_test_text(t->test), 0);
	buf_addf(b, "; Benjamini-Hochberg at %g.\n", t->alpha);
}
