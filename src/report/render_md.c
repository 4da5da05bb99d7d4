/*
 * The report as Markdown to paste into a ticket (CommonMark with pipe
 * tables, as GitHub, GitLab and pandoc read it).  Every string from a
 * file is cleaned (report_clean) and then written by report_md_text(),
 * which backslash-escapes a character only where CommonMark (or GFM's
 * tables and strikethrough) would read it as markup in that place, so a
 * name can make neither markup nor raw HTML and still reads as it is
 * in the raw file: "case-77.tar.gz!" stays so.  Commands go into code
 * spans with a fence longer than any run of backticks in them.  Charts
 * are fenced code blocks of our own characters only.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report_chart.h"
#include "report/report.h"
#include "util/buf.h"

/* What a character next to a delimiter run is, for the flanking rules:
 * a set of these, since the characters beyond the text (what the
 * renderer writes around it) and those outside ASCII (some are Unicode
 * whitespace or punctuation) could be any of them. */
#define CH_SPACE 1u
#define CH_PUNCT 2u
#define CH_OTHER 4u
#define CH_ANY	 (CH_SPACE | CH_PUNCT | CH_OTHER)

/* the class of byte i of c; CH_ANY beyond the text or outside ASCII */
static unsigned ch_class(const struct buf *c, size_t i)
{
	unsigned char ch;

	if (i >= c->len)
		return CH_ANY;
	ch = (unsigned char)c->data[i];
	if (ch == ' ' || ch == '\t')
		return CH_SPACE;
	if (ch >= 0x80)
		return CH_ANY;
	return ispunct(ch) ? CH_PUNCT : CH_OTHER;
}

/* CommonMark's left-flanking delimiter run, between prev and next (one
 * class each); right-flanking is the mirror image. */
static bool left_flanking(unsigned prev, unsigned next)
{
	if (next == CH_SPACE)
		return false;
	return next != CH_PUNCT || prev == CH_SPACE || prev == CH_PUNCT;
}

/*
 * Whether a run of ch ('*', '_', or GFM's strikethrough '~') between a
 * character of the classes prevs and one of nexts could open or close
 * emphasis: '*' and '~' where the run is left- or right-flanking, '_'
 * only where it is not inside a word (so "a_b" is plain text).
 */
static bool delim_active(char ch, unsigned prevs, unsigned nexts)
{
	unsigned p, n;

	for (p = 1; p <= CH_OTHER; p <<= 1)
		for (n = 1; n <= CH_OTHER; n <<= 1) {
			bool l, r;

			if (!(prevs & p) || !(nexts & n))
				continue;
			l = left_flanking(p, n);
			r = left_flanking(n, p);
			if (ch != '_' && (l || r))
				return true;
			if (ch == '_' && ((l && (!r || p == CH_PUNCT)) ||
					  (r && (!l || n == CH_PUNCT))))
				return true;
		}
	return false;
}

/* Whether the '&' before byte i could start an entity or numeric
 * character reference (&name; &#123; &#x1f;), the text's end counting
 * as a ';' that may follow. */
static bool entity_like(const struct buf *c, size_t i)
{
	size_t n = 0;

	if (i < c->len && c->data[i] == '#') {
		bool hex = i + 1 < c->len &&
			   (c->data[i + 1] == 'x' || c->data[i + 1] == 'X');

		for (i += hex ? 2 : 1; i < c->len; i++, n++)
			if (hex ? !isxdigit((unsigned char)c->data[i])
				: !isdigit((unsigned char)c->data[i]))
				break;
	} else {
		for (; i < c->len && (unsigned char)c->data[i] < 0x80 &&
		       isalnum((unsigned char)c->data[i]);
		     i++, n++)
			;
	}
	return i >= c->len || (n && c->data[i] == ';');
}

/*
 * At the start of a block (a paragraph, a list item's text), the index
 * of the one character that would make the line a block of another
 * kind, to escape: '#' of an ATX heading ("# x", "###"), '>' of a block
 * quote, '-', '+' or '*' of a bullet ("- x", "-"), the '.' or ')' of an
 * ordered list item ("1. x", "2)"), the first of a thematic break or
 * setext underline (a line of one of "-*_=" and spaces), of a code
 * fence ("~~~", "```": a run of '~' is escaped whole); SIZE_MAX when
 * there is none.
 */
static size_t block_marker(const struct buf *c)
{
	const char *d = c->data;
	size_t i = 0;

	if (!c->len)
		return SIZE_MAX;
	if (strchr("-*_=", d[0])) {
		char k[4] = {d[0], ' ', '\t', '\0'};

		if (strspn(d, k) == c->len)
			return 0;
	}
	switch (d[0]) {
	case '#':
		i = strspn(d, "#");
		return i <= 6 && (i == c->len || d[i] == ' ' || d[i] == '\t')
			       ? 0
			       : SIZE_MAX;
	case '>':
		return 0;
	case '-':
	case '+':
	case '*':
		return c->len == 1 || d[1] == ' ' || d[1] == '\t' ? 0
								  : SIZE_MAX;
	case '~':
	case '`':
		return strspn(d, d[0] == '~' ? "~" : "`") >= 3 ? 0 : SIZE_MAX;
	}
	i = strspn(d, "0123456789");
	if (i >= 1 && i <= 9 && i < c->len && (d[i] == '.' || d[i] == ')') &&
	    (i + 1 == c->len || d[i + 1] == ' ' || d[i + 1] == '\t'))
		return i;
	return SIZE_MAX;
}

/* In a heading, the first '#' of a closing sequence (a run of '#' at
 * the end, after a space, spaces after it allowed) that would be taken
 * off the heading; SIZE_MAX when there is none.  A space is always
 * written before the text. */
static size_t heading_closer(const struct buf *c)
{
	size_t end = c->len, at;

	while (end && (c->data[end - 1] == ' ' || c->data[end - 1] == '\t'))
		end--;
	for (at = end; at && c->data[at - 1] == '#'; at--)
		;
	if (at == end ||
	    (at && c->data[at - 1] != ' ' && c->data[at - 1] != '\t'))
		return SIZE_MAX;
	return at;
}

/* Whether byte i of c, not one of a delimiter run, would be markup. */
static bool md_special(const struct buf *c, size_t i, unsigned where)
{
	char next = i + 1 < c->len ? c->data[i + 1] : '\0';

	switch (c->data[i]) {
	case '\\':
	case '`':
	case '[':
	case ']':
		return true;
	case '!':
		/* an image; the renderer writes no '[' after a text */
		return next == '[';
	case '<':
		/* an autolink or raw HTML: <a, </a, <!--, <?; unknown at
		 * the end */
		return !next || isalpha((unsigned char)next) || next == '/' ||
		       next == '!' || next == '?';
	case '&':
		return entity_like(c, i + 1);
	case '|':
		return (where & REPORT_MD_CELL) != 0;
	case '$':
		/* GitHub's math opens at a '$' that begins a word only */
		return !i || (ch_class(c, i - 1) & CH_SPACE);
	default:
		return false;
	}
}

void report_md_text(struct buf *out, const char *s, unsigned where)
{
	struct buf c = BUF_INIT;
	size_t i = 0, mark = SIZE_MAX, closer = SIZE_MAX;

	report_clean(&c, s);
	if ((where & REPORT_MD_BLOCK) && c.len && c.data[0] == ' ') {
		/* leading spaces would indent (or be dropped): the first
		 * as a character reference, after which the line starts
		 * with no block's marker */
		buf_adds(out, "&#32;");
		i = 1;
	} else if (where & REPORT_MD_BLOCK) {
		mark = block_marker(&c);
	}
	if (where & REPORT_MD_HEADING)
		closer = heading_closer(&c);
	while (i < c.len) {
		char ch = c.data[i];
		size_t n = 1, k;
		bool esc;

		if (ch == '*' || ch == '_' || ch == '~') {
			n = strspn(c.data + i, ch == '*'   ? "*"
					       : ch == '_' ? "_"
							   : "~");
			esc = (mark >= i && mark < i + n) ||
			      delim_active(ch, i ? ch_class(&c, i - 1) : CH_ANY,
					   ch_class(&c, i + n));
		} else {
			esc = i == mark || i == closer ||
			      md_special(&c, i, where);
		}
		for (k = 0; k < n; k++) {
			if (esc)
				buf_addch(out, '\\');
			buf_addch(out, ch);
		}
		i += n;
	}
	buf_release(&c);
}

/* where a text goes, for report_md_text() */
#define IN_LINE	   0u
#define IN_CELL	   REPORT_MD_CELL
#define AT_BLOCK   REPORT_MD_BLOCK
#define IN_HEADING REPORT_MD_HEADING

static void md(struct buf *out, const char *s, unsigned where)
{
	report_md_text(out, s, where);
}

/*
 * s (a command, a path) as a code span, where nothing is escaped: the
 * fence is one backtick longer than the longest run of backticks in s,
 * and a space pads it inside only where CommonMark would otherwise read
 * s wrongly (s begins or ends with a backtick, or begins and ends with a
 * space, of which one each would be taken off).
 */
static void code_span(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;
	size_t i, run = 0, longest = 0, k;
	bool pad;

	report_clean_command(&c, s);
	for (i = 0; i < c.len; i++) {
		run = c.data[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = !c.len || c.data[0] == '`' || c.data[c.len - 1] == '`' ||
	      (c.data[0] == ' ' && c.data[c.len - 1] == ' ' &&
	       strspn(c.data, " ") < c.len);
	for (k = 0; k <= longest; k++)
		buf_addch(out, '`');
	if (pad)
		buf_addch(out, ' ');
	buf_add(out, c.data, c.len);
	if (pad)
		buf_addch(out, ' ');
	for (k = 0; k <= longest; k++)
		buf_addch(out, '`');
	buf_release(&c);
}

/* Compared with the baseline: the sentence and a table of the sites
 * that changed. */
static void compare_md(struct buf *out, const struct report_compare *x)
{
	char b0[48], b1[48], b2[48], ra[16];
	size_t i;

	buf_adds(out, "\n## Compared with the baseline\n\nBase: ");
	md(out, x->base, IN_LINE);
	buf_adds(out, "; new: ");
	md(out, x->new_side, IN_LINE);
	buf_adds(out, ".\n\n");
	if (x->error) {
		buf_adds(out, "Cannot compare: ");
		md(out, x->error, IN_LINE);
		buf_adds(out, "\n");
		return;
	}
	md(out, x->sentence, AT_BLOCK);
	buf_addch(out, '\n');
	if (!x->n_changed)
		buf_adds(out, "\nNo site changed beyond noise.\n");
	else
		buf_addf(out,
			 "\n| site | base%s | new%s | change | ratio | "
			 "samples base | samples new | q | |\n"
			 "| --- | ---: | ---: | ---: | ---: | ---: | ---: | "
			 "---: | --- |\n",
			 x->per_second ? "/s" : "", x->per_second ? "/s" : "");
	for (i = 0; i < x->n_changed; i++) {
		const struct report_cmp_row *r = &x->rows[i];

		buf_adds(out, "| ");
		md(out, r->site, IN_CELL);
		buf_adds(out, " | ");
		md(out, report_cmp_value(x, r->value[0], false, b0, sizeof(b0)),
		   IN_CELL);
		buf_adds(out, " | ");
		md(out, report_cmp_value(x, r->value[1], false, b1, sizeof(b1)),
		   IN_CELL);
		buf_adds(out, " | ");
		md(out, report_cmp_value(x, r->delta, true, b2, sizeof(b2)),
		   IN_CELL);
		buf_adds(out, " | ");
		md(out, report_cmp_ratio(r->ratio, ra, sizeof(ra)), IN_CELL);
		buf_addf(out, " | %" PRIu64 " | %" PRIu64 " | ", r->samples[0],
			 r->samples[1]);
		snprintf(b0, sizeof(b0), "%.2g", r->q);
		md(out, b0, IN_CELL);
		buf_addf(out, " | %s |\n", report_cmp_change(r->change));
	}
	buf_adds(out, "\nMore: ");
	code_span(out, x->command);
	buf_addch(out, '\n');
}

static void figure_md(struct buf *out, const struct report *r, int fig)
{
	const struct finding_figure *g = &r->found.figures[fig];
	size_t i;

	buf_adds(out, "\n*");
	md(out, g->title, IN_LINE);
	buf_adds(out, "*\n\n```text\n");
	if (g->kind == FIG_RATE || g->kind == FIG_HEAP) {
		report_chart_columns(out, g, 60, 6, "");
	} else if (g->kind == FIG_MAP) {
		report_chart_map(out, g, 64, "");
	} else {
		for (i = 0; i < g->n_series; i++) {
			buf_addf(out, "%zu ", i + 1);
			report_chart_spark(out, g->series[i].y, g->n_points,
					   40);
			buf_addch(out, '\n');
		}
	}
	buf_adds(out, "```\n");
	for (i = 0; g->kind == FIG_LIVE && i < g->n_series; i++) {
		buf_addf(out, "%s%zu: ", i ? "; " : "\n", i + 1);
		md(out, g->series[i].name, IN_LINE);
		if (i + 1 == g->n_series)
			buf_addch(out, '\n');
	}
}

/* The count by severity and the table of the findings. */
static void summary_md(struct buf *out, const struct report *r)
{
	size_t i, sev[3] = {0, 0, 0};

	for (i = 0; i < r->found.n_findings; i++)
		sev[r->found.findings[i].severity]++;
	buf_addf(out, "%zu findings: %zu critical, %zu warning, %zu info.\n\n",
		 r->found.n_findings, sev[FINDING_CRITICAL],
		 sev[FINDING_WARNING], sev[FINDING_INFO]);
	if (!r->found.n_findings && r->store_error) {
		buf_adds(out, "Nothing was stored, so there is nothing to "
			      "judge: ");
		md(out, r->store_error, IN_LINE);
		buf_adds(out, ".\n\n");
	}
	if (!r->found.n_findings)
		return;
	buf_adds(out, "| # | severity | rule | about | JVM |\n"
		      "|---:|---|---|---|---|\n");
	for (i = 0; i < r->found.n_findings; i++) {
		const struct finding *f = &r->found.findings[i];

		buf_addf(out, "| %zu | %s%s | %s | ", i + 1,
			 finding_severity_name(f->severity),
			 f->few_samples ? " (few samples)" : "", f->rule);
		md(out, f->subject ? f->subject : "", IN_CELL);
		buf_adds(out, " | ");
		if (report_jvm_of(r, f))
			md(out, report_jvm_of(r, f)->name, IN_CELL);
		buf_adds(out, " |\n");
	}
}

/* Finding i in full, with its figure when no finding before drew it
 * (drawn[]). */
static void finding_md(struct buf *out, const struct report *r, size_t i,
		       bool *drawn)
{
	const struct finding *f = &r->found.findings[i];
	size_t k;

	buf_addf(out, "\n### %zu. %s: %s", i + 1,
		 finding_severity_name(f->severity), f->rule);
	if (f->subject) {
		buf_adds(out, ": ");
		md(out, f->subject, IN_HEADING);
	}
	buf_adds(out, "\n\n");
	if (report_jvm_of(r, f)) {
		struct buf j = BUF_INIT;

		report_jvm_text(&j, r, f);
		buf_adds(out, "JVM: ");
		md(out, j.data, IN_LINE);
		buf_adds(out, "\n\n");
		buf_release(&j);
	}
	md(out, f->sentence, AT_BLOCK);
	if (f->few_samples)
		buf_adds(out, " *It rests on few samples or GCs, and "
			      "is ranked lower for it.*");
	buf_adds(out, "\n\n");
	for (k = 0; k < f->n_evidence; k++) {
		buf_adds(out, "- ");
		md(out, f->evidence[k], AT_BLOCK);
		buf_addch(out, '\n');
	}
	if (f->command) {
		buf_adds(out, "\nMore: ");
		code_span(out, f->command);
		buf_addch(out, '\n');
	}
	if (f->fix) {
		buf_adds(out, "\nFix: ");
		md(out, f->fix, IN_LINE);
		buf_addch(out, '\n');
	}
	if (f->figure >= 0 && f->figure < 64 && !drawn[f->figure]) {
		drawn[f->figure] = true;
		figure_md(out, r, f->figure);
	}
}

/* The members of the inputs and the problems met reading them. */
static void inventory_md(struct buf *out, const struct report *r)
{
	size_t i;

	buf_adds(out, "\n## Inventory\n\n");
	if (r->from_store)
		buf_adds(out, "A store was given: its recordings are listed "
			      "in the appendix; the members of the bundles it "
			      "came from are not kept in it.\n");
	if (r->n_members) {
		buf_adds(out, "| member | kind | confidence | bytes | "
			      "compression | status | reason |\n"
			      "|---|---|---:|---:|---|---|---|\n");
		for (i = 0; i < r->n_members; i++) {
			const struct report_member *m = &r->members[i];

			buf_adds(out, "| ");
			md(out, m->display, IN_CELL);
			buf_addf(out, " | %s | %d | %" PRIu64 " | ", m->kind,
				 m->confidence, m->bytes);
			md(out, m->compression[0] ? m->compression : "none",
			   IN_CELL);
			buf_addf(out, " | %s | ", m->status);
			md(out, m->reason, IN_CELL);
			buf_adds(out, " |\n");
		}
	}
	for (i = 0; i < r->n_problems; i++) {
		buf_adds(out, "\nProblem: ");
		md(out, r->problems[i], IN_LINE);
		buf_addch(out, '\n');
	}
}

static void recording_md(struct buf *out, const struct report *r, size_t i)
{
	const struct report_recording *x = &r->recs[i];
	struct buf smp = BUF_INIT;
	size_t k;

	buf_addf(out, "| %zu | ", i);
	md(out, x->source, IN_CELL);
	buf_adds(out, " | ");
	md(out, x->format, IN_CELL);
	buf_adds(out, " | ");
	md(out, x->jvm[0] ? x->jvm : "not recorded", IN_CELL);
	if (x->start_ns != INT64_MIN)
		buf_addf(out, " | %.3f s | ",
			 ((double)x->end_ns - (double)x->start_ns) / 1e9);
	else
		buf_adds(out, " | not recorded | ");
	for (k = 0; k < SAMPLE__COUNT; k++)
		if (x->samples[k])
			buf_addf(&smp, "%s%s %" PRIu64, smp.len ? ", " : "",
				 sample_kind_name((enum sample_kind)k),
				 x->samples[k]);
	md(out, smp.data, IN_CELL);
	buf_addf(out, " | %" PRIu64 " | ", x->gcs);
	md(out, x->sampling, IN_CELL);
	buf_adds(out, " |\n");
	buf_release(&smp);
}

/* The recordings and how the estimates are made. */
static void appendix_md(struct buf *out, const struct report *r)
{
	const char *note;
	size_t i;

	buf_adds(out, "\n## Appendix: recordings\n\n");
	if (r->n_recs)
		buf_adds(out, "| # | source | format | JVM | span | samples | "
			      "GCs | sampling |\n"
			      "|---:|---|---|---|---:|---|---:|---|\n");
	for (i = 0; i < r->n_recs; i++)
		recording_md(out, r, i);
	buf_adds(out, "\n## Appendix: how the estimates are made\n\n");
	for (i = 0; (note = report_estimate_note(r, &i));) {
		buf_adds(out, "- ");
		md(out, note, AT_BLOCK);
		buf_addch(out, '\n');
	}
}

void report_render_md(const struct report *r, struct buf *out)
{
	size_t i;
	bool drawn[64];

	memset(drawn, 0, sizeof(drawn));
	/* the mark in Markdown's comment, before the title */
	buf_addf(out, "<!-- %s: written by heapsift report %s -->\n",
		 REPORT_MARK, r->version);
	buf_addf(out, "# heapsift report: ");
	md(out, r->title, IN_HEADING);
	buf_addf(out, "\n\nMade by heapsift report %s", r->version);
	/* the cache store's path is the analyst's, not the case's
	 * reader's: named only where a store was given */
	if (r->store_path && r->from_store) {
		buf_adds(out, " from the store ");
		code_span(out, r->store_path);
	}
	if (r->filters && *r->filters) {
		buf_adds(out, " with the filters ");
		code_span(out, r->filters);
	}
	buf_adds(out, ".\n\n## Findings\n\n");
	summary_md(out, r);
	for (i = 0; i < r->found.n_findings; i++)
		finding_md(out, r, i, drawn);
	if (r->cmp)
		compare_md(out, r->cmp);
	inventory_md(out, r);
	appendix_md(out, r);
}
