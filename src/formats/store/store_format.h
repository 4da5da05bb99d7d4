/*
 * The on-disk layout of a heapsift store (.hsdb), version 4.1.
 * docs/formats/store.md is the normative description; this header is its
 * mirror in C and must agree with it.
 *
 * Little-endian, every section 8-byte aligned, fixed-size records so that
 * a reader can map the file and index it in place.  Only layout lives
 * here: no I/O, no validation (src/store does both).
 */
#ifndef HS_STORE_FORMAT_H
#define HS_STORE_FORMAT_H

#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the store is read in place: a little-endian host is required"
#endif

#define STORE_MAGIC	"\x89HSDB\r\n\x1a"
#define STORE_MAGIC_LEN 8
/* 2: samples in blocks per kind (2.1: rollups, RBKT and RROW; 2.2: their
 * squares, RSQR); 3: the corrected estimate (the rest column of
 * ObjectAllocationSample's blocks, which readers of 2.x cannot decode,
 * RCOR and ESTM); 4: the blocks name stack nodes by the writer's own
 * ids, which the node map (NMAP) turns into the trie's depth-first ids,
 * so that a writer can encode samples before it has seen every stack
 * (4.1: SEC_GC_INFO, a section that 4.0 readers skip) */
#define STORE_MAJOR	    4
#define STORE_MINOR	    2 /* 4.1: SEC_GC_INFO; 4.2: sample kinds 5-8 */
#define STORE_MAJOR_OLDEST  2 /* the oldest major this heapsift reads */
#define STORE_HEADER_LEN    64
#define STORE_TOC_ENTRY_LEN 32
#define STORE_ALIGN	    8
#define STORE_NONE	    UINT32_MAX /* a reference to nothing */

/* Header, at offset 0. */
struct store_header {
	char magic[8];
	uint16_t major;
	uint16_t minor;
	uint32_t header_len; /* 64 */
	uint64_t file_len;   /* the whole file */
	uint64_t toc_offset; /* the table of sections */
	uint32_t n_sections;
	uint32_t toc_crc;    /* CRC32C of the table */
	uint32_t header_crc; /* CRC32C of these 64 bytes, this field 0 */
	uint8_t reserved[20];
};

/* One entry of the table of sections. */
struct store_toc_entry {
	uint32_t id;	  /* STORE_ID('S','T','R','S') ... */
	uint32_t rec_len; /* record size; 1 for byte sections */
	uint64_t offset;  /* from the start of the file, 8-aligned */
	uint64_t length;  /* bytes, a multiple of rec_len */
	uint32_t crc;	  /* CRC32C of the section's bytes */
	uint32_t reserved;
};

#define STORE_ID(a, b, c, d)                                        \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
	 (uint32_t)(d) << 24)

enum store_section {
	SEC_STRINGS = STORE_ID('S', 'T', 'R', 'S'), /* NUL-terminated UTF-8 */
	SEC_RECORDINGS = STORE_ID('R', 'E', 'C', 'S'),	  /* store_recording */
	SEC_SETTINGS = STORE_ID('S', 'E', 'T', 'S'),	  /* store_setting */
	SEC_EVENT_COUNTS = STORE_ID('E', 'C', 'N', 'T'),  /* store_count */
	SEC_THREADS = STORE_ID('T', 'H', 'R', 'D'),	  /* store_thread */
	SEC_CLASSES = STORE_ID('C', 'L', 'S', 'S'),	  /* store_class */
	SEC_METHODS = STORE_ID('M', 'T', 'H', 'D'),	  /* store_method */
	SEC_FRAMES = STORE_ID('F', 'R', 'A', 'M'),	  /* store_frame */
	SEC_NODES = STORE_ID('T', 'R', 'I', 'E'),	  /* store_node */
	SEC_SAMPLE_INDEX = STORE_ID('S', 'I', 'D', 'X'),  /* store_block */
	SEC_SAMPLE_BLOCKS = STORE_ID('S', 'B', 'L', 'K'), /* encoded blocks */
	SEC_OLD_OBJECTS = STORE_ID('O', 'L', 'D', 'O'),	  /* store_old_object */
	SEC_HEAP = STORE_ID('H', 'E', 'A', 'P'),	  /* store_heap */
	SEC_LIVENESS = STORE_ID('L', 'I', 'V', 'E'),	  /* store_liveness */
	SEC_GCS = STORE_ID('G', 'C', 'S', ' '),		  /* store_gc */
	SEC_CH_SNAPSHOTS = STORE_ID('C', 'H', 'S', 'N'), /* store_ch_snapshot */
	SEC_CH_HEAPS = STORE_ID('C', 'H', 'H', 'P'),	 /* store_ch_heap */
	SEC_CH_MAPS = STORE_ID('C', 'H', 'M', 'P'),	 /* store_ch_map */
	SEC_CH_CELLS = STORE_ID('C', 'H', 'C', 'L'),	 /* uint8 cells */
	SEC_CH_BLOCKS = STORE_ID('C', 'H', 'B', 'K'),	 /* store_ch_block */
	SEC_CH_STATS = STORE_ID('C', 'H', 'S', 'T'),	 /* store_ch_stat */
	SEC_ROLLUP_BUCKETS = STORE_ID('R', 'B', 'K', 'T'), /* 2.1 */
	SEC_ROLLUP_ROWS = STORE_ID('R', 'R', 'O', 'W'),	   /* 2.1 */
	SEC_ROLLUP_SQUARES = STORE_ID('R', 'S', 'Q', 'R'), /* 2.2 */
	SEC_ROLLUP_EST = STORE_ID('R', 'C', 'O', 'R'),	   /* 3.0 */
	SEC_ESTIMATES = STORE_ID('E', 'S', 'T', 'M'),	   /* 3.0 */
	/* 3.1: the rollups again, a bucket per kind, projection and
	 * recording (the whole recording's rows), in four sections laid
	 * out as the four above */
	SEC_WHOLE_BUCKETS = STORE_ID('R', 'W', 'B', 'K'),
	SEC_WHOLE_ROWS = STORE_ID('R', 'W', 'R', 'O'),
	SEC_WHOLE_SQUARES = STORE_ID('R', 'W', 'S', 'Q'),
	SEC_WHOLE_EST = STORE_ID('R', 'W', 'C', 'O'),
	/* 4.0: one u32 per trie node, the writer's id i to the node's
	 * depth-first id map[i]; the sample blocks' node column holds i */
	SEC_NODE_MAP = STORE_ID('N', 'M', 'A', 'P'),
	/* 4.1: what a JFR recording said of each GC (store_gc_info) */
	SEC_GC_INFO = STORE_ID('G', 'C', 'I', 'N'),
};

/* Strings are byte offsets into SEC_STRINGS; offset 0 is "". */

struct store_recording {
	uint32_t source, format, jvm_name, jvm_version; /* strings */
	int64_t start_ns, end_ns;
	uint32_t n_chunks;
	uint32_t first_setting, n_settings; /* into SEC_SETTINGS */
	uint32_t first_count, n_counts;	    /* into SEC_EVENT_COUNTS */
	uint32_t reserved;
	uint64_t bytes_skipped;
};

struct store_setting {
	uint32_t name, value; /* strings */
};

struct store_count {
	uint32_t name; /* string: an event type */
	uint32_t reserved;
	uint64_t n;
};

#define STORE_THREAD_VIRTUAL 1u

struct store_thread {
	uint32_t name;
	uint32_t flags;
	int64_t java_id, os_id;
};

struct store_class {
	uint32_t display, raw; /* strings */
};

#define STORE_METHOD_HIDDEN 1u

struct store_method {
	uint32_t cls;		   /* into SEC_CLASSES */
	uint32_t name, descriptor; /* strings */
	uint32_t flags;
};

struct store_frame {
	uint32_t method; /* into SEC_METHODS */
	int32_t line, bci;
	uint32_t type; /* string: "Interpreted", "JIT compiled" ... */
};

/*
 * The stack trie.  Node 0 is the root: no frame, "no stack recorded".
 * A node's frame is called by its parent's: the path from the root to a
 * node is a stack, outermost caller first, and the node's own frame is
 * the allocation site.  Nodes are numbered depth first, so the subtree
 * of node i is exactly [i, end).  parent < i for every node but the root.
 */
struct store_node {
	uint32_t parent; /* STORE_NONE for the root */
	uint32_t frame;	 /* into SEC_FRAMES; STORE_NONE for the root */
	uint32_t depth;	 /* 0 for the root */
	uint32_t end;	 /* one past the last node of the subtree */
};

/* Per-sample flags. */
#define STORE_SAMPLE_TRUNCATED 1u /* the stack's root end is missing */

/*
 * Samples are stored in blocks, each of one kind: SEC_SAMPLE_INDEX
 * describes them, by kind and then by first_seq, and SEC_SAMPLE_BLOCKS
 * holds their bytes.  A sample's seq is its index in the time order of
 * all samples (ties in import order): old objects and liveness records
 * refer to samples by seq.  A block's bytes are its samples one after
 * another, each a run of LEB128 varints (docs/formats/store.md):
 * seq gap, time gap, recording << 1 | truncated, thread + 1, class + 1,
 * node, zigzag(bytes), zigzag(size) for the kinds that have a size
 * of their own (STORE_KIND_HAS_SIZE), and, in a block whose flags hold
 * STORE_BLOCK_REST (ObjectAllocationSample, since 3.0), zigzag(bytes -
 * rest): the rest of the sample's weight under the corrected estimate
 * (struct store_estimate).
 */
#define STORE_BLOCK_SAMPLES 4096u /* at most, a block */
/* sizes kept apart: in-new-TLAB (allocationSize), agent samples and
 * other writers' samples (kinds 5-8, since 4.2); the size of
 * outside-TLAB and old-object samples is their bytes, and
 * ObjectAllocationSample has none (REC_NONE) */
#define STORE_KIND_HAS_SIZE(k) ((k) == 1 || (k) >= 4)

#define STORE_BLOCK_REST 1u /* store_block.flags: the rest column (3.0) */

struct store_block {
	uint8_t kind;  /* enum sample_kind */
	uint8_t flags; /* STORE_BLOCK_*; 0 before 3.0 */
	uint8_t reserved[2];
	uint32_t n;	    /* samples, 1 to STORE_BLOCK_SAMPLES */
	uint64_t offset;    /* into SEC_SAMPLE_BLOCKS */
	uint32_t length;    /* bytes */
	uint32_t crc;	    /* CRC32C of the block's bytes */
	int64_t first_ns;   /* the time of its first sample */
	int64_t last_ns;    /* and of its last */
	uint64_t first_seq; /* the seq of its first sample */
};

/*
 * Rollups (since 2.1): the samples of a kind aggregated per recording in
 * time buckets, under four projections of the key (recording, thread,
 * class, stack node, truncated flag): all of it, or the node, the class
 * or the thread alone.  SEC_ROLLUP_BUCKETS lists the buckets, by kind,
 * projection, recording and time; each owns a run of SEC_ROLLUP_ROWS,
 * sorted by key, with a checksum of its own.  A bucket holds every
 * sample of its kind and recording with start_ns <= time < end_ns.
 * Kinds whose samples carry negative bytes, and agent samples, have
 * none: readers use the samples (docs/formats/store.md).
 */
enum store_rollup_proj {
	STORE_PROJ_FULL, /* thread, class, node, flags */
	STORE_PROJ_NODE, /* node; the others 0 */
	STORE_PROJ_CLASS,
	STORE_PROJ_THREAD,
	STORE_PROJ__COUNT
};

struct store_rollup_bucket {
	uint8_t kind; /* enum sample_kind */
	uint8_t proj; /* enum store_rollup_proj */
	uint16_t reserved;
	uint32_t recording;
	int64_t start_ns, end_ns; /* [start, end) */
	uint64_t first_row;	  /* into SEC_ROLLUP_ROWS */
	uint32_t n_rows;
	uint32_t crc;	  /* CRC32C of its rows' bytes */
	uint64_t samples; /* the sum of its rows' */
};

struct store_rollup_row {
	uint32_t node; /* STORE_PROJ_FULL, _NODE; else 0 */
	uint32_t cls;  /* STORE_PROJ_FULL, _CLASS (STORE_NONE: none); else 0 */
	uint32_t thread; /* STORE_PROJ_FULL, _THREAD (STORE_NONE: none); else 0 */
	uint32_t flags; /* STORE_PROJ_FULL: STORE_SAMPLE_*; else 0 */
	uint64_t samples;
	int64_t bytes; /* sum of the samples' bytes (REC_NONE as 0), held
			  at INT64_MAX; never negative */
	int64_t first_ns, last_ns; /* of its samples */
};

/*
 * Since 2.2: one per rollup row, in the rows' order, the sum of the
 * squares of its samples' bytes (REC_NONE as 0) as an unsigned 128-bit
 * integer, lo then hi, held at 2^128 - 1: exact, so that it does not
 * depend on the order of the additions, and what the relative standard
 * error of an estimate is computed from (docs/estimates.md).
 */
struct store_rollup_sq {
	uint64_t lo, hi;
};

/*
 * Since 3.0: one per rollup row, in the rows' order, what the corrected
 * estimate of ObjectAllocationSample's bytes (docs/estimates.md) needs
 * of the row.  Rows of ObjectAllocationSample: a is the sum of its
 * samples' rests (the weight less the bytes of the OutsideTLAB events
 * it held, 0 for a sample of an object allocated outside a TLAB), and
 * lo, hi the sum of their squares, as in store_rollup_sq.  Rows of
 * OutsideTLAB events: a is the smallest event's bytes.  Every other
 * row: all 0.
 */
struct store_rollup_est {
	int64_t a;
	uint64_t lo, hi;
};

/*
 * Since 3.0: one per recording, in the recordings' order, the corrected
 * estimate's facts, found at import by walking each thread's events in
 * time order (docs/estimates.md).  A sample's corrected bytes are
 * floor(rest * all / tlab) (its rest when tlab is 0), all being the sum
 * of every sample's rest and tlab that of the samples whose object was
 * in a TLAB: the rests of samples of large objects go to the others in
 * proportion to theirs.  An OutsideTLAB event smaller than typical_tlab
 * (the median weight of the samples of objects in TLABs, to 1/128) is
 * of a size some objects of which went into TLABs, unseen.
 */
struct store_estimate {
	uint64_t all_lo, all_hi, tlab_lo, tlab_hi; /* 128-bit sums */
	int64_t typical_tlab;			   /* 0: no sample */
	uint64_t own;	   /* samples of objects outside a TLAB */
	uint64_t negative; /* samples that held more than their weight */
	uint64_t reserved;
};

struct store_old_object {
	uint32_t sample; /* a sample's seq */
	uint32_t root;	 /* string: the GC root, 0: none known */
	int64_t alloc_time_ns, age_ns, object_size, last_heap_used;
	int64_t array_elements;
};

struct store_heap {
	uint32_t recording;
	uint32_t when; /* string */
	int64_t time_ns, gc_id, used, committed, reserved;
};

/*
 * What is known of a sampled object's life: one record per sample that
 * has any (agent samples, old objects), in sample order.  Since 1.1.
 */
enum store_live_state {
	STORE_LIVE_DEAD = 1,   /* found gone: death_ns, death_gc */
	STORE_LIVE_AT_END = 2, /* alive when its recording ended */
	STORE_LIVE_AT_CUT = 3, /* alive at the last data of a cut recording */
};

struct store_liveness {
	uint32_t sample;  /* a sample's seq */
	uint32_t state;	  /* enum store_live_state */
	int64_t death_ns; /* STORE_LIVE_DEAD; else INT64_MIN */
	int64_t alloc_gc; /* GCs finished before the allocation; -1: unknown */
	int64_t death_gc; /* STORE_LIVE_DEAD: the GC after which it was
			     found gone; -1: unknown */
};

/* The garbage collections of each recording, by recording and number.
 * Since 1.1. */
struct store_gc {
	uint32_t recording;
	uint32_t reserved;
	int64_t number; /* from 1, in finishing order */
	int64_t start_ns, end_ns;
};

/*
 * Since 4.1: what a JFR recording said of its GCs, by recording, one
 * record per GC id (a reader merges any that repeat one): the collector
 * and cause of its jdk.GarbageCollection, the type of its
 * jdk.G1GarbageCollection, and whether a jdk.EvacuationFailed or
 * jdk.PromotionFailed named it.  It joins SEC_HEAP on (recording, gc_id).
 */
#define STORE_GC_FAILED 1u /* a young collection that failed to copy */

struct store_gc_info {
	uint32_t recording;
	uint32_t name;	/* string: "G1New", "ParallelOld"...; 0: not said */
	uint32_t cause; /* string: "System.gc()"...; 0: not said */
	uint32_t phase; /* string: G1's "Normal", "Mixed"...; 0: not said */
	int64_t gc_id;
	uint32_t flags; /* STORE_GC_* */
	uint32_t reserved;
};

/*
 * Code-heap snapshots (since 1.2): what one report said about a JVM's
 * code cache at one moment.  Snapshots are in import order; each owns a
 * contiguous run of heaps, stats and blocks, each heap a run of maps,
 * blocks and stats, each map a run of n cells in SEC_CH_CELLS.  Meanings
 * of the fields and cell values: src/record/record.h (struct rec_codeheap).
 * INT64_MIN is "not known" in every int64 field.
 */
struct store_ch_snapshot {
	uint32_t recording; /* the input it came from */
	uint32_t kind;	    /* string: analytics, summary, codelist, javacore */
	int64_t time_ns;
	uint64_t line; /* where it starts in its input, 1-based */
	uint32_t first_heap, n_heaps;
	uint32_t first_stat, n_stats;
	uint32_t first_block, n_blocks; /* blocks in no heap (codelist) */
};

#define STORE_CH_PLACEMENT_ESTIMATED 1u

struct store_ch_heap {
	uint32_t snapshot;
	uint32_t name;			   /* string */
	uint64_t low, high, high_reserved; /* 0: not known */
	int64_t segment_size, granule_size, n_granules;
	int64_t committed, reserved, used, free, max_used;
	int64_t used_blocks, free_blocks;
	uint32_t flags; /* STORE_CH_* */
	uint32_t first_map, n_maps;
	uint32_t first_block, n_blocks;
	uint32_t first_stat, n_stats;
	uint32_t reserved_;
};

#define STORE_CH_MAP_BUNDLE 1u

struct store_ch_map {
	uint32_t heap;
	uint8_t measure; /* enum ch_measure */
	uint8_t part;	 /* enum ch_part */
	uint8_t flags;	 /* STORE_CH_MAP_* */
	uint8_t reserved;
	uint64_t cells; /* offset into SEC_CH_CELLS */
	uint32_t n;
	uint32_t reserved2;
};

#define STORE_CH_BLOCK_FREE	     1u /* else used */
#define STORE_CH_BLOCK_TOP	     2u /* from the largest-blocks table */
#define STORE_CH_BLOCK_PERMANENT_GAP 4u

struct store_ch_block {
	uint64_t addr;
	int64_t size, temperature, compile_id, gap, gap_blocks;
	uint32_t name, compiler; /* strings */
	uint8_t type;		 /* enum ch_block_type */
	int8_t level, state;	 /* -1: not known */
	uint8_t reserved;
	uint32_t flags; /* STORE_CH_BLOCK_* */
};

struct store_ch_stat {
	uint32_t name; /* string */
	uint32_t reserved;
	int64_t value;
};

_Static_assert(sizeof(struct store_header) == STORE_HEADER_LEN, "header");
_Static_assert(sizeof(struct store_toc_entry) == STORE_TOC_ENTRY_LEN, "toc");
_Static_assert(sizeof(struct store_recording) == 64, "recording");
_Static_assert(sizeof(struct store_thread) == 24, "thread");
_Static_assert(sizeof(struct store_method) == 16, "method");
_Static_assert(sizeof(struct store_frame) == 16, "frame");
_Static_assert(sizeof(struct store_node) == 16, "node");
_Static_assert(sizeof(struct store_block) == 48, "block");
_Static_assert(sizeof(struct store_old_object) == 48, "old object");
_Static_assert(sizeof(struct store_rollup_bucket) == 48, "rollup bucket");
_Static_assert(sizeof(struct store_rollup_row) == 48, "rollup row");
_Static_assert(sizeof(struct store_rollup_sq) == 16, "rollup square");
_Static_assert(sizeof(struct store_heap) == 48, "heap");
_Static_assert(sizeof(struct store_liveness) == 32, "liveness");
_Static_assert(sizeof(struct store_gc) == 32, "gc");
_Static_assert(sizeof(struct store_gc_info) == 32, "gc info");
_Static_assert(sizeof(struct store_ch_snapshot) == 48, "ch snapshot");
_Static_assert(sizeof(struct store_ch_heap) == 144, "ch heap");
_Static_assert(sizeof(struct store_ch_map) == 24, "ch map");
_Static_assert(sizeof(struct store_ch_block) == 64, "ch block");
_Static_assert(sizeof(struct store_ch_stat) == 16, "ch stat");

#endif
