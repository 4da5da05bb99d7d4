/*
 * report_md_text() (src/report/render_md.c): a backslash only where
 * CommonMark would read markup in that place.  Each expected string is
 * written by hand from the spec's rules (tests/cli/report_md.sh renders
 * whole reports with pandoc and compares the text it shows).
 */
#include <stdint.h>

#include "report/report.h"
#include "util/buf.h"
#include "test.h"

struct md_case {
	const char *in;
	unsigned where;
	const char *want;
};

static void check_cases(const struct md_case *cases, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		buf_reset(&b);
		report_md_text(&b, cases[i].in, cases[i].where);
		CHECK_STR(b.data, cases[i].want);
	}
	buf_release(&b);
}

/* What needs no escape keeps its spelling: '.', '-', '!' inside words,
 * '_' inside a word, '>' and '#' inside a line, '$' inside a word. */
TEST(report_md_leaves_plain_names_alone)
{
	static const struct md_case cases[] = {
		{"case-77.tar.gz", 0, "case-77.tar.gz"},
		{"case-77.tar.gz!", 0, "case-77.tar.gz!"},
		{"case-77.tar.gz!app.jfr", REPORT_MD_CELL,
		 "case-77.tar.gz!app.jfr"},
		{"pool-1-thread_3", 0, "pool-1-thread_3"},
		{"com.example.Outer$Inner$1.run:42", 0,
		 "com.example.Outer$Inner$1.run:42"},
		{"a > b # c (d) {e} 1. f", 0, "a > b # c (d) {e} 1. f"},
		{"R&D & co", 0, "R&D & co"},
		{"x < 3, a * b, c _ d, e ~ f", 0, "x < 3, a * b, c _ d, e ~ f"},
		{"-XX:G1HeapRegionSize", REPORT_MD_BLOCK,
		 "-XX:G1HeapRegionSize"},
		{"1.5 s", REPORT_MD_BLOCK, "1.5 s"},
		{"#1 worker", REPORT_MD_BLOCK, "#1 worker"},
		{"a|b", 0, "a|b"},
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

TEST(report_md_escapes_inline_markup)
{
	static const struct md_case cases[] = {
		{"a_b*c[d]e", 0, "a_b\\*c\\[d\\]e"},
		{"_x_", 0, "\\_x\\_"},
		{"__init__", 0, "\\_\\_init\\_\\_"},
		{"a__b", 0, "a__b"},
		{"**x**", 0, "\\*\\*x\\*\\*"},
		{"~~gone~~", 0, "\\~\\~gone\\~\\~"},
		{"`code`", 0, "\\`code\\`"},
		{"back\\slash", 0, "back\\\\\\\\slash"}, /* cleaned: \\ */
		{"<x>", 0, "\\<x>"},
		{"</b>", 0, "\\</b>"},
		{"<!-- c -->", 0, "\\<!-- c -->"},
		{"&amp; &#42; &#x2a; &copy", 0,
		 "\\&amp; \\&#42; \\&#x2a; \\&copy"},
		{"![img](x)", 0, "\\!\\[img\\](x)"},
		{"a|b", REPORT_MD_CELL, "a\\|b"},
		{"$HOME", 0, "\\$HOME"},
		{"pay $5", 0, "pay \\$5"},
		{"e\x1b[31m", 0, "e\\\\x1b\\[31m"},
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Characters that matter only at a line's start, there and only there. */
TEST(report_md_escapes_block_markers_at_a_block_start_only)
{
	static const struct md_case cases[] = {
		{"# title", REPORT_MD_BLOCK, "\\# title"},
		{"###", REPORT_MD_BLOCK, "\\###"},
		{"####### seven", REPORT_MD_BLOCK, "####### seven"},
		{"> quote", REPORT_MD_BLOCK, "\\> quote"},
		{"- item", REPORT_MD_BLOCK, "\\- item"},
		{"+ item", REPORT_MD_BLOCK, "\\+ item"},
		{"* item", REPORT_MD_BLOCK, "\\* item"},
		{"1. first", REPORT_MD_BLOCK, "1\\. first"},
		{"12) twelfth", REPORT_MD_BLOCK, "12\\) twelfth"},
		{"---", REPORT_MD_BLOCK, "\\---"},
		{"===", REPORT_MD_BLOCK, "\\==="},
		{"_ _ _", REPORT_MD_BLOCK,
		 "\\_ _ \\_"}, /* the last: what follows? */
		{"~~~", REPORT_MD_BLOCK, "\\~\\~\\~"},
		{"  indented", REPORT_MD_BLOCK, "&#32; indented"},
		{"# title", 0, "# title"},
		{"1. first", 0, "1. first"},
		{"- item", REPORT_MD_CELL, "- item"},
		/* a heading's closing sequence */
		{"case #", REPORT_MD_HEADING, "case \\#"},
		{"case ## ", REPORT_MD_HEADING, "case \\## "},
		{"case#", REPORT_MD_HEADING, "case#"},
		{"#", REPORT_MD_HEADING, "\\#"},
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}
