/*
 * heapsift codeheap: the code-heap snapshots of a store (HotSpot
 * CodeHeap_Analytics reports, Compiler.codecache summaries and
 * codelists, OpenJ9 javacores): per-heap facts, a granule map drawn as
 * text, every granule as CSV, and two snapshots side by side.  This file
 * holds the options, the CSV, the comparison and the listing; the text
 * of each snapshot and heap is cmd_codeheap_text.c's
 * (cmd_codeheap_int.h).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/cli_view.h"
#include "cli/cmd_codeheap_int.h"
#include "query/query_codeheap.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/term.h"

static const char codeheap_help[] =
	"usage: heapsift codeheap CASE.hsdb|INPUT... [--heap=NAME] "
	"[--snapshot=N]\n"
	"                         [--map=count|space|age|tier|type] "
	"[--width=N]\n"
	"                         [--csv] [--granules] [--compare=A,B]\n"
	"\n"
	"The JIT code heaps the store holds, one snapshot per imported report\n"
	"(`heapsift import` reads Compiler.CodeHeap_Analytics output, the\n"
	"PrintCodeHeapAnalytics report in a JVM's stdout, Compiler.codecache,\n"
	"Compiler.codelist and OpenJ9 javacores).  For each heap: capacity,\n"
	"used and free space, block counts, the largest free and used blocks,\n"
	"fragmentation (1 - largest free / total free), space by tier, the "
	"age\n"
	"distribution, and a granule map.\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --heap=NAME       only heaps of that name: the whole name\n"
	"                        (\"CodeHeap 'profiled nmethods'\") or the "
	"part\n"
	"                        in quotes (\"profiled nmethods\")\n"
	"      --snapshot=N      only snapshot N (numbered from 0, as listed)\n"
	"      --map=FLAVOUR     the map to draw: space (the default), count,\n"
	"                        age, tier (1 tier 1, 2 tier 2, s stubs, m\n"
	"                        mixed) or type (granule == segment reports)\n"
	"      --width=N         map cells per line (default 64); a map wider\n"
	"                        than 32 lines merges granules per cell\n"
	"      --csv             one row per heap per snapshot (RFC 4180)\n"
	"      --granules        with --csv: one row per granule, every "
	"flavour\n"
	"      --compare=A,B     snapshots A and B side by side, heap by heap\n"
	"  -h, --help            this text\n";

static bool heap_selected(const struct codeheap_options *o, const char *name)
{
	const char *q;
	size_t n;

	if (!o->heap || !strcmp(o->heap, name))
		return true;
	q = strchr(name, '\'');
	n = strlen(o->heap);
	return q && !strncmp(q + 1, o->heap, n) && q[1 + n] == '\'' &&
	       q[2 + n] == '\0';
}

static void put_num(struct buf *b, int64_t v)
{
	if (v != CHQ_UNKNOWN)
		buf_addf(b, "%" PRId64, v);
}

/* --- CSV ---------------------------------------------------------------- */

static const char csv_header[] =
	"snapshot,heap,segment_size,granule_size,granules,capacity,used,free,"
	"largest_free,free_blocks,fragmentation,kind,source,line,used_blocks,"
	"reserved,max_used,largest_used,largest_used_name,low,high,maps,"
	"top_rows,named_rows,free_rows\r\n";

static void csv_heap(struct buf *b, const struct chq *q, uint32_t sn,
		     uint32_t h)
{
	const struct chq_heap *x = chq_heap(q, h);
	const struct chq_snapshot *s = chq_snapshot(q, sn);
	const char *name = chq_str(q, x->name), *src;
	struct ch_facts f;

	chq_facts(q, h, &f);
	buf_addf(b, "%u,", sn);
	buf_add_csv_name(b, name, strlen(name));
	buf_addch(b, ',');
	put_num(b, x->segment_size);
	buf_addch(b, ',');
	put_num(b, x->granule_size);
	buf_addch(b, ',');
	put_num(b, x->n_granules);
	buf_addch(b, ',');
	put_num(b, f.capacity);
	buf_addch(b, ',');
	put_num(b, f.used);
	buf_addch(b, ',');
	put_num(b, f.free);
	buf_addch(b, ',');
	put_num(b, f.largest_free);
	buf_addch(b, ',');
	put_num(b, f.free_blocks);
	buf_addch(b, ',');
	if (!isnan(f.fragmentation))
		buf_addf(b, "%.4f", f.fragmentation);
	buf_addch(b, ',');
	buf_add_csv_name(b, chq_str(q, s->kind), strlen(chq_str(q, s->kind)));
	buf_addch(b, ',');
	src = chq_snapshot_source(q, sn);
	buf_add_csv_name(b, src, strlen(src));
	buf_addf(b, ",%" PRIu64 ",", s->line);
	put_num(b, f.used_blocks);
	buf_addch(b, ',');
	put_num(b, f.reserved);
	buf_addch(b, ',');
	put_num(b, f.max_used);
	buf_addch(b, ',');
	put_num(b, f.largest_used);
	buf_addch(b, ',');
	if (f.largest_used_name)
		buf_add_csv_name(b, f.largest_used_name,
				 strlen(f.largest_used_name));
	buf_addch(b, ',');
	if (x->low)
		buf_addf(b, "0x%016" PRIx64, x->low);
	buf_addch(b, ',');
	if (x->high)
		buf_addf(b, "0x%016" PRIx64, x->high);
	buf_addf(b, ",%u,%u,%u,%u\r\n", f.maps, f.top_rows, f.named_rows,
		 f.free_rows);
}

static const struct {
	const char *col;
	enum ch_measure m;
	enum ch_part p;
} granule_cols[] = {
	{"count", CH_COUNT, CH_ALL},
	{"count_tier1", CH_COUNT, CH_TIER1},
	{"count_tier2", CH_COUNT, CH_TIER2},
	{"count_inactive", CH_COUNT, CH_INACTIVE},
	{"count_stub", CH_COUNT, CH_STUB},
	{"count_dead", CH_COUNT, CH_DEAD},
	{"space", CH_SPACE, CH_ALL},
	{"space_tier1", CH_SPACE, CH_TIER1},
	{"space_tier2", CH_SPACE, CH_TIER2},
	{"space_inactive", CH_SPACE, CH_INACTIVE},
	{"space_stub", CH_SPACE, CH_STUB},
	{"space_dead", CH_SPACE, CH_DEAD},
	{"age", CH_AGE, CH_ALL},
	{"age_tier1", CH_AGE, CH_TIER1},
	{"age_tier2", CH_AGE, CH_TIER2},
	{"age_inactive", CH_AGE, CH_INACTIVE},
	{"type", CH_TYPE, CH_ALL},
};

#define N_GCOLS (sizeof(granule_cols) / sizeof(granule_cols[0]))

/* A cell as CSV: counts as numbers (16: 16 or more), space as the lower
 * bound of the printed range in percent (100: full), age as the printed
 * digit, type by name; empty when the heap has no such map. */
static void csv_cell(struct buf *b, enum ch_measure m, uint8_t v)
{
	switch (m) {
	case CH_COUNT:
		buf_addf(b, "%u", v);
		break;
	case CH_SPACE:
		buf_addf(b, "%u",
			 v == 0		      ? 0
			 : v >= CH_SPACE_FULL ? 100
					      : (v - 1) * 10);
		break;
	case CH_AGE:
		if (v)
			buf_addf(b, "%u", v - 1);
		break;
	default:
		buf_adds(b, ch_block_type_name((enum ch_block_type)v));
	}
}

static int csv_granules(const struct chq *q, uint32_t sn, uint32_t h,
			struct buf *b)
{
	const struct chq_heap *x = chq_heap(q, h);
	const char *name = chq_str(q, x->name);
	const uint8_t *maps[N_GCOLS];
	uint32_t lens[N_GCOLS], c, n = 0;
	int64_t g;

	/* as many rows as the maps have cells (every map of a heap has the
	 * heap's granule count: the importer drops any other) */
	for (c = 0; c < N_GCOLS; c++) {
		maps[c] = chq_map(q, h, granule_cols[c].m, granule_cols[c].p,
				  &lens[c]);
		if (maps[c] && lens[c] > n)
			n = lens[c];
	}
	for (g = 0; g < (int64_t)n; g++) {
		buf_reset(b);
		buf_addf(b, "%u,", sn);
		buf_add_csv_name(b, name, strlen(name));
		buf_addf(b, ",%" PRId64 ",", g);
		if (x->low && x->granule_size > 0)
			buf_addf(b, "0x%016" PRIx64,
				 x->low + (uint64_t)g *
						  (uint64_t)x->granule_size);
		for (c = 0; c < N_GCOLS; c++) {
			buf_addch(b, ',');
			if (maps[c] && (uint64_t)g < lens[c])
				csv_cell(b, granule_cols[c].m, maps[c][g]);
		}
		buf_adds(b, "\r\n");
		if (fwrite(b->data, 1, b->len, stdout) != b->len)
			return -1;
	}
	return 0;
}

/* --- compare ---------------------------------------------------------------- */

/* A fact of two snapshots and its change; apart: the two are not of
 * the same thing (no change shown). */
static void cmp_row(struct buf *b, const char *what, int64_t a, int64_t c,
		    bool apart)
{
	int64_t d;

	buf_addf(b, "    %-14s", what);
	if (a == CHQ_UNKNOWN)
		buf_addf(b, " %14s", "?");
	else
		buf_addf(b, " %14" PRId64, a);
	if (c == CHQ_UNKNOWN)
		buf_addf(b, " %14s", "?");
	else
		buf_addf(b, " %14" PRId64, c);
	if (a != CHQ_UNKNOWN && c != CHQ_UNKNOWN && !apart &&
	    !__builtin_sub_overflow(c, a, &d))
		buf_addf(b, " %+14" PRId64, d);
	buf_addch(b, '\n');
}

static void compare(const struct chq *q, uint32_t a, uint32_t c, bool csv,
		    struct buf *b)
{
	const struct chq_snapshot *sa = chq_snapshot(q, a);
	uint32_t i;

	if (csv)
		buf_adds(b, "heap,fact,a,b,change\r\n");
	else
		term_addf(b, "snapshot %u (%s) and %u (%s)\n", a,
			  chq_str(q, sa->kind), c,
			  chq_str(q, chq_snapshot(q, c)->kind));
	for (i = 0; i < sa->n_heaps; i++) {
		uint32_t h = sa->first_heap + i, k = chq_match_heap(q, c, h);
		const char *name = chq_str(q, chq_heap(q, h)->name);
		struct ch_facts fa, fc;
		struct {
			const char *n;
			int64_t x, y;
		} rows[8];
		size_t r;
		int64_t d;
		bool apart;

		chq_facts(q, h, &fa);
		if (k == UINT32_MAX) {
			if (!csv)
				term_addf(b, "  %s: not in snapshot %u\n", name,
					  c);
			continue;
		}
		chq_facts(q, k, &fc);
		rows[0].n = "capacity", rows[0].x = fa.capacity,
		rows[0].y = fc.capacity;
		rows[1].n = "used", rows[1].x = fa.used, rows[1].y = fc.used;
		rows[2].n = "free", rows[2].x = fa.free, rows[2].y = fc.free;
		rows[3].n = "largest_free", rows[3].x = fa.largest_free,
		rows[3].y = fc.largest_free;
		rows[4].n = "free_blocks", rows[4].x = fa.free_blocks,
		rows[4].y = fc.free_blocks;
		rows[5].n = "used_blocks", rows[5].x = fa.used_blocks,
		rows[5].y = fc.used_blocks;
		rows[6].n = "max_used", rows[6].x = fa.max_used,
		rows[6].y = fc.max_used;
		rows[7].n = "largest_used", rows[7].x = fa.largest_used,
		rows[7].y = fc.largest_used;
		if (!csv)
			term_addf(b, "  %s\n    %-14s %14s %14s %14s\n", name,
				  "", "A", "B", "CHANGE");
		/* a report's free lies in the committed part, a summary's
		 * is of the reserved size: no change between the two */
		apart = strcmp(fa.size_is, fc.size_is) != 0;
		if (apart) {
			if (!csv)
				buf_addf(b,
					 "    (free: of the %s size in A, of "
					 "the %s size in B; not compared)\n",
					 fa.size_is, fc.size_is);
		}
		for (r = 0; r < 8; r++) {
			if (!csv) {
				cmp_row(b, rows[r].n, rows[r].x, rows[r].y,
					apart && r == 2);
				continue;
			}
			buf_add_csv_name(b, name, strlen(name));
			buf_addf(b, ",%s,", rows[r].n);
			put_num(b, rows[r].x);
			buf_addch(b, ',');
			put_num(b, rows[r].y);
			buf_addch(b, ',');
			if (rows[r].x != CHQ_UNKNOWN &&
			    rows[r].y != CHQ_UNKNOWN && !(apart && r == 2) &&
			    !__builtin_sub_overflow(rows[r].y, rows[r].x, &d))
				buf_addf(b, "%" PRId64, d);
			buf_adds(b, "\r\n");
		}
		if (!csv) {
			if (isnan(fa.fragmentation) || isnan(fc.fragmentation))
				buf_addf(b, "    %-14s %14s\n", "fragmentation",
					 "?");
			else
				buf_addf(b, "    %-14s %14.3f %14.3f %+14.3f\n",
					 "fragmentation", fa.fragmentation,
					 fc.fragmentation,
					 fc.fragmentation - fa.fragmentation);
		}
	}
}

static bool parse_pair(const char *s, int64_t *a, int64_t *b)
{
	char *end;
	long long x, y;

	x = strtoll(s, &end, 10);
	if (end == s || *end != ',' || x < 0)
		return false;
	s = end + 1;
	y = strtoll(s, &end, 10);
	if (end == s || *end || y < 0)
		return false;
	*a = x;
	*b = y;
	return true;
}

enum {
	OPT_HEAP = 256,
	OPT_SNAPSHOT,
	OPT_MAP,
	OPT_WIDTH,
	OPT_CSV,
	OPT_GRANULES,
	OPT_COMPARE,
};
const struct option codeheap_option_table[] = {
	{"heap", required_argument, NULL, OPT_HEAP},
	{"snapshot", required_argument, NULL, OPT_SNAPSHOT},
	{"map", required_argument, NULL, OPT_MAP},
	{"width", required_argument, NULL, OPT_WIDTH},
	{"csv", no_argument, NULL, OPT_CSV},
	{"granules", no_argument, NULL, OPT_GRANULES},
	{"compare", required_argument, NULL, OPT_COMPARE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct cli_option_words codeheap_word_table[] = {
	{"map", chq_flavour_word},
	{NULL, NULL},
};

static int codeheap_parse(int argc, char **argv, struct codeheap_options *o)
{
	uint64_t u;
	int c;

	memset(o, 0, sizeof(*o));
	o->snapshot = o->cmp_a = o->cmp_b = -1;
	o->flavour = CHQ_SPACE;
	o->width = 64;
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", codeheap_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help(codeheap_help);
		case OPT_HEAP:
			o->heap = optarg;
			break;
		case OPT_SNAPSHOT:
			if (!cli_parse_count(optarg, &u) || u > UINT32_MAX)
				return cli_usage_error(
					"codeheap",
					"--snapshot: '%s' is not "
					"a snapshot number (a whole "
					"number from 0)",
					optarg);
			o->snapshot = (int64_t)u;
			break;
		case OPT_MAP:
			if (!chq_flavour_parse(optarg, &o->flavour))
				return cli_usage_error(
					"codeheap",
					"--map: '%s' is not one of count, "
					"space, age, tier, type",
					optarg);
			break;
		case OPT_WIDTH:
			if (!cli_parse_count(optarg, &u) || u < 8 || u > 4096)
				return cli_usage_error(
					"codeheap",
					"--width: '%s' is not "
					"a number from 8 to 4096",
					optarg);
			o->width = (uint32_t)u;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		case OPT_GRANULES:
			o->granules = true;
			break;
		case OPT_COMPARE:
			if (!parse_pair(optarg, &o->cmp_a, &o->cmp_b))
				return cli_usage_error("codeheap",
						       "--compare: '%s' is not "
						       "two snapshot numbers "
						       "A,B",
						       optarg);
			break;
		default:
			return cli_getopt_error("codeheap", c, argv);
		}
	}
	if (o->granules && !o->csv)
		return cli_usage_error("codeheap", "--granules needs --csv");
	o->n_operands = argc - optind;
	o->operands = argv + optind;
	return CLI_RUN;
}

/* The store and its code heaps, holding the snapshots o names: 0, or
 * the exit status after a message (nothing left open). */
static int codeheap_open(const struct codeheap_options *o, struct store **s,
			 struct chq **q)
{
	struct err e;
	char *path;
	int rc, in_status;
	uint32_t n;

	/* one store, or the inputs to read into the cache store */
	rc = cli_store_open("codeheap", o->n_operands, o->operands, s, &path,
			    &in_status);
	if (rc)
		return rc;
	free(path);
	err_init(&e);
	if (chq_open(*s, q, &e) < 0) {
		view_error("codeheap", &e);
		store_close(*s);
		return EXIT_ERROR;
	}
	/* counted before q is freed: it was read after (ASan) */
	n = chq_n_snapshots(*q);
	if (!n) {
		chq_free(*q);
		store_close(*s);
		term_fprintf(
			stderr,
			"heapsift codeheap: %s holds no code-heap snapshots "
			"(import a CodeHeap_Analytics report, a codecache "
			"summary, a codelist or a javacore)\n",
			o->operands[0]);
		return EXIT_ERROR;
	}
	if ((o->snapshot >= 0 && o->snapshot >= n) ||
	    (o->cmp_a >= 0 && (o->cmp_a >= n || o->cmp_b >= n))) {
		chq_free(*q);
		store_close(*s);
		return cli_usage_error(
			"codeheap", "the store has snapshots 0 to %u", n - 1);
	}
	return 0;
}

/* Every snapshot o selects, each heap of it o selects: as text, a CSV
 * row, or its granules.  The exit status. */
static int codeheap_list(const struct codeheap_options *o, const struct chq *q)
{
	struct buf b = BUF_INIT;
	uint32_t sn, i, shown = 0;
	int status = EXIT_OK;

	if (o->csv)
		fputs(o->granules ? "snapshot,heap,granule,address,count,"
				    "count_tier1,count_tier2,count_inactive,"
				    "count_stub,count_dead,space,space_tier1,"
				    "space_tier2,space_inactive,space_stub,"
				    "space_dead,age,age_tier1,age_tier2,"
				    "age_inactive,type\r\n"
				  : csv_header,
		      stdout);
	for (sn = 0; sn < chq_n_snapshots(q); sn++) {
		const struct chq_snapshot *x = chq_snapshot(q, sn);

		if (o->snapshot >= 0 && sn != o->snapshot)
			continue;
		buf_reset(&b);
		if (!o->csv)
			codeheap_text_snapshot(q, sn, &b);
		for (i = 0; i < x->n_heaps; i++) {
			uint32_t h = x->first_heap + i;

			if (!heap_selected(o, chq_str(q, chq_heap(q, h)->name)))
				continue;
			shown++;
			if (o->granules) {
				fwrite(b.data, 1, b.len, stdout);
				buf_reset(&b);
				/* a write error: cli_finish_output() says */
				if (csv_granules(q, sn, h, &b) < 0)
					goto out;
				buf_reset(&b);
			} else if (o->csv) {
				csv_heap(&b, q, sn, h);
			} else {
				codeheap_text_heap(q, h, o, &b);
			}
		}
		if (!o->csv)
			buf_addch(&b, '\n');
		fwrite(b.data, 1, b.len, stdout);
	}
	if (o->heap && !shown) {
		term_fprintf(stderr, "heapsift codeheap: no heap named '%s'\n",
			     o->heap);
		status = EXIT_ERROR;
	}
out:
	buf_release(&b);
	return status;
}

static int codeheap_run(const struct codeheap_options *o)
{
	struct store *s;
	struct chq *q;
	int status;

	status = codeheap_open(o, &s, &q);
	if (status)
		return status;
	if (o->cmp_a >= 0) {
		struct buf b = BUF_INIT;

		compare(q, (uint32_t)o->cmp_a, (uint32_t)o->cmp_b, o->csv, &b);
		fwrite(b.data, 1, b.len, stdout);
		buf_release(&b);
	} else {
		status = codeheap_list(o, q);
	}
	chq_free(q);
	store_close(s);
	return cli_finish_output(status);
}

int cmd_codeheap(int argc, char **argv)
{
	struct codeheap_options o;
	int rc = codeheap_parse(argc, argv, &o);

	return rc == CLI_RUN ? codeheap_run(&o) : rc;
}
