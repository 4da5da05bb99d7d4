/*
 * The record sink: what importers emit, source-independent (DESIGN.md's
 * data model).  The store writer is one sink, `heapsift dump`'s text
 * printer another, tests a third.
 *
 * Every pointer in a record is borrowed: valid only during the call.  A
 * sink that keeps anything copies it (the store interns names).  Ids
 * (stack, thread, class) are the importer's: stable within one recording
 * and one chunk-independent namespace, meant only for caching; a sink
 * must not assume they are dense or global.
 *
 * Each callback returns 0, or <0 to stop the import (output error).
 */
#ifndef HS_SINK_H
#define HS_SINK_H

#include <stdbool.h>
#include <stdint.h>

enum sample_kind {
	SAMPLE_ALLOC = 0,    /* jdk.ObjectAllocationSample: weight */
	SAMPLE_TLAB_NEW,     /* jdk.ObjectAllocationInNewTLAB: tlab_size */
	SAMPLE_TLAB_OUTSIDE, /* jdk.ObjectAllocationOutsideTLAB: alloc_size */
	SAMPLE_OLD_OBJECT,   /* jdk.OldObjectSample: alive at the end */
	SAMPLE_AGENT,	     /* heapsift agent sample */
	SAMPLE__COUNT
};

const char *sample_kind_name(enum sample_kind kind);

struct rec_frame {
	const char *class_name; /* as `jfr print` shows it: java.util.HashMap */
	const char *class_raw;	/* as the JVM wrote it: java/util/HashMap */
	const char *method;
	const char *descriptor; /* (Ljava/util/Random;I)J */
	int32_t line;		/* -1: unknown */
	int32_t bci;		/* -1: unknown */
	const char *type; /* "Interpreted", "JIT compiled", "Inlined", "Native" */
	bool hidden;	  /* a hidden method (LambdaForm internals) */
};

struct rec_stack {
	uint64_t id;
	const struct rec_frame *frames; /* frames[0] is the allocation site */
	uint32_t n_frames;
	bool truncated; /* the root end is missing */
};

struct rec_thread {
	uint64_t id;
	const char *name; /* the Java name, else the OS name */
	int64_t java_id;  /* -1 when not a Java thread */
	int64_t os_id;
	bool is_virtual;
};

#define REC_NONE INT64_MIN /* an integer field the event does not have */

/* What is known of a sampled object's life (agent samples; an
 * OldObjectSample is alive at the end by definition). */
enum rec_liveness {
	LIVE_UNKNOWN = 0, /* not tracked */
	LIVE_DEAD,	  /* found gone: death_ns, death_gc */
	LIVE_AT_END,	  /* alive when the recording ended */
	LIVE_AT_CUT,	  /* alive at the last data of a recording cut short */
};

struct rec_sample {
	enum sample_kind kind;
	int64_t time_ns;		 /* since the Unix epoch, UTC */
	const struct rec_thread *thread; /* NULL: none recorded */
	const struct rec_stack *stack;	 /* NULL: none recorded */
	const char *class_name;		 /* display form; NULL if unknown */
	uint64_t class_id; /* the importer's id for caching, 0: none */
	const char *class_raw;
	int64_t weight; /* SAMPLE_ALLOC: bytes since the thread's last sample */
	int64_t alloc_size; /* TLAB events: the object's size */
	int64_t tlab_size;  /* SAMPLE_TLAB_NEW */
	/* SAMPLE_OLD_OBJECT; REC_NONE where the JDK did not write them */
	int64_t alloc_time_ns;
	int64_t object_age_ns;
	int64_t object_size;
	int64_t last_heap_used;
	int64_t array_elements; /* REC_NONE: not an array */
	const char *gc_root;	/* "system / type (description)"; NULL: none */
	/* liveness; REC_NONE where unknown */
	enum rec_liveness liveness;
	int64_t death_ns; /* LIVE_DEAD: when the object was found gone */
	int64_t alloc_gc; /* GCs finished before the allocation */
	int64_t death_gc; /* LIVE_DEAD: the GC after which it was gone */
};

/* Every field "none": REC_NONE, NULL, LIVE_UNKNOWN. */
void rec_sample_init(struct rec_sample *s, enum sample_kind kind);

/* A garbage collection (numbered from 1 in finishing order). */
struct rec_gc {
	int64_t number;
	int64_t start_ns, end_ns;
};

struct rec_heap_summary {
	int64_t time_ns;
	int64_t gc_id;
	const char *when; /* "Before GC", "After GC" */
	int64_t heap_used;
	int64_t committed; /* REC_NONE when absent */
	int64_t reserved;
};

struct rec_setting {
	const char *name;  /* "jdk.ObjectAllocationSample#throttle" */
	const char *value; /* "150/s" */
};

struct rec_count {
	const char *name; /* an event type: "jdk.ObjectAllocationSample" */
	uint64_t n;
};

/* Facts about one recording, sent once, after its records. */
struct rec_recording {
	const char *source;   /* display name of the input member */
	const char *format;   /* "jfr", "agent" */
	const char *jvm_name; /* NULL when the recording does not say */
	const char *jvm_version;
	int64_t start_ns;
	int64_t end_ns;
	uint32_t n_chunks;
	const struct rec_setting *settings;
	uint32_t n_settings;
	uint64_t n_samples[SAMPLE__COUNT];
	uint64_t n_heap_summaries;
	uint64_t bytes_skipped; /* damaged or unfinished data not imported */
	/* every event type in the recording with its count, most first */
	const struct rec_count *event_types;
	uint32_t n_event_types;
};

struct sink_ops {
	int (*sample)(void *ctx, const struct rec_sample *s);
	int (*heap_summary)(void *ctx, const struct rec_heap_summary *h);
	int (*recording)(void *ctx, const struct rec_recording *r);
	int (*gc)(void *ctx, const struct rec_gc *g); /* NULL: ignored */
};

struct sink {
	const struct sink_ops *ops;
	void *ctx;
};

#endif
