/*
 * Unit tests for the javacore grammar (src/formats/javacore) and importer,
 * on the three real javacores in fixtures/javacore/ and on hostile
 * javacores made in memory.
 *
 * Every expected value on a real file comes from
 * ../shared/fixtures/javacore/README.md (quoted as "README") or from
 * arithmetic on those values written out next to it; the granule and
 * cell values follow the rules in docs/formats/javacore.md.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/javacore/javacore.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "input/walk.h"
#include "test.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* --- a sink that copies what it is given --------------------------------- */

struct cap_heap {
	char *name;
	uint64_t low, high, high_reserved;
	int64_t segment_size, granule_size, n_granules, committed, reserved,
		used, free, max_used, used_blocks, free_blocks;
	bool estimated;
	uint32_t n_maps;
	enum ch_measure measure;
	enum ch_part part;
	uint32_t map_n;
	uint8_t *cells;
};

struct cap {
	int n_codeheaps, n_recordings;
	char *kind;
	uint64_t line;
	int64_t time_ns;
	struct cap_heap *heaps;
	uint32_t n_heaps;
	char **stat_names;
	int64_t *stat_values;
	uint32_t n_stats;
	char *source, *format, *jvm_name, *jvm_version;
	int64_t start_ns, end_ns;
	struct buf warnings; /* one per line */
	int n_warnings;
	int rc;
	struct err e;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int cap_codeheap(void *ctx, const struct rec_codeheap *c)
{
	struct cap *k = ctx;
	uint32_t i;

	k->n_codeheaps++;
	if (k->n_codeheaps > 1)
		return 0;
	k->kind = dup_or_null(c->kind);
	k->line = c->line;
	k->time_ns = c->time_ns;
	k->n_heaps = c->n_heaps;
	k->heaps = xcalloc(c->n_heaps + 1, sizeof(*k->heaps));
	for (i = 0; i < c->n_heaps; i++) {
		const struct rec_ch_heap *h = &c->heaps[i];
		struct cap_heap *o = &k->heaps[i];

		o->name = dup_or_null(h->name);
		o->low = h->low;
		o->high = h->high;
		o->high_reserved = h->high_reserved;
		o->segment_size = h->segment_size;
		o->granule_size = h->granule_size;
		o->n_granules = h->n_granules;
		o->committed = h->committed;
		o->reserved = h->reserved;
		o->used = h->used;
		o->free = h->free;
		o->max_used = h->max_used;
		o->used_blocks = h->used_blocks;
		o->free_blocks = h->free_blocks;
		o->estimated = h->placement_estimated;
		o->n_maps = h->n_maps;
		if (h->n_maps) {
			o->measure = h->maps[0].measure;
			o->part = h->maps[0].part;
			o->map_n = h->maps[0].n;
			o->cells = xmalloc(h->maps[0].n + 1);
			memcpy(o->cells, h->maps[0].cells, h->maps[0].n);
		}
		CHECK_INT(h->n_blocks, ==, 0);
	}
	k->n_stats = c->n_stats;
	k->stat_names = xcalloc(c->n_stats + 1, sizeof(char *));
	k->stat_values = xcalloc(c->n_stats + 1, sizeof(int64_t));
	for (i = 0; i < c->n_stats; i++) {
		k->stat_names[i] = xstrdup(c->stats[i].name);
		k->stat_values[i] = c->stats[i].value;
	}
	return 0;
}

static int cap_recording(void *ctx, const struct rec_recording *r)
{
	struct cap *k = ctx;

	k->n_recordings++;
	k->source = dup_or_null(r->source);
	k->format = dup_or_null(r->format);
	k->jvm_name = dup_or_null(r->jvm_name);
	k->jvm_version = dup_or_null(r->jvm_version);
	k->start_ns = r->start_ns;
	k->end_ns = r->end_ns;
	CHECK_INT(r->n_chunks, ==, 0);
	CHECK_INT(r->n_settings, ==, 0);
	CHECK_INT(r->n_event_types, ==, 0);
	return 0;
}

static int cap_sample(void *ctx, const struct rec_sample *s)
{
	(void)ctx;
	(void)s;
	test_fail(__FILE__, __LINE__, "a javacore has no samples");
	return 0;
}

static void cap_warn(void *ctx, const struct err *e)
{
	struct cap *k = ctx;

	err_format(e, &k->warnings);
	buf_addch(&k->warnings, '\n');
	k->n_warnings++;
}

static const struct sink_ops cap_ops = {.sample = cap_sample,
					.recording = cap_recording,
					.codeheap = cap_codeheap};
static const struct sink_ops cap_ops_no_codeheap = {.sample = cap_sample,
						    .recording = cap_recording};

static void cap_init(struct cap *k)
{
	memset(k, 0, sizeof(*k));
	buf_init(&k->warnings);
	err_init(&k->e);
}

static void cap_release(struct cap *k)
{
	uint32_t i;

	for (i = 0; i < k->n_heaps; i++) {
		free(k->heaps[i].name);
		free(k->heaps[i].cells);
	}
	free(k->heaps);
	for (i = 0; i < k->n_stats; i++)
		free(k->stat_names[i]);
	free(k->stat_names);
	free(k->stat_values);
	free(k->kind);
	free(k->source);
	free(k->format);
	free(k->jvm_name);
	free(k->jvm_version);
	buf_release(&k->warnings);
}

static void import_input(struct cap *k, struct input *in, const char *name,
			 const struct sink_ops *ops)
{
	struct sink sink = {ops, k};
	struct import_env env = {name, cap_warn, k, 0, 0};

	k->rc = importer_javacore.import(in, &sink, &env, &k->e);
}

static void import_mem(struct cap *k, const char *text, size_t len)
{
	struct input in;

	cap_init(k);
	input_init_memory(&in, "mem.txt", text, len);
	import_input(k, &in, "mem.txt", &cap_ops);
	input_release(&in);
}

static int walk_member(void *ctx, const struct member *m)
{
	import_input(ctx, m->in, m->display, &cap_ops);
	return 0;
}

static void walk_problem(void *ctx, enum problem_severity sev,
			 const struct err *e)
{
	(void)ctx;
	(void)sev;
	test_fail(__FILE__, __LINE__, "walk problem: %s", e->msg);
}

/* A fixture through the walker, as the CLI reads it (the .gz ones are
 * decompressed by libarchive). */
static void import_fixture(struct cap *k, const char *name)
{
	static const struct walk_ops ops = {walk_member, walk_problem};
	struct input_limits lim;
	struct walk_stats st = {0, 0, 0, 0};

	cap_init(k);
	k->rc = -99;
	input_limits_default(&lim);
	walk_input(test_fixture(name), &lim, &ops, k, &st);
	CHECK_INT(st.members, ==, 1);
}

/* The value of stat name; fails the case when it is missing. */
#define STAT(k, name) stat_at(k, name, __FILE__, __LINE__)
static int64_t stat_at(const struct cap *k, const char *name, const char *file,
		       int line)
{
	uint32_t i;

	for (i = 0; i < k->n_stats; i++)
		if (strcmp(k->stat_names[i], name) == 0)
			return k->stat_values[i];
	test_fail(file, line, "no stat \"%s\"", name);
	return INT64_MIN;
}

static bool has_stat(const struct cap *k, const char *name)
{
	uint32_t i;

	for (i = 0; i < k->n_stats; i++)
		if (strcmp(k->stat_names[i], name) == 0)
			return true;
	return false;
}

static int n_heaps_named(const struct cap *k, const char *prefix)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < k->n_heaps; i++)
		if (strncmp(k->heaps[i].name, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

static const struct cap_heap *heap_named(const struct cap *k, const char *name)
{
	uint32_t i;

	for (i = 0; i < k->n_heaps; i++)
		if (strcmp(k->heaps[i].name, name) == 0)
			return &k->heaps[i];
	test_fail(__FILE__, __LINE__, "no heap \"%s\"", name);
	return NULL;
}

/* Wall-clock time as if UTC, in ns, by libc (not the parser's code). */
static int64_t utc_ns(int y, int mo, int d, int h, int mi, int s, int ms)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return ((int64_t)timegm(&tm) * 1000 + ms) * 1000000;
}

/* What every JIT cache heap of a javacore has in common. */
static void check_heap_shape(const struct cap_heap *h, bool estimated)
{
	CHECK_UINT(h->high_reserved, ==, h->high);
	CHECK_INT(h->committed, ==, (int64_t)(h->high - h->low));
	CHECK_INT(h->used + h->free, ==, h->committed);
	CHECK_INT(h->segment_size, ==, REC_NONE);
	CHECK_INT(h->reserved, ==, REC_NONE);
	CHECK_INT(h->max_used, ==, REC_NONE);
	CHECK_INT(h->used_blocks, ==, REC_NONE);
	CHECK_INT(h->free_blocks, ==, REC_NONE);
	CHECK(h->estimated == estimated);
	CHECK_INT(h->n_maps, ==, 1);
	CHECK_INT(h->measure, ==, CH_SPACE);
	CHECK_INT(h->part, ==, CH_ALL);
	CHECK_INT(h->map_n, ==, h->n_granules);
}

/* A 2 MB data cache segment, full (README: alloc == end): 4096-byte
 * granules (2097152 / 4096 = 512 <= 4096), all full. */
static void check_full_2mb(const struct cap_heap *h)
{
	uint32_t i, full = 0;

	check_heap_shape(h, false);
	CHECK_INT(h->committed, ==, 2097152);
	CHECK_INT(h->used, ==, 2097152);
	CHECK_INT(h->free, ==, 0);
	CHECK_INT(h->granule_size, ==, 4096);
	CHECK_INT(h->n_granules, ==, 512);
	for (i = 0; i < h->map_n; i++)
		full += h->cells[i] == CH_SPACE_FULL;
	CHECK_INT(full, ==, 512);
}

/* No native stat from outside NATIVEMEMINFO: every path starts at the
 * root JRE (the THREADS trap would add "All JVM attached threads"). */
static void check_native_roots(const struct cap *k)
{
	uint32_t i;

	for (i = 0; i < k->n_stats; i++)
		if (strncmp(k->stat_names[i], "native.", 7) == 0)
			CHECK_CONTAINS(k->stat_names[i], "native.JRE");
}

/* --- the grammar ------------------------------------------------------- */

TEST(javacore_split_tags)
{
	struct jc_line l;
	const char *s = "1STSEGMENT     0x01 0x02";

	CHECK(jc_split(s, strlen(s), &l));
	CHECK_INT(l.level, ==, 1);
	CHECK(jc_tag_is(&l, "1STSEGMENT"));
	CHECK_INT(l.content_len, ==, 9);
	CHECK(jc_split("NULL", 4, &l));
	CHECK_INT(l.level, ==, -1);
	CHECK_INT(l.content_len, ==, 0);
	CHECK(jc_split("0MEMUSER", 8, &l));
	CHECK(jc_tag_is(&l, "0MEMUSER"));
	CHECK(!jc_split("1st line", 8, &l));
	CHECK(!jc_split("1STx", 4, &l));
	CHECK(!jc_split("", 0, &l));
}

TEST(javacore_segment_and_amount_lines)
{
	struct jc_segment s;
	int64_t v;
	bool ok;
	/* README, 30220 file, the JIT Code Cache segment */
	const char *seg = "0x00000219B12CD498 0x00007FF8EEC00000 "
			  "0x00007FF8EEC07400 0x00007FF8FEC00000 0x00000068 "
			  "0x0000000010000000";
	/* the reference's older form: no 0x */
	const char *old = "00A1 00B0 00B8 00C0 68 10";

	CHECK(jc_parse_segment(seg, strlen(seg), &s));
	CHECK_UINT(s.start, ==, 0x00007FF8EEC00000);
	CHECK_UINT(s.alloc, ==, 0x00007FF8EEC07400);
	CHECK_UINT(s.end, ==, 0x00007FF8FEC00000);
	CHECK_UINT(s.type, ==, 0x68);
	CHECK_UINT(s.size, ==, 268435456);
	CHECK(jc_parse_segment(old, strlen(old), &s));
	CHECK_UINT(s.end, ==, 0xC0);
	CHECK(!jc_parse_segment("0x1 0x2 0x3", 11, &s));
	CHECK(!jc_parse_segment("0x1 0x2 0x3 0x4 0x5 0x12345678901234567", 39,
				&s));
	CHECK(jc_parse_amount("Total memory:   29696 (0x0000000000007400)", 42,
			      &v, &ok));
	CHECK_INT(v, ==, 29696);
	CHECK(ok);
	CHECK(jc_parse_amount("Total memory:   29697 (0x0000000000007400)", 42,
			      &v, &ok));
	CHECK(!ok);
	CHECK(!jc_parse_amount("Total memory: 99999999999999999999 (0x1)", 41,
			       &v, &ok));
}

TEST(javacore_memuser_lines)
{
	struct jc_memuser u;
	const char *root = "JRE: 1,066,694,264 bytes / 2505 allocations";
	const char *kid = "|  +--JIT Code Cache: 268,435,456 bytes / 1 "
			  "allocation";
	const char *odd = "|  |  +--Unused <32bit allocation regions: "
			  "208,168,096 bytes / 1 allocation";

	CHECK_INT(jc_parse_memuser(root, strlen(root), &u), ==, 1);
	CHECK_INT(u.depth, ==, 1);
	CHECK_INT(u.bytes, ==, 1066694264);
	CHECK_INT(u.allocations, ==, 2505);
	CHECK_INT(jc_parse_memuser(kid, strlen(kid), &u), ==, 1);
	CHECK_INT(u.depth, ==, 3);
	CHECK_INT(u.name_len, ==, strlen("JIT Code Cache"));
	CHECK_INT(u.bytes, ==, 268435456);
	CHECK_INT(jc_parse_memuser(odd, strlen(odd), &u), ==, 1);
	CHECK_INT(u.depth, ==, 4);
	CHECK_INT(u.name_len, ==, strlen("Unused <32bit allocation regions"));
	CHECK_INT(jc_parse_memuser("|  |", 4, &u), ==, 0);
	CHECK_INT(jc_parse_memuser("|", 1, &u), ==, 0);
	CHECK_INT(jc_parse_memuser("+--JIT: 587.687500000 secs", 26, &u), ==,
		  -1);
}

TEST(javacore_dates)
{
	int64_t ns;
	const char *d = "Date: 2022/06/06 at 11:44:58:407";
	const char *u = "Date: 2022/07/04 at 02:57:30:074 (UTC)";

	CHECK(jc_parse_date(d, strlen(d), &ns));
	CHECK_INT(ns, ==, utc_ns(2022, 6, 6, 11, 44, 58, 407));
	CHECK(jc_parse_date(u, strlen(u), &ns));
	CHECK_INT(ns, ==, utc_ns(2022, 7, 4, 2, 57, 30, 74));
	CHECK(!jc_parse_date("Date: 2022/13/06 at 11:44:58:407", 32, &ns));
	/* fuzz: a year past 2262 overflowed the ns (UBSan) */
	CHECK(!jc_parse_date("Date: 9999/12/31 at 23:59:59:999", 32, &ns));
	CHECK(jc_parse_date("Date: 2262/01/01 at 00:00:00:000", 32, &ns));
	CHECK(!jc_parse_date("Date: 1600/01/01 at 00:00:00:000", 32, &ns));
}

TEST(javacore_memtype_keys)
{
	char k[64];

	jc_memtype_key("JIT Code Cache", k, sizeof(k));
	CHECK_STR(k, "jit_code");
	jc_memtype_key("Internal Memory", k, sizeof(k));
	CHECK_STR(k, "internal");
	jc_memtype_key("Class Memory", k, sizeof(k));
	CHECK_STR(k, "class");
	jc_memtype_key("JIT Data Cache", k, sizeof(k));
	CHECK_STR(k, "jit_data");
	jc_memtype_key("Object Memory", k, sizeof(k));
	CHECK_STR(k, "object");
	jc_memtype_key("Some  New/Kind", k, sizeof(k));
	CHECK_STR(k, "some_new_kind");
}

/* README: MEMINFO at line 181, NATIVEMEMINFO at line 125 (30220); in
 * the 0001 file NATIVEMEMINFO at 205, MEMINFO at 267, LOCKS at 31134
 * and 170,365 lines. */
static void parse_lines(struct jc_parser *p, const char *text, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		jc_parser_line(p, text + pos, n);
		pos += n + 1;
	}
}

static int n_parser_warnings;
static void count_warn(void *ctx, enum err_code code, uint64_t line,
		       const char *msg)
{
	(void)ctx;
	(void)code;
	(void)line;
	(void)msg;
	n_parser_warnings++;
}

TEST(javacore_parser_section_lines)
{
	struct arena a;
	struct jc_parser p;
	size_t len = 0;
	char *text = test_read_file(
		test_fixture(
			"javacore/javacore.20230830.134339.30220.0001.txt"),
		&len);

	CHECK(text != NULL);
	if (!text)
		return;
	arena_init(&a, 0);
	n_parser_warnings = 0;
	jc_parser_init(&p, &a, count_warn, NULL);
	parse_lines(&p, text, len);
	jc_parser_finish(&p);
	CHECK_INT(p.meminfo_line, ==, 181);
	CHECK_INT(p.native_line, ==, 125);
	CHECK(p.end_seen);
	CHECK(p.gc_history);
	CHECK_INT(n_parser_warnings, ==, 0);
	/* README: 1 space, 3 regions */
	CHECK_INT(p.n_heap_spaces, ==, 1);
	CHECK_INT(p.n_heap_regions, ==, 3);
	/* README order: Internal, Class, JIT Code Cache, JIT Data Cache */
	CHECK_INT(p.n_types, ==, 4);
	if (p.n_types == 4) {
		CHECK_STR(p.types[0].name, "Internal Memory");
		CHECK_STR(p.types[1].name, "Class Memory");
		CHECK_STR(p.types[2].name, "JIT Code Cache");
		CHECK_STR(p.types[3].name, "JIT Data Cache");
		/* only the JIT caches keep their segments */
		CHECK_INT(p.types[1].n_segs, ==, 0);
		CHECK_INT(p.types[2].n_segs, ==, 1);
	}
	jc_parser_release(&p);
	arena_release(&a);
	free(text);
}

/* --- the importer on the real files ------------------------------------ */

TEST(javacore_import_30220)
{
	struct cap k;
	const struct cap_heap *h;
	uint32_t i, nonzero = 0;

	import_fixture(&k, "javacore/javacore.20230830.134339.30220.0001.txt");
	CHECK_INT(k.rc, ==, 0);
	CHECK_INT(k.n_warnings, ==, 0);
	if (k.n_warnings)
		fprintf(stderr, "%s", k.warnings.data);
	CHECK_INT(k.n_codeheaps, ==, 1);
	CHECK_INT(k.n_recordings, ==, 1);
	CHECK_STR(k.kind, "javacore");
	CHECK_INT(k.line, ==, 181);
	/* README: the file name's 20230830.134339; the line's :154 ms */
	CHECK_INT(k.time_ns, ==, utc_ns(2023, 8, 30, 13, 43, 39, 154));
	CHECK_INT(k.start_ns, ==, k.time_ns);
	CHECK_INT(k.end_ns, ==, k.time_ns);
	CHECK_STR(k.format, "javacore");
	CHECK_CONTAINS(k.source, "javacore.20230830.134339.30220.0001.txt");
	CHECK_STR(k.jvm_name, "JRE 1.8.0 Windows 10 amd64-64 (build 8.0.6.15 "
			      "- pwa6480sr6fp15-20200724_01(SR6 FP15))");
	CHECK_STR(k.jvm_version, "20200724_452227");

	/* object heap */
	CHECK_INT(STAT(&k, "heap.spaces"), ==, 1);
	CHECK_INT(STAT(&k, "heap.regions"), ==, 3);
	CHECK_INT(STAT(&k, "heap.total"), ==, 8388608);
	CHECK_INT(STAT(&k, "heap.in_use"), ==, 2047056);
	CHECK_INT(STAT(&k, "heap.free"), ==, 6341552);
	/* 1 Tenured 0x600000 + 2 Nursery 0x100000 = 0x800000 = total */
	CHECK_INT(0x600000 + 2 * 0x100000, ==, STAT(&k, "heap.total"));

	CHECK_INT(STAT(&k, "mem.internal.segments"), ==, 2);
	CHECK_INT(STAT(&k, "mem.internal.total"), ==, 17825792);
	CHECK_INT(STAT(&k, "mem.internal.in_use"), ==, 706176);
	CHECK_INT(STAT(&k, "mem.internal.free"), ==, 17119616);
	CHECK(!has_stat(&k, "mem.internal.limit"));
	CHECK_INT(STAT(&k, "mem.class.segments"), ==, 48);
	CHECK_INT(STAT(&k, "mem.class.total"), ==, 2886736);
	CHECK_INT(STAT(&k, "mem.class.in_use"), ==, 2601080);
	CHECK_INT(STAT(&k, "mem.class.free"), ==, 285656);
	CHECK_INT(STAT(&k, "mem.jit_code.segments"), ==, 1);
	CHECK_INT(STAT(&k, "mem.jit_code.total"), ==, 268435456);
	CHECK_INT(STAT(&k, "mem.jit_code.in_use"), ==, 29696);
	CHECK_INT(STAT(&k, "mem.jit_code.free"), ==, 268405760);
	CHECK_INT(STAT(&k, "mem.jit_code.limit"), ==, 268435456);
	/* limit == the one segment's size: nothing unallocated */
	CHECK(!has_stat(&k, "jit_code.unallocated"));
	CHECK_INT(STAT(&k, "mem.jit_data.segments"), ==, 1);
	/* one 0x200000 segment, fully used */
	CHECK_INT(STAT(&k, "mem.jit_data.total"), ==, 2097152);
	CHECK_INT(STAT(&k, "mem.jit_data.in_use"), ==, 2097152);
	CHECK_INT(STAT(&k, "mem.jit_data.free"), ==, 0);
	CHECK_INT(STAT(&k, "mem.jit_data.limit"), ==, 402653184);
	CHECK(!has_stat(&k, "mem.object.segments"));

	/* NATIVEMEMINFO */
	CHECK_INT(STAT(&k, "native.JRE.bytes"), ==, 1066694264);
	CHECK_INT(STAT(&k, "native.JRE.allocations"), ==, 2505);
	CHECK_INT(STAT(&k, "native.JRE/JIT.bytes"), ==, 288523096);
	CHECK_INT(STAT(&k, "native.JRE/JIT.allocations"), ==, 144);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Code Cache.bytes"), ==,
		  268435456);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Code Cache.allocations"), ==, 1);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Data Cache.bytes"), ==, 2097216);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Data Cache.allocations"), ==, 1);
	CHECK_INT(STAT(&k, "native.JRE/JIT/Other.bytes"), ==, 17990424);
	CHECK_INT(STAT(&k, "native.JRE/JIT/Other.allocations"), ==, 142);
	/* the children, as parsed, add up to the parent as parsed */
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Code Cache.bytes") +
			  STAT(&k, "native.JRE/JIT/JIT Data Cache.bytes") +
			  STAT(&k, "native.JRE/JIT/Other.bytes"),
		  ==, STAT(&k, "native.JRE/JIT.bytes"));
	check_native_roots(&k);

	/* heaps: 1 code cache + 1 data cache segment */
	CHECK_INT(k.n_heaps, ==, 2);
	CHECK_INT(n_heaps_named(&k, "JIT Code Cache #"), ==, 1);
	CHECK_INT(n_heaps_named(&k, "JIT Data Cache #"), ==, 1);
	h = heap_named(&k, "JIT Code Cache #1");
	if (h) {
		check_heap_shape(h, true);
		CHECK_UINT(h->low, ==, 0x00007FF8EEC00000);
		CHECK_UINT(h->high, ==, 0x00007FF8FEC00000);
		CHECK_INT(h->committed, ==, 268435456);
		CHECK_INT(h->used, ==, 29696);
		CHECK_INT(h->free, ==, 268405760);
		/* 268435456 / 4096 granules = 65536, a power of two */
		CHECK_INT(h->granule_size, ==, 65536);
		CHECK_INT(h->n_granules, ==, 4096);
		/* 29696 / 65536 = 45.3% of the first granule: digit 4 */
		CHECK_INT(h->cells[0], ==, 1 + 4);
		for (i = 1; i < h->map_n; i++)
			nonzero += h->cells[i] != 0;
		CHECK_INT(nonzero, ==, 0);
	}
	h = heap_named(&k, "JIT Data Cache #1");
	if (h) {
		check_full_2mb(h);
		CHECK_UINT(h->low, ==, 0x00000219B25B5060);
		CHECK_UINT(h->high, ==, 0x00000219B27B5060);
	}
	cap_release(&k);
}

/* README for the two 32888 dumps: the JIT data cache's 15 full 2 MB
 * segments, sorted by start. */
static void check_data_15(const struct cap *k, uint64_t *lows)
{
	uint32_t i;
	int n = 0;
	char name[64];

	CHECK_INT(n_heaps_named(k, "JIT Data Cache #"), ==, 15);
	for (i = 1; i <= 15; i++) {
		const struct cap_heap *h;

		snprintf(name, sizeof(name), "JIT Data Cache #%u", i);
		h = heap_named(k, name);
		if (!h)
			continue;
		check_full_2mb(h);
		lows[i - 1] = h->low;
		if (i > 1 && h->low > lows[i - 2])
			n++;
	}
	CHECK_INT(n, ==, 14); /* strictly ascending */
	CHECK_INT(STAT(k, "mem.jit_data.segments"), ==, 15);
	CHECK_INT(STAT(k, "mem.jit_data.total"), ==, 31457280);
	/* every segment is 2 MiB: the total is the parsed count times that */
	CHECK_INT(STAT(k, "mem.jit_data.total"), ==,
		  STAT(k, "mem.jit_data.segments") * 2097152);
	CHECK_INT(STAT(k, "mem.jit_data.in_use"), ==, 31457280);
	CHECK_INT(STAT(k, "mem.jit_data.free"), ==, 0);
	CHECK_INT(STAT(k, "mem.jit_data.limit"), ==, 402653184);
}

static void check_code_32888(const struct cap *k, int64_t used)
{
	const struct cap_heap *h;

	CHECK_INT(n_heaps_named(k, "JIT Code Cache #"), ==, 1);
	CHECK_INT(k->n_heaps, ==, 16);
	CHECK_INT(STAT(k, "mem.jit_code.segments"), ==, 1);
	CHECK_INT(STAT(k, "mem.jit_code.total"), ==, 268435456);
	CHECK_INT(STAT(k, "mem.jit_code.in_use"), ==, used);
	CHECK_INT(STAT(k, "mem.jit_code.free"), ==, 268435456 - used);
	CHECK_INT(STAT(k, "mem.jit_code.limit"), ==, 268435456);
	CHECK(!has_stat(k, "jit_code.unallocated"));
	h = heap_named(k, "JIT Code Cache #1");
	if (!h)
		return;
	check_heap_shape(h, true);
	CHECK_UINT(h->low, ==, 0x00007FFBF2A00000);
	CHECK_UINT(h->high, ==, 0x00007FFC02A00000);
	CHECK_INT(h->committed, ==, 268435456);
	CHECK_INT(h->used, ==, used);
	CHECK_INT(h->free, ==, 268435456 - used);
	CHECK_INT(h->granule_size, ==, 65536);
	CHECK_INT(h->n_granules, ==, 4096);
	/*
	 * 0001: 57951648 = 884 * 65536 + 17824; 17824 / 65536 = 27.2%.
	 * 0002: 57978240 = 884 * 65536 + 44416; 44416 / 65536 = 67.8%.
	 * Granules 0..883 full, 884 partial, the rest empty.
	 */
	CHECK_INT(used / 65536, ==, 884);
	CHECK_INT(h->cells[0], ==, CH_SPACE_FULL);
	CHECK_INT(h->cells[883], ==, CH_SPACE_FULL);
	CHECK_INT(h->cells[884], ==, used == 57951648 ? 1 + 2 : 1 + 6);
	CHECK_INT(h->cells[885], ==, 0);
	CHECK_INT(h->cells[4095], ==, 0);
}

TEST(javacore_import_32888_0001)
{
	struct cap k;
	uint64_t lows[15];

	import_fixture(&k,
		       "javacore/javacore.20220606.114458.32888.0001.txt.gz");
	CHECK_INT(k.rc, ==, 0);
	CHECK_INT(k.n_codeheaps, ==, 1);
	CHECK_INT(k.line, ==, 267);
	/* README: 1TIDATETIMEUTC (2022/07/04) does not match 1TIDATETIME
	 * (2022/06/06): the one warning; the local time (the file name's
	 * 114458, the line's :407 ms) is used. */
	CHECK_INT(k.n_warnings, ==, 1);
	CHECK_CONTAINS(k.warnings.data, "1TIDATETIMEUTC");
	CHECK_CONTAINS(k.warnings.data, "line 5:");
	CHECK_INT(k.time_ns, ==, utc_ns(2022, 6, 6, 11, 44, 58, 407));

	CHECK_INT(STAT(&k, "heap.total"), ==, 4294967296);
	CHECK_INT(STAT(&k, "heap.in_use"), ==, 908153864);
	CHECK_INT(STAT(&k, "heap.free"), ==, 4294967296 - 908153864);
	CHECK_INT(STAT(&k, "heap.regions"), ==, 3);

	CHECK_INT(STAT(&k, "mem.internal.segments"), ==, 109);
	CHECK_INT(STAT(&k, "mem.internal.total"), ==, 114294784);
	CHECK_INT(STAT(&k, "mem.internal.in_use"), ==, 113307904);
	CHECK_INT(STAT(&k, "mem.internal.free"), ==, 114294784 - 113307904);
	CHECK_INT(STAT(&k, "mem.class.segments"), ==, 30557);
	CHECK_INT(STAT(&k, "mem.class.total"), ==, 551211120);
	CHECK_INT(STAT(&k, "mem.class.in_use"), ==, 511854376);
	CHECK_INT(STAT(&k, "mem.class.free"), ==, 551211120 - 511854376);

	/* in use: the segment's warm pointer minus its start (README) */
	check_code_32888(&k, 0x00007FFBF61445A0 - 0x00007FFBF2A00000);
	check_data_15(&k, lows);

	CHECK_INT(STAT(&k, "native.JRE/JIT.bytes"), ==, 418870416);
	CHECK_INT(STAT(&k, "native.JRE/JIT.allocations"), ==, 4156);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Code Cache.bytes"), ==,
		  268435456);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Code Cache.allocations"), ==, 1);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Data Cache.bytes"), ==,
		  31458240);
	CHECK_INT(STAT(&k, "native.JRE/JIT/JIT Data Cache.allocations"), ==,
		  15);
	CHECK_INT(STAT(&k, "native.JRE/JIT/Other.bytes"), ==, 118976720);
	CHECK_INT(STAT(&k, "native.JRE/JIT/Other.allocations"), ==, 4140);
	/* the THREADS trap ("+--JIT: 587.687500000 secs") is not read */
	check_native_roots(&k);
	CHECK(!has_stat(&k, "native.All JVM attached threads.bytes"));
	cap_release(&k);
}

TEST(javacore_import_32888_0002_and_the_difference)
{
	struct cap a, b;
	uint64_t lows_a[15], lows_b[15];
	int i, same = 0;

	import_fixture(&a,
		       "javacore/javacore.20220606.114458.32888.0001.txt.gz");
	import_fixture(&b,
		       "javacore/javacore.20220606.114502.32888.0002.txt.gz");
	CHECK_INT(b.rc, ==, 0);
	CHECK_INT(b.n_warnings, ==, 0);
	if (b.n_warnings)
		fprintf(stderr, "%s", b.warnings.data);
	CHECK_INT(b.n_codeheaps, ==, 1);

	/* in use: the segment's warm pointer minus its start (README) */
	check_code_32888(&b, 0x00007FFBF614AD80 - 0x00007FFBF2A00000);
	CHECK_INT(STAT(&b, "mem.internal.segments"), ==, 110);
	CHECK_INT(STAT(&b, "mem.internal.total"), ==, 131072000);
	CHECK_INT(STAT(&b, "mem.internal.in_use"), ==, 114042816);
	CHECK_INT(STAT(&b, "mem.class.segments"), ==, 30557);
	CHECK_INT(STAT(&b, "native.JRE/JIT.bytes"), ==, 435660872);
	CHECK_INT(STAT(&b, "native.JRE/JIT.allocations"), ==, 4190);
	CHECK_INT(STAT(&b, "native.JRE/JIT/Other.bytes"), ==, 135767176);
	CHECK_INT(STAT(&b, "native.JRE/JIT/Other.allocations"), ==, 4174);
	check_native_roots(&b);
	check_data_15(&a, lows_a);
	check_data_15(&b, lows_b);
	for (i = 0; i < 15; i++)
		same += lows_a[i] == lows_b[i];
	CHECK_INT(same, ==, 15); /* "the same 15 full 2 MB segments" */

	/* README: 26,592 bytes more code, same segment */
	if (a.n_heaps && b.n_heaps) {
		const struct cap_heap *ha = heap_named(&a, "JIT Code Cache #1");
		const struct cap_heap *hb = heap_named(&b, "JIT Code Cache #1");

		if (ha && hb) {
			CHECK_UINT(ha->low, ==, hb->low);
			CHECK_UINT(ha->high, ==, hb->high);
			CHECK_INT(hb->used - ha->used, ==, 26592);
			CHECK_INT(ha->free - hb->free, ==, 26592);
		}
	}
	CHECK_INT(STAT(&b, "mem.jit_code.in_use") -
			  STAT(&a, "mem.jit_code.in_use"),
		  ==, 26592);
	/* two dumps 4.5 s apart (README); both from 1TIDATETIME */
	CHECK_INT(b.time_ns - a.time_ns, >, 4000000000);
	CHECK_INT(b.time_ns - a.time_ns, <, 5000000000);
	cap_release(&a);
	cap_release(&b);
}

/* --- hostile javacores made in memory ---------------------------------- */

#define HEAD                                                                \
	"0SECTION       TITLE subcomponent dump routine\n"                  \
	"NULL           ===============================\n"                  \
	"1TIDATETIMEUTC Date: 2024/01/02 at 01:00:00:000 (UTC)\n"           \
	"1TIDATETIME    Date: 2024/01/02 at 02:00:00:500\n"                 \
	"NULL           ------------------------------------------------\n" \
	"0SECTION       ENVINFO subcomponent dump routine\n"                \
	"1CIJAVAVERSION JRE 11 Linux amd64-64\n"                            \
	"1CIVMVERSION   openj9-0.42\n"
/* line 9 */
#define MEMINFO_HEAD                                         \
	"0SECTION       MEMINFO subcomponent dump routine\n" \
	"NULL           =================================\n"
/* line 11 */
#define CODE_TYPE                         \
	"1STSEGTYPE     JIT Code Cache\n" \
	"NULL           segment start alloc end type size\n"
#define END                                                    \
	"NULL           -----------------------------------\n" \
	"0SECTION       Javadump End section\n"

TEST(javacore_time_within_a_zone_uses_utc)
{
	struct cap k;
	static const char t[] = HEAD END;

	import_mem(&k, t, sizeof(t) - 1);
	CHECK_INT(k.rc, ==, 0);
	/* the UTC line is an hour from the local one: a zone, so UTC */
	CHECK_INT(k.start_ns, ==, utc_ns(2024, 1, 2, 1, 0, 0, 0));
	CHECK_STR(k.jvm_name, "JRE 11 Linux amd64-64");
	CHECK_STR(k.jvm_version, "openj9-0.42");
	/* no MEMINFO and no NATIVEMEMINFO: a warning, no snapshot */
	CHECK_INT(k.n_codeheaps, ==, 0);
	CHECK_INT(k.n_recordings, ==, 1);
	CHECK_INT(k.n_warnings, ==, 1);
	CHECK_CONTAINS(k.warnings.data, "no MEMINFO section in 10 lines");
	cap_release(&k);
}

TEST(javacore_truncated_inside_meminfo)
{
	struct cap k;
	size_t len = 0, cut;
	const char *p;
	int i;
	char *text = test_read_file(
		test_fixture(
			"javacore/javacore.20230830.134339.30220.0001.txt"),
		&len);

	CHECK(text != NULL);
	if (!text)
		return;
	/* cut after the 10th segment of the Class Memory block */
	p = strstr(text, "1STSEGTYPE     Class Memory");
	CHECK(p != NULL);
	if (!p) {
		free(text);
		return;
	}
	for (i = 0; i < 10 && p; i++) {
		p = strstr(p + 1, "\n1STSEGMENT");
	}
	p = p ? strchr(p + 1, '\n') : NULL;
	CHECK(p != NULL);
	if (!p) {
		free(text);
		return;
	}
	cut = (size_t)(p - text) + 1;
	import_mem(&k, text, cut);
	CHECK_INT(k.rc, ==, 0);
	CHECK_INT(k.n_codeheaps, ==, 1);
	CHECK_INT(k.line, ==, 181);
	/* what was complete is imported */
	CHECK_INT(STAT(&k, "heap.total"), ==, 8388608);
	CHECK_INT(STAT(&k, "mem.internal.total"), ==, 17825792);
	CHECK_INT(STAT(&k, "mem.class.segments"), ==, 10);
	CHECK(!has_stat(&k, "mem.jit_code.segments"));
	CHECK_INT(k.n_heaps, ==, 0);
	CHECK_INT(STAT(&k, "native.JRE/JIT.bytes"), ==, 288523096);
	/* the block without totals, and the section cut short */
	CHECK_INT(k.n_warnings, ==, 2);
	CHECK_CONTAINS(k.warnings.data, "'Class Memory' block (line");
	CHECK_CONTAINS(k.warnings.data, "without its 1STSEGTOTAL");
	CHECK_CONTAINS(k.warnings.data,
		       "the MEMINFO section (line 181) is cut short");
	free(text);
	cap_release(&k);
}

TEST(javacore_garbled_segment_line)
{
	struct cap k;
	/* HEAD is lines 1-8, MEMINFO_HEAD 9-10, CODE_TYPE 11-12 */
	static const char t[] = HEAD MEMINFO_HEAD CODE_TYPE
		"1STSEGMENT     0x01 0x10000 0x10800 0x11000 0x68 0x1000\n"
		"1STSEGMENT     0x02 0x20000 0xZZ 0x21000 0x68 0x1000\n"
		"1STSEGMENT     0x03 0x30000 0x31000 0x30000 0x68 0x1000\n"
		"NULL\n"
		"1STSEGTOTAL    Total memory:   12288 (0x3000)\n"
		"1STSEGINUSE    Total memory in use:   6144 (0x1800)\n"
		"1STSEGFREE     Total memory free:   6144 (0x1800)\n"
		"1STSEGLIMIT    Allocation limit:   16384 (0x4000)\n" END;
	const struct cap_heap *h;

	import_mem(&k, t, sizeof(t) - 1);
	CHECK_INT(k.rc, ==, 0);
	CHECK_INT(k.line, ==, 9);
	CHECK_CONTAINS(
		k.warnings.data,
		"line 14: malformed 1STSEGMENT line in 'JIT Code Cache'");
	CHECK_CONTAINS(k.warnings.data, "line 15: 1STSEGMENT in 'JIT Code "
					"Cache' with start 0x30000");
	/* one segment of 0x1000 read; the totals say 0x3000: cross-check */
	CHECK_CONTAINS(k.warnings.data,
		       "line 17: 'JIT Code Cache': the 1 segments' sizes add "
		       "up to 4096 bytes, 1STSEGTOTAL says 12288");
	CHECK_CONTAINS(k.warnings.data, "line 18: 'JIT Code Cache': alloc - "
					"start adds up to 2048 bytes");
	CHECK_INT(k.n_warnings, ==, 4);
	CHECK_INT(STAT(&k, "mem.jit_code.segments"), ==, 1);
	CHECK_INT(STAT(&k, "mem.jit_code.total"), ==, 12288);
	/* limit 16384 - 4096 of segments */
	CHECK_INT(STAT(&k, "jit_code.unallocated"), ==, 12288);
	CHECK_INT(k.n_heaps, ==, 1);
	h = k.n_heaps ? &k.heaps[0] : NULL;
	if (h) {
		CHECK_STR(h->name, "JIT Code Cache #1");
		check_heap_shape(h, true);
		/* 4096 bytes: one 4096-byte granule, half used (digit 5) */
		CHECK_INT(h->granule_size, ==, 4096);
		CHECK_INT(h->n_granules, ==, 1);
		CHECK_INT(h->cells[0], ==, 1 + 5);
	}
	/* the UTC time (1 h from local) */
	CHECK_INT(k.time_ns, ==, utc_ns(2024, 1, 2, 1, 0, 0, 0));
	cap_release(&k);
}

TEST(javacore_huge_numbers)
{
	struct cap k;
	static const char t[] = HEAD
		"0SECTION       NATIVEMEMINFO subcomponent dump routine\n"
		"0MEMUSER\n"
		"1MEMUSER       JRE: 99,999,999,999,999,999,999 bytes / 1 "
		"allocation\n"
		"1MEMUSER       JRE: 9,223,372,036,854,775,800 bytes / 2 "
		"allocations\n"
		"2MEMUSER       +--JIT: 5 bytes / 99999999999999999999 "
		"allocations\n" MEMINFO_HEAD CODE_TYPE
		/* line 18: 2^63 - 1 bytes; line 19: more than 2^63 */
		"1STSEGMENT     0x01 0x0 0x1 0x7FFFFFFFFFFFFFFF 0x68 0x1\n"
		"1STSEGMENT     0x02 0x0 0x0 0xFFFFFFFFFFFFFFFF 0x68 0x1\n"
		"1STSEGMENT     0x02 0x0 0x0 0x10 0x68 0x1FFFFFFFFFFFFFFFF\n"
		"1STSEGTOTAL    Total memory: 99999999999999999999 (0x1)\n"
		"1STSEGINUSE    Total memory in use: 9223372036854775807 "
		"(0x7FFFFFFFFFFFFFFF)\n"
		"1STSEGFREE     Total memory free: 1 (0x2)\n" END;
	const struct cap_heap *h;

	import_mem(&k, t, sizeof(t) - 1);
	CHECK_INT(k.rc, ==, 0);
	/* the first row overflows int64: malformed; the second is the
	 * root; the third's count overflows */
	CHECK_CONTAINS(k.warnings.data, "line 11: malformed 1MEMUSER");
	CHECK_CONTAINS(k.warnings.data, "line 13: malformed 2MEMUSER");
	CHECK_INT(STAT(&k, "native.JRE.bytes"), ==,
		  INT64_C(9223372036854775800));
	CHECK(!has_stat(&k, "native.JRE/JIT.bytes"));
	CHECK_CONTAINS(k.warnings.data, "line 19: 1STSEGMENT in 'JIT Code "
					"Cache' with start 0x0");
	CHECK_CONTAINS(k.warnings.data, "line 20: malformed 1STSEGMENT");
	CHECK_CONTAINS(k.warnings.data, "line 21: malformed 1STSEGTOTAL");
	CHECK_CONTAINS(k.warnings.data, "line 23: 1STSEGFREE: the decimal 1 "
					"and the hex value in brackets differ");
	CHECK_INT(k.n_heaps, ==, 1);
	h = k.n_heaps ? &k.heaps[0] : NULL;
	if (h) {
		check_heap_shape(h, true);
		CHECK_INT(h->committed, ==, INT64_MAX);
		/* 2^63 - 1 bytes in 4096 granules: 2^63 / 2^12 = 2^51 */
		CHECK_INT(h->granule_size, ==, INT64_C(1) << 51);
		CHECK_INT(h->n_granules, ==, 4096);
		CHECK_INT(h->used, ==, 1);
		CHECK_INT(h->cells[0], ==, 1 + 0);
	}
	cap_release(&k);
}

TEST(javacore_no_meminfo_and_no_codeheap_callback)
{
	struct cap k;
	struct input in;
	static const char t[] =
		HEAD "0SECTION       NATIVEMEMINFO subcomponent dump routine\n"
		     "0MEMUSER\n"
		     "1MEMUSER       JRE: 1,000 bytes / 2 allocations\n"
		     "1MEMUSER       |\n"
		     "2MEMUSER       +--JIT: 600 bytes / 1 allocation\n"
		     "0SECTION       THREADS subcomponent dump routine\n"
		     "1XMTHDCATEGORY All JVM attached threads: 1.0 secs\n"
		     "2MEMUSER       +--JIT: 587 bytes / 9 allocations\n"
		     "3XMTHDCATEGORY |  +--JIT: 587.687500000 secs\n" END;

	import_mem(&k, t, sizeof(t) - 1);
	CHECK_INT(k.rc, ==, 0);
	/* NATIVEMEMINFO alone still makes a snapshot, at its line */
	CHECK_INT(k.n_codeheaps, ==, 1);
	CHECK_INT(k.line, ==, 9);
	CHECK_INT(k.n_heaps, ==, 0);
	CHECK_INT(STAT(&k, "native.JRE/JIT.bytes"), ==, 600);
	CHECK_INT(STAT(&k, "native.JRE/JIT.allocations"), ==, 1);
	CHECK_INT(k.n_stats, ==, 4);
	CHECK_INT(k.n_warnings, ==, 1);
	CHECK_CONTAINS(k.warnings.data, "no MEMINFO section");
	cap_release(&k);

	/* a sink without a codeheap callback still gets the recording */
	cap_init(&k);
	input_init_memory(&in, "mem.txt", t, sizeof(t) - 1);
	import_input(&k, &in, "mem.txt", &cap_ops_no_codeheap);
	input_release(&in);
	CHECK_INT(k.rc, ==, 0);
	CHECK_INT(k.n_codeheaps, ==, 0);
	CHECK_INT(k.n_recordings, ==, 1);
	cap_release(&k);
}

TEST(javacore_not_a_javacore_and_odd_trees)
{
	struct cap k;
	static const char odd[] =
		"0SECTION       NATIVEMEMINFO subcomponent dump routine\n"
		"3MEMUSER       |  +--Orphan: 1 bytes / 1 allocation\n"
		"1MEMUSER       JRE: 10 bytes / 1 allocation\n"
		"2MEMUSER       +--A: 1 bytes / 1 allocation\n"
		"2MEMUSER       +--A: 2 bytes / 1 allocation\n"
		"3MEMUSER       +--B: 1 bytes / 1 allocation\n"
		"0SECTION       MEMINFO subcomponent dump routine\n"
		"1STSEGMENT     0x1 0x2 0x3 0x4 0x5 0x6\n"
		"1STSEGTYPE     JIT Code Cache\n"
		"1STSEGTYPE     JIT Code Cache\n";

	import_mem(&k, "hello\nworld\n", 12);
	CHECK_INT(k.rc, <, 0);
	CHECK_CONTAINS(k.e.msg, "no javacore tag lines");
	CHECK_INT(k.n_recordings, ==, 0);
	cap_release(&k);

	import_mem(&k, "", 0);
	CHECK_INT(k.rc, <, 0);
	cap_release(&k);

	import_mem(&k, odd, sizeof(odd) - 1);
	CHECK_INT(k.rc, ==, 0);
	CHECK_CONTAINS(k.warnings.data, "line 2: 3MEMUSER \"Orphan\" has no "
					"parent row");
	CHECK_CONTAINS(k.warnings.data, "category 'JRE/A' appears twice");
	CHECK_CONTAINS(k.warnings.data, "line 6: 3MEMUSER drawn at depth 2");
	CHECK_CONTAINS(k.warnings.data, "line 8: 1STSEGMENT outside a "
					"1STSEGTYPE block");
	CHECK_CONTAINS(k.warnings.data, "line 10: a second 'JIT Code Cache' "
					"block is ignored");
	CHECK_CONTAINS(k.warnings.data, "is cut short at line 10");
	CHECK_INT(STAT(&k, "native.JRE/A.bytes"), ==, 1);
	CHECK_INT(STAT(&k, "native.JRE/A/B.bytes"), ==, 1);
	CHECK_INT(STAT(&k, "mem.jit_code.segments"), ==, 0);
	cap_release(&k);
}

TEST(javacore_native_limits)
{
	struct cap k;
	struct buf t = BUF_INIT;
	int i;

	buf_adds(&t, "0SECTION       NATIVEMEMINFO subcomponent dump routine\n"
		     "1MEMUSER       ");
	for (i = 0; i < JC_MAX_NAME + 1; i++)
		buf_addch(&t, 'x');
	buf_adds(&t, ": 1 bytes / 1 allocation\n"
		     "1MEMUSER       JRE: 1 bytes / 1 allocation\n");
	for (i = 0; i < JC_MAX_NATIVE_ROWS + 5; i++)
		buf_addf(&t, "2MEMUSER       +--c%d: 1 bytes / 1 allocation\n",
			 i);
	buf_adds(&t, "0SECTION       Javadump End section\n");
	import_mem(&k, t.data, t.len);
	CHECK_INT(k.rc, ==, 0);
	CHECK_CONTAINS(k.warnings.data, "line 2: 1MEMUSER name of 257 bytes");
	CHECK_CONTAINS(k.warnings.data,
		       "more than 10000 native memory categories");
	/* the root and 9999 children, two stats each */
	CHECK_INT(k.n_stats, ==, 2 * JC_MAX_NATIVE_ROWS);
	CHECK_INT(STAT(&k, "native.JRE/c9998.bytes"), ==, 1);
	CHECK(!has_stat(&k, "native.JRE/c9999.bytes"));
	cap_release(&k);
	buf_release(&t);
}

/* fuzz crash f64492bb (UBSan): a year past 2262 overflowed the ns */
TEST(javacore_fuzz_far_future_date)
{
	struct cap k;
	static const char t[] =
		"0SECTION       TITLE subcomponent dump routine\n"
		"1TIDATETIMEUTC Date: 2022/07/04 at 02:57:30:074 (UTC)\n"
		"1TIDATETIME    Date: 6256/06/06 at 11:44:58:407\n" END;

	import_mem(&k, t, sizeof(t) - 1);
	CHECK_INT(k.rc, ==, 0);
	CHECK_CONTAINS(k.warnings.data, "line 3: unreadable 1TIDATETIME date");
	/* the UTC line alone is then used */
	CHECK_INT(k.start_ns, ==, utc_ns(2022, 7, 4, 2, 57, 30, 74));
	cap_release(&k);
}
