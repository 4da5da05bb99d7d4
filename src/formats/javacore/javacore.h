/*
 * The OpenJ9 / IBM J9 javacore grammar (docs/formats/javacore.md, which
 * says which lines are read and where real files differ from the writer's
 * layout).
 *
 * Input-independent: the caller feeds it one line at a time (without the
 * newline) and it keeps what the memory sections say: the dump time and
 * JVM lines, the NATIVEMEMINFO category tree and MEMINFO's object heap
 * and segment blocks with their printed totals.  It tracks the current
 * 0SECTION and reads each memory line only inside its own section, so
 * look-alike trees elsewhere (THREADS' CPU categories) are ignored.
 *
 * It does not build records, sort segments or decide which time to
 * trust: that is the importer's job.  It keeps the segments of the JIT
 * code and data caches only (the class blocks run to tens of thousands
 * of lines and only their sums matter).  Problems go to a warning
 * callback with the line they were seen on; bad input never stops it.
 *
 * Depends on src/util only, so it can be fuzzed alone.  Every string it
 * keeps lives in the arena given to jc_parser_init(); the arrays are
 * owned by the parser until jc_parser_release().
 */
#ifndef HS_JAVACORE_H
#define HS_JAVACORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct arena;

#define JC_NONE INT64_MIN /* a value the javacore did not print */

/* Limits against hostile inputs; reaching one is a warning. */
#define JC_MAX_TYPES	     64	   /* 1STSEGTYPE blocks kept */
#define JC_MAX_KEPT_SEGMENTS 4096  /* segments kept per JIT cache block */
#define JC_MAX_DEPTH	     9	   /* the tag's digit: 1..9 */
#define JC_MAX_NAME	     256   /* bytes of a native category name */
#define JC_MAX_NATIVE_ROWS   10000 /* categories kept */

/* --- single lines ------------------------------------------------------ */

/* A line split into its tag and its content. */
struct jc_line {
	const char *tag; /* "1STSEGMENT", "NULL" */
	size_t tag_len;
	const char *content; /* after the tag's padding; may be empty */
	size_t content_len;
	int level; /* the tag's leading digit; -1 for NULL */
};

/* False when s is not a javacore tag line. */
bool jc_split(const char *s, size_t len, struct jc_line *l);
/* The tag is exactly name. */
bool jc_tag_is(const struct jc_line *l, const char *name);

struct jc_segment {
	uint64_t id; /* the segment descriptor's address */
	uint64_t start, alloc, end;
	uint64_t type; /* flags */
	uint64_t size; /* as printed: end - start, plus a header for some */
};

/* A 1STSEGMENT line's content; false when it is not six hex fields. */
bool jc_parse_segment(const char *s, size_t len, struct jc_segment *seg);

/* "Total memory:  N (0xH)" and the like; *hex_ok says N == H. */
bool jc_parse_amount(const char *s, size_t len, int64_t *v, bool *hex_ok);

/* One NATIVEMEMINFO row's content ("|  +--JIT: 1,234 bytes / 5
 * allocations").  Returns 1 for a category row, 0 for a connector row
 * ("|  |") and -1 for anything else.  *depth is what the drawing says:
 * 1 for the root, 2 for "+--", 3 for "|  +--"... */
struct jc_memuser {
	int depth;
	const char *name;
	size_t name_len;
	int64_t bytes, allocations;
};
int jc_parse_memuser(const char *s, size_t len, struct jc_memuser *u);

/* "Date: 2022/06/06 at 11:44:58:407" (optionally " (UTC)"): the wall
 * clock as if it were UTC, in ns since the epoch. */
bool jc_parse_date(const char *s, size_t len, int64_t *ns);

/* --- the parser -------------------------------------------------------- */

enum jc_section {
	JC_SEC_NONE = 0, /* before the first 0SECTION */
	JC_SEC_OTHER,
	JC_SEC_NATIVEMEMINFO,
	JC_SEC_MEMINFO,
	JC_SEC_END, /* "Javadump End section" */
};

/* One 1STSEGTYPE block. */
struct jc_memtype {
	const char *name; /* "JIT Code Cache", as printed */
	uint64_t line;
	uint64_t n_segments;
	/* sums over the segments, saturated at UINT64_MAX */
	uint64_t sum_size, sum_span, sum_used, sum_free;
	int64_t total, in_use, free, limit; /* printed; JC_NONE */
	uint64_t total_line, in_use_line, free_line;
	bool keep; /* the segments below are kept (JIT caches) */
	struct jc_segment *segs;
	size_t n_segs, alloc_segs;
	bool dropped; /* more than JC_MAX_KEPT_SEGMENTS */
};

/* One NATIVEMEMINFO category, in file order. */
struct jc_native {
	const char *path; /* names from the root joined by '/' */
	int depth;
	int64_t bytes, allocations;
	uint64_t line;
};

/* A problem at a line (0: at the end of the input). */
typedef void (*jc_warn_fn)(void *ctx, enum err_code code, uint64_t line,
			   const char *msg);

struct jc_parser {
	struct arena *arena;
	jc_warn_fn warn;
	void *warn_ctx;
	void *rx; /* struct rx_match, owned */

	uint64_t line; /* lines fed so far */
	uint64_t n_tagged;
	enum jc_section section;
	uint64_t section_line;
	uint64_t meminfo_line, meminfo_end; /* 0: none / not ended */
	uint64_t native_line;
	bool meminfo_done, native_done; /* the first one has ended */
	bool end_seen;
	bool gc_history; /* MEMINFO's 1STGCHTYPE reached */

	/* TITLE and ENVINFO */
	int64_t time_local_ns, time_utc_ns; /* JC_NONE */
	uint64_t time_local_line, time_utc_line;
	const char *java_version, *vm_version; /* NULL */

	/* MEMINFO object heap */
	uint64_t n_heap_spaces, n_heap_regions;
	int64_t heap_total, heap_in_use, heap_free; /* JC_NONE */
	bool heap_seen;

	/* MEMINFO segment blocks, in file order */
	struct jc_memtype *types;
	size_t n_types;
	struct jc_memtype *cur; /* the block being read; NULL: none */

	/* NATIVEMEMINFO */
	struct jc_native *natives;
	size_t n_natives, alloc_natives;
	const char *stack[JC_MAX_DEPTH + 1]; /* path at each depth */
	int stack_depth;		     /* 0: no root yet */
};

void jc_parser_init(struct jc_parser *p, struct arena *a, jc_warn_fn warn,
		    void *ctx);
/* One line, without its newline (a "\r" before it is tolerated). */
void jc_parser_line(struct jc_parser *p, const char *s, size_t len);
/* The input has ended: warns about sections cut short. */
void jc_parser_finish(struct jc_parser *p);
void jc_parser_release(struct jc_parser *p);

/* The block named name, or NULL. */
const struct jc_memtype *jc_parser_type(const struct jc_parser *p,
					const char *name);

/* "mem.<key>" for a block name: internal, class, jit_code, jit_data,
 * object; else the name in lower case with runs of other bytes as '_'.
 * Written to out (size >= 64), cut to fit. */
void jc_memtype_key(const char *name, char *out, size_t size);

#endif
