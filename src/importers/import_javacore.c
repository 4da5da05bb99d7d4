/*
 * The OpenJ9 javacore importer (docs/formats/javacore.md): one javacore
 * becomes one code-heap snapshot of kind "javacore" and one recording.
 *
 * The grammar is src/formats/javacore; this file decides what the numbers
 * mean: every JIT code cache and data cache segment becomes a heap with
 * an occupancy map drawn from its totals (a javacore does not say where
 * in a code cache segment the used bytes are, so those maps are marked
 * estimated), the printed totals and the NATIVEMEMINFO tree become named
 * stats, and sums that disagree with printed totals become warnings.
 * It reads no per-method detail: MEMINFO has none.
 *
 * A javacore is lines of "TAG<padding>content" where a tag is a nesting
 * digit, a two-letter component and a name (1STSEGMENT, 0SECTION, NULL);
 * see docs/formats/javacore.md.  The first line is
 * normally the TITLE section header.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "formats/javacore/javacore.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "importers/textprobe.h"
#include "input/input.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/xalloc.h"

static bool tag_line(const char *s, size_t len)
{
	size_t i = 3;

	if (text_starts(s, len, "NULL"))
		return true;
	if (len < 4 || !isdigit((unsigned char)s[0]) ||
	    !isupper((unsigned char)s[1]) || !isupper((unsigned char)s[2]))
		return false;
	while (i < len && (isupper((unsigned char)s[i]) ||
			   isdigit((unsigned char)s[i]) || s[i] == '_'))
		i++;
	return i == len || s[i] == ' ';
}

static int javacore_probe(const unsigned char *p, size_t len, int complete)
{
	struct text_lines t;
	const char *line;
	size_t n;
	int tags = 0, others = 0, sections = 0, first = 1, title = 0;

	(void)complete;
	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		p += 3; /* UTF-8 byte-order mark */
		len -= 3;
	}
	if (text_is_binary(p, len))
		return 0;
	text_lines_init(&t, p, len);
	while (text_lines_next(&t, &line, &n)) {
		if (first && text_starts(line, n, "0SECTION") &&
		    text_contains(line, n, "TITLE subcomponent dump routine"))
			title = 1;
		first = 0;
		if (!n)
			continue;
		if (tag_line(line, n)) {
			tags++;
			sections += text_starts(line, n, "0SECTION");
		} else {
			others++;
		}
	}
	if (title)
		return 95;
	if (sections && tags >= 5 && tags > others * 4)
		return 75;
	return 0;
}

/* --- import -------------------------------------------------------------- */

/* The most a time zone moves the wall clock from UTC (UTC+14). */
#define MAX_ZONE_NS (14 * 3600 * INT64_C(1000000000))

/* Granules per heap at most; the granule is the smallest power of two
 * of at least MIN_GRANULE that keeps a heap within it. */
#define MAX_GRANULES 4096
#define MIN_GRANULE  4096

struct jc_import {
	const struct import_env *env;
	struct arena keep;
	struct jc_parser p;
	uint64_t line_offset; /* byte offset of the line being parsed */
	struct rec_ch_stat *stats;
	size_t n_stats, alloc_stats;
};

static void parser_warn(void *ctx, enum err_code code, uint64_t line,
			const char *msg)
{
	struct jc_import *ji = ctx;
	uint64_t at =
		line && line == ji->p.line ? ji->line_offset : ERR_NO_OFFSET;

	if (line)
		import_warnf(ji->env, code, at, "javacore: line %llu: %s",
			     (unsigned long long)line, msg);
	else
		import_warnf(ji->env, code, at, "javacore: %s", msg);
}

static void add_stat(struct jc_import *ji, int64_t v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_stat(struct jc_import *ji, int64_t v, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (ji->n_stats == ji->alloc_stats) {
		ji->alloc_stats = ji->alloc_stats ? 2 * ji->alloc_stats : 64;
		ji->stats = xreallocarray(ji->stats, ji->alloc_stats,
					  sizeof(*ji->stats));
	}
	ji->stats[ji->n_stats].name = arena_memdup(&ji->keep, b.data, b.len);
	ji->stats[ji->n_stats].value = v;
	ji->n_stats++;
	buf_release(&b);
}

static int64_t clamp(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The dump's time: 1TIDATETIMEUTC when it is within a time zone of
 * 1TIDATETIME, else 1TIDATETIME's wall clock read as UTC (the javacore
 * does not give its zone). */
static int64_t dump_time(struct jc_import *ji)
{
	const struct jc_parser *p = &ji->p;
	int64_t d;

	if (p->time_utc_ns != JC_NONE && p->time_local_ns != JC_NONE) {
		if (!__builtin_sub_overflow(p->time_utc_ns, p->time_local_ns,
					    &d) &&
		    d <= MAX_ZONE_NS && d >= -MAX_ZONE_NS)
			return p->time_utc_ns;
		import_warnf(ji->env, ERR_FORMAT, ERR_NO_OFFSET,
			     "javacore: line %llu: 1TIDATETIMEUTC is %lld s "
			     "away from 1TIDATETIME (line %llu), more than "
			     "any time zone; 1TIDATETIME is used, read as UTC",
			     (unsigned long long)p->time_utc_line,
			     (long long)(p->time_utc_ns / 1000000000 -
					 p->time_local_ns / 1000000000),
			     (unsigned long long)p->time_local_line);
		return p->time_local_ns;
	}
	if (p->time_utc_ns != JC_NONE)
		return p->time_utc_ns;
	return p->time_local_ns; /* JC_NONE == REC_NONE when absent */
}

static void cross_check(struct jc_import *ji, const struct jc_memtype *t)
{
	if (t->total != JC_NONE && (uint64_t)t->total != t->sum_size)
		import_warnf(
			ji->env, ERR_FORMAT, ERR_NO_OFFSET,
			"javacore: line %llu: '%s': the %llu segments' "
			"sizes add up to %llu bytes, 1STSEGTOTAL says %lld",
			(unsigned long long)t->total_line, t->name,
			(unsigned long long)t->n_segments,
			(unsigned long long)t->sum_size, (long long)t->total);
	if (t->in_use != JC_NONE && (uint64_t)t->in_use != t->sum_used)
		import_warnf(ji->env, ERR_FORMAT, ERR_NO_OFFSET,
			     "javacore: line %llu: '%s': alloc - start adds "
			     "up to %llu bytes, 1STSEGINUSE says %lld",
			     (unsigned long long)t->in_use_line, t->name,
			     (unsigned long long)t->sum_used,
			     (long long)t->in_use);
	/* the writer prints total - in use, not the sum of end - alloc */
	if (t->free != JC_NONE && t->total != JC_NONE && t->in_use != JC_NONE &&
	    t->free != t->total - t->in_use)
		import_warnf(ji->env, ERR_FORMAT, ERR_NO_OFFSET,
			     "javacore: line %llu: '%s': 1STSEGFREE %lld is "
			     "not 1STSEGTOTAL - 1STSEGINUSE (%lld)",
			     (unsigned long long)t->free_line, t->name,
			     (long long)t->free,
			     (long long)(t->total - t->in_use));
}

static void type_stats(struct jc_import *ji, const struct jc_memtype *t)
{
	char key[64];

	jc_memtype_key(t->name, key, sizeof(key));
	cross_check(ji, t);
	add_stat(ji, clamp(t->n_segments), "mem.%s.segments", key);
	add_stat(ji, t->total != JC_NONE ? t->total : clamp(t->sum_size),
		 "mem.%s.total", key);
	add_stat(ji, t->in_use != JC_NONE ? t->in_use : clamp(t->sum_used),
		 "mem.%s.in_use", key);
	add_stat(ji, t->free != JC_NONE ? t->free : clamp(t->sum_free),
		 "mem.%s.free", key);
	if (t->limit != JC_NONE)
		add_stat(ji, t->limit, "mem.%s.limit", key);
}

static int path_cmp(const void *a, const void *b)
{
	const struct jc_native *x = *(const struct jc_native *const *)a;
	const struct jc_native *y = *(const struct jc_native *const *)b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

static void native_stats(struct jc_import *ji)
{
	const struct jc_parser *p = &ji->p;
	const struct jc_native **ix;
	bool *dup;
	size_t i;

	if (!p->n_natives)
		return;
	/* a path twice would make two stats of one name: the first holds */
	ix = xcalloc(p->n_natives, sizeof(*ix));
	dup = xcalloc(p->n_natives, sizeof(*dup));
	for (i = 0; i < p->n_natives; i++)
		ix[i] = &p->natives[i];
	qsort(ix, p->n_natives, sizeof(*ix), path_cmp);
	for (i = 1; i < p->n_natives; i++)
		if (strcmp(ix[i]->path, ix[i - 1]->path) == 0) {
			dup[ix[i] - p->natives] = true;
			import_warnf(ji->env, ERR_FORMAT, ERR_NO_OFFSET,
				     "javacore: line %llu: native memory "
				     "category '%s' appears twice; the first "
				     "is kept",
				     (unsigned long long)ix[i]->line,
				     ix[i]->path);
		}
	for (i = 0; i < p->n_natives; i++) {
		if (dup[i])
			continue;
		add_stat(ji, p->natives[i].bytes, "native.%s.bytes",
			 p->natives[i].path);
		add_stat(ji, p->natives[i].allocations, "native.%s.allocations",
			 p->natives[i].path);
	}
	free(ix);
	free(dup);
}

static int seg_cmp(const void *a, const void *b)
{
	const struct jc_segment *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* A CH_SPACE map of size bytes whose first used bytes are in use. */
static uint8_t *bottom_fill(struct jc_import *ji, uint64_t size, uint64_t used,
			    uint64_t g, uint64_t n)
{
	uint8_t *cells = arena_alloc(&ji->keep, n ? n : 1);
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint64_t lo = i * g, len = size - lo < g ? size - lo : g, f;

		f = used > lo ? used - lo : 0;
		if (f > len)
			f = len;
		if (!f)
			cells[i] = 0;
		else if (f == len)
			cells[i] = CH_SPACE_FULL;
		else
			cells[i] = (uint8_t)(1 + f * 10 / len);
	}
	return cells;
}

/* Heaps for one JIT cache block, by start address. */
static void add_heaps(struct jc_import *ji, const struct jc_memtype *t,
		      bool estimated, struct rec_ch_heap *heaps, size_t *nh)
{
	struct jc_segment *s;
	size_t i;

	if (!t || !t->n_segs)
		return;
	s = arena_alloc(&ji->keep, t->n_segs * sizeof(*s));
	memcpy(s, t->segs, t->n_segs * sizeof(*s));
	qsort(s, t->n_segs, sizeof(*s), seg_cmp);
	for (i = 0; i < t->n_segs; i++) {
		struct rec_ch_heap *h = &heaps[(*nh)++];
		struct rec_ch_map *m = arena_calloc(&ji->keep, 1, sizeof(*m));
		uint64_t size = s[i].end - s[i].start, g = MIN_GRANULE, n;
		struct buf name = BUF_INIT;

		while (size / g + (size % g != 0) > MAX_GRANULES)
			g *= 2;
		n = size / g + (size % g != 0);
		buf_addf(&name, "%s #%zu", t->name, i + 1);
		memset(h, 0, sizeof(*h));
		h->name = arena_memdup(&ji->keep, name.data, name.len);
		buf_release(&name);
		h->low = s[i].start;
		h->high = h->high_reserved = s[i].end;
		h->segment_size = REC_NONE;
		h->granule_size = (int64_t)g;
		h->n_granules = (int64_t)n;
		h->committed = (int64_t)size;
		h->reserved = REC_NONE;
		h->used = (int64_t)(s[i].alloc - s[i].start);
		h->free = (int64_t)(s[i].end - s[i].alloc);
		h->max_used = REC_NONE;
		h->used_blocks = h->free_blocks = REC_NONE;
		h->placement_estimated = estimated;
		m->measure = CH_SPACE;
		m->part = CH_ALL;
		m->bundle = false;
		m->n = (uint32_t)n;
		m->cells = bottom_fill(ji, size, s[i].alloc - s[i].start, g, n);
		h->maps = m;
		h->n_maps = 1;
	}
}

static int emit(struct jc_import *ji, const struct sink *sink, struct err *e)
{
	struct jc_parser *p = &ji->p;
	const struct jc_memtype *code = jc_parser_type(p, "JIT Code Cache");
	const struct jc_memtype *data = jc_parser_type(p, "JIT Data Cache");
	struct rec_codeheap ch;
	struct rec_recording rr;
	struct rec_ch_heap *heaps;
	size_t nh = 0, i;
	int64_t t = dump_time(ji);

	if (!p->meminfo_line)
		import_warnf(ji->env, ERR_FORMAT, ERR_NO_OFFSET,
			     "javacore: no MEMINFO section in %llu lines: no "
			     "code cache segments to show",
			     (unsigned long long)p->line);
	if (p->meminfo_line || p->native_line) {
		if (p->heap_total != JC_NONE)
			add_stat(ji, p->heap_total, "heap.total");
		if (p->heap_in_use != JC_NONE)
			add_stat(ji, p->heap_in_use, "heap.in_use");
		if (p->heap_free != JC_NONE)
			add_stat(ji, p->heap_free, "heap.free");
		if (p->heap_seen) {
			add_stat(ji, clamp(p->n_heap_spaces), "heap.spaces");
			add_stat(ji, clamp(p->n_heap_regions), "heap.regions");
		}
		for (i = 0; i < p->n_types; i++)
			type_stats(ji, &p->types[i]);
		if (code && code->limit != JC_NONE &&
		    (uint64_t)code->limit > code->sum_span)
			add_stat(ji, code->limit - (int64_t)code->sum_span,
				 "jit_code.unallocated");
		native_stats(ji);

		heaps = arena_calloc(&ji->keep,
				     (code ? code->n_segs : 0) +
					     (data ? data->n_segs : 0) + 1,
				     sizeof(*heaps));
		add_heaps(ji, code, true, heaps, &nh);
		add_heaps(ji, data, false, heaps, &nh);
		memset(&ch, 0, sizeof(ch));
		ch.kind = "javacore";
		ch.line = p->meminfo_line ? p->meminfo_line : p->native_line;
		ch.time_ns = t;
		ch.heaps = heaps;
		ch.n_heaps = (uint32_t)nh;
		ch.stats = ji->stats;
		ch.n_stats = (uint32_t)ji->n_stats;
		if (sink->ops->codeheap &&
		    sink->ops->codeheap(sink->ctx, &ch) < 0)
			return err_set(e, ERR_IO, "output failed");
	}
	memset(&rr, 0, sizeof(rr));
	rr.source = ji->env->source;
	rr.format = "javacore";
	rr.jvm_name = p->java_version;
	rr.jvm_version = p->vm_version;
	rr.start_ns = rr.end_ns = t; /* REC_NONE: no date in the file */
	if (sink->ops->recording && sink->ops->recording(sink->ctx, &rr) < 0)
		return err_set(e, ERR_IO, "output failed");
	return 0;
}

static int javacore_import(struct input *in, const struct sink *sink,
			   const struct import_env *env, struct err *e)
{
	struct jc_import ji;
	const char *line;
	size_t len;
	int rc;

	memset(&ji, 0, sizeof(ji));
	ji.env = env;
	arena_init(&ji.keep, 0);
	jc_parser_init(&ji.p, &ji.keep, parser_warn, &ji);
	for (;;) {
		ji.line_offset = input_offset(in);
		rc = input_line(in, &line, &len);
		if (rc)
			break;
		jc_parser_line(&ji.p, line, len);
	}
	jc_parser_finish(&ji.p);
	if (rc < 0)
		import_warnf(env, ERR_TRUNC, ji.line_offset,
			     "javacore: reading stopped after line %llu; what "
			     "came before is imported",
			     (unsigned long long)ji.p.line);
	if (!ji.p.n_tagged) {
		rc = rc < 0 && input_error(in)
			     ? (*e = *input_error(in), ERR_FAIL)
			     : err_set(e, ERR_FORMAT,
				       "javacore: no javacore tag lines in "
				       "%llu "
				       "lines",
				       (unsigned long long)ji.p.line);
	} else {
		int erc = emit(&ji, sink, e);

		if (erc < 0)
			rc = erc;
		else if (rc < 0) {
			if (input_error(in))
				*e = *input_error(in);
			else
				err_set(e, ERR_IO, "javacore: read failed");
			rc = ERR_FAIL;
		} else {
			rc = 0;
		}
	}
	free(ji.stats);
	jc_parser_release(&ji.p);
	arena_release(&ji.keep);
	return rc;
}

const struct importer_ops importer_javacore = {
	.name = "javacore",
	.kind = KIND_JAVACORE,
	.probe_class = PROBE_TEXT,
	.probe = javacore_probe,
	.import = javacore_import,
};
