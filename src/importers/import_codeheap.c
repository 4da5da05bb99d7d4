/*
 * The HotSpot code-heap importer: the CodeHeap_Analytics report, the
 * Compiler.codecache / PrintCodeCache summary and Compiler.codelist, any
 * number of them in one file among other output, each becoming one
 * code-heap snapshot (src/record/record.h).  The lexer is src/formats/codeheap;
 * this is the state machine that knows which section a line is in.
 *
 * The probe recognises the three kinds of text HotSpot prints about its
 * code cache (docs/formats/codeheap.md): the
 * CodeHeap_Analytics report, the Compiler.codecache / PrintCodeCache
 * summary, and Compiler.codelist.  Reports are often embedded in a JVM's
 * stdout among other lines, so it counts evidence instead of insisting
 * on the first line.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/codeheap/codeheap_lex.h"
#include "importers/import_codeheap_int.h"
#include "importers/importer.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "importers/textprobe.h"
#include "input/input.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* "N N N name [0x..., 0x... - 0x...]": one Compiler.codelist line. */
static bool codelist_line(const char *s, size_t len)
{
	size_t i = 0, k;

	while (i < len && isdigit((unsigned char)s[i]))
		i++;
	if (i == 0 || i + 5 > len || s[i] != ' ' ||
	    !isdigit((unsigned char)s[i + 1]) || s[i + 2] != ' ' ||
	    !isdigit((unsigned char)s[i + 3]) || s[i + 4] != ' ')
		return false;
	if (len < 2 || s[len - 1] != ']')
		return false;
	/* the bracket holds "0x..., 0x... - 0x..." */
	for (k = len - 1; k > i && s[k] != '['; k--)
		;
	return k > i + 5 && text_starts(s + k, len - k, "[0x") &&
	       text_contains(s + k, len - k, ", 0x") &&
	       text_contains(s + k, len - k, " - 0x");
}

static int codeheap_probe(const unsigned char *p, size_t len, int complete)
{
	struct text_lines t;
	const char *line;
	size_t n, lines = 0;
	int summary = 0, bounds = 0, codelist = 0, other = 0;

	(void)complete;
	if (text_is_binary(p, len))
		return 0;
	if (text_contains((const char *)p, len, "CodeHeapStateAnalytics") ||
	    text_contains((const char *)p, len, "General JIT info"))
		return 95;
	text_lines_init(&t, p, len);
	while (text_lines_next(&t, &line, &n)) {
		lines++;
		if ((text_starts(line, n, "CodeHeap '") &&
		     text_contains(line, n, "': size=") &&
		     text_contains(line, n, "Kb used=")) ||
		    text_starts(line, n, "CodeCache: size="))
			summary++;
		else if (text_starts(line, n, " bounds [0x"))
			bounds++;
		else if (codelist_line(line, n))
			codelist++;
		else if (n)
			other++;
	}
	if (summary && bounds)
		return 90;
	/* jcmd's "<pid>:" line is the one other line a codelist has */
	if (codelist >= 3 || (codelist && other <= 1))
		return codelist > other ? 85 : 60;
	if (summary)
		return 50;
	return 0;
}

/* --- the import: a state machine over lexed lines ------------------------ */

void ch_warn(struct chi *c, uint64_t line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	import_warn_line(c->env, ERR_FORMAT, line, "%s", msg);
}

/* KiB as printed to bytes; REC_NONE when it cannot be (a garbled number). */
static int64_t kib(int64_t k)
{
	return k >= 0 && k <= INT64_MAX / 1024 ? k * 1024 : REC_NONE;
}

static const char *keep(struct chi *c, const char *s, size_t len)
{
	while (len && s[len - 1] == ' ')
		len--;
	while (len && *s == ' ') {
		s++;
		len--;
	}
	return arena_memdup(&c->ar, s, len);
}

static void snap_stat(struct chi *c, const char *name, int64_t v)
{
	GROW(c->stats, c->n_stats, c->cap_stats);
	c->stats[c->n_stats].name = name;
	c->stats[c->n_stats++].value = v;
}

static void heap_stat(struct heap_build *hb, const char *name, int64_t v)
{
	GROW(hb->stats, hb->n_stats, hb->cap_stats);
	hb->stats[hb->n_stats].name = name;
	hb->stats[hb->n_stats++].value = v;
}

/* The snapshot's wording is of JDK v or older (newer). */
static void jdk_at_most(struct chi *c, int v)
{
	if (!c->jdk_max || v < c->jdk_max)
		c->jdk_max = v;
}

static void jdk_at_least(struct chi *c, int v)
{
	if (v > c->jdk_min)
		c->jdk_min = v;
}

static int heap_find(struct chi *c, const char *name, size_t len, bool create)
{
	struct heap_build *hb;
	uint32_t i;

	while (len && name[len - 1] == ' ')
		len--;
	for (i = 0; i < c->n_heaps; i++)
		if (strlen(c->heaps[i].h.name) == len &&
		    !memcmp(c->heaps[i].h.name, name, len))
			return (int)i;
	if (!create)
		return -1;
	/* HotSpot has at most 10 heaps; a file naming thousands is not a
	 * report, and would make this lookup quadratic */
	if (c->n_heaps >= CH_MAX_HEAPS) {
		if (!c->heaps_warned)
			ch_warn(c, c->line,
				"more than %d code heaps in one report; the "
				"others are skipped",
				CH_MAX_HEAPS);
		c->heaps_warned = true;
		return -1;
	}
	GROW(c->heaps, c->n_heaps, c->cap_heaps);
	hb = &c->heaps[c->n_heaps];
	memset(hb, 0, sizeof(*hb));
	hb->h.name = arena_memdup(&c->ar, name, len);
	hb->h.segment_size = hb->h.granule_size = hb->h.n_granules = REC_NONE;
	hb->h.committed = hb->h.reserved = REC_NONE;
	hb->h.used = hb->h.free = hb->h.max_used = REC_NONE;
	hb->h.used_blocks = hb->h.free_blocks = REC_NONE;
	return (int)c->n_heaps++;
}

/* --- snapshots ------------------------------------------------------------ */

static void snap_reset(struct chi *c)
{
	uint32_t i;

	for (i = 0; i < c->n_heaps; i++) {
		free(c->heaps[i].maps);
		free(c->heaps[i].blocks);
		free(c->heaps[i].stats);
	}
	c->n_heaps = c->n_stats = c->n_blocks = 0;
	arena_reset(&c->ar);
	c->kind = SNAP_NONE;
	c->sec = SEC_NONE;
	c->sub = SUB_NONE;
	c->cur = c->sum_heap = -1;
	c->closed = false;
	c->heaps_warned = false;
	c->jdk_min = c->jdk_max = 0;
	ch_map_drop(c);
}

static const char *const snap_kind_names[] = {"", "analytics", "summary",
					      "codelist"};

static void snap_end(struct chi *c, bool at_eof)
{
	struct rec_ch_heap *hs;
	struct rec_codeheap r;
	uint32_t i;

	ch_map_finish(c, at_eof);
	if (c->kind == SNAP_NONE)
		return;
	if (c->kind == SNAP_ANALYTICS && at_eof && !c->closed)
		ch_warn(c, c->line,
			"the report that starts at line %llu ends without its "
			"closing line: cut short? what is complete is imported",
			(unsigned long long)c->snap_line);
	hs = xcalloc(c->n_heaps ? c->n_heaps : 1, sizeof(*hs));
	for (i = 0; i < c->n_heaps; i++) {
		struct heap_build *hb = &c->heaps[i];

		hs[i] = hb->h;
		hs[i].maps = hb->maps;
		hs[i].n_maps = hb->n_maps;
		hs[i].blocks = hb->blocks;
		hs[i].n_blocks = hb->n_blocks;
		hs[i].stats = hb->stats;
		hs[i].n_stats = hb->n_stats;
	}
	if (c->n_heaps || c->n_blocks || c->n_stats) {
		/* what the wording says of the JVM's version, and which
		 * process jcmd asked: the query layer joins a code list to
		 * the other texts of its JVM by them (src/query/query_codeheap.h) */
		if (c->jdk_min)
			snap_stat(c, "jdk.min", c->jdk_min);
		if (c->jdk_max)
			snap_stat(c, "jdk.max", c->jdk_max);
		if (c->pid > 0)
			snap_stat(c, "pid", c->pid);
	}
	memset(&r, 0, sizeof(r));
	r.kind = snap_kind_names[c->kind];
	r.line = c->snap_line;
	r.time_ns = REC_NONE;
	r.heaps = hs;
	r.n_heaps = c->n_heaps;
	r.stats = c->stats;
	r.n_stats = c->n_stats;
	r.blocks = c->blocks;
	r.n_blocks = c->n_blocks;
	if (c->n_heaps || c->n_blocks || c->n_stats) {
		c->n_snapshots++;
		if (c->sink->ops->codeheap &&
		    c->sink->ops->codeheap(c->sink->ctx, &r) < 0)
			c->err = -1;
	}
	free(hs);
	snap_reset(c);
}

static void snap_begin(struct chi *c, enum snap_kind k)
{
	snap_end(c, false);
	c->kind = k;
	c->snap_line = c->line;
}

/* --- rows of the used-block tables ------------------------------------------ */

static void skip_blanks(const char *s, size_t n, size_t *i)
{
	while (*i < n && s[*i] == ' ')
		(*i)++;
}

static size_t word(const char *s, size_t n, size_t *i)
{
	size_t at = *i;

	while (*i < n && s[*i] != ' ')
		(*i)++;
	return *i - at;
}

/*
 * "0x... (+0x...) 0x00006858(  26K)   X     c2   4      0 Name": the
 * columns move between JDK versions, so the name (and blob type) start
 * where the last column header put "Name" ("blobType"); between the size
 * and those, the tokens are an optional type letter, the compiler, the
 * level and (17) the temperature.
 */
static void used_row(struct chi *c, const char *s, size_t n, uint64_t addr)
{
	struct heap_build *hb = &c->heaps[c->cur];
	struct rec_ch_block b;
	size_t i = 33, end_fields, tl;
	const char *t;

	memset(&b, 0, sizeof(b));
	b.kind = CHK_USED;
	b.addr = addr;
	b.size = b.temperature = b.compile_id = b.gap = b.gap_blocks = REC_NONE;
	b.level = b.state = -1;
	b.type = CHB_NONE;
	b.top = c->sec == SEC_USED;
	if (n > i + 2 && s[i] == '0' && s[i + 1] == 'x') {
		uint64_t v = 0;

		for (i += 2; i < n && isxdigit((unsigned char)s[i]); i++)
			v = v << 4 |
			    (uint64_t)(isdigit((unsigned char)s[i])
					       ? s[i] - '0'
					       : (tolower((unsigned char)s[i]) -
						  'a' + 10));
		b.size = v > INT64_MAX ? REC_NONE : (int64_t)v;
		while (i < n && s[i] != ')')
			i++;
		if (i < n)
			i++;
	}
	end_fields = c->sec == SEC_NAMES ? c->blob_col : c->name_col;
	if (end_fields > n)
		end_fields = n;
	for (;;) {
		size_t at;

		skip_blanks(s, end_fields, &i);
		if (i >= end_fields)
			break;
		at = i;
		tl = word(s, end_fields, &i);
		t = s + at;
		if (tl == 1 && !isdigit((unsigned char)*t) &&
		    b.compiler == NULL) {
			unsigned char u = (unsigned char)*t;

			if (c->legend_set[u])
				b.type = c->legend[u];
			else {
				b.type = CHB_UNKNOWN;
				ch_warn(c, c->line,
					"block type '%c' is not in the "
					"report's "
					"legend",
					*t);
			}
		} else if (!b.compiler && !isdigit((unsigned char)*t)) {
			b.compiler = arena_memdup(&c->ar, t, tl);
		} else if (isdigit((unsigned char)*t) || *t == '-') {
			/* the line is not NUL-terminated: no strtoll */
			int64_t v = 0;
			size_t k = *t == '-';

			for (; k < tl && isdigit((unsigned char)t[k]) &&
			       v < INT64_MAX / 10 - 10;
			     k++)
				v = v * 10 + (t[k] - '0');
			if (*t == '-')
				v = -v;

			if (b.level < 0 && b.compiler)
				b.level = (int32_t)(v < 0 || v > 9 ? -1 : v);
			else
				b.temperature = v;
		}
	}
	if (c->sec == SEC_NAMES && c->blob_col < n) {
		size_t e = c->name_col < n ? c->name_col : n;

		if (e > c->blob_col) {
			const char *bt = s + c->blob_col;
			size_t bl = e - c->blob_col;

			while (bl && bt[bl - 1] == ' ')
				bl--;
			b.type =
				bl ? ch_block_type_from_name(bt, bl) : CHB_NONE;
		}
	}
	if (b.type == CHB_NONE && b.compiler)
		b.type = CHB_NMETHOD;
	if (c->name_col < n)
		b.name = keep(c, s + c->name_col, n - c->name_col);
	GROW(hb->blocks, hb->n_blocks, hb->cap_blocks);
	hb->blocks[hb->n_blocks++] = b;
}

static void header_line(struct chi *c, const char *s, size_t n)
{
	const char *p;

	p = memmem(s, n, "Name", 4);
	c->name_col = p ? (size_t)(p - s) : (c->sec == SEC_NAMES ? 88 : 73);
	p = memmem(s, n, "blobType", 8);
	c->blob_col = p ? (size_t)(p - s) : c->name_col;
}

/* --- titles ---------------------------------------------------------------- */

static const struct {
	const char *prefix;
	enum section sec;
} majors[] = {
	{"C O D E   H E A P   A N A L Y S I S   (general remarks)", SEC_SKIP},
	{"C O D E   H E A P   A N A L Y S I S   (used blocks) for segment ",
	 SEC_AGG},
	{"C O D E   H E A P   A N A L Y S I S   (free blocks) for segment ",
	 SEC_AGG_FREE},
	{"C O D E   H E A P   A N A L Y S I S   C O M P L E T E   for segment ",
	 SEC_NONE},
	{"U S E D   S P A C E   S T A T I S T I C S   for ", SEC_USED},
	{"F R E E   S P A C E   S T A T I S T I C S   for ", SEC_FREE},
	{"B L O C K   C O U N T S   for ", SEC_COUNT},
	{"S P A C E   U S A G E  &  F R A G M E N T A T I O N   for ",
	 SEC_SPACE},
	{"M E T H O D   A G E   by CompileID for ", SEC_AGE},
	{"M E T H O D   N A M E S   for ", SEC_NAMES},
};

static void major_title(struct chi *c, const char *t, size_t len)
{
	size_t i;
	const char *rest;
	size_t rl;

	ch_map_finish(c, false);
	if (c->kind != SNAP_ANALYTICS || c->closed)
		snap_begin(c, SNAP_ANALYTICS);
	for (i = 0; i < sizeof(majors) / sizeof(majors[0]); i++) {
		if (!ch_title(t, len, majors[i].prefix, &rest, &rl))
			continue;
		c->sec = majors[i].sec;
		c->sub = SUB_NONE;
		if (c->sec == SEC_SKIP)
			return;
		c->cur = rl ? heap_find(c, rest, rl, false) : -1;
		/* a second aggregation of a heap: the next report */
		if (c->sec == SEC_AGG && c->cur >= 0 &&
		    c->heaps[c->cur].h.n_granules != REC_NONE) {
			snap_begin(c, SNAP_ANALYTICS);
			c->sec = SEC_AGG;
			c->cur = -1;
		}
		if (c->cur < 0 && rl)
			c->cur = heap_find(c, rest, rl, true);
		if (c->sec == SEC_NAMES)
			c->name_col = 88, c->blob_col = 68;
		else if (c->sec == SEC_USED)
			c->name_col = c->blob_col = 73;
		return;
	}
	ch_warn(c, c->line, "unknown section '%.*s'; skipped", (int)len, t);
	c->sec = SEC_SKIP;
}

static void minor_title(struct chi *c, const char *t, size_t len)
{
	const char *rest;
	size_t rl;

	ch_map_finish(c, false);
	if (ch_title(t, len, "Block types used in the following CodeHeap dump",
		     NULL, NULL)) {
		memset(c->legend_set, 0, sizeof(c->legend_set));
		c->sub = SUB_LEGEND;
	} else if (ch_title(t, len, "Space ranges", NULL, NULL) ||
		   ch_title(t, len, "Age ranges", NULL, NULL)) {
		c->sub = SUB_OTHER_LEGEND;
	} else if (ch_title(t, len, "Global CodeHeap statistics for segment ",
			    &rest, &rl)) {
		c->sub = SUB_GLOBAL;
		c->cur = heap_find(c, rest, rl, true);
	} else if (ch_title(t, len, "Largest Used Blocks in ", &rest, &rl)) {
		c->sub = SUB_TOP;
		c->cur = heap_find(c, rest, rl, true);
	} else if (ch_title(t, len, "List of all Free Blocks in ", &rest,
			    &rl)) {
		c->sub = SUB_FREELIST;
		c->cur = heap_find(c, rest, rl, true);
	} else if (ch_title(t, len, "Top Ten Free Blocks in ", &rest, &rl)) {
		c->sub = SUB_TOPTEN;
		c->cur = heap_find(c, rest, rl, true);
	} else if (ch_title(t, len, "no free blocks found in ", &rest, &rl)) {
		int h = heap_find(c, rest, rl, true);

		c->cur = h;
		if (h >= 0 && c->heaps[h].h.free_blocks == REC_NONE)
			c->heaps[h].h.free_blocks = 0;
		c->sub = SUB_OTHER;
	} else if (ch_title(t, len, "Heap not fully initialized", NULL, NULL) ||
		   ch_title(t, len, "Must be at safepoint", NULL, NULL)) {
		ch_warn(c, c->line, "the VM refused: %.*s", (int)len, t);
		c->sub = SUB_OTHER;
	} else if (c->sec == SEC_COUNT || c->sec == SEC_SPACE ||
		   c->sec == SEC_AGE) {
		ch_map_begin(c, t, len);
	} else {
		c->sub = SUB_OTHER;
	}
}

/* --- one line ------------------------------------------------------------- */

static const char *stat_name(const char *s, size_t n, bool blocks)
{
	static const struct {
		const char *in, *space, *blocks;
	} names[] = {
		{"Tier1 Space", "tier1.space_k", "tier1.blocks"},
		{"Tier2 Space", "tier2.space_k", "tier2.blocks"},
		{"Alive Space", "alive.space_k", "alive.blocks"},
		{"disconnected", "disconnected.space_k", "disconnected.blocks"},
		{"not entrant", "not_entrant.space_k", "not_entrant.blocks"},
		{"unloadedSpace", "unloaded.space_k", "unloaded.blocks"},
		{"deadSpace", "dead.space_k", "dead.blocks"},
		{"stubSpace", "stub.space_k", "stub.blocks"},
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].in) == n && !memcmp(names[i].in, s, n))
			return blocks ? names[i].blocks : names[i].space;
	return NULL;
}

static struct heap_build *cur_heap(struct chi *c)
{
	return c->cur >= 0 ? &c->heaps[c->cur] : NULL;
}

/* A line of the analytics' header about the whole snapshot: whether
 * the JIT is on, its threads, the code cache's sizes. */
static void analytics_snapshot_fact(struct chi *c, const struct ch_line *l)
{
	switch (l->type) {
	case CHL_JIT_IS:
		snap_stat(c, "jit.on", l->a);
		break;
	case CHL_THREADS:
		snap_stat(c, "compiler_threads", l->a);
		break;
	case CHL_CACHE_SIZE:
		snap_stat(c,
			  l->text[0] == 'R'   ? "reserved_kb"
			  : l->text[0] == 'C' ? "committed_kb"
					      : "unallocated_kb",
			  l->a);
		break;
	default:
		break;
	}
}

/* A "used"/"free"/kind-of-space line of a heap's global statistics. */
static void analytics_stat(struct heap_build *hb, const struct ch_line *l)
{
	if (l->text[0] == 'f') {
		hb->h.free = kib(l->a);
		hb->h.free_blocks = l->b;
	} else if (l->text[0] == 'u' && l->text[1] == 's') {
		hb->h.used = kib(l->a);
		hb->h.used_blocks = l->b;
	} else {
		const char *sp = stat_name(l->text, l->text_len, false);

		if (sp) {
			heap_stat(hb, sp, l->a);
			heap_stat(hb, stat_name(l->text, l->text_len, true),
				  l->b);
		}
	}
}

/* A line about the current heap hb: its sizes, granules, statistics,
 * bounds, compile ids, hotness and free blocks' count. */
static void analytics_heap_fact(struct heap_build *hb, const struct ch_line *l)
{
	switch (l->type) {
	case CHL_COMMITTED:
		hb->h.committed = kib(l->a);
		hb->h.reserved = kib(l->b);
		heap_stat(hb, "occupied_pct", l->c);
		break;
	case CHL_SEGMENT:
		hb->h.segment_size = l->a;
		break;
	case CHL_GRANULES:
		hb->h.n_granules = l->a;
		hb->h.granule_size = l->b;
		break;
	case CHL_STAT:
		analytics_stat(hb, l);
		break;
	case CHL_ZOMBIE:
		heap_stat(hb, "zombie_blocks", l->a);
		break;
	case CHL_SEG_START:
		hb->h.low = l->addr;
		break;
	case CHL_SEG_END:
		hb->h.high = l->addr;
		break;
	case CHL_SEG_RESERVED:
		hb->h.high_reserved = l->addr;
		break;
	case CHL_COMPILE_ID:
		heap_stat(hb,
			  l->text[0] == 'l' ? "compile_id.latest"
					    : "compile_id.highest",
			  l->a);
		break;
	case CHL_HOTNESS:
		heap_stat(hb,
			  l->text[1] == 'i'   ? "hotness.min"
			  : l->text[1] == 'v' ? "hotness.avg"
					      : "hotness.max",
			  l->a);
		break;
	case CHL_FREE_COUNT:
		if (hb->h.free_blocks == REC_NONE)
			hb->h.free_blocks = l->a;
		break;
	default:
		break;
	}
}

/* A line of the block types' legend: its letter's type for the maps. */
static void analytics_legend(struct chi *c, const struct ch_line *l)
{
	enum ch_block_type t = ch_block_type_from_name(l->text, l->text_len);
	unsigned char u = (unsigned char)l->letter;

	if (t == CHB_UNKNOWN)
		ch_warn(c, c->line,
			"the legend names an unknown block "
			"type "
			"'%.*s' ('%c')",
			(int)l->text_len, l->text, l->letter);
	c->legend[u] = (uint8_t)t;
	c->legend_set[u] = true;
	/* zombies went with the sweeper (JDK-8290025, JDK
	 * 20): a legend that has them is JDK 19 or older */
	if (t == CHB_NMETHOD_ZOMBIE)
		jdk_at_most(c, 19);
}

/* A line of a heap's list of free blocks: a free block of hb. */
static void analytics_free_block(struct heap_build *hb, const struct ch_line *l)
{
	struct rec_ch_block b;

	memset(&b, 0, sizeof(b));
	b.kind = CHK_FREE;
	b.addr = l->addr;
	b.size = l->b;
	b.temperature = b.compile_id = REC_NONE;
	b.level = b.state = -1;
	b.gap = l->c >= 0 ? l->c : REC_NONE;
	b.gap_blocks = l->d >= 0 ? l->d : REC_NONE;
	b.permanent_gap = l->flag;
	GROW(hb->blocks, hb->n_blocks, hb->cap_blocks);
	hb->blocks[hb->n_blocks++] = b;
}

/* A line of Compiler.CodeHeap_Analytics (s, n: its text), taken where
 * the section and subsection it is in say it belongs. */
static void analytics_line(struct chi *c, const struct ch_line *l,
			   const char *s, size_t n)
{
	struct heap_build *hb = cur_heap(c);

	switch (l->type) {
	case CHL_JIT_IS:
	case CHL_THREADS:
	case CHL_CACHE_SIZE:
		analytics_snapshot_fact(c, l);
		break;
	case CHL_COMMITTED:
	case CHL_SEGMENT:
	case CHL_GRANULES:
	case CHL_STAT:
	case CHL_ZOMBIE:
	case CHL_SEG_START:
	case CHL_SEG_END:
	case CHL_SEG_RESERVED:
	case CHL_COMPILE_ID:
	case CHL_HOTNESS:
	case CHL_FREE_COUNT:
		if (hb)
			analytics_heap_fact(hb, l);
		break;
	case CHL_LEGEND:
		if (c->sub == SUB_LEGEND)
			analytics_legend(c, l);
		break;
	case CHL_LEGEND_END:
		if (c->sub == SUB_LEGEND || c->sub == SUB_OTHER_LEGEND)
			c->sub = SUB_NONE;
		break;
	case CHL_HEADER:
		header_line(c, s, n);
		break;
	case CHL_ROW:
		if (hb && ((c->sec == SEC_USED && c->sub != SUB_OTHER) ||
			   c->sec == SEC_NAMES))
			used_row(c, s, n, l->addr);
		break;
	case CHL_FREE:
		if (hb && c->sub == SUB_FREELIST)
			analytics_free_block(hb, l);
		break;
	case CHL_TOPTEN:
		if (hb && c->sub == SUB_TOPTEN && l->a == 1)
			heap_stat(hb, "topten.largest_free", l->c);
		break;
	case CHL_MAP:
		if (c->sub == SUB_MAP && c->m_comps)
			ch_map_line(c, l);
		else
			ch_warn(c, c->line,
				"a granule map line outside any map; skipped");
		break;
	default:
		break;
	}
}

/*
 * A line of a code cache summary (CodeCache::print_summary, code/
 * codeCache.cpp).  JDK 23 (JDK-8323795) rewrote its tail: the totals on
 * one line that ends with full_count, then "Compilation: STATE,
 * stopped_count=N, restarted_count=N", which ends the summary; JDK 22
 * and older end it with " full_count=N" on its own line, after
 * " compilation: STATE" and the counts.  Either wording dates the JVM.
 */
static void summary_line(struct chi *c, const struct ch_line *l)
{
	struct heap_build *hb;
	int h;

	/* a summary's line with no heap line before it (a capture that
	 * starts in the middle): a summary of its own, never a stat of
	 * whatever snapshot comes next */
	if (c->kind != SNAP_SUMMARY && l->type != CHL_SUM_HEAP)
		snap_begin(c, SNAP_SUMMARY);
	switch (l->type) {
	case CHL_SUM_HEAP:
		if (c->kind != SNAP_SUMMARY)
			snap_begin(c, SNAP_SUMMARY);
		h = heap_find(c, l->text, l->text_len, true);
		c->sum_heap = h;
		if (h < 0)
			break;
		hb = &c->heaps[h];
		hb->h.reserved = kib(l->a);
		hb->h.used = kib(l->b);
		hb->h.max_used = kib(l->c);
		hb->h.free = kib(l->d);
		break;
	case CHL_SUM_TOTAL:
		jdk_at_least(c, 23);
		snap_stat(c, "total.size_kb", l->a);
		snap_stat(c, "total.used_kb", l->b);
		snap_stat(c, "total.max_used_kb", l->c);
		snap_stat(c, "total.free_kb", l->d);
		break;
	case CHL_BOUNDS:
		if (c->sum_heap >= 0) {
			hb = &c->heaps[c->sum_heap];
			hb->h.low = l->addr;
			hb->h.high = l->addr2;
			hb->h.high_reserved = l->addr3;
			if (l->addr2 >= l->addr &&
			    l->addr2 - l->addr < INT64_MAX)
				hb->h.committed = (int64_t)(l->addr2 - l->addr);
		}
		break;
	case CHL_BLOBS:
		snap_stat(c, "total_blobs", l->a);
		snap_stat(c, "nmethods", l->b);
		snap_stat(c, "adapters", l->c);
		/* 23+: "Compilation: ..." follows and ends the summary */
		if (l->d >= 0) {
			jdk_at_least(c, 23);
			snap_stat(c, "full_count", l->d);
		}
		break;
	case CHL_COMPILATION:
		snap_stat(c, "compilation.enabled",
			  l->text_len >= 7 && !memcmp(l->text, "enabled", 7));
		snap_stat(c, "compilation.no_space",
			  memmem(l->text, l->text_len, "free space", 10) !=
				  NULL);
		if (l->a >= 0) {
			jdk_at_least(c, 23);
			snap_stat(c, "stopped_count", l->a);
			snap_stat(c, "restarted_count", l->b);
			snap_end(c, false);
		} else {
			jdk_at_most(c, 22);
		}
		break;
	case CHL_STOPPED:
		snap_stat(c, "stopped_count", l->a);
		snap_stat(c, "restarted_count", l->b);
		break;
	case CHL_FULL_COUNT:
		jdk_at_most(c, 22);
		snap_stat(c, "full_count", l->a);
		snap_end(c, false);
		break;
	default:
		break;
	}
}

static void codelist_entry(struct chi *c, const struct ch_line *l)
{
	struct rec_ch_block b;

	if (c->kind != SNAP_CODELIST)
		snap_begin(c, SNAP_CODELIST);
	memset(&b, 0, sizeof(b));
	b.kind = CHK_USED;
	b.addr = l->addr;
	/* the blob from its header to the end of its code */
	b.size = l->addr3 >= l->addr && l->addr3 - l->addr < INT64_MAX
			 ? (int64_t)(l->addr3 - l->addr)
			 : REC_NONE;
	b.type = CHB_NMETHOD;
	b.level = (int32_t)l->b;
	b.state = (int32_t)l->c;
	b.compile_id = l->a;
	b.temperature = b.gap = b.gap_blocks = REC_NONE;
	b.name = keep(c, l->text, l->text_len);
	GROW(c->blocks, c->n_blocks, c->cap_blocks);
	c->blocks[c->n_blocks++] = b;
}

/* jcmd's "PID:" line: the process that the texts below it are of. */
static void pid_line(struct chi *c, const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;

	for (i = 0; i < n && isdigit((unsigned char)s[i]); i++) {
		if (v > (INT64_MAX - 9) / 10)
			return;
		v = v * 10 + (s[i] - '0');
	}
	if (i == 0 || i == n || s[i] != ':')
		return;
	for (i++; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return;
	c->pid = v;
}

static void one_line(struct chi *c, const char *s, size_t n)
{
	struct ch_line l;

	ch_lex(&c->lx, s, n, &l);
	/* log lines interleave anywhere, even inside a map */
	if (l.type == CHL_NOISE) {
		pid_line(c, s, n);
		return;
	}
	if (c->sub == SUB_MAP && l.type != CHL_MAP && c->m_cells[0].len)
		ch_map_finish(c, false);
	if (c->kind == SNAP_SUMMARY &&
	    !(l.type >= CHL_SUM_HEAP && l.type <= CHL_FULL_COUNT) &&
	    l.type != CHL_BLANK)
		snap_end(c, false);
	if (c->kind == SNAP_CODELIST && l.type != CHL_CODELIST)
		snap_end(c, false);
	switch (l.type) {
	case CHL_GENERAL:
		snap_begin(c, SNAP_ANALYTICS);
		c->sec = SEC_GENERAL;
		return;
	case CHL_MAJOR:
		major_title(c, l.text, l.text_len);
		return;
	case CHL_MINOR:
		if (c->kind == SNAP_ANALYTICS)
			minor_title(c, l.text, l.text_len);
		return;
	case CHL_TIMING:
		if (l.flag && c->kind == SNAP_ANALYTICS) {
			c->closed = true;
			snap_end(c, false);
		}
		return;
	case CHL_FUNCTION:
		ch_warn(c, c->line, "%.*s", (int)l.text_len, l.text);
		return;
	case CHL_CODELIST:
		codelist_entry(c, &l);
		return;
	default:
		break;
	}
	if (l.type >= CHL_SUM_HEAP && l.type <= CHL_FULL_COUNT) {
		if (c->kind == SNAP_ANALYTICS && l.type != CHL_SUM_HEAP)
			return; /* a stray summary line inside a report */
		summary_line(c, &l);
		return;
	}
	if (c->kind == SNAP_ANALYTICS)
		analytics_line(c, &l, s, n);
}

static int codeheap_import(struct input *in, const struct sink *sink,
			   const struct import_env *env, struct err *e)
{
	struct chi c;
	struct rec_recording rr;
	const char *s;
	size_t n;
	int rc, i;

	memset(&c, 0, sizeof(c));
	c.sink = sink;
	c.env = env;
	ch_lexer_init(&c.lx);
	arena_init(&c.ar, 0);
	for (i = 0; i < 3; i++)
		buf_init(&c.m_cells[i]);
	c.cur = c.sum_heap = -1;
	input_track_lines(in);
	while ((rc = input_line(in, &s, &n)) == 0 && !c.err) {
		c.line++;
		one_line(&c, s, n);
	}
	if (rc < 0) {
		/* what was read stands; the damage is a warning */
		ch_warn(&c, c.line + 1, "%s", input_error(in)->msg);
	}
	snap_end(&c, true);
	if (!c.err && !c.n_snapshots)
		ch_warn(&c, 0, "no code heap data");
	if (!c.err && c.n_snapshots) {
		memset(&rr, 0, sizeof(rr));
		rr.source = env->source;
		rr.format = "codeheap";
		rr.start_ns = rr.end_ns = REC_NONE;
		if (sink->ops->recording &&
		    sink->ops->recording(sink->ctx, &rr) < 0)
			c.err = -1;
	}
	free(c.heaps);
	free(c.stats);
	free(c.blocks);
	for (i = 0; i < 3; i++)
		buf_release(&c.m_cells[i]);
	arena_release(&c.ar);
	ch_lexer_release(&c.lx);
	if (c.err)
		return err_set(e, ERR_IO,
			       "the output refused a code-heap snapshot");
	return 0;
}

const struct importer_ops importer_codeheap = {
	.name = "codeheap",
	.kind = KIND_CODEHEAP,
	.probe_class = PROBE_TEXT,
	.probe = codeheap_probe,
	.import = codeheap_import,
};
