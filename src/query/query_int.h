/*
 * The query engine's insides, shared by its modules (query.c: filters,
 * group-bys, trees, the timeline; survivors.c: liveness over time).
 * Front ends include query.h only.
 */
#ifndef HS_QUERY_IMPL_H
#define HS_QUERY_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "query/query.h"
#include "store/store.h"
#include "util/arena.h"
#include "util/hash.h"

struct acc {
	uint64_t samples;
	int64_t bytes;
	/* the sum of squares the standard error comes from, and the
	 * pooled term (pool_of), exact and held at the top, so that no
	 * order of additions changes them */
	unsigned __int128 sq, pool;
	double objects; /* agent samples: each weighs bytes / size objects */
	/* the corrected estimate: the exact bytes (OutsideTLAB) among
	 * bytes, the rest being sampled, and whether some are of objects
	 * smaller than a typical TLAB (estimate.h) */
	int64_t exact;
	/* agent samples of sizes HotSpot samples too seldom (QUERY_BIAS_
	 * OUTSIDE): their bytes */
	int64_t outside;
	bool small_out;
};

#define SQ_MAX (~(unsigned __int128)0)

/* A stored 128-bit sum (store_rollup_sq, store_rollup_est), lo then hi. */
static inline unsigned __int128 u128_of(uint64_t lo, uint64_t hi)
{
	return (unsigned __int128)hi << 64 | lo;
}

static inline unsigned __int128 sq_add(unsigned __int128 a, unsigned __int128 b)
{
	return a > SQ_MAX - b ? SQ_MAX : a + b;
}

/* What a sample of weight w (and size, for agent samples) adds to the
 * sum of squares of its group: w^2 for weighted samples (Hansen-Hurwitz),
 * w^2 (1 - s/w) = w^2 - s w for agent samples of inclusion probability
 * s/w (Horvitz-Thompson, Poisson sampling); docs/estimates.md. */
static inline unsigned __int128 sq_of(int64_t w, int64_t size, bool agent)
{
	unsigned __int128 x;

	if (w <= 0)
		return 0;
	x = (unsigned __int128)(uint64_t)w * (uint64_t)w;
	if (agent && size > 0) {
		unsigned __int128 y =
			(unsigned __int128)(uint64_t)size * (uint64_t)w;

		x = y >= x ? 0 : x - y;
	}
	return x;
}

/*
 * The pooled term of a group's variance (docs/estimates.md): each
 * sampled byte of ObjectAllocationSample times the mean size-biased
 * weight m of its stratum, which is what the group's sum of squares is
 * worth on average; the ± takes the larger of the two, so that a group
 * that happened to draw none of a throttled thread's heavy weights is
 * not said to be sure.  The strata are threads (a weight is the bytes
 * of its own thread since its previous sample); rows without their
 * thread take their node's or class's m, the byte-weighted mean of its
 * threads' m over the recording (query_pool_get).  m is in 1/65536
 * bytes (QUERY_POOL_SHIFT), a pooled term in bytes^2 * 65536.  m is 0
 * for every other kind, and for the corrected estimate's exact bytes.
 */
#define QUERY_POOL_SHIFT 16
static inline unsigned __int128 pool_of(int64_t w, uint64_t m)
{
	/* below 2^63 * 2^64: no overflow */
	return w > 0 && m ? (unsigned __int128)(uint64_t)w * m : 0;
}

/* The relative standard error of a group (query_row.rel_err), from its
 * sum of squares and its pooled term. */
double query_rel_err(enum sample_kind k, uint64_t samples, int64_t bytes,
		     unsigned __int128 sq, unsigned __int128 pool);

/* What a pass's rows or samples take their m by: the key they hold. */
enum query_pool_by { POOL_THREAD, POOL_NODE, POOL_CLASS, POOL__COUNT };

/* m by (recording, thread, node or class), for one estimate: in a table
 * by recording and id where that is small (dense[by][rec * (n_ids + 1)
 * + id], the id STORE_NONE last), else in a map by query_pool_key(). */
struct query_pool {
	struct u64map m[POOL__COUNT];
	uint64_t *dense[POOL__COUNT];
	uint32_t n_ids[POOL__COUNT], n_recs;
	/* each recording's m (its threads' weighted by their bytes), which
	 * every node and class takes where by_rec: a store without a full
	 * projection (query_pool_get) */
	uint64_t *rec_m;
	bool by_rec, rows;
};

/*
 * The pool of q's estimate (the raw weights or the corrected rests), with
 * its table by made, over q's time window: each thread's m is that of
 * its weights in the window, whatever the other filters (a phase's
 * weights are not another's).  Without a window, made once per store
 * and estimate and kept with it (query_pool_slot), from the rollups of
 * ObjectAllocationSample (the thread projection's rows for each
 * thread's m, then, when a node's or class's is asked for, the full
 * projection's), or its samples where the store has no rollups, no
 * squares (before 2.2) or no full projection.  With one, made once per
 * query and kept with it, from a pass of its own over the window
 * (PASS_ALL).  *out NULL where q's kind is not ObjectAllocationSample.
 */
int query_pool_get(struct query *q, int by, const struct query_pool **out,
		   struct err *e);
/* A pool's tables released (the struct zeroed, to be made again). */
void query_pool_release(struct query_pool *pool);
/* query.c: the store's slot for the pool of one estimate, and how much
 * of it is made (0: nothing, 1: the threads', 2: all) */
struct query_pool *query_pool_slot(struct query *q, bool corrected,
				   int **level);

/* A key of a pool: a recording's index and a thread's, node's or
 * class's. */
static inline uint64_t query_pool_key(uint32_t rec, uint32_t id)
{
	return (uint64_t)rec << 32 | id;
}

/* m of id (a thread, node or class, by by) of recording rec (0: none) */
static inline uint64_t query_pool_m(const struct query_pool *pool, int by,
				    uint32_t rec, uint32_t id)
{
	uint64_t v;

	if (!pool)
		return 0;
	if (by != POOL_THREAD && pool->by_rec)
		return rec < pool->n_recs ? pool->rec_m[rec] : 0;
	if (pool->dense[by]) {
		uint32_t n = pool->n_ids[by], k = id == STORE_NONE ? n : id;

		return rec < pool->n_recs && k <= n
			       ? pool->dense[by][(size_t)rec * (n + 1) + k]
			       : 0;
	}
	return u64map_get(&pool->m[by], query_pool_key(rec, id), &v) ? v : 0;
}

/* estimate.c: a rest's corrected bytes under its recording's facts
 * (struct store_estimate), and a sum of rests' squares scaled alike;
 * whether that scale is 1 (no TLAB weights, or all of them), where a
 * sum of scaled rests is the scaled sum. */
bool query_est_scale_one(const struct store_estimate *f);
int64_t query_est_scale(int64_t rest, const struct store_estimate *f);
unsigned __int128 query_est_scale_sq(uint64_t lo, uint64_t hi,
				     const struct store_estimate *f);

/* A stack node's own samples (query_tree.c): side by side, so that a
 * row costs one cache miss, not two. */
struct query_node_self {
	uint64_t samples;
	int64_t bytes;
	unsigned __int128 sq, pool; /* for the ± (sq_of, pool_of) */
};

/*
 * Shared by query_tree.c and query_tree_lazy.c.  The stack nodes' own
 * samples under q's filters, summed once per query and kept in q: the
 * nodes with samples of their own in order (self_list), the i-th one's
 * sums self[i] (returned; NULL with e set when a block is damaged), and
 * from any node to its sums (query_self_of: zeros for a node without,
 * a binary search); and a parent's children, ids into nodes, sorted
 * heaviest first (est_bytes, samples, label), as every tree orders them.
 */
struct query;
const struct query_node_self *
query_node_self_sums(struct query *q, struct query_total *total, struct err *e);
extern const struct query_node_self query_self_none;
/* (after query_node_self_sums) the first of self_list at or after trie
 * node node; and node's own sums, zeros for a node without */
size_t query_self_from(const struct query *q, uint32_t node);
const struct query_node_self *query_self_of(const struct query *q,
					    uint32_t node);
void query_tree_sort_kids(const struct query_tree_node *nodes, uint32_t *ids,
			  size_t n);
/* a parent with more children than this finds them in a map, not by
 * scanning its list */
#define QUERY_KIDS_SCAN 8

/* A site's label when its frame is dropped (query_frames.c) */
#define QUERY_LAB_DROP UINT32_MAX
enum { QUERY_LAB_FRAME, QUERY_LAB_CLASS, QUERY_LAB_THREAD };

/* The frame trie (query_frames.c): the distinct paths of frame labels
 * of the stacks met, node 0 the root (no frame), parents before their
 * children; kids: (parent << 32 | label) -> node; memo: store node ->
 * the frame node its children hang from. */
struct query_ftrie {
	uint32_t *parent, *label, *depth;
	size_t n, alloc;
	struct u64map kids, memo;
	/* without threads the memo is a table by store node (UINT32_MAX:
	 * not met): a map lookup a node was most of a big trie's walk */
	uint32_t *memo_node;
};

struct query {
	struct store *s;
	struct query_options o;
	struct store_samples sm;
	const struct store_recording *recs;
	const struct store_thread *threads;
	const struct store_class *classes;
	const struct store_method *methods;
	const struct store_frame *frames;
	const struct store_node *nodes;
	uint32_t n_recs, n_threads, n_classes, n_methods, n_frames, n_nodes;
	enum sample_kind kind;
	uint64_t kind_counts[SAMPLE__COUNT];
	/* the kind's blocks; sm is one of them during a pass
	 * (query_next_block), or all the kind's samples after
	 * query_materialize(); lo, hi: those of sm in the time window */
	const struct store_block *blocks;
	uint32_t n_blocks;
	uint64_t lo, hi;
	bool filtered; /* anything but the kind and the window */
	/* node_ok: the store's shared verdicts of 1 without a frame
	 * filter (node_ok_own false), else the query's own */
	unsigned char *class_ok, *thread_ok;
	const unsigned char *node_ok;
	bool node_ok_own;
	/* sites: (method, line) pairs, named once per store and shared by
	 * its queries (frame_site, node_site, site_names: struct
	 * query_shared in query.c, kept with the store); node_app: NULL
	 * until query_app_sites(); is_lib: per method, --library's
	 * verdict */
	const uint32_t *frame_site, *node_site;
	uint32_t *node_app, n_sites;
	unsigned char *is_lib;
	const char *const *site_names;
	struct arena names;
	/* frame labels (query_frames.c): where relabel is false, a frame's
	 * label is its site's name; else lab[site] is its label's index in
	 * lab_names (QUERY_LAB_DROP: dropped), with the label's method text
	 * (class.method, as shown) and line (-1: none shown), and stacks
	 * are numbered by the frame trie ft */
	bool relabel;
	/* split: leaf_class or threads, whose frames are not the stack's
	 * alone; cls_lab, thr_lab: their labels by class and thread (one
	 * past the last: none), UINT32_MAX until made */
	bool split;
	uint32_t *cls_lab, *thr_lab;
	uint32_t *lab, n_labs, lab_dropped;
	struct hmap lab_idx;
	const char **lab_names, **lab_method;
	int32_t *lab_line;
	/* what each label stands for: QUERY_LAB_FRAME (a method), or a
	 * frame the query made, --leaf=class's class or --threads' thread
	 * (query_flame() draws them as such) */
	unsigned char *lab_kind;
	struct query_ftrie ft;
	/* results, owned until the next call */
	/* query_tree()'s, one per orientation (0: callers first, 1:
	 * inverted), kept until query_free(): the browser shows both and
	 * goes back to them after a range is cleared */
	struct query_tree_cache {
		struct query_tree_node *nodes;
		size_t n;
		uint32_t max_depth;
		bool valid;
		struct query_total total;
	} trees[2];
	/* the samples and bytes of the stack nodes with samples of their
	 * own (self, not summed up the trie), shared by the trees and the
	 * call paths; NULL until first asked (query_node_self_sums): those
	 * nodes in order (self_list), self[i] the sums of self_list[i]
	 * (query_self.c); self_neg: one of them has negative bytes (a
	 * damaged store) */
	struct query_node_self *self;
	struct query_total self_total;
	uint32_t *self_list;
	size_t n_self_list;
	bool self_neg;
	/* query_tree_lazy()'s, one per orientation: the nodes made so far
	 * and each one's members, mem[mem_at .. mem_at + mem_n): trie
	 * nodes (the call tree's, merged by site), or for the inverted
	 * tree the stack whose samples it holds, org[] (its index in
	 * self_list), and the trie node mem[] its path has reached;
	 * whole: nodes is trees[]' */
	struct query_lazy_tree {
		struct query_tree_node *nodes;
		size_t *mem_at;
		uint32_t *mem_n;
		size_t n, alloc;
		uint32_t *mem, *org;
		size_t n_mem, mem_alloc;
		size_t n_all;
		bool valid, whole;
		struct query_total total;
		/* query_tree_lazy_filter()'s verdict per trie node: the
		 * call tree's kept[]; the inverted tree's is outer[] (the
		 * depth of the outermost match on a node's way out, 0 for
		 * none; uint16_t, or uint32_t where outer32 is set), which
		 * is all the inverted count needs, in half the memory */
		unsigned char *kept;
		void *outer;
		bool outer32;
	} lazy[2];
	struct query_bucket *buckets;
	/* query_covered()'s spans, merged, sorted, cut to the window:
	 * [cover[2i], cover[2i+1]); made once (cover_made) */
	int64_t *cover;
	size_t n_cover;
	bool cover_made;
	struct query_row *rows;
	struct acc *g; /* per group: together, one cache line an update */
	size_t g_alloc;
	struct survivors_state *surv; /* survivors.c's results */
	/* a held kind's samples in the window that pass the filters,
	 * copied out by the first pass that reads them
	 * (query_held_samples): a filtered query's later passes read
	 * these instead of every sample */
	struct query_sel {
		enum { SEL_UNTRIED, SEL_MADE, SEL_NONE } state;
		struct store_samples view;
		uint32_t *seq, *recording, *thread, *cls, *node;
		int64_t *time_ns, *bytes, *size, *rest;
		uint8_t *kind, *flags;
	} sel;
	/* options.key: a verdict per group of key_by (NULL: no key) */
	unsigned char *key_ok;
	/* [n_recs]: the recordings the filters keep (o.recording,
	 * o.recordings); NULL: every one */
	unsigned char *rec_ok;
	struct query_recording *rec_info; /* query_recordings(), lazily */
	/* the kinds whose counts in rec_info could not be read (bit 1 <<
	 * kind: a damaged block, counted 0), and the first such damage,
	 * for query_recordings_check() */
	uint32_t rec_bad;
	struct err rec_err;
	struct query_path *paths;   /* query_paths()' results */
	struct query_stack *stacks; /* query_stacks()' results */
	/* what the filters look at, of a rollup row's key (PASS_NEED_*) */
	unsigned need;
	/* the corrected estimate's (store 2.3; NULL in an older store):
	 * each recording's facts, and the rollup rows' sums */
	const struct store_estimate *est;
	const struct store_rollup_est *rollup_est;
	/* the pooled term's m of each estimate over the query's time
	 * window, where it has one (query_pool_get), and how much of it is
	 * made (as query_pool_slot's) */
	struct query_pool wpool[2];
	int wpool_level[2];
};

/*
 * A pass over the query's kind in its window, from the rollups where it
 * can (docs/formats/store.md, 2.1): each rollup bucket inside the window
 * with no cut inside it is handed out as rows (PASS_ROWS), and the
 * samples of the others, only those inside the window, as samples
 * (PASS_SAMPLES: q->sm[q->lo, q->hi), of recording rec only unless rec
 * is PASS_ANY_REC).  Without rollups for the kind, every sample in the
 * window comes as samples.  Every sample of the window comes exactly
 * once, in one form or the other, in no particular order: what is
 * added up from it must not depend on the order (counts, sums of
 * non-negative bytes held at INT64_MAX, minimum and maximum times).
 */
#define PASS_NEED_NODE	 1u
#define PASS_NEED_CLASS	 2u
#define PASS_NEED_THREAD 4u
/* the rows' sums of squares (store 2.2; a 2.1 store's passes that need
 * them read the samples) */
#define PASS_NEED_SQUARES 8u
/* every row and sample of the window, whatever the query's filters, and
 * no pooled term: what a window's pool is made from (estimate.c) */
#define PASS_ALL     16u
#define PASS_ANY_REC UINT32_MAX

enum { PASS_END, PASS_ROWS, PASS_SAMPLES };

struct pass_edge {
	int64_t a, b; /* [a, b], inclusive */
	uint32_t rec;
};

struct query_pass {
	/* cuts: the times cut_base + j * cut_w (cut_w 0: none); a bucket
	 * with one after its start is read as samples */
	int64_t cut_base, cut_w;
	/* PASS_ROWS: a bucket's rows, of recording rec, under proj */
	const struct store_rollup_row *rows;
	const struct store_rollup_sq *sq;   /* the rows' (PASS_NEED_SQUARES) */
	const struct store_rollup_est *est; /* the rows' (corrected) */
	uint32_t n_rows, rec;
	/* PASS_SAMPLES: what each sample adds to the sum of squares as a
	 * weight, where it is not its bytes (the corrected estimate) */
	const int64_t *var;
	/* the pooled term's m (pool_of; NULL: none), taken by pool_by's
	 * key of each row or sample; exact rows and the corrected
	 * estimate's exact samples (var at or below 0) take none */
	const struct query_pool *pool;
	int pool_by;
	/* the corrected estimate: the rows or samples handed out are
	 * OutsideTLAB events, exact (their sq NULL, their var 0 or -1);
	 * small[r]: row r holds one smaller than a typical TLAB */
	bool exact;
	const bool *small;
	int proj;
	int64_t start_ns, end_ns;
	/* the state: the kind read (the query's, or under the corrected
	 * estimate ObjectAllocationSample's, then OutsideTLAB's), its
	 * blocks, and the corrected estimate's copies of what is handed out */
	int kind;
	bool corrected;
	/* need: what the rows must hold; need_asked: of it, what the
	 * caller and the filters asked for (need adds the thread for the
	 * pooled term) */
	unsigned need, need_asked;
	/* PASS_ALL: the held kind's samples all, not the filtered ones */
	bool all;
	const struct store_block *blocks;
	uint32_t n_blocks;
	struct store_rollup_row *x_rows;
	struct store_rollup_sq *x_sq;
	bool *x_small;
	uint32_t x_alloc;
	int64_t *x_bytes, *x_var;
	uint8_t *x_kind;
	uint64_t x_n;
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *all_rows;
	const struct store_rollup_sq *all_sq;
	uint32_t n_b, bi;
	/* the whole recordings' rollups under proj (3.1), read in place of
	 * a recording's buckets when the window holds them all */
	struct store_rollup_whole whole;
	uint32_t wi;
	int phase;
	struct pass_edge *edges;
	size_t n_edges, alloc_edges, ei;
	uint32_t blk, cur_blk;
};

/* need: PASS_NEED_* of what the caller groups by, besides the filters. */
int query_pass_init(struct query *q, struct query_pass *p, unsigned need,
		    int64_t cut_base, int64_t cut_w, struct err *e);
/* PASS_ROWS, PASS_SAMPLES, PASS_END, or <0 with e set (a damaged block) */
int query_pass_next(struct query *q, struct query_pass *p, struct err *e);
void query_pass_release(struct query_pass *p);
/* PASS_NEED_* of a group-by */
unsigned query_group_need(enum query_group by);

/* Row r of a PASS_ROWS batch passes every filter. */
bool query_row_ok(const struct query *q, const struct query_pass *p,
		  const struct store_rollup_row *r);

/* The group of a row, as group_of() for a sample. */
static inline size_t group_of_row(const struct query *q, enum query_group by,
				  const struct query_pass *p,
				  const struct store_rollup_row *r)
{
	switch (by) {
	case GROUP_CLASS:
		return r->cls == STORE_NONE ? q->n_classes : r->cls;
	case GROUP_SITE:
		return q->node_site[r->node];
	case GROUP_APP_SITE:
		return q->node_app[r->node];
	case GROUP_THREAD:
		return r->thread == STORE_NONE ? q->n_threads : r->thread;
	default:
		return p->rec;
	}
}

void query_survivors_free(struct query *q);

/* query_frames.c: the labels made at query_open() (after the sites),
 * ERR_USAGE for a bad --drop-frames; released by query_frames_free();
 * store node n's frame node (relabel only), made when first asked: 0
 * for node 0 (no stack), the node of "[dropped]" where every frame of
 * the stack is dropped. */
int query_frames_open(struct query *q, struct err *e);
void query_frames_free(struct query *q);
uint32_t query_frames_node(struct query *q, uint32_t n);
/* The frame node of samples of store node n, class cls and thread th
 * (STORE_NONE: none), leaf_class's and threads' frames included. */
uint32_t query_frames_node_ct(struct query *q, uint32_t n, uint32_t cls,
			      uint32_t th);
/* The query's own samples summed by frame node, [q->ft.n], malloc'ed:
 * from self (query_node_self_sums()), or where frames split a stack
 * node's samples (q->split) from a pass of their own.  NULL with e set
 * on a damaged block. */
struct query_node_self *query_frames_sums(struct query *q,
					  const struct query_node_self *self,
					  struct query_total *total,
					  struct err *e);

/*
 * A pass over the samples of the query's kind in its time window, a
 * block at a time: *b starts at 0; each call points q->sm at the next
 * block that overlaps the window and q->lo, q->hi at its samples inside
 * it.  1: a block, 0: none left, <0: a damaged block (e set).  Only the
 * blocks that overlap the window are read.
 */
int query_next_block(struct query *q, uint32_t *b, struct err *e);
/* All the kind's samples in q->sm at once (survivors keeps indices into
 * them), and q->lo, q->hi the window over them. */
int query_materialize(struct query *q, struct err *e);
/* The held kind's samples for a pass: as query_materialize(), but a
 * filtered query's are only those in its window that pass its filters
 * where they are few (a quarter of the window's at most), copied out
 * once: the browser's drill-down makes three passes under a key that
 * a few thousand of ten million samples have.  The same samples in the
 * same order pass query_sample_ok() either way. */
int query_held_samples(struct query *q, struct err *e);

/* a + b, wrapping instead of overflowing: the values come from a file,
 * and a damaged one must give a wrong sum, never undefined behaviour */
static inline int64_t add_wrap(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* a + b, held at INT64_MAX (INT64_MIN) instead of overflowing: the sums
 * of estimates top, tree and timeline show.  Weights up to INT64_MAX are
 * kept exactly, so two of them must not add up to a negative total
 * (docs/formats/jfr.md); a saturated sum is at least the true one. */
static inline int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

/* The key by which a pass takes m: by, of a row or a sample's. */
static inline uint32_t pool_id(int by, uint32_t thread, uint32_t node,
			       uint32_t cls)
{
	return by == POOL_NODE ? node : by == POOL_CLASS ? cls : thread;
}

/* What sample i of q->sm (of bytes bytes) adds to its group's pooled
 * term in pass p (pool_of). */
static inline unsigned __int128 pool_sample(const struct query *q,
					    const struct query_pass *p,
					    uint64_t i, int64_t bytes)
{
	return p->pool ? pool_of(p->var ? p->var[i] : bytes,
				 query_pool_m(
					 p->pool, p->pool_by,
					 q->sm.recording[i],
					 pool_id(p->pool_by, q->sm.thread[i],
						 q->sm.node[i], q->sm.cls[i])))
		       : 0;
}

/* What row x of p's rows adds to its group's pooled term. */
static inline unsigned __int128 pool_row(const struct query_pass *p,
					 const struct store_rollup_row *x)
{
	return p->pool && !p->exact
		       ? pool_of(x->bytes,
				 query_pool_m(p->pool, p->pool_by, p->rec,
					      pool_id(p->pool_by, x->thread,
						      x->node, x->cls)))
		       : 0;
}

/* A group's sum of squares and pooled term, for query_rel_err(). */
struct query_var {
	unsigned __int128 sq, pool;
};

static inline struct query_var var_of(const struct query_node_self *x)
{
	return (struct query_var){x->sq, x->pool};
}

static inline void var_add(struct query_var *y, const struct query_node_self *x)
{
	y->sq = sq_add(y->sq, x->sq);
	y->pool = sq_add(y->pool, x->pool);
}

/* A stack node's sums of x added to y's. */
static inline void self_add(struct query_node_self *y,
			    const struct query_node_self *x)
{
	y->samples += x->samples;
	y->bytes = add_sat(y->bytes, x->bytes);
	y->sq = sq_add(y->sq, x->sq);
	y->pool = sq_add(y->pool, x->pool);
}

static inline void total_add(struct query_total *t, int64_t time, int64_t bytes)
{
	t->samples++;
	t->est_bytes = add_sat(t->est_bytes, bytes);
	if (time < t->first_ns)
		t->first_ns = time;
	if (time > t->last_ns)
		t->last_ns = time;
}

/* A rollup row's samples into t. */
static inline void total_add_rows(struct query_total *t, uint64_t samples,
				  int64_t bytes, int64_t first, int64_t last)
{
	t->samples += samples;
	t->est_bytes = add_sat(t->est_bytes, bytes);
	if (first < t->first_ns)
		t->first_ns = first;
	if (last > t->last_ns)
		t->last_ns = last;
}

static inline void total_init(struct query_total *t)
{
	memset(t, 0, sizeof(*t));
	t->first_ns = INT64_MAX;
	t->last_ns = INT64_MIN;
}

/* q->node_app made: each stack node's innermost application frame's
 * site (GROUP_APP_SITE), which group_of() and group_of_row() read. */
void query_app_sites(struct query *q);

/* How many groups there are under by (query_top's accumulators). */
size_t query_group_count(const struct query *q, enum query_group by);

/* Group g's key as rows show it (top's rows, survivors' series): a
 * class's or thread's name from the store, a site's from q->site_names,
 * a recording's "N: SOURCE" (the number too: the same file may be in
 * twice, and --recording takes the number) copied into q->names. */
const char *query_group_key(struct query *q, enum query_group by, size_t g);

/* The group of sample i under by, numbered as query_top() numbers its
 * accumulators: one past the last class or thread for "none". */
static inline size_t group_of(const struct query *q, enum query_group by,
			      uint64_t i)
{
	const struct store_samples *sm = &q->sm;

	switch (by) {
	case GROUP_CLASS:
		return sm->cls[i] == STORE_NONE ? q->n_classes : sm->cls[i];
	case GROUP_SITE:
		return q->node_site[sm->node[i]];
	case GROUP_APP_SITE:
		return q->node_app[sm->node[i]];
	case GROUP_THREAD:
		return sm->thread[i] == STORE_NONE ? q->n_threads
						   : sm->thread[i];
	default:
		return sm->recording[i];
	}
}

/* Recording rec passes the recording filters (q->rec_ok set). */
static inline bool query_rec_ok(const struct query *q, uint64_t rec)
{
	return rec < q->n_recs && q->rec_ok[rec];
}

/* The sample passes every filter but the time window.  Inline: every
 * sample pass calls it for each sample of its window. */
static inline bool query_sample_ok(const struct query *q, uint64_t i)
{
	const struct store_samples *sm = &q->sm;
	uint32_t cls = sm->cls[i], th = sm->thread[i];

	/* the small tables first: node_ok is as long as the trie (millions
	 * of nodes on a big store), and a look-up there mostly misses the
	 * cache, so it is made only for the samples every other test let
	 * through */
	return sm->kind[i] == q->kind &&
	       (cls == STORE_NONE ? !q->o.class_re : q->class_ok[cls]) &&
	       (th == STORE_NONE ? !q->o.thread_re : q->thread_ok[th]) &&
	       (!q->rec_ok || query_rec_ok(q, sm->recording[i])) &&
	       (!q->key_ok ||
		q->key_ok[group_of(q, (enum query_group)q->o.key_by, i)]) &&
	       q->node_ok[sm->node[i]];
}

#endif
