/*
 * heapsift diff: two stores (or inputs, imported into the cache store
 * browse and report use), two recordings of one store, or two time ranges,
 * compared row by row: the groupings of top, the call tree and the
 * inverted tree, survivors, code heaps.  The comparison and its test are
 * the query layer's (src/query/diff.c, docs/diff.md); this file opens the
 * two sides and prints what it answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/cli_view.h"
#include "cli/cmd_diff_int.h"
#include "query/query_codeheap.h"
#include "query/diff.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/term.h"
#include "util/xalloc.h"

static const char diff_help[] =
	"usage: heapsift diff BASE [NEW] [--by=GROUP | --tree | --inverted |\n"
	"                     --survivors | --codeheap] [--total] "
	"[--alpha=P]\n"
	"                     [--limit=N] [--depth=N] [--csv | "
	"--format=FMT]\n"
	"                     [--fail-if=WHEN[:LIMIT..]] [--fail-scope=S]\n"
	"                     [--fail-match=REGEX] [--summary=FILE]\n"
	"                     [--base-recording=N] [--base-from=TIME]\n"
	"                     [--base-to=TIME] [--base-snapshot=N]\n"
	"                     [--snapshot=N] [FILTERS]\n"
	"\n"
	"Compare a base with a new side, row by row: base, new, the\n"
	"difference, the ratio and the samples on both sides, the changes\n"
	"that the samples can tell from noise first (docs/diff.md).  BASE and\n"
	"NEW are stores, or inputs imported first into the cache store that\n"
	"heapsift browse uses.  With BASE alone the two sides are two\n"
	"recordings (--base-recording, --recording) or two time ranges\n"
	"(--base-from/--base-to, --from/--to) of it.  The FILTERS apply to\n"
	"both sides; --recording, --from and --to to the base as well unless\n"
	"a --base-* option replaces them there.\n"
	"\n"
	"      --by=GROUP          the groups of heapsift top: class "
	"(default),\n"
	"                          site, app-site, thread, recording\n"
	"      --tree              the call tree, merged by call path\n"
	"      --inverted          the inverted tree, from the allocation "
	"sites\n"
	"      --depth=N           trees: show N levels (default 6; 0: all)\n"
	"      --survivors         live bytes at the end of each side, by\n"
	"                          --by (default site), from agent samples or\n"
	"                          jdk.OldObjectSample; never per second\n"
	"      --codeheap          code heaps, heap by heap: used, free, "
	"largest\n"
	"                          free, fragmentation, blocks by type\n"
	"      --base-snapshot=N   with --codeheap: the base's snapshot "
	"(default\n"
	"                          the first)\n"
	"      --snapshot=N        with --codeheap: the new side's (default "
	"the\n"
	"                          last)\n"
	"      --total             absolute estimates; by default they are "
	"per\n"
	"                          second of recording\n"
	"      --alpha=P           the false discovery rate of the changes\n"
	"                          called beyond noise (default 0.01)\n"
	"      --limit=N           at most N rows (default 20; 0 and --csv: "
	"all)\n"
	"      --csv               RFC 4180 CSV: GROUP,base_samples,"
	"new_samples,\n"
	"                          base,new,delta,ratio,p_value,q_value,change,"
	"\n"
	"                          base_se,new_se (the z-test's standard "
	"errors)\n"
	"      --format=FMT        text (default), csv (as --csv), junit\n"
	"                          (JUnit XML: a test case per row the gate\n"
	"                          checks), markdown (a summary for a pull\n"
	"                          request)\n"
	"      --fail-if=WHEN[:LIMIT..]\n"
	"                          exit with status 4 when a row changed\n"
	"                          beyond noise (WHEN: grew, shrank or\n"
	"                          changed) and past every LIMIT: N% of\n"
	"                          the base, a rate (10MB/s), bytes (10MB,\n"
	"                          with --total) or a number in the\n"
	"                          table's unit; e.g. grew:5%:1MB/s\n"
	"      --fail-scope=S      what the gate checks: rows (default:\n"
	"                          each row of --by, each node of a tree)\n"
	"                          or total\n"
	"      --fail-match=REGEX  check only the rows whose key matches\n"
	"      --summary=FILE      also add the Markdown summary to FILE\n"
	"                          (created if missing), as a CI step\n"
	"                          summary ($GITHUB_STEP_SUMMARY) is written\n"
	"      --base-recording=N  the base is recording N\n"
	"      --base-from=TIME, --base-to=TIME\n"
	"                          the base's time window (as --from, --to)\n"
	"  -h, --help              this text\n"
	"\n" VIEW_FILTER_HELP VIEW_FRAME_HELP "\n"
	"The test: for jdk.ObjectAllocationSample, a z-test on each row's\n"
	"change in estimated bytes per second, with the variance of each\n"
	"side's weights; for the other kinds, each row's base samples, given\n"
	"its samples on both sides, against a binomial whose share is what\n"
	"the base's exposure expects (its seconds of recording; its total\n"
	"samples for jdk.OldObjectSample), exact and two-sided.\n"
	"Benjamini-Hochberg across the rows; a verdict (grew, shrank) always\n"
	"has the sign of the change beside it.  Both sides give one estimate\n"
	"of jdk.ObjectAllocationSample's bytes: the corrected one only where\n"
	"both hold OutsideTLAB events, and the header says which.\n"
	"\n"
	"Exit status: 0 done; 1 a store or input could not be read; 2 usage;\n"
	"3 done, but an input's import skipped damaged data or hit a limit;\n"
	"4 done, and a row crossed the --fail-if gate (its rows are said on\n"
	"standard error, whatever the format).\n";

/* One operand's store: itself, or its cache store (cli_store_path(),
 * whose import speaks on standard error: the diff is what standard
 * output holds); the path (malloc'ed), or NULL after a message. */
static char *operand_store(const char *in)
{
	char *inputs[1] = {(char *)in}, *path;
	int status;

	if (cli_store_path("diff", 1, inputs, &path, &status))
		return NULL;
	return path;
}

static void put_str(struct buf *b, const char *s, bool csv)
{
	if (csv) {
		buf_add_csv_name(b, s, strlen(s));
	} else {
		buf_add_printable(b, s, strlen(s));
	}
}

/* "1.23 MB", "+1.23 MB", "-" for NaN; a rate gets "/s". */
const char *diff_amount(const struct diff_table *t, double v, bool sign,
			char *out, size_t size)
{
	char x[32];
	double a = fabs(v);

	if (isnan(v)) {
		snprintf(out, size, "-");
		return out;
	}
	if (t->by_samples) { /* values are samples, not bytes */
		snprintf(out, size, sign && v > 0 ? "%+.0f" : "%.0f", v);
		return out;
	}
	human_bytes(a < 9.2e18 ? (int64_t)llround(a) : INT64_MAX, x, sizeof(x));
	snprintf(out, size, "%s%s%s",
		 v < 0		 ? "-"
		 : sign && v > 0 ? "+"
				 : "",
		 x, t->per_second ? "/s" : "");
	return out;
}

/* "2.00x"; "new" where the base has nothing, "gone" where the new side
 * has nothing: a row of one side is never a ratio of 0 or infinity. */
const char *diff_ratio_text(const struct diff_row *r, char *out, size_t size)
{
	if (isnan(r->ratio))
		snprintf(out, size, "-");
	else if (isinf(r->ratio))
		snprintf(out, size, "new");
	else if (r->value[1] == 0 && r->value[0] != 0)
		snprintf(out, size, "gone");
	else
		snprintf(out, size, "%.2fx", r->ratio);
	return out;
}

const char *diff_verdict_text(int change)
{
	return change > 0 ? "grew" : change < 0 ? "shrank" : "";
}

const char *diff_q_text(double q, char *out, size_t size)
{
	if (isnan(q))
		snprintf(out, size, "-");
	else if (q < 1e-4)
		snprintf(out, size, "%.0e", q);
	else
		snprintf(out, size, "%.4f", q);
	return out;
}

static void put_csv_num(struct buf *b, double v)
{
	if (isnan(v))
		return;
	if (isinf(v))
		buf_adds(b, v > 0 ? "inf" : "-inf");
	else if (v == floor(v) && fabs(v) < 9e15)
		buf_addf(b, "%.0f", v);
	else
		buf_addf(b, "%.6g", v);
}

static void header(struct buf *b, const struct diff_table *t, const char *what,
		   const char *names[2])
{
	char x[48];
	int s;

	buf_addf(b, "%s of %s: ", what, sample_kind_name(t->kind));
	if (t->test == DIFF_TEST_EQUAL && t->by_samples)
		buf_adds(b, "live samples at the end of each side (the kind "
			    "has no sizes here)\n");
	else if (t->test == DIFF_TEST_EQUAL)
		buf_adds(b, "estimated live bytes at the end of each side, "
			    "absolute\n");
	else if (t->per_second)
		buf_adds(b, "estimated bytes per second of recording "
			    "(--total for absolute values)\n");
	else
		buf_adds(b, "estimated bytes, absolute (not per second)\n");
	for (s = 0; s < 2; s++) {
		buf_addf(b, "%-5s ", s ? "new:" : "base:");
		put_str(b, names[s], false);
		buf_addf(b, ": %.3f s, %" PRIu64 " samples, %s\n",
			 t->seconds[s], t->samples[s],
			 diff_amount(t, t->value[s], false, x, sizeof(x)));
	}
	if (t->estimate_note)
		buf_addf(b, "%s\n", t->estimate_note);
	buf_addf(b,
		 "test: %s; Benjamini-Hochberg at %g (Q): %zu of %zu rows "
		 "changed beyond noise\n",
		 diff_test_text(t->test), t->alpha, t->n_changed, t->n_rows);
}

static void table_text(struct buf *b, const struct diff_table *t,
		       const char *keyname, bool tree, uint64_t limit,
		       uint64_t depth)
{
	size_t i, shown = 0;

	buf_addf(b, "%12s %12s %12s %7s %8s %8s %9s %-6s  %s\n", "BASE", "NEW",
		 "CHANGE", "RATIO", "N_BASE", "N_NEW", "Q", "", keyname);
	for (i = 0; i < t->n_rows; i++) {
		const struct diff_row *r = &t->rows[i];
		char x[48], y[48], z[48], w[16], q[16];

		if (tree && depth && r->depth >= depth)
			continue;
		if (limit && shown >= limit)
			break;
		shown++;
		buf_addf(b,
			 "%12s %12s %12s %7s %8" PRIu64 " %8" PRIu64
			 " %9s %-6s  ",
			 diff_amount(t, r->value[0], false, x, sizeof(x)),
			 diff_amount(t, r->value[1], false, y, sizeof(y)),
			 diff_amount(t, r->delta, true, z, sizeof(z)),
			 diff_ratio_text(r, w, sizeof(w)), r->samples[0],
			 r->samples[1], diff_q_text(r->q, q, sizeof(q)),
			 diff_verdict_text(r->change));
		if (tree)
			for (uint32_t k = 0; k < r->depth; k++)
				buf_adds(b, "  ");
		put_str(b, r->key, false);
		buf_addch(b, '\n');
	}
	if (shown < t->n_rows)
		buf_addf(b, "(%zu more rows: --limit=0 for all)\n",
			 t->n_rows - shown);
}

/* With a gate, a last column says what it made of each row: crossed,
 * passed, or empty where the row was not checked. */
static void table_csv(struct buf *b, const struct diff_table *t,
		      const char *keyname, bool tree, uint64_t depth,
		      const struct gate_result *g)
{
	static const char *const gate_word[] = {"", "passed", "crossed"};
	const char *u = t->per_second ? "_per_s" : "";
	const char *what = t->by_samples ? "live_samples" : "est_bytes";
	size_t i;

	if (tree)
		buf_adds(b, "depth,");
	buf_addf(b,
		 "%s,base_samples,new_samples,base_%s%s,new_%s%s,delta_%s%s,"
		 "ratio,p_value,q_value,change,base_se%s,new_se%s%s\r\n",
		 keyname, what, u, what, u, what, u, u, u,
		 g->mark ? ",gate" : "");
	for (i = 0; i < t->n_rows; i++) {
		const struct diff_row *r = &t->rows[i];

		if (tree && depth && r->depth >= depth)
			continue;
		if (tree)
			buf_addf(b, "%u,", r->depth);
		put_str(b, r->key, true);
		buf_addf(b, ",%" PRIu64 ",%" PRIu64 ",", r->samples[0],
			 r->samples[1]);
		put_csv_num(b, r->value[0]);
		buf_addch(b, ',');
		put_csv_num(b, r->value[1]);
		buf_addch(b, ',');
		put_csv_num(b, r->delta);
		buf_addch(b, ',');
		put_csv_num(b, r->ratio);
		buf_addch(b, ',');
		if (!isnan(r->p))
			buf_addf(b, "%.10g", r->p);
		buf_addch(b, ',');
		if (!isnan(r->q))
			buf_addf(b, "%.10g", r->q);
		buf_addf(b, ",%s,", diff_verdict_text(r->change));
		/* the z-test's standard errors: the test of what is shown,
		 * shown; empty for the binomial tests */
		put_csv_num(b, r->se[0]);
		buf_addch(b, ',');
		put_csv_num(b, r->se[1]);
		if (g->mark)
			buf_addf(b, ",%s", gate_word[g->mark[i]]);
		buf_adds(b, "\r\n");
	}
}

/* --- code heaps ------------------------------------------------------------- */

/* Is the heap in the base (in the new side) snapshot: does a row of it
 * have a value there? */
static bool find_side(const struct diff_ch_row *rows, size_t n,
		      const char *heap, bool base)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].heap == heap &&
		    (base ? rows[i].in_base : rows[i].in_new))
			return true;
	return false;
}

/* Each side's code heaps (one for both when s[1] is s[0]) and the
 * snapshot compared: --base-snapshot (default the first) and --snapshot
 * (default the last).  0, or the exit status after a message, with what
 * was opened left in q for the caller to free. */
static int codeheap_sides(const struct diff_cli *o, struct store *s[2],
			  struct chq *q[2], uint32_t snap[2])
{
	struct err e;
	int k;

	err_init(&e);
	for (k = 0; k < 2; k++) {
		if (k == 1 && s[1] == s[0]) {
			q[1] = q[0];
			break;
		}
		if (chq_open(s[k], &q[k], &e) < 0) {
			view_error("diff", &e);
			return EXIT_ERROR;
		}
	}
	for (k = 0; k < 2; k++) {
		uint32_t ns = chq_n_snapshots(q[k]);
		int64_t want = k ? o->snapshot : o->base_snapshot;

		if (!ns)
			return cli_usage_error("diff",
					       "the %s side holds no code-heap "
					       "snapshot",
					       k ? "new" : "base");
		if (want >= (int64_t)ns)
			return cli_usage_error(
				"diff",
				"--%ssnapshot %lld: the %s side "
				"holds %u snapshot%s",
				k ? "" : "base-", (long long)want,
				k ? "new" : "base", ns, ns == 1 ? "" : "s");
		snap[k] = want >= 0 ? (uint32_t)want : k ? ns - 1 : 0;
	}
	return 0;
}

static void put_ch_csv(struct buf *b, const struct diff_ch_row *r)
{
	put_str(b, r->heap, true);
	buf_addch(b, ',');
	if (r->by_type) {
		struct buf t = BUF_INIT;

		buf_addf(&t, "blocks: %s", r->fact);
		put_str(b, t.data, true);
		buf_release(&t);
	} else {
		buf_adds(b, r->fact);
	}
	buf_addch(b, ',');
	put_csv_num(b, r->value[0]);
	buf_addch(b, ',');
	put_csv_num(b, r->value[1]);
	buf_addch(b, ',');
	put_csv_num(b, r->delta);
	buf_adds(b, "\r\n");
}

/* Row i as text, under a heading where its heap starts (*last: the heap
 * of the row before). */
static void put_ch_text(struct buf *b, const struct diff_ch_row *rows, size_t n,
			size_t i, const char **last)
{
	const struct diff_ch_row *r = &rows[i];
	char f[64], x[32], y[32], z[32];
	bool frag = !strcmp(r->fact, "fragmentation") && !r->by_type;

	if (r->heap != *last) {
		buf_adds(b, "  ");
		put_str(b, r->heap, false);
		if (find_side(rows, n, r->heap, true) &&
		    !find_side(rows, n, r->heap, false))
			buf_adds(b, " (not in the new snapshot)");
		else if (!find_side(rows, n, r->heap, true))
			buf_adds(b, " (not in the base snapshot)");
		buf_addf(b, "\n    %-28s %14s %14s %14s\n", "", "BASE", "NEW",
			 "CHANGE");
		*last = r->heap;
	}
	snprintf(f, sizeof(f), "%s%s", r->by_type ? "blocks: " : "", r->fact);
	if (isnan(r->value[0]))
		snprintf(x, sizeof(x), "-");
	else
		snprintf(x, sizeof(x), frag ? "%.4f" : "%.0f", r->value[0]);
	if (isnan(r->value[1]))
		snprintf(y, sizeof(y), "-");
	else
		snprintf(y, sizeof(y), frag ? "%.4f" : "%.0f", r->value[1]);
	if (isnan(r->delta))
		snprintf(z, sizeof(z), "-");
	else
		snprintf(z, sizeof(z), frag ? "%+.4f" : "%+.0f", r->delta);
	buf_addf(b, "    %-28s %14s %14s %14s\n", f, x, y, z);
}

static int codeheap_diff(const struct diff_cli *o, struct store *s[2],
			 const char *names[2], struct buf *b)
{
	struct chq *q[2] = {NULL, NULL};
	struct diff_ch_row *rows = NULL;
	uint32_t snap[2] = {0, 0};
	size_t n, i;
	const char *last = NULL;
	struct err e;
	int k, rc;

	err_init(&e);
	rc = codeheap_sides(o, s, q, snap);
	if (rc)
		goto out;
	if (diff_codeheap(q[0], snap[0], q[1], snap[1], &rows, &n, &e) < 0) {
		rc = cli_usage_error("diff", "%s", e.msg);
		goto out;
	}
	if (o->format == DF_CSV) {
		buf_adds(b, "heap,fact,base,new,delta\r\n");
	} else {
		for (k = 0; k < 2; k++) {
			term_addf(b, "%-5s snapshot %u (%s) of ",
				  k ? "new:" : "base:", snap[k],
				  chq_str(q[k],
					  chq_snapshot(q[k], snap[k])->kind));
			put_str(b, names[k], false);
			buf_addch(b, '\n');
		}
		buf_adds(b, "code heaps are snapshots, not samples: every "
			    "difference is exact; bytes, counts, "
			    "fragmentation 0 to 1\n");
	}
	for (i = 0; i < n; i++) {
		if (o->format == DF_CSV)
			put_ch_csv(b, &rows[i]);
		else
			put_ch_text(b, rows, n, i, &last);
	}
out:
	free(rows);
	if (q[1] != q[0])
		chq_free(q[1]);
	chq_free(q[0]);
	return rc;
}

/* --- samples ---------------------------------------------------------------- */

/* One store: the sides are named by what tells them apart, its
 * recording and time range (side_names[k], malloc'ed, is names[k]). */
static void name_sides(const struct diff_cli *o, const char *names[2],
		       char *side_names[2])
{
	int k;

	for (k = 0; k < 2; k++) {
		struct buf nb = BUF_INIT;
		int64_t rec = k			       ? o->f.q.recording
			      : o->base_recording >= 0 ? o->base_recording
						       : o->f.q.recording;
		const char *fr = k || (!o->base_from && !o->base_to)
					 ? o->f.from
					 : o->base_from;
		const char *to = k || (!o->base_from && !o->base_to)
					 ? o->f.to
					 : o->base_to;

		buf_adds(&nb, names[k]);
		if (rec >= 0)
			buf_addf(&nb, " recording %lld", (long long)rec);
		if (fr || to)
			buf_addf(&nb, " %s..%s", fr ? fr : "", to ? to : "");
		side_names[k] = buf_detach(&nb, NULL);
		names[k] = side_names[k];
	}
}

/* A query's failure: a usage message for ERR_USAGE, else the error;
 * the exit status. */
static int side_failed(const struct err *e)
{
	if (e->code == ERR_USAGE)
		return cli_usage_error("diff", "%s", e->msg);
	view_error("diff", e);
	return EXIT_ERROR;
}

/*
 * Each side's query: the new side's filters as given, the base's with
 * the --base-* options in place of theirs, then one estimate on both
 * sides (a side that gives another is opened again with the one both
 * can give).  0, or the exit status after a message, with what was
 * opened left in q for the caller to free.
 */
static int open_sides(const struct diff_cli *o, struct store *s[2],
		      struct view_filters vf[2], struct query *q[2])
{
	enum query_estimate est;
	struct err e;
	int k, rc;

	err_init(&e);
	vf[0] = vf[1] = o->f;
	if (o->base_recording >= 0)
		vf[0].q.recording = o->base_recording;
	if (o->base_from || o->base_to) {
		vf[0].from = o->base_from;
		vf[0].to = o->base_to;
	}
	for (k = 0; k < 2; k++) {
		rc = view_resolve("diff", s[k], &vf[k]);
		if (rc)
			return rc;
		if (query_open(s[k], &vf[k].q, &q[k], &e) < 0)
			return side_failed(&e);
	}
	est = diff_estimate_choose(q[0], &vf[0].q, q[1], &vf[1].q,
				   o->f.q.estimate);
	for (k = 0; k < 2; k++) {
		if (query_kind(q[k]) != SAMPLE_ALLOC ||
		    query_estimate(q[k]) == est)
			continue;
		query_free(q[k]);
		q[k] = NULL;
		vf[k].q.estimate = (int)est;
		if (query_open(s[k], &vf[k].q, &q[k], &e) < 0) {
			view_error("diff", &e);
			return EXIT_ERROR;
		}
	}
	return 0;
}

/* The rows of the view o asks for (top, a tree, survivors). */
static int diff_view_table(const struct diff_cli *o, struct diff *d,
			   const struct diff_table **t, struct err *e)
{
	struct query_survivor_options so;

	switch (o->view) {
	case DV_TOP:
		return diff_top(d, o->by, t, e);
	case DV_TREE:
	case DV_INVERTED:
		return diff_tree(d, o->view == DV_INVERTED, 0, t, e);
	default:
		memset(&so, 0, sizeof(so));
		return diff_survivors(d, o->by, &so, t, e);
	}
}

/* The diff of the samples' views, into b in o's format, and the
 * Markdown summary into md where --summary asks for it: EXIT_OK, or
 * EXIT_GATE when a row crossed the gate (b is whole then too). */
static int samples_diff(const struct diff_cli *o, struct store *s[2],
			const char *names[2], struct buf *b, struct buf *md)
{
	struct query *q[2] = {NULL, NULL};
	struct view_filters vf[2];
	struct diff_options dopt;
	struct diff *d = NULL;
	const struct diff_table *t;
	struct gate_result g = {NULL, 0, 0, 0};
	bool tree = o->view == DV_TREE || o->view == DV_INVERTED;
	const char *keyname = tree ? "frame" : query_group_name(o->by);
	const char *view = o->view == DV_TREE	     ? "call tree"
			   : o->view == DV_INVERTED  ? "inverted tree"
			   : o->view == DV_SURVIVORS ? "survivors"
						     : "allocations";
	char what[64];
	struct err e;
	int k, rc;

	snprintf(what, sizeof(what), "%s%s%s", view, tree ? "" : " by ",
		 tree ? "" : keyname);
	rc = open_sides(o, s, vf, q);
	if (rc)
		goto out;
	err_init(&e);
	diff_options_init(&dopt);
	dopt.total = o->total;
	dopt.alpha = o->alpha;
	if (diff_open(q[0], &vf[0].q, q[1], &vf[1].q, &dopt, &d, &e) < 0) {
		/* a usage error, or the damage that left a side's counts
		 * unknown */
		rc = side_failed(&e);
		goto out;
	}
	if (diff_view_table(o, d, &t, &e) < 0 ||
	    diff_gate_run(o, t, &g, &e) < 0) {
		rc = side_failed(&e);
		goto out;
	}
	switch (o->format) {
	case DF_CSV:
		table_csv(b, t, keyname, tree, o->depth, &g);
		break;
	case DF_JUNIT:
		diff_junit(o, t, &g, what, keyname, names, b);
		break;
	case DF_MARKDOWN:
		diff_markdown(o, t, &g, what, keyname, names, b);
		break;
	default:
		header(b, t, view, names);
		table_text(b, t, keyname, tree, o->limit, o->depth);
		diff_gate_text(o, t, &g, keyname, b);
	}
	if (o->summary)
		diff_markdown(o, t, &g, what, keyname, names, md);
	diff_gate_stderr(o, t, &g, keyname);
	rc = g.crossed ? EXIT_GATE : EXIT_OK;
out:
	diff_gate_result_release(&g);
	diff_free(d);
	for (k = 0; k < 2; k++)
		query_free(q[k]);
	return rc;
}

/* --- main ------------------------------------------------------------------- */

static int parse_index(const char *opt, const char *arg, int64_t *out)
{
	uint64_t n;

	if (!cli_parse_count(arg, &n) || n > UINT32_MAX)
		return cli_usage_error("diff",
				       "%s: '%s' is not a whole number from 0",
				       opt, arg);
	*out = (int64_t)n;
	return 0;
}

enum {
	OPT_BY = OPT__VIEW_NEXT,
	OPT_TREE,
	OPT_INVERTED,
	OPT_SURVIVORS,
	OPT_CODEHEAP,
	OPT_DEPTH,
	OPT_TOTAL,
	OPT_ALPHA,
	OPT_LIMIT,
	OPT_CSV,
	OPT_BASE_RECORDING,
	OPT_BASE_FROM,
	OPT_BASE_TO,
	OPT_BASE_SNAPSHOT,
	OPT_SNAPSHOT,
	OPT_FORMAT,
	OPT_FAIL_IF,
	OPT_FAIL_SCOPE,
	OPT_FAIL_MATCH,
	OPT_SUMMARY,
};

const struct option diff_option_table[] = {
	{"by", required_argument, NULL, OPT_BY},
	{"tree", no_argument, NULL, OPT_TREE},
	{"inverted", no_argument, NULL, OPT_INVERTED},
	{"survivors", no_argument, NULL, OPT_SURVIVORS},
	{"codeheap", no_argument, NULL, OPT_CODEHEAP},
	{"depth", required_argument, NULL, OPT_DEPTH},
	{"total", no_argument, NULL, OPT_TOTAL},
	{"alpha", required_argument, NULL, OPT_ALPHA},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"csv", no_argument, NULL, OPT_CSV},
	{"base-recording", required_argument, NULL, OPT_BASE_RECORDING},
	{"base-from", required_argument, NULL, OPT_BASE_FROM},
	{"base-to", required_argument, NULL, OPT_BASE_TO},
	{"base-snapshot", required_argument, NULL, OPT_BASE_SNAPSHOT},
	{"snapshot", required_argument, NULL, OPT_SNAPSHOT},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"fail-if", required_argument, NULL, OPT_FAIL_IF},
	{"fail-scope", required_argument, NULL, OPT_FAIL_SCOPE},
	{"fail-match", required_argument, NULL, OPT_FAIL_MATCH},
	{"summary", required_argument, NULL, OPT_SUMMARY},
	{"help", no_argument, NULL, 'h'},
	VIEW_FILTER_OPTIONS,
	VIEW_FRAME_OPTIONS,
	{NULL, 0, NULL, 0},
};
const struct cli_option_words diff_word_table[] = {
	{"by", query_group_word},
	{"format", diff_format_word},
	{"fail-scope", diff_fail_scope_word},
	{"summary", NULL},
	VIEW_FILTER_WORDS,
	VIEW_FRAME_WORDS,
	{NULL, NULL},
};

/* One option getopt_long returned (not --help) into o: 0, or EXIT_USAGE
 * after a message. */
static int diff_option(struct diff_cli *o, int c, char **argv)
{
	char *end;

	switch (c) {
	case OPT_BY:
		o->by_given = true;
		return view_group_option("diff", optarg, &o->by);
	case OPT_TREE:
		o->view = DV_TREE;
		return 0;
	case OPT_INVERTED:
		o->view = DV_INVERTED;
		return 0;
	case OPT_SURVIVORS:
		o->view = DV_SURVIVORS;
		return 0;
	case OPT_CODEHEAP:
		o->view = DV_CODEHEAP;
		return 0;
	case OPT_DEPTH:
		o->have_depth = true;
		if (!cli_parse_count(optarg, &o->depth) ||
		    o->depth > UINT32_MAX)
			return cli_usage_error("diff",
					       "--depth: '%s' is not a whole "
					       "number from 0 (0: all)",
					       optarg);
		return 0;
	case OPT_TOTAL:
		o->total = true;
		return 0;
	case OPT_ALPHA:
		errno = 0;
		o->alpha = strtod(optarg, &end);
		if (errno || end == optarg || *end ||
		    !(o->alpha > 0 && o->alpha < 1))
			return cli_usage_error("diff",
					       "--alpha: '%s' is not a number "
					       "between 0 and 1 (0.01)",
					       optarg);
		return 0;
	case OPT_LIMIT:
		o->have_limit = true;
		return view_limit_option("diff", optarg, &o->limit);
	case OPT_CSV:
		return diff_format_option(o, "csv");
	case OPT_FORMAT:
		return diff_format_option(o, optarg);
	case OPT_FAIL_IF:
		return diff_fail_if_option(o, optarg);
	case OPT_FAIL_SCOPE:
		return diff_fail_scope_option(o, optarg);
	case OPT_FAIL_MATCH:
		o->match = optarg;
		return 0;
	case OPT_SUMMARY:
		if (!*optarg)
			return cli_usage_error("diff", "--summary: give a "
						       "file to add to");
		o->summary = optarg;
		return 0;
	case OPT_BASE_RECORDING:
		return parse_index("--base-recording", optarg,
				   &o->base_recording)
			       ? EXIT_USAGE
			       : 0;
	case OPT_BASE_FROM:
		o->base_from = optarg;
		return 0;
	case OPT_BASE_TO:
		o->base_to = optarg;
		return 0;
	case OPT_BASE_SNAPSHOT:
		return parse_index("--base-snapshot", optarg, &o->base_snapshot)
			       ? EXIT_USAGE
			       : 0;
	case OPT_SNAPSHOT:
		return parse_index("--snapshot", optarg, &o->snapshot)
			       ? EXIT_USAGE
			       : 0;
	default:
		return view_default_option("diff", c, argv, &o->f);
	}
}

static int diff_parse(int argc, char **argv, struct diff_cli *o)
{
	int c, n_ops;

	memset(o, 0, sizeof(*o));
	o->by = GROUP_CLASS;
	o->alpha = DIFF_ALPHA_DEFAULT;
	o->base_recording = o->base_snapshot = o->snapshot = -1;
	view_filters_init(&o->f);
	view_frames_init(&o->f);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", diff_option_table, NULL)) !=
	       -1) {
		if (c == 'h')
			return cli_help(diff_help);
		if (diff_option(o, c, argv))
			return EXIT_USAGE;
	}
	if (diff_gate_check_options(o))
		return EXIT_USAGE;
	if (!o->have_limit)
		o->limit = o->format == DF_CSV ? 0 : 20;
	if (!o->have_depth)
		o->depth = o->format == DF_CSV ? 0 : 6;
	if (o->view == DV_SURVIVORS && !o->by_given)
		o->by = GROUP_SITE;
	n_ops = argc - optind;
	if (n_ops < 1 || n_ops > 2)
		return cli_usage_error("diff", n_ops ? "give at most two "
						       "sides: BASE NEW"
						     : "give BASE and NEW, or "
						       "BASE with --base-*");
	if (n_ops == 1 && o->view != DV_CODEHEAP && o->base_recording < 0 &&
	    !o->base_from && !o->base_to)
		return cli_usage_error("diff",
				       "one store: give --base-recording or "
				       "--base-from/--base-to to say what the "
				       "base is");
	o->n_operands = n_ops;
	o->operands = argv + optind;
	return CLI_RUN;
}

/* --summary: the Markdown appended to path (created if missing), as a
 * CI's step summary file ($GITHUB_STEP_SUMMARY) is written: 0, or -1
 * after a message. */
static int summary_append(const char *path, const struct buf *md)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	size_t off = 0;

	if (fd < 0)
		goto fail;
	while (off < md->len) {
		ssize_t w = write(fd, md->data + off, md->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int saved = errno ? errno : EIO;

			close(fd);
			errno = saved;
			goto fail;
		}
		off += (size_t)w;
	}
	if (close(fd) == 0)
		return 0;
fail:
	term_fprintf(stderr,
		     "heapsift diff: error: --summary: cannot write "
		     "%s: %s\n",
		     path, err_io_reason(errno));
	return -1;
}

static int diff_run(const struct diff_cli *o)
{
	struct store *s[2] = {NULL, NULL};
	char *paths[2] = {NULL, NULL}, *side_names[2] = {NULL, NULL};
	const char *names[2];
	struct buf out = BUF_INIT, md = BUF_INIT;
	struct err e;
	int k, rc = EXIT_OK, n_ops = o->n_operands;

	names[0] = o->operands[0];
	names[1] = o->operands[n_ops - 1];
	for (k = 0; k < n_ops; k++) {
		paths[k] = operand_store(names[k]);
		if (!paths[k]) {
			rc = EXIT_ERROR;
			goto out;
		}
	}
	err_init(&e);
	for (k = 0; k < n_ops; k++)
		if (store_open(paths[k], &s[k], &e) < 0) {
			view_error("diff", &e);
			rc = EXIT_ERROR;
			goto out;
		}
	if (n_ops == 1)
		s[1] = s[0];
	if (n_ops == 1 && o->view != DV_CODEHEAP)
		name_sides(o, names, side_names);
	if (o->view == DV_CODEHEAP)
		rc = codeheap_diff(o, s, names, &out);
	else
		rc = samples_diff(o, s, names, &out, &md);
	/* on failure nothing was put in out: the diff is all or nothing;
	 * a gate that failed has written everything too */
	if (rc == EXIT_OK || rc == EXIT_GATE) {
		fwrite(out.data, 1, out.len, stdout);
		rc = cli_finish_output(rc);
	}
	if ((rc == EXIT_OK || rc == EXIT_GATE) && o->summary &&
	    summary_append(o->summary, &md) < 0)
		rc = EXIT_ERROR;
out:
	buf_release(&md);
	buf_release(&out);
	if (s[1] != s[0])
		store_close(s[1]);
	store_close(s[0]);
	free(paths[0]);
	free(paths[1]);
	free(side_names[0]);
	free(side_names[1]);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cli o;
	int rc = diff_parse(argc, argv, &o);

	return rc == CLI_RUN ? diff_run(&o) : rc;
}
