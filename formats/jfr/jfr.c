/*
 * The JFR chunk decoder declared in jfr.h.
 *
 * Opening a chunk makes three passes over its event headers, none of
 * which decodes a payload it does not need: the first checks the framing
 * (sizes) and finds the metadata and checkpoint events, the second
 * decodes the metadata into a type table, the third indexes the constant
 * pools of the types heap analysis resolves (key -> offset).  Events are
 * then read one by one by jfr_chunk_next(); constants are decoded the
 * first time an event refers to them and cached for the chunk.
 *
 * All reads go through struct rd, which carries its end and a sticky
 * "bad" flag: a read past the end yields zeros and sets the flag, and the
 * caller checks the flag once per event or pool entry.  That keeps the
 * hot path free of error plumbing without ever reading out of bounds.
 */
#include "formats/jfr/jfr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/size.h"
#include "util/xalloc.h"

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

static uint64_t be(const unsigned char *p, unsigned n)
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

static void rd_string(struct rd *r, struct jstr *s)
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
	POOL__COUNT
};

static const char *const pool_type_name[POOL__COUNT] = {
	"java.lang.Thread",
	"jdk.types.StackTrace",
	"java.lang.Class",
	"jdk.types.Method",
	"jdk.types.Symbol",
	"jdk.types.FrameType",
	"java.lang.String",
	"jdk.types.OldObject",
	"jdk.types.OldObjectGcRoot",
	"jdk.types.OldObjectRootSystem",
	"jdk.types.OldObjectRootType",
	"jdk.types.GCWhen",
};

static const struct {
	const char *name;
	enum jfr_kind kind;
} event_kinds[] = {
	{"jdk.ObjectAllocationSample", JFR_ALLOC_SAMPLE},
	{"jdk.ObjectAllocationInNewTLAB", JFR_TLAB_NEW},
	{"jdk.ObjectAllocationOutsideTLAB", JFR_TLAB_OUTSIDE},
	{"jdk.OldObjectSample", JFR_OLD_OBJECT},
	{"jdk.GCHeapSummary", JFR_HEAP_SUMMARY},
	{"jdk.ActiveSetting", JFR_ACTIVE_SETTING},
	{"jdk.JVMInformation", JFR_JVM_INFO},
};

/* Field names to slots; the same name means the same thing in every
 * heap event. */
static const struct {
	const char *name;
	enum jfr_slot slot;
} slot_names[] = {
	{"startTime", JS_START},
	{"duration", JS_DURATION},
	{"eventThread", JS_THREAD},
	{"stackTrace", JS_STACK},
	{"objectClass", JS_CLASS},
	{"weight", JS_WEIGHT},
	{"allocationSize", JS_ALLOC_SIZE},
	{"tlabSize", JS_TLAB_SIZE},
	{"allocationTime", JS_ALLOC_TIME},
	{"objectAge", JS_OBJECT_AGE},
	{"objectSize", JS_OBJECT_SIZE},
	{"lastKnownHeapUsage", JS_HEAP_USAGE},
	{"object", JS_OBJECT},
	{"arrayElements", JS_ARRAY_ELEMS},
	{"root", JS_ROOT},
	{"gcId", JS_GC_ID},
	{"when", JS_WHEN},
	{"heapSpace", JS_COMMITTED}, /* inline struct: see decode_event */
	{"heapUsed", JS_HEAP_USED},
	{"id", JS_SETTING_ID},
	{"name", JS_NAME},
	{"value", JS_VALUE},
	{"jvmName", JS_JVM_NAME},
	{"jvmVersion", JS_JVM_VERSION},
};

static bool slot_is_string(int slot)
{
	return slot == JS_NAME || slot == JS_VALUE || slot == JS_JVM_NAME ||
	       slot == JS_JVM_VERSION;
}

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
	uint32_t pool_type[POOL__COUNT];
	struct hot_fields hf;

	uint64_t *checkpoints; /* chunk offsets */
	size_t n_checkpoints, alloc_checkpoints;

	struct u64map pools[POOL__COUNT]; /* key -> chunk offset of value */
	struct u64map cache[POOL__COUNT]; /* key -> resolved pointer */
	uint64_t last_key[POOL__COUNT];	  /* the last hit, checked first: */
	void *last_val[POOL__COUNT];	  /* events repeat threads, stacks */

	uint64_t pos, end;
	char lost[256];
	bool has_lost;
	struct jfr_class unknown_class;
};

struct jfr_chunk *jfr_chunk_new(void)
{
	struct jfr_chunk *c = xcalloc(1, sizeof(*c));
	int i;

	arena_init(&c->meta, 256 * 1024);
	arena_init(&c->consts, 256 * 1024);
	u64map_init(&c->type_by_id);
	for (i = 0; i < POOL__COUNT; i++) {
		u64map_init(&c->pools[i]);
		u64map_init(&c->cache[i]);
	}
	c->unknown_class.raw = "unknown";
	c->unknown_class.display = "unknown";
	return c;
}

void jfr_chunk_free(struct jfr_chunk *c)
{
	int i;

	if (!c)
		return;
	arena_release(&c->meta);
	arena_release(&c->consts);
	u64map_release(&c->type_by_id);
	for (i = 0; i < POOL__COUNT; i++) {
		u64map_release(&c->pools[i]);
		u64map_release(&c->cache[i]);
	}
	free(c->types);
	free(c->checkpoints);
	free(c->small_ids);
	free(c->meta_bytes);
	free(c);
}

const struct jfr_header *jfr_chunk_header(const struct jfr_chunk *c)
{
	return &c->h;
}

uint64_t jfr_chunk_consistent_end(const struct jfr_chunk *c)
{
	return c->end;
}

const char *jfr_chunk_lost_reason(const struct jfr_chunk *c)
{
	return c->has_lost ? c->lost : NULL;
}

/* --- the header -------------------------------------------------------- */

int jfr_header_parse_frame(const unsigned char *p, size_t len,
			   struct jfr_header *h, struct err *e)
{
	if (len < JFR_HEADER_LEN)
		return err_set_at(
			e, ERR_TRUNC, 0,
			"jfr: %zu bytes are too few for a chunk header "
			"(68)",
			len);
	if (memcmp(p, JFR_MAGIC, JFR_MAGIC_LEN) != 0)
		return err_set_at(
			e, ERR_FORMAT, 0,
			"jfr: no chunk here (magic is not \"FLR\\0\")");
	h->major = (uint16_t)be(p + 4, 2);
	h->minor = (uint16_t)be(p + 6, 2);
	if (h->major != JFR_MAJOR_SUPPORTED)
		return err_set_at(e, ERR_UNSUPPORTED, 4,
				  "jfr: file format %u.%u is not supported "
				  "(JDK 11+ writes 2.x; 1.x is JDK 7/8's)",
				  h->major, h->minor);
	h->size = be(p + 8, 8);
	h->cp_offset = be(p + 16, 8);
	h->meta_offset = be(p + 24, 8);
	h->start_ns = (int64_t)be(p + 32, 8);
	h->duration_ns = (int64_t)be(p + 40, 8);
	h->start_ticks = (int64_t)be(p + 48, 8);
	h->ticks_per_sec = (int64_t)be(p + 56, 8);
	h->state = h->minor >= 1 ? p[64] : 0;
	h->flags = (uint16_t)be(p + 66, 2);
	if (h->size < JFR_HEADER_LEN)
		return err_set_at(e, ERR_FORMAT, 8,
				  "jfr: chunk size %llu is smaller than its "
				  "header",
				  (unsigned long long)h->size);
	if (!(h->flags & 1))
		return err_set_at(e, ERR_UNSUPPORTED, 66,
				  "jfr: chunk without compressed integers "
				  "(flags 0x%x): not written by HotSpot",
				  h->flags);
	if (h->ticks_per_sec <= 0)
		return err_set_at(e, ERR_FORMAT, 56,
				  "jfr: ticks per second %lld is not positive",
				  (long long)h->ticks_per_sec);
	if (h->flags & 4)
		return err_set_at(e, ERR_UNSUPPORTED, 66,
				  "jfr: chunk uses compressed ticks (flags "
				  "0x%x), which heapsift does not read",
				  h->flags);
	return 0;
}

static int check_offsets(const struct jfr_header *h, struct err *e)
{
	if (!h->cp_offset || !h->meta_offset)
		return err_set_at(e, ERR_TRUNC, 16,
				  "jfr: nothing was flushed into this chunk "
				  "(its checkpoint or metadata offset is 0)");
	if (h->cp_offset < JFR_HEADER_LEN || h->cp_offset >= h->size)
		return err_set_at(
			e, ERR_FORMAT, 16,
			"jfr: checkpoint offset %llu lies outside the "
			"chunk (68..%llu)",
			(unsigned long long)h->cp_offset,
			(unsigned long long)h->size - 1);
	if (h->meta_offset < JFR_HEADER_LEN || h->meta_offset >= h->size)
		return err_set_at(e, ERR_FORMAT, 24,
				  "jfr: metadata offset %llu lies outside the "
				  "chunk (68..%llu)",
				  (unsigned long long)h->meta_offset,
				  (unsigned long long)h->size - 1);
	return 0;
}

int jfr_header_parse(const unsigned char *p, size_t len, struct jfr_header *h,
		     struct err *e)
{
	if (jfr_header_parse_frame(p, len, h, e) < 0)
		return ERR_FAIL;
	return check_offsets(h, e);
}

/* --- metadata ------------------------------------------------------------ */

/* What a metadata string means as an element name or attribute key,
 * worked out once per string instead of once per use. */
enum meta_word {
	MW_OTHER = 0,
	MW_CLASS,
	MW_FIELD,
	MW_NAME,
	MW_ID,
	MW_SUPER,
	MW_TYPE, /* the "class" attribute of a field */
	MW_DIM,
	MW_CP,
};

struct meta_parse {
	struct jfr_chunk *c;
	struct rd r;
	const char **strings;
	unsigned char *words; /* enum meta_word per string */
	uint64_t n_strings;
	struct field *fields; /* fields of the class being read */
	size_t n_fields, alloc_fields;
	int error;
};

static const char *meta_string(struct meta_parse *m, uint64_t idx)
{
	if (idx >= m->n_strings) {
		m->r.bad = true;
		return "";
	}
	return m->strings[idx];
}

static char *decode_jstr(struct jfr_chunk *c, struct arena *a,
			 const struct jstr *s, int depth);

static uint32_t add_type(struct jfr_chunk *c)
{
	if (c->n_types == c->alloc_types) {
		c->alloc_types = c->alloc_types ? c->alloc_types * 2 : 128;
		c->types = xreallocarray(c->types, c->alloc_types,
					 sizeof(*c->types));
	}
	memset(&c->types[c->n_types], 0, sizeof(c->types[0]));
	c->types[c->n_types].pool = -1;
	return c->n_types++;
}

static void parse_element(struct meta_parse *m, int depth, int in_class,
			  uint32_t cur_type);

/* One element: name, attributes, children.  "class" makes a type,
 * "field" inside a class adds a field; everything else is walked. */
static void parse_element(struct meta_parse *m, int depth, int in_class,
			  uint32_t cur_type)
{
	struct rd *r = &m->r;
	const char *name, *attr_name = NULL, *attr_id = NULL,
			  *attr_super = NULL, *attr_class = NULL,
			  *attr_dim = NULL, *attr_cp = NULL;
	uint64_t n_attrs, n_children, i, idx;
	bool is_class, is_field;

	if (depth > MAX_DEPTH) {
		r->bad = true;
		return;
	}
	idx = rd_varint(r);
	name = meta_string(m, idx);
	is_class = !r->bad && m->words[idx] == MW_CLASS;
	is_field = in_class && !r->bad && m->words[idx] == MW_FIELD;
	(void)name;
	n_attrs = rd_varint(r);
	if (n_attrs > rd_left(r)) {
		r->bad = true;
		return;
	}
	for (i = 0; i < n_attrs && !r->bad; i++) {
		uint64_t k = rd_varint(r);
		const char *v = meta_string(m, rd_varint(r));

		if (r->bad || k >= m->n_strings)
			break;
		switch (m->words[k]) {
		case MW_NAME:
			attr_name = v;
			break;
		case MW_ID:
			attr_id = v;
			break;
		case MW_SUPER:
			attr_super = v;
			break;
		case MW_CLASS: /* as an attribute key: the field's type */
		case MW_TYPE:
			attr_class = v;
			break;
		case MW_DIM:
			attr_dim = v;
			break;
		case MW_CP:
			attr_cp = v;
			break;
		default:
			break;
		}
	}
	if (r->bad)
		return;
	if (is_class) {
		cur_type = add_type(m->c);
		m->c->types[cur_type].id =
			attr_id ? strtoull(attr_id, NULL, 10) : UINT64_MAX;
		m->c->types[cur_type].name = attr_name ? attr_name : "";
		m->c->types[cur_type].super = attr_super;
		m->n_fields = 0;
	} else if (is_field) {
		struct field *f;

		if (m->n_fields == m->alloc_fields) {
			m->alloc_fields =
				m->alloc_fields ? m->alloc_fields * 2 : 16;
			m->fields = xreallocarray(m->fields, m->alloc_fields,
						  sizeof(*m->fields));
		}
		f = &m->fields[m->n_fields++];
		f->name = attr_name ? attr_name : "";
		f->type_id = attr_class ? strtoull(attr_class, NULL, 10)
					: UINT64_MAX;
		f->type = NO_TYPE;
		f->array = attr_dim && strcmp(attr_dim, "0") != 0;
		f->cp = attr_cp != NULL;
		f->slot = -1;
	}
	n_children = rd_varint(r);
	if (n_children > rd_left(r)) {
		r->bad = true;
		return;
	}
	for (i = 0; i < n_children && !r->bad; i++)
		parse_element(m, depth + 1, is_class, cur_type);
	if (is_class && !r->bad) {
		struct type *t = &m->c->types[cur_type];

		t->n_fields = (uint32_t)m->n_fields;
		t->fields =
			arena_calloc(&m->c->meta, m->n_fields ? m->n_fields : 1,
				     sizeof(struct field));
		if (m->n_fields)
			memcpy(t->fields, m->fields,
			       m->n_fields * sizeof(struct field));
		m->n_fields = 0;
	}
}

static enum prim prim_of(const char *name)
{
	static const struct {
		const char *name;
		enum prim prim;
	} prims[] = {
		{"boolean", P_BOOLEAN},
		{"byte", P_BYTE},
		{"char", P_CHAR},
		{"short", P_SHORT},
		{"int", P_INT},
		{"long", P_LONG},
		{"float", P_FLOAT},
		{"double", P_DOUBLE},
		{"java.lang.String", P_STRING},
	};
	size_t i;

	for (i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (!strcmp(name, prims[i].name))
			return prims[i].prim;
	return P_NONE;
}

static int field_index(const struct jfr_chunk *c, uint32_t type,
		       const char *name)
{
	uint32_t i;

	if (type == NO_TYPE)
		return -1;
	for (i = 0; i < c->types[type].n_fields && i < MAX_CAPTURE; i++)
		if (!strcmp(c->types[type].fields[i].name, name))
			return (int)i;
	return -1;
}

/* Is every field's type known, all the way down?  Memoised through
 * state: 0 unvisited, 1 in progress, 2 yes, 3 no. */
static bool check_readable(struct jfr_chunk *c, uint32_t t,
			   unsigned char *state, int depth)
{
	struct type *ty = &c->types[t];
	bool ok = true, zero = ty->prim == P_NONE;
	uint32_t i;

	if (state[t] >= 2)
		return state[t] == 2;
	if (state[t] == 1 || depth > MAX_DEPTH) {
		/* a type that contains itself inline can never end */
		state[t] = 3;
		return false;
	}
	state[t] = 1;
	for (i = 0; i < ty->n_fields && ok; i++) {
		struct field *f = &ty->fields[i];

		if (f->type == NO_TYPE) {
			ok = false;
			break;
		}
		if (f->cp || f->array) {
			zero = false;
			continue;
		}
		ok = check_readable(c, f->type, state, depth + 1);
		if (!c->types[f->type].zero_size)
			zero = false;
	}
	ty->readable = ok;
	ty->zero_size = ok && zero;
	state[t] = ok ? 2 : 3;
	return ok;
}

static void compile_ops(struct jfr_chunk *c, struct type *t)
{
	uint32_t k;

	t->ops = arena_calloc(&c->meta, t->n_fields ? t->n_fields : 1,
			      sizeof(struct op));
	t->n_ops = t->n_fields;
	for (k = 0; k < t->n_fields; k++) {
		const struct field *f = &t->fields[k];
		struct op *o = &t->ops[k];
		enum prim p = c->types[f->type].prim;

		o->slot = f->array ? -1 : f->slot;
		o->type = f->type;
		o->array = f->array;
		o->cp = f->cp;
		if (f->array) {
			o->code = OP_SKIP;
		} else if (f->cp) {
			o->code = OP_VARINT;
		} else if (p == P_STRING) {
			o->code = OP_STRING;
			if (!slot_is_string(o->slot))
				o->slot = -1;
		} else if (slot_is_string(o->slot)) {
			/* a number where a string goes: read, drop */
			o->code = OP_SKIP;
			o->slot = -1;
		} else if (p == P_NONE) {
			o->code = o->slot == JS_COMMITTED ? OP_HEAPSPACE
							  : OP_SKIP;
			o->ci = (int8_t)field_index(c, f->type,
						    "committedSize");
			o->ri = (int8_t)field_index(c, f->type, "reservedSize");
			if (o->code == OP_SKIP)
				o->slot = -1;
		} else if (p == P_BOOLEAN || p == P_BYTE) {
			o->code = OP_U1;
		} else if (p == P_FLOAT) {
			o->code = OP_F4;
		} else if (p == P_DOUBLE) {
			o->code = OP_F8;
		} else {
			o->code = OP_VARINT;
		}
	}
	t->all_varint = true;
	t->have_all = 0;
	t->dest = arena_alloc(&c->meta, t->n_ops ? t->n_ops : 1);
	for (k = 0; k < t->n_ops; k++) {
		t->all_varint &= t->ops[k].code == OP_VARINT;
		t->dest[k] = t->ops[k].slot >= 0 ? (uint8_t)t->ops[k].slot
						 : JS__COUNT;
		if (t->ops[k].slot >= 0)
			t->have_all |= 1u << t->ops[k].slot;
	}
}

static int parse_metadata(struct jfr_chunk *c, uint64_t off, struct err *e)
{
	struct meta_parse m;
	uint64_t size, i;
	unsigned char *state;
	struct hot_fields *hf = &c->hf;

	memset(&m, 0, sizeof(m));
	m.c = c;
	rd_init(&m.r, c->data + off, c->data + c->limit);
	size = rd_varint(&m.r);
	if (m.r.bad || size > c->limit - off)
		return err_set_at(e, ERR_FORMAT, c->file_offset + off,
				  "jfr: metadata event overruns chunk %u",
				  c->chunk_no);
	m.r.end = c->data + off + size;
	if (rd_varint(&m.r) != 0)
		return err_set_at(e, ERR_FORMAT, c->file_offset + off,
				  "jfr: no metadata event where chunk %u's "
				  "header points",
				  c->chunk_no);
	rd_varint(&m.r); /* startTime */
	rd_varint(&m.r); /* duration */
	rd_varint(&m.r); /* metadataId */
	m.n_strings = rd_varint(&m.r);
	if (m.n_strings > rd_left(&m.r))
		m.r.bad = true;
	if (!m.r.bad) {
		m.strings = xreallocarray(NULL, m.n_strings ? m.n_strings : 1,
					  sizeof(char *));
		for (i = 0; i < m.n_strings && !m.r.bad; i++) {
			struct jstr s;

			rd_string(&m.r, &s);
			if (s.enc == 2)
				m.r.bad = true; /* no pools in metadata */
			m.strings[i] =
				m.r.bad ? NULL
					: decode_jstr(c, &c->meta, &s, 0);
			if (!m.strings[i])
				m.strings[i] = ""; /* a null string */
		}
	}
	if (!m.r.bad) {
		static const struct {
			const char *s;
			enum meta_word w;
		} words[] = {
			{"class", MW_CLASS},	 {"field", MW_FIELD},
			{"name", MW_NAME},	 {"id", MW_ID},
			{"superType", MW_SUPER}, {"dimension", MW_DIM},
			{"constantPool", MW_CP},
		};
		size_t j;

		m.words = xcalloc(m.n_strings ? m.n_strings : 1, 1);
		for (i = 0; i < m.n_strings; i++)
			for (j = 0; j < sizeof(words) / sizeof(words[0]); j++)
				if (!strcmp(m.strings[i], words[j].s))
					m.words[i] = (unsigned char)words[j].w;
		parse_element(&m, 0, 0, NO_TYPE);
	}
	free(m.words);
	free(m.strings);
	free(m.fields);
	if (m.r.bad)
		return err_set_at(e, ERR_FORMAT,
				  c->file_offset + (uint64_t)(m.r.p - c->data),
				  "jfr: metadata of chunk %u is damaged",
				  c->chunk_no);

	/* ids to types; field types; what each type is for */
	for (i = 0; i < c->n_types; i++)
		u64map_put(&c->type_by_id, c->types[i].id, i, NULL);
	for (i = 0; i < c->n_types; i++) {
		struct type *t = &c->types[i];
		uint32_t k;
		size_t j;

		t->prim = prim_of(t->name);
		for (k = 0; k < t->n_fields; k++) {
			uint64_t idx;

			if (u64map_get(&c->type_by_id, t->fields[k].type_id,
				       &idx))
				t->fields[k].type = (uint32_t)idx;
		}
		for (j = 0; j < sizeof(event_kinds) / sizeof(event_kinds[0]);
		     j++)
			if (!strcmp(t->name, event_kinds[j].name))
				t->kind = event_kinds[j].kind;
		for (j = 0; j < POOL__COUNT; j++)
			if (!strcmp(t->name, pool_type_name[j]) &&
			    c->pool_type[j] == NO_TYPE) {
				c->pool_type[j] = (uint32_t)i;
				t->pool = (int)j;
			}
	}
	state = xcalloc(c->n_types ? c->n_types : 1, 1);
	for (i = 0; i < c->n_types; i++)
		check_readable(c, (uint32_t)i, state, 0);
	free(state);
	for (i = 0; i < c->n_types; i++) {
		struct type *t = &c->types[i];
		uint32_t k;
		size_t j;

		if (t->kind == JFR_OTHER)
			continue;
		for (k = 0; k < t->n_fields; k++)
			for (j = 0;
			     j < sizeof(slot_names) / sizeof(slot_names[0]);
			     j++)
				if (!strcmp(t->fields[k].name,
					    slot_names[j].name))
					t->fields[k].slot =
						(int8_t)slot_names[j].slot;
		if (t->readable)
			compile_ops(c, t);
	}

	hf->st_truncated =
		field_index(c, c->pool_type[POOL_STACK], "truncated");
	hf->st_frames = field_index(c, c->pool_type[POOL_STACK], "frames");
	{
		uint32_t frame_type = NO_TYPE;

		if (hf->st_frames >= 0)
			frame_type = c->types[c->pool_type[POOL_STACK]]
					     .fields[hf->st_frames]
					     .type;
		hf->fr_method = field_index(c, frame_type, "method");
		hf->fr_line = field_index(c, frame_type, "lineNumber");
		hf->fr_bci = field_index(c, frame_type, "bytecodeIndex");
		hf->fr_type = field_index(c, frame_type, "type");
	}
	hf->me_type = field_index(c, c->pool_type[POOL_METHOD], "type");
	hf->me_name = field_index(c, c->pool_type[POOL_METHOD], "name");
	hf->me_descriptor =
		field_index(c, c->pool_type[POOL_METHOD], "descriptor");
	hf->me_hidden = field_index(c, c->pool_type[POOL_METHOD], "hidden");
	hf->cl_name = field_index(c, c->pool_type[POOL_CLASS], "name");
	hf->cl_hidden = field_index(c, c->pool_type[POOL_CLASS], "hidden");
	hf->sy_string = field_index(c, c->pool_type[POOL_SYMBOL], "string");
	hf->ft_description =
		field_index(c, c->pool_type[POOL_FRAMETYPE], "description");
	hf->th_os_name = field_index(c, c->pool_type[POOL_THREAD], "osName");
	hf->th_os_id = field_index(c, c->pool_type[POOL_THREAD], "osThreadId");
	hf->th_java_name =
		field_index(c, c->pool_type[POOL_THREAD], "javaName");
	hf->th_java_id =
		field_index(c, c->pool_type[POOL_THREAD], "javaThreadId");
	hf->th_virtual = field_index(c, c->pool_type[POOL_THREAD], "virtual");
	hf->oo_type = field_index(c, c->pool_type[POOL_OLDOBJECT], "type");
	hf->gr_description =
		field_index(c, c->pool_type[POOL_GCROOT], "description");
	hf->gr_system = field_index(c, c->pool_type[POOL_GCROOT], "system");
	hf->gr_type = field_index(c, c->pool_type[POOL_GCROOT], "type");
	hf->rs_system = field_index(c, c->pool_type[POOL_ROOTSYSTEM], "system");
	hf->rt_type = field_index(c, c->pool_type[POOL_ROOTTYPE], "type");
	hf->gw_when = field_index(c, c->pool_type[POOL_GCWHEN], "when");
	return 0;
}

/* --- generic values ---------------------------------------------------- */

static void skip_value(const struct jfr_chunk *c, struct rd *r, uint32_t t,
		       bool array, bool cp, int depth);

static void skip_one(const struct jfr_chunk *c, struct rd *r, uint32_t t,
		     bool cp, int depth)
{
	const struct type *ty;
	struct jstr s;
	uint32_t i;

	if (cp) {
		rd_varint(r);
		return;
	}
	ty = &c->types[t];
	switch (ty->prim) {
	case P_BOOLEAN:
	case P_BYTE:
		rd_skip(r, 1);
		return;
	case P_CHAR:
	case P_SHORT:
	case P_INT:
	case P_LONG:
		rd_varint(r);
		return;
	case P_FLOAT:
		rd_skip(r, 4);
		return;
	case P_DOUBLE:
		rd_skip(r, 8);
		return;
	case P_STRING:
		rd_string(r, &s);
		return;
	case P_NONE:
		break;
	}
	if (depth > MAX_DEPTH || !ty->readable) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	/* nothing to read: walking nested empty structs would cost their
	 * product of field counts (exponential in a hostile metadata) */
	if (ty->zero_size)
		return;
	for (i = 0; i < ty->n_fields && !r->bad; i++)
		skip_value(c, r, ty->fields[i].type, ty->fields[i].array,
			   ty->fields[i].cp, depth + 1);
}

static void skip_value(const struct jfr_chunk *c, struct rd *r, uint32_t t,
		       bool array, bool cp, int depth)
{
	uint64_t n, i;

	if (t == NO_TYPE) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	if (!array) {
		skip_one(c, r, t, cp, depth);
		return;
	}
	n = rd_varint(r);
	if (!cp && c->types[t].zero_size)
		return; /* n values of nothing */
	if (n > rd_left(r)) {
		r->bad = true;
		r->p = r->end;
		return;
	}
	for (i = 0; i < n && !r->bad; i++)
		skip_one(c, r, t, cp, depth);
}

/* The scalar and string fields of one struct value, by field index. */
struct capture {
	uint64_t v[MAX_CAPTURE];
	struct jstr s[MAX_CAPTURE];
};

static void capture_struct(const struct jfr_chunk *c, struct rd *r, uint32_t t,
			   struct capture *cap)
{
	const struct type *ty = &c->types[t];
	uint32_t i;

	memset(cap, 0, sizeof(*cap));
	if (!ty->readable) {
		r->bad = true;
		return;
	}
	for (i = 0; i < ty->n_fields && !r->bad; i++) {
		const struct field *f = &ty->fields[i];
		enum prim p = c->types[f->type].prim;

		if (i >= MAX_CAPTURE || f->array || (!f->cp && p == P_NONE)) {
			skip_value(c, r, f->type, f->array, f->cp, 1);
			continue;
		}
		cap->s[i].enc = 0;
		if (f->cp) {
			cap->v[i] = rd_varint(r);
			continue;
		}
		switch (p) {
		case P_BOOLEAN:
		case P_BYTE:
			cap->v[i] = rd_u1(r);
			break;
		case P_FLOAT:
			cap->v[i] = r->p + 4 <= r->end ? be(r->p, 4) : 0;
			rd_skip(r, 4);
			break;
		case P_DOUBLE:
			cap->v[i] = r->p + 8 <= r->end ? be(r->p, 8) : 0;
			rd_skip(r, 8);
			break;
		case P_STRING:
			rd_string(r, &cap->s[i]);
			break;
		default:
			cap->v[i] = rd_varint(r);
		}
	}
}

/* --- strings --------------------------------------------------------- */

static void put_utf8(struct buf *b, uint32_t cp)
{
	if (cp < 0x80) {
		buf_addch(b, (int)cp);
	} else if (cp < 0x800) {
		buf_addch(b, (int)(0xc0 | cp >> 6));
		buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addch(b, (int)(0xe0 | cp >> 12));
		buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	} else {
		buf_addch(b, (int)(0xf0 | cp >> 18));
		buf_addch(b, (int)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	}
}

static const char *pool_string(struct jfr_chunk *c, uint64_t key, int depth);

/* A string value as UTF-8 in arena a; NULL for the null string. */
static char *decode_jstr(struct jfr_chunk *c, struct arena *a,
			 const struct jstr *s, int depth)
{
	struct buf b = BUF_INIT;
	struct rd r;
	uint64_t i;
	char *out;

	switch (s->enc) {
	case 0:
		return NULL;
	case 1:
		return arena_strdup(a, "");
	case 2: {
		const char *p =
			depth ? NULL : pool_string(c, s->key, depth + 1);

		/* the pool's copy lives as long as the chunk's constants:
		 * no copy per reference (a hostile file refers to one big
		 * string from every event) */
		if (!p || a == &c->consts)
			return (char *)p;
		return arena_strdup(a, p);
	}
	case 3:
		if (!memchr(s->p, 0xed, (size_t)s->len) &&
		    !memchr(s->p, 0xc0, (size_t)s->len)) {
			out = arena_memdup(a, s->p, (size_t)s->len);
			/* a stray NUL would cut the C string */
			for (i = 0; i < s->len; i++)
				if (!out[i])
					out[i] = '?';
			return out;
		}
		/* the JVM's modified UTF-8: a character outside the BMP is
		 * a surrogate pair, 3 bytes each; NUL is C0 80 */
		for (i = 0; i < s->len; i++) {
			const unsigned char *q = s->p + i;
			uint64_t left = s->len - i;

			if (left >= 6 && q[0] == 0xed &&
			    (q[1] & 0xf0) == 0xa0 && (q[2] & 0xc0) == 0x80 &&
			    q[3] == 0xed && (q[4] & 0xf0) == 0xb0 &&
			    (q[5] & 0xc0) == 0x80) {
				uint32_t hi = 0xd000u |
					      (uint32_t)(q[1] & 0x3f) << 6 |
					      (q[2] & 0x3f);
				uint32_t lo = 0xd000u |
					      (uint32_t)(q[4] & 0x3f) << 6 |
					      (q[5] & 0x3f);

				put_utf8(&b, 0x10000 + ((hi - 0xd800) << 10) +
						     (lo - 0xdc00));
				i += 5;
			} else if (left >= 2 && q[0] == 0xc0 && q[1] == 0x80) {
				buf_addch(&b, '?');
				i++;
			} else {
				buf_addch(&b, q[0] ? q[0] : '?');
			}
		}
		break;
	case 5:
		for (i = 0; i < s->len; i++)
			put_utf8(&b, s->p[i] ? s->p[i] : '?');
		break;
	case 4:
		rd_init(&r, s->p, s->p + s->nbytes);
		/* class and method names are ASCII: one byte per unit,
		 * written straight out; anything else takes the long way */
		out = arena_alloc(a, (size_t)s->len * 4 + 1);
		for (i = 0; i < s->len; i++) {
			uint64_t u = rd_varint(&r);

			if (u - 1 >= 0x7f)
				break;
			out[i] = (char)u;
		}
		if (i == s->len) {
			out[i] = '\0';
			return out;
		}
		rd_init(&r, s->p, s->p + s->nbytes);
		for (i = 0; i < s->len; i++) {
			uint32_t u = (uint16_t)rd_varint(&r), lo;

			if (u >= 0xd800 && u <= 0xdbff && i + 1 < s->len) {
				const unsigned char *save = r.p;

				lo = (uint16_t)rd_varint(&r);
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					u = 0x10000 + ((u - 0xd800) << 10) +
					    (lo - 0xdc00);
					i++;
				} else {
					r.p = save;
					u = 0xfffd;
				}
			} else if (u >= 0xd800 && u <= 0xdfff) {
				u = 0xfffd;
			}
			put_utf8(&b, u ? u : '?');
		}
		break;
	default:
		return NULL;
	}
	out = arena_memdup(a, b.data, b.len);
	buf_release(&b);
	return out;
}

/* --- pools --------------------------------------------------------------- */

static int parse_checkpoint(struct jfr_chunk *c, uint64_t off, struct err *e)
{
	struct rd r;
	uint64_t size, n_pools, i;

	rd_init(&r, c->data + off, c->data + c->limit);
	size = rd_varint(&r);
	r.end = c->data + off + size; /* checked by the framing pass */
	rd_varint(&r);		      /* type 1 */
	rd_varint(&r);		      /* startTime */
	rd_varint(&r);		      /* duration */
	rd_varint(&r);		      /* delta */
	rd_varint(&r);		      /* kind */
	n_pools = rd_varint(&r);
	for (i = 0; i < n_pools && !r.bad; i++) {
		uint64_t type_id = rd_varint(&r), count = rd_varint(&r), k, idx;
		const struct type *t;

		if (r.bad)
			break;
		if (!u64map_get(&c->type_by_id, type_id, &idx) ||
		    !c->types[idx].readable)
			return err_set_at(e, ERR_FORMAT, c->file_offset + off,
					  "jfr: checkpoint in chunk %u has a "
					  "pool of unknown type id %llu",
					  c->chunk_no,
					  (unsigned long long)type_id);
		t = &c->types[idx];
		if (count > rd_left(&r)) {
			r.bad = true;
			break;
		}
		for (k = 0; k < count && !r.bad; k++) {
			uint64_t key = rd_varint(&r);
			uint64_t at = (uint64_t)(r.p - c->data);

			skip_one(c, &r, (uint32_t)idx, false, 0);
			if (t->pool >= 0 && !r.bad)
				u64map_put(&c->pools[t->pool], key, at, NULL);
		}
	}
	if (r.bad)
		return err_set_at(
			e, ERR_FORMAT,
			c->file_offset + (uint64_t)(r.p - c->data),
			"jfr: checkpoint at chunk offset %llu of chunk "
			"%u is damaged; constants after this point "
			"in it are lost",
			(unsigned long long)off, c->chunk_no);
	return 0;
}

/* --- opening a chunk ------------------------------------------------------ */

static void reset_types(struct jfr_chunk *c)
{
	int i;

	arena_reset(&c->meta);
	u64map_clear(&c->type_by_id);
	for (i = 0; i < POOL__COUNT; i++)
		c->pool_type[i] = NO_TYPE;
	c->n_types = 0;
	c->n_small = 0;
	c->meta_valid = false;
}

/* The bytes of the metadata event at off (framing already checked). */
static size_t meta_event_len(const struct jfr_chunk *c, uint64_t off)
{
	struct rd r;

	rd_init(&r, c->data + off, c->data + c->limit);
	return (size_t)rd_varint(&r);
}

/* Consecutive chunks usually carry identical metadata: compare bytes. */
static bool same_metadata(const struct jfr_chunk *c, uint64_t off)
{
	size_t len = meta_event_len(c, off);

	return c->meta_valid && len == c->meta_len &&
	       !memcmp(c->meta_bytes, c->data + off, len);
}

static void keep_metadata(struct jfr_chunk *c, uint64_t off)
{
	size_t len = meta_event_len(c, off);
	uint64_t max_id = 0;
	uint32_t i;

	c->meta_bytes = xrealloc(c->meta_bytes, len ? len : 1);
	memcpy(c->meta_bytes, c->data + off, len);
	c->meta_len = len;
	c->meta_valid = true;
	/* event type ids are small in practice: a table beats hashing */
	for (i = 0; i < c->n_types; i++)
		if (c->types[i].id < (1u << 16) && c->types[i].id > max_id)
			max_id = c->types[i].id;
	c->n_small = (uint32_t)max_id + 1;
	c->small_ids =
		xreallocarray(c->small_ids, c->n_small, sizeof(uint32_t));
	for (i = 0; i < c->n_small; i++)
		c->small_ids[i] = NO_TYPE;
	for (i = 0; i < c->n_types; i++)
		if (c->types[i].id < c->n_small &&
		    c->small_ids[c->types[i].id] == NO_TYPE)
			c->small_ids[c->types[i].id] = i;
}

static bool type_index(const struct jfr_chunk *c, uint64_t id, uint64_t *idx)
{
	if (id < c->n_small) {
		*idx = c->small_ids[id];
		return *idx != NO_TYPE;
	}
	return u64map_get(&c->type_by_id, id, idx);
}

static void lost(struct jfr_chunk *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void lost(struct jfr_chunk *c, const char *fmt, ...)
{
	va_list ap;

	if (c->has_lost)
		return;
	va_start(ap, fmt);
	vsnprintf(c->lost, sizeof(c->lost), fmt, ap);
	va_end(ap);
	c->has_lost = true;
}

static void add_checkpoint(struct jfr_chunk *c, uint64_t pos)
{
	if (c->n_checkpoints == c->alloc_checkpoints) {
		c->alloc_checkpoints =
			c->alloc_checkpoints ? c->alloc_checkpoints * 2 : 64;
		c->checkpoints = xreallocarray(
			c->checkpoints, c->alloc_checkpoints, sizeof(uint64_t));
	}
	c->checkpoints[c->n_checkpoints++] = pos;
}

/* Walk every event header: the framing, the metadata, the checkpoints. */
static void walk_events(struct jfr_chunk *c, uint64_t *meta,
			uint64_t *last_meta)
{
	const unsigned char *data = c->data;
	uint64_t pos = JFR_HEADER_LEN;

	while (pos < c->limit) {
		struct rd r;
		uint64_t size, type;

		rd_init(&r, data + pos, data + c->limit);
		size = rd_varint(&r);
		type = rd_varint(&r);
		if (r.bad || size == 0 || size > c->limit - pos ||
		    (uint64_t)(r.p - (data + pos)) > size) {
			lost(c,
			     "event at chunk offset %llu has size "
			     "%llu, past the chunk's end or zero",
			     (unsigned long long)pos, (unsigned long long)size);
			break;
		}
		if (type == 0) {
			*last_meta = pos;
			if (pos == c->h.meta_offset)
				*meta = pos;
		} else if (type == 1) {
			add_checkpoint(c, pos);
		}
		pos += size;
	}
	c->end = pos;
}

/* The event at pos: its size and type, if its header fits the chunk. */
static bool event_at(const struct jfr_chunk *c, uint64_t pos, uint64_t *size,
		     uint64_t *type)
{
	struct rd r;

	if (pos < JFR_HEADER_LEN || pos >= c->limit)
		return false;
	rd_init(&r, c->data + pos, c->data + c->limit);
	*size = rd_varint(&r);
	*type = rd_varint(&r);
	return !r.bad && *size != 0 && *size <= c->limit - pos &&
	       (uint64_t)(r.p - (c->data + pos)) <= *size;
}

/*
 * Find the checkpoints through the chain of deltas that starts at the
 * header's checkpoint offset, and check the metadata offset.  False,
 * with nothing decided, when anything is off.
 */
static bool walk_chain(struct jfr_chunk *c, uint64_t *meta)
{
	uint64_t pos = c->h.cp_offset, size, type, steps = 0;
	uint64_t next = c->limit; /* where the checkpoint after this starts */

	if (!event_at(c, c->h.meta_offset, &size, &type) || type != 0)
		return false;
	c->n_checkpoints = 0;
	for (;;) {
		struct rd r;
		int64_t delta;

		/* each checkpoint ends before the one after it begins: else
		 * a hostile chain makes every one span the rest of the chunk
		 * and parsing them quadratic */
		if (!event_at(c, pos, &size, &type) || type != 1 ||
		    size > next - pos || ++steps > c->limit / 8)
			return false;
		next = pos;
		add_checkpoint(c, pos);
		rd_init(&r, c->data + pos, c->data + pos + size);
		rd_varint(&r); /* size */
		rd_varint(&r); /* type */
		rd_varint(&r); /* startTime */
		rd_varint(&r); /* duration */
		delta = (int64_t)rd_varint(&r);
		if (r.bad)
			return false;
		if (delta == 0)
			break;
		/* backwards, and never before the first event */
		if (delta > 0 ||
		    (uint64_t) - (delta + 1) + 1 > pos - JFR_HEADER_LEN)
			return false;
		pos -= (uint64_t) - (delta + 1) + 1;
	}
	*meta = c->h.meta_offset;
	c->end = c->limit;
	return true;
}

int jfr_chunk_open(struct jfr_chunk *c, const unsigned char *data, size_t avail,
		   unsigned chunk_no, uint64_t file_offset, struct err *e)
{
	uint64_t meta = 0, last_meta = 0;
	int i, rc = 0;

	arena_reset(&c->consts);
	for (i = 0; i < POOL__COUNT; i++) {
		u64map_clear(&c->pools[i]);
		u64map_clear(&c->cache[i]);
		c->last_val[i] = NULL;
	}
	c->n_checkpoints = 0;
	c->has_lost = false;
	c->lost[0] = '\0';
	c->data = data;
	c->avail = avail;
	c->chunk_no = chunk_no;
	c->file_offset = file_offset;
	c->pos = c->end = JFR_HEADER_LEN;

	if (jfr_header_parse_frame(data, avail, &c->h, e) < 0) {
		e->offset = file_offset +
			    (e->offset == ERR_NO_OFFSET ? 0 : e->offset);
		return ERR_FAIL;
	}
	c->limit = c->h.size < avail ? c->h.size : avail;
	c->tb.start_ns = c->h.start_ns;
	c->tb.start_ticks = c->h.start_ticks;
	c->tb.ticks_div = (double)c->h.ticks_per_sec / 1e9;
	c->tb.ticks_are_ns = c->h.ticks_per_sec == 1000000000;
	if (avail < c->h.size)
		lost(c, "chunk cut short: %llu of its %llu bytes present",
		     (unsigned long long)avail, (unsigned long long)c->h.size);

	/* pass 1: where are the metadata and the checkpoints?  A whole chunk
	 * whose header offsets hold names them: the metadata offset, and
	 * the checkpoints chained backwards from the last by their deltas.
	 * Its event framing is then checked as the events are read.  Any
	 * doubt, and the events are walked one by one instead. */
	if (!(avail >= c->h.size && walk_chain(c, &meta))) {
		c->n_checkpoints = 0;
		meta = 0;
		walk_events(c, &meta, &last_meta);
	}

	/* pass 2: the metadata the header names, else the last one seen */
	if (!meta)
		meta = last_meta;
	if (!meta && avail < c->h.size)
		return err_set_at(e, ERR_TRUNC, file_offset,
				  "jfr: chunk %u is cut short (%zu of %llu "
				  "bytes) before its metadata is complete: "
				  "nothing in it can be decoded",
				  chunk_no, avail,
				  (unsigned long long)c->h.size);
	if (!meta)
		return err_set_at(e, ERR_TRUNC, file_offset,
				  "jfr: chunk %u has no readable metadata "
				  "(nothing was flushed into it before it "
				  "ended)",
				  chunk_no);
	if (!same_metadata(c, meta)) {
		reset_types(c);
		if (parse_metadata(c, meta, e) < 0)
			return ERR_FAIL;
		keep_metadata(c, meta);
	}

	if (check_offsets(&c->h, e) < 0) {
		err_prefix(e, "jfr: chunk %u header", chunk_no);
		rc = 1;
	}

	/* pass 3: index the pools; a damaged checkpoint loses only itself */
	for (i = 0; (size_t)i < c->n_checkpoints; i++)
		if (parse_checkpoint(c, c->checkpoints[i], e) < 0)
			rc = 1;
	c->pos = JFR_HEADER_LEN;
	return rc == 1 ? 1 : 0;
}

/* --- events ---------------------------------------------------------------- */

const char *jfr_type_name(const struct jfr_chunk *c, uint64_t type_id)
{
	uint64_t idx;

	if (!u64map_get(&c->type_by_id, type_id, &idx))
		return NULL;
	return c->types[idx].name;
}

static uint64_t read_scalar(const struct jfr_chunk *c, struct rd *r,
			    const struct field *f)
{
	if (f->cp)
		return rd_varint(r);
	switch (c->types[f->type].prim) {
	case P_BOOLEAN:
	case P_BYTE:
		return rd_u1(r);
	case P_FLOAT: {
		uint64_t v = r->p + 4 <= r->end ? be(r->p, 4) : 0;

		rd_skip(r, 4);
		return v;
	}
	case P_DOUBLE: {
		uint64_t v = r->p + 8 <= r->end ? be(r->p, 8) : 0;

		rd_skip(r, 8);
		return v;
	}
	default:
		return rd_varint(r);
	}
}

/* Everything jfr_chunk_next's fast path leaves: the whole of it. */
static __attribute__((noinline)) int
chunk_next_slow(struct jfr_chunk *c, struct jfr_event *ev, struct err *e)
{
	struct rd r;
	uint64_t size, idx;
	const struct type *t;
	uint32_t i;

	if (c->pos >= c->end)
		return 1;
	rd_init(&r, c->data + c->pos, c->data + c->end);
	if (c->end - c->pos >= 18) {
		/* room for two full varints: no bounds checks needed */
		size = varint_unchecked(&r.p);
		ev->type_id = varint_unchecked(&r.p);
	} else {
		size = rd_varint(&r);
		ev->type_id = rd_varint(&r);
	}
	ev->offset = c->pos;
	ev->size = size;
	ev->have = 0;
	ev->kind = JFR_OTHER;
	ev->type_name = NULL;
	if (r.bad || size == 0 || size > c->end - c->pos ||
	    (uint64_t)(r.p - (c->data + c->pos)) > size) {
		/* framing that was not walked on open ends here */
		lost(c,
		     "event at chunk offset %llu has size %llu, past the "
		     "chunk's end or zero",
		     (unsigned long long)c->pos, (unsigned long long)size);
		c->end = c->pos;
		return 1;
	}
	c->pos += size;
	r.end = c->data + ev->offset + size;
	if (ev->type_id == 0) {
		ev->kind = JFR_METADATA;
		ev->type_name = "jdk.Metadata";
		return 0;
	}
	if (ev->type_id == 1) {
		ev->kind = JFR_CHECKPOINT;
		ev->type_name = "jdk.CheckPoint";
		return 0;
	}
	if (!type_index(c, ev->type_id, &idx))
		return 0; /* not in the metadata: skipped by size, as the JDK does */
	t = &c->types[idx];
	ev->type_name = t->name;
	if (t->kind == JFR_OTHER)
		return 0;
	if (!t->readable)
		return err_set_at(e, ERR_FORMAT, c->file_offset + ev->offset,
				  "jfr: event type %s has fields of unknown "
				  "types in chunk %u's metadata",
				  t->name, c->chunk_no);
	/* The heap events are all varints: when the chunk (not the event)
	 * has 9 bytes for each, read them without bounds checks, and check
	 * the event's end once afterwards.  Reading past an event but
	 * inside the chunk is harmless; the overrun is still reported. */
	if (t->all_varint && (size_t)(c->data + c->end - r.p) >= 9 * t->n_ops) {
		const unsigned char *p = r.p;
		const uint8_t *dest = t->dest;
		uint32_t n = t->n_ops;

		for (i = 0; i < n; i++)
			ev->v[dest[i]] = varint_unchecked(&p);
		ev->have = t->have_all;
		if (p > r.end)
			r.bad = true;
		i = t->n_ops; /* the general loop below has nothing left */
	} else {
		i = 0;
	}
	for (; i < t->n_ops; i++) {
		const struct op *o = &t->ops[i];
		uint64_t v;

		switch (o->code) {
		case OP_VARINT:
			v = rd_varint(&r);
			break;
		case OP_U1:
			v = rd_u1(&r);
			break;
		case OP_F4:
			v = r.p + 4 <= r.end ? be(r.p, 4) : 0;
			rd_skip(&r, 4);
			break;
		case OP_F8:
			v = r.p + 8 <= r.end ? be(r.p, 8) : 0;
			rd_skip(&r, 8);
			break;
		case OP_STRING: {
			struct jstr s;

			rd_string(&r, &s);
			if (o->slot >= 0 && !r.bad) {
				ev->s[o->slot] =
					decode_jstr(c, &c->consts, &s, 0);
				ev->have |= 1u << o->slot;
			}
			continue;
		}
		case OP_HEAPSPACE: {
			/* heapSpace: an inline VirtualSpace */
			struct capture cap;

			capture_struct(c, &r, o->type, &cap);
			if (o->ci >= 0) {
				ev->v[JS_COMMITTED] = cap.v[o->ci];
				ev->have |= 1u << JS_COMMITTED;
			}
			if (o->ri >= 0) {
				ev->v[JS_RESERVED] = cap.v[o->ri];
				ev->have |= 1u << JS_RESERVED;
			}
			continue;
		}
		default:
			skip_value(c, &r, o->type, o->array, o->cp, 0);
			continue;
		}
		if (o->slot >= 0) {
			ev->v[o->slot] = v;
			ev->have |= 1u << o->slot;
		}
	}
	ev->kind = t->kind;
	if (r.bad) {
		ev->kind = JFR_OTHER;
		return err_set_at(
			e, ERR_FORMAT, c->file_offset + ev->offset,
			"jfr: %s event overruns its %llu bytes (chunk "
			"%u)",
			t->name, (unsigned long long)size, c->chunk_no);
	}
	return 0;
}

/*
 * Nearly every event of a heap recording is a heap event of varints with
 * a small type id, well inside its chunk: read it here, in a function
 * small enough to need no saved registers, and leave anything else
 * (metadata, checkpoints, other types' fields, an event that overruns
 * its size or the chunk, an id past the small table) to the whole reader
 * above, which starts that event afresh: nothing is changed here until
 * the event is known good, so both give the same event and the same
 * state.
 */
int jfr_chunk_next(struct jfr_chunk *c, struct jfr_event *ev, struct err *e)
{
	const unsigned char *p, *start, *end;
	uint64_t size, id;
	const struct type *t;
	uint32_t idx, i, n;

	if (c->pos >= c->end || c->end - c->pos < 18)
		return chunk_next_slow(c, ev, e);
	start = p = c->data + c->pos;
	size = varint_unchecked(&p);
	id = varint_unchecked(&p);
	if (size == 0 || size > c->end - c->pos ||
	    (uint64_t)(p - start) > size || id <= 1 || id >= c->n_small ||
	    (idx = c->small_ids[id]) == NO_TYPE)
		return chunk_next_slow(c, ev, e);
	t = &c->types[idx];
	n = t->n_ops;
	if (t->kind != JFR_OTHER &&
	    (!t->readable || !t->all_varint ||
	     (size_t)(c->data + c->end - p) < 9 * (size_t)n))
		return chunk_next_slow(c, ev, e);
	ev->type_id = id;
	ev->offset = c->pos;
	ev->size = size;
	ev->type_name = t->name;
	ev->kind = JFR_OTHER;
	ev->have = 0;
	if (t->kind != JFR_OTHER) {
		const uint8_t *dest = t->dest;

		end = start + size;
		for (i = 0; i < n; i++)
			ev->v[dest[i]] = varint_unchecked(&p);
		if (p > end) /* overran: the whole reader says so */
			return chunk_next_slow(c, ev, e);
		ev->have = t->have_all;
		ev->kind = t->kind;
	}
	c->pos += size;
	return 0;
}

/* --- time ------------------------------------------------------------------ */

const struct jfr_timebase *jfr_chunk_timebase(const struct jfr_chunk *c)
{
	return &c->tb;
}

int64_t jfr_ticks_to_epoch_ns(const struct jfr_chunk *c, uint64_t ticks)
{
	return jfr_timebase_epoch_ns(&c->tb, ticks);
}

int64_t jfr_ticks_to_ns(const struct jfr_chunk *c, uint64_t ticks)
{
	double ns = (double)(int64_t)ticks / c->tb.ticks_div;

	if (!(ns < 9.2e18 && ns > -9.2e18))
		return ns > 0 ? INT64_MAX : INT64_MIN;
	return (int64_t)ns;
}

/* --- constants ----------------------------------------------------------- */

/* Position a reader on the pool value for key; false if absent. */
static bool pool_value(struct jfr_chunk *c, int pool, uint64_t key,
		       struct rd *r)
{
	uint64_t off;

	if (c->pool_type[pool] == NO_TYPE ||
	    !u64map_get(&c->pools[pool], key, &off))
		return false;
	/* constants live in checkpoints anywhere in the data, which c->end
	 * (lowered when framing breaks) need not cover */
	rd_init(r, c->data + off, c->data + c->limit);
	return true;
}

static void *cached(struct jfr_chunk *c, int pool, uint64_t key)
{
	uint64_t v;

	if (c->last_val[pool] && c->last_key[pool] == key)
		return c->last_val[pool];
	if (!u64map_get(&c->cache[pool], key, &v))
		return NULL;
	c->last_key[pool] = key;
	c->last_val[pool] = (void *)(uintptr_t)v;
	return c->last_val[pool];
}

static void cache(struct jfr_chunk *c, int pool, uint64_t key, const void *p)
{
	u64map_put(&c->cache[pool], key, (uint64_t)(uintptr_t)p, NULL);
	c->last_key[pool] = key;
	c->last_val[pool] = (void *)(uintptr_t)p;
}

/* The decoded text of a simple-type pool (one string field). */
static const char *simple_string(struct jfr_chunk *c, int pool, int field,
				 uint64_t key, int depth)
{
	struct capture cap;
	struct rd r;
	const char *s;

	if ((s = cached(c, pool, key)))
		return s;
	if (field < 0 || !pool_value(c, pool, key, &r))
		return NULL;
	capture_struct(c, &r, c->pool_type[pool], &cap);
	if (r.bad ||
	    c->types[c->types[c->pool_type[pool]].fields[field].type].prim !=
		    P_STRING)
		return NULL;
	s = decode_jstr(c, &c->consts, &cap.s[field], depth);
	if (s)
		cache(c, pool, key, s);
	return s;
}

static const char *pool_string(struct jfr_chunk *c, uint64_t key, int depth)
{
	struct jstr s;
	struct rd r;
	const char *out;

	if ((out = cached(c, POOL_STRING, key)))
		return out;
	if (!pool_value(c, POOL_STRING, key, &r))
		return NULL;
	rd_string(&r, &s);
	if (r.bad || s.enc == 2)
		return NULL;
	out = decode_jstr(c, &c->consts, &s, depth);
	if (out)
		cache(c, POOL_STRING, key, out);
	return out;
}

static const char *symbol(struct jfr_chunk *c, uint64_t key)
{
	return simple_string(c, POOL_SYMBOL, c->hf.sy_string, key, 0);
}

void jfr_display_class_name(const char *raw, size_t len, bool hidden, char *out)
{
	static const struct {
		char code;
		const char *name;
	} prims[] = {
		{'B', "byte"}, {'C', "char"}, {'D', "double"}, {'F', "float"},
		{'I', "int"},  {'J', "long"}, {'S', "short"},  {'Z', "boolean"},
	};
	size_t dims = 0, i, n = 0;
	bool done = false;

	while (dims < len && raw[dims] == '[')
		dims++;
	if (dims && dims < len) {
		char code = raw[dims];

		if (code == 'L' && len >= dims + 2 && raw[len - 1] == ';') {
			for (i = dims + 1; i < len - 1; i++)
				out[n++] = raw[i] == '/' ? '.' : raw[i];
			done = true;
		} else if (len == dims + 1) {
			for (i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
				if (prims[i].code == code) {
					n = strlen(prims[i].name);
					memcpy(out, prims[i].name, n);
					done = true;
				}
		}
	}
	if (!done) {
		/* hidden classes arrive dotted, with a suffix holding '/' */
		bool keep = hidden || memchr(raw, '.', len) != NULL;

		dims = 0;
		for (i = 0; i < len; i++)
			out[n++] = !keep && raw[i] == '/' ? '.' : raw[i];
	}
	for (i = 0; i < dims; i++) {
		out[n++] = '[';
		out[n++] = ']';
	}
	out[n] = '\0';
}

struct jfr_class *jfr_class(struct jfr_chunk *c, uint64_t key)
{
	struct jfr_class *k;
	struct capture cap;
	struct rd r;
	const char *raw;
	size_t len;
	char *disp;

	if ((k = cached(c, POOL_CLASS, key)))
		return k;
	if (c->hf.cl_name < 0 || !pool_value(c, POOL_CLASS, key, &r))
		return NULL;
	capture_struct(c, &r, c->pool_type[POOL_CLASS], &cap);
	if (r.bad)
		return NULL;
	k = arena_calloc(&c->consts, 1, sizeof(*k));
	raw = symbol(c, cap.v[c->hf.cl_name]);
	k->raw = raw ? raw : "unknown";
	k->hidden = c->hf.cl_hidden >= 0 && cap.v[c->hf.cl_hidden];
	len = strlen(k->raw);
	disp = arena_alloc(&c->consts, 2 * len + 16);
	jfr_display_class_name(k->raw, len, k->hidden, disp);
	k->display = disp;
	cache(c, POOL_CLASS, key, k);
	return k;
}

struct method {
	const struct jfr_class *cls;
	const char *name, *descriptor;
	bool hidden;
};

static const struct method *method(struct jfr_chunk *c, uint64_t key)
{
	struct method *m;
	struct capture cap;
	struct rd r;
	const struct hot_fields *hf = &c->hf;

	if ((m = cached(c, POOL_METHOD, key)))
		return m;
	m = arena_calloc(&c->consts, 1, sizeof(*m));
	m->cls = &c->unknown_class;
	m->name = "unknown";
	m->descriptor = "";
	if (pool_value(c, POOL_METHOD, key, &r)) {
		capture_struct(c, &r, c->pool_type[POOL_METHOD], &cap);
		if (!r.bad) {
			const struct jfr_class *k;
			const char *s;

			if (hf->me_type >= 0 &&
			    (k = jfr_class(c, cap.v[hf->me_type])))
				m->cls = k;
			if (hf->me_name >= 0 &&
			    (s = symbol(c, cap.v[hf->me_name])))
				m->name = s;
			if (hf->me_descriptor >= 0 &&
			    (s = symbol(c, cap.v[hf->me_descriptor])))
				m->descriptor = s;
			m->hidden = hf->me_hidden >= 0 && cap.v[hf->me_hidden];
		}
	}
	cache(c, POOL_METHOD, key, m);
	return m;
}

struct jfr_stack *jfr_stack(struct jfr_chunk *c, uint64_t key)
{
	const struct hot_fields *hf = &c->hf;
	struct jfr_stack *st;
	const struct type *t;
	struct rd r;
	uint32_t i;

	if ((st = cached(c, POOL_STACK, key)))
		return st;
	if (hf->st_frames < 0 || !pool_value(c, POOL_STACK, key, &r))
		return NULL;
	t = &c->types[c->pool_type[POOL_STACK]];
	st = arena_calloc(&c->consts, 1, sizeof(*st));
	st->key = key;
	for (i = 0; i < t->n_fields && !r.bad; i++) {
		const struct field *f = &t->fields[i];
		uint64_t n, k;

		if ((int)i == hf->st_truncated && !f->array && !f->cp) {
			st->truncated = read_scalar(c, &r, f) != 0;
			continue;
		}
		if ((int)i != hf->st_frames || !f->array || f->cp ||
		    hf->fr_method < 0) {
			skip_value(c, &r, f->type, f->array, f->cp, 0);
			continue;
		}
		n = rd_varint(&r);
		if (n > rd_left(&r)) {
			r.bad = true;
			break;
		}
		/* a frame with no bytes carries no method: a hostile count
		 * of them would cost memory for nothing */
		if (c->types[f->type].zero_size)
			n = 0;
		st->frames = arena_calloc(&c->consts, n ? n : 1,
					  sizeof(struct jfr_frame));
		for (k = 0; k < n && !r.bad; k++) {
			struct jfr_frame *fr = &st->frames[k];
			const struct method *m;
			struct capture cap;
			const char *ft = NULL;

			capture_struct(c, &r, f->type, &cap);
			if (r.bad)
				break;
			m = method(c, cap.v[hf->fr_method]);
			fr->cls = m->cls;
			fr->method = m->name;
			fr->descriptor = m->descriptor;
			fr->hidden = m->hidden;
			fr->line =
				hf->fr_line >= 0
					? (int32_t)(uint32_t)cap.v[hf->fr_line]
					: -1;
			fr->bci = hf->fr_bci >= 0
					  ? (int32_t)(uint32_t)cap.v[hf->fr_bci]
					  : -1;
			if (hf->fr_type >= 0)
				ft = simple_string(c, POOL_FRAMETYPE,
						   hf->ft_description,
						   cap.v[hf->fr_type], 0);
			fr->type = ft ? ft : "unknown";
		}
		st->n_frames = (uint32_t)k;
	}
	if (r.bad)
		return NULL;
	cache(c, POOL_STACK, key, st);
	return st;
}

struct jfr_thread *jfr_thread(struct jfr_chunk *c, uint64_t key)
{
	const struct hot_fields *hf = &c->hf;
	struct jfr_thread *th;
	struct capture cap;
	struct rd r;
	const char *jname = NULL, *oname = NULL;

	if ((th = cached(c, POOL_THREAD, key)))
		return th;
	if (!pool_value(c, POOL_THREAD, key, &r))
		return NULL;
	capture_struct(c, &r, c->pool_type[POOL_THREAD], &cap);
	if (r.bad)
		return NULL;
	th = arena_calloc(&c->consts, 1, sizeof(*th));
	th->key = key;
	if (hf->th_java_name >= 0)
		jname = decode_jstr(c, &c->consts, &cap.s[hf->th_java_name], 0);
	if (hf->th_os_name >= 0)
		oname = decode_jstr(c, &c->consts, &cap.s[hf->th_os_name], 0);
	th->name = jname ? jname : oname ? oname : "";
	th->java_id = hf->th_java_id >= 0 ? (int64_t)cap.v[hf->th_java_id] : -1;
	th->os_id = hf->th_os_id >= 0 ? (int64_t)cap.v[hf->th_os_id] : -1;
	th->is_virtual = hf->th_virtual >= 0 && cap.v[hf->th_virtual];
	cache(c, POOL_THREAD, key, th);
	return th;
}

const char *jfr_gc_when(struct jfr_chunk *c, uint64_t key)
{
	return simple_string(c, POOL_GCWHEN, c->hf.gw_when, key, 0);
}

const char *jfr_gc_root(struct jfr_chunk *c, uint64_t key)
{
	const struct hot_fields *hf = &c->hf;
	struct capture cap;
	struct rd r;
	const char *desc = NULL, *sys = NULL, *type = NULL;
	struct buf b = BUF_INIT;
	char *out;

	if ((out = cached(c, POOL_GCROOT, key)))
		return out;
	if (!pool_value(c, POOL_GCROOT, key, &r))
		return NULL;
	capture_struct(c, &r, c->pool_type[POOL_GCROOT], &cap);
	if (r.bad)
		return NULL;
	if (hf->gr_description >= 0)
		desc = decode_jstr(c, &c->consts, &cap.s[hf->gr_description],
				   0);
	if (hf->gr_system >= 0)
		sys = simple_string(c, POOL_ROOTSYSTEM, hf->rs_system,
				    cap.v[hf->gr_system], 0);
	if (hf->gr_type >= 0)
		type = simple_string(c, POOL_ROOTTYPE, hf->rt_type,
				     cap.v[hf->gr_type], 0);
	/* "system / type", as `jfr print` groups roots, then the detail */
	buf_addf(&b, "%s / %s", sys ? sys : "unknown", type ? type : "unknown");
	if (desc && *desc)
		buf_addf(&b, " (%s)", desc);
	out = arena_memdup(&c->consts, b.data, b.len);
	buf_release(&b);
	cache(c, POOL_GCROOT, key, out);
	return out;
}

struct jfr_class *jfr_old_object_class(struct jfr_chunk *c, uint64_t key)
{
	struct capture cap;
	struct rd r;

	if (c->hf.oo_type < 0 || !pool_value(c, POOL_OLDOBJECT, key, &r))
		return NULL;
	capture_struct(c, &r, c->pool_type[POOL_OLDOBJECT], &cap);
	if (r.bad)
		return NULL;
	return jfr_class(c, cap.v[c->hf.oo_type]);
}
