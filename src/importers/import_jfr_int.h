/*
 * What the JFR importer's two halves share: import_jfr_decode.c decodes one
 * chunk, on any thread, into a struct jfr_job (a compact list of the
 * records the sink will get, in file order, with chunk-local ids);
 * jfr.c frames the chunks, hands them to a work queue and replays each
 * job to the sink on the calling thread, in chunk order, adding the ids
 * of the chunks before (docs/design/jfr-decoder.md).
 *
 * A job touches nothing but itself and its feed while it decodes:
 * every pointer in its output points into its own jfr_chunk or arena,
 * and stays valid until the job decodes its next chunk.  The chunk bytes
 * (data) must stay valid until the decode has returned; nothing of the
 * output points into them.  With workers, the records go to the replay
 * in segments while the chunk is decoded (struct jfr_feed): what a
 * record points to is finished before its segment is handed over, and
 * the decoder never reads it again (the replay adds the ids of the
 * chunks before to threads and stacks).
 */
#ifndef HS_IMPORTERS_JFR_INT_H
#define HS_IMPORTERS_JFR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/jfr/jfr.h"
#include "record/sink.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/spool.h"

#define JFR_WARNINGS_PER_CHUNK 5
/* a spooled chunk's pages behind the events are let go this often */
#define SPOOL_DROP_STEP ((uint64_t)8 << 20)
#define JFR_SMALL_IDS	4096
/* records handed over at a time when the chunk is decoded where it is
 * replayed: few enough to still be in the cache */
#define JFR_BATCH 4096
/* records in a segment (512 KiB of them) and the segments a chunk not
 * yet being replayed may fill (2 MiB; 8 MiB was no faster, and took
 * 29 MB more on the bench recording); HEAPSIFT_JFR_SEGMENT and
 * HEAPSIFT_JFR_AHEAD change them */
#define JFR_SEG_RECS 16384
#define JFR_AHEAD    4
/* the same with more than two decoders: no bound but the chunk's */
#define JFR_AHEAD_MANY (1u << 24)

/* kinds of a struct jfr_rec beyond the sample kinds; a is a pointer into
 * the job's arena (or its chunk, for a class) */
enum {
	JREC_HEAP = SAMPLE__COUNT, /* a heap summary (rec_heap_summary) */
	JREC_GC,   /* what an event said of a GC (rec_gc_info) */
	JREC_WARN, /* a damaged event (struct err) */
	/* a new chunk-local thread (thread 1: a rec_thread) or class
	 * (thread 0: a jfr_class), whose local id is the count of them so
	 * far; before the first record that names it */
	JREC_OBJ,
	JREC_STACK, /* a new chunk-local stack (jfr_cstack), the same */
	/* an InNewTLAB event of async-profiler (a rec_sample of kind
	 * SAMPLE_TLAB_NEW) or its LiveObject (SAMPLE_AP_LIVE), weight the
	 * chunk's sampling interval so far or REC_NONE: the replay, which
	 * knows the recording's interval (only its first chunk says it),
	 * makes the first a SAMPLE_AP_ALLOC or leaves it a TLAB event, and
	 * weighs both (docs/formats/jfr.md, "async-profiler") */
	JREC_AP_TLAB,
	/* a sample whose fields go whole, by pointer (a rec_sample): another
	 * writer's, of any sample kind */
	JREC_WHOLE,
};

/* async-profiler's sampling interval where its "alloc" setting is 0
 * (DEFAULT_ALLOC_INTERVAL in its src/arguments.h) */
#define AP_DEFAULT_INTERVAL 524287

/* One record, 32 bytes: the common samples whole (but for an
 * InNewTLAB's allocation size, in its segment's extra in record order),
 * the rest by pointer. */
struct jfr_rec {
	int64_t time_ns;
	int64_t a; /* weight, tlab_size, alloc_size; a pointer for the rest */
	uint32_t thread; /* chunk-local id (objs), 0: none */
	uint32_t stack;	 /* chunk-local stack id (stacks), 0: none */
	uint32_t cls;	 /* chunk-local id (objs) of a jfr_class, 0: none */
	uint8_t kind;	 /* enum sample_kind or JREC_* */
};

/*
 * A chunk's stacks, kept compact: each distinct frame of the chunk once
 * (its method, line, bci and type: jfr_frame_ref), as the record the
 * sink will get, and each stack as pointers to its frames.  A stack of
 * 24 frames is 200 bytes, where its frames each whole, decoded by the
 * JFR reader and again as records, were 2.5 KB; a chunk of 65,536
 * distinct stacks took 160 MB, and three chunks are in flight.  The
 * replay gives the sink a stack's frames as a rec_stack built in the
 * import's own buffer when it asks (stack_rec() in import_jfr.c).
 */
struct jfr_cframe {
	struct jfr_frame_ref ref;
	struct rec_frame rec; /* id: chunk-local; the replay adds the
				 chunks' before */
};

struct jfr_cstack {
	uint32_t n_frames;
	bool truncated;
	const struct jfr_cframe *frames[]; /* frames[0] is the site */
};

/*
 * A chunk's records go from its decoder to the replay in segments of
 * a few hundred KB, and the segments go back empty to be filled again:
 * the memory a chunk's records take is a few segments, not the chunk's
 * whole list (tens of MB a chunk, which the kernel had to zero when
 * first touched: a third of a small import's CPU).
 */
struct jfr_seg {
	struct jfr_seg *next;
	uint32_t n_recs, n_extra, cap;
	int64_t *extra; /* SAMPLE_TLAB_NEW's alloc_size, in record order */
	struct jfr_rec *recs;
};

/* The segments of an import's decoders and its replay: shared, under
 * lock.  A job not being replayed may hold `ahead` segments at most (its
 * decoder waits for more until the replay reaches it); the job being
 * replayed is never held back, so the decoders cannot all wait. */
struct jfr_feed {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct jfr_seg *free; /* empty segments */
	uint32_t seg_recs;    /* records in a segment */
	unsigned ahead;
	bool stop;	 /* the import ends: nobody waits */
	uint64_t n_segs; /* made so far */
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
	struct spool spool; /* data, for a stream that is not in memory */

	/* the decoder's state, kept from chunk to chunk */
	struct jfr_chunk *c;
	const struct jfr_timebase *tb; /* c's */
	struct arena arena;	       /* converted stacks and threads */
	struct u64cache fast_thread, fast_stack, fast_class;
	/* the chunk's stacks by key (local id), its frames by their refs
	 * (indexes into cframes), and a stack's refs being read */
	struct u64map stack_ids;
	struct idxset frame_index;
	struct jfr_cframe **cframes;
	size_t alloc_cframes;
	struct jfr_frame_ref *refs;
	size_t alloc_refs;
	struct u64map chunk_counts; /* type id -> events */
	uint64_t *small_counts;	    /* the same below JFR_SMALL_IDS */

	/* decoding on the replaying thread (no workers): every JFR_BATCH
	 * records of seg go to flush, which empties it; <0 stops the decode
	 * (the sink failed) */
	int (*flush)(void *ctx, struct jfr_job *j);
	void *flush_ctx;
	/* with workers: where full segments go (NULL: inline) */
	struct jfr_feed *feed;
	struct jfr_seg *seg; /* being filled; the decoder's */

	/* under feed->lock: the segments filled and not yet replayed, in
	 * order; how many the job holds (those and seg); the decode is
	 * over (every record is in pub); the replay is at this job */
	struct jfr_seg *pub, **pub_tail;
	unsigned n_held;
	bool fin, replaying;

	/* out, once the decode is over (workq_next) */
	int orc; /* jfr_chunk_open's; set before the first record */
	struct err open_err;
	uint64_t suppressed; /* damaged events past the first few */
	struct jfr_setting_note *settings;
	size_t n_settings, alloc_settings;
	const char *jvm_name, *jvm_version; /* the chunk's last */
	/* the chunk's last JVMInformation pid and jvmStartTime, which
	 * tell one JVM from another (query_jvms()); -1 when absent */
	int64_t jvm_pid, jvm_start_ms;
	struct rec_count *counts; /* names are the chunk's */
	size_t n_counts, alloc_counts;
	uint32_t n_objs;   /* threads and classes of the chunk */
	uint32_t n_stacks; /* stacks of the chunk */
	uint32_t n_frames; /* distinct frames of the chunk (cframes) */
	uint64_t n_samples[SAMPLE__COUNT];
	uint64_t n_heap_summaries;
	enum jfr_writer writer;	    /* the chunk's */
	const char *recording_name; /* another writer's ActiveRecording */
	int64_t ap_interval; /* async-profiler's "alloc", REC_NONE: not yet */
	/* the chunk's event types that look like heap data and are not
	 * read (jfr_unread_heap_types()), and their events: counts */
	uint64_t unread_ids[8];
	size_t n_unread_ids;
	int64_t last_event_ns;
	uint64_t end;	 /* jfr_chunk_consistent_end */
	const char *why; /* jfr_chunk_lost_reason */

	/* the replay's, reset by begin_chunk() */
	bool begun;		      /* the chunk's start is replayed */
	uint64_t id_base, stack_base; /* the ids of the chunks before */
	uint64_t frame_base;
	/* local id - 1 -> rec_thread or jfr_class; local stack id - 1 ->
	 * stack: from the JREC_OBJ and JREC_STACK records replayed */
	void **objs;
	const struct jfr_cstack **stacks;
	uint32_t r_objs, r_stacks;
	size_t alloc_objs, alloc_stacks;
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

void jfr_feed_init(struct jfr_feed *f, uint32_t seg_recs, unsigned ahead);
/* Every segment freed; no decoder may be running. */
void jfr_feed_release(struct jfr_feed *f);
struct jfr_seg *jfr_seg_new(uint32_t cap);
void jfr_seg_free(struct jfr_seg *s);
/* Decode the chunk j->data into j's output; the workq_fn. */
void jfr_job_decode(void *job);

/* --- the importer (import_jfr.c, import_jfr_facts.c) ----------------------- */

struct jfr_import {
	const struct sink *sink;
	const struct import_env *env;
	struct input *in;
	struct arena keep; /* lives for the whole recording */
	struct rec_recording rec;
	struct hmap setting_index; /* "event#name" -> index */
	struct rec_setting *settings;
	const char **setting_src; /* the chunk string a value came from */
	unsigned *setting_chunk;  /* ... and its chunk */
	size_t n_settings, alloc_settings;
	struct hmap count_index; /* event type name -> index */
	struct rec_count *counts;
	size_t n_counts, alloc_counts;

	uint64_t next_stack_id, next_frame_id;
	uint64_t next_id;  /* threads and classes, unique in the recording */
	unsigned chunk_no; /* chunks framed */
	int64_t last_event_ns;

	/* the chunks being decoded: job k of the recording is
	 * jobs[k % depth], submitted in order and replayed in order */
	struct workq *q;
	struct jfr_job *jobs;
	unsigned depth, n_inited;
	unsigned long long submitted, replayed;
	int rc;	    /* <0: the sink failed; nothing more is replayed */
	bool keyed; /* the sink takes samples by key (keyed_room) */
	struct rec_keyed_cols kc; /* the room the sink lent: n_kc written */
	size_t n_kc, k_room;	  /* of k_room; 0: none lent */
	/* with workers: their records' segments (jobs[].feed) */
	struct jfr_feed feed;
	bool fed;
	/* other writers: async-profiler's sampling interval (REC_NONE: not
	 * said yet; only its first chunk says it), the writers met (a bit
	 * per enum jfr_writer), the events of types that look like heap
	 * data and were not read (name -> count, as counts are kept) */
	int64_t ap_interval;
	unsigned writers;
	const char *writer_label[3]; /* by writer: its recording's name */
	struct hmap unread_index;
	struct rec_count *unread;
	size_t n_unread, alloc_unread;
	/* the stack the sink was last given (stack_rec()): its chunk and
	 * local id, and its frames */
	struct rec_stack xs;
	struct rec_frame *xs_frames;
	size_t alloc_xs_frames;
	unsigned xs_chunk;
	uint32_t xs_local;
};

/* import_jfr_facts.c: the settings, counts, writers and unread events
 * a chunk adds to the recording's facts (in chunk order), what the
 * recording's end adds, and async-profiler's records settled. */
void keep_setting(struct jfr_import *im, unsigned chunk_no,
		  const struct jfr_setting_note *n);
void merge_facts(struct jfr_import *im, const struct jfr_job *j);
void other_facts(struct jfr_import *im);
void ap_settle(struct jfr_import *im, struct rec_sample *s);

#endif
