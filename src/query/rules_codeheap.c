/*
 * The report's rule on code heaps (rules_int.h): HotSpot's code-heap
 * reports and code-cache summaries, and OpenJ9's javacores, one finding
 * per file at its worst snapshot.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/codeheap.h"
#include "query/findings.h"
#include "query/findings_int.h"
#include "query/rules_int.h"
#include "util/buf.h"
#include "util/size.h"
#include "util/xalloc.h"

/* code heaps: nearly full, and fragmented */
#define CH_FULL	      0.90
#define CH_FRAGMENTED 0.80
/* a javacore's JIT code or data cache near its limit (in use of all its
 * segments against 1STSEGLIMIT), and at it: the next segment does not
 * fit */
#define JC_LIMIT    0.95
#define JC_AT_LIMIT 0.99

/* --- code heaps ------------------------------------------------------------- */

static void kib(struct buf *b, const char *what, int64_t v)
{
	if (v == CHQ_UNKNOWN)
		return;
	buf_addf(b, "%s%s %" PRId64 " KiB", b->len ? ", " : "", what, v / 1024);
}

/* Heap h's space map, merged to at most 256 cells, as a figure; -1
 * when the heap has none. */
static int map_figure(struct findings_ctx *c, struct chq *q, uint32_t h)
{
	uint32_t n = chq_map_len(q, h, CHQ_SPACE), merge, cells, i;
	const struct store_ch_heap *hp = chq_heap(q, h);
	struct finding_figure *g;
	struct buf title = BUF_INIT;
	uint8_t *v;
	int fig;

	if (!n)
		return -1;
	merge = (n + 255) / 256;
	v = xmalloc(n / merge + 2);
	cells = chq_map_merged(q, h, CHQ_SPACE, merge, v, n / merge + 2);
	buf_addf(&title, "Space map of %s", chq_str(q, hp->name));
	fig = findings_add_figure(c->out, FIG_MAP, title.data, "", 0);
	buf_release(&title);
	g = &c->out->figures[fig];
	g->cells = xmalloc(cells + 1);
	g->fill = xmalloc((cells ? cells : 1) * sizeof(double));
	g->n_cells = cells;
	g->cell_bytes =
		hp->granule_size > 0 ? (uint64_t)hp->granule_size * merge : 0;
	for (i = 0; i < cells; i++) {
		g->cells[i] = chq_cell_char(CHQ_SPACE, v[i]);
		g->fill[i] = v[i] == 0		     ? -1
			     : v[i] >= CH_SPACE_FULL ? 1
						     : (v[i] - 0.5) / 10.0;
	}
	g->cells[cells] = '\0';
	free(v);
	return fig;
}

static bool worse(const struct finding *a, const struct finding *b)
{
	return a->severity != b->severity ? a->severity > b->severity
					  : a->weight > b->weight;
}

/* Several snapshots of one recording (reports taken one after another,
 * the summaries beside them) are the same heaps again: each recording
 * keeps the finding of its worst snapshot, which says how many of its
 * snapshots had one.  The others are left in snaps. */
static void code_heap_fold(struct findings_ctx *c, struct chq *q,
			   struct findings *snaps, const uint32_t *snap_of)
{
	size_t n = snaps->n_findings, i, k;
	bool *done = xcalloc(n ? n : 1, sizeof(bool));

	for (i = 0; i < n; i++) {
		uint64_t rec = chq_snapshot(q, snap_of[i])->recording;
		size_t worst = i, n_with = 0, n_all = 0;
		struct buf lines = BUF_INIT;
		struct finding *f;
		uint32_t s;

		if (done[i])
			continue;
		for (k = i; k < n; k++) {
			if (chq_snapshot(q, snap_of[k])->recording != rec)
				continue;
			done[k] = true;
			n_with++;
			if (n_with <= 8)
				buf_addf(&lines, "%s%" PRIu64,
					 lines.len ? ", " : "",
					 chq_snapshot(q, snap_of[k])->line);
			if (worse(&snaps->findings[k], &snaps->findings[worst]))
				worst = k;
		}
		for (s = 0; s < chq_n_snapshots(q); s++)
			if (chq_snapshot(q, s)->recording == rec)
				n_all++;
		f = findings_move(c, snaps, worst);
		if (n_with > 1)
			finding_add_evidence(
				f,
				"%zu of the %zu snapshots in this file show "
				"it (lines %s%s); the worst is shown, at line "
				"%" PRIu64,
				n_with, n_all, lines.data,
				n_with > 8 ? ", ..." : "",
				chq_snapshot(q, snap_of[worst])->line);
		finding_add_fact(f, "snapshots", (double)n_with, "snapshots");
		buf_release(&lines);
	}
	free(done);
}

int rule_code_heaps(struct findings_ctx *c, const struct finding_rule *rule,
		    struct err *e)
{
	struct findings *found = c->out, snaps;
	struct chq *q;
	uint32_t s, h;
	/* per finding of snaps: its snapshot */
	uint32_t *snap_of = NULL;

	if (chq_open(c->s, &q, e) < 0)
		return ERR_FAIL;
	/* each snapshot's finding goes to snaps first; then each recording
	 * keeps its worst (code_heap_fold) */
	memset(&snaps, 0, sizeof(snaps));
	c->out = &snaps;
	for (s = 0; s < chq_n_snapshots(q); s++) {
		const struct store_ch_snapshot *sn = chq_snapshot(q, s);
		const char *src = chq_snapshot_source(q, s);
		const char *kind = chq_str(q, sn->kind);
		struct finding *f = NULL;
		int64_t v, full = 0, disabled = 0;
		enum finding_severity sev = FINDING_INFO;
		double worst = 0, jc_worst = 0;
		/* OpenJ9 allocates its JIT caches a segment after another:
		 * a full segment is normal, the total against the limit is
		 * what counts */
		bool javacore = !strcmp(kind, "javacore");
		uint32_t map_heap = UINT32_MAX;
		struct buf what = BUF_INIT;
		char *a;

		if (sn->recording > UINT32_MAX ||
		    !findings_rec_in_scope(c, (uint32_t)sn->recording))
			continue;
		if (chq_snapshot_stat(q, s, "compilation.enabled", &v) && !v)
			disabled = 1;
		/* an analytics report's "JIT is off" says the same */
		if (chq_snapshot_stat(q, s, "jit.on", &v) && !v)
			disabled = 1;
		if (chq_snapshot_stat(q, s, "full_count", &v))
			full = v;
		if (disabled || full > 0) {
			sev = FINDING_CRITICAL;
			if (disabled &&
			    !chq_snapshot_stat(q, s, "compilation.enabled", &v))
				buf_adds(&what, "JIT is off (compilation is "
						"disabled)");
			else if (disabled)
				buf_adds(&what, "compilation is disabled");
			if (full > 0)
				buf_addf(&what,
					 "%sthe code cache was full %" PRId64
					 " time%s",
					 disabled ? ", " : "", full,
					 full == 1 ? "" : "s");
		}
#define NEED_FINDING()                                                     \
	do {                                                               \
		if (!f) {                                                  \
			f = findings_add(c, rule->name, FINDING_INFO);     \
			f->subject = buf_strf("%s (%s, line %" PRIu64 ")", \
					      src, kind, sn->line);        \
		}                                                          \
	} while (0)
		if (what.len) {
			NEED_FINDING();
			finding_add_evidence(f, "%s: %s%s", kind, what.data,
					     disabled ? " (the JIT stopped "
							"compiling: the code "
							"runs slower from then "
							"on)"
						      : "");
		}
		for (h = sn->first_heap; h < sn->first_heap + sn->n_heaps;
		     h++) {
			const struct store_ch_heap *hp = chq_heap(q, h);
			const char *name = chq_str(q, hp->name);
			struct ch_facts fa;
			struct buf fig = BUF_INIT;
			double use, hw;

			chq_facts(q, h, &fa);
			/* the size it may grow to: reserved, where the
			 * report says (a summary's free is relative to it) */
			if (fa.reserved != CHQ_UNKNOWN &&
			    fa.reserved > fa.capacity)
				fa.capacity = fa.reserved;
			if (fa.capacity == CHQ_UNKNOWN || fa.capacity <= 0)
				continue;
			use = fa.used != CHQ_UNKNOWN
				      ? (double)fa.used / (double)fa.capacity
				      : 0;
			hw = fa.max_used != CHQ_UNKNOWN
				     ? (double)fa.max_used / (double)fa.capacity
				     : 0;
			kib(&fig, "size", fa.capacity);
			kib(&fig, "used", fa.used);
			kib(&fig, "max used", fa.max_used);
			kib(&fig, "free", fa.free);
			if (!javacore && (use >= CH_FULL || hw >= CH_FULL)) {
				NEED_FINDING();
				if (sev < FINDING_WARNING)
					sev = FINDING_WARNING;
				if (use >= 0.99 || hw >= 0.99)
					sev = FINDING_CRITICAL;
				if (use > worst)
					worst = use;
				if (hw > worst)
					worst = hw;
				if (map_heap == UINT32_MAX)
					map_heap = h;
				if (hw > use)
					finding_add_evidence(
						f,
						"%s %s: %s (%.1f%% used, "
						"%.1f%% "
						"at its highest)",
						name,
						use >= CH_FULL
							? "is nearly full"
							: "was nearly full",
						fig.data, 100 * use, 100 * hw);
				else
					finding_add_evidence(
						f,
						"%s is nearly full: %s "
						"(%.1f%% used)",
						name, fig.data, 100 * use);
				finding_add_fact(f, "used_pct", 100 * use, "%");
				if (fa.max_used != CHQ_UNKNOWN)
					finding_add_fact(f, "max_used_pct",
							 100 * hw, "%");
			}
			if (!isnan(fa.fragmentation) &&
			    fa.fragmentation >= CH_FRAGMENTED &&
			    fa.free != CHQ_UNKNOWN &&
			    fa.largest_free != CHQ_UNKNOWN &&
			    fa.free >= fa.capacity / 20) {
				NEED_FINDING();
				if (sev < FINDING_WARNING)
					sev = FINDING_WARNING;
				finding_add_evidence(
					f,
					"%s is fragmented: the largest free "
					"block is %" PRId64 " bytes of %" PRId64
					" KiB free in %" PRId64
					" blocks (fragmentation %.3f)",
					name, fa.largest_free, fa.free / 1024,
					fa.free_blocks, fa.fragmentation);
				finding_add_fact(f, "fragmentation",
						 fa.fragmentation, "");
				if (map_heap == UINT32_MAX)
					map_heap = h;
				finding_add_fact(f, "largest_free",
						 (double)fa.largest_free,
						 "bytes");
			}
			buf_release(&fig);
		}
		/* a javacore: the JIT's code and data caches at their limit
		 * (1STSEGLIMIT: -Xcodecachetotal, the data cache's total),
		 * the bytes in use of all their segments against it */
		{
			static const char *const jt[] = {"jit_code",
							 "jit_data"};
			static const char *const jname[] = {"JIT code cache",
							    "JIT data cache"};
			size_t i;

			for (i = 0; i < 2; i++) {
				char n1[64], n2[64], n3[64];
				int64_t used, limit, segs = -1;
				double u;

				snprintf(n1, sizeof(n1), "mem.%s.in_use",
					 jt[i]);
				snprintf(n2, sizeof(n2), "mem.%s.limit", jt[i]);
				snprintf(n3, sizeof(n3), "mem.%s.segments",
					 jt[i]);
				if (!chq_snapshot_stat(q, s, n1, &used) ||
				    !chq_snapshot_stat(q, s, n2, &limit) ||
				    limit <= 0)
					continue;
				u = (double)used / (double)limit;
				if (u < JC_LIMIT)
					continue;
				chq_snapshot_stat(q, s, n3, &segs);
				NEED_FINDING();
				if (sev < FINDING_WARNING)
					sev = FINDING_WARNING;
				if (u >= JC_AT_LIMIT)
					sev = FINDING_CRITICAL;
				if (u > jc_worst)
					jc_worst = u;
				finding_add_evidence(
					f,
					"%s: %" PRId64
					" KiB in use of a %" PRId64
					" KiB limit (%.1f%%)%s%s%s",
					jname[i], used / 1024, limit / 1024,
					100 * u, segs >= 0 ? " in " : "",
					segs >= 0 ? (snprintf(n3, sizeof(n3),
							      "%" PRId64, segs),
						     n3)
						  : "",
					segs < 0    ? ""
					: segs == 1 ? " segment"
						    : " segments");
				finding_add_fact(f,
						 i ? "jit_data_used_pct"
						   : "jit_code_used_pct",
						 100 * u, "%");
			}
		}
#undef NEED_FINDING
		if (f && map_heap != UINT32_MAX)
			f->figure = map_figure(c, q, map_heap);
		if (f) {
			f->severity = sev;
			if (jc_worst > worst)
				worst = jc_worst;
			f->weight = worst + (disabled ? 1 : 0);
			f->sentence = xstrdup(
				disabled || full
					? "The JIT code cache filled up and "
					  "compilation stopped."
				: jc_worst >= JC_AT_LIMIT
					? "A JIT cache is at its limit: the "
					  "JIT cannot allocate another "
					  "segment."
				: jc_worst > 0
					? "A JIT cache is near its limit."
				: worst >= CH_FULL
					? "A JIT code heap is nearly full."
					: "A JIT code heap is fragmented.");
			finding_add_fact(f, "full_count", (double)full,
					 "times");
			finding_add_fact(f, "compilation_disabled",
					 (double)disabled, "");
			a = buf_strf("--map=space");
			f->command = rules_command(c, "codeheap", a);
			free(a);
			f->fix = xstrdup(
				javacore
					? "Give the JIT more room with "
					  "-Xcodecachetotal (OpenJ9 scales the "
					  "data cache's limit with it; the "
					  "javacore's 1STSEGLIMIT lines are "
					  "both limits), and look for "
					  "generated classes that are loaded "
					  "again and again."
					: "Give the code cache more room "
					  "(-XX:ReservedCodeCacheSize=, or the "
					  "heap's own "
					  "-XX:ProfiledCodeHeapSize= / "
					  "-XX:NonProfiledCodeHeapSize=), keep "
					  "-XX:+UseCodeCacheFlushing on, and "
					  "look for generated classes that are "
					  "loaded again and again.");
		}
		if (f) {
			snap_of = xreallocarray(snap_of, snaps.n_findings,
						sizeof(*snap_of));
			snap_of[snaps.n_findings - 1] = s;
		}
		buf_release(&what);
	}
	c->out = found;
	code_heap_fold(c, q, &snaps, snap_of);
	free(snap_of);
	findings_release(&snaps);
	chq_free(q);
	return 0;
}
