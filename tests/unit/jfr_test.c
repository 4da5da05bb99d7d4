/*
 * Unit tests for src/formats/jfr.  The chunks are built here, byte by byte,
 * by a small writer that follows ../shared/reference/jfr-format.md
 * (sections 3-9, 16), from values each test chooses; the expectations are
 * those values, never what the decoder printed.  The writer checks
 * itself against the worked bytes of section 16 first.
 *
 * Type ids are deliberately not the JDK's (and differ between chunks) so
 * that only a decoder that finds types by name passes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/jfr/jfr.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "store/store.h"
#include "test.h"
#include "util/buf.h"
#include "util/err.h"

/* --- the writer: integers -------------------------------------------------- */

static void put_u1(struct buf *b, uint64_t v)
{
	buf_addch(b, (int)(v & 0xff));
}

static void patch_be(struct buf *b, size_t at, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		b->data[at + i] = (char)(unsigned char)(v >> (8 * (n - 1 - i)));
}

/* Minimal varint (4.1): 7 bits a byte, the ninth byte holds 8 bits. */
static void vint(struct buf *b, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		if (v < 0x80) {
			put_u1(b, v);
			return;
		}
		put_u1(b, (v & 0x7f) | 0x80);
		v >>= 7;
	}
	put_u1(b, v); /* bits 56..63, all eight */
}

/* Padded to n bytes (n <= 8, v < 2^(7n)): b0|0x80 ... b(n-1). */
static void vint_pad_at(struct buf *b, size_t at, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		unsigned char x = (unsigned char)((v >> (7 * i)) & 0x7f);

		b->data[at + i] = (char)(i + 1 < n ? x | 0x80 : x);
	}
}

static void vint_pad(struct buf *b, uint64_t v, unsigned n)
{
	size_t at = b->len;
	unsigned i;

	for (i = 0; i < n; i++)
		put_u1(b, 0);
	vint_pad_at(b, at, v, n);
}

/* All nine bytes, whatever the value. */
static void vint9(struct buf *b, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		put_u1(b, ((v >> (7 * i)) & 0x7f) | 0x80);
	put_u1(b, v >> 56);
}

static size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80 && n < 9) {
		v >>= 7;
		n++;
	}
	return n;
}

/* --- the writer: strings (4.3) ---------------------------------------------- */

static void s_null(struct buf *b)
{
	put_u1(b, 0);
}

static void s_empty(struct buf *b)
{
	put_u1(b, 1);
}

static void s_ref(struct buf *b, uint64_t key)
{
	put_u1(b, 2);
	vint(b, key);
}

static void s_utf8(struct buf *b, const char *s)
{
	put_u1(b, 3);
	vint(b, strlen(s));
	buf_add(b, s, strlen(s));
}

static void s_utf16(struct buf *b, const uint16_t *u, size_t n)
{
	size_t i;

	put_u1(b, 4);
	vint(b, n);
	for (i = 0; i < n; i++)
		vint(b, u[i]);
}

/* ASCII text as UTF-16 units */
static void s_utf16a(struct buf *b, const char *s)
{
	put_u1(b, 4);
	vint(b, strlen(s));
	for (; *s; s++)
		vint(b, (unsigned char)*s);
}

static void s_latin1(struct buf *b, const char *s)
{
	put_u1(b, 5);
	vint(b, strlen(s));
	buf_add(b, s, strlen(s));
}

/* --- the writer: types ------------------------------------------------------- */

enum {
	O_LONG,
	O_INT,
	O_BOOLEAN,
	O_BYTE,
	O_STRING,
	O_THREAD,
	O_SYMBOL,
	O_CLASS,
	O_METHOD,
	O_FRAMETYPE,
	O_STACKFRAME,
	O_STACKTRACE,
	O_CHUNKHEADER,
	O_POINT,
	O_BAG,
	O_LABEL,
	O_SAMPLE,
	O_UNRELATED,
	O__COUNT
};

struct tfield {
	const char *name;
	int type;
	bool array, cp, annotated;
};

struct tdef {
	int o;
	const char *name, *super;
	bool simple;
	struct tfield f[6]; /* ends at name == NULL */
};

static const struct tdef tdefs[] = {
	{O_LONG, "long", NULL, false, {{NULL, 0, false, false, false}}},
	{O_INT, "int", NULL, false, {{NULL, 0, false, false, false}}},
	{O_BOOLEAN, "boolean", NULL, false, {{NULL, 0, false, false, false}}},
	{O_BYTE, "byte", NULL, false, {{NULL, 0, false, false, false}}},
	{O_STRING,
	 "java.lang.String",
	 NULL,
	 false,
	 {{NULL, 0, false, false, false}}},
	{O_THREAD,
	 "java.lang.Thread",
	 NULL,
	 false,
	 {{"osName", O_STRING, false, false, false},
	  {"osThreadId", O_LONG, false, false, false},
	  {"javaName", O_STRING, false, false, true},
	  {"javaThreadId", O_LONG, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_SYMBOL,
	 "jdk.types.Symbol",
	 NULL,
	 true,
	 {{"string", O_STRING, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_CLASS,
	 "java.lang.Class",
	 NULL,
	 false,
	 {{"classLoader", O_LONG, false, false, false},
	  {"name", O_SYMBOL, false, true, false},
	  {"modifiers", O_INT, false, false, false},
	  {"hidden", O_BOOLEAN, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_METHOD,
	 "jdk.types.Method",
	 NULL,
	 false,
	 {{"type", O_CLASS, false, true, false},
	  {"name", O_SYMBOL, false, true, false},
	  {"descriptor", O_SYMBOL, false, true, false},
	  {"modifiers", O_INT, false, false, false},
	  {"hidden", O_BOOLEAN, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_FRAMETYPE,
	 "jdk.types.FrameType",
	 NULL,
	 true,
	 {{"description", O_STRING, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_STACKFRAME,
	 "jdk.types.StackFrame",
	 NULL,
	 false,
	 {{"method", O_METHOD, false, true, false},
	  {"lineNumber", O_INT, false, false, false},
	  {"bytecodeIndex", O_INT, false, false, false},
	  {"type", O_FRAMETYPE, false, true, false},
	  {NULL, 0, false, false, false}}},
	{O_STACKTRACE,
	 "jdk.types.StackTrace",
	 NULL,
	 false,
	 {{"truncated", O_BOOLEAN, false, false, false},
	  {"frames", O_STACKFRAME, true, false, false},
	  {NULL, 0, false, false, false}}},
	{O_CHUNKHEADER,
	 "jdk.types.ChunkHeader",
	 NULL,
	 true,
	 {{"payload", O_BYTE, true, false, false},
	  {NULL, 0, false, false, false}}},
	{O_POINT,
	 "test.Point",
	 NULL,
	 false,
	 {{"x", O_INT, false, false, false},
	  {"label", O_STRING, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_BAG,
	 "test.Bag",
	 NULL,
	 false,
	 {{"values", O_LONG, true, false, false},
	  {"names", O_SYMBOL, true, true, false},
	  {"where", O_POINT, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_LABEL,
	 "jdk.jfr.Label",
	 "java.lang.annotation.Annotation",
	 false,
	 {{"value", O_STRING, false, false, false},
	  {NULL, 0, false, false, false}}},
	{O_SAMPLE,
	 "jdk.ObjectAllocationSample",
	 "jdk.jfr.Event",
	 false,
	 {{"startTime", O_LONG, false, false, false},
	  {"eventThread", O_THREAD, false, true, false},
	  {"stackTrace", O_STACKTRACE, false, true, false},
	  {"objectClass", O_CLASS, false, true, true},
	  {"weight", O_LONG, false, false, true},
	  {NULL, 0, false, false, false}}},
	{O_UNRELATED,
	 "test.Unrelated",
	 "jdk.jfr.Event",
	 false,
	 {{"startTime", O_LONG, false, false, false},
	  {"point", O_POINT, false, false, false},
	  {"values", O_LONG, true, false, false},
	  {"names", O_SYMBOL, true, true, false},
	  {"flag", O_BOOLEAN, false, false, false},
	  {NULL, 0, false, false, false}}},
};

#define N_TDEFS (sizeof(tdefs) / sizeof(tdefs[0]))

/* --- the writer: the chunk ------------------------------------------------- */

struct w {
	struct buf b;
	uint64_t base;	 /* type ids: base + 3 * O_x + 1 */
	size_t last_cp;	 /* chunk offset of the last checkpoint (0: none) */
	size_t meta;	 /* chunk offset of the metadata event */
	size_t hdr_copy; /* where the HEADER checkpoint's copy goes (0: none) */
	unsigned char *copy[8]; /* what the decoder was given, see w_data() */
	size_t n_copy;
};

static uint64_t tid(const struct w *w, int o)
{
	return w->base + 3 * (uint64_t)o + 1;
}

struct hvals {
	int64_t start_ns, duration_ns, start_ticks, ticks_per_sec;
};

static const struct hvals hv_1e9 = {1795301015789868763LL, 5000000000LL,
				    325481737LL, 1000000000LL};
static const struct hvals hv_2e9 = {1795301015789868763LL, 5000000000LL,
				    325481737LL, 2000000000LL};

static void w_begin(struct w *w, uint64_t base)
{
	memset(w, 0, sizeof(*w));
	buf_init(&w->b);
	w->base = base;
	while (w->b.len < JFR_HEADER_LEN)
		put_u1(&w->b, 0);
}

/* The 68-byte header of section 3, with size = what was written. */
static void w_finish(struct w *w, const struct hvals *hv)
{
	struct buf *b = &w->b;

	memcpy(b->data, "FLR\0", 4);
	patch_be(b, 4, 2, 2); /* major */
	patch_be(b, 6, 1, 2); /* minor */
	patch_be(b, 8, b->len, 8);
	patch_be(b, 16, w->last_cp, 8);
	patch_be(b, 24, w->meta, 8);
	patch_be(b, 32, (uint64_t)hv->start_ns, 8);
	patch_be(b, 40, (uint64_t)hv->duration_ns, 8);
	patch_be(b, 48, (uint64_t)hv->start_ticks, 8);
	patch_be(b, 56, (uint64_t)hv->ticks_per_sec, 8);
	b->data[64] = 0;       /* state: finished */
	b->data[65] = 0;       /* padding */
	patch_be(b, 66, 3, 2); /* compressed ints, final chunk */
	if (w->hdr_copy)
		memcpy(b->data + w->hdr_copy, b->data, JFR_HEADER_LEN);
}

/* The first n bytes of the chunk in a block of exactly that size, so
 * that a read past them is caught under ASan.  Freed by w_release(). */
static const unsigned char *w_data(struct w *w, size_t n)
{
	unsigned char *p = malloc(n ? n : 1);

	memcpy(p, w->b.data, n);
	if (w->n_copy < sizeof(w->copy) / sizeof(w->copy[0]))
		w->copy[w->n_copy++] = p;
	return p;
}

static void w_release(struct w *w)
{
	size_t i;

	for (i = 0; i < w->n_copy; i++)
		free(w->copy[i]);
	w->n_copy = 0;
	buf_release(&w->b);
}
/* An event whose size is a varint padded to pad bytes, filled in by
 * ev_end_pad(). */
static size_t ev_begin_pad(struct w *w, uint64_t type, unsigned pad)
{
	size_t at = w->b.len;

	vint_pad(&w->b, 0, pad);
	vint(&w->b, type);
	return at;
}

static void ev_end_pad(struct w *w, size_t at, unsigned pad)
{
	vint_pad_at(&w->b, at, w->b.len - at, pad);
}

static size_t ev_begin(struct w *w, uint64_t type)
{
	return ev_begin_pad(w, type, 4);
}

static void ev_end(struct w *w, size_t at)
{
	ev_end_pad(w, at, 4);
}

/* An event with a minimal size varint around payload p. */
static size_t ev_minimal(struct w *w, uint64_t type, const struct buf *p)
{
	size_t at = w->b.len, rest = vlen(type) + p->len, n = 1;

	while (vlen(rest + n) != n)
		n++;
	vint(&w->b, rest + n);
	vint(&w->b, type);
	buf_add(&w->b, p->data, p->len);
	return at;
}

/* The metadata string table. */
struct strtab {
	char s[160][96];
	size_t n;
};

static uint64_t stri(struct strtab *t, const char *s)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i], s))
			return i;
	snprintf(t->s[t->n], sizeof(t->s[0]), "%s", s);
	return t->n++;
}

/* element := name, attrs (key, value)..., child count */
static void el(struct buf *b, struct strtab *t, const char *name,
	       const char *const *attrs, uint64_t n_children)
{
	size_t n = 0, i;

	while (attrs && attrs[2 * n])
		n++;
	vint(b, stri(t, name));
	vint(b, n);
	for (i = 0; i < n; i++) {
		vint(b, stri(t, attrs[2 * i]));
		vint(b, stri(t, attrs[2 * i + 1]));
	}
	vint(b, n_children);
}

static void num(char *out, size_t len, uint64_t v)
{
	snprintf(out, len, "%llu", (unsigned long long)v);
}

/* One class element and its fields.  Event types get an annotation and
 * a setting between their first and second field, which a reader must
 * pass over; fields marked annotated carry an annotation child. */
static void write_class(struct w *w, struct buf *b, struct strtab *t,
			const struct tdef *d)
{
	char id[32], label_id[32], bool_id[32];
	const char *attrs[12];
	size_t nf = 0, k = 0, i;
	bool event = d->super && !strcmp(d->super, "jdk.jfr.Event");

	while (d->f[nf].name)
		nf++;
	num(id, sizeof(id), tid(w, d->o));
	num(label_id, sizeof(label_id), tid(w, O_LABEL));
	num(bool_id, sizeof(bool_id), tid(w, O_BOOLEAN));
	attrs[k++] = "id";
	attrs[k++] = id;
	attrs[k++] = "name";
	attrs[k++] = d->name;
	if (d->super) {
		attrs[k++] = "superType";
		attrs[k++] = d->super;
	}
	if (d->simple) {
		attrs[k++] = "simpleType";
		attrs[k++] = "true";
	}
	attrs[k] = NULL;
	el(b, t, "class", attrs, nf + (event ? 2 : 0));
	for (i = 0; i < nf; i++) {
		const struct tfield *f = &d->f[i];
		char cls[32];

		k = 0;
		num(cls, sizeof(cls), tid(w, f->type));
		attrs[k++] = "name";
		attrs[k++] = f->name;
		attrs[k++] = "class";
		attrs[k++] = cls;
		if (f->array) {
			attrs[k++] = "dimension";
			attrs[k++] = "1";
		}
		if (f->cp) {
			attrs[k++] = "constantPool";
			attrs[k++] = "true";
		}
		attrs[k] = NULL;
		el(b, t, "field", attrs, f->annotated ? 1 : 0);
		if (f->annotated) {
			const char *an[] = {"class", label_id, "value",
					    "A label", NULL};

			el(b, t, "annotation", an, 0);
		}
		if (event && i == 0) {
			const char *an[] = {"class", label_id, "value",
					    "An event", NULL};
			const char *st[] = {"name",  "enabled",	     "class",
					    bool_id, "defaultValue", "true",
					    NULL};

			el(b, t, "annotation", an, 0);
			el(b, t, "setting", st, 1);
			el(b, t, "annotation", an, 0);
		}
	}
}

/* The metadata event (section 6): the string table is written in turn as
 * UTF-8, UTF-16 and Latin-1 strings. */
static void w_metadata(struct w *w, bool reverse)
{
	struct strtab *t = calloc(1, sizeof(*t));
	struct buf tree = BUF_INIT;
	const char *region[] = {"locale", "en_US", "gmtOffset", "3600000",
				NULL};
	size_t i, at;

	el(&tree, t, "root", NULL, 2);
	el(&tree, t, "metadata", NULL, N_TDEFS);
	for (i = 0; i < N_TDEFS; i++)
		write_class(w, &tree, t, &tdefs[reverse ? N_TDEFS - 1 - i : i]);
	el(&tree, t, "region", region, 0);

	w->meta = at = ev_begin(w, 0);
	vint(&w->b, 1000); /* startTime */
	vint(&w->b, 0);	   /* duration */
	vint(&w->b, 7);	   /* metadataId */
	vint(&w->b, t->n);
	for (i = 0; i < t->n; i++) {
		if (i % 3 == 0)
			s_utf8(&w->b, t->s[i]);
		else if (i % 3 == 1)
			s_utf16a(&w->b, t->s[i]);
		else
			s_latin1(&w->b, t->s[i]);
	}
	buf_add(&w->b, tree.data, tree.len);
	ev_end(w, at);
	buf_release(&tree);
	free(t);
}

/* A checkpoint (section 8): delta back to the previous one, 0 for the
 * first.  The pools follow; cp_end() closes it. */
static size_t cp_begin(struct w *w, uint64_t kind, uint64_t n_pools)
{
	size_t at = ev_begin(w, 1);

	vint(&w->b, 2000); /* startTime */
	vint(&w->b, 0);	   /* duration */
	if (w->last_cp)
		vint(&w->b, (uint64_t)((int64_t)w->last_cp - (int64_t)at));
	else
		vint(&w->b, 0);
	vint(&w->b, kind);
	vint(&w->b, n_pools);
	w->last_cp = at;
	return at;
}

static void pool(struct w *w, int o, uint64_t count)
{
	vint(&w->b, tid(w, o));
	vint(&w->b, count);
}

/* The checkpoint of kind HEADER that ends a finished chunk, holding a
 * copy of the header (filled in by w_finish). */
static void w_header_checkpoint(struct w *w)
{
	size_t at = cp_begin(w, 2, 1), i;

	pool(w, O_CHUNKHEADER, 1);
	vint(&w->b, 1);
	vint(&w->b, JFR_HEADER_LEN);
	w->hdr_copy = w->b.len;
	for (i = 0; i < JFR_HEADER_LEN; i++)
		put_u1(&w->b, 0);
	ev_end(w, at);
}

/* Pool entries, minimal encodings. */
static void e_symbol(struct w *w, uint64_t key, const char *s)
{
	vint(&w->b, key);
	s_utf8(&w->b, s);
}

static void e_class(struct w *w, uint64_t key, uint64_t name_sym, bool hidden)
{
	vint(&w->b, key);
	vint(&w->b, 0x7f00deadbeefULL); /* classLoader */
	vint(&w->b, name_sym);
	vint(&w->b, 0x411); /* modifiers */
	put_u1(&w->b, hidden ? 1 : 0);
}

static void e_method(struct w *w, uint64_t key, uint64_t cls, uint64_t name,
		     uint64_t desc, bool hidden)
{
	vint(&w->b, key);
	vint(&w->b, cls);
	vint(&w->b, name);
	vint(&w->b, desc);
	vint(&w->b, 9); /* public static */
	put_u1(&w->b, hidden ? 1 : 0);
}

static void e_thread(struct w *w, uint64_t key, const char *os_name,
		     uint64_t os_id, const char *java_name, uint64_t java_id)
{
	vint(&w->b, key);
	if (os_name)
		s_utf8(&w->b, os_name);
	else
		s_null(&w->b);
	vint(&w->b, os_id);
	if (java_name)
		s_utf8(&w->b, java_name);
	else
		s_null(&w->b);
	vint(&w->b, java_id);
}

static void frame(struct w *w, uint64_t method, uint32_t line, uint32_t bci,
		  uint64_t type)
{
	vint(&w->b, method);
	vint(&w->b, line); /* an int: its 32 bits, zero-extended */
	vint(&w->b, bci);
	vint(&w->b, type);
}

/* A sample event, minimal varints, padded 4-byte size. */
static size_t sample(struct w *w, uint64_t ticks, uint64_t thread,
		     uint64_t stack, uint64_t cls, uint64_t weight)
{
	size_t at = ev_begin(w, tid(w, O_SAMPLE));

	vint(&w->b, ticks);
	vint(&w->b, thread);
	vint(&w->b, stack);
	vint(&w->b, cls);
	vint(&w->b, weight);
	ev_end(w, at);
	return at;
}

/* A test.Unrelated event: an inline struct, a long[] and a Symbol[]. */
static size_t unrelated(struct w *w, uint64_t ticks)
{
	size_t at = ev_begin(w, tid(w, O_UNRELATED));

	vint(&w->b, ticks);
	vint(&w->b, 0xFFFFFFFFu); /* point.x = -1 */
	s_utf16a(&w->b, "a label");
	vint(&w->b, 3); /* values */
	vint(&w->b, UINT64_MAX);
	vint(&w->b, 0);
	vint_pad(&w->b, 300, 4);
	vint(&w->b, 2); /* names */
	vint(&w->b, 1u << 24);
	vint(&w->b, 12345);
	put_u1(&w->b, 1); /* flag */
	ev_end(w, at);
	return at;
}

/* --- reading -------------------------------------------------------------- */

#define MAX_EV 40

struct evs {
	struct jfr_event ev[MAX_EV];
	int rc[MAX_EV];
	size_t n;
	bool ended; /* jfr_chunk_next said 1 */
};

static void read_all(struct jfr_chunk *c, struct evs *l)
{
	struct err e;

	memset(l, 0, sizeof(*l));
	while (l->n < MAX_EV) {
		int rc;

		err_init(&e);
		memset(&l->ev[l->n], 0, sizeof(l->ev[0]));
		rc = jfr_chunk_next(c, &l->ev[l->n], &e);
		if (rc == 1) {
			l->ended = true;
			break;
		}
		if (rc < 0)
			CHECK(e.msg[0] != '\0');
		l->rc[l->n++] = rc;
	}
	CHECK(l->ended);
	if (l->ended) {
		struct jfr_event ev;

		err_init(&e);
		CHECK_INT(jfr_chunk_next(c, &ev, &e), ==, 1); /* stays at end */
	}
}

static void check_sample(const struct jfr_event *ev, uint64_t ticks,
			 uint64_t thread, uint64_t stack, uint64_t cls,
			 uint64_t weight)
{
	CHECK_INT(ev->kind, ==, JFR_ALLOC_SAMPLE);
	CHECK_STR(ev->type_name, "jdk.ObjectAllocationSample");
	CHECK(jfr_has(ev, JS_START));
	CHECK(jfr_has(ev, JS_THREAD));
	CHECK(jfr_has(ev, JS_STACK));
	CHECK(jfr_has(ev, JS_CLASS));
	CHECK(jfr_has(ev, JS_WEIGHT));
	CHECK_UINT(ev->v[JS_START], ==, ticks);
	CHECK_UINT(ev->v[JS_THREAD], ==, thread);
	CHECK_UINT(ev->v[JS_STACK], ==, stack);
	CHECK_UINT(ev->v[JS_CLASS], ==, cls);
	CHECK_UINT(ev->v[JS_WEIGHT], ==, weight);
}

static void check_class(struct jfr_chunk *c, uint64_t key, const char *raw,
			const char *display, bool hidden)
{
	const struct jfr_class *k = jfr_class(c, key);

	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_STR(k->raw, raw);
	CHECK_STR(k->display, display);
	CHECK_INT(k->hidden, ==, hidden);
}

static void check_frame(const struct jfr_frame *f, const char *cls_raw,
			const char *cls_display, const char *method,
			const char *descriptor, int32_t line, int32_t bci,
			const char *type, bool hidden)
{
	CHECK(f->cls != NULL);
	if (f->cls) {
		CHECK_STR(f->cls->raw, cls_raw);
		CHECK_STR(f->cls->display, cls_display);
	}
	CHECK_STR(f->method, method);
	CHECK_STR(f->descriptor, descriptor);
	CHECK_INT(f->line, ==, line);
	CHECK_INT(f->bci, ==, bci);
	CHECK_STR(f->type, type);
	CHECK_INT(f->hidden, ==, hidden);
}

static void check_thread(struct jfr_chunk *c, uint64_t key, const char *name,
			 int64_t java_id, int64_t os_id)
{
	const struct jfr_thread *t = jfr_thread(c, key);

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_UINT(t->key, ==, key);
	CHECK_STR(t->name, name);
	CHECK_INT(t->java_id, ==, java_id);
	CHECK_INT(t->os_id, ==, os_id);
}

/* --- the writer against the reference's worked bytes (section 16) -------- */

static bool bytes_are(const struct buf *b, const char *hex)
{
	struct buf want = BUF_INIT;
	bool same;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		put_u1(&want, strtoul((char[]){hex[0], hex[1], 0}, NULL, 16));
		hex += 2;
	}
	same = want.len == b->len && !memcmp(want.data, b->data, b->len);
	buf_release(&want);
	return same;
}

TEST(jfr_writer_matches_reference_bytes)
{
	struct buf b = BUF_INIT;

	vint(&b, 454910901);
	CHECK(bytes_are(&b, "b5 c7 f5 d8 01"));
	buf_reset(&b);
	vint(&b, 477);
	CHECK(bytes_are(&b, "dd 03"));
	buf_reset(&b);
	vint(&b, 252816);
	CHECK(bytes_are(&b, "90 b7 0f"));
	buf_reset(&b);
	vint_pad(&b, 95, 4);
	CHECK(bytes_are(&b, "df 80 80 00"));
	buf_reset(&b);
	vint(&b, (uint64_t)-15749); /* the negative checkpoint delta */
	CHECK(bytes_are(&b, "fb 84 ff ff ff ff ff ff ff"));
	buf_reset(&b);
	vint(&b, UINT64_MAX); /* a long of -1 takes 9 bytes */
	CHECK(bytes_are(&b, "ff ff ff ff ff ff ff ff ff"));
	buf_reset(&b);
	vint(&b, 0xFFFFFFFFu); /* an int of -1 takes 5 */
	CHECK(bytes_are(&b, "ff ff ff ff 0f"));
	buf_reset(&b);
	vint9(&b, 1);
	CHECK(bytes_are(&b, "81 80 80 80 80 80 80 80 00"));
	buf_reset(&b);
	vint_pad(&b, 1, 8);
	CHECK(bytes_are(&b, "81 80 80 80 80 80 80 00"));
	buf_release(&b);
}

/* --- 1: a chunk in the order HotSpot writes one ---------------------------- */

/* Pool keys of the rich chunk. */
#define K_SYM(n)    ((1ULL << 24) + (n))
#define K_THREAD_VM 0x100000001ULL
#define K_M_IO	    15000001ULL
#define K_M_MAIN    15000002ULL
#define K_M_LAMBDA  150000003ULL
#define LAMBDA	    "Foo$$Lambda$75+0x00007f4c5c02b2d0/1979313356"
#define HUGE_WEIGHT 0x0123456789ABCDEFULL
#define T_S4	    454911902ULL
#define T_S5	    (325481737ULL + 2000000001ULL)

struct rich {
	size_t off[12];
	size_t n;
};

/* The rich chunk, with `repeats` more samples after S5 that name S3's
 * thread, truncated stack and class again (none in the chunk the other
 * tests read): an importer that passes samples by key takes these by
 * keys it already has. */
static void build_rich_ex(struct w *w, const struct hvals *hv, struct rich *r,
			  unsigned repeats)
{
	struct buf p = BUF_INIT;
	size_t at;
	unsigned k;

	w_begin(w, 1000);
	r->n = 0;

	/* S1: before the metadata and every constant it names, the
	 * worked event of section 16 with a minimal size */
	vint(&p, 454910901);
	vint(&p, 1);
	vint(&p, 5);
	vint(&p, 477);
	vint(&p, 252816);
	r->off[r->n++] = ev_minimal(w, tid(w, O_SAMPLE), &p);
	buf_release(&p);

	r->off[r->n++] = unrelated(w, 454910950);

	/* CP1: part of the symbols and classes; class 477's name is only
	 * defined in CP2 */
	r->off[r->n++] = at = cp_begin(w, 0, 3);
	pool(w, O_SYMBOL, 2);
	e_symbol(w, K_SYM(2), "[[Ljava/lang/String;");
	e_symbol(w, K_SYM(9), "run");
	pool(w, O_CLASS, 2);
	e_class(w, 477, K_SYM(1), false);
	e_class(w, 478, K_SYM(2), false);
	pool(w, O_FRAMETYPE, 4);
	vint(&w->b, 0);
	s_utf8(&w->b, "Interpreted");
	vint(&w->b, 1);
	s_utf8(&w->b, "JIT compiled");
	vint(&w->b, 2);
	s_utf8(&w->b, "Inlined");
	vint(&w->b, 3);
	s_utf8(&w->b, "Native");
	ev_end(w, at);

	/* the metadata, after a checkpoint */
	r->off[r->n++] = w->b.len;
	w_metadata(w, false);

	/* S2: before the chunk's start ticks, a thread key over 32 bits
	 * padded to 8 bytes, weight -1 (9 bytes) */
	r->off[r->n++] = at = ev_begin(w, tid(w, O_SAMPLE));
	vint(&w->b, 325481737 - 3);
	vint_pad(&w->b, K_THREAD_VM, 8);
	vint(&w->b, 6);
	vint(&w->b, 478);
	vint(&w->b, UINT64_MAX);
	ev_end(w, at);

	/* S3: exactly at the start; a weight that needs all 9 bytes */
	r->off[r->n++] = sample(w, 325481737, 1, 6, 479, HUGE_WEIGHT);

	/* S4: startTime padded to 8 bytes, a negative weight in 9 bytes
	 * that are not all 0xff, the class key padded to 4 */
	r->off[r->n++] = at = ev_begin(w, tid(w, O_SAMPLE));
	vint_pad(&w->b, T_S4, 8);
	vint(&w->b, 2);
	vint(&w->b, 5);
	vint_pad(&w->b, 480, 4);
	vint(&w->b, (uint64_t)(int64_t)-252816);
	ev_end(w, at);

	/* S5: its size padded to 8 bytes, the weight padded to 4, the
	 * small keys written in full 9-byte form */
	r->off[r->n++] = at = ev_begin_pad(w, tid(w, O_SAMPLE), 8);
	vint(&w->b, T_S5);
	vint9(&w->b, 1);
	vint9(&w->b, 5);
	vint9(&w->b, 477);
	vint_pad(&w->b, 4096, 4);
	ev_end_pad(w, at, 8);

	for (k = 0; k < repeats; k++)
		(void)sample(w, T_S5 + 1 + k, 1, 6, 479, 1000 + k);

	/* CP2: the rest, chained to CP1 by a negative delta */
	r->off[r->n++] = at = cp_begin(w, 0, 6);
	pool(w, O_SYMBOL, 8);
	e_symbol(w, K_SYM(1), "[B");
	e_symbol(w, K_SYM(3), "java/util/HashMap$Node");
	e_symbol(w, K_SYM(4), LAMBDA);
	e_symbol(w, K_SYM(5), "com/example/HeapWorkload");
	e_symbol(w, K_SYM(6), "ioBuffers");
	e_symbol(w, K_SYM(7), "(Ljava/util/Random;I)[B");
	e_symbol(w, K_SYM(8), "main");
	e_symbol(w, K_SYM(10), "([Ljava/lang/String;)V");
	pool(w, O_CLASS, 3);
	e_class(w, 479, K_SYM(3), false);
	e_class(w, 480, K_SYM(4), true);
	e_class(w, 20, K_SYM(5), false);
	pool(w, O_METHOD, 3);
	e_method(w, K_M_IO, 20, K_SYM(6), K_SYM(7), false);
	e_method(w, K_M_MAIN, 20, K_SYM(8), K_SYM(10), false);
	/* the lambda's run(): its name is in CP1, its descriptor in a
	 * later pool of this checkpoint */
	e_method(w, K_M_LAMBDA, 480, K_SYM(9), K_SYM(11), true);
	pool(w, O_STACKTRACE, 2);
	vint(&w->b, 5);
	put_u1(&w->b, 0);
	vint(&w->b, 2);
	frame(w, K_M_IO, 42, 7, 1);
	/* line padded to 4 bytes, bci 0, frame type key 0 (a real key) */
	vint(&w->b, K_M_MAIN);
	vint_pad(&w->b, 100, 4);
	vint(&w->b, 0);
	vint(&w->b, 0);
	vint(&w->b, 6);
	put_u1(&w->b, 1);
	vint(&w->b, 2);
	frame(w, K_M_LAMBDA, 0xFFFFFFFFu, 3, 3);
	frame(w, K_M_MAIN, 100, 12, 2);
	pool(w, O_THREAD, 3);
	e_thread(w, 1, "main", 4242, "main", 1);
	e_thread(w, K_THREAD_VM, "VM Thread", 0x7f4c5c02b2d0ULL, NULL, 0);
	e_thread(w, 2, "worker-os", 77, "worker-1", 0x123456789ULL);
	pool(w, O_SYMBOL, 1);
	e_symbol(w, K_SYM(11), "()V");
	ev_end(w, at);

	/* CP3: the HEADER checkpoint; cp_offset points here */
	r->off[r->n++] = w->b.len;
	w_header_checkpoint(w);
	w_finish(w, hv);
}

static void build_rich(struct w *w, const struct hvals *hv, struct rich *r)
{
	build_rich_ex(w, hv, r, 0);
}

static void check_rich_constants(struct jfr_chunk *c)
{
	const struct jfr_stack *st;

	check_thread(c, 1, "main", 1, 4242);
	/* no javaName: the OS name (section 9, javaName ?: osName) */
	check_thread(c, K_THREAD_VM, "VM Thread", 0, 0x7f4c5c02b2d0LL);
	check_thread(c, 2, "worker-1", 0x123456789LL, 77);

	check_class(c, 477, "[B", "byte[]", false);
	check_class(c, 478, "[[Ljava/lang/String;", "java.lang.String[][]",
		    false);
	check_class(c, 479, "java/util/HashMap$Node", "java.util.HashMap$Node",
		    false);
	check_class(c, 480, LAMBDA, LAMBDA, true);
	check_class(c, 20, "com/example/HeapWorkload",
		    "com.example.HeapWorkload", false);

	st = jfr_stack(c, 5);
	CHECK(st != NULL);
	if (st) {
		CHECK_UINT(st->key, ==, 5);
		CHECK(!st->truncated);
		CHECK_UINT(st->n_frames, ==, 2);
		if (st->n_frames == 2) {
			check_frame(&st->frames[0], "com/example/HeapWorkload",
				    "com.example.HeapWorkload", "ioBuffers",
				    "(Ljava/util/Random;I)[B", 42, 7,
				    "JIT compiled", false);
			check_frame(&st->frames[1], "com/example/HeapWorkload",
				    "com.example.HeapWorkload", "main",
				    "([Ljava/lang/String;)V", 100, 0,
				    "Interpreted", false);
		}
	}
	st = jfr_stack(c, 6);
	CHECK(st != NULL);
	if (st) {
		CHECK_UINT(st->key, ==, 6);
		CHECK(st->truncated);
		CHECK_UINT(st->n_frames, ==, 2);
		if (st->n_frames == 2) {
			check_frame(&st->frames[0], LAMBDA, LAMBDA, "run",
				    "()V", -1, 3, "Native", true);
			check_frame(&st->frames[1], "com/example/HeapWorkload",
				    "com.example.HeapWorkload", "main",
				    "([Ljava/lang/String;)V", 100, 12,
				    "Inlined", false);
		}
	}
}

static void check_rich(const struct hvals *hv, const int64_t want_ns[5])
{
	struct jfr_chunk *c = jfr_chunk_new();
	const struct jfr_header *h;
	struct rich r;
	struct evs *l = malloc(sizeof(*l));
	struct err e;
	struct w w;
	size_t i;

	build_rich(&w, hv, &r);
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_STR(e.msg, "");

	h = jfr_chunk_header(c);
	CHECK_UINT(h->major, ==, 2);
	CHECK_UINT(h->minor, ==, 1);
	CHECK_UINT(h->size, ==, w.b.len);
	CHECK_UINT(h->cp_offset, ==, r.off[9]);
	CHECK_UINT(h->meta_offset, ==, r.off[3]);
	CHECK_INT(h->start_ns, ==, hv->start_ns);
	CHECK_INT(h->duration_ns, ==, hv->duration_ns);
	CHECK_INT(h->start_ticks, ==, hv->start_ticks);
	CHECK_INT(h->ticks_per_sec, ==, hv->ticks_per_sec);
	CHECK_UINT(h->state, ==, 0);
	CHECK_UINT(h->flags, ==, 3);
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, w.b.len);
	CHECK(jfr_chunk_lost_reason(c) == NULL);

	read_all(c, l);
	CHECK_UINT(l->n, ==, r.n);
	for (i = 0; i < l->n && i < r.n; i++) {
		CHECK_INT(l->rc[i], ==, 0);
		CHECK_UINT(l->ev[i].offset, ==, r.off[i]);
		CHECK_UINT(l->ev[i].size, ==,
			   (i + 1 < r.n ? r.off[i + 1] : w.b.len) - r.off[i]);
	}
	if (l->n == r.n) {
		const struct jfr_event *ev = l->ev;

		check_sample(&ev[0], 454910901, 1, 5, 477, 252816);
		CHECK_INT(ev[1].kind, ==, JFR_OTHER);
		CHECK_UINT(ev[1].type_id, ==, tid(&w, O_UNRELATED));
		CHECK_STR(ev[1].type_name, "test.Unrelated");
		CHECK_INT(ev[2].kind, ==, JFR_CHECKPOINT);
		CHECK_UINT(ev[2].type_id, ==, 1);
		CHECK_INT(ev[3].kind, ==, JFR_METADATA);
		CHECK_UINT(ev[3].type_id, ==, 0);
		check_sample(&ev[4], 325481737 - 3, K_THREAD_VM, 6, 478,
			     UINT64_MAX);
		CHECK_INT((int64_t)ev[4].v[JS_WEIGHT], ==, -1);
		check_sample(&ev[5], 325481737, 1, 6, 479, HUGE_WEIGHT);
		check_sample(&ev[6], T_S4, 2, 5, 480,
			     (uint64_t)(int64_t)-252816);
		CHECK_INT((int64_t)ev[6].v[JS_WEIGHT], ==, -252816);
		check_sample(&ev[7], T_S5, 1, 5, 477, 4096);
		CHECK_INT(ev[8].kind, ==, JFR_CHECKPOINT);
		CHECK_INT(ev[9].kind, ==, JFR_CHECKPOINT);

		/* time: section 12, and section 16's worked value */
		CHECK_INT(jfr_ticks_to_epoch_ns(c, ev[0].v[JS_START]), ==,
			  want_ns[0]);
		CHECK_INT(jfr_ticks_to_epoch_ns(c, ev[4].v[JS_START]), ==,
			  want_ns[1]);
		CHECK_INT(jfr_ticks_to_epoch_ns(c, ev[5].v[JS_START]), ==,
			  want_ns[2]);
		CHECK_INT(jfr_ticks_to_epoch_ns(c, ev[6].v[JS_START]), ==,
			  want_ns[3]);
		CHECK_INT(jfr_ticks_to_epoch_ns(c, ev[7].v[JS_START]), ==,
			  want_ns[4]);

		/* the constants, through the events' keys */
		{
			const struct jfr_class *k =
				jfr_class(c, ev[0].v[JS_CLASS]);
			const struct jfr_thread *t =
				jfr_thread(c, ev[4].v[JS_THREAD]);
			const struct jfr_stack *st =
				jfr_stack(c, ev[4].v[JS_STACK]);

			CHECK(k && !strcmp(k->display, "byte[]"));
			CHECK(t && !strcmp(t->name, "VM Thread"));
			CHECK(st && st->truncated);
		}
	}
	check_rich_constants(c);
	CHECK_STR(jfr_type_name(c, tid(&w, O_SAMPLE)),
		  "jdk.ObjectAllocationSample");
	CHECK_STR(jfr_type_name(c, tid(&w, O_CLASS)), "java.lang.Class");
	free(l);
	jfr_chunk_free(c);
	w_release(&w);
}

TEST(jfr_forward_refs_split_pools_late_metadata)
{
	/* ticks per second 1e9: start_ns + (ticks - start_ticks) */
	static const int64_t want[5] = {
		1795301015919297927LL, /* section 16 */
		1795301015789868760LL, /* 3 ticks before the start */
		1795301015789868763LL, /* at the start */
		1795301015919298928LL, 1795301017789868764LL,
	};

	check_rich(&hv_1e9, want);
}

TEST(jfr_ticks_at_2e9_per_second)
{
	/* (ticks - start_ticks) / 2.0, truncated toward zero (section 12) */
	static const int64_t want[5] = {
		1795301015789868763LL + 64714582LL,  /* 129429164 / 2 */
		1795301015789868763LL - 1LL,	     /* -3 / 2 = -1.5 */
		1795301015789868763LL,		     /* 0 */
		1795301015789868763LL + 64715082LL,  /* 129430165 / 2 */
		1795301015789868763LL + 1000000000LL /* 2000000001 / 2 */
	};
	struct jfr_chunk *c = jfr_chunk_new();
	struct err e;
	struct w w;
	struct rich r;

	check_rich(&hv_2e9, want);

	/* durations: ticks / 2.0 */
	build_rich(&w, &hv_2e9, &r);
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_INT(jfr_ticks_to_ns(c, 3), ==, 1);
	CHECK_INT(jfr_ticks_to_ns(c, 2000000000), ==, 1000000000);
	jfr_chunk_free(c);
	w_release(&w);
}

/* --- 2: every string encoding --------------------------------------------- */

TEST(jfr_string_encodings_in_pools)
{
	static const uint16_t units[] = {0x41,	 0xE9,	 0x20AC,
					 0xD83D, 0xDE00, 0x7A};
	static const uint16_t smile[] = {'p', '/', 'S',	   'm',	  'i',
					 'l', 'e', 0xD83D, 0xDE00};
	static const uint16_t methode[] = {'m', 0xE9, 't', 'h', 'o', 'd', 'e'};
	struct jfr_chunk *c = jfr_chunk_new();
	const struct jfr_stack *st;
	struct err e;
	struct w w;
	size_t at;

	/* type ids over 32 bits, class elements in reverse order, the
	 * metadata right after the header */
	w_begin(&w, 0x123456789ULL);
	w_metadata(&w, true);
	at = cp_begin(&w, 0, 7);
	pool(&w, O_STRING, 3);
	vint(&w.b, 0); /* key 0 is a key like any other */
	s_utf8(&w.b, "p/FromPool");
	vint(&w.b, 77);
	s_utf8(&w.b, "pooled-thread");
	vint(&w.b, 78);
	s_latin1(&w.b, "Ren\xE9"
		       "e");
	pool(&w, O_THREAD, 10);
	/* 1: javaName null, so the OS name */
	vint(&w.b, 1);
	s_utf8(&w.b, "os-one");
	vint(&w.b, 11);
	s_null(&w.b);
	vint(&w.b, 101);
	/* 2: javaName empty (encoding 1) */
	vint(&w.b, 2);
	s_utf8(&w.b, "os-two");
	vint(&w.b, 12);
	s_empty(&w.b);
	vint(&w.b, 102);
	/* 3: javaName from the String pool */
	vint(&w.b, 3);
	s_null(&w.b);
	vint(&w.b, 13);
	s_ref(&w.b, 77);
	vint(&w.b, 103);
	/* 4: UTF-8, two- and four-byte sequences */
	vint(&w.b, 4);
	s_empty(&w.b);
	vint(&w.b, 14);
	s_utf8(&w.b, "caf\xC3\xA9 \xF0\x9F\x98\x80");
	vint(&w.b, 104);
	/* 5: UTF-16 units, a surrogate pair, the first unit padded */
	vint(&w.b, 5);
	s_null(&w.b);
	vint(&w.b, 15);
	put_u1(&w.b, 4);
	vint(&w.b, 6);
	vint_pad(&w.b, units[0], 4);
	{
		size_t i;

		for (i = 1; i < 6; i++)
			vint(&w.b, units[i]);
	}
	vint(&w.b, 105);
	/* 6: Latin-1 */
	vint(&w.b, 6);
	s_null(&w.b);
	vint(&w.b, 16);
	s_latin1(&w.b, "caf\xE9 \xFF");
	vint(&w.b, 106);
	/* 7: a pool reference to a Latin-1 pool string */
	vint(&w.b, 7);
	s_null(&w.b);
	vint(&w.b, 17);
	s_ref(&w.b, 78);
	vint(&w.b, 107);
	/* 8: a pool reference to key 0 */
	vint(&w.b, 8);
	s_null(&w.b);
	vint(&w.b, 18);
	s_ref(&w.b, 0);
	vint(&w.b, 108);
	/* 9: a zero-length char array, "04 00" */
	vint(&w.b, 9);
	s_utf8(&w.b, "os-nine");
	vint(&w.b, 19);
	put_u1(&w.b, 4);
	put_u1(&w.b, 0);
	vint(&w.b, 109);
	/* 10: a zero-length UTF-8 array */
	vint(&w.b, 10);
	s_utf8(&w.b, "os-ten");
	vint(&w.b, 20);
	put_u1(&w.b, 3);
	put_u1(&w.b, 0);
	vint(&w.b, 110);

	pool(&w, O_SYMBOL, 6);
	vint(&w.b, 100);
	s_latin1(&w.b, "p/Caf\xE9");
	vint(&w.b, 101);
	s_utf16(&w.b, smile, 9);
	vint(&w.b, 102);
	s_ref(&w.b, 0);
	vint(&w.b, 103);
	s_utf8(&w.b, "p/Plain");
	vint(&w.b, 104);
	s_empty(&w.b);
	vint(&w.b, 105);
	s_utf16(&w.b, methode, 7);
	pool(&w, O_CLASS, 4);
	e_class(&w, 200, 100, false);
	e_class(&w, 201, 101, false);
	e_class(&w, 202, 102, false);
	e_class(&w, 203, 103, false);
	pool(&w, O_FRAMETYPE, 3);
	vint(&w.b, 0);
	s_utf16a(&w.b, "Interpreted");
	vint(&w.b, 1);
	s_latin1(&w.b, "JIT compiled");
	vint(&w.b, 2);
	s_ref(&w.b, 77);
	pool(&w, O_METHOD, 1);
	e_method(&w, 300, 203, 105, 104, false);
	pool(&w, O_STACKTRACE, 1);
	vint(&w.b, 1);
	put_u1(&w.b, 0);
	vint(&w.b, 3);
	frame(&w, 300, 1, 2, 0);
	frame(&w, 300, 3, 4, 1);
	frame(&w, 300, 5, 6, 2);
	ev_end(&w, at);
	sample(&w, 325481737 + 10, 5, 1, 201, 64);
	w_finish(&w, &hv_1e9);

	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_STR(jfr_type_name(c, tid(&w, O_SAMPLE)),
		  "jdk.ObjectAllocationSample");
	check_thread(c, 1, "os-one", 101, 11);
	check_thread(c, 2, "", 102, 12);
	check_thread(c, 3, "pooled-thread", 103, 13);
	check_thread(c, 4, "caf\xC3\xA9 \xF0\x9F\x98\x80", 104, 14);
	check_thread(c, 5, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z", 105, 15);
	check_thread(c, 6, "caf\xC3\xA9 \xC3\xBF", 106, 16);
	check_thread(c, 7,
		     "Ren\xC3\xA9"
		     "e",
		     107, 17);
	check_thread(c, 8, "p/FromPool", 108, 18);
	check_thread(c, 9, "", 109, 19);
	check_thread(c, 10, "", 110, 20);

	check_class(c, 200, "p/Caf\xC3\xA9", "p.Caf\xC3\xA9", false);
	check_class(c, 201, "p/Smile\xF0\x9F\x98\x80",
		    "p.Smile\xF0\x9F\x98\x80", false);
	check_class(c, 202, "p/FromPool", "p.FromPool", false);
	check_class(c, 203, "p/Plain", "p.Plain", false);

	st = jfr_stack(c, 1);
	CHECK(st != NULL);
	if (st) {
		CHECK_UINT(st->n_frames, ==, 3);
		if (st->n_frames == 3) {
			check_frame(&st->frames[0], "p/Plain", "p.Plain",
				    "m\xC3\xA9thode", "", 1, 2, "Interpreted",
				    false);
			check_frame(&st->frames[1], "p/Plain", "p.Plain",
				    "m\xC3\xA9thode", "", 3, 4, "JIT compiled",
				    false);
			check_frame(&st->frames[2], "p/Plain", "p.Plain",
				    "m\xC3\xA9thode", "", 5, 6, "pooled-thread",
				    false);
		}
	}
	{
		struct jfr_event ev;

		err_init(&e);
		do {
			memset(&ev, 0, sizeof(ev));
		} while (jfr_chunk_next(c, &ev, &e) == 0 &&
			 ev.kind != JFR_ALLOC_SAMPLE);
		check_sample(&ev, 325481737 + 10, 5, 1, 201, 64);
	}
	jfr_chunk_free(c);
	w_release(&w);
}

/* --- 3: unknown and unrelated events are skipped by size ------------------- */

TEST(jfr_unknown_and_unrelated_events_skipped)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct evs *l = malloc(sizeof(*l));
	size_t off[16], n = 0, at, i;
	int counts[JFR_KIND__COUNT] = {0};
	int unknown = 0, unrel = 0;
	struct err e;
	struct w w;

	w_begin(&w, 3000);
	off[n++] = w.b.len;
	w_metadata(&w, false);
	/* pools of types no resolver wants come first and must be walked
	 * through with the metadata: an inline struct with a string, a
	 * struct with arrays, an empty pool */
	off[n++] = at = cp_begin(&w, 0, 7);
	pool(&w, O_POINT, 2);
	vint(&w.b, 1);
	vint(&w.b, 5);
	s_utf16a(&w.b, "five");
	vint(&w.b, 2);
	vint(&w.b, 0xFFFFFFFFu);
	s_utf8(&w.b, "minus one");
	pool(&w, O_BAG, 1);
	vint(&w.b, 1);
	vint(&w.b, 2);
	vint(&w.b, UINT64_MAX);
	vint(&w.b, 42);
	vint(&w.b, 3);
	vint(&w.b, 1);
	vint(&w.b, 2);
	vint(&w.b, 3);
	vint(&w.b, 9);
	s_latin1(&w.b, "nine");
	pool(&w, O_THREAD, 0);
	pool(&w, O_SYMBOL, 1);
	e_symbol(&w, 1, "[I");
	pool(&w, O_CLASS, 1);
	e_class(&w, 10, 1, false);
	pool(&w, O_THREAD, 1);
	e_thread(&w, 1, "t1-os", 31, "t1", 32);
	pool(&w, O_STACKTRACE, 1);
	vint(&w.b, 1);
	put_u1(&w.b, 0);
	vint(&w.b, 0);
	ev_end(&w, at);

	off[n++] = unrelated(&w, 325481737 + 1);
	/* an id not in the metadata, with bytes that decode as nothing */
	off[n++] = at = ev_begin(&w, 5555);
	buf_add(&w.b, "\x09\xff\xff\x07garbage", 11);
	ev_end(&w, at);
	off[n++] = sample(&w, 325481737 + 2, 1, 1, 10, 100);
	off[n++] = unrelated(&w, 325481737 + 3);
	/* the largest id there is, in 9 bytes */
	off[n++] = at = ev_begin(&w, UINT64_MAX);
	put_u1(&w.b, 0);
	ev_end(&w, at);
	off[n++] = sample(&w, 325481737 + 4, 1, 1, 10, 200);
	/* a sample with three trailing bytes after its fields (section 5) */
	off[n++] = at = ev_begin(&w, tid(&w, O_SAMPLE));
	vint(&w.b, 325481737 + 5);
	vint(&w.b, 1);
	vint(&w.b, 1);
	vint(&w.b, 10);
	vint(&w.b, 300);
	buf_add(&w.b, "\xff\xff\xff", 3);
	ev_end(&w, at);
	off[n++] = unrelated(&w, 325481737 + 6);
	w_finish(&w, &hv_1e9);

	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_STR(e.msg, "");
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, w.b.len);
	CHECK(jfr_chunk_lost_reason(c) == NULL);
	read_all(c, l);
	CHECK_UINT(l->n, ==, n);
	for (i = 0; i < l->n && i < n; i++) {
		const struct jfr_event *ev = &l->ev[i];

		CHECK_INT(l->rc[i], ==, 0);
		CHECK_UINT(ev->offset, ==, off[i]);
		if ((unsigned)ev->kind < JFR_KIND__COUNT)
			counts[ev->kind]++;
		if (ev->type_id == 5555 || ev->type_id == UINT64_MAX) {
			CHECK_INT(ev->kind, ==, JFR_OTHER);
			CHECK(ev->type_name == NULL);
			unknown++;
		}
		if (ev->type_id == tid(&w, O_UNRELATED)) {
			CHECK_INT(ev->kind, ==, JFR_OTHER);
			CHECK_STR(ev->type_name, "test.Unrelated");
			unrel++;
		}
	}
	CHECK_INT(counts[JFR_METADATA], ==, 1);
	CHECK_INT(counts[JFR_CHECKPOINT], ==, 1);
	CHECK_INT(counts[JFR_ALLOC_SAMPLE], ==, 3);
	CHECK_INT(counts[JFR_OTHER], ==, 5);
	CHECK_INT(unknown, ==, 2);
	CHECK_INT(unrel, ==, 3);
	if (l->n == n) {
		CHECK_UINT(l->ev[3].type_id, ==, 5555);
		CHECK_UINT(l->ev[6].type_id, ==, UINT64_MAX);
		check_sample(&l->ev[4], 325481737 + 2, 1, 1, 10, 100);
		check_sample(&l->ev[7], 325481737 + 4, 1, 1, 10, 200);
		check_sample(&l->ev[8], 325481737 + 5, 1, 1, 10, 300);
	}
	CHECK(jfr_type_name(c, 5555) == NULL);
	CHECK_STR(jfr_type_name(c, tid(&w, O_UNRELATED)), "test.Unrelated");
	check_class(c, 10, "[I", "int[]", false);
	check_thread(c, 1, "t1", 32, 31);
	{
		const struct jfr_stack *st = jfr_stack(c, 1);

		CHECK(st != NULL);
		CHECK(st && st->n_frames == 0 && !st->truncated);
	}
	free(l);
	jfr_chunk_free(c);
	w_release(&w);
}

/* --- 4: damage --------------------------------------------------------------- */

/* Header, metadata, one checkpoint with thread 1, class 10 ([B) and a
 * one-frame stack 1. */
static void small_begin(struct w *w)
{
	size_t at;

	w_begin(w, 9000);
	w_metadata(w, false);
	at = cp_begin(w, 0, 6);
	pool(w, O_SYMBOL, 4);
	e_symbol(w, 1, "[B");
	e_symbol(w, 2, "Main");
	e_symbol(w, 3, "main");
	e_symbol(w, 4, "()V");
	pool(w, O_CLASS, 2);
	e_class(w, 10, 1, false);
	e_class(w, 11, 2, false);
	pool(w, O_METHOD, 1);
	e_method(w, 20, 11, 3, 4, false);
	pool(w, O_FRAMETYPE, 1);
	vint(&w->b, 0);
	s_utf8(&w->b, "Interpreted");
	pool(w, O_STACKTRACE, 2);
	vint(&w->b, 1);
	put_u1(&w->b, 0);
	vint(&w->b, 1);
	frame(w, 20, 7, 8, 0);
	/* stack 2: a frame whose method and frame type are not in the
	 * pools */
	vint(&w->b, 2);
	put_u1(&w->b, 0);
	vint(&w->b, 1);
	frame(w, 999, 5, 6, 99);
	pool(w, O_THREAD, 1);
	e_thread(w, 1, "main", 2, "main", 1);
	ev_end(w, at);
}

static size_t small_sample(struct w *w, uint64_t n)
{
	return sample(w, 325481737 + n, 1, 1, 10, n * 8);
}

/* Read the events of a damaged chunk: metadata, checkpoint, then the
 * samples 1..n_good. */
static void check_small_events(struct jfr_chunk *c, size_t n_good)
{
	struct evs *l = malloc(sizeof(*l));
	size_t i;

	read_all(c, l);
	CHECK_UINT(l->n, ==, 2 + n_good);
	if (l->n == 2 + n_good) {
		CHECK_INT(l->ev[0].kind, ==, JFR_METADATA);
		CHECK_INT(l->ev[1].kind, ==, JFR_CHECKPOINT);
		for (i = 0; i < n_good; i++) {
			CHECK_INT(l->rc[2 + i], ==, 0);
			check_sample(&l->ev[2 + i], 325481737 + i + 1, 1, 1, 10,
				     (i + 1) * 8);
		}
	}
	free(l);
}

TEST(jfr_event_size_past_chunk_end)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct err e;
	struct w w;
	size_t bad;

	small_begin(&w);
	small_sample(&w, 1);
	small_sample(&w, 2);
	bad = w.b.len;
	vint_pad(&w.b, 5000, 4); /* far more than the chunk holds */
	vint(&w.b, tid(&w, O_SAMPLE));
	vint(&w.b, 325481737);
	vint(&w.b, 1);
	w_finish(&w, &hv_1e9);

	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_UINT(jfr_chunk_header(c)->size, ==, w.b.len);
	check_small_events(c, 2);
	/* known once the events are read: they frame themselves */
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, bad);
	CHECK(jfr_chunk_lost_reason(c) != NULL);
	CHECK(jfr_class(c, 10) != NULL);
	jfr_chunk_free(c);
	w_release(&w);
}

TEST(jfr_chunk_cut_short)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct err e;
	struct w w;
	size_t third;

	small_begin(&w);
	small_sample(&w, 1);
	small_sample(&w, 2);
	third = small_sample(&w, 3);
	small_sample(&w, 4);
	w_finish(&w, &hv_1e9);

	/* cut in the middle of the third sample */
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, third + 3), third + 3, 0, 0, &e),
		  ==, 0);
	CHECK_UINT(jfr_chunk_header(c)->size, ==, w.b.len);
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, third);
	CHECK(jfr_chunk_lost_reason(c) != NULL);
	check_small_events(c, 2);
	check_class(c, 10, "[B", "byte[]", false);

	/* cut exactly between two events: still short of the size */
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, third), third, 0, 0, &e), ==, 0);
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, third);
	CHECK(jfr_chunk_lost_reason(c) != NULL);
	check_small_events(c, 2);

	/* cut inside the header: nothing */
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, 40), 40, 0, 0, &e), <, 0);
	CHECK(e.msg[0] != '\0');

	/* the whole chunk again: all four, nothing lost */
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, w.b.len);
	CHECK(jfr_chunk_lost_reason(c) == NULL);
	check_small_events(c, 4);
	jfr_chunk_free(c);
	w_release(&w);
}

TEST(jfr_event_size_zero_or_too_small)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct err e;
	struct w w;
	size_t bad;

	small_begin(&w);
	small_sample(&w, 1);
	bad = w.b.len;
	put_u1(&w.b, 0); /* size 0 */
	vint(&w.b, tid(&w, O_SAMPLE));
	small_sample(&w, 2);
	w_finish(&w, &hv_1e9);
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	check_small_events(c, 1);
	/* known once the events are read: they frame themselves */
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, bad);
	CHECK(jfr_chunk_lost_reason(c) != NULL);
	w_release(&w);

	/* a padded size of 1 (81 80 80 00): smaller than its own varint */
	small_begin(&w);
	small_sample(&w, 1);
	bad = w.b.len;
	vint_pad(&w.b, 1, 4);
	vint(&w.b, tid(&w, O_SAMPLE));
	small_sample(&w, 2);
	w_finish(&w, &hv_1e9);
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	check_small_events(c, 1);
	/* known once the events are read: they frame themselves */
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, bad);
	CHECK(jfr_chunk_lost_reason(c) != NULL);
	jfr_chunk_free(c);
	w_release(&w);
}

static void check_bad_header(const unsigned char *p, size_t len)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct jfr_header h;
	unsigned char *q = malloc(len ? len : 1);
	struct err e;

	memcpy(q, p, len); /* exactly len bytes: reads past them show */
	p = q;
	err_init(&e);
	CHECK_INT(jfr_header_parse(p, len, &h, &e), <, 0);
	CHECK(e.msg[0] != '\0');
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, p, len, 0, 0, &e), <, 0);
	CHECK(e.msg[0] != '\0');
	jfr_chunk_free(c);
	free(q);
}

TEST(jfr_bad_headers_refused)
{
	struct jfr_header h;
	unsigned char *p;
	struct err e;
	struct w w;

	small_begin(&w);
	small_sample(&w, 1);
	w_finish(&w, &hv_1e9);
	p = malloc(w.b.len);

	memcpy(p, w.b.data, w.b.len);
	err_init(&e);
	CHECK_INT(jfr_header_parse(p, w.b.len, &h, &e), ==, 0);
	CHECK_UINT(h.size, ==, w.b.len);

	p[3] = 1; /* "FLR\1" */
	check_bad_header(p, w.b.len);
	memcpy(p, w.b.data, w.b.len);
	p[0] = 'f';
	check_bad_header(p, w.b.len);

	memcpy(p, w.b.data, w.b.len);
	p[5] = 1; /* major 1: Oracle JDK 9 and 10 */
	check_bad_header(p, w.b.len);

	memcpy(p, w.b.data, w.b.len);
	p[67] = 2; /* flags 0x0002: final, but integers not compressed */
	check_bad_header(p, w.b.len);

	memcpy(p, w.b.data, w.b.len);
	memset(p + 8, 0, 8);
	p[15] = 67; /* size 67 */
	check_bad_header(p, w.b.len);
	p[15] = 0; /* size 0 */
	check_bad_header(p, w.b.len);

	memcpy(p, w.b.data, w.b.len);
	check_bad_header(p, 67); /* fewer bytes than a header */
	check_bad_header(p, 0);

	free(p);
	w_release(&w);
}

/* jfr.h: jfr_header_parse "checks ... that the offsets lie inside size";
 * the reference (3.1, check 3) wants cp and metadata offsets < size. */
TEST(jfr_header_offsets_outside_size_refused)
{
	struct jfr_header h;
	unsigned char *p;
	struct err e;
	struct w w;

	small_begin(&w);
	small_sample(&w, 1);
	w_finish(&w, &hv_1e9);
	p = malloc(w.b.len);

	memcpy(p, w.b.data, w.b.len);
	patch_be(&w.b, 16, w.b.len, 8); /* cp_offset == size */
	memcpy(p, w.b.data, JFR_HEADER_LEN);
	err_init(&e);
	CHECK_INT(jfr_header_parse(p, w.b.len, &h, &e), <, 0);
	CHECK(e.msg[0] != '\0');

	w_finish(&w, &hv_1e9);
	patch_be(&w.b, 24, w.b.len + 1000, 8); /* meta_offset past size */
	memcpy(p, w.b.data, JFR_HEADER_LEN);
	err_init(&e);
	CHECK_INT(jfr_header_parse(p, w.b.len, &h, &e), <, 0);
	CHECK(e.msg[0] != '\0');

	free(p);
	w_release(&w);
}

TEST(jfr_event_fields_overrun_size)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct jfr_event ev;
	struct err e;
	struct w w;
	size_t bad1, bad2, at;
	int i;

	small_begin(&w);
	small_sample(&w, 1);
	/* the size covers startTime and eventThread only */
	bad1 = at = ev_begin(&w, tid(&w, O_SAMPLE));
	vint(&w.b, 325481737 + 50);
	vint(&w.b, 1);
	ev_end(&w, at);
	/* the last varint's continuation bit points past the size */
	bad2 = at = ev_begin(&w, tid(&w, O_SAMPLE));
	vint(&w.b, 325481737 + 51);
	vint(&w.b, 1);
	vint(&w.b, 1);
	vint(&w.b, 10);
	put_u1(&w.b, 0x90);
	ev_end(&w, at);
	small_sample(&w, 2);
	w_finish(&w, &hv_1e9);

	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK_UINT(jfr_chunk_consistent_end(c), ==, w.b.len);
	CHECK(jfr_chunk_lost_reason(c) == NULL);
	for (i = 0; i < 3; i++) { /* metadata, checkpoint, sample 1 */
		memset(&ev, 0, sizeof(ev));
		err_init(&e);
		CHECK_INT(jfr_chunk_next(c, &ev, &e), ==, 0);
	}
	check_sample(&ev, 325481737 + 1, 1, 1, 10, 8);

	memset(&ev, 0, sizeof(ev));
	err_init(&e);
	CHECK_INT(jfr_chunk_next(c, &ev, &e), <, 0);
	CHECK(e.msg[0] != '\0');
	CHECK_UINT(ev.offset, ==, bad1);

	memset(&ev, 0, sizeof(ev));
	err_init(&e);
	CHECK_INT(jfr_chunk_next(c, &ev, &e), <, 0);
	CHECK(e.msg[0] != '\0');
	CHECK_UINT(ev.offset, ==, bad2);

	memset(&ev, 0, sizeof(ev));
	err_init(&e);
	CHECK_INT(jfr_chunk_next(c, &ev, &e), ==, 0);
	check_sample(&ev, 325481737 + 2, 1, 1, 10, 16);
	err_init(&e);
	CHECK_INT(jfr_chunk_next(c, &ev, &e), ==, 1);
	jfr_chunk_free(c);
	w_release(&w);
}

TEST(jfr_missing_pool_keys_resolve_to_null)
{
	struct jfr_chunk *c = jfr_chunk_new();
	const struct jfr_stack *st;
	struct err e;
	struct w w;

	small_begin(&w);
	sample(&w, 325481737, 99, 99, 99, 1);
	w_finish(&w, &hv_1e9);
	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  0);
	CHECK(jfr_stack(c, 99) == NULL);
	CHECK(jfr_class(c, 99) == NULL);
	CHECK(jfr_thread(c, 99) == NULL);
	/* 0 is not special: absent here, so null */
	CHECK(jfr_stack(c, 0) == NULL);
	CHECK(jfr_class(c, 0) == NULL);
	CHECK(jfr_thread(c, 0) == NULL);
	CHECK(jfr_stack(c, UINT64_MAX) == NULL);
	/* the keys that are there still resolve */
	check_class(c, 10, "[B", "byte[]", false);
	check_thread(c, 1, "main", 1, 2);
	st = jfr_stack(c, 1);
	CHECK(st != NULL);
	if (st && st->n_frames == 1)
		check_frame(&st->frames[0], "Main", "Main", "main", "()V", 7, 8,
			    "Interpreted", false);
	/* a frame of a missing method still has a class (jfr.h) */
	st = jfr_stack(c, 2);
	CHECK(st != NULL);
	if (st) {
		CHECK_UINT(st->n_frames, ==, 1);
		if (st->n_frames == 1) {
			CHECK(st->frames[0].cls != NULL);
			CHECK_INT(st->frames[0].line, ==, 5);
			CHECK_INT(st->frames[0].bci, ==, 6);
		}
	}
	jfr_chunk_free(c);
	w_release(&w);
}

TEST(jfr_damaged_checkpoint_loses_only_itself)
{
	struct jfr_chunk *c = jfr_chunk_new();
	struct err e;
	struct w w;
	size_t at;

	small_begin(&w);
	/* a checkpoint whose symbol claims 200 bytes it does not have */
	at = cp_begin(&w, 0, 1);
	pool(&w, O_SYMBOL, 1);
	vint(&w.b, 50);
	put_u1(&w.b, 3);
	vint(&w.b, 200);
	buf_add(&w.b, "abc", 3);
	ev_end(&w, at);
	small_sample(&w, 1);
	w_finish(&w, &hv_1e9);

	err_init(&e);
	CHECK_INT(jfr_chunk_open(c, w_data(&w, w.b.len), w.b.len, 0, 0, &e), ==,
		  1);
	CHECK(e.msg[0] != '\0');
	check_class(c, 10, "[B", "byte[]", false);
	check_thread(c, 1, "main", 1, 2);
	{
		struct evs *l = malloc(sizeof(*l));

		read_all(c, l);
		CHECK_UINT(l->n, ==, 4);
		if (l->n == 4)
			check_sample(&l->ev[3], 325481737 + 1, 1, 1, 10, 8);
		free(l);
	}
	jfr_chunk_free(c);
	w_release(&w);
}

/* --- 5: display names ------------------------------------------------------- */

static void check_display(const char *raw, size_t len, bool hidden,
			  const char *want)
{
	char *out = malloc(2 * len + 16);

	memset(out, 'X', 2 * len + 16);
	jfr_display_class_name(raw, len, hidden, out);
	CHECK_STR(out, want);
	free(out);
}

TEST(jfr_display_class_names)
{
	static const struct {
		const char *raw, *want;
	} cases[] = {
		{"[B", "byte[]"},
		{"[C", "char[]"},
		{"[D", "double[]"},
		{"[F", "float[]"},
		{"[I", "int[]"},
		{"[J", "long[]"},
		{"[S", "short[]"},
		{"[Z", "boolean[]"},
		{"[[B", "byte[][]"},
		{"[[I", "int[][]"},
		{"[[[J", "long[][][]"},
		{"[[[[[[Z", "boolean[][][][][][]"},
		{"[Ljava/lang/Object;", "java.lang.Object[]"},
		{"[[Ljava/lang/String;", "java.lang.String[][]"},
		{"[[[Ljava/util/HashMap$Node;", "java.util.HashMap$Node[][][]"},
		{"java/util/HashMap$Node", "java.util.HashMap$Node"},
		{"java/lang/String", "java.lang.String"},
		{"Main", "Main"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_display(cases[i].raw, strlen(cases[i].raw), false,
			      cases[i].want);
	/* hidden classes keep their dotted name and '/' suffix */
	check_display(LAMBDA, strlen(LAMBDA), true, LAMBDA);
	check_display("jdk.internal.platform.CgroupUtil$$Lambda$75+"
		      "0x00007f4c5c02b2d0/1979313356",
		      strlen("jdk.internal.platform.CgroupUtil$$Lambda$75+"
			     "0x00007f4c5c02b2d0/1979313356"),
		      true,
		      "jdk.internal.platform.CgroupUtil$$Lambda$75+"
		      "0x00007f4c5c02b2d0/1979313356");
	check_display("java.lang.String$$StringConcat/0x0000000013046c00",
		      strlen("java.lang.String$$StringConcat/"
			     "0x0000000013046c00"),
		      true,
		      "java.lang.String$$StringConcat/0x0000000013046c00");
	/* only len bytes count */
	check_display("[Jxyz", 2, false, "long[]");
	check_display("java/lang/Object;tail", 16, false, "java.lang.Object");
}

/* --- the importer on a synthetic chunk, and fuzz seeds ---------------------- */

struct seen_samples {
	int n;
	int64_t weight_sum;
	int bytes_arrays;
	int main_frames;
};

static int seen_sample(void *ctx, const struct rec_sample *s)
{
	struct seen_samples *x = ctx;

	x->n++;
	x->weight_sum += s->weight;
	x->bytes_arrays += s->class_name && !strcmp(s->class_name, "byte[]");
	x->main_frames += s->stack && s->stack->n_frames == 1 &&
			  !strcmp(s->stack->frames[0].method, "main") &&
			  !strcmp(s->stack->frames[0].class_name, "Main");
	return 0;
}

static void no_warning(void *ctx, const struct err *e)
{
	(void)ctx;
	test_fail(__FILE__, __LINE__, "unexpected warning: %s", e->msg);
}

/* Write a chunk where the fuzzer's seed corpus wants it (make fuzz sets
 * HS_FUZZ_SEEDS): small valid chunks let it reach deep code fast. */
static void maybe_seed(const char *name, const struct buf *b)
{
	const char *dir = getenv("HS_FUZZ_SEEDS");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK(fwrite(b->data, 1, b->len, f) == b->len);
		fclose(f);
	}
}

TEST(jfr_synthetic_chunk_through_the_importer)
{
	static const struct sink_ops ops = {.sample = seen_sample};
	struct seen_samples x = {0, 0, 0, 0};
	struct sink sink = {&ops, &x};
	struct import_env env = {"synthetic.jfr", no_warning, NULL, 0, 0};
	struct input in;
	struct err e;
	struct w w;
	struct rich r;
	uint64_t n;

	small_begin(&w);
	for (n = 1; n <= 5; n++)
		small_sample(&w, n);
	w_finish(&w, &hv_1e9);
	maybe_seed("synthetic-small.jfr", &w.b);
	input_init_memory(&in, "synthetic.jfr", w.b.data, w.b.len);
	err_init(&e);
	CHECK_INT(importer_jfr.import(&in, &sink, &env, &e), ==, 0);
	/* five samples of [B from Main.main, weights 8, 16 .. 40 */
	CHECK_INT(x.n, ==, 5);
	CHECK_INT(x.weight_sum, ==, 8 * (1 + 2 + 3 + 4 + 5));
	CHECK_INT(x.bytes_arrays, ==, 5);
	CHECK_INT(x.main_frames, ==, 5);
	input_release(&in);
	w_release(&w);

	build_rich(&w, &hv_1e9, &r);
	maybe_seed("synthetic-rich.jfr", &w.b);
	w_release(&w);
}

/* --- samples by key ------------------------------------------------------- */

static void ignore_warning(void *ctx, const struct err *e)
{
	(void)ctx;
	(void)e;
}

/* The store writer's sink, with its keyed ops or without them: every
 * call forwarded, the keyed ones counted. */
struct fwd {
	const struct sink *to;
	uint64_t keys, keyed;
};

static int fwd_sample(void *ctx, const struct rec_sample *s)
{
	const struct fwd *f = ctx;

	return f->to->ops->sample(f->to->ctx, s);
}

static int fwd_heap(void *ctx, const struct rec_heap_summary *h)
{
	const struct fwd *f = ctx;

	return f->to->ops->heap_summary(f->to->ctx, h);
}

static int fwd_recording(void *ctx, const struct rec_recording *r)
{
	const struct fwd *f = ctx;

	return f->to->ops->recording(f->to->ctx, r);
}

static int fwd_keys(void *ctx, const struct rec_sample *s, struct rec_keys *k)
{
	struct fwd *f = ctx;

	f->keys++;
	return f->to->ops->keys(f->to->ctx, s, k);
}

static int fwd_keyed_room(void *ctx, struct rec_keyed_cols *c, size_t *room)
{
	struct fwd *f = ctx;

	return f->to->ops->keyed_room(f->to->ctx, c, room);
}

static int fwd_keyed_added(void *ctx, size_t n)
{
	struct fwd *f = ctx;

	f->keyed += n;
	return f->to->ops->keyed_added(f->to->ctx, n);
}

/* data imported (jobs decoders) into a new store at dir/name, through
 * the writer's keyed ops or not; its bytes in *out */
static void import_to_store(const unsigned char *data, size_t len,
			    unsigned jobs, bool keyed, const char *dir,
			    const char *name, struct fwd *f, struct buf *out)
{
	static const struct sink_ops plain = {.sample = fwd_sample,
					      .heap_summary = fwd_heap,
					      .recording = fwd_recording};
	static const struct sink_ops by_key = {.sample = fwd_sample,
					       .heap_summary = fwd_heap,
					       .recording = fwd_recording,
					       .keys = fwd_keys,
					       .keyed_room = fwd_keyed_room,
					       .keyed_added = fwd_keyed_added};
	struct store_writer *wr = store_writer_new();
	struct sink sink = {keyed ? &by_key : &plain, f};
	struct import_env env = {"rec.jfr", ignore_warning, NULL, 0, jobs};
	struct input in;
	struct store *s;
	struct err e;
	char path[256];
	char *bytes;
	size_t n;

	f->to = store_writer_sink(wr);
	f->keys = f->keyed = 0;
	input_init_memory(&in, "rec.jfr", data, len);
	err_init(&e);
	CHECK_INT(importer_jfr.import(&in, &sink, &env, &e), ==, 0);
	input_release(&in);
	s = test_store_commit(wr, dir, name);
	if (s)
		store_close(s);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	bytes = test_read_file(path, &n);
	CHECK(bytes != NULL);
	if (bytes)
		buf_add(out, bytes, n);
	free(bytes);
	unlink(path);
}

/* A sink that takes samples by key gets the store that sample() alone
 * gives, to the byte: the rich chunk (a truncated stack, named again
 * by samples whose keys are known, keys padded to 9 bytes, samples
 * before the pools), then real recordings of every
 * heap kind (TLAB events, old objects with their GC roots) and many
 * chunks, one after the other in one file, with 1 and 2 decoders. */
TEST(jfr_samples_by_key_make_the_same_store)
{
	static const char *const real[] = {"jfr/jdk17-leak-gcroots.jfr",
					   "jfr/jdk17-profile-tlab.jfr",
					   "jfr/jdk17-multichunk.jfr"};
	static const unsigned jobs[] = {1, 2};
	char dir[] = "/tmp/hs-unit-keyed-XXXXXX";
	struct buf rec = BUF_INIT, ref = BUF_INIT;
	struct fwd f;
	struct w w;
	struct rich r;
	size_t i;

	/* samples by keys known already, on a truncated stack: the flag
	 * must come with the key (real recordings here have none) */
	build_rich_ex(&w, &hv_1e9, &r, 3);
	buf_add(&rec, w.b.data, w.b.len);
	w_release(&w);
	for (i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		size_t len;
		char *p = test_read_file(test_fixture(real[i]), &len);

		if (!p) {
			test_fail(__FILE__, __LINE__, "cannot read %s",
				  real[i]);
			buf_release(&rec);
			return;
		}
		buf_add(&rec, p, len);
		free(p);
	}
	CHECK(mkdtemp(dir) != NULL);
	import_to_store((const unsigned char *)rec.data, rec.len, 1, false, dir,
			"plain.hsdb", &f, &ref);
	CHECK_UINT(f.keyed, ==, 0);
	CHECK(ref.len > 100000);
	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct buf got = BUF_INIT;

		import_to_store((const unsigned char *)rec.data, rec.len,
				jobs[i], true, dir, "keyed.hsdb", &f, &got);
		/* every sample but the old objects by key; keys asked for
		 * once a chunk for each new thread, class or stack */
		CHECK_UINT(f.keyed, >, 20000);
		CHECK_UINT(f.keys, >, 0);
		CHECK_UINT(f.keys, <, f.keyed / 10);
		CHECK_UINT(got.len, ==, ref.len);
		if (got.len == ref.len && memcmp(got.data, ref.data, ref.len))
			test_fail(__FILE__, __LINE__,
				  "%u decoders: the keyed store differs",
				  jobs[i]);
		buf_release(&got);
	}
	rmdir(dir);
	buf_release(&rec);
	buf_release(&ref);
}
