/*
 * The store writer's insides, shared by store_write.c (the sink: interning,
 * the stack trie, the samples as they arrive) and store_write_commit.c (laying
 * the file out and writing it atomically).  Private to src/store.
 */
#ifndef HS_STORE_WRITE_INT_H
#define HS_STORE_WRITE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "record/sink.h"
#include "store/store_write_spill.h"
#include "store/store.h"
#include "util/arena.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/size.h"
#include "util/xalloc.h"

/* the sample kinds that can have liveness records */
#define LIVENESS_KINDS                                                         \
	(1u << SAMPLE_AGENT | 1u << SAMPLE_OLD_OBJECT | 1u << SAMPLE_AP_LIVE | \
	 1u << SAMPLE_DD_LIVE)

/* A growable array of fixed-size records; big ones on huge pages. */
struct vec {
	unsigned char *data;
	size_t n, alloc, size;
};

static inline void vec_init(struct vec *v, size_t size)
{
	v->data = NULL;
	v->n = v->alloc = 0;
	v->size = size;
}

static inline void vec_reserve(struct vec *v, size_t alloc)
{
	size_t old_bytes, new_bytes;

	if (alloc <= v->alloc)
		return;
	if (!size_mul(v->alloc, v->size, &old_bytes) ||
	    !size_mul(alloc, v->size, &new_bytes))
		die("store: table too large");
	v->data = big_realloc(v->data, old_bytes, new_bytes);
	v->alloc = alloc;
}

static inline void vec_grow(struct vec *v)
{
	size_t alloc;

	if (!size_mul(v->alloc ? v->alloc : 128, 2, &alloc))
		die("store: table too large");
	vec_reserve(v, alloc);
}

static inline void *vec_push(struct vec *v)
{
	if (v->n == v->alloc)
		vec_grow(v);
	return v->data + v->size * v->n++;
}

static inline void vec_release(struct vec *v)
{
	big_free(v->data, v->alloc * v->size);
	vec_init(v, v->size);
}

/* A trie node as the writer makes it: its parent (made before it) and
 * its frame. */
struct node_key {
	uint32_t parent, frame;
};

/*
 * The trie's index: (parent, frame) -> node, as node ids in open
 * addressing, each found by the hash of the key it names in nodes.  A
 * slot is the id + 1 alone, 4 bytes: a million distinct stacks make
 * millions of nodes, and this set is the largest thing the writer keeps
 * for them (it is gone before the commit: store_writer_drop_keys()).
 */
struct node_set {
	uint32_t *slots; /* 0: empty */
	size_t n_slots;	 /* 0 or a power of two */
	size_t n_items;
};

/*
 * The importer's ids (per recording) -> ours: nearly every sample looks
 * up three, so a direct-mapped cache sits in front of the map.
 */
struct idmap {
	struct u64cache fast;
	struct u64map all;
	size_t max; /* entries in all before it starts afresh */
};

struct store_writer {
	struct sink sink;
	struct buf strings;
	/* The interning sets hold indexes (hash.h's idxset): of strings
	 * into strings, of records into their tables, the only copies of
	 * the keys; the trie's, node ids into nodes (struct node_set). */
	struct idxset string_index;
	struct idxset thread_index, class_index, method_index, frame_index;
	struct node_set node_index; /* (parent, frame) -> node */
	bool keys_dropped;	    /* store_writer_drop_keys(): no more */
	struct idmap stack_cache; /* importer stack id -> node, per recording */
	struct idmap frame_cache; /* importer frame id -> frame, the same */
	struct idmap thread_cache, class_cache; /* importer ids, the same */
	struct vec recordings, settings, counts, threads, classes, methods,
		frames;
	struct vec nodes; /* struct node_key, in the order made */
	/* The samples go to the spill as they arrive (store_write_spill.h): only their
	 * count and the running identity of the current recording stay.
	 * Old-object and liveness records (one per OldObjectSample or agent
	 * sample at most) stay in memory, naming their samples by import
	 * index until commit. */
	struct spill *spill;
	struct stream *stream; /* store_writer_stream(); NULL: none */
	uint64_t n_samples;    /* import index of the next sample */
	uint64_t id_sum;       /* rec_identity's sum over this recording's */
	struct err spill_err;  /* the first spill error; set: every later
			       * sample and the commit fail with it */
	struct rec_keyed_cols lent; /* the room keyed_room() lent last */
	struct vec old_objects, heap, liveness, gcs, gc_info;
	struct vec ch_snaps, ch_heaps, ch_maps, ch_blocks, ch_stats;
	struct buf ch_cells;
	/* Duplicates (store_writer_skip_duplicates): each recording's
	 * identity, and where the last one's records end, so that the next
	 * one's are [mark, n) and can be dropped whole. */
	struct vec ids; /* uint64 per recording */
	struct writer_mark {
		uint64_t samples;
		uint32_t runs;
		size_t old_objects, heap, liveness, gcs, gc_info, settings,
			counts, ch_snaps, ch_heaps, ch_maps, ch_blocks,
			ch_stats, ch_cells;
	} mark;
	uint32_t n_kept; /* recordings a new one is compared with; 0: none */
	/* identities are computed (id_sum, ids) only once a store has been
	 * added (--append): a plain import never compares recordings, and
	 * hashing every sample was a quarter of its time */
	bool identify;
	uint32_t n_dups, last_dup;
};

/* The interning sets, released once no key can come (the commit):
 * their memory is the commit's. */
void store_writer_drop_keys(struct store_writer *w);

#endif
