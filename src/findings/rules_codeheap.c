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

#include "query/query_codeheap.h"
#include "findings/findings.h"
#include "findings/findings_int.h"
#include "findings/rules_int.h"
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
	const struct chq_heap *hp = chq_heap(q, h);
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

/*
 * Where HotSpot puts code that does not fit into a full heap of a
 * segmented code cache (CodeCache::allocate, code/codeCache.cpp, the
 * same in JDK 17 and 25): non-nmethods and profiled code go to the
 * non-profiled heap, non-profiled code to the profiled one.  NULL for a
 * heap it does not name (one heap, JDK 25's 'hot nmethods').
 */
static const char *fallback_of(const char *heap)
{
	if (!strcmp(heap, "CodeHeap 'profiled nmethods'") ||
	    !strcmp(heap, "CodeHeap 'non-nmethods'"))
		return "CodeHeap 'non-profiled nmethods'";
	if (!strcmp(heap, "CodeHeap 'non-profiled nmethods'"))
		return "CodeHeap 'profiled nmethods'";
	return NULL;
}

/* Has snapshot s's heap named name room (used and its highest under
 * CH_FULL of the size it may grow to)? */
static bool heap_has_room(struct chq *q, uint32_t s, const char *name)
{
	const struct chq_snapshot *sn = chq_snapshot(q, s);
	uint32_t h;

	for (h = sn->first_heap; h < sn->first_heap + sn->n_heaps; h++) {
		struct ch_facts fa;
		int64_t size;

		if (strcmp(chq_str(q, chq_heap(q, h)->name), name))
			continue;
		chq_facts(q, h, &fa);
		size = fa.reserved != CHQ_UNKNOWN ? fa.reserved : fa.capacity;
		if (size == CHQ_UNKNOWN || size <= 0 || fa.used == CHQ_UNKNOWN)
			return false;
		return (double)fa.used / (double)size < CH_FULL &&
		       (fa.max_used == CHQ_UNKNOWN ||
			(double)fa.max_used / (double)size < CH_FULL);
	}
	return false;
}

static bool worse(const struct finding *a, const struct finding *b)
{
	return a->severity != b->severity ? a->severity > b->severity
					  : a->weight > b->weight;
}

/* Does snapshot s show a heap at a known address? */
static bool placed(struct chq *q, uint32_t s)
{
	const struct chq_snapshot *sn = chq_snapshot(q, s);
	uint32_t h;

	for (h = 0; h < sn->n_heaps; h++)
		if (chq_heap(q, sn->first_heap + h)->low)
			return true;
	return false;
}

/* Are two snapshots' findings about one incident of one JVM? */
static bool one_jvm(struct chq *q, uint32_t a, uint32_t b)
{
	if (chq_same_jvm(q, a, b))
		return true;
	/* texts that place no heap: their file is all there is to go by */
	return chq_snapshot(q, a)->recording == chq_snapshot(q, b)->recording &&
	       (!placed(q, a) || !placed(q, b));
}

static size_t uf_root(size_t *up, size_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/* "SOURCE (KIND, line N)": where a snapshot's evidence comes from. */
static char *where(struct chq *q, uint32_t s)
{
	const struct chq_snapshot *sn = chq_snapshot(q, s);

	return buf_strf("%s (%s, line %" PRIu64 ")", chq_snapshot_source(q, s),
			chq_str(q, sn->kind), sn->line);
}

/* Prefix each evidence line of f from first on with w. */
static void evidence_from(struct finding *f, size_t first, const char *w)
{
	size_t i;

	for (i = first; i < f->n_evidence; i++) {
		char *old = f->evidence[i];

		f->evidence[i] = buf_strf("%s: %s", w, old);
		free(old);
	}
}

/*
 * One JVM's texts are one incident: a full code cache is seen in its
 * stdout (the summary and report printed when it filled, and at exit),
 * in Compiler.codecache and in Compiler.CodeHeap_Analytics alike, and
 * snapshots taken one after another show the same heaps again.  The
 * findings of one JVM's snapshots (chq_same_jvm: the heaps' addresses
 * and jcmd's pid) make one finding: the worst snapshot's, with the
 * evidence of the worst snapshot of each of the JVM's other files, each
 * line saying where it is from, and how many snapshots show it.  The
 * others are left in snaps.
 */
static void code_heap_fold(struct findings_ctx *c, struct chq *q,
			   struct findings *snaps, const uint32_t *snap_of,
			   const uint32_t *map_of)
{
	size_t n = snaps->n_findings, i, k;
	size_t *up = xcalloc(n ? n : 1, sizeof(*up));
	bool *done = xcalloc(n ? n : 1, sizeof(bool));

	for (i = 0; i < n; i++)
		up[i] = i;
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			if (uf_root(up, i) != uf_root(up, k) &&
			    one_jvm(q, snap_of[i], snap_of[k]))
				up[uf_root(up, k)] = uf_root(up, i);
	for (i = 0; i < n; i++) {
		size_t root = uf_root(up, i), worst = i, n_with = 0,
		       n_files = 0;
		/* per file of the group, its worst finding; in order */
		size_t *file_worst;
		struct buf lines = BUF_INIT;
		struct finding *f;
		char *w;

		if (done[i])
			continue;
		file_worst = xcalloc(n, sizeof(*file_worst));
		for (k = i; k < n; k++) {
			size_t j;
			uint64_t rec;

			if (uf_root(up, k) != root)
				continue;
			done[k] = true;
			n_with++;
			if (worse(&snaps->findings[k], &snaps->findings[worst]))
				worst = k;
			rec = chq_snapshot(q, snap_of[k])->recording;
			for (j = 0; j < n_files; j++)
				if (chq_snapshot(q, snap_of[file_worst[j]])
					    ->recording == rec)
					break;
			if (j == n_files)
				file_worst[n_files++] = k;
			else if (worse(&snaps->findings[k],
				       &snaps->findings[file_worst[j]]))
				file_worst[j] = k;
		}
		for (k = i; k < n; k++) {
			if (uf_root(up, k) != root)
				continue;
			w = where(q, snap_of[k]);
			if (lines.len < 600)
				buf_addf(&lines, "%s%s", lines.len ? ", " : "",
					 w);
			else if (lines.data[lines.len - 1] != '.')
				buf_adds(&lines, ", ...");
			free(w);
		}
		f = findings_move(c, snaps, worst);
		/* the worst text may hold no map (a summary): the picture
		 * is then the map of another text of the JVM that has one */
		for (k = i; k < n && f->figure < 0; k++)
			if (uf_root(up, k) == root && map_of[k] != UINT32_MAX)
				f->figure = map_figure(c, q, map_of[k]);
		if (n_files > 1) {
			/* every line says which text it is from */
			size_t j;

			w = where(q, snap_of[worst]);
			evidence_from(f, 0, w);
			free(w);
			for (j = 0; j < n_files; j++) {
				struct finding *o =
					&snaps->findings[file_worst[j]];
				size_t e, first = f->n_evidence;

				if (file_worst[j] == worst)
					continue;
				for (e = 0; e < o->n_evidence; e++)
					finding_add_evidence(f, "%s",
							     o->evidence[e]);
				w = where(q, snap_of[file_worst[j]]);
				evidence_from(f, first, w);
				free(w);
			}
		}
		if (n_with > 1)
			finding_add_evidence(
				f,
				"%zu snapshots in %zu file%s of this JVM show "
				"it: %s",
				n_with, n_files, n_files == 1 ? "" : "s",
				lines.data);
		if (n_files > 1) {
			char *subj = buf_strf("%s and %zu more file%s of the "
					      "same JVM",
					      f->subject, n_files - 1,
					      n_files == 2 ? "" : "s");

			free(f->subject);
			f->subject = subj;
		}
		finding_add_fact(f, "snapshots", (double)n_with, "snapshots");
		finding_add_fact(f, "files", (double)n_files, "files");
		buf_release(&lines);
		free(file_worst);
	}
	free(up);
	free(done);
}

/* One snapshot's finding as its checks build it, in the order the
 * evidence is written: the JIT stopped, each heap, the JIT caches. */
struct snap_check {
	struct findings_ctx *c;
	const struct finding_rule *rule;
	struct chq *q;
	uint32_t s;
	const struct chq_snapshot *sn;
	const char *src, *kind;
	struct finding *f; /* made by the first check that finds anything */
	enum finding_severity sev;
	int64_t full, disabled;
	double worst, jc_worst;
	/* heaps at 99%: how many, and how many of them have a heap
	 * with room to take their code (fallback_of) */
	int n_at_full, n_fall;
	const char *fall_to;
	/* OpenJ9 allocates its JIT caches a segment after another:
	 * a full segment is normal, the total against the limit is
	 * what counts */
	bool javacore;
	uint32_t map_heap; /* the heap whose map is the picture, or none */
};

/* The snapshot's finding, made on first need. */
static struct finding *need_finding(struct snap_check *k)
{
	if (!k->f) {
		k->f = findings_add(k->c, k->rule->name, FINDING_INFO);
		k->f->subject = buf_strf("%s (%s, line %" PRIu64 ")", k->src,
					 k->kind, k->sn->line);
	}
	return k->f;
}

/* Did the JIT stop: compilation disabled, or the code cache full? */
static void check_jit_stopped(struct snap_check *k)
{
	struct buf what = BUF_INIT;
	int64_t v;

	if (chq_snapshot_stat(k->q, k->s, "compilation.enabled", &v) && !v)
		k->disabled = 1;
	/* an analytics report's "JIT is off" says the same */
	if (chq_snapshot_stat(k->q, k->s, "jit.on", &v) && !v)
		k->disabled = 1;
	if (chq_snapshot_stat(k->q, k->s, "full_count", &v))
		k->full = v;
	if (k->disabled || k->full > 0) {
		k->sev = FINDING_CRITICAL;
		if (k->disabled &&
		    !chq_snapshot_stat(k->q, k->s, "compilation.enabled", &v))
			buf_adds(&what, "JIT is off (compilation is "
					"disabled)");
		else if (k->disabled)
			buf_adds(&what, "compilation is disabled");
		if (k->full > 0)
			buf_addf(&what,
				 "%sthe code cache was full %" PRId64 " time%s",
				 k->disabled ? ", " : "", k->full,
				 k->full == 1 ? "" : "s");
	}
	if (what.len)
		finding_add_evidence(need_finding(k), "%s: %s%s", k->kind,
				     what.data,
				     k->disabled ? " (the JIT stopped "
						   "compiling: the code "
						   "runs slower from then "
						   "on)"
						 : "");
	buf_release(&what);
}

/* Heap h (name, facts fa, sizes fig) used or at its highest (use, hw
 * of its size) at CH_FULL or more: a warning, critical at 99%. */
static void heap_nearly_full(struct snap_check *k, uint32_t h, const char *name,
			     const struct ch_facts *fa, const char *fig,
			     double use, double hw)
{
	struct finding *f = need_finding(k);

	if (k->sev < FINDING_WARNING)
		k->sev = FINDING_WARNING;
	if (use >= 0.99 || hw >= 0.99) {
		k->sev = FINDING_CRITICAL;
		k->n_at_full++;
		if (fallback_of(name) &&
		    heap_has_room(k->q, k->s, fallback_of(name))) {
			k->n_fall++;
			k->fall_to = fallback_of(name);
		}
	}
	if (use > k->worst)
		k->worst = use;
	if (hw > k->worst)
		k->worst = hw;
	if (k->map_heap == UINT32_MAX)
		k->map_heap = h;
	if (hw > use)
		finding_add_evidence(f,
				     "%s %s: %s (%.1f%% used, "
				     "%.1f%% "
				     "at its highest)",
				     name,
				     use >= CH_FULL ? "is nearly full"
						    : "was nearly full",
				     fig, 100 * use, 100 * hw);
	else
		finding_add_evidence(f,
				     "%s is nearly full: %s "
				     "(%.1f%% used)",
				     name, fig, 100 * use);
	finding_add_fact(f, "used_pct", 100 * use, "%");
	if (fa->max_used != CHQ_UNKNOWN)
		finding_add_fact(f, "max_used_pct", 100 * hw, "%");
}

/* Heap h (name, facts fa) fragmented, with a twentieth of it free or
 * more: a warning. */
static void heap_fragmented(struct snap_check *k, uint32_t h, const char *name,
			    const struct ch_facts *fa)
{
	struct finding *f = need_finding(k);

	if (k->sev < FINDING_WARNING)
		k->sev = FINDING_WARNING;
	finding_add_evidence(f,
			     "%s is fragmented: the largest free "
			     "block is %" PRId64 " bytes of %" PRId64
			     " KiB free in %" PRId64
			     " blocks (fragmentation %.3f)",
			     name, fa->largest_free, fa->free / 1024,
			     fa->free_blocks, fa->fragmentation);
	finding_add_fact(f, "fragmentation", fa->fragmentation, "");
	if (k->map_heap == UINT32_MAX)
		k->map_heap = h;
	finding_add_fact(f, "largest_free", (double)fa->largest_free, "bytes");
}

/* Heap h of the snapshot: nearly full (never for a javacore), or
 * fragmented. */
static void check_heap(struct snap_check *k, uint32_t h)
{
	const struct chq_heap *hp = chq_heap(k->q, h);
	const char *name = chq_str(k->q, hp->name);
	struct ch_facts fa;
	struct buf fig = BUF_INIT;
	const char *sz = "committed";
	double use, hw;

	chq_facts(k->q, h, &fa);
	/* the size it may grow to: reserved, where the
	 * report says (a summary's free is relative to it;
	 * a report's is inside the committed part) */
	if (fa.reserved != CHQ_UNKNOWN && fa.reserved >= fa.capacity) {
		fa.capacity = fa.reserved;
		sz = "reserved";
	}
	if (fa.capacity == CHQ_UNKNOWN || fa.capacity <= 0)
		return;
	use = fa.used != CHQ_UNKNOWN ? (double)fa.used / (double)fa.capacity
				     : 0;
	hw = fa.max_used != CHQ_UNKNOWN
		     ? (double)fa.max_used / (double)fa.capacity
		     : 0;
	kib(&fig, sz, fa.capacity);
	kib(&fig, "used", fa.used);
	kib(&fig, "max used", fa.max_used);
	if (fa.free != CHQ_UNKNOWN)
		buf_addf(&fig, ", free %" PRId64 " KiB of the %s",
			 fa.free / 1024, fa.size_is);
	if (!k->javacore && (use >= CH_FULL || hw >= CH_FULL))
		heap_nearly_full(k, h, name, &fa, fig.data, use, hw);
	if (!isnan(fa.fragmentation) && fa.fragmentation >= CH_FRAGMENTED &&
	    fa.free != CHQ_UNKNOWN && fa.largest_free != CHQ_UNKNOWN &&
	    fa.free >= fa.capacity / 20)
		heap_fragmented(k, h, name, &fa);
	buf_release(&fig);
}

/* A javacore: the JIT's code and data caches at their limit
 * (1STSEGLIMIT: -Xcodecachetotal, the data cache's total), the bytes
 * in use of all their segments against it. */
static void check_jit_caches(struct snap_check *k)
{
	static const char *const jt[] = {"jit_code", "jit_data"};
	static const char *const jname[] = {"JIT code cache", "JIT data cache"};
	size_t i;

	for (i = 0; i < 2; i++) {
		char n1[64], n2[64], n3[64];
		int64_t used, limit, segs = -1;
		struct finding *f;
		double u;

		snprintf(n1, sizeof(n1), "mem.%s.in_use", jt[i]);
		snprintf(n2, sizeof(n2), "mem.%s.limit", jt[i]);
		snprintf(n3, sizeof(n3), "mem.%s.segments", jt[i]);
		if (!chq_snapshot_stat(k->q, k->s, n1, &used) ||
		    !chq_snapshot_stat(k->q, k->s, n2, &limit) || limit <= 0)
			continue;
		u = (double)used / (double)limit;
		if (u < JC_LIMIT)
			continue;
		chq_snapshot_stat(k->q, k->s, n3, &segs);
		f = need_finding(k);
		if (k->sev < FINDING_WARNING)
			k->sev = FINDING_WARNING;
		if (u >= JC_AT_LIMIT)
			k->sev = FINDING_CRITICAL;
		if (u > k->jc_worst)
			k->jc_worst = u;
		finding_add_evidence(
			f,
			"%s: %" PRId64 " KiB in use of a %" PRId64
			" KiB limit (%.1f%%)%s%s%s",
			jname[i], used / 1024, limit / 1024, 100 * u,
			segs >= 0 ? " in " : "",
			segs >= 0 ? (snprintf(n3, sizeof(n3), "%" PRId64, segs),
				     n3)
				  : "",
			segs < 0    ? ""
			: segs == 1 ? " segment"
				    : " segments");
		finding_add_fact(f,
				 i ? "jit_data_used_pct" : "jit_code_used_pct",
				 100 * u, "%");
	}
}

/* The snapshot's finding made whole once every check ran: its severity
 * (softened where a full heap's code has somewhere to go), weight,
 * picture, sentence, command and fix. */
static void finish_snapshot(struct snap_check *k)
{
	struct finding *f = k->f;
	char *a;

	/* one full heap whose code goes to a heap with room is not a
	 * full code cache: the JIT goes on compiling; the JVM said
	 * nothing of a full cache nor of compilation stopping */
	if (k->sev == FINDING_CRITICAL && k->n_at_full &&
	    k->n_fall == k->n_at_full && !k->disabled && !k->full &&
	    k->jc_worst < JC_AT_LIMIT) {
		k->sev = FINDING_WARNING;
		finding_add_evidence(
			f,
			"the JIT goes on compiling: what does not fit "
			"goes into %s, which has room (CodeCache::"
			"allocate), and the JVM reports no full code "
			"cache",
			k->fall_to);
	}
	if (k->map_heap != UINT32_MAX)
		f->figure = map_figure(k->c, k->q, k->map_heap);
	f->severity = k->sev;
	if (k->jc_worst > k->worst)
		k->worst = k->jc_worst;
	f->weight = k->worst + (k->disabled ? 1 : 0);
	f->sentence = xstrdup(
		k->disabled || k->full ? "The JIT code cache filled up and "
					 "compilation stopped."
		: k->jc_worst >= JC_AT_LIMIT
			? "A JIT cache is at its limit: the "
			  "JIT cannot allocate another "
			  "segment."
		: k->jc_worst > 0     ? "A JIT cache is near its limit."
		: k->worst >= CH_FULL ? "A JIT code heap is nearly full."
				      : "A JIT code heap is fragmented.");
	finding_add_fact(f, "full_count", (double)k->full, "times");
	finding_add_fact(f, "compilation_disabled", (double)k->disabled, "");
	a = buf_strf("--map=space");
	f->command = rules_command(k->c, "codeheap", a);
	free(a);
	f->fix = xstrdup(k->javacore ? "Give the JIT more room with "
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

int rule_code_heaps(struct findings_ctx *c, const struct finding_rule *rule,
		    struct err *e)
{
	struct findings *found = c->out, snaps;
	struct chq *q;
	uint32_t s, h;
	/* per finding of snaps: its snapshot, and the heap whose map is
	 * its picture (UINT32_MAX none) */
	uint32_t *snap_of = NULL, *map_of = NULL;

	if (chq_open(c->s, &q, e) < 0)
		return ERR_FAIL;
	/* each snapshot's finding goes to snaps first; then each recording
	 * keeps its worst (code_heap_fold) */
	memset(&snaps, 0, sizeof(snaps));
	c->out = &snaps;
	for (s = 0; s < chq_n_snapshots(q); s++) {
		const struct chq_snapshot *sn = chq_snapshot(q, s);
		struct snap_check k = {
			.c = c,
			.rule = rule,
			.q = q,
			.s = s,
			.sn = sn,
			.src = chq_snapshot_source(q, s),
			.kind = chq_str(q, sn->kind),
			.sev = FINDING_INFO,
			.map_heap = UINT32_MAX,
		};

		k.javacore = !strcmp(k.kind, "javacore");
		if (sn->recording > UINT32_MAX ||
		    !findings_rec_in_scope(c, (uint32_t)sn->recording))
			continue;
		check_jit_stopped(&k);
		for (h = sn->first_heap; h < sn->first_heap + sn->n_heaps; h++)
			check_heap(&k, h);
		check_jit_caches(&k);
		if (!k.f)
			continue;
		finish_snapshot(&k);
		snap_of = xreallocarray(snap_of, snaps.n_findings,
					sizeof(*snap_of));
		snap_of[snaps.n_findings - 1] = s;
		map_of = xreallocarray(map_of, snaps.n_findings,
				       sizeof(*map_of));
		map_of[snaps.n_findings - 1] =
			k.f->figure >= 0 ? k.map_heap : UINT32_MAX;
	}
	c->out = found;
	code_heap_fold(c, q, &snaps, snap_of, map_of);
	free(snap_of);
	free(map_of);
	findings_release(&snaps);
	chq_free(q);
	return 0;
}
