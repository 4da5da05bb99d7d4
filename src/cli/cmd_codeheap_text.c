/*
 * heapsift codeheap's text (cmd_codeheap_int.h): a snapshot's heading and
 * facts, a javacore's memory, a codelist's methods by state, and each
 * heap's facts, largest blocks, blocks by type and age and granule map.
 * Apart from the command (cmd_codeheap.c: options, the CSV, the
 * comparison), which calls its two entry points: the text is half the
 * command and shares nothing with the CSV and the comparison but the
 * options.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_codeheap_int.h"
#include "util/human.h"
#include "util/term.h"
#include "util/xalloc.h"

/* A size as the text says sizes (human_bytes), "?" where unknown. */
static void put_bytes(struct buf *b, int64_t v)
{
	char t[32];

	if (v == CHQ_UNKNOWN)
		buf_adds(b, "?");
	else
		buf_adds(b, human_bytes(v, t, sizeof(t)));
}

static void draw_map(const struct chq *q, uint32_t h,
		     const struct codeheap_options *o, struct buf *b)
{
	const struct chq_heap *x = chq_heap(q, h);
	uint32_t n = chq_map_len(q, h, o->flavour);
	uint32_t merge, cells, i, max_cells = o->width * 32;
	uint8_t *out;

	if (!n) {
		if (x->n_granules > 0)
			buf_addf(b, "    (no %s map in this report)\n",
				 chq_flavour_name(o->flavour));
		return;
	}
	merge = (uint32_t)(((uint64_t)n + max_cells - 1) / max_cells);
	out = xmalloc(n);
	cells = chq_map_merged(q, h, o->flavour, merge, out, n);
	if (!cells) {
		buf_addf(b, "    (no %s map in this report)\n",
			 chq_flavour_name(o->flavour));
		free(out);
		return;
	}
	buf_addf(b, "    %s map, 1 cell = %u granule%s",
		 chq_flavour_name(o->flavour), merge, merge == 1 ? "" : "s");
	if (x->granule_size > 0 && x->granule_size <= INT64_MAX / merge) {
		char t[32];

		buf_addf(b, " = %s",
			 human_bytes(x->granule_size * (int64_t)merge, t,
				     sizeof(t)));
	}
	if (x->flags & CHQ_PLACEMENT_ESTIMATED)
		buf_adds(b, "; used total, placement unknown");
	buf_addch(b, '\n');
	for (i = 0; i < cells; i += o->width) {
		uint32_t k;

		if (x->low && x->granule_size > 0)
			buf_addf(b, "    0x%016" PRIx64 " |",
				 x->low + (uint64_t)i * merge *
						  (uint64_t)x->granule_size);
		else
			buf_addf(b, "    %18u |", i * merge);
		for (k = i; k < cells && k < i + o->width; k++)
			buf_addch(b, chq_cell_char(o->flavour, out[k]));
		buf_adds(b, "|\n");
	}
	free(out);
}

/* The five largest of the largest-blocks table (or of the method-name
 * rows when the report has no table), largest first. */
static void top_blocks(const struct chq *q, uint32_t h, struct buf *b)
{
	const struct chq_block *bl, *best[5] = {NULL};
	uint32_t n, i, k, top = 0;

	bl = chq_heap_blocks(q, h, &n);
	for (i = 0; i < n; i++)
		top += (bl[i].flags & CHQ_BLOCK_TOP) != 0;
	for (i = 0; i < n; i++) {
		const struct chq_block *x = &bl[i];

		if ((x->flags & CHQ_BLOCK_FREE) ||
		    (top && !(x->flags & CHQ_BLOCK_TOP)) ||
		    x->size == CHQ_UNKNOWN || x->size <= 0)
			continue;
		for (k = 0; k < 5; k++)
			if (!best[k] || x->size > best[k]->size) {
				memmove(&best[k + 1], &best[k],
					(4 - k) * sizeof(best[0]));
				best[k] = x;
				break;
			}
	}
	if (!best[0])
		return;
	buf_adds(b, "    largest used blocks:\n");
	for (k = 0; k < 5 && best[k]; k++) {
		const char *name = chq_str(q, best[k]->name);

		/* a blank type column: not printed, not necessarily a stub */
		buf_addf(b, "      %10" PRId64 "  %-18s ", best[k]->size,
			 best[k]->type == CHB_NONE
				 ? "-"
				 : ch_block_type_name(
					   (enum ch_block_type)best[k]->type));
		if (*chq_str(q, best[k]->compiler))
			term_addf(b, "%s %d  ", chq_str(q, best[k]->compiler),
				  best[k]->level);
		buf_add_printable(b, name, strlen(name));
		buf_addch(b, '\n');
	}
}

/* Used blocks by type, from the method-name rows (every used block of
 * the heap, with the size where the report prints one). */
static void by_type(const struct chq *q, uint32_t h, struct buf *b)
{
	const struct chq_block *bl = NULL;
	uint64_t count[CHB__COUNT] = {0};
	int64_t bytes[CHB__COUNT] = {0};
	uint32_t n, i, shown = 0;

	bl = chq_heap_blocks(q, h, &n);
	for (i = 0; i < n; i++) {
		const struct chq_block *x = &bl[i];

		if (x->flags & (CHQ_BLOCK_FREE | CHQ_BLOCK_TOP) ||
		    x->type >= CHB__COUNT)
			continue;
		count[x->type]++;
		if (x->size > 0 && bytes[x->type] <= INT64_MAX - x->size)
			bytes[x->type] += x->size;
	}
	for (i = 0; i < CHB__COUNT; i++) {
		char t[32];

		if (!count[i])
			continue;
		buf_adds(b, shown++ ? ", " : "    named blocks by type: ");
		buf_addf(b, "%s %" PRIu64,
			 ch_block_type_name((enum ch_block_type)i), count[i]);
		if (bytes[i])
			buf_addf(b, " (%s)",
				 human_bytes(bytes[i], t, sizeof(t)));
	}
	if (shown)
		buf_addch(b, '\n');
}

/* Granules by age, where the report has an age map. */
static void by_age(const struct chq *q, uint32_t h, struct buf *b)
{
	uint64_t hist[10] = {0}, aged = 0;
	const uint8_t *age;
	uint32_t n, i;

	age = chq_map(q, h, CH_AGE, CH_ALL, &n);
	if (!age || !n)
		return;
	for (i = 0; i < n; i++)
		if (age[i] >= 1 && age[i] <= 9) {
			hist[age[i] - 1]++;
			aged++;
		}
	if (!aged) /* stubs have no age: none in 'non-nmethods' */
		return;
	buf_adds(b, "    granules by age (0 youngest .. 8 oldest half):");
	for (i = 0; i < 9; i++)
		buf_addf(b, " %u:%" PRIu64, i, hist[i]);
	buf_addch(b, '\n');
}

void codeheap_text_heap(const struct chq *q, uint32_t h,
			const struct codeheap_options *o, struct buf *b)
{
	const struct chq_heap *x = chq_heap(q, h);
	struct ch_facts f;
	int64_t v;
	uint32_t i;
	static const char *const tiers[] = {"tier1", "tier2", "alive", "dead",
					    "stub"};

	chq_facts(q, h, &f);
	term_addf(b, "  %s", chq_str(q, x->name));
	if (x->low)
		buf_addf(b, "  [0x%016" PRIx64 ", 0x%016" PRIx64 ")", x->low,
			 x->high);
	buf_addch(b, '\n');
	if (x->n_granules != CHQ_UNKNOWN || x->segment_size != CHQ_UNKNOWN) {
		buf_adds(b, "    ");
		if (x->segment_size != CHQ_UNKNOWN) {
			buf_adds(b, "segment ");
			put_bytes(b, x->segment_size);
			buf_adds(b, ", ");
		}
		if (x->n_granules != CHQ_UNKNOWN)
			buf_addf(b, "%" PRId64 " granules of ", x->n_granules);
		put_bytes(b, x->granule_size);
		buf_addch(b, '\n');
	}
	/* each figure by what it is, used and free against the size they
	 * are parts of: the committed part in a report, the reserved size
	 * in a summary (codeheap.h, ch_facts) */
	buf_adds(b, "    committed ");
	put_bytes(b, f.capacity);
	if (f.reserved != CHQ_UNKNOWN) {
		buf_adds(b, " of ");
		put_bytes(b, f.reserved);
		buf_adds(b, " reserved");
	}
	buf_addch(b, '\n');
	buf_adds(b, "    used ");
	put_bytes(b, f.used);
	if (f.used_blocks != CHQ_UNKNOWN)
		buf_addf(b, " in %" PRId64 " blocks", f.used_blocks);
	if (f.max_used != CHQ_UNKNOWN) {
		buf_adds(b, " (at most ");
		put_bytes(b, f.max_used);
		buf_adds(b, ")");
	}
	buf_adds(b, ", free ");
	put_bytes(b, f.free);
	if (f.free_blocks != CHQ_UNKNOWN)
		buf_addf(b, " in %" PRId64 " blocks", f.free_blocks);
	buf_addf(b, ", of the %s ", f.size_is);
	put_bytes(b, f.size);
	buf_addch(b, '\n');
	if (f.largest_free != CHQ_UNKNOWN || !isnan(f.fragmentation)) {
		buf_adds(b, "    largest free block ");
		put_bytes(b, f.largest_free);
		if (f.largest_free != CHQ_UNKNOWN)
			buf_addf(b, " (%" PRId64 " bytes)", f.largest_free);
		if (!isnan(f.fragmentation))
			buf_addf(b, ", fragmentation %.3f", f.fragmentation);
		buf_addch(b, '\n');
	}
	if (f.largest_used != CHQ_UNKNOWN) {
		buf_addf(b, "    largest used block %" PRId64 " bytes: ",
			 f.largest_used);
		buf_add_printable(
			b, f.largest_used_name ? f.largest_used_name : "?",
			f.largest_used_name ? strlen(f.largest_used_name) : 1);
		buf_addch(b, '\n');
	}
	if (chq_heap_stat(q, h, "tier1.space_k", &v)) {
		buf_adds(b, "    space by tier:");
		for (i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++) {
			char nm[32], nb[32];
			int64_t blocks;

			snprintf(nm, sizeof(nm), "%s.space_k", tiers[i]);
			snprintf(nb, sizeof(nb), "%s.blocks", tiers[i]);
			if (chq_heap_stat(q, h, nm, &v) &&
			    chq_heap_stat(q, h, nb, &blocks))
				buf_addf(b, " %s %" PRId64 "K (%" PRId64 ")",
					 tiers[i], v, blocks);
		}
		buf_addch(b, '\n');
	}
	top_blocks(q, h, b);
	by_type(q, h, b);
	by_age(q, h, b);
	draw_map(q, h, o, b);
}

/* A javacore's memory facts (docs/formats/javacore.md): the object
 * heap, each memory type, and the JIT's part of the native tree. */
static void javacore_facts(const struct chq *q, uint32_t sn, struct buf *b)
{
	static const char *const types[] = {"internal", "class", "jit_code",
					    "jit_data"};
	char name[64], t1[32], t2[32];
	int64_t total, used, v, segs;
	size_t i;

	if (chq_snapshot_stat(q, sn, "heap.total", &total) &&
	    chq_snapshot_stat(q, sn, "heap.in_use", &used))
		buf_addf(b, "  object heap %s, in use %s\n",
			 human_bytes(total, t1, sizeof(t1)),
			 human_bytes(used, t2, sizeof(t2)));
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(name, sizeof(name), "mem.%s.total", types[i]);
		if (!chq_snapshot_stat(q, sn, name, &total))
			continue;
		snprintf(name, sizeof(name), "mem.%s.in_use", types[i]);
		if (!chq_snapshot_stat(q, sn, name, &used))
			used = CHQ_UNKNOWN;
		snprintf(name, sizeof(name), "mem.%s.segments", types[i]);
		if (!chq_snapshot_stat(q, sn, name, &segs))
			segs = CHQ_UNKNOWN;
		buf_addf(b, "  %-9s memory %s", types[i],
			 human_bytes(total, t1, sizeof(t1)));
		if (segs != CHQ_UNKNOWN)
			buf_addf(b, " in %" PRId64 " segments", segs);
		buf_adds(b, ", in use ");
		put_bytes(b, used);
		snprintf(name, sizeof(name), "mem.%s.limit", types[i]);
		if (chq_snapshot_stat(q, sn, name, &v))
			buf_addf(b, ", limit %s",
				 human_bytes(v, t2, sizeof(t2)));
		buf_addch(b, '\n');
	}
	if (chq_snapshot_stat(q, sn, "native.JRE/JIT.bytes", &v))
		buf_addf(b, "  native memory of the JIT %s\n",
			 human_bytes(v, t1, sizeof(t1)));
}

/* At most this many methods not in use are listed by name. */
#define CODELIST_SHOWN 20

/*
 * A code list: methods by level and by state, the states read in the
 * numbering of the list's JDK (chq_codelist_numbering) and saying how
 * that was known, then the methods not in use (deoptimized ones first
 * in mind: they are what a support engineer looks for).
 */
static void codelist_states(const struct chq *q, uint32_t sn,
			    const struct chq_block *bl, uint32_t n,
			    struct buf *b)
{
	uint64_t lv[6] = {0}, st[CHQ_NM__COUNT] = {0};
	uint32_t why, i, shown = 0, not_in_use = 0;
	enum chq_numbering num = chq_codelist_numbering(q, sn, &why);
	enum chq_nm_state k;

	for (i = 0; i < n; i++) {
		lv[bl[i].level >= 0 && bl[i].level <= 4 ? bl[i].level : 5]++;
		st[chq_nm_state(num, bl[i].state)]++;
	}
	buf_addf(b,
		 "  %u compiled methods; by level 0:%" PRIu64 " 1:%" PRIu64
		 " 2:%" PRIu64 " 3:%" PRIu64 " 4:%" PRIu64 "\n",
		 n, lv[0], lv[1], lv[2], lv[3], lv[4]);
	buf_adds(b, "  by state:");
	for (k = 0; k < CHQ_NM__COUNT; k++)
		if (st[k] || k == CHQ_NM_IN_USE)
			buf_addf(b, "%s %s %" PRIu64, k ? "," : "",
				 chq_nm_state_name(k), st[k]);
	buf_addch(b, '\n');
	if (num == CHQ_NUM_UNKNOWN) {
		buf_adds(b, "  states numbered as by an unknown JDK: 1 is "
			    "\"not used\" on JDK 17-22, \"not entrant\" on "
			    "23 and later; import the same JVM's "
			    "Compiler.codecache to tell\n");
	} else {
		buf_addf(b, "  states numbered as by JDK %s, as ",
			 num == CHQ_NUM_JDK17 ? "17-22" : "23 or later");
		if (why == sn)
			buf_adds(b, "the list has state 2");
		else {
			buf_addf(b, "snapshot %u of the same JVM says (", why);
			buf_add_printable(b, chq_snapshot_source(q, why),
					  strlen(chq_snapshot_source(q, why)));
			buf_addf(b, " line %" PRIu64 ")",
				 chq_snapshot(q, why)->line);
		}
		buf_addch(b, '\n');
	}
	for (i = 0; i < n; i++) {
		k = chq_nm_state(num, bl[i].state);
		if (k == CHQ_NM_IN_USE)
			continue;
		if (not_in_use++ >= CODELIST_SHOWN)
			continue;
		if (!shown++)
			buf_adds(b, "  not in use:\n");
		buf_addf(b, "    %-12s %6" PRId64 " %d 0x%016" PRIx64 " ",
			 k == CHQ_NM_STATE1 ? "state 1" : chq_nm_state_name(k),
			 bl[i].compile_id, bl[i].level, bl[i].addr);
		buf_add_printable(b, chq_str(q, bl[i].name),
				  strlen(chq_str(q, bl[i].name)));
		buf_addch(b, '\n');
	}
	if (not_in_use > shown)
		buf_addf(b, "    ... and %u more\n", not_in_use - shown);
}

void codeheap_text_snapshot(const struct chq *q, uint32_t sn, struct buf *b)
{
	const struct chq_snapshot *s = chq_snapshot(q, sn);
	const struct chq_block *bl;
	int64_t v;
	uint32_t n;
	char when[HUMAN_TIME_SIZE];

	term_addf(b, "snapshot %u: %s, ", sn, chq_str(q, s->kind));
	buf_add_printable(b, chq_snapshot_source(q, sn),
			  strlen(chq_snapshot_source(q, sn)));
	buf_addf(b, " line %" PRIu64, s->line);
	if (s->time_ns != CHQ_UNKNOWN) {
		buf_adds(b, ", ");
		buf_adds(b,
			 human_time(s->time_ns, 3, NULL, when, sizeof(when)));
	}
	buf_addch(b, '\n');
	if (chq_snapshot_stat(q, sn, "jit.on", &v))
		buf_addf(b, "  JIT %s", v ? "on" : "off");
	if (chq_snapshot_stat(q, sn, "reserved_kb", &v))
		buf_addf(b, ", reserved %" PRId64 " KB", v);
	if (chq_snapshot_stat(q, sn, "committed_kb", &v))
		buf_addf(b, ", committed %" PRId64 " KB", v);
	if (chq_snapshot_stat(q, sn, "unallocated_kb", &v))
		buf_addf(b, ", unallocated %" PRId64 " KB\n", v);
	if (chq_snapshot_stat(q, sn, "total_blobs", &v)) {
		buf_addf(b, "  %" PRId64 " blobs", v);
		if (chq_snapshot_stat(q, sn, "nmethods", &v))
			buf_addf(b, ", %" PRId64 " nmethods", v);
		if (chq_snapshot_stat(q, sn, "adapters", &v))
			buf_addf(b, ", %" PRId64 " adapters", v);
		if (chq_snapshot_stat(q, sn, "compilation.enabled", &v))
			buf_addf(b, "; compilation %s",
				 v ? "enabled" : "disabled");
		if (chq_snapshot_stat(q, sn, "full_count", &v))
			buf_addf(b, ", full %" PRId64 " times", v);
		buf_addch(b, '\n');
	}
	javacore_facts(q, sn, b);
	bl = chq_snapshot_blocks(q, sn, &n);
	if (n)
		codelist_states(q, sn, bl, n, b);
}
