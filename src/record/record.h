/*
 * The vocabulary every stage of the pipeline shares (docs/design/overview.md's
 * data model): the sample kinds, the records importers emit and the store
 * keeps (rec_*), and the code-heap block types.  Source-independent: no
 * format's names or layouts appear here.  The interface that carries
 * these records from an importer to the store is sink.h.
 */
#ifndef HS_RECORD_H
#define HS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sample_kind {
	SAMPLE_ALLOC = 0,    /* jdk.ObjectAllocationSample: weight */
	SAMPLE_TLAB_NEW,     /* jdk.ObjectAllocationInNewTLAB: tlab_size */
	SAMPLE_TLAB_OUTSIDE, /* jdk.ObjectAllocationOutsideTLAB: alloc_size */
	SAMPLE_OLD_OBJECT,   /* jdk.OldObjectSample: alive at the end */
	SAMPLE_AGENT,	     /* heapsift agent sample */
	/* other writers' samples (docs/formats/jfr.md, "Other writers"):
	 * each a Poisson sample of JVMTI's SampledObjectAlloc (JEP 331),
	 * weight the Horvitz-Thompson bytes, alloc_size the object's */
	SAMPLE_AP_ALLOC, /* async-profiler's allocation samples */
	SAMPLE_AP_LIVE,	 /* async-profiler's profiler.LiveObject */
	SAMPLE_DD_ALLOC, /* Datadog's datadog.ObjectSample */
	SAMPLE_DD_LIVE,	 /* Datadog's datadog.HeapLiveObject */
	SAMPLE__COUNT
};

/* The kind's display name: its event type ("jdk.OldObjectSample"), with
 * the writer where the type alone does not say it.  The short name is
 * --kind's word ("alloc", "ap-live"). */
const char *sample_kind_name(enum sample_kind kind);
const char *sample_kind_word(enum sample_kind kind);

/* Kinds whose samples are Poisson samples with Horvitz-Thompson weights
 * and known object sizes (the agent's and other writers' JVMTI
 * samples): a row's objects are Σ weight / size, its variance
 * Σ w² - s·w; they have no rollups (docs/formats/store.md). */
static inline bool sample_kind_ht(enum sample_kind k)
{
	return k == SAMPLE_AGENT || k == SAMPLE_AP_ALLOC ||
	       k == SAMPLE_AP_LIVE || k == SAMPLE_DD_ALLOC ||
	       k == SAMPLE_DD_LIVE;
}

/* Kinds whose every sample was alive when its writer last looked (at
 * the recording's end, a dump, a profiler's stop). */
static inline bool sample_kind_live(enum sample_kind k)
{
	return k == SAMPLE_OLD_OBJECT || k == SAMPLE_AP_LIVE ||
	       k == SAMPLE_DD_LIVE;
}

/* Kinds whose samples have a known fate (alive or dead at the end). */
static inline bool sample_kind_has_fate(enum sample_kind k)
{
	return k == SAMPLE_AGENT || sample_kind_live(k);
}

struct rec_frame {
	const char *class_name; /* as `jfr print` shows it: java.util.HashMap */
	const char *class_raw;	/* as the JVM wrote it: java/util/HashMap */
	const char *method;
	const char *descriptor; /* (Ljava/util/Random;I)J */
	int32_t line;		/* -1: unknown */
	int32_t bci;		/* -1: unknown */
	const char *type; /* "Interpreted", "JIT compiled", "Inlined", "Native" */
	bool hidden;	  /* a hidden method (LambdaForm internals) */
	/* the importer's id, for caching, as a stack's: the same id is the
	 * same frame within one recording; 0: none */
	uint64_t id;
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

/* The Horvitz-Thompson weight of a Poisson sample (HotSpot's JVMTI
 * sampler, JEP 331) of an object of s bytes at mean interval I bytes:
 * s / (1 - exp(-s/I)), rounded; I itself for s = 0, s for I <= 0
 * (docs/estimates.md). */
int64_t rec_poisson_weight(int64_t s, int64_t interval);

/* Every field "none": REC_NONE, NULL, LIVE_UNKNOWN. */
void rec_sample_init(struct rec_sample *s, enum sample_kind kind);

/* A garbage collection (numbered from 1 in finishing order). */
struct rec_gc {
	int64_t number;
	int64_t start_ns, end_ns;
};

/*
 * What one JFR event said of a GC, by its GC id (the gcId of
 * jdk.GCHeapSummary): jdk.GarbageCollection its collector and cause,
 * jdk.G1GarbageCollection G1's young collection type,
 * jdk.EvacuationFailed and jdk.PromotionFailed that a young collection
 * failed to copy some objects.  A GC's events come one by one; the sink
 * merges them by gc_id.  NULL: not said by this event.
 */
struct rec_gc_info {
	int64_t gc_id;
	const char *name;  /* "G1New", "G1Old", "G1Full", "ParallelScavenge" */
	const char *cause; /* "G1 Evacuation Pause", "System.gc()" */
	const char *phase; /* "Normal", "Concurrent Start", "Mixed" */
	bool failed;	   /* an EvacuationFailed or PromotionFailed */
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

/*
 * Settings an importer adds to a recording's own, named "heapsift#...":
 * who wrote it (where another than the JDK wrote a chunk: "JDK,
 * Datadog java-profiler") and the heap-like events nobody read ("TYPE=N
 * ...").  Front ends show them as facts, not as settings.
 */
#define REC_FACT_EVENT	 "heapsift"
#define REC_FACT_WRITERS "writers"
#define REC_FACT_UNREAD	 "unread"
enum rec_fact { REC_FACT_NONE, REC_FACT_IS_WRITERS, REC_FACT_IS_UNREAD };
/* Which of them setting name ("heapsift#writers") is, if any. */
enum rec_fact rec_setting_fact(const char *name);

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

/* --- code heaps ------------------------------------------------------------
 *
 * A code-heap snapshot: what one report (HotSpot CodeHeap_Analytics, a
 * Compiler.codecache summary, a Compiler.codelist, an OpenJ9 javacore's
 * memory sections) says about a JVM's code cache at one moment.  The
 * importer builds it whole and hands it over once; everything in it is
 * borrowed for the call, like the records above.
 */

/* What a granule map measures. */
enum ch_measure {
	CH_COUNT = 0, /* blocks touching the granule */
	CH_SPACE,     /* how full the granule is */
	CH_AGE,	      /* age of the youngest method (by compile id) */
	CH_TYPE,      /* block type (granule == segment only) */
	CH__MEASURES
};

/* Which blocks a map covers. */
enum ch_part {
	CH_ALL = 0,
	CH_TIER1,    /* nmethods below level 4 (C1, native wrappers) */
	CH_TIER2,    /* level 4 (C2, JVMCI) */
	CH_INACTIVE, /* not used / not entrant / not installed */
	CH_STUB,     /* stubs and blobs */
	CH_DEAD,     /* zombie and unloaded (JDK 11 and 17) */
	CH__PARTS
};

/*
 * Cell values, one byte per granule; 0 always means "nothing there".
 *   CH_COUNT: 1..15 blocks, 16 = 16 or more.
 *   CH_SPACE: 1 + d for the digit d (d*10% <= fill < (d+1)*10%), 11 = full.
 *   CH_AGE:   1 + d for the digit d (0 youngest 1/256 ... 8 oldest half).
 *   CH_TYPE:  enum ch_block_type.
 */
#define CH_COUNT_MANY 16
#define CH_SPACE_FULL 11

struct rec_ch_map {
	enum ch_measure measure;
	enum ch_part part;
	bool bundle; /* one component of a combined "by tier" map */
	const uint8_t *cells;
	uint32_t n; /* the heap's granule count, when the map is whole */
};

/* Block types, as the reports' legends name them (the letters are not
 * stable across JDK versions; the names are). */
enum ch_block_type {
	CHB_NONE = 0,
	CHB_NMETHOD_BUILDING, /* "nMethod (under construction)" */
	CHB_NMETHOD_ACTIVE,
	CHB_NMETHOD_INACTIVE,
	CHB_NMETHOD_DEOPT, /* not entrant */
	CHB_NMETHOD_ZOMBIE,
	CHB_NMETHOD_UNLOADED,
	CHB_RUNTIME_STUB,
	CHB_RICOCHET_STUB,
	CHB_DEOPT_STUB,
	CHB_UNCOMMON_TRAP_STUB,
	CHB_EXCEPTION_STUB,
	CHB_SAFEPOINT_STUB,
	CHB_ADAPTER_BLOB,
	CHB_MH_ADAPTER_BLOB,
	CHB_BUFFER_BLOB,
	CHB_STALE_BLOB,
	CHB_NMETHOD, /* an nmethod whose state the input does not say */
	CHB_UNKNOWN, /* a letter or name no legend explains */
	CHB__COUNT
};

const char *ch_block_type_name(enum ch_block_type t);
/* From a legend's wording ("nMethod (active)", "buffer blob");
 * CHB_UNKNOWN when it is not one of them. */
enum ch_block_type ch_block_type_from_name(const char *s, size_t len);
const char *ch_measure_name(enum ch_measure m);
const char *ch_part_name(enum ch_part p);

enum ch_block_kind {
	CHK_USED = 0, /* a used block: top-size table, method names, codelist */
	CHK_FREE,     /* a free block from the free list */
};

struct rec_ch_block {
	enum ch_block_kind kind;
	uint64_t addr;
	int64_t size; /* bytes; REC_NONE: not printed */
	enum ch_block_type type;
	const char *compiler; /* "c1", "c2", "none", "jvmci"; NULL */
	int32_t level;	      /* 0..4; -1 unknown */
	int64_t temperature;  /* hotness (JDK 17); REC_NONE */
	int64_t compile_id;   /* REC_NONE */
	int32_t state;	      /* codelist state; -1 unknown */
	const char *name;     /* method or blob name; NULL */
	/* CHK_FREE: the occupied gap up to the next free block */
	int64_t gap; /* REC_NONE for the last block */
	int64_t gap_blocks;
	bool permanent_gap; /* the gap holds stubs or blobs */
	bool top;	    /* from the "Largest Used Blocks" table */
};

/* A named number: facts without a column of their own. */
struct rec_ch_stat {
	const char *name;
	int64_t value;
};

struct rec_ch_heap {
	const char *name;	/* "CodeHeap 'profiled nmethods'", "CodeHeap" */
	uint64_t low;		/* segment start; 0 unknown */
	uint64_t high;		/* end of the committed part; 0 unknown */
	uint64_t high_reserved; /* 0 unknown */
	/* REC_NONE where the input does not say */
	int64_t segment_size, granule_size, n_granules;
	int64_t committed, reserved;  /* bytes */
	int64_t used, free, max_used; /* bytes */
	int64_t used_blocks, free_blocks;
	bool placement_estimated; /* maps drawn from totals (javacore) */
	const struct rec_ch_map *maps;
	uint32_t n_maps;
	const struct rec_ch_block *blocks; /* used then free, as read */
	uint32_t n_blocks;
	const struct rec_ch_stat *stats;
	uint32_t n_stats;
};

struct rec_codeheap {
	const char *kind; /* "analytics", "summary", "codelist", "javacore" */
	uint64_t line;	  /* 1-based line where the snapshot starts */
	int64_t time_ns;  /* REC_NONE: the input does not say */
	const struct rec_ch_heap *heaps;
	uint32_t n_heaps;
	const struct rec_ch_stat *stats; /* snapshot-wide facts */
	uint32_t n_stats;
	const struct rec_ch_block *blocks; /* not in any heap (codelist) */
	uint32_t n_blocks;
};

/*
 * What a sample stands for, in bytes, and its object's size (REC_NONE:
 * none), from struct rec_sample's fields: the two numbers every front
 * end shows, by kind.  The store keeps these, and keyed samples (below)
 * are written with them.
 */
static inline void rec_sample_bytes(enum sample_kind kind, int64_t weight,
				    int64_t alloc_size, int64_t tlab_size,
				    int64_t object_size, int64_t *bytes,
				    int64_t *size)
{
	switch (kind) {
	case SAMPLE_ALLOC:
		*bytes = weight;
		*size = REC_NONE;
		break;
	case SAMPLE_TLAB_NEW:
		*bytes = tlab_size;
		*size = alloc_size;
		break;
	case SAMPLE_TLAB_OUTSIDE:
		*bytes = alloc_size;
		*size = alloc_size;
		break;
	case SAMPLE_OLD_OBJECT:
		*bytes = object_size;
		*size = object_size;
		break;
	default: /* the agent's and other writers' Poisson samples */
		*bytes = weight;
		*size = alloc_size;
	}
}

#endif
