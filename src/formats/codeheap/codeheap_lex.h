/*
 * The grammar of HotSpot's code-cache texts: the CodeHeap_Analytics
 * report (jcmd Compiler.CodeHeap_Analytics, -XX:+PrintCodeHeapAnalytics),
 * the Compiler.codecache / PrintCodeCache summary and Compiler.codelist
 * (../shared/reference/codeheap-analytics.md; docs/formats/codeheap.md).
 *
 * This is the lexer only: ch_lex() says what one line is and pulls its
 * fields out, with no memory of the lines before it.  Which section a
 * line belongs to, and so what a granule-map line measures, is the
 * importer's state machine (src/importers/import_codeheap.c).
 *
 * The patterns are a static table compiled once per process with the
 * PCRE2 JIT (util/rx.h).  Fields are slices of the line (borrowed) and
 * integers; everything is checked for range, so any bytes at all are
 * safe to lex.
 */
#ifndef HS_CODEHEAP_FORMAT_H
#define HS_CODEHEAP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/rx.h"

enum ch_line_type {
	CHL_OTHER = 0, /* prose, or anything not listed here */
	CHL_BLANK,
	CHL_NOISE,	  /* "[1.2s][warning]..." log lines, VM warnings, pid */
	CHL_BORDER,	  /* "=====" or "+-----+" */
	CHL_MAJOR,	  /* "=  TITLE  =": text */
	CHL_MINOR,	  /* "|  TITLE  |": text */
	CHL_GENERAL,	  /* "   General JIT info   " */
	CHL_JIT_IS,	  /* a = 1 on, 0 off */
	CHL_THREADS,	  /* a */
	CHL_CACHE_SIZE,	  /* text = "Reserved size"...; a = KB */
	CHL_TIMING,	  /* text = what; total = the closing line */
	CHL_COMMITTED,	  /* a = committed K, b = reserved K, c = occupied % */
	CHL_SEGMENT,	  /* a = segment size */
	CHL_GRANULES,	  /* a = count, b = size */
	CHL_STAT,	  /* text = name ("freeSpace"), a = K, b = blocks */
	CHL_ZOMBIE,	  /* a */
	CHL_SEG_START,	  /* addr */
	CHL_SEG_END,	  /* addr */
	CHL_SEG_RESERVED, /* addr */
	CHL_COMPILE_ID,	  /* text = "latest allocated" ...; a */
	CHL_HOTNESS,	  /* text = "min" "avg" "max"; a */
	CHL_FREE_COUNT,	  /* "Free space in H is distributed over N": a */
	CHL_LEGEND,	  /* letter; text = the type's name */
	CHL_LEGEND_END,	  /* "  -------" closing a legend */
	CHL_HEADER,	  /* "Addr(module)  offset  size ...": text = line */
	CHL_ROW,      /* "0x... (+0x...) rest": addr, a = offset, text = rest */
	CHL_MAP,      /* "0x... (+0x...): |cells|": addr, a = offset, text */
	CHL_FREE,     /* free list: addr, a = index, b = len, c = gap,
			    d = gap blocks (c < 0: last), flag = permanent */
	CHL_TOPTEN,   /* a = pos, b = block, c = size */
	CHL_RANGE,    /* "Address range [lo,hi), Nk": addr, addr2 */
	CHL_NO_MAP,   /* "No Tier1 nMethods found in CodeHeap." */
	CHL_NO_DATA,  /* "No aggregated data available ...": a print step
			 with nothing aggregated for a heap (JDK 21+ also
			 in an "all" report, for a heap with no free
			 block), the VM's normal answer, not damage */
	CHL_FUNCTION, /* a refused or unknown function: text */
	CHL_SUM_HEAP, /* summary heap: text = name; a size b used
			    c max_used d free (KB) */
	CHL_SUM_TOTAL,	 /* 23+: "CodeCache: size=..., used=..." (a..d) */
	CHL_BOUNDS,	 /* addr, addr2, addr3 */
	CHL_BLOBS,	 /* a total_blobs, b nmethods, c adapters, d full
			    count (-1 absent) */
	CHL_COMPILATION, /* text = state; a, b = stopped, restarted or -1 */
	CHL_STOPPED,	 /* a, b */
	CHL_FULL_COUNT,	 /* a */
	CHL_CODELIST,	 /* a id, b level, c state, text name, addr, addr2,
			    addr3 */
	CHL__COUNT
};

struct ch_line {
	enum ch_line_type type;
	const char *text; /* a slice of the line */
	size_t text_len;
	int64_t a, b, c, d;
	uint64_t addr, addr2, addr3;
	char letter;
	bool flag;
};

struct ch_lexer {
	struct rx_match m;
};

void ch_lexer_init(struct ch_lexer *lx);
void ch_lexer_release(struct ch_lexer *lx);

/* Classify line[0..len) (no newline) and fill out. */
void ch_lex(struct ch_lexer *lx, const char *line, size_t len,
	    struct ch_line *out);

/* Does title (a box's text) start with prefix?  If so, *rest is what
 * follows it (a heap name, for the titles that end with one). */
bool ch_title(const char *title, size_t len, const char *prefix,
	      const char **rest, size_t *rest_len);

#endif
