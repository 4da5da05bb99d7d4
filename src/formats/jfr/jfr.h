/*
 * A JFR chunk decoder (docs/formats/jfr.md; the byte layout is in
 * ../shared/reference/jfr-format.md).
 *
 * It works on one chunk held in memory (the importer reads chunk by
 * chunk, so memory is bounded by the largest chunk, not by the
 * recording).  Decoding is driven entirely by the chunk's own metadata:
 * type ids are looked up by name, unknown events are skipped by size and
 * unknown fields by their type.  Constant pools are indexed on open
 * (key -> offset, for the pool types heap analysis needs) and decoded
 * lazily on first use, because events refer forward to constants written
 * later in the chunk.
 *
 * It depends on nothing but src/util, so it can be fuzzed alone.  It
 * does not know about sinks, stores or inputs.
 *
 * Every pointer it returns is owned by the struct jfr_chunk and valid
 * until the next jfr_chunk_open() or jfr_chunk_free().
 */
#ifndef HS_JFR_H
#define HS_JFR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/jfr/jfr_magic.h"
#include "util/err.h"

#define JFR_HEADER_LEN 68

struct jfr_header {
	uint16_t major, minor;
	uint64_t size;	      /* bytes, header included */
	uint64_t cp_offset;   /* chunk offset of the last checkpoint */
	uint64_t meta_offset; /* chunk offset of the last metadata event */
	int64_t start_ns;
	int64_t duration_ns;
	int64_t start_ticks;
	int64_t ticks_per_sec;
	uint8_t state;	/* 0 finished; 1..254 still being written; 255 busy */
	uint16_t flags; /* bit 0 compressed ints, bit 1 final chunk */
};

/*
 * Parse and check the 68-byte header at p (len bytes available): magic,
 * version, integer compression, and that the checkpoint and metadata
 * offsets lie inside size (reference 3.1).  It does not know the file
 * size.  jfr_header_parse_frame() makes every check but the offsets:
 * enough to find where the chunk ends, which is all a reader needs when
 * it finds the metadata and checkpoints by walking the events.
 */
int jfr_header_parse(const unsigned char *p, size_t len, struct jfr_header *h,
		     struct err *e);
int jfr_header_parse_frame(const unsigned char *p, size_t len,
			   struct jfr_header *h, struct err *e);

/* The events heapsift imports, and the two it reads for facts. */
enum jfr_kind {
	JFR_OTHER = 0,
	JFR_ALLOC_SAMPLE,     /* jdk.ObjectAllocationSample */
	JFR_TLAB_NEW,	      /* jdk.ObjectAllocationInNewTLAB */
	JFR_TLAB_OUTSIDE,     /* jdk.ObjectAllocationOutsideTLAB */
	JFR_OLD_OBJECT,	      /* jdk.OldObjectSample */
	JFR_HEAP_SUMMARY,     /* jdk.GCHeapSummary */
	JFR_ACTIVE_SETTING,   /* jdk.ActiveSetting */
	JFR_JVM_INFO,	      /* jdk.JVMInformation */
	JFR_GC,		      /* jdk.GarbageCollection */
	JFR_G1_GC,	      /* jdk.G1GarbageCollection */
	JFR_GC_FAILED,	      /* jdk.EvacuationFailed, jdk.PromotionFailed */
	JFR_AP_LIVE,	      /* profiler.LiveObject (async-profiler) */
	JFR_DD_OBJECT,	      /* datadog.ObjectSample */
	JFR_DD_LIVE,	      /* datadog.HeapLiveObject */
	JFR_ACTIVE_RECORDING, /* jdk.ActiveRecording: its name */
	JFR_METADATA,	      /* type 0 */
	JFR_CHECKPOINT,	      /* type 1 */
	JFR_KIND__COUNT
};

/* The fields an event of a known kind may carry (by field name). */
enum jfr_slot {
	JS_START,	/* startTime, ticks */
	JS_DURATION,	/* duration, ticks */
	JS_THREAD,	/* eventThread, pool key */
	JS_STACK,	/* stackTrace, pool key */
	JS_CLASS,	/* objectClass, pool key */
	JS_WEIGHT,	/* weight */
	JS_ALLOC_SIZE,	/* allocationSize */
	JS_TLAB_SIZE,	/* tlabSize */
	JS_ALLOC_TIME,	/* allocationTime, ticks */
	JS_OBJECT_AGE,	/* objectAge, ticks */
	JS_OBJECT_SIZE, /* objectSize */
	JS_HEAP_USAGE,	/* lastKnownHeapUsage */
	JS_OBJECT,	/* object, OldObject pool key */
	JS_ARRAY_ELEMS, /* arrayElements */
	JS_ROOT,	/* root, OldObjectGcRoot pool key */
	JS_GC_ID,	/* gcId */
	JS_WHEN,	/* when, GCWhen pool key */
	JS_COMMITTED,	/* heapSpace.committedSize */
	JS_RESERVED,	/* heapSpace.reservedSize */
	JS_HEAP_USED,	/* heapUsed */
	JS_SETTING_ID,	/* ActiveSetting.id: an event type id */
	JS_NAME,	/* ActiveSetting.name (string); GarbageCollection.name
			   (GCName pool key) */
	JS_VALUE,	/* ActiveSetting.value (string) */
	JS_JVM_NAME,	/* JVMInformation.jvmName (string) */
	JS_JVM_VERSION, /* JVMInformation.jvmVersion (string) */
	JS_PID,		/* JVMInformation.pid */
	JS_JVM_START,	/* JVMInformation.jvmStartTime, ms since the epoch */
	JS_CAUSE,	/* GarbageCollection.cause, GCCause pool key */
	JS_G1_TYPE,	/* G1GarbageCollection.type, G1YCType pool key */
	JS_SIZE,	/* size (Datadog's object size) */
	JS__COUNT
};

/*
 * Who wrote a chunk, from its metadata alone (docs/formats/jfr.md,
 * "Other writers"): the JDK's JFR, or a profiler with a writer of its
 * own, whose events of the JDK's names may mean other things.  The JDK
 * declares every event type it knows, jdk.ThreadStart and
 * jdk.GarbageCollection among them, and Java agents' events beside
 * them (dd-trace-java's datadog.*); Datadog's java-profiler declares
 * datadog.* event types and few of the JDK's; async-profiler declares
 * profiler.* event types (profiler.Window, profiler.LiveObject...).
 */
enum jfr_writer {
	JFR_WRITER_JDK = 0, /* or any writer that means what the JDK does */
	JFR_WRITER_ASYNC_PROFILER,
	JFR_WRITER_DATADOG,
};

const char *jfr_writer_name(enum jfr_writer w);

struct jfr_event {
	enum jfr_kind kind;
	uint64_t type_id;
	const char *type_name; /* from the metadata; "jdk.CheckPoint" etc. */
	uint64_t offset;       /* chunk offset of the event */
	uint64_t size;
	uint32_t have;	 /* bit (1 << slot) for each slot present */
	uint32_t floats; /* bit (1 << slot): v holds a float's 32 bits */
	uint64_t v[JS__COUNT + 1]; /* raw values: ticks, keys, numbers
				      (the last is scratch) */
	const char *s[JS__COUNT];  /* string slots, decoded (NULL: null) */
};

static inline bool jfr_has(const struct jfr_event *ev, enum jfr_slot s)
{
	return (ev->have >> s) & 1;
}

/* Resolved constants. */
struct jfr_class {
	const char *raw; /* java/util/HashMap$Node, [B, hidden names as is */
	const char *display; /* java.util.HashMap$Node, byte[] */
	bool hidden;
	uint64_t user; /* the caller's, 0 at first; lives with the chunk */
};

struct jfr_frame {
	const struct jfr_class *cls; /* never NULL: "unknown" placeholder */
	const char *method;
	const char *descriptor;
	int32_t line;
	int32_t bci;
	const char *type;
	bool hidden;
};

struct jfr_stack {
	uint64_t key;
	void *user; /* the caller's, NULL at first; lives with the chunk */
	bool truncated;
	uint32_t n_frames;
	struct jfr_frame *frames;
};

struct jfr_thread {
	uint64_t key;
	uint64_t user; /* the caller's, 0 at first; lives with the chunk */
	const char *name;
	int64_t java_id;
	int64_t os_id;
	bool is_virtual;
};

struct jfr_chunk;

struct jfr_chunk *jfr_chunk_new(void);
void jfr_chunk_free(struct jfr_chunk *c);

/*
 * Open the chunk at data: avail bytes are present (fewer than the
 * header's size when the file was cut short).  Parses the header, the
 * metadata and every checkpoint.  chunk_no and file_offset only go into
 * messages.  Returns 0 when events can be read (possibly only up to
 * jfr_chunk_consistent_end()); 1 when they can, but a damaged
 * checkpoint lost some constants (e says which); <0 when nothing in the
 * chunk is usable.
 */
int jfr_chunk_open(struct jfr_chunk *c, const unsigned char *data, size_t avail,
		   unsigned chunk_no, uint64_t file_offset, struct err *e);

const struct jfr_header *jfr_chunk_header(const struct jfr_chunk *c);

/*
 * The chunk offset up to which the event framing held: the header's
 * size for a sound chunk, less for a damaged or cut-short one.  Events
 * past it are lost; jfr_chunk_lost_reason() says why (NULL: none lost).
 * Final once jfr_chunk_next() has returned 1: a whole chunk whose
 * header's offsets hold is framed as its events are read, not on open.
 */
uint64_t jfr_chunk_consistent_end(const struct jfr_chunk *c);
const char *jfr_chunk_lost_reason(const struct jfr_chunk *c);

/*
 * The next event in file order (not time order).  Events of kinds heapsift
 * reads are decoded into ev; others carry only their type.  Returns 0,
 * 1 at the end of the consistent part, or <0 when this event is corrupt
 * (e says where; the next call goes on after it).
 */
int jfr_chunk_next(struct jfr_chunk *c, struct jfr_event *ev, struct err *e);

/*
 * A chunk's time base, for converting ticks inline on a hot path (every
 * heap event has a start time).  Valid from jfr_chunk_open() to the next.
 */
struct jfr_timebase {
	int64_t start_ns;
	int64_t start_ticks;
	double ticks_div; /* ticks per nanosecond */
	bool ticks_are_ns;
};

const struct jfr_timebase *jfr_chunk_timebase(const struct jfr_chunk *c);

/* Ticks to ns since the epoch as the JDK's TimeConverter does it: a
 * double division, truncated.  A damaged header can make any value:
 * clamped, never an overflow. */
static inline int64_t jfr_timebase_epoch_ns(const struct jfr_timebase *tb,
					    uint64_t ticks)
{
	int64_t d = (int64_t)(ticks - (uint64_t)tb->start_ticks);
	double ns;

	/* dividing by 1.0 changes nothing below 2^53 */
	if (tb->ticks_are_ns && d < (1ll << 53) && d > -(1ll << 53))
		return (int64_t)((uint64_t)tb->start_ns + (uint64_t)d);
	ns = (double)d / tb->ticks_div;
	if (!(ns < 9.2e18))
		ns = ns > 0 ? 9.2e18 : 0;
	if (ns < -9.2e18)
		ns = -9.2e18;
	return (int64_t)((uint64_t)tb->start_ns + (uint64_t)(int64_t)ns);
}

/* Tick values of this chunk to nanoseconds, as the JDK converts them. */
int64_t jfr_ticks_to_epoch_ns(const struct jfr_chunk *c, uint64_t ticks);
int64_t jfr_ticks_to_ns(const struct jfr_chunk *c, uint64_t ticks);

/* Constants by pool key; NULL when the key is not in the pool (null),
 * or when its entry is damaged.  jfr_stack() decodes the stack and
 * keeps it with the chunk, each frame whole. */
struct jfr_stack *jfr_stack(struct jfr_chunk *c, uint64_t key);

/*
 * A stack's frames as the keys its pool gives them, for a reader that
 * resolves and keeps frames itself (the importer keeps each distinct
 * frame of a chunk once, and a stack as pointers to them): nothing is
 * decoded into the chunk or kept.  jfr_stack() is these two.
 */
struct jfr_frame_ref {
	uint64_t method;   /* jdk.types.Method key */
	uint64_t type;	   /* jdk.types.FrameType key, where has_type */
	int32_t line, bci; /* -1 where the frame's type has none */
	bool has_type;
};

/* The frames of the stack at key into *frames (the caller's, grown with
 * xreallocarray to *cap), *n of them, and its truncated flag.  0, or <0
 * when key is not in the pool or its entry is damaged. */
int jfr_stack_refs(struct jfr_chunk *c, uint64_t key,
		   struct jfr_frame_ref **frames, size_t *cap, uint32_t *n,
		   bool *truncated);
/* A frame of jfr_stack_refs() resolved as jfr_stack() resolves it
 * (strings and class owned by the chunk). */
void jfr_frame_resolve(struct jfr_chunk *c, const struct jfr_frame_ref *r,
		       struct jfr_frame *f);
struct jfr_class *jfr_class(struct jfr_chunk *c, uint64_t key);
struct jfr_thread *jfr_thread(struct jfr_chunk *c, uint64_t key);
/* A simple-type pool value as text: GCWhen, FrameType... by type name. */
const char *jfr_gc_when(struct jfr_chunk *c, uint64_t key);
/* GarbageCollection's name and cause, G1GarbageCollection's type
 * ("G1New", "System.gc()", "Mixed"): NULL when not in the pool. */
const char *jfr_gc_name(struct jfr_chunk *c, uint64_t key);
const char *jfr_gc_cause(struct jfr_chunk *c, uint64_t key);
const char *jfr_g1_yc_type(struct jfr_chunk *c, uint64_t key);
/* "system / type (description)" of an OldObjectGcRoot; NULL if none. */
const char *jfr_gc_root(struct jfr_chunk *c, uint64_t key);
/* The class of an OldObject (the sampled object); NULL if unknown. */
struct jfr_class *jfr_old_object_class(struct jfr_chunk *c, uint64_t key);
/* The chunk's writer, from its metadata (valid from jfr_chunk_open()). */
enum jfr_writer jfr_chunk_writer(const struct jfr_chunk *c);

/*
 * The event types of the chunk that look like heap data but that no
 * enum jfr_kind reads: a class field (objectClass, or a java.lang.Class
 * field) with a size or a weight (a field whose name has "size" or
 * "weight" in it) or an allocation time.  Their type ids into ids (at
 * most max), how many there are returned.
 */
size_t jfr_unread_heap_types(const struct jfr_chunk *c, uint64_t *ids,
			     size_t max);

/* Name of an event type id in this chunk's metadata, NULL if none. */
const char *jfr_type_name(const struct jfr_chunk *c, uint64_t type_id);

/* Internal JVM class name to the form `jfr print` shows (arena copy
 * into out, which must hold 2 * len + 16 bytes).  Exposed for tests. */
void jfr_display_class_name(const char *raw, size_t len, bool hidden,
			    char *out);

#endif
