/*
 * The query engine: filters and group-bys over a store.  Every front end
 * (CLI views, exports, the browser) asks through this and nothing else.
 *
 * Filters are evaluated where they are cheap: a regex once per distinct
 * string (class name, method, thread name), a frame regex propagated
 * down the stack trie once per node, a time range as a binary search on
 * the time-sorted samples.  The pass over the samples then only reads
 * precomputed per-node, per-class and per-thread verdicts: no query
 * allocates per sample.
 *
 * Sample kinds are never mixed: a query shows one kind (by default
 * jdk.ObjectAllocationSample's, else the first kind the store holds),
 * and says which.
 */
#ifndef HS_QUERY_H
#define HS_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"
#include "util/err.h"

struct store;
struct buf;
struct query;

#define QUERY_LIBRARY_DEFAULT "^(java|javax|jdk|sun|com\\.sun)\\."

struct query_options {
	int kind;	   /* enum sample_kind, or -1 for the default */
	int64_t from_ns;   /* INT64_MIN: from the start */
	int64_t to_ns;	   /* INT64_MAX: to the end (exclusive) */
	int64_t recording; /* index, -1: all */
	/* Only the samples of these recordings (a JVM's: query_jvms()):
	 * n_recordings indexes, borrowed until query_open() returns; NULL:
	 * no such filter.  With recording too, both must hold. */
	const uint32_t *recordings;
	size_t n_recordings;
	const char *class_re;	/* on class names (display form) */
	const char *thread_re;	/* on thread names */
	const char *include_re; /* some frame's class.method must match */
	const char *exclude_re; /* no frame's class.method may match */
	const char *library_re; /* frames skipped when looking for app-site;
				   NULL: QUERY_LIBRARY_DEFAULT */
	/* A drill-down: only the samples whose key under key_by is exactly
	 * key, as query_top() names it (a row's key: "(no stack)",
	 * "(unknown class)", "3: rec.jfr" included).  NULL: no such filter.
	 * Borrowed until query_open() returns; key_by is an enum
	 * query_group. */
	const char *key;
	int key_by;
	int estimate; /* enum query_estimate, or -1 for the default */
	/* How a stack becomes frames (docs/export.md, "Frames"), for the
	 * trees, the call paths, the flame graph and the exports: frames,
	 * an enum query_frames; drop_re: frames whose class.method (as
	 * shown) matches are left out of every stack.  normalize: the rules
	 * of query/normalize.h on class names in frames, and on the keys of
	 * query_top() by class, site, app-site and thread, groups whose
	 * keys become equal adding up.  query_options_init(): lines, no
	 * rule, nothing dropped (the store's names as they are). */
	int frames;
	bool normalize;
	const char *drop_re;
	/* leaf_class: the allocated class as a frame below the allocating
	 * one, "CLASS_[k]" ("CLASS_[i]" for InNewTLAB samples), as
	 * async-profiler writes it; threads: the sample's thread as the
	 * outermost frame, "[NAME]" */
	bool leaf_class, threads;
};

enum query_frames {
	QUERY_FRAMES_LINE,   /* class.method:line (the default) */
	QUERY_FRAMES_METHOD, /* class.method: a method's lines are one */
};

bool query_frames_parse(const char *s, enum query_frames *f);
/* Its i-th value's name, NULL past the last (for shell completion). */
const char *query_frames_word(size_t i);

/*
 * Which estimate of jdk.ObjectAllocationSample's bytes a query gives
 * (docs/estimates.md).  QUERY_EST_JFR: the sum of the events' weight,
 * as the JDK's tools give it.  QUERY_EST_CORRECTED: each
 * jdk.ObjectAllocationOutsideTLAB event's bytes to its own stack, the
 * samples' weights less those bytes; only where the store holds
 * OutsideTLAB events, and the default there.  Other kinds have one
 * estimate.
 */
enum query_estimate {
	QUERY_EST_JFR,
	QUERY_EST_CORRECTED,
};

/* The estimate the query gives, and whether the corrected one could be
 * given (ObjectAllocationSample with OutsideTLAB events). */
enum query_estimate query_estimate(const struct query *q);
bool query_estimate_correctable(const struct query *q);
const char *query_estimate_name(enum query_estimate e);
bool query_estimate_parse(const char *s, enum query_estimate *e);
/* The i-th name query_estimate_parse() takes, NULL past the last. */
const char *query_estimate_word(size_t i);
/* One sentence on what the estimate shown is and how far to trust it,
 * for a view's header (static storage). */
const char *query_estimate_note(const struct query *q);

void query_options_init(struct query_options *o);
/* Whether o's recording filters (recording, recordings) keep recording
 * rec. */
bool query_options_keep_recording(const struct query_options *o, uint32_t rec);

enum query_group {
	GROUP_CLASS,
	GROUP_SITE,	/* the allocating frame: class.method:line */
	GROUP_APP_SITE, /* the first frame, from the site, not in library */
	GROUP_THREAD,
	GROUP_RECORDING,
};

/* One row of a group-by.  est_objects is NaN when the kind has no object
 * count (jdk.ObjectAllocationSample carries bytes only). */
struct query_row {
	const char *key; /* borrowed from the store or the query */
	uint64_t samples;
	int64_t est_bytes;
	double est_objects;
	double share; /* of est_bytes over all rows */
	/* the relative standard error of est_bytes (docs/estimates.md):
	 * sqrt(sum of squared weights) / est_bytes for weighted samples
	 * (for ObjectAllocationSample's, at least the pooled term's),
	 * the Horvitz-Thompson one for agent samples, 1/sqrt(samples)
	 * where the kind has no weights (OldObjectSample); 0: exact;
	 * NaN: no bytes */
	double rel_err;
	/* why the interval is not to be trusted, if it is not: the
	 * estimate is known to be biased here (docs/estimates.md) */
	enum query_bias {
		QUERY_BIAS_NONE,
		/* fewer than QUERY_FEW_EFFECTIVE effective samples, (sum
		 * w)^2 / sum w^2: one or two samples carry most of it */
		QUERY_BIAS_FEW,
		/* corrected estimate: a tenth of the group's bytes or more
		 * are exact (allocated outside TLABs), of objects smaller
		 * than a typical TLAB: those of them allocated in TLABs are
		 * partly counted at other sites, unseen */
		QUERY_BIAS_MIXED,
		/* heapsift agent, HotSpot 11 to 24
		 * (query_outside_undersampled): a tenth of the group's bytes or
		 * more are of objects of QUERY_OUTSIDE_MIN bytes or more and
		 * under QUERY_OUTSIDE_INTERVALS sampling intervals, which
		 * HotSpot allocates outside TLABs and samples too seldom
		 * (docs/estimates.md: -8% at three intervals, -36 to -46%
		 * below one, on JDK 17 and 25): the estimate is low */
		QUERY_BIAS_OUTSIDE,
	} bias;
};

#define QUERY_FEW_EFFECTIVE 4.0

/* Whether the heap sampler of a HotSpot of this version (a recording's
 * jvm_version, "17.0.15+6") samples objects allocated outside TLABs too
 * seldom: JDK 11 to 24 (JDK-8356372). */
bool query_outside_undersampled(const char *jvm_version);
#define QUERY_OUTSIDE_MIN	(64 * 1024)
#define QUERY_OUTSIDE_INTERVALS 4

struct query_total {
	uint64_t samples;
	int64_t est_bytes;
	double est_objects;
	int64_t first_ns, last_ns; /* of the samples counted */
};

struct query;

/* Compile the filters; an invalid regex is an ERR_USAGE error saying
 * where in the pattern. */
int query_open(struct store *s, const struct query_options *o,
	       struct query **out, struct err *e);
void query_free(struct query *q);

/*
 * Time 0 of the offsets the CLI's --from/--to take and the browser
 * shows (heapsift(1), FILTERS): the start of the recording chosen
 * (recording >= 0), else the earliest start of the JFR and agent
 * recordings, the ones that hold samples (code-heap reports and
 * javacores never move it), so with one such recording its start.
 * With none, the earliest start known, else 0.  <0 with e set when the
 * recordings table is damaged.  Reads that table only, no sample.
 */
int query_time_origin(struct store *s, int64_t recording, int64_t *origin,
		      struct err *e);

/*
 * Keep the query's kind decoded in memory for the passes that follow
 * (every query on the store benefits): the browser makes a pass at every
 * key, and decoding a block at a time each time would cost more than the
 * pass.  Without it a pass reads one block at a time, which is what a
 * single command wants.  A kind with rollups (store 2.1) is not decoded:
 * its passes read rows, and samples only at the window's edges.
 */
int query_hold(struct query *q, struct err *e);

enum sample_kind query_kind(const struct query *q);
/* Samples of each kind in the store, whatever the filters. */
void query_kind_counts(const struct query *q, uint64_t counts[SAMPLE__COUNT]);
/* The kind survivors ask by default, of counts: the one that proves the
 * most about each object's fate (the agent's, then live objects with
 * weights, then OldObjectSample); -1 where none has samples. */
int query_fate_kind(const uint64_t counts[SAMPLE__COUNT]);

/*
 * Group the filtered samples.  *rows (owned by q, valid until the next
 * call or query_free) is sorted by est_bytes, then samples, descending.
 */
int query_top(struct query *q, enum query_group by,
	      const struct query_row **rows, size_t *n_rows,
	      struct query_total *total, struct err *e);

const char *query_group_name(enum query_group g);
bool query_group_parse(const char *s, enum query_group *g);
/* The i-th name query_group_parse() takes, NULL past the last. */
const char *query_group_word(size_t i);

/* What a store says about one of its recordings (heapsift info's
 * facts), for overviews.  Strings are borrowed from the store, "" when
 * absent; samples[] counts every sample of each kind, whatever the
 * filters. */
struct query_recording {
	const char *source, *format, *jvm_name, *jvm_version;
	int64_t start_ns, end_ns;
	uint32_t n_chunks;
	uint64_t bytes_skipped; /* damaged or unfinished input not imported */
	uint64_t samples[SAMPLE__COUNT];
};

/* The store's recordings, in store order.  *out is owned by q and
 * valid until query_free(); one pass over the samples the first time. */
void query_recordings(struct query *q, const struct query_recording **out,
		      size_t *n);
/* Are the counts of kind in query_recordings()' samples[] whole?  0
 * yes; <0 with e set to the damage that left them 0 (a sample block of
 * the kind that failed its check, where the kind has no rollups to
 * count from).  For a caller whose answer rests on those counts (diff's
 * seconds of recording): damage must be said as damage, never as
 * "no samples". */
int query_recordings_check(struct query *q, enum sample_kind kind,
			   struct err *e);

/* --- trees ------------------------------------------------------------------ */

/*
 * Where the options of query_options.frames, .normalize or .drop_re
 * change some frame's label (else nothing changes), stacks are merged
 * by the frames they print (as they do with leaf_class and threads, which
 * add frames): a tree's nodes are labelled and numbered
 * (site) by those labels (query_tree_labels()), a path or a stack of the
 * exports (query_path.stack, query_stack.stack) is a node of the query's
 * own trie of labels rather than of the store's, which query_node_frame()
 * and query_path_frames() take, and samples whose every frame is
 * dropped have one frame, "[dropped]".  query_tree_lazy() then gives
 * query_tree()'s whole tree.
 */

/* A node of the call tree or of the inverted tree.  Index 0 is the root
 * (all samples).  Children are chained heaviest first. */
struct query_tree_node {
	const char *label; /* class.method:line; "all" for the root */
	uint32_t parent;   /* UINT32_MAX for the root */
	uint32_t first_child, next_sibling; /* UINT32_MAX: none */
	uint32_t depth;
	/* the label's index in query_tree_labels(): nodes with the same
	 * site have the same label; QUERY_TREE_NONE for the root */
	uint32_t site;
	/* the relative standard error of est_bytes, as query_row.rel_err
	 * (a float: the node stays 64 bytes); NaN: no bytes */
	float rel_err;
	uint64_t samples; /* in the subtree */
	int64_t est_bytes;
	uint64_t self_samples; /* whose stack ends here */
	int64_t self_bytes;
};

#define QUERY_TREE_NONE UINT32_MAX
/* first_child of query_tree_lazy()'s node whose children are not made */
#define QUERY_TREE_LATER (UINT32_MAX - 1)

/*
 * The call tree (root = outermost callers, leaves = allocation sites),
 * or with inverted the tree that starts at the allocating frame and
 * goes out to its callers.  max_depth limits the inverted tree's depth
 * (0: no limit).  *nodes is owned by q and valid until query_free() or
 * the next call for the same orientation with another max_depth: each
 * orientation's tree is built once and kept, so asking again costs
 * nothing (the browser goes back to a tree after a range is cleared).
 */
int query_tree(struct query *q, bool inverted, uint32_t max_depth,
	       const struct query_tree_node **nodes, size_t *n_nodes,
	       struct query_total *total, struct err *e);

/*
 * The same trees made as they are opened, for the browser: *nodes
 * holds the root and the nodes made so far; a node whose first_child
 * is QUERY_TREE_LATER has children not made yet, which
 * query_tree_children() makes.  Each node has the label, site, depth,
 * values and children's order of query_tree()'s node with the same
 * path, but is numbered as it is made (a parent before its children,
 * siblings in query_tree()'s order of making them).  *n_all is the
 * number of nodes query_tree() makes, counted without making them.
 * Where query_tree() has been called for the orientation (max_depth
 * 0), or where the sums would depend on the order of adding them (a
 * negative weight in a damaged store), *nodes is query_tree()'s whole
 * tree, numbered as query_tree() numbers it, and 1 is returned; 0 for
 * a tree made as it is opened.  Owned by q, valid until query_free(),
 * the next query_tree_lazy() or query_tree_children() of the
 * orientation, which may move them.
 */
int query_tree_lazy(struct query *q, bool inverted,
		    const struct query_tree_node **nodes, size_t *n_nodes,
		    size_t *n_all, struct query_total *total, struct err *e);

/* Node's children, made if they are not yet (first_child was
 * QUERY_TREE_LATER); *nodes and *n_nodes as query_tree_lazy()'s. */
void query_tree_children(struct query *q, bool inverted, uint32_t node,
			 const struct query_tree_node **nodes, size_t *n_nodes);

/*
 * The browser's \ filter on query_tree_lazy()'s tree, without making
 * every node: site_ok[s] (one per site of query_tree_labels()) says
 * whether site s matches.  A node is kept when it matches or a node
 * below it does, as in the whole tree.  Returns how many nodes the
 * whole tree keeps, the root left out; then query_tree_lazy_kept()
 * says whether a made node is kept (until the next query_tree_lazy()
 * that makes the tree anew).  0 and every node kept where the tree is
 * the whole one.
 */
size_t query_tree_lazy_filter(struct query *q, bool inverted,
			      const unsigned char *site_ok);
bool query_tree_lazy_kept(const struct query *q, bool inverted, uint32_t node);

/* The labels of the trees' nodes by site (query_tree_node.site):
 * *labels[0..n-1], borrowed from q until query_free(). */
size_t query_tree_labels(const struct query *q, const char *const **labels);

/*
 * The flame graph of q's call tree (query_tree(), callers first), as
 * util/flame.h draws it: the nodes of at least 0.2% of the root's bytes
 * (the rest would be thinner than a pixel) whose parent is drawn,
 * parents first, each with its left edge.  *out (the caller's to free
 * with flame_free()) is NULL with *n 0 when the tree has no bytes.  <0
 * with e set when the store is damaged.
 */
struct flame_node;
int query_flame(struct query *q, struct flame_node **out, size_t *n,
		struct err *e);

/*
 * Call paths: the distinct stacks of the filtered samples, heaviest
 * first, without building a tree.  Stacks whose frames print the same
 * (class.method:line, as query_tree() labels them) from the allocating
 * frame out are one path, overloads of a method on one line included
 * (paths are told apart by a 64-bit hash of that text; a collision
 * would merge two).  At
 * most max paths are returned, sorted by est_bytes, then samples;
 * *n_all says how many there are.  *out is owned by q, valid until the
 * next call or query_free().
 */
struct query_path {
	uint32_t stack; /* one stack of the path: for query_path_frames() */
	uint64_t samples;
	int64_t est_bytes;
	double rel_err; /* as query_row.rel_err */
};

int query_paths(struct query *q, size_t max, const struct query_path **out,
		size_t *n, size_t *n_all, struct query_total *total,
		struct err *e);

/* The frames of a path's stack as query_tree() labels them, from the
 * allocating frame out to the outermost caller, into labels[0..max-1]
 * (borrowed from q).  Returns the number of frames, which may be more
 * than max; 0 for samples without a stack. */
size_t query_path_frames(const struct query *q, uint32_t stack,
			 const char **labels, size_t max);

/* --- stacks, for the exports ------------------------------------------------ */

/*
 * The filtered samples summed per stack (a node of the store's stack
 * trie, not merged by name: two stacks that print the same are two
 * entries), for exporters that write every stack with its frames
 * (folded, pprof, speedscope).  est_objects is NaN where the kind has
 * no object count (query_kind_objects()).  The fate, where the kind has
 * liveness (agent samples, OldObjectSample: *has_fate true): inuse_*
 * count the samples whose object was still alive when its recording
 * ended (or was cut short); 0 otherwise.  Entries with no sample are
 * left out; the order is the trie's.  *out is owned by q, valid until
 * the next call or query_free().
 */
struct query_stack {
	uint32_t stack; /* the node; 0: samples without a stack */
	uint64_t samples;
	int64_t est_bytes;
	double est_objects;
	uint64_t inuse_samples;
	int64_t inuse_bytes;
	double inuse_objects;
};

int query_stacks(struct query *q, const struct query_stack **out, size_t *n,
		 bool *has_fate, struct query_total *total, struct err *e);

/* Does a sample of this kind stand for a known number of objects (agent
 * samples: bytes / size; OutsideTLAB and OldObjectSample: one each)?
 * ObjectAllocationSample and InNewTLAB carry bytes only. */
bool query_kind_objects(enum sample_kind k);

/* One frame of a stack node as the exports name it: the method as
 * class.method (what --include matches), its line (-1: not known), and
 * the site label query_tree() gives it (class.method:line).  method is
 * written into *b (reset first); site is borrowed from q.  The node's
 * parent (0: the node is an outermost caller) is returned. */
uint32_t query_node_frame(const struct query *q, uint32_t node, struct buf *b,
			  int32_t *line, const char **site);

/* --- every sample, for the exports of the whole store ---------------------- */

/*
 * The recordings' facts as query_recordings() gives them, but with
 * samples[] all 0 and no pass over the samples made: for a writer that
 * reads every sample once anyway (the fleet export).  rec is below
 * query_n_recordings().
 */
uint32_t query_n_recordings(const struct query *q);
void query_recording_facts(const struct query *q, uint32_t rec,
			   struct query_recording *out);

/* How many nodes the store's stack trie has: every stack (a node, as
 * query_stack.stack and query_sample.stack) is below it; 0 is none. */
uint32_t query_n_stacks(const struct query *q);
/* Whether q's stacks (query_stack.stack, query_path.stack) are the
 * store's trie nodes, the same in every query of the store; false where
 * frames are relabelled ("trees" above), whose stacks are q's own. */
bool query_stacks_shared(const struct query *q);

/*
 * Every sample of the store, of every kind and whatever q's filters, in
 * seq order (time order, ties in import order), one decoded block of
 * each kind in memory at a time, whatever the store's size: what the
 * fleet export writes from.  Each block is checked as it is read; a
 * damaged one ends the pass with e set.  query_cursor_rewind(c, rec)
 * starts again with recording rec's samples only (reading only the
 * blocks that hold some); UINT32_MAX: all.  The names are borrowed
 * from the store.
 */
struct query_sample {
	uint32_t seq; /* the sample's index among all the store's */
	uint32_t recording;
	uint32_t stack; /* its stack node; 0: none */
	enum sample_kind kind;
	int64_t time_ns;
	int64_t bytes;	    /* the estimate's basis; REC_NONE: none */
	int64_t size;	    /* the object's size; REC_NONE: not known */
	bool truncated;	    /* the stack's root end is missing */
	const char *thread; /* its name; "" none */
	const char *cls;    /* its display name; "" none */
	/* where the sample has a liveness record (agent samples,
	 * OldObjectSample), its state as the exports name it ("dead",
	 * "alive_at_end", "alive_at_cut"; "" not known) and, when dead,
	 * the time it was found gone (REC_NONE otherwise); fate NULL where
	 * it has none */
	const char *fate;
	int64_t death_ns;
	/* the sample's bytes as top counts them by default: for
	 * ObjectAllocationSample in a store whose estimate is corrected
	 * (query_estimate()), the rest of its weight, scaled; else bytes
	 * (0 where none) */
	int64_t est_bytes;
	/* "corrected" or "jfr": the estimate of ObjectAllocationSample's
	 * bytes that top gives by default counts this sample, under that
	 * estimate (ObjectAllocationSample's samples, and OutsideTLAB's
	 * where it is corrected); NULL: it does not count it */
	const char *alloc_estimate;
};

struct query_cursor;
/* The cursor reads through q, which must outlive it. */
int query_cursor_new(struct query *q, struct query_cursor **out, struct err *e);
int query_cursor_rewind(struct query_cursor *c, uint32_t rec, struct err *e);
/* 1 and the next sample in x, 0 at the end, <0 on damage (e set) */
int query_cursor_next(struct query_cursor *c, struct query_sample *x,
		      struct err *e);
void query_cursor_free(struct query_cursor *c);

/* --- time --------------------------------------------------------------------- */

struct query_bucket {
	int64_t start_ns; /* a multiple of the width, since the epoch */
	/* "the time covered" (query_covered()) inside [start_ns, start_ns
	 * + width): covered_ns of it, from cover_from_ns to cover_to_ns
	 * (exclusive).  A rate is est_bytes / covered_ns, never over the
	 * width: a bucket cut by a recording's start or end (a killed
	 * JVM's last flush), by a gap between two recordings or by the
	 * window holds only what its covered part did.  covered_ns 0: no
	 * recording covers the bucket, and no rate can be given (samples 0
	 * then, but in a damaged store whose samples lie outside their
	 * recordings' times: there the bucket counts as covered whole) */
	int64_t covered_ns;
	int64_t cover_from_ns, cover_to_ns;
	uint64_t samples;
	int64_t est_bytes;
	/* the relative standard error of est_bytes, as query_row.rel_err
	 * (docs/estimates.md); NaN: no bytes */
	double rel_err;
};

/*
 * The time the query's samples can have come from: the union of the
 * spans [start, end) of the recordings that hold samples of the query's
 * kind (only options.recording's, where one is chosen), cut to the
 * window [from_ns, to_ns).  A JFR recording's span is its chunks'
 * (start plus duration from the header, which an unfinished chunk has
 * up to its last flush: src/importers/import_jfr.c); an agent recording's from its
 * start to its end or last record.  Returns the nanoseconds covered
 * (0: none) and, where not NULL, its first instant and its end
 * (exclusive) in *from_ns and *to_ns.  Reads the recordings table and
 * the samples' counts per recording (query_recordings()), once.
 */
int64_t query_covered(struct query *q, int64_t *from_ns, int64_t *to_ns);

/*
 * The filtered samples in buckets of bucket_ns, from the bucket (a
 * multiple of bucket_ns) of the start of the time covered to that of
 * its end (query_covered()), so that a recording's quiet start and end
 * show; bucket_ns 0 picks a round width that gives about 60 buckets over
 * that span.  Where the samples do not lie inside the time covered, or
 * it lasts more than QUERY_COVER_SPAN_MAX (query_cover_widens() false:
 * the store's times are damaged), the buckets run from the first
 * sample's to the last's.  No sample: no bucket.  *buckets is owned by
 * q.
 */
int query_timeline(struct query *q, int64_t *bucket_ns,
		   const struct query_bucket **buckets, size_t *n,
		   struct query_total *total, struct err *e);

#define QUERY_COVER_SPAN_MAX (60ull * 86400 * 1000000000) /* 60 days */

/*
 * The round bucket widths, one table for every timeline (the CLI's, the
 * survivors' and the browser's): the smallest of 1, 2, 5, 10, 20, 50,
 * 100, 200, 500 ms, 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2,
 * 6, 12 h and a day with span / width + 1 <= max_buckets, the day when
 * none has.  The CLI's timelines ask for QUERY_ROUND_BUCKETS ("about
 * 60"), the browser for as many as it has columns.
 */
#define QUERY_ROUND_BUCKETS 61
int64_t query_round_bucket(int64_t span, int64_t max_buckets);

/* Whether samples from first to last (inclusive) and the time covered
 * from cf to ct (exclusive end) make query_timeline()'s buckets run
 * over the time covered: the samples lie inside it and it lasts
 * QUERY_COVER_SPAN_MAX or less. */
bool query_cover_widens(int64_t first, int64_t last, int64_t cf, int64_t ct);

/* --- survivors ------------------------------------------------------------ */

/* Cohorts: groups of live objects by how old they are at each time. */
enum query_cohort {
	COHORT_NONE,
	COHORT_AGE, /* <1s, 1-10s, 10-60s, 1-10min, >=10min */
	COHORT_GCS, /* GCs survived so far: 0, 1, 2-3, 4-7, 8+ */
};

struct query_survivor_options {
	int64_t bucket_ns;	  /* 0: a round width giving about 60 buckets */
	int64_t min_gcs;	  /* only objects that survived at least this
				many GCs (by the end of their lives): 0 all */
	bool before_last_gc;	  /* only objects allocated before the last GC
				of their recording started */
	enum query_cohort cohort; /* not COHORT_NONE: group by it */
};

/* One key's live set over time. */
struct query_survivor_series {
	const char *key;
	uint64_t *live_samples; /* [n_buckets] */
	int64_t *live_bytes;
	double *live_objects;
	int64_t peak_bytes, end_bytes;
	uint64_t peak_samples, end_samples;
	uint64_t samples, dead, alive; /* samples that count, by fate */
	/* jdk.OldObjectSample (old_emissions.h): objects that an earlier
	 * emission showed and the last one did not (collected, or replaced
	 * in the sampler: not "dead"); of those alive at the last emission,
	 * those with a path to a GC root and those without one where the
	 * emission searched for roots (unreachable then, not yet
	 * collected) */
	uint64_t gone, rooted, unrooted_searched;
	/* ... and of those alive at the last emission, the ones an earlier
	 * emission showed too (kept), and the quarters of the range they
	 * were allocated in (bit q: some in quarter q) */
	uint64_t kept;
	unsigned born_quarters;
	/* Of the dead: the median time from the allocation until the
	 * object was seen collected (the first check after the GC that
	 * freed it, which for a promoted object can be long after the
	 * program dropped it), and the median number of GCs it lived
	 * through before that one (0: the first GC after its allocation
	 * collected it).  -1 when none died. */
	int64_t median_to_collection_ns, median_gcs;
	double slope;	 /* least squares, live bytes per second */
	uint32_t rising; /* buckets where live bytes grew */
	bool suspect;	 /* grows steadily: a leak suspect */
};

/*
 * Live objects at time t: allocated at or before t, and dead after t or
 * alive when their recording ended (and only until then: what happened
 * after is not known).  Point b is the end of bucket b; the last point is
 * the end of the range.  Samples of the query's kind with liveness count
 * (agent samples; OldObjectSample); untracked ones do not, and are
 * counted in samples_unknown.  An OldObjectSample object counts once,
 * however many emissions show it, from its allocation time until the
 * last emission that shows it, and is alive at the end only when its
 * recording's last emission shows it (old_emissions.h); samples_used
 * counts objects, and repeats are not counted at all.
 */
struct query_survivors {
	enum sample_kind kind;
	int64_t start_ns, bucket_ns;
	int64_t *time_ns; /* [n_buckets]: the time of each point */
	size_t n_buckets;
	struct query_survivor_series *series; /* by peak live bytes */
	size_t n_series;
	uint64_t samples_used, samples_unknown;
	bool by_samples; /* the kind has no sizes here (OldObjectSample
			    before JDK 21): trends and ranks are in samples */
};

/* The survivors by key (by; ignored when o->cohort is set).  *out is
 * owned by q.  A kind without liveness (TLAB, ObjectAllocationSample)
 * is an ERR_USAGE error that says which kinds have it. */
int query_survivors(struct query *q, enum query_group by,
		    const struct query_survivor_options *o,
		    const struct query_survivors **out, struct err *e);

/* The series ranked as leak suspects (suspects first, by slope). *out
 * (pointers into the survivors) is owned by q. */
size_t query_leak_suspects(struct query *q,
			   const struct query_survivor_series *const **out);

/* --- JVMs ------------------------------------------------------------------- */

/*
 * One JVM of a store (query_jvms()): the recordings that came from it.
 * Findings belong to one JVM, and no rule adds one JVM's samples to
 * another's.  JFR recordings with the same jdk.JVMInformation pid and
 * jvmStartTime are one JVM; an agent recording or a javacore is one;
 * a code-heap report goes with the HotSpot JVM whose recordings share
 * its folder in the inputs, or the only one, else stands alone.
 */
struct query_jvm {
	char *name;	    /* "pid 4767"; "JVM of recording 3" where the
			       recordings do not say */
	const char *source; /* its first recording's source (borrowed) */
	uint32_t *recs;	    /* its recordings, ascending */
	size_t n_recs;
	int64_t pid, start_ms; /* JVMInformation's; -1 not known */
	bool hotspot;	       /* holds a JFR or agent recording */
};

/* The store's JVMs, in the order of their first recordings (those of
 * code-heap reports of no known JVM last): *out is malloc'ed, the
 * caller's to free with query_jvms_free(); sources are borrowed from
 * q's store. */
void query_jvms(struct query *q, struct query_jvm **out, size_t *n);
void query_jvms_free(struct query_jvm *jv, size_t n);
/* How many JVMs hold samples of q's kind in the recordings o's filters
 * keep (o: q's options): more than one, and a view that sums samples
 * over time adds JVMs together, a fleet figure that must say so.
 * *named: each of them is named by its recordings (a pid), so they are
 * known to be that many JVMs; false: some are only recordings that do
 * not say which JVM they came from. */
size_t query_jvms_sampled(struct query *q, const struct query_options *o,
			  bool *named);

/* --- evidence, for the report's rules ------------------------------------- */

/*
 * What the report's rules (src/findings/) ask beyond the views: the
 * evidence behind a leak suspect (GC roots, GCs survived, objects that
 * are merely not yet collected), the heap after each GC, objects above
 * a size, and a recording's settings (evidence.c).  They read the store
 * through an open query and allocate nothing per sample.  Every
 * function works on the query's kind and filters (a drill-down key
 * included), so "the evidence for site X" is a query whose options.key
 * is X.
 */

/* The liveness facts of the query's filtered samples (agent samples,
 * jdk.OldObjectSample); zero counts for a kind without liveness. */
struct query_evidence {
	uint64_t samples;	 /* with a known fate */
	uint64_t alive_at_end;	 /* alive when their recording ended */
	uint64_t dead;		 /* found dead */
	int64_t longest_life_ns; /* of those found dead; -1 none */
	int64_t oldest_alive_ns; /* the age of the oldest alive at the end
				    (at its recording's end); -1 none */
	uint64_t with_root;	 /* OldObjectSample with a path to a GC root */
	uint64_t rooted_elsewhere; /* samples with a root in the same
				      recordings, of any key: roots were
				      searched for (path-to-gc-roots) */
	uint64_t old_gc_1;	   /* alive at the end and survived >= 1 GC */
	uint64_t old_gc_many;	   /* ... >= QUERY_MANY_GCS GCs */
	uint64_t young_unrooted;   /* alive at the end, no root, no GC
				    survived: not yet collected */
	int64_t median_gcs;	   /* GCs survived by the live ones; -1 none */
	int64_t max_gcs;
	int64_t bytes_alive;  /* estimated bytes of those alive at end */
	int64_t largest_size; /* the largest object size known; -1 */
	const char *root;     /* the most common root (borrowed); NULL */
	uint64_t n_gcs;	      /* GCs seen in the recordings involved */
	/* jdk.OldObjectSample (query/old_emissions.h): samples counts
	 * objects, each once however many emissions show it, and
	 * alive_at_end those the last emission of their recording shows;
	 * events: the events behind them; gone: objects only earlier
	 * emissions show (collected, or replaced in the sampler); kept: of
	 * those alive at the end, the ones an earlier emission showed too;
	 * emissions: the most of any recording involved; heap_after_gc:
	 * the heap used after the last GC before each recording's last
	 * emission, summed (-1: not known), which the sizes of the objects
	 * that emission shows cannot exceed; size_alive: those sizes' sum
	 * (objectSize; -1 where the events have none, as JDK 17's) */
	uint64_t events, gone, kept, emissions;
	int64_t heap_after_gc, size_alive;
	int64_t window_ns; /* the most, of any recording involved, from its
			      start to its last emission; 0: none */
};

#define QUERY_MANY_GCS 4

int query_evidence(struct query *q, struct query_evidence *ev, struct err *e);

/*
 * What a GC collected, from its collector's name in jdk.GarbageCollection
 * and G1's young type in jdk.G1GarbageCollection (the JDK's gcName.hpp
 * and g1GCPauseType.hpp, g1YCTypes.hpp before JDK 17, name them;
 * docs/report.md says what each shows).
 */
enum query_gc_kind {
	QUERY_GC_UNKNOWN = 0, /* the recording does not say (no GC events,
				 a store older than 4.1, not JFR) */
	QUERY_GC_YOUNG,	      /* the young generation only: G1New but
				 mixed, ParallelScavenge, DefNew, ZGC Minor */
	QUERY_GC_MIXED,	      /* G1New "Mixed": young and some old regions */
	QUERY_GC_CYCLE_END,   /* G1Old: the end of G1's concurrent cycle,
				 its empty old regions freed */
	QUERY_GC_FULL,	      /* the whole heap, stopped: G1Full,
				 ParallelOld, SerialOld, PSMarkSweep */
	QUERY_GC_WHOLE,	      /* a concurrent cycle over the whole heap:
				 Z, ZGC Major, Shenandoah */
};

/* One "After GC" (or "Before GC") heap summary, with what the
 * recording says of its GC. */
struct query_heap_point {
	int64_t time_ns;
	int64_t used, committed, reserved; /* REC_NONE when absent */
	int64_t gc_id;			   /* REC_NONE when absent */
	enum query_gc_kind kind;
	bool failed;	   /* a young collection that failed to copy
			      (jdk.EvacuationFailed, jdk.PromotionFailed) */
	const char *name;  /* the collector ("G1New"), borrowed; NULL */
	const char *cause; /* "System.gc()", borrowed; NULL */
};

/* The kind of a GC from its collector's name and G1's young type
 * (either NULL when not known). */
enum query_gc_kind query_gc_kind_of(const char *name, const char *phase);

/*
 * The heap summaries of recording rec taken at `when` ("After GC",
 * "Before GC"), in time order, each joined with what the recording
 * says of its GC (by its gc id).  *out is malloc'ed and owned by the
 * caller (free()); *n may be 0.
 */
int query_heap_summaries(struct query *q, uint32_t rec, const char *when,
			 struct query_heap_point **out, size_t *n,
			 struct err *e);

/* Objects of at least min_size bytes among the filtered samples, by
 * allocation site (the sizes: TLAB events' allocationSize, agent
 * sizes, OldObjectSample objectSize: of the objects each recording's
 * last emission shows, each once, query/old_emissions.h).  Rows are malloc'ed, keys are
 * borrowed from q; the caller frees *rows.  Sorted by bytes. */
struct query_size_row {
	const char *key;
	uint64_t objects; /* samples at or above min_size */
	int64_t bytes;	  /* their sizes' sum */
	int64_t largest;
};

int query_large_objects(struct query *q, int64_t min_size,
			struct query_size_row **rows, size_t *n_rows,
			struct err *e);

/* A recording's setting by name ("jdk.ObjectAllocationSample#throttle",
 * "agent#interval"): borrowed from the store, NULL when absent. */
const char *query_setting(struct query *q, uint32_t rec, const char *name);

/* Every setting of recording rec, for the appendix: the strings are
 * borrowed from the store, the two arrays malloc'ed (the caller frees
 * them); returns the count. */
size_t query_settings(struct query *q, uint32_t rec, const char ***names,
		      const char ***values);

#endif
