/*
 * The JFR chunk decoder's own declarations, shared by its three files
 * and by nothing else (jfr.h is the interface):
 *
 *   jfr.c        a chunk's life, its header, opening it (the three
 *                passes over its event headers) and reading its events;
 *   jfr_meta.c   the metadata event, decoded into the type table, and
 *                the heap events' fields compiled for the event loop;
 *   jfr_const.c  values read generically, strings, the constant pools
 *                and the constants resolved from them (classes, stacks,
 *                threads, ...), cached for the chunk.
 *
 * The bounded reader below is inline here because every file reads with
 * it, and the event loop's speed depends on it being inlined.
 */
#ifndef HS_FORMATS_JFR_INT_H
#define HS_FORMATS_JFR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/jfr/jfr.h"
#include "util/arena.h"
#include "util/err.h"
#include "util/hash.h"

#define NO_TYPE	    UINT32_MAX
#define MAX_DEPTH   32 /* nesting of inline structs, hostile input */
#define MAX_CAPTURE 24 /* fields of a constant type we look at */

/* --- the bounded reader ------------------------------------------------ */

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static inline void rd_init(struct rd *r, const unsigned char *p,
			   const unsigned char *end)
{
	r->p = p;
	r->end = end;
	r->bad = false;
}

static inline size_t rd_left(const struct rd *r)
{
	return (size_t)(r->end - r->p);
}

/*
 * A varint with no bounds check: the caller made sure 9 bytes remain.
 * Little-endian groups of 7 bits, the ninth byte carrying 8; padded
 * (non-minimal) forms are legal.  Unrolled: most values take one to
 * three bytes, and a loop with a variable shift costs twice as much.
 */
static inline uint64_t varint_unchecked(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint64_t v = p[0], b;

	if (v < 0x80) {
		*pp = p + 1;
		return v;
	}
	v &= 0x7f;
#define VARINT_BYTE(n)                \
	b = p[n];                     \
	v |= (b & 0x7f) << (7 * (n)); \
	if (b < 0x80) {               \
		*pp = p + (n) + 1;    \
		return v;             \
	}
	VARINT_BYTE(1)
	VARINT_BYTE(2)
	VARINT_BYTE(3)
	VARINT_BYTE(4)
	VARINT_BYTE(5)
	VARINT_BYTE(6)
	VARINT_BYTE(7)
#undef VARINT_BYTE
	*pp = p + 9;
	return v | (uint64_t)p[8] << 56;
}

/* The same, bounded by the reader's end. */
static inline __attribute__((always_inline)) uint64_t rd_varint(struct rd *r)
{
	const unsigned char *p = r->p;
	uint64_t v = 0, b;
	unsigned i;

	if (rd_left(r) >= 9)
		return varint_unchecked(&r->p);
	for (i = 0; i < 8; i++) {
		if (p >= r->end)
			goto bad;
		b = *p++;
		v |= (b & 0x7f) << (7 * i);
		if (b < 0x80) {
			r->p = p;
			return v;
		}
	}
	if (p >= r->end)
		goto bad;
	r->p = p + 1;
	return v | (uint64_t)*p << 56;
bad:
	r->bad = true;
	r->p = r->end;
	return 0;
}

static inline uint8_t rd_u1(struct rd *r)
{
	if (r->p >= r->end) {
		r->bad = true;
		return 0;
	}
	return *r->p++;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if (n > rd_left(r)) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	r->p += n;
}

static inline uint64_t be(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* A string as it lies in the chunk: decoded only when asked for. */
struct jstr {
	const unsigned char *p;
	uint64_t len;	 /* bytes (3, 5) or UTF-16 units (4) */
	uint64_t nbytes; /* bytes the units take (4) */
	uint64_t key;	 /* encoding 2 */
	uint8_t enc; /* 0 null, 1 empty, 2 pool, 3 UTF-8, 4 UTF-16, 5 Latin-1 */
};

static inline void rd_string(struct rd *r, struct jstr *s)
{
	uint64_t i;

	s->enc = rd_u1(r);
	s->len = 0;
	s->p = r->p;
	switch (s->enc) {
	case 0:
	case 1:
		break;
	case 2:
		s->key = rd_varint(r);
		break;
	case 3:
	case 5:
		s->len = rd_varint(r);
		s->p = r->p;
		rd_skip(r, s->len);
		break;
	case 4:
		s->len = rd_varint(r);
		s->p = r->p;
		/* each unit takes at least one byte */
		if (s->len > rd_left(r)) {
			r->bad = true;
			r->p = r->end;
			break;
		}
		for (i = 0; i < s->len && !r->bad; i++)
			rd_varint(r);
		s->nbytes = (uint64_t)(r->p - s->p);
		break;
	default:
		r->bad = true;
		r->p = r->end;
	}
}

/* --- the type table ---------------------------------------------------- */

enum prim {
	P_NONE = 0,
	P_BOOLEAN,
	P_BYTE,
	P_CHAR,
	P_SHORT,
	P_INT,
	P_LONG,
	P_FLOAT,
	P_DOUBLE,
	P_STRING,
};

struct field {
	const char *name;
	uint64_t type_id;
	uint32_t type; /* index into types, NO_TYPE when unknown */
	bool array, cp;
	int8_t slot; /* enum jfr_slot for event fields, -1 otherwise */
};

/* An event type's fields compiled for the hot loop of jfr_chunk_next. */
enum opcode {
	OP_VARINT,
	OP_U1,
	OP_F4,
	OP_F8,
	OP_STRING,
	OP_HEAPSPACE,
	OP_SKIP
};

struct op {
	uint8_t code;
	int8_t slot;   /* enum jfr_slot, -1: read and drop */
	int8_t ci, ri; /* OP_HEAPSPACE: committedSize, reservedSize */
	bool array, cp;
	uint32_t type;
};

struct type {
	uint64_t id;
	const char *name;
	const char *super;
	struct field *fields;
	uint32_t n_fields;
	enum prim prim;
	enum jfr_kind kind;
	int pool;	/* enum pool_id, -1 when not indexed */
	bool readable;	/* every field's type is known, recursively */
	struct op *ops; /* kinds heapsift reads: the fields, compiled */
	uint32_t n_ops;
	bool all_varint;   /* every op is OP_VARINT: the fast loop */
	uint32_t have_all; /* the slots the ops fill */
	uint8_t *dest;	   /* per op: the slot, or JS__COUNT to drop */
	bool zero_size;	   /* a struct whose values take no bytes */
};

enum pool_id {
	POOL_THREAD,
	POOL_STACK,
	POOL_CLASS,
	POOL_METHOD,
	POOL_SYMBOL,
	POOL_FRAMETYPE,
	POOL_STRING,
	POOL_OLDOBJECT,
	POOL_GCROOT,
	POOL_ROOTSYSTEM,
	POOL_ROOTTYPE,
	POOL_GCWHEN,
	POOL_GCNAME,
	POOL_GCCAUSE,
	POOL_G1YCTYPE,
	POOL__COUNT
};

/* Field positions in the constant types, found by name (-1: absent). */
struct hot_fields {
	int st_truncated, st_frames;
	int fr_method, fr_line, fr_bci, fr_type;
	int me_type, me_name, me_descriptor, me_hidden;
	int cl_name, cl_hidden;
	int sy_string;
	int ft_description;
	int th_os_name, th_os_id, th_java_name, th_java_id, th_virtual;
	int oo_type;
	int gr_description, gr_system, gr_type;
	int rs_system, rt_type, gw_when;
	int gn_name, gc_cause, g1_type;
};

struct jfr_chunk {
	struct arena meta;   /* the type table and its names */
	struct arena consts; /* resolved constants and strings */
	const unsigned char *data;
	size_t avail;
	uint64_t limit; /* min(header size, avail) */
	struct jfr_header h;
	unsigned chunk_no;
	uint64_t file_offset;
	struct jfr_timebase tb; /* from the header */

	struct type *types;
	uint32_t n_types, alloc_types;
	struct u64map type_by_id;
	uint32_t *small_ids; /* id -> type index for ids below n_small */
	uint32_t n_small;
	/* the metadata event the type table was built from: a chunk whose
	 * metadata is byte for byte the same reuses the table */
	unsigned char *meta_bytes;
	size_t meta_len;
	bool meta_valid;
	enum jfr_writer writer; /* from the type table: link_types() */
	uint32_t pool_type[POOL__COUNT];
	struct hot_fields hf;

	uint64_t *checkpoints; /* chunk offsets */
	size_t n_checkpoints, alloc_checkpoints;

	struct u64map pools[POOL__COUNT]; /* key -> chunk offset of value */
	struct u64map cache[POOL__COUNT]; /* key -> resolved pointer */
	uint64_t last_key[POOL__COUNT];	  /* the last hit, checked first: */
	void *last_val[POOL__COUNT];	  /* events repeat threads, stacks */

	struct jfr_frame_ref *refs; /* jfr_stack()'s, from jfr_stack_refs() */
	size_t alloc_refs;

	uint64_t pos, end;
	char lost[256];
	bool has_lost;
	struct jfr_class unknown_class;
};

/* jfr_meta.c: the type table from the metadata event at chunk offset
 * off (framed by the first pass).  0, or <0 with e set at the event's
 * file offset: the chunk's events cannot be read. */
int jfr_parse_metadata(struct jfr_chunk *c, uint64_t off, struct err *e);

/* jfr_const.c: a value of type t skipped (array: an array of them; cp:
 * a constant pool key); depth counts the structs it is inside.  A
 * struct past MAX_DEPTH, a type not known or not readable, or a read
 * past r's end: r->bad. */
void jfr_skip_value(const struct jfr_chunk *c, struct rd *r, uint32_t t,
		    bool array, bool cp, int depth);
/* The scalar and string fields of one struct value, by field index. */
struct capture {
	uint64_t v[MAX_CAPTURE];
	struct jstr s[MAX_CAPTURE];
};
/* The struct value of type t at r into cap, by field index: scalars and
 * constant keys in v, strings in s; fields past MAX_CAPTURE, arrays and
 * inline structs skipped, left zero.  A type not readable: r->bad. */
void jfr_capture_struct(const struct jfr_chunk *c, struct rd *r, uint32_t t,
			struct capture *cap);
/* A string value as UTF-8 in arena a; NULL for the null string. */
char *jfr_decode_jstr(struct jfr_chunk *c, struct arena *a,
		      const struct jstr *s, int depth);
/* The constant pools of the checkpoint event at chunk offset off
 * indexed (key -> offset of its value).  0, or <0 with e set at the
 * file offset: a pool of an unknown type, or damage (the keys before it
 * stay indexed). */
int jfr_parse_checkpoint(struct jfr_chunk *c, uint64_t off, struct err *e);

#endif
