/*
 * The code-heap lexer (src/formats/codeheap) on lines taken from the
 * reference grammar's examples and the JDK 17 fixtures, and the rx
 * helpers it stands on.  Expected fields are read off the lines by eye.
 */
#include <string.h>

#include "formats/codeheap/codeheap_lex.h"
#include "test.h"
#include "util/rx.h"

static struct ch_line lex(const char *s)
{
	struct ch_lexer lx;
	struct ch_line l;

	ch_lexer_init(&lx);
	ch_lex(&lx, s, strlen(s), &l);
	ch_lexer_release(&lx);
	return l;
}

TEST(codeheap_lex_boxes_and_general)
{
	struct ch_line l;

	l = lex("=  C O D E   H E A P   A N A L Y S I S   (used blocks) for "
		"segment CodeHeap 'non-profiled nmethods'  =");
	CHECK_INT(l.type, ==, CHL_MAJOR);
	CHECK(l.text_len > 9 &&
	      !memcmp(l.text + l.text_len - 9, "nmethods'", 9));
	l = lex("|  Largest Used Blocks in CodeHeap  |");
	CHECK_INT(l.type, ==, CHL_MINOR);
	CHECK_INT(l.text_len, ==, strlen("Largest Used Blocks in CodeHeap"));
	CHECK_INT(lex("+-----------------------+").type, ==, CHL_BORDER);
	CHECK_INT(lex("==========").type, ==, CHL_BORDER);
	CHECK_INT(lex("   General JIT info   ").type, ==, CHL_GENERAL);
	l = lex("            JIT is :      off");
	CHECK_INT(l.type, ==, CHL_JIT_IS);
	CHECK_INT(l.a, ==, 0);
	l = lex("         Reserved size :  245760 KB");
	CHECK_INT(l.type, ==, CHL_CACHE_SIZE);
	CHECK_INT(l.a, ==, 245760);
	CHECK_INT(lex("").type, ==, CHL_BLANK);
	CHECK_INT(lex("12107:").type, ==, CHL_NOISE);
	CHECK_INT(lex("[1.272s][warning][codecache] CodeCache is full.").type,
		  ==, CHL_NOISE);
}

TEST(codeheap_lex_aggregation_lines)
{
	struct ch_line l;

	l = lex("   CodeHeap committed size 2496K (2M), reserved size 120036K "
		"(117M), 2% occupied.");
	CHECK_INT(l.type, ==, CHL_COMMITTED);
	CHECK_INT(l.a, ==, 2496);
	CHECK_INT(l.b, ==, 120036);
	CHECK_INT(l.c, ==, 2);
	l = lex("   CodeHeap (committed part) is mapped to 256 granules of "
		"size 9984 bytes.");
	CHECK_INT(l.type, ==, CHL_GRANULES);
	CHECK_INT(l.a, ==, 256);
	CHECK_INT(l.b, ==, 9984);
	l = lex("freeSpace        =      291k, nBlocks_free     =      1,     "
		"11.689% of capacity,      0.243% of max_capacity");
	CHECK_INT(l.type, ==, CHL_STAT);
	CHECK_INT(l.a, ==, 291);
	CHECK_INT(l.b, ==, 1);
	l = lex("  Tier2 Space    =      959k, nBlocks_t2       =   1232,     "
		"38.431% of capacity,      0.799% of max_capacity");
	CHECK_INT(l.type, ==, CHL_STAT);
	CHECK_INT(l.b, ==, 1232);
	l = lex("Segment start          = 0x00007f7da8ec7000, used space      "
		"=     2496k");
	CHECK_INT(l.type, ==, CHL_SEG_START);
	CHECK_UINT(l.addr, ==, 0x00007f7da8ec7000ull);
	l = lex("__ CodeHeapStateAnalytics total duration      0.021 seconds "
		"_________");
	CHECK_INT(l.type, ==, CHL_TIMING);
	CHECK(l.flag);
	l = lex("__ CodeHeapStateAnalytics lock wait took      0.000 seconds "
		"_________");
	CHECK_INT(l.type, ==, CHL_TIMING);
	CHECK(!l.flag);
	l = lex("  N - nMethod (active)");
	CHECK_INT(l.type, ==, CHL_LEGEND);
	CHECK_INT(l.letter, ==, 'N');
	l = lex("    - noType");
	CHECK_INT(l.type, ==, CHL_LEGEND);
	CHECK_INT(l.letter, ==, ' ');
}

TEST(codeheap_lex_rows_maps_free)
{
	struct ch_line l;

	l = lex("0x00007f8050ec8f10 (+0x00001f10): |5: :  6: :  |");
	CHECK_INT(l.type, ==, CHL_MAP);
	CHECK_INT(l.a, ==, 0x1f10);
	CHECK_INT(l.text_len, ==, 12);
	l = lex("0x00007f8050f33c10 (+0x0006cc10) 0x00006858(  26K)   X     c2 "
		"  4      0 Driver.main([Ljava/lang/String;)V");
	CHECK_INT(l.type, ==, CHL_ROW);
	CHECK_UINT(l.addr, ==, 0x00007f8050f33c10ull);
	l = lex("0x00007fddd152e680: Len[   5] = 0x780,Gap[   5..   6]: 0x7680 "
		"bytes,   block count:     29 !! permanent gap, contains stubs "
		"and/or blobs !!");
	CHECK_INT(l.type, ==, CHL_FREE);
	CHECK_INT(l.a, ==, 5);
	CHECK_INT(l.b, ==, 0x780);
	CHECK_INT(l.c, ==, 0x7680);
	CHECK_INT(l.d, ==, 29);
	CHECK(l.flag);
	l = lex("0x00007f8049e86900: Len[   3] = 0x339000");
	CHECK_INT(l.type, ==, CHL_FREE);
	CHECK_INT(l.c, ==, -1);
	l = lex("Pos   1: Block    1 - size 0x337980,   last free block in "
		"list.");
	CHECK_INT(l.type, ==, CHL_TOPTEN);
	CHECK_INT(l.c, ==, 0x337980);
}

TEST(codeheap_lex_summary_and_codelist)
{
	struct ch_line l;

	l = lex("CodeHeap 'non-profiled nmethods': size=120036Kb used=1095Kb "
		"max_used=1387Kb free=118940Kb");
	CHECK_INT(l.type, ==, CHL_SUM_HEAP);
	CHECK_INT(l.a, ==, 120036);
	CHECK_INT(l.d, ==, 118940);
	l = lex("CodeCache: size=2496Kb used=1964Kb max_used=2495Kb "
		"free=531Kb");
	CHECK_INT(l.type, ==, CHL_SUM_HEAP);
	CHECK_INT(l.text_len, ==, 9);
	l = lex(" bounds [0x00007f7da8ec7000, 0x00007f7da9137000, "
		"0x00007f7db0400000]");
	CHECK_INT(l.type, ==, CHL_BOUNDS);
	CHECK_UINT(l.addr3, ==, 0x00007f7db0400000ull);
	l = lex(" total_blobs=10470 nmethods=10071 adapters=313");
	CHECK_INT(l.type, ==, CHL_BLOBS);
	CHECK_INT(l.d, ==, -1);
	l = lex(" total_blobs=6547, nmethods=6117, adapters=335, full_count=0");
	CHECK_INT(l.type, ==, CHL_BLOBS);
	CHECK_INT(l.d, ==, 0);
	l = lex("Compilation: enabled, stopped_count=0, restarted_count=0");
	CHECK_INT(l.type, ==, CHL_COMPILATION);
	l = lex("9 0 0 java.lang.System.arraycopy(Ljava/lang/Object;ILjava/"
		"lang/Object;II)V [0x00007f7da8ec7490, 0x00007f7da8ec7620 - "
		"0x00007f7da8ec7820]");
	CHECK_INT(l.type, ==, CHL_CODELIST);
	CHECK_INT(l.a, ==, 9);
	CHECK_UINT(l.addr2, ==, 0x00007f7da8ec7620ull);
}

TEST(rx_integers_refuse_what_does_not_fit)
{
	static const char *const pats[] = {"^(\\d+) (0x[0-9a-f]+)$"};
	static struct rx_table t = RX_TABLE(pats);
	struct rx_match m;
	int64_t v;
	uint64_t u;

	const char *big = "99999999999999999999 0x1";
	const char *wide = "42 0x11112222333344445";

	rx_match_init(&m);
	CHECK(rx_match(&t, 0, big, strlen(big), &m));
	CHECK(!rx_int(&m, 1, &v));
	CHECK(rx_hex(&m, 2, &u) && u == 1);
	CHECK(rx_match(&t, 0, wide, strlen(wide), &m));
	CHECK(rx_int(&m, 1, &v) && v == 42);
	CHECK(!rx_hex(&m, 2, &u)); /* 17 digits */
	CHECK(!rx_group(&m, 5, &(const char *){NULL}, &(size_t){0}));
	rx_match_release(&m);
}
