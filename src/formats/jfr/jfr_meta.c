/*
 * The JFR metadata event (jfr_int.h): its strings and elements decoded
 * into the chunk's type table, the types heapsift resolves found by
 * name, and the fields of the heap events compiled into the ops that
 * jfr_chunk_next() runs.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/jfr/jfr_int.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/xalloc.h"

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
	"jdk.types.GCName",
	"jdk.types.GCCause",
	"jdk.types.G1YCType",
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
	{"jdk.GarbageCollection", JFR_GC},
	{"jdk.G1GarbageCollection", JFR_G1_GC},
	{"jdk.EvacuationFailed", JFR_GC_FAILED},
	{"jdk.PromotionFailed", JFR_GC_FAILED},
	{"profiler.LiveObject", JFR_AP_LIVE},
	{"datadog.ObjectSample", JFR_DD_OBJECT},
	{"datadog.HeapLiveObject", JFR_DD_LIVE},
	{"jdk.ActiveRecording", JFR_ACTIVE_RECORDING},
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
	{"pid", JS_PID},
	{"jvmStartTime", JS_JVM_START},
	{"cause", JS_CAUSE},
	{"type", JS_G1_TYPE},
	{"size", JS_SIZE},
};

static bool slot_is_string(int slot)
{
	return slot == JS_NAME || slot == JS_VALUE || slot == JS_JVM_NAME ||
	       slot == JS_JVM_VERSION;
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

/* The metadata event's header at off in chunk c: its size (m->r ends
 * with the event), its type (0) and the fields before the strings. */
static int meta_event_header(struct jfr_chunk *c, uint64_t off,
			     struct meta_parse *m, struct err *e)
{
	uint64_t size;

	rd_init(&m->r, c->data + off, c->data + c->limit);
	size = rd_varint(&m->r);
	if (m->r.bad || size > c->limit - off)
		return err_set_at(e, ERR_FORMAT, c->file_offset + off,
				  "jfr: metadata event overruns chunk %u",
				  c->chunk_no);
	m->r.end = c->data + off + size;
	if (rd_varint(&m->r) != 0)
		return err_set_at(e, ERR_FORMAT, c->file_offset + off,
				  "jfr: no metadata event where chunk %u's "
				  "header points",
				  c->chunk_no);
	rd_varint(&m->r); /* startTime */
	rd_varint(&m->r); /* duration */
	rd_varint(&m->r); /* metadataId */
	return 0;
}

/* The event's string table into m->strings (a null string as ""); m->r
 * goes bad on a count past the event or a string that names a pool. */
static void read_meta_strings(struct meta_parse *m)
{
	struct jfr_chunk *c = m->c;
	uint64_t i;

	m->n_strings = rd_varint(&m->r);
	if (m->n_strings > rd_left(&m->r))
		m->r.bad = true;
	if (m->r.bad)
		return;
	m->strings = xreallocarray(NULL, m->n_strings ? m->n_strings : 1,
				   sizeof(char *));
	for (i = 0; i < m->n_strings && !m->r.bad; i++) {
		struct jstr s;

		rd_string(&m->r, &s);
		if (s.enc == 2)
			m->r.bad = true; /* no pools in metadata */
		m->strings[i] =
			m->r.bad ? NULL : jfr_decode_jstr(c, &c->meta, &s, 0);
		if (!m->strings[i])
			m->strings[i] = ""; /* a null string */
	}
}

/* Each string's meaning to the element parser (enum meta_word), so that
 * it compares numbers, not strings. */
static void tag_meta_words(struct meta_parse *m)
{
	static const struct {
		const char *s;
		enum meta_word w;
	} words[] = {
		{"class", MW_CLASS},	 {"field", MW_FIELD},
		{"name", MW_NAME},	 {"id", MW_ID},
		{"superType", MW_SUPER}, {"dimension", MW_DIM},
		{"constantPool", MW_CP},
	};
	uint64_t i;
	size_t j;

	m->words = xcalloc(m->n_strings ? m->n_strings : 1, 1);
	for (i = 0; i < m->n_strings; i++)
		for (j = 0; j < sizeof(words) / sizeof(words[0]); j++)
			if (!strcmp(m->strings[i], words[j].s))
				m->words[i] = (unsigned char)words[j].w;
}

/* Ids to types; each field's type; what each type is for: its
 * primitive, its event kind, the pool it is the type of. */
static void link_types(struct jfr_chunk *c)
{
	bool datadog = false, profiler = false, jdk = false;
	uint64_t i;

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
		/* the JDK declares every event type it knows, these two
		 * among them (11 and later); other writers declare a few */
		if (!strcmp(t->name, "jdk.ThreadStart") ||
		    !strcmp(t->name, "jdk.GarbageCollection"))
			jdk = true;
		if (t->super && !strcmp(t->super, "jdk.jfr.Event")) {
			if (!strncmp(t->name, "datadog.", 8))
				datadog = true;
			else if (!strncmp(t->name, "profiler.", 9))
				profiler = true;
		}
		for (j = 0; j < POOL__COUNT; j++)
			if (!strcmp(t->name, pool_type_name[j]) &&
			    c->pool_type[j] == NO_TYPE) {
				c->pool_type[j] = (uint32_t)i;
				t->pool = (int)j;
			}
	}
	/* a Java agent's own events (dd-trace-java's datadog.*) in a
	 * chunk the JDK wrote leave it the JDK's */
	c->writer = jdk	       ? JFR_WRITER_JDK
		    : datadog  ? JFR_WRITER_DATADOG
		    : profiler ? JFR_WRITER_ASYNC_PROFILER
			       : JFR_WRITER_JDK;
}

/* Which types can be read, and for each event kind's readable type,
 * its fields' slots and its decoding ops. */
static void compile_types(struct jfr_chunk *c)
{
	unsigned char *state = xcalloc(c->n_types ? c->n_types : 1, 1);
	uint64_t i;

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
}

/* The fields of the pools' types that the pool readers take by index
 * (c->hf; -1 where a type or a field is missing). */
static void find_hot_fields(struct jfr_chunk *c)
{
	struct hot_fields *hf = &c->hf;
	uint32_t frame_type = NO_TYPE;

	hf->st_truncated =
		field_index(c, c->pool_type[POOL_STACK], "truncated");
	hf->st_frames = field_index(c, c->pool_type[POOL_STACK], "frames");
	if (hf->st_frames >= 0)
		frame_type = c->types[c->pool_type[POOL_STACK]]
				     .fields[hf->st_frames]
				     .type;
	hf->fr_method = field_index(c, frame_type, "method");
	hf->fr_line = field_index(c, frame_type, "lineNumber");
	hf->fr_bci = field_index(c, frame_type, "bytecodeIndex");
	hf->fr_type = field_index(c, frame_type, "type");
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
	hf->gn_name = field_index(c, c->pool_type[POOL_GCNAME], "name");
	hf->gc_cause = field_index(c, c->pool_type[POOL_GCCAUSE], "cause");
	hf->g1_type = field_index(c, c->pool_type[POOL_G1YCTYPE], "type");
}

int jfr_parse_metadata(struct jfr_chunk *c, uint64_t off, struct err *e)
{
	struct meta_parse m;

	memset(&m, 0, sizeof(m));
	m.c = c;
	if (meta_event_header(c, off, &m, e) < 0)
		return ERR_FAIL;
	read_meta_strings(&m);
	if (!m.r.bad) {
		tag_meta_words(&m);
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
	link_types(c);
	compile_types(c);
	find_hot_fields(c);
	return 0;
}

const char *jfr_writer_name(enum jfr_writer w)
{
	switch (w) {
	case JFR_WRITER_ASYNC_PROFILER:
		return "async-profiler";
	case JFR_WRITER_DATADOG:
		return "Datadog java-profiler";
	default:
		return "JDK";
	}
}

enum jfr_writer jfr_chunk_writer(const struct jfr_chunk *c)
{
	return c->writer;
}

/* Whether field name has word in it, as a Java name would: "size",
 * "allocationSize", "objectSize", "weight". */
static bool name_has(const char *name, const char *lower, const char *upper)
{
	return strstr(name, lower) || strstr(name, upper);
}

size_t jfr_unread_heap_types(const struct jfr_chunk *c, uint64_t *ids,
			     size_t max)
{
	size_t n = 0;
	uint32_t i, k;

	for (i = 0; i < c->n_types; i++) {
		const struct type *t = &c->types[i];
		bool cls = false, amount = false;

		if (t->kind != JFR_OTHER || !t->super ||
		    strcmp(t->super, "jdk.jfr.Event"))
			continue;
		for (k = 0; k < t->n_fields; k++) {
			const struct field *f = &t->fields[k];
			const char *tn = f->type != NO_TYPE
						 ? c->types[f->type].name
						 : "";

			if (!f->array && !strcmp(tn, "java.lang.Class"))
				cls = true;
			if (!f->array && !f->cp &&
			    (name_has(f->name, "size", "Size") ||
			     name_has(f->name, "weight", "Weight") ||
			     !strcmp(f->name, "allocationTime")))
				amount = true;
		}
		if (cls && amount && n < max)
			ids[n++] = t->id;
	}
	return n;
}
