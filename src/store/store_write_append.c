/*
 * Copying every recording of an open store into a writer, for
 * heapsift import --append (store.h): each sample is replayed through
 * the writer's sink as an importer would emit it, in the store's order,
 * so that the writer interns and sorts it anew.
 *
 * The samples are read a block at a time (one open block per kind,
 * merged by seq), never decoded whole: a first pass checks that they
 * hold every seq once in time order, as store_verify() would, and notes
 * which recordings each block holds; then each recording's samples are
 * replayed from the blocks that hold some of them.
 */
#include "store/store.h"
#include "store/store_int.h"
#include "store/store_write_int.h"

#include <stdlib.h>
#include <string.h>

#include "record/sink.h"
#include "util/xalloc.h"

/* --- copying into a writer (for --append) ------------------------------- */

static void ch_blocks_out(struct store *s, const struct store_ch_block *b,
			  uint32_t n, struct rec_ch_block *out)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rec_ch_block *o = &out[i];

		memset(o, 0, sizeof(*o));
		o->kind =
			b[i].flags & STORE_CH_BLOCK_FREE ? CHK_FREE : CHK_USED;
		o->addr = b[i].addr;
		o->size = b[i].size;
		o->type = (enum ch_block_type)b[i].type;
		o->compiler =
			b[i].compiler ? store_str(s, b[i].compiler) : NULL;
		o->level = b[i].level;
		o->temperature = b[i].temperature;
		o->compile_id = b[i].compile_id;
		o->state = b[i].state;
		o->name = b[i].name ? store_str(s, b[i].name) : NULL;
		o->gap = b[i].gap;
		o->gap_blocks = b[i].gap_blocks;
		o->permanent_gap = b[i].flags & STORE_CH_BLOCK_PERMANENT_GAP;
		o->top = b[i].flags & STORE_CH_BLOCK_TOP;
	}
}

static void ch_stats_out(struct store *s, const struct store_ch_stat *st,
			 uint32_t n, struct rec_ch_stat *out)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		out[i].name = store_str(s, st[i].name);
		out[i].value = st[i].value;
	}
}

/* Replay recording r's code-heap snapshots into sink. */
static int ch_replay(struct store *s, const struct sink *sink, uint32_t r,
		     struct err *e)
{
	const struct store_ch_snapshot *sn;
	const struct store_ch_heap *hp;
	const struct store_ch_map *mp;
	const struct store_ch_block *bk;
	const struct store_ch_stat *st;
	const uint8_t *cells;
	uint64_t n_cells;
	uint32_t n_sn, n_hp, n_mp, n_bk, n_st, i, h, k;
	int rc = 0;

	if (store_ch_snapshots(s, &sn, &n_sn, e) < 0 ||
	    store_ch_heaps(s, &hp, &n_hp, e) < 0 ||
	    store_ch_maps(s, &mp, &n_mp, e) < 0 ||
	    store_ch_blocks(s, &bk, &n_bk, e) < 0 ||
	    store_ch_stats(s, &st, &n_st, e) < 0 ||
	    store_ch_cells(s, &cells, &n_cells, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n_sn && rc >= 0; i++) {
		struct rec_codeheap c;
		struct rec_ch_heap *heaps;
		struct rec_ch_stat *stats;
		struct rec_ch_block *blocks;

		if (sn[i].recording != r)
			continue;
		memset(&c, 0, sizeof(c));
		c.kind = store_str(s, sn[i].kind);
		c.line = sn[i].line;
		c.time_ns = sn[i].time_ns;
		heaps = xcalloc(sn[i].n_heaps + 1, sizeof(*heaps));
		stats = xcalloc(sn[i].n_stats + 1, sizeof(*stats));
		blocks = xcalloc(sn[i].n_blocks + 1, sizeof(*blocks));
		ch_stats_out(s, st + sn[i].first_stat, sn[i].n_stats, stats);
		ch_blocks_out(s, bk + sn[i].first_block, sn[i].n_blocks,
			      blocks);
		for (h = 0; h < sn[i].n_heaps; h++) {
			const struct store_ch_heap *x =
				&hp[sn[i].first_heap + h];
			struct rec_ch_heap *o = &heaps[h];
			struct rec_ch_map *maps;
			struct rec_ch_block *hb;
			struct rec_ch_stat *hs;

			o->name = store_str(s, x->name);
			o->low = x->low;
			o->high = x->high;
			o->high_reserved = x->high_reserved;
			o->segment_size = x->segment_size;
			o->granule_size = x->granule_size;
			o->n_granules = x->n_granules;
			o->committed = x->committed;
			o->reserved = x->reserved;
			o->used = x->used;
			o->free = x->free;
			o->max_used = x->max_used;
			o->used_blocks = x->used_blocks;
			o->free_blocks = x->free_blocks;
			o->placement_estimated =
				x->flags & STORE_CH_PLACEMENT_ESTIMATED;
			maps = xcalloc(x->n_maps + 1, sizeof(*maps));
			for (k = 0; k < x->n_maps; k++) {
				const struct store_ch_map *m =
					&mp[x->first_map + k];

				maps[k].measure = (enum ch_measure)m->measure;
				maps[k].part = (enum ch_part)m->part;
				maps[k].bundle = m->flags & STORE_CH_MAP_BUNDLE;
				maps[k].cells = cells + m->cells;
				maps[k].n = m->n;
			}
			hb = xcalloc(x->n_blocks + 1, sizeof(*hb));
			ch_blocks_out(s, bk + x->first_block, x->n_blocks, hb);
			hs = xcalloc(x->n_stats + 1, sizeof(*hs));
			ch_stats_out(s, st + x->first_stat, x->n_stats, hs);
			o->maps = maps;
			o->n_maps = x->n_maps;
			o->blocks = hb;
			o->n_blocks = x->n_blocks;
			o->stats = hs;
			o->n_stats = x->n_stats;
		}
		c.heaps = heaps;
		c.n_heaps = sn[i].n_heaps;
		c.stats = stats;
		c.n_stats = sn[i].n_stats;
		c.blocks = blocks;
		c.n_blocks = sn[i].n_blocks;
		if (sink->ops->codeheap)
			rc = sink->ops->codeheap(sink->ctx, &c);
		for (h = 0; h < sn[i].n_heaps; h++) {
			free((void *)heaps[h].maps);
			free((void *)heaps[h].blocks);
			free((void *)heaps[h].stats);
		}
		free(heaps);
		free(stats);
		free(blocks);
	}
	if (rc < 0)
		return err_set(e, ERR_IO, "store: copying failed");
	return 0;
}

/* --- replaying -------------------------------------------------------- */

struct old_tables {
	const struct store_thread *threads;
	const struct store_class *classes;
	const struct store_method *methods;
	const struct store_frame *frames;
	const struct store_node *nodes;
	const struct store_old_object *old;
	const struct store_liveness *live;
	uint32_t n_old, n_live;
	struct rec_frame *fbuf; /* as deep as the trie */
	uint64_t oi, li; /* old and live records before these seqs done */
};

/* x's stack into st (frames in t->fbuf), site first. */
static void replay_stack(struct store *s, struct old_tables *t,
			 const struct store_sample_row *x, struct rec_stack *st)
{
	uint32_t node = x->node, depth = 0;

	for (; node; node = t->nodes[node].parent) {
		const struct store_frame *f = &t->frames[t->nodes[node].frame];
		const struct store_method *m = &t->methods[f->method];
		struct rec_frame *rf = &t->fbuf[depth++];

		rf->class_name = store_str(s, t->classes[m->cls].display);
		rf->class_raw = store_str(s, t->classes[m->cls].raw);
		rf->method = store_str(s, m->name);
		rf->descriptor = store_str(s, m->descriptor);
		rf->hidden = m->flags & STORE_METHOD_HIDDEN;
		rf->line = f->line;
		rf->bci = f->bci;
		rf->type = store_str(s, f->type);
		/* the old store's frame: one id, one frame */
		rf->id = (uint64_t)t->nodes[node].frame + 1;
	}
	st->id = x->node; /* never 0 here */
	st->frames = t->fbuf;
	st->n_frames = depth;
	st->truncated = x->flags & STORE_SAMPLE_TRUNCATED;
}

/* The old-object and liveness facts of sample seq into r (both sections
 * sorted by seq, met in increasing seq). */
static void replay_sparse(struct store *s, struct old_tables *t, uint32_t seq,
			  struct rec_sample *r)
{
	const struct store_old_object *o;
	const struct store_liveness *l;

	while (t->oi < t->n_old && t->old[t->oi].sample < seq)
		t->oi++;
	if (t->oi < t->n_old && t->old[t->oi].sample == seq) {
		o = &t->old[t->oi];
		r->alloc_time_ns = o->alloc_time_ns;
		r->object_age_ns = o->age_ns;
		r->object_size = o->object_size;
		r->last_heap_used = o->last_heap_used;
		r->array_elements = o->array_elements;
		r->gc_root = o->root ? store_str(s, o->root) : NULL;
	}
	while (t->li < t->n_live && t->live[t->li].sample < seq)
		t->li++;
	if (t->li < t->n_live && t->live[t->li].sample == seq) {
		l = &t->live[t->li];
		r->liveness = l->state == STORE_LIVE_DEAD     ? LIVE_DEAD
			      : l->state == STORE_LIVE_AT_END ? LIVE_AT_END
							      : LIVE_AT_CUT;
		if (r->liveness == LIVE_DEAD)
			r->death_ns = l->death_ns;
		if (l->alloc_gc >= 0)
			r->alloc_gc = l->alloc_gc;
		if (l->death_gc >= 0)
			r->death_gc = l->death_gc;
	}
}

static int replay_sample(struct store *s, const struct sink *sink,
			 struct old_tables *t, const struct store_sample_row *x)
{
	struct rec_sample r;
	struct rec_thread th;
	struct rec_stack st;

	rec_sample_init(&r, (enum sample_kind)x->kind);
	r.time_ns = x->time_ns;
	switch (r.kind) {
	case SAMPLE_TLAB_NEW:
		r.tlab_size = x->bytes;
		r.alloc_size = x->size;
		break;
	case SAMPLE_TLAB_OUTSIDE:
		r.alloc_size = x->bytes;
		break;
	case SAMPLE_OLD_OBJECT:
		r.object_size = x->size;
		break;
	default:
		r.weight = x->bytes;
		r.alloc_size = x->size;
	}
	if (x->thread != STORE_NONE) {
		const struct store_thread *th_rec = &t->threads[x->thread];

		th.id = (uint64_t)x->thread + 1;
		th.name = store_str(s, th_rec->name);
		th.java_id = th_rec->java_id;
		th.os_id = th_rec->os_id;
		th.is_virtual = th_rec->flags & STORE_THREAD_VIRTUAL;
		r.thread = &th;
	}
	if (x->cls != STORE_NONE) {
		r.class_id = (uint64_t)x->cls + 1;
		r.class_name = store_str(s, t->classes[x->cls].display);
		r.class_raw = store_str(s, t->classes[x->cls].raw);
	}
	if (x->node) {
		replay_stack(s, t, x, &st);
		r.stack = &st;
	}
	replay_sparse(s, t, x->seq, &r);
	return sink->ops->sample(sink->ctx, &r);
}

/* Recording r's samples, in seq order, into sink. */
static int replay_samples(struct store_writer *w, struct store *s,
			  struct seq_cursor *sc, struct old_tables *t,
			  uint32_t r, struct err *e)
{
	const struct sink *sink = store_writer_sink(w);
	struct store_sample_row x;
	int rc;

	seq_cursor_rewind(sc, r);
	t->oi = t->li = 0;
	while ((rc = seq_cursor_next(sc, &x, e)) > 0)
		if (replay_sample(s, sink, t, &x) < 0) {
			if (store_writer_failed(w, e))
				return ERR_FAIL; /* the spill's reason */
			return err_set(e, ERR_IO, "store: copying failed");
		}
	return rc;
}

/* Recording r's GCs, heap summaries and code-heap snapshots, then the
 * recording itself, into sink. */
static int replay_recording(struct store *s, const struct sink *sink,
			    uint32_t r, struct err *e)
{
	const struct store_recording *recs;
	const struct store_setting *sets;
	const struct store_count *counts;
	const struct store_heap *heap;
	const struct store_gc *gcs;
	const struct store_gc_info *gi;
	uint32_t n_recs, n_sets, n_counts, n_heap, n_gcs, n_gi, k;
	struct rec_setting *sbuf;
	struct rec_count *cbuf;
	struct rec_recording rr;
	int rc = 0;

	if (store_recordings(s, &recs, &n_recs, e) < 0 ||
	    store_settings(s, &sets, &n_sets, e) < 0 ||
	    store_counts(s, &counts, &n_counts, e) < 0 ||
	    store_heap(s, &heap, &n_heap, e) < 0 ||
	    store_gcs(s, &gcs, &n_gcs, e) < 0 ||
	    store_gc_info(s, &gi, &n_gi, e) < 0)
		return ERR_FAIL;
	for (k = 0; k < n_gcs && rc >= 0; k++) {
		struct rec_gc g;

		if (gcs[k].recording != r || !sink->ops->gc)
			continue;
		g.number = gcs[k].number;
		g.start_ns = gcs[k].start_ns;
		g.end_ns = gcs[k].end_ns;
		rc = sink->ops->gc(sink->ctx, &g);
	}
	for (k = 0; k < n_gi && rc >= 0; k++) {
		struct rec_gc_info g;

		if (gi[k].recording != r || !sink->ops->gc_info)
			continue;
		g.gc_id = gi[k].gc_id;
		g.name = gi[k].name ? store_str(s, gi[k].name) : NULL;
		g.cause = gi[k].cause ? store_str(s, gi[k].cause) : NULL;
		g.phase = gi[k].phase ? store_str(s, gi[k].phase) : NULL;
		g.failed = (gi[k].flags & STORE_GC_FAILED) != 0;
		rc = sink->ops->gc_info(sink->ctx, &g);
	}
	for (k = 0; k < n_heap && rc >= 0; k++) {
		struct rec_heap_summary hs;

		if (heap[k].recording != r)
			continue;
		hs.time_ns = heap[k].time_ns;
		hs.gc_id = heap[k].gc_id;
		hs.when = store_str(s, heap[k].when);
		hs.heap_used = heap[k].used;
		hs.committed = heap[k].committed;
		hs.reserved = heap[k].reserved;
		rc = sink->ops->heap_summary(sink->ctx, &hs);
	}
	if (rc < 0)
		return err_set(e, ERR_IO, "store: copying failed");
	memset(&rr, 0, sizeof(rr));
	rr.source = store_str(s, recs[r].source);
	rr.format = store_str(s, recs[r].format);
	rr.jvm_name = recs[r].jvm_name ? store_str(s, recs[r].jvm_name) : NULL;
	rr.jvm_version =
		recs[r].jvm_version ? store_str(s, recs[r].jvm_version) : NULL;
	rr.start_ns = recs[r].start_ns;
	rr.end_ns = recs[r].end_ns;
	rr.n_chunks = recs[r].n_chunks;
	rr.bytes_skipped = recs[r].bytes_skipped;
	sbuf = xmalloc(sizeof(*sbuf) * (recs[r].n_settings + 1));
	cbuf = xmalloc(sizeof(*cbuf) * (recs[r].n_counts + 1));
	for (k = 0; k < recs[r].n_settings; k++) {
		sbuf[k].name =
			store_str(s, sets[recs[r].first_setting + k].name);
		sbuf[k].value =
			store_str(s, sets[recs[r].first_setting + k].value);
	}
	rr.settings = sbuf;
	rr.n_settings = recs[r].n_settings;
	for (k = 0; k < recs[r].n_counts; k++) {
		cbuf[k].name =
			store_str(s, counts[recs[r].first_count + k].name);
		cbuf[k].n = counts[recs[r].first_count + k].n;
	}
	rr.event_types = cbuf;
	rr.n_event_types = recs[r].n_counts;
	rc = ch_replay(s, sink, r, e);
	if (rc >= 0 && sink->ops->recording(sink->ctx, &rr) < 0)
		rc = err_set(e, ERR_IO, "store: copying failed");
	free(sbuf);
	free(cbuf);
	return rc;
}

/* Every section checked as store_verify() does, but the samples, which
 * seq_cursor_check() checks a block at a time. */
static int check_sections(struct store *s, struct err *e)
{
	int i;

	for (i = 0; i < I__COUNT; i++)
		if (store_section(s, i, e) < 0)
			return ERR_FAIL;
	return store_blocks_crc_check(s, e);
}

int store_writer_add_store(struct store_writer *w, struct store *s,
			   struct err *e)
{
	const struct sink *sink = store_writer_sink(w);
	const struct store_recording *recs;
	struct old_tables t;
	struct seq_cursor sc;
	uint32_t n_recs, n, r;
	int rc;

	/* the recordings from here on may be compared (--append), so each
	 * one's identity is computed, from the first */
	if (w->recordings.n && !w->identify)
		BUG("store: a store added after other recordings");
	w->identify = true;
	memset(&t, 0, sizeof(t));
	if (check_sections(s, e) < 0 ||
	    store_recordings(s, &recs, &n_recs, e) < 0 ||
	    store_threads(s, &t.threads, &n, e) < 0 ||
	    store_classes(s, &t.classes, &n, e) < 0 ||
	    store_methods(s, &t.methods, &n, e) < 0 ||
	    store_frames(s, &t.frames, &n, e) < 0 ||
	    store_nodes(s, &t.nodes, &n, e) < 0 ||
	    store_old_objects(s, &t.old, &t.n_old, e) < 0 ||
	    store_liveness(s, &t.live, &t.n_live, e) < 0)
		return ERR_FAIL;
	t.fbuf = xmalloc(sizeof(*t.fbuf) * (n ? n : 1));
	rc = seq_cursor_init(&sc, s, e);
	if (rc >= 0)
		rc = seq_cursor_check(&sc, e);
	if (rc < 0)
		err_source(e, s->path);
	for (r = 0; r < n_recs && rc >= 0; r++) {
		rc = replay_samples(w, s, &sc, &t, r, e);
		if (rc >= 0)
			rc = replay_recording(s, sink, r, e);
		if (rc < 0)
			store_writer_failed(w, e);
	}
	seq_cursor_release(&sc);
	free(t.fbuf);
	return rc < 0 ? ERR_FAIL : 0;
}
