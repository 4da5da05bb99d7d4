/*
 * Private to the HotSpot code-heap importer (codeheap.c, the state
 * machine over the lexed lines; import_codeheap_map.c, the granule maps): the
 * import's state and what the two files call of each other.
 */
#ifndef HS_IMPORTERS_CODEHEAP_INT_H
#define HS_IMPORTERS_CODEHEAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/codeheap/codeheap_lex.h"
#include "importers/importer.h"
#include "record/sink.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* A growable array of n elements of a type. */
#define GROW(arr, n, cap)                                                    \
	do {                                                                 \
		if ((n) == (cap)) {                                          \
			(cap) = (cap) ? 2 * (cap) : 8;                       \
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr))); \
		}                                                            \
	} while (0)

enum section {
	SEC_NONE = 0,
	SEC_GENERAL,
	SEC_AGG,      /* (used blocks) ... up to (free blocks) */
	SEC_AGG_FREE, /* (free blocks) */
	SEC_USED,     /* U S E D   S P A C E */
	SEC_FREE,     /* F R E E   S P A C E */
	SEC_COUNT,    /* B L O C K   C O U N T S */
	SEC_SPACE,    /* S P A C E   U S A G E */
	SEC_AGE,      /* M E T H O D   A G E */
	SEC_NAMES,    /* M E T H O D   N A M E S */
	SEC_SKIP,     /* remarks, or a section we do not know */
};

enum sub {
	SUB_NONE = 0,
	SUB_GLOBAL,
	SUB_TOP,
	SUB_LEGEND,
	SUB_OTHER_LEGEND,
	SUB_FREELIST,
	SUB_TOPTEN,
	SUB_OTHER,
	SUB_MAP, /* a map's title was seen; lines follow */
};

#define CH_MAX_HEAPS 64

enum snap_kind { SNAP_NONE = 0, SNAP_ANALYTICS, SNAP_SUMMARY, SNAP_CODELIST };

struct heap_build {
	struct rec_ch_heap h;
	struct rec_ch_map *maps;
	uint32_t n_maps, cap_maps;
	struct rec_ch_block *blocks;
	uint32_t n_blocks, cap_blocks;
	struct rec_ch_stat *stats;
	uint32_t n_stats, cap_stats;
};

struct chi {
	const struct sink *sink;
	const struct import_env *env;
	struct ch_lexer lx;
	struct arena ar; /* the snapshot's strings and cells */
	uint64_t line;

	enum snap_kind kind;
	uint64_t snap_line;
	struct heap_build *heaps;
	uint32_t n_heaps, cap_heaps;
	struct rec_ch_stat *stats;
	uint32_t n_stats, cap_stats;
	struct rec_ch_block *blocks;
	uint32_t n_blocks, cap_blocks;
	uint32_t n_snapshots;
	bool closed;	   /* the report's closing timing line was seen */
	bool heaps_warned; /* CH_MAX_HEAPS reached in this snapshot */
	/* the JDK versions whose output the snapshot's own wording can be
	 * (stats jdk.min, jdk.max; 0: not told), and the pid of jcmd's
	 * "PID:" line above it in the file (0: none) */
	int jdk_min, jdk_max;
	int64_t pid;

	enum section sec;
	enum sub sub;
	int cur;      /* heap index, -1 none */
	int sum_heap; /* summary: the heap a bounds line belongs to */
	uint8_t legend[256];
	bool legend_set[256];
	size_t name_col, blob_col; /* from the last column header */

	/* the map being read */
	enum ch_measure m_measure;
	enum ch_part m_parts[3];
	int m_comps;	/* 1, or 3 / 2 for a "by tier" bundle */
	bool m_letters; /* cells may be block-type letters */
	struct buf m_cells[3];
	uint64_t m_line;
	bool m_warned;
	int err; /* a sink error */
};

/* A warning about line of the input (import_warn_line). */
void ch_warn(struct chi *c, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* import_codeheap_map.c: a map's title (t, len) begins a map of the current
 * heap; each line under it adds its cells; finish keeps the map when it
 * is whole (cut: the input ended in it), drop forgets it. */
void ch_map_begin(struct chi *c, const char *t, size_t len);
void ch_map_line(struct chi *c, const struct ch_line *l);
void ch_map_finish(struct chi *c, bool cut);
void ch_map_drop(struct chi *c);

#endif
