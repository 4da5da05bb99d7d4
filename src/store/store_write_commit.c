/*
 * The store writer's commit (store.h, store_write_commit.h): the trie numbered
 * depth first, the sample blocks (from the spill's runs merged in time
 * order, store_write_spill.h, or already written as the samples came,
 * store_write_stream.c), then every other section laid out as
 * docs/formats/store.md says, in a new file beside the target (without a
 * name until it is whole and synced, newfile.h), renamed over it.  Both
 * ways in write the same bytes.
 */
#include "store/store_write_commit.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_estimate.h"
#include "store/store_write_rollup.h"
#include "store/store_block.h"
#include "store/store_write_spill.h"
#include "store/store.h"
#include "store/store_write_encode.h"
#include "store/store_write_out.h"
#include "store/store_write_stream.h"
#include "store/store_write_int.h"
#include "util/crc32c.h"
#include "util/workq.h"

/*
 * Number the trie depth first; old -> new ids, and the new node table.
 * The walk meets a node's children last made first.  A node is made
 * after its parent (parent < child), so the numbering needs no walk:
 * the subtrees' sizes, summed children to parents, and then each
 * child's range taken, in the order made, from the end of its parent's
 * (the first made is met last).  One column of 4 bytes a node besides
 * the two returned, where a walk with child and sibling lists and its
 * stack took four (a million stacks make millions of nodes).
 */
struct store_node *number_nodes(const struct store_writer *w,
				uint32_t **renum_out)
{
	size_t n = w->nodes.n, i;
	const struct node_key *key = (const struct node_key *)w->nodes.data;
	/* a node's subtree size, then where its next child's range ends */
	uint32_t *room = xmalloc(n * sizeof(uint32_t));
	uint32_t *renum = xmalloc(n * sizeof(uint32_t));
	struct store_node *nodes = xmalloc(n * sizeof(struct store_node));

	for (i = 0; i < n; i++)
		room[i] = 1;
	for (i = n; i-- > 1;) {
		if (key[i].parent >= i)
			BUG("store: node %zu made before its parent", i);
		room[key[i].parent] += room[i];
	}
	renum[0] = 0;
	nodes[0].end = room[0]; /* room[0]: the root's range's end */
	for (i = 1; i < n; i++) {
		uint32_t size = room[i];

		room[key[i].parent] -= size;
		renum[i] = room[key[i].parent];
		nodes[renum[i]].end = renum[i] + size;
		room[i] = renum[i] + size;
	}
	for (i = 0; i < n; i++) {
		struct store_node *nd = &nodes[renum[i]];

		nd->parent = i ? renum[key[i].parent] : STORE_NONE;
		nd->frame = key[i].frame;
	}
	/* depth, parents first (parent < child after renumbering) */
	nodes[0].depth = 0;
	for (i = 1; i < n; i++)
		nodes[i].depth = nodes[nodes[i].parent].depth + 1;
	free(room);
	*renum_out = renum;
	return nodes;
}

/* Sparse per-sample records (old objects, liveness) start with a u32
 * sample index. */
int by_sample(const void *a, const void *b)
{
	uint32_t x, y;

	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return x < y ? -1 : x > y;
}

/*
 * Sparse per-sample records (old-object details, liveness) point at
 * their samples: by import index until now, by seq from here, and
 * sorted that way, as the format says and readers rely on.  They are in
 * import order, and only samples of the kinds in kinds (a bit mask) have
 * them, so each such sample met in seq order finds its record by binary
 * search; no table as long as the samples is built.
 */
struct sparse_map {
	struct vec *v;
	unsigned kinds;
	uint32_t *pos; /* seq of each record, once found */
	size_t found;
};

static void sparse_init(struct sparse_map *sm, struct vec *v, unsigned kinds)
{
	sm->v = v;
	sm->kinds = kinds;
	sm->pos = xmalloc((v->n ? v->n : 1) * sizeof(*sm->pos));
	sm->found = 0;
}

static void sparse_note(struct sparse_map *sm, const struct spill_sample *x,
			uint32_t seq)
{
	size_t lo = 0, hi = sm->v->n;
	uint32_t at;

	if (!hi || !(sm->kinds >> x->kind & 1))
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&at, sm->v->data + mid * sm->v->size, 4);
		if (at < x->import)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sm->v->n)
		return;
	memcpy(&at, sm->v->data + lo * sm->v->size, 4);
	if (at != x->import)
		return; /* this sample has none */
	sm->pos[lo] = seq;
	sm->found++;
}

static void sparse_finish(struct sparse_map *sm)
{
	size_t i, n = sm->v->n;

	if (sm->found != n)
		BUG("store: %zu per-sample records, %zu found", n, sm->found);
	for (i = 0; i < n; i++)
		memcpy(sm->v->data + i * sm->v->size, &sm->pos[i], 4);
	free(sm->pos);
	if (n > 1)
		qsort(sm->v->data, n, sm->v->size, by_sample);
}

/* The merge's side: one sample, the seq-th, checked and handed to the
 * encoder; its sparse records told their seq.  The sample keeps the
 * writer's node id: the blocks hold it (4.0; the node map names its
 * depth-first id), and the rollups renumber it themselves. */
struct emit {
	struct err *e;
	struct enc_pipe pipe;
	struct sparse_map old, live;
	uint32_t n_nodes;
};

static int emit_sample(struct emit *em, const struct spill_sample *x,
		       uint32_t seq)
{
	struct enc_batch *b = em->pipe.fill;

	if (x->kind >= SAMPLE__COUNT || x->node >= em->n_nodes)
		return err_set(em->e, ERR_FORMAT,
			       "store: the spill file is damaged (sample %u)",
			       seq);
	b->kind[b->n] = x->kind;
	b->s[b->n++] = (struct block_sample){
		seq,	x->time_ns, x->recording, x->flags, x->thread,
		x->cls, x->node,    x->bytes,	  x->size,  0};
	if (b->n == ENC_BATCH)
		pipe_submit(&em->pipe);
	if (x->import != SPILL_NO_IMPORT) {
		sparse_note(&em->old, x, seq);
		sparse_note(&em->live, x, seq);
	}
	return 0;
}

/*
 * The samples in their final order: the merge of the spilled runs gives
 * them by time, ties in import order, and the i-th is seq i.  This is the
 * one pass over every sample at commit; work per sample in seq order
 * belongs in emit_sample() (this thread) or encode_sample() (the
 * encoder's).  Blocks are filled one per kind and go out when they hold
 * STORE_BLOCK_SAMPLES; the index (by kind, then seq) is returned in
 * index, for its own section; the sparse records are renumbered to seqs;
 * the walk's facts stay in en.
 */
static int emit_samples(struct out *o, struct store_writer *w,
			struct vec *index, struct rollup_builder *rb,
			struct encoder *en)
{
	struct emit em;
	struct err merr; /* the merge's own: the encoder may set o->e */
	struct spill_merge *m = NULL;
	const struct spill_sample *x;
	uint64_t seq = 0;
	int rc;

	encoder_begin(en, o, index, rb, (uint32_t)w->recordings.n,
		      (uint32_t)w->threads.n);
	memset(&em, 0, sizeof(em));
	memset(&merr, 0, sizeof(merr));
	em.e = &merr;
	em.n_nodes = (uint32_t)w->nodes.n;
	sparse_init(&em.old, &w->old_objects, 1u << SAMPLE_OLD_OBJECT);
	sparse_init(&em.live, &w->liveness, LIVENESS_KINDS);
	pipe_init(&em.pipe, en, false);
	rc = spill_merge_new(w->spill, &m, &merr);
	while (rc >= 0 && !__atomic_load_n(&en->failed, __ATOMIC_RELAXED) &&
	       (rc = spill_merge_next(m, &x, &merr)) > 0) {
		if (seq >= w->n_samples) {
			rc = err_set(&merr, ERR_FORMAT,
				     "store: the spill file holds more than "
				     "%llu samples",
				     (unsigned long long)w->n_samples);
			break;
		}
		rc = emit_sample(&em, x, (uint32_t)seq++);
	}
	spill_merge_free(m);
	pipe_end(&em.pipe, rc >= 0);
	if (rc < 0 && !o->failed && o->e)
		*o->e = merr;
	if (rc >= 0 && !o->failed && seq != w->n_samples)
		rc = err_set(o->e, ERR_FORMAT,
			     "store: the spill file holds %llu samples, "
			     "not %llu",
			     (unsigned long long)seq,
			     (unsigned long long)w->n_samples);
	if (rc < 0 || o->failed) {
		o->failed = true;
		free(em.old.pos);
		free(em.live.pos);
		return ERR_FAIL;
	}
	encoder_end(en);
	sparse_finish(&em.old);
	sparse_finish(&em.live);
	return 0;
}

/* A section of the records in v. */
static void out_vec(struct out *o, uint32_t id, const struct vec *v)
{
	out_section(o, id, v->data, v->size, v->n);
}

/*
 * Every section after the sample blocks, the same for both ways in: the
 * tables, the trie and the node map, the index, the estimate facts of
 * the walk, the rollups (rb's rows put on the trie's ids and the
 * recordings' widths; where rows built as the samples came cannot be,
 * built again from the blocks written, store_write_stream.c), the sparse
 * records and the rest; then the table of sections and the header.
 */
int commit_sections(struct out *o, struct store_writer *w,
		    const struct vec *index, struct rollup_builder *rb,
		    const struct est_walk *walk, uint64_t blocks_at)
{
	struct store_estimate *est;
	struct store_node *nodes;
	uint32_t *renum, k;
	struct rollup_builder *again = NULL;
	int rc;

	nodes = number_nodes(w, &renum);
	out_section(o, SEC_STRINGS, w->strings.data, 1, w->strings.len);
	out_vec(o, SEC_RECORDINGS, &w->recordings);
	out_vec(o, SEC_SETTINGS, &w->settings);
	out_vec(o, SEC_EVENT_COUNTS, &w->counts);
	out_vec(o, SEC_THREADS, &w->threads);
	out_vec(o, SEC_CLASSES, &w->classes);
	out_vec(o, SEC_METHODS, &w->methods);
	out_vec(o, SEC_FRAMES, &w->frames);
	out_section(o, SEC_NODES, nodes, sizeof(struct store_node), w->nodes.n);
	free(nodes); /* 16 bytes a node, not kept through the rollups */
	/* the blocks name nodes by the writer's ids (4.0), these rows and
	 * the rollups by the trie's */
	out_section(o, SEC_NODE_MAP, renum, sizeof(uint32_t), w->nodes.n);
	out_section(o, SEC_SAMPLE_INDEX, index->data, index->size, index->n);
	est = xcalloc(w->recordings.n ? w->recordings.n : 1, sizeof(*est));
	for (k = 0; k < (uint32_t)w->recordings.n; k++)
		est_walk_facts(walk, k, &est[k]);
	out_section(o, SEC_ESTIMATES, est, sizeof(*est), w->recordings.n);
	free(est);
	rollup_builder_set_recordings(
		rb, (const struct store_recording *)w->recordings.data,
		(uint32_t)w->recordings.n);
	rollup_builder_set_node_map(rb, renum, (uint32_t)w->nodes.n);
	rc = out_rollups(o, rb);
	if (rc == ROLLUP_AGAIN) {
		again = stream_rollups_again(o, w, index, blocks_at, renum);
		if (again)
			out_rollups(o, again);
		else
			o->failed = true;
		rollup_builder_free(again);
	}
	out_section(o, SEC_OLD_OBJECTS, w->old_objects.data,
		    w->old_objects.size, w->old_objects.n);
	out_vec(o, SEC_HEAP, &w->heap);
	out_vec(o, SEC_LIVENESS, &w->liveness);
	out_vec(o, SEC_GCS, &w->gcs);
	out_vec(o, SEC_GC_INFO, &w->gc_info);
	out_vec(o, SEC_CH_SNAPSHOTS, &w->ch_snaps);
	out_vec(o, SEC_CH_HEAPS, &w->ch_heaps);
	out_vec(o, SEC_CH_MAPS, &w->ch_maps);
	out_section(o, SEC_CH_CELLS, w->ch_cells.data, 1, w->ch_cells.len);
	out_vec(o, SEC_CH_BLOCKS, &w->ch_blocks);
	out_vec(o, SEC_CH_STATS, &w->ch_stats);
	free(renum);
	out_finish(o);
	return o->failed ? ERR_FAIL : 0;
}

char *commit_target(const char *path, mode_t *mode)
{
	/* A symbolic link is followed: the store it points at is replaced,
	 * in its own directory, and the link stays. */
	char *real = realpath(path, NULL);
	char *target = real ? real : xstrdup(path); /* a new store */
	struct stat st;

	/* the file being replaced keeps its permissions */
	*mode = 0644;
	if (stat(target, &st) == 0)
		*mode = st.st_mode & 07777;
	return target;
}

int commit_replace(struct out *o, struct newfile *nf, const char *target,
		   struct err *e)
{
	const char *doing;
	/* HEAPSIFT_STORE_NO_LINK=1: as where /proc is missing (tests) */
	unsigned flags = getenv("HEAPSIFT_STORE_NO_LINK") ? NEWFILE_COPY : 0;

	out_end_direct(o); /* its writes waited for (a failure stops there) */
	/* synced before it has a name: a name only ever shows whole data */
	if (!o->failed && fsync(o->fd) < 0) {
		err_set(e, ERR_IO,
			"store: writing %s (syncing its new file): %s", target,
			err_io_reason(errno));
		o->failed = true;
	}
	if (!o->failed && newfile_name(nf, target, flags, &doing) < 0) {
		err_set(e, ERR_IO,
			"store: writing %s (%s its temporary file %s): %s",
			target, doing, nf->tmp.data, err_io_reason(errno));
		o->failed = true;
	}
	o->fd = -1; /* nf's, closed by what follows */
	if (o->failed) {
		newfile_abandon(nf);
		return ERR_FAIL;
	}
	if (newfile_replace(nf, target) < 0)
		return err_set(e, ERR_IO, "store: cannot replace %s: %s",
			       target, err_io_reason(errno));
	/* the rename is durable once the directory is: if this fails the
	 * new store is in place, but a power cut could still undo it */
	if (fsync_dir(target) < 0)
		return err_set(e, ERR_IO,
			       "store: %s written, but syncing its "
			       "directory failed: %s",
			       target, strerror(errno));
	return 0;
}

int store_writer_commit(struct store_writer *w, const char *path, struct err *e)
{
	struct store_header h;
	struct out o;
	struct newfile nf;
	struct vec index;
	struct rollup_builder *rb;
	struct encoder en;
	uint64_t n = w->n_samples, blocks_at;
	int rollup_fd, rc;
	char *target;
	mode_t mode;

	if (n > UINT32_MAX)
		return err_set(e, ERR_LIMIT,
			       "store: %llu samples, more than "
			       "the 4 billion a store holds",
			       (unsigned long long)n);
	/* a spill that failed fails the commit, before any file is made */
	if (err_isset(&w->spill_err) ||
	    spill_end_run(w->spill, &w->spill_err) < 0) {
		*e = w->spill_err;
		return ERR_FAIL;
	}
	store_writer_drop_keys(w);
	if (w->stream && stream_active(w->stream))
		return stream_commit(w->stream, w, path, e);
	target = commit_target(path, &mode);
	memset(&o, 0, sizeof(o));
	o.e = e;
	/* without a name until it is whole, where the file system allows
	 * (newfile.h): a kill leaves nothing */
	if (newfile_open(&nf, target, 0600) < 0) {
		err_set(e, ERR_IO,
			"store: writing %s (creating its temporary file %s): "
			"%s",
			target, nf.tmp.data, err_io_reason(errno));
		newfile_abandon(&nf);
		free(target);
		return ERR_FAIL;
	}
	o.fd = nf.fd;
	o.path = nf.named ? nf.tmp.data : ""; /* "": no name yet */
	o.target = target;
	if (fchmod(o.fd, mode) < 0) {
		err_set(e, ERR_IO, "store: cannot set the mode of %s: %s",
			nf.named ? nf.tmp.data : target, strerror(errno));
		newfile_abandon(&nf);
		free(target);
		return ERR_FAIL;
	}

	rollup_fd = rollup_spill_open(target, e);
	if (rollup_fd < 0) {
		newfile_abandon(&nf);
		free(target);
		return ERR_FAIL;
	}
	rb = rollup_builder_new(
		(const struct store_recording *)w->recordings.data,
		(uint32_t)w->recordings.n, rollup_fd);
	vec_init(&index, sizeof(struct store_block));
	(void)out_direct(&o);
	memset(&h, 0, sizeof(h));
	out_write(&o, &h, sizeof(h)); /* filled in last */
	blocks_at = 0;
	memset(&en, 0, sizeof(en));
	rc = emit_samples(&o, w, &index, rb, &en);
	if (rc >= 0) {
		blocks_at = en.t->offset;
		commit_sections(&o, w, &index, rb, en.walk, blocks_at);
	}
	encoder_free(&en);
	rollup_builder_free(rb);
	close(rollup_fd);
	vec_release(&index);
	rc = commit_replace(&o, &nf, target, e);
	free(target);
	return rc;
}
