/*
 * Values, strings and constants of a JFR chunk (jfr_int.h): values
 * skipped or captured by their types, strings decoded to UTF-8, the
 * checkpoint events' constant pools indexed, and the constants that
 * events name (classes, methods, stacks, threads, GC roots) resolved on
 * first use and cached for the chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/jfr/jfr_int.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* --- generic values ---------------------------------------------------- */

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
		jfr_skip_value(c, r, ty->fields[i].type, ty->fields[i].array,
			       ty->fields[i].cp, depth + 1);
}

void jfr_skip_value(const struct jfr_chunk *c, struct rd *r, uint32_t t,
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

void jfr_capture_struct(const struct jfr_chunk *c, struct rd *r, uint32_t t,
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
			jfr_skip_value(c, r, f->type, f->array, f->cp, 1);
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

char *jfr_decode_jstr(struct jfr_chunk *c, struct arena *a,
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

int jfr_parse_checkpoint(struct jfr_chunk *c, uint64_t off, struct err *e)
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
	jfr_capture_struct(c, &r, c->pool_type[pool], &cap);
	if (r.bad ||
	    c->types[c->types[c->pool_type[pool]].fields[field].type].prim !=
		    P_STRING)
		return NULL;
	s = jfr_decode_jstr(c, &c->consts, &cap.s[field], depth);
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
	out = jfr_decode_jstr(c, &c->consts, &s, depth);
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
	jfr_capture_struct(c, &r, c->pool_type[POOL_CLASS], &cap);
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
		jfr_capture_struct(c, &r, c->pool_type[POOL_METHOD], &cap);
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

int jfr_stack_refs(struct jfr_chunk *c, uint64_t key,
		   struct jfr_frame_ref **frames, size_t *cap, uint32_t *n_out,
		   bool *truncated)
{
	const struct hot_fields *hf = &c->hf;
	const struct type *t;
	struct rd r;
	uint32_t i;

	*n_out = 0;
	*truncated = false;
	if (hf->st_frames < 0 || !pool_value(c, POOL_STACK, key, &r))
		return ERR_FAIL;
	t = &c->types[c->pool_type[POOL_STACK]];
	for (i = 0; i < t->n_fields && !r.bad; i++) {
		const struct field *f = &t->fields[i];
		uint64_t n, k;

		if ((int)i == hf->st_truncated && !f->array && !f->cp) {
			*truncated = read_scalar(c, &r, f) != 0;
			continue;
		}
		if ((int)i != hf->st_frames || !f->array || f->cp ||
		    hf->fr_method < 0) {
			jfr_skip_value(c, &r, f->type, f->array, f->cp, 0);
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
		if (n > *cap) {
			*cap = n > 2 * *cap ? n : 2 * *cap;
			*frames =
				xreallocarray(*frames, *cap, sizeof(**frames));
		}
		for (k = 0; k < n && !r.bad; k++) {
			struct jfr_frame_ref *fr = &(*frames)[k];
			struct capture cap_;

			jfr_capture_struct(c, &r, f->type, &cap_);
			if (r.bad)
				break;
			fr->method = cap_.v[hf->fr_method];
			fr->line =
				hf->fr_line >= 0
					? (int32_t)(uint32_t)cap_.v[hf->fr_line]
					: -1;
			fr->bci =
				hf->fr_bci >= 0
					? (int32_t)(uint32_t)cap_.v[hf->fr_bci]
					: -1;
			fr->has_type = hf->fr_type >= 0;
			fr->type = fr->has_type ? cap_.v[hf->fr_type] : 0;
		}
		*n_out = (uint32_t)k;
	}
	return r.bad ? ERR_FAIL : 0;
}

void jfr_frame_resolve(struct jfr_chunk *c, const struct jfr_frame_ref *r,
		       struct jfr_frame *fr)
{
	const struct method *m = method(c, r->method);
	const char *ft = NULL;

	fr->cls = m->cls;
	fr->method = m->name;
	fr->descriptor = m->descriptor;
	fr->hidden = m->hidden;
	fr->line = r->line;
	fr->bci = r->bci;
	if (r->has_type)
		ft = simple_string(c, POOL_FRAMETYPE, c->hf.ft_description,
				   r->type, 0);
	fr->type = ft ? ft : "unknown";
}

struct jfr_stack *jfr_stack(struct jfr_chunk *c, uint64_t key)
{
	struct jfr_stack *st;
	uint32_t n, k;
	bool truncated;

	if ((st = cached(c, POOL_STACK, key)))
		return st;
	if (jfr_stack_refs(c, key, &c->refs, &c->alloc_refs, &n, &truncated) <
	    0)
		return NULL;
	st = arena_calloc(&c->consts, 1, sizeof(*st));
	st->key = key;
	st->truncated = truncated;
	st->frames = arena_calloc(&c->consts, n ? n : 1, sizeof(*st->frames));
	for (k = 0; k < n; k++)
		jfr_frame_resolve(c, &c->refs[k], &st->frames[k]);
	st->n_frames = n;
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
	jfr_capture_struct(c, &r, c->pool_type[POOL_THREAD], &cap);
	if (r.bad)
		return NULL;
	th = arena_calloc(&c->consts, 1, sizeof(*th));
	th->key = key;
	if (hf->th_java_name >= 0)
		jname = jfr_decode_jstr(c, &c->consts, &cap.s[hf->th_java_name],
					0);
	if (hf->th_os_name >= 0)
		oname = jfr_decode_jstr(c, &c->consts, &cap.s[hf->th_os_name],
					0);
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

const char *jfr_gc_name(struct jfr_chunk *c, uint64_t key)
{
	return simple_string(c, POOL_GCNAME, c->hf.gn_name, key, 0);
}

const char *jfr_gc_cause(struct jfr_chunk *c, uint64_t key)
{
	return simple_string(c, POOL_GCCAUSE, c->hf.gc_cause, key, 0);
}

const char *jfr_g1_yc_type(struct jfr_chunk *c, uint64_t key)
{
	return simple_string(c, POOL_G1YCTYPE, c->hf.g1_type, key, 0);
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
	jfr_capture_struct(c, &r, c->pool_type[POOL_GCROOT], &cap);
	if (r.bad)
		return NULL;
	if (hf->gr_description >= 0)
		desc = jfr_decode_jstr(c, &c->consts,
				       &cap.s[hf->gr_description], 0);
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
	jfr_capture_struct(c, &r, c->pool_type[POOL_OLDOBJECT], &cap);
	if (r.bad)
		return NULL;
	return jfr_class(c, cap.v[c->hf.oo_type]);
}
