/*
 * What the JFR importer's two halves share: jfr_decode.c decodes one
 * chunk, on any thread, into a struct jfr_job (a compact list of the
 * records the sink will get, in file order, with chunk-local ids);
 * jfr.c frames the chunks, hands them to a work queue and replays each
 * job to the sink on the calling thread, in chunk order, adding the ids
 * of the chunks before (docs/development.md, "The JFR importer's
 * threads").
 *
 * A job touches nothing but itself while it decodes: every pointer in
 * its output points into its own jfr_chunk or arena, and stays valid
 * until the job decodes its next chunk.  The chunk bytes (data) must
 * stay valid until the decode has returned; nothing of the output
 * points into them.
 */
#ifndef HS_IMPORTERS_JFR_INT_H
#define HS_IMPORTERS_JFR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/jfr/jfr.h"
#include "importers/sink.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/hash.h"

#define JFR_WARNINGS_PER_CHUNK 5
#define JFR_SMALL_IDS	       4096
/* records handed over at a time when the chunk is decoded where it is
 * replayed: few enough to still be in the cache */
#define JFR_BATCH 4096

/* kinds of a struct jfr_rec beyond the sample kinds */
enum {
	JREC_HEAP = SAMPLE__COUNT, /* a heap summary: a is its index */
	JREC_WARN,		   /* a damaged event: a is its index */
};

/* One record, 32 bytes: the common samples whole (but for an
 * InNewTLAB's allocation size, in extra in record order), the rest by
 * index. */
struct jfr_rec {
	int64_t time_ns;
	int64_t a; /* weight, tlab_size, alloc_size; an index for the rest */
	uint32_t thread; /* chunk-local id (objs), 0: none */
	uint32_t stack;	 /* chunk-local stack id (stacks), 0: none */
	uint32_t cls;	 /* chunk-local id (objs) of a jfr_class, 0: none */
	uint8_t kind;	 /* enum sample_kind or JREC_* */
};

struct jfr_setting_note {
	const char *event, *name, *value; /* the chunk's strings */
};

struct jfr_job {
	/* in, from the framing thread */
	const unsigned char *data; /* the chunk: take bytes */
	size_t take;
	unsigned chunk_no;
	uint64_t at; /* file offset of the chunk */
	bool cut;    /* the file ends inside the chunk */
	struct jfr_header h;
	unsigned char *copy; /* data, for a stream that is not in memory */
	size_t copy_size;

	/* the decoder's state, kept from chunk to chunk */
	struct jfr_chunk *c;
	const struct jfr_timebase *tb; /* c's */
	struct arena arena;	       /* converted stacks and threads */
	struct u64cache fast_thread, fast_stack, fast_class;
	struct u64map chunk_counts; /* type id -> events */
	uint64_t *small_counts;	    /* the same below JFR_SMALL_IDS */

	/* decoding on the replaying thread (no workers): every JFR_BATCH
	 * records go to flush, which empties the lists; <0 stops the decode
	 * (the sink failed) */
	int (*flush)(void *ctx, struct jfr_job *j);
	void *flush_ctx;

	/* out */
	int orc; /* jfr_chunk_open's */
	struct err open_err;
	struct jfr_rec *recs;
	size_t n_recs, alloc_recs;
	int64_t *extra; /* SAMPLE_TLAB_NEW's alloc_size, in record order */
	size_t n_extra, alloc_extra;
	struct rec_sample *olds; /* SAMPLE_OLD_OBJECT, but for ids */
	size_t n_olds, alloc_olds;
	struct rec_heap_summary *heaps;
	size_t n_heaps, alloc_heaps;
	struct err *warns;
	size_t n_warns, alloc_warns;
	uint64_t suppressed; /* damaged events past the first few */
	struct jfr_setting_note *settings;
	size_t n_settings, alloc_settings;
	const char *jvm_name, *jvm_version; /* the chunk's last */
	struct rec_count *counts;	    /* names are the chunk's */
	size_t n_counts, alloc_counts;
	void **objs; /* local id - 1 -> rec_thread or jfr_class */
	uint8_t *obj_is_thread;
	uint32_t n_objs;
	size_t alloc_objs;
	struct rec_stack **stacks; /* local stack id - 1 -> stack */
	uint32_t n_stacks;
	size_t alloc_stacks;
	uint64_t n_samples[SAMPLE__COUNT];
	uint64_t n_heap_summaries;
	int64_t last_event_ns;
	uint64_t end;	 /* jfr_chunk_consistent_end */
	const char *why; /* jfr_chunk_lost_reason */

	/* the replay's, reset by the decode */
	bool begun;			 /* the chunk's start is replayed */
	uint64_t id_base, stack_base;	 /* the ids of the chunks before */
	uint32_t objs_done, stacks_done; /* ids offset so far */
	/* the sink's keys (struct rec_keys) by local id, 0 for none:
	 * KEY_SET | key once asked for (and KEY_TRUNCATED for a truncated
	 * stack); [0, n_keyed) are this chunk's */
	uint64_t *key_thread, *key_cls, *key_stack;
	size_t n_keyed_objs, alloc_keyed_objs;
	size_t n_keyed_stacks, alloc_keyed_stacks;
};

#define KEY_SET	      ((uint64_t)1 << 32)
#define KEY_TRUNCATED ((uint64_t)1 << 33) /* key_stack's: the stack's flag */

void jfr_job_init(struct jfr_job *j);
void jfr_job_release(struct jfr_job *j);
/* Decode the chunk j->data into j's output; the workq_fn. */
void jfr_job_decode(void *job);

#endif
