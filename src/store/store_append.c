/*
 * Copying every recording of an open store into a writer, for
 * heapsift import --append (store.h): each sample is replayed through
 * the writer's sink as an importer would emit it, in the store's order,
 * so that the writer interns and sorts it anew.
 */
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

#include "importers/sink.h"
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

int store_writer_add_store(struct store_writer *w, struct store *s,
			   struct err *e)
{
	const struct sink *sink = store_writer_sink(w);
	const struct store_recording *recs;
	const struct store_setting *sets;
	const struct store_count *counts;
	const struct store_thread *threads;
	const struct store_class *classes;
	const struct store_method *methods;
	const struct store_frame *frames;
	const struct store_node *nodes;
	const struct store_heap *heap;
	const struct store_old_object *old;
	const struct store_liveness *live;
	const struct store_gc *gcs;
	struct store_samples sm;
	uint32_t n_recs, n_sets, n_counts, n_threads, n_classes, n_methods,
		n_frames, n_nodes, n_heap, n_old, n_live, n_gcs, r;
	struct rec_frame *fbuf;
	struct rec_setting *sbuf;
	struct rec_count *cbuf;
	uint64_t i, oi, li;
	int rc = 0;

	if (store_verify(s, e) < 0 ||
	    store_recordings(s, &recs, &n_recs, e) < 0 ||
	    store_settings(s, &sets, &n_sets, e) < 0 ||
	    store_counts(s, &counts, &n_counts, e) < 0 ||
	    store_threads(s, &threads, &n_threads, e) < 0 ||
	    store_classes(s, &classes, &n_classes, e) < 0 ||
	    store_methods(s, &methods, &n_methods, e) < 0 ||
	    store_frames(s, &frames, &n_frames, e) < 0 ||
	    store_nodes(s, &nodes, &n_nodes, e) < 0 ||
	    store_heap(s, &heap, &n_heap, e) < 0 ||
	    store_old_objects(s, &old, &n_old, e) < 0 ||
	    store_liveness(s, &live, &n_live, e) < 0 ||
	    store_gcs(s, &gcs, &n_gcs, e) < 0 || store_samples(s, &sm, e) < 0)
		return ERR_FAIL;
	(void)n_threads;
	(void)n_classes;
	(void)n_methods;
	(void)n_frames;
	fbuf = xmalloc(sizeof(*fbuf) * (n_nodes ? n_nodes : 1));
	sbuf = xmalloc(sizeof(*sbuf) * (n_sets ? n_sets : 1));
	cbuf = xmalloc(sizeof(*cbuf) * (n_counts ? n_counts : 1));
	for (r = 0; r < n_recs && rc >= 0; r++) {
		struct rec_recording rr;
		uint32_t k;

		for (i = 0, oi = 0, li = 0; i < sm.n && rc >= 0; i++) {
			struct rec_sample x;
			struct rec_thread th;
			struct rec_stack st;
			uint32_t node = sm.node[i], depth = 0;

			if (sm.recording[i] != r)
				continue;
			rec_sample_init(&x, (enum sample_kind)sm.kind[i]);
			x.time_ns = sm.time_ns[i];
			switch (x.kind) {
			case SAMPLE_TLAB_NEW:
				x.tlab_size = sm.bytes[i];
				x.alloc_size = sm.size[i];
				break;
			case SAMPLE_TLAB_OUTSIDE:
				x.alloc_size = sm.bytes[i];
				break;
			case SAMPLE_OLD_OBJECT:
				x.object_size = sm.size[i];
				break;
			default:
				x.weight = sm.bytes[i];
				x.alloc_size = sm.size[i];
			}
			if (sm.thread[i] != STORE_NONE) {
				const struct store_thread *t =
					&threads[sm.thread[i]];

				th.id = (uint64_t)sm.thread[i] + 1;
				th.name = store_str(s, t->name);
				th.java_id = t->java_id;
				th.os_id = t->os_id;
				th.is_virtual = t->flags & STORE_THREAD_VIRTUAL;
				x.thread = &th;
			}
			if (sm.cls[i] != STORE_NONE) {
				x.class_id = (uint64_t)sm.cls[i] + 1;
				x.class_name = store_str(
					s, classes[sm.cls[i]].display);
				x.class_raw =
					store_str(s, classes[sm.cls[i]].raw);
			}
			/* a node's path, site first */
			for (; node; node = nodes[node].parent) {
				const struct store_frame *f =
					&frames[nodes[node].frame];
				const struct store_method *m =
					&methods[f->method];
				struct rec_frame *rf = &fbuf[depth++];

				rf->class_name =
					store_str(s, classes[m->cls].display);
				rf->class_raw =
					store_str(s, classes[m->cls].raw);
				rf->method = store_str(s, m->name);
				rf->descriptor = store_str(s, m->descriptor);
				rf->hidden = m->flags & STORE_METHOD_HIDDEN;
				rf->line = f->line;
				rf->bci = f->bci;
				rf->type = store_str(s, f->type);
			}
			if (sm.node[i]) {
				st.id = sm.node[i]; /* never 0 here */
				st.frames = fbuf;
				st.n_frames = depth;
				st.truncated =
					sm.flags[i] & STORE_SAMPLE_TRUNCATED;
				x.stack = &st;
			}
			/* old-object extras are sorted by sample too */
			while (oi < n_old && old[oi].sample < i)
				oi++;
			if (oi < n_old && old[oi].sample == i) {
				x.alloc_time_ns = old[oi].alloc_time_ns;
				x.object_age_ns = old[oi].age_ns;
				x.object_size = old[oi].object_size;
				x.last_heap_used = old[oi].last_heap_used;
				x.array_elements = old[oi].array_elements;
				x.gc_root = old[oi].root
						    ? store_str(s, old[oi].root)
						    : NULL;
			}
			while (li < n_live && live[li].sample < i)
				li++;
			if (li < n_live && live[li].sample == i) {
				x.liveness =
					live[li].state == STORE_LIVE_DEAD
						? LIVE_DEAD
					: live[li].state == STORE_LIVE_AT_END
						? LIVE_AT_END
						: LIVE_AT_CUT;
				if (x.liveness == LIVE_DEAD)
					x.death_ns = live[li].death_ns;
				if (live[li].alloc_gc >= 0)
					x.alloc_gc = live[li].alloc_gc;
				if (live[li].death_gc >= 0)
					x.death_gc = live[li].death_gc;
			}
			rc = sink->ops->sample(sink->ctx, &x);
		}
		for (k = 0; k < n_gcs && rc >= 0; k++) {
			struct rec_gc g;

			if (gcs[k].recording != r || !sink->ops->gc)
				continue;
			g.number = gcs[k].number;
			g.start_ns = gcs[k].start_ns;
			g.end_ns = gcs[k].end_ns;
			rc = sink->ops->gc(sink->ctx, &g);
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
		memset(&rr, 0, sizeof(rr));
		rr.source = store_str(s, recs[r].source);
		rr.format = store_str(s, recs[r].format);
		rr.jvm_name = recs[r].jvm_name ? store_str(s, recs[r].jvm_name)
					       : NULL;
		rr.jvm_version = recs[r].jvm_version
					 ? store_str(s, recs[r].jvm_version)
					 : NULL;
		rr.start_ns = recs[r].start_ns;
		rr.end_ns = recs[r].end_ns;
		rr.n_chunks = recs[r].n_chunks;
		rr.bytes_skipped = recs[r].bytes_skipped;
		for (k = 0; k < recs[r].n_settings; k++) {
			sbuf[k].name = store_str(
				s, sets[recs[r].first_setting + k].name);
			sbuf[k].value = store_str(
				s, sets[recs[r].first_setting + k].value);
		}
		rr.settings = sbuf;
		rr.n_settings = recs[r].n_settings;
		for (k = 0; k < recs[r].n_counts; k++) {
			cbuf[k].name = store_str(
				s, counts[recs[r].first_count + k].name);
			cbuf[k].n = counts[recs[r].first_count + k].n;
		}
		rr.event_types = cbuf;
		rr.n_event_types = recs[r].n_counts;
		if (rc >= 0 && ch_replay(s, sink, r, e) < 0) {
			free(fbuf);
			free(sbuf);
			free(cbuf);
			return ERR_FAIL;
		}
		if (rc >= 0)
			rc = sink->ops->recording(sink->ctx, &rr);
	}
	free(fbuf);
	free(sbuf);
	free(cbuf);
	if (rc < 0)
		return err_set(e, ERR_IO, "store: copying failed");
	return 0;
}
