/*
 * Code-heap queries: the facts derived from each stored heap, granule
 * maps by flavour (merged for zooming out), one granule's detail, and
 * the comparison of two snapshots.  Every front end (the codeheap
 * command, the browser) uses these; none reads the store's code-heap
 * tables itself.
 *
 * Definitions (docs/codeheap.md):
 *   capacity      the committed part of the heap (what the maps cover);
 *                 for a summary, bounds' committed end minus its start
 *   used, free    as the report says (KiB in HotSpot's statistics)
 *   size, size_is the size that used and free are parts of, and which
 *                 it is: an analytics report counts both inside the
 *                 committed part ("committed"); a summary's size= is
 *                 the reserved size, and its used + free is size
 *                 (CodeCache::print_summary: size is high_boundary -
 *                 low_boundary, free unallocated_capacity(), used size
 *                 - free, each rounded down to KiB), so "reserved"
 *   largest_free  the largest block of the free list, else the report's
 *                 "Top Ten Free Blocks" first row
 *   fragmentation 1 - largest_free / total free, where total free is the
 *                 sum of the free list when the report has one, else
 *                 "free"; 0 when nothing is free; unknown (NaN) when the
 *                 largest free block is not known
 */
#ifndef HS_QUERY_CODEHEAP_H
#define HS_QUERY_CODEHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"
#include "util/err.h"

struct chq;
struct store;

/*
 * The code-heap tables, as the store holds them (docs/formats/store.md,
 * the code-heap sections), copied out by chq_open(): a snapshot is one
 * text (a report, a code list, a javacore's section), whose heaps,
 * stats and blocks in no heap are runs of those tables; a heap's maps,
 * blocks and stats are runs too.  Strings are offsets: chq_str().
 */
struct chq_snapshot {
	uint32_t recording; /* the input it came from */
	uint32_t kind;	    /* string: analytics, summary, codelist, javacore */
	int64_t time_ns;
	uint64_t line; /* where it starts in its input, 1-based */
	uint32_t first_heap, n_heaps;
	uint32_t first_stat, n_stats;
	uint32_t first_block, n_blocks; /* blocks in no heap (codelist) */
};

/* chq_heap.flags: the blocks' places in the heap are estimated (a
 * report with no addresses) */
#define CHQ_PLACEMENT_ESTIMATED 1u

struct chq_heap {
	uint32_t snapshot;
	uint32_t name;			   /* string */
	uint64_t low, high, high_reserved; /* 0: not known */
	int64_t segment_size, granule_size, n_granules;
	int64_t committed, reserved, used, free, max_used;
	int64_t used_blocks, free_blocks;
	uint32_t flags; /* CHQ_PLACEMENT_ESTIMATED */
	uint32_t first_map, n_maps;
	uint32_t first_block, n_blocks;
	uint32_t first_stat, n_stats;
};

#define CHQ_BLOCK_FREE		1u /* else used */
#define CHQ_BLOCK_TOP		2u /* from the largest-blocks table */
#define CHQ_BLOCK_PERMANENT_GAP 4u

struct chq_block {
	uint64_t addr;
	int64_t size, temperature, compile_id, gap, gap_blocks;
	uint32_t name, compiler; /* strings */
	uint8_t type;		 /* enum ch_block_type */
	int8_t level, state;	 /* -1: not known */
	uint32_t flags;		 /* CHQ_BLOCK_* */
};

/* The store's code-heap tables, each checked, copied out; the store must
 * stay open until chq_free(): the strings and the maps' cells are its.
 * <0 with e set when a table is damaged. */
int chq_open(struct store *s, struct chq **out, struct err *e);
void chq_free(struct chq *q);

uint32_t chq_n_snapshots(const struct chq *q);
const struct chq_snapshot *chq_snapshot(const struct chq *q, uint32_t i);
const char *chq_snapshot_source(const struct chq *q, uint32_t i);
const char *chq_str(const struct chq *q, uint32_t off);
/* A snapshot-wide stat by name; false when it has none. */
bool chq_snapshot_stat(const struct chq *q, uint32_t snap, const char *name,
		       int64_t *v);

uint32_t chq_n_heaps(const struct chq *q);
const struct chq_heap *chq_heap(const struct chq *q, uint32_t h);
bool chq_heap_stat(const struct chq *q, uint32_t h, const char *name,
		   int64_t *v);
/* The heap's blocks (a run of the store's table). */
const struct chq_block *chq_heap_blocks(const struct chq *q, uint32_t h,
					uint32_t *n);
const struct chq_block *chq_snapshot_blocks(const struct chq *q, uint32_t snap,
					    uint32_t *n);

#define CHQ_UNKNOWN INT64_MIN

struct ch_facts {
	int64_t capacity, used, free, largest_free, free_blocks;
	int64_t size;	     /* what used and free are parts of */
	const char *size_is; /* "committed" or "reserved" (static) */
	int64_t used_blocks, reserved, max_used;
	double fragmentation; /* NaN: not known */
	int64_t free_listed;  /* bytes in the free list; CHQ_UNKNOWN */
	int64_t largest_used;
	const char *largest_used_name; /* NULL when not known */
	/* what the report printed: maps (a "by tier" bundle is one), rows
	 * of the largest-blocks table, method-name rows, free-list rows */
	uint32_t maps, top_rows, named_rows, free_rows;
};

void chq_facts(const struct chq *q, uint32_t h, struct ch_facts *f);

/* Map flavours a front end can ask for. */
enum chq_flavour {
	CHQ_COUNT = 0, /* blocks per granule */
	CHQ_SPACE,     /* occupancy */
	CHQ_AGE,       /* youngest method's age class */
	CHQ_TIER,      /* which tiers occupy the granule */
	CHQ_TYPE,      /* block type (granule == segment) */
	CHQ__FLAVOURS
};

bool chq_flavour_parse(const char *s, enum chq_flavour *f);
/* The i-th name chq_flavour_parse() takes, NULL past the last. */
const char *chq_flavour_word(size_t i);
const char *chq_flavour_name(enum chq_flavour f);

/* Tier cell values for CHQ_TIER. */
enum chq_tier {
	CHQ_TIER_EMPTY = 0,
	CHQ_TIER_1,
	CHQ_TIER_2,
	CHQ_TIER_STUB,
	CHQ_TIER_MIXED,
};

/* A stored map of heap h: measure/part, the plain map first, then a
 * "by tier" bundle's component; NULL when the heap has neither. */
const uint8_t *chq_map(const struct chq *q, uint32_t h, enum ch_measure m,
		       enum ch_part p, uint32_t *n);

/*
 * Heap h's map in flavour f, each output cell merging `merge` granules
 * (1: as stored): counts add up (capped at 16), space is the mean fill,
 * age the youngest, tier and type "mixed" when they differ.  Returns the
 * number of cells written to out (room for ceil(n / merge)), 0 when the
 * heap has no map of that flavour.
 */
uint32_t chq_map_merged(const struct chq *q, uint32_t h, enum chq_flavour f,
			uint32_t merge, uint8_t *out, uint32_t room);

/* How many granules heap h's map in flavour f has (0: none).  Use this,
 * not the heap's n_granules, to size buffers: it is what is stored. */
uint32_t chq_map_len(const struct chq *q, uint32_t h, enum chq_flavour f);

/* One character per cell value, as the reports print them. */
char chq_cell_char(enum chq_flavour f, uint8_t v);

/* Everything known of granule g of heap h. */
struct ch_granule {
	uint64_t start, end;   /* address range; 0 when the base is unknown */
	int count, space, age; /* -1: no map; space: cell code */
	enum chq_tier tier;
	int type;			/* enum ch_block_type, -1 no map */
	uint32_t first_block, n_blocks; /* chq_sorted_block() indexes of
					   the blocks that overlap it */
};

/* Heap h's blocks by address (method-name rows and free blocks; the
 * largest-blocks table only when the report has no method names). */
uint32_t chq_n_sorted_blocks(const struct chq *q, uint32_t h);
const struct chq_block *chq_sorted_block(const struct chq *q, uint32_t h,
					 uint32_t k);

bool chq_granule(const struct chq *q, uint32_t h, uint64_t g,
		 struct ch_granule *out);

/* The heap of snapshot b that is "the same" as heap h of another
 * snapshot (by name; CodeCache == CodeHeap); UINT32_MAX when none. */
uint32_t chq_match_heap(const struct chq *q, uint32_t snap_b, uint32_t h);

/*
 * Are snapshots a and b texts of the same JVM (a != b, or the same)?
 * A code heap is reserved once, at start-up, at an address the process
 * chose: two texts that show a heap at the same start address, or a
 * code list whose methods lie inside the other text's heaps, are of
 * one JVM, unless jcmd's "PID:" lines above both name two processes.
 * Two code lists: the same pid, or a method at the same address with
 * the same compile id.  Holds while addresses differ between JVMs,
 * which address-space randomisation gives; two JVMs started alike
 * with it off may reserve the same addresses and read as one.
 */
bool chq_same_jvm(const struct chq *q, uint32_t a, uint32_t b);

/*
 * A code list's state numbers (nmethod::get_state(), printed by
 * CodeCache::print_codelist) by JDK: 17 to 22 number them as
 * compiledMethod.hpp's enum (0 in_use, 1 not_used, 2 not_entrant; 3
 * and 4, unloaded and zombie on 17-19, are not listed); JDK 23 folded
 * CompiledMethod into nmethod (JDK-8329332) whose enum has 0 in_use, 1
 * not_entrant (checked on 25).  A code list does not say its JDK;
 * chq_codelist_numbering() finds it from its own states (a 2 exists
 * only in the old numbering) or from a text of the same JVM
 * (chq_same_jvm) whose wording dates it (stats jdk.min, jdk.max: a
 * summary's JDK 23 wording, or a legend with zombies).
 */
enum chq_numbering {
	CHQ_NUM_UNKNOWN = 0,
	CHQ_NUM_JDK17, /* 17 to 22 */
	CHQ_NUM_JDK23, /* 23 and later */
};

enum chq_nm_state {
	CHQ_NM_IN_USE = 0,
	CHQ_NM_NOT_USED,    /* 17-22: not entrant, but revivable */
	CHQ_NM_NOT_ENTRANT, /* deoptimized: no new calls enter it */
	CHQ_NM_STATE1,	    /* 1 of an unknown numbering */
	CHQ_NM_OTHER,	    /* a number neither numbering lists */
	CHQ_NM__COUNT
};

/* Code list snap's numbering; *why (may be NULL) gets the snapshot
 * that told (snap itself when its own states did; UINT32_MAX when
 * none did). */
enum chq_numbering chq_codelist_numbering(const struct chq *q, uint32_t snap,
					  uint32_t *why);
enum chq_nm_state chq_nm_state(enum chq_numbering n, int state);
/* "in use", "not used", "not entrant", "not used (JDK 17-22) or not
 * entrant (23+)", "unknown" */
const char *chq_nm_state_name(enum chq_nm_state s);

#endif
