/*
 * OpenTelemetry's profiles signal: an ExportProfilesServiceRequest
 * (opentelemetry.proto.collector.profiles.v1development, from the
 * vendored src/formats/otlp/, compiled by protoc-c at build time),
 * serialized as plain protobuf, as OTLP/HTTP sends it
 * (application/x-protobuf); compression is the transport's, not the
 * file's.
 *
 * One ResourceProfiles a recording that holds samples of the kinds asked
 * (its resource: the JVM's name and version, the recording's name), one
 * ScopeProfiles (heapsift), and in it a Profile per kind and sample type:
 * v1development gives a Profile one sample type, so the pprof export's
 * types (profile_common.h) become one Profile each, with the kind as the
 * profile's attribute heapsift.sample_kind.  The dictionary is shared:
 * strings, functions (class.method), locations (method and line), one
 * mapping for the JVM, and stacks (leaf first), each index 0 the zero
 * value, as the proto requires.  Every message lives in one arena freed
 * when the request is packed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/profile_common.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
	Request;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary
	Dictionary;
typedef Opentelemetry__Proto__Profiles__V1development__ResourceProfiles
	ResourceProfiles;
typedef Opentelemetry__Proto__Profiles__V1development__ScopeProfiles
	ScopeProfiles;
typedef Opentelemetry__Proto__Profiles__V1development__Profile Profile;
typedef Opentelemetry__Proto__Profiles__V1development__ValueType ValueType;
typedef Opentelemetry__Proto__Profiles__V1development__Sample Sample;
typedef Opentelemetry__Proto__Profiles__V1development__Stack Stack;
typedef Opentelemetry__Proto__Profiles__V1development__Location Location;
typedef Opentelemetry__Proto__Profiles__V1development__Line Line;
typedef Opentelemetry__Proto__Profiles__V1development__Function Function;
typedef Opentelemetry__Proto__Profiles__V1development__Mapping Mapping;
typedef Opentelemetry__Proto__Profiles__V1development__Link Link;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit
	KeyValueAndUnit;
typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;
typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Common__V1__InstrumentationScope Scope;
typedef Opentelemetry__Proto__Resource__V1__Resource Resource;

/* A growing array of pointers to messages in the arena. */
struct ptrs {
	void **v;
	size_t n, alloc;
};

static void ptrs_add(struct ptrs *p, void *m)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 16;
		p->v = xreallocarray(p->v, p->alloc, sizeof(*p->v));
	}
	p->v[p->n++] = m;
}

struct otlp {
	struct arena mem;
	struct profile_frames fr;
	uint32_t *stack_of; /* a trie node's stack index, 0: none yet */
	uint32_t n_nodes;
	struct ptrs stacks, attrs, resources;
};

/* The stack index (from 1) of trie node node, added on first use. */
static int32_t otlp_stack(struct otlp *o, struct query *q, uint32_t node)
{
	uint32_t d = 0, up = node;
	int32_t *idx;
	Stack *st;

	if (node < o->n_nodes && o->stack_of[node])
		return (int32_t)o->stack_of[node];
	idx = arena_calloc(&o->mem, query_path_frames(q, node, NULL, 0) + 1,
			   sizeof(*idx));
	do /* leaf first; node 0 is the "(no stack)" frame */
		idx[d++] =
			(int32_t)profile_frames_location(&o->fr, q, up, &up) +
			1;
	while (up);
	st = arena_calloc(&o->mem, 1, sizeof(*st));
	opentelemetry__proto__profiles__v1development__stack__init(st);
	st->n_location_indices = d;
	st->location_indices = idx;
	ptrs_add(&o->stacks, st);
	if (node < o->n_nodes)
		o->stack_of[node] = (uint32_t)o->stacks.n;
	return (int32_t)o->stacks.n;
}

static AnyValue *any_string(struct otlp *o, const char *s)
{
	AnyValue *v = arena_calloc(&o->mem, 1, sizeof(*v));

	opentelemetry__proto__common__v1__any_value__init(v);
	v->value_case =
		OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	v->string_value = arena_strdup(&o->mem, s);
	return v;
}

/* The profile attribute naming kind k: its index in attribute_table. */
static int32_t kind_attr(struct otlp *o, enum sample_kind k, int32_t *have)
{
	KeyValueAndUnit *a;

	if (have[k])
		return have[k];
	a = arena_calloc(&o->mem, 1, sizeof(*a));
	opentelemetry__proto__profiles__v1development__key_value_and_unit__init(
		a);
	a->key_strindex =
		(int32_t)profile_strz(&o->fr.strs, "heapsift.sample_kind");
	a->value = any_string(o, sample_kind_name(k));
	ptrs_add(&o->attrs, a);
	return have[k] = (int32_t)o->attrs.n;
}

/* The Profiles of one recording's samples of one kind (q's), one per
 * sample type the kind has, added to *profiles. */
static int kind_profiles(struct otlp *o, struct query *q, int32_t *have,
			 struct ptrs *profiles, struct err *e)
{
	const struct query_stack *st;
	struct query_total total;
	int64_t start, dur;
	int32_t *stack_idx, *attr;
	size_t n, k;
	bool fate, timed;
	int v;

	if (query_stacks(q, &st, &n, &fate, &total, e) < 0)
		return ERR_FAIL;
	if (!n)
		return 0;
	stack_idx = arena_calloc(&o->mem, n, sizeof(*stack_idx));
	for (k = 0; k < n; k++)
		stack_idx[k] = otlp_stack(o, q, st[k].stack);
	timed = profile_time(q, &total, &start, &dur);
	attr = arena_calloc(&o->mem, 1, sizeof(*attr));
	*attr = kind_attr(o, query_kind(q), have);
	for (v = 0; v < PROFILE_VALUE__N; v++) {
		Profile *p;
		ValueType *t;
		Sample *s, **sp;
		int64_t *val;

		if (!profile_value_on(v, query_kind(q), fate))
			continue;
		p = arena_calloc(&o->mem, 1, sizeof(*p));
		t = arena_calloc(&o->mem, 1, sizeof(*t));
		s = arena_calloc(&o->mem, n, sizeof(*s));
		sp = arena_calloc(&o->mem, n, sizeof(*sp));
		val = arena_calloc(&o->mem, n, sizeof(*val));
		opentelemetry__proto__profiles__v1development__profile__init(p);
		opentelemetry__proto__profiles__v1development__value_type__init(
			t);
		t->type_strindex = (int32_t)profile_strz(&o->fr.strs,
							 profile_value_type(v));
		t->unit_strindex = (int32_t)profile_strz(&o->fr.strs,
							 profile_value_unit(v));
		p->sample_type = t;
		for (k = 0; k < n; k++) {
			opentelemetry__proto__profiles__v1development__sample__init(
				&s[k]);
			s[k].stack_index = stack_idx[k];
			val[k] = profile_value_of(v, &st[k]);
			s[k].n_values = 1;
			s[k].values = &val[k];
			sp[k] = &s[k];
		}
		p->n_samples = n;
		p->samples = sp;
		if (timed) {
			p->time_unix_nano = (uint64_t)start;
			p->duration_nano = (uint64_t)(dur > 0 ? dur : 0);
		}
		p->n_attribute_indices = 1;
		p->attribute_indices = attr;
		ptrs_add(profiles, p);
	}
	return 0;
}

/* A resource attribute key = an integer. */
static void resource_int(struct otlp *o, struct ptrs *attrs, const char *key,
			 int64_t value)
{
	KeyValue *kv = arena_calloc(&o->mem, 1, sizeof(*kv));

	opentelemetry__proto__common__v1__key_value__init(kv);
	kv->key = arena_strdup(&o->mem, key);
	kv->value = arena_calloc(&o->mem, 1, sizeof(*kv->value));
	opentelemetry__proto__common__v1__any_value__init(kv->value);
	kv->value->value_case =
		OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
	kv->value->int_value = value;
	ptrs_add(attrs, kv);
}

/* A resource attribute key = value (nothing where value is ""). */
static void resource_attr(struct otlp *o, struct ptrs *attrs, const char *key,
			  const char *value)
{
	KeyValue *kv;

	if (!value || !*value)
		return;
	kv = arena_calloc(&o->mem, 1, sizeof(*kv));
	opentelemetry__proto__common__v1__key_value__init(kv);
	kv->key = arena_strdup(&o->mem, key);
	kv->value = any_string(o, value);
	ptrs_add(attrs, kv);
}

/* Recording rec's ResourceProfiles, where it holds samples of the kinds
 * asked that pass the filters. */
static int recording_profiles(struct otlp *o, struct store *s,
			      const struct query_options *opt, uint32_t rec,
			      const struct query_recording *r, int64_t pid,
			      const uint64_t *held, int32_t *have,
			      struct err *e)
{
	struct ptrs profiles = {0}, attrs = {0};
	ResourceProfiles *rp;
	ScopeProfiles *sp, **spp;
	Resource *res;
	Scope *scope;
	int k, rc = 0;

	for (k = 0; k < SAMPLE__COUNT && rc == 0; k++) {
		struct query_options ko = *opt;
		struct query *q;

		if ((opt->kind >= 0 ? k != opt->kind : !held[k]) ||
		    !r->samples[k])
			continue;
		ko.kind = k;
		ko.recording = rec;
		rc = query_open(s, &ko, &q, e);
		if (rc == 0) {
			rc = kind_profiles(o, q, have, &profiles, e);
			query_free(q);
		}
	}
	if (rc < 0 || !profiles.n) {
		free(profiles.v);
		return rc;
	}
	/* OpenTelemetry's semantic conventions where they have a key */
	resource_attr(o, &attrs, "process.runtime.name", r->jvm_name);
	resource_attr(o, &attrs, "process.runtime.version", r->jvm_version);
	if (pid >= 0)
		resource_int(o, &attrs, "process.pid", pid);
	resource_attr(o, &attrs, "heapsift.recording.name", r->source);
	resource_attr(o, &attrs, "heapsift.recording.format", r->format);
	res = arena_calloc(&o->mem, 1, sizeof(*res));
	opentelemetry__proto__resource__v1__resource__init(res);
	res->n_attributes = attrs.n;
	res->attributes = (KeyValue **)arena_memdup(&o->mem, attrs.v,
						    attrs.n * sizeof(*attrs.v));
	scope = arena_calloc(&o->mem, 1, sizeof(*scope));
	opentelemetry__proto__common__v1__instrumentation_scope__init(scope);
	scope->name = "heapsift";
	scope->version = HS_VERSION;
	sp = arena_calloc(&o->mem, 1, sizeof(*sp));
	opentelemetry__proto__profiles__v1development__scope_profiles__init(sp);
	sp->scope = scope;
	sp->n_profiles = profiles.n;
	sp->profiles = (Profile **)arena_memdup(
		&o->mem, profiles.v, profiles.n * sizeof(*profiles.v));
	spp = arena_calloc(&o->mem, 1, sizeof(*spp));
	*spp = sp;
	rp = arena_calloc(&o->mem, 1, sizeof(*rp));
	opentelemetry__proto__profiles__v1development__resource_profiles__init(
		rp);
	rp->resource = res;
	rp->n_scope_profiles = 1;
	rp->scope_profiles = spp;
	ptrs_add(&o->resources, rp);
	free(profiles.v);
	free(attrs.v);
	return 0;
}

/* The dictionary's tables from the frames and stacks met, each with its
 * zero value first. */
static void dictionary(struct otlp *o, Dictionary *d)
{
	static uint8_t zero_id[16];
	size_t i, n_l = o->fr.n_locs, n_f = o->fr.n_fns;
	Mapping *map = arena_calloc(&o->mem, 2, sizeof(*map));
	Location *loc = arena_calloc(&o->mem, n_l + 1, sizeof(*loc));
	Line *line = arena_calloc(&o->mem, n_l + 1, sizeof(*line));
	Function *fn = arena_calloc(&o->mem, n_f + 1, sizeof(*fn));
	Link *link = arena_calloc(&o->mem, 1, sizeof(*link));
	Stack *zero_stack = arena_calloc(&o->mem, 1, sizeof(*zero_stack));
	KeyValueAndUnit *zero_attr =
		arena_calloc(&o->mem, 1, sizeof(*zero_attr));

	/* the JVM's mapping only where a location points at it: the
	 * dictionary has no orphans */
	d->n_mapping_table = n_l ? 2 : 1;
	d->mapping_table = arena_calloc(&o->mem, 2, sizeof(Mapping *));
	for (i = 0; i < d->n_mapping_table; i++) {
		opentelemetry__proto__profiles__v1development__mapping__init(
			&map[i]);
		d->mapping_table[i] = &map[i];
	}
	if (n_l)
		map[1].filename_strindex =
			(int32_t)profile_strz(&o->fr.strs, "[jvm]");

	d->n_location_table = n_l + 1;
	d->location_table = arena_calloc(&o->mem, n_l + 1, sizeof(Location *));
	for (i = 0; i <= n_l; i++) {
		opentelemetry__proto__profiles__v1development__location__init(
			&loc[i]);
		d->location_table[i] = &loc[i];
		if (!i)
			continue;
		opentelemetry__proto__profiles__v1development__line__init(
			&line[i]);
		line[i].function_index = (int32_t)o->fr.locs[i - 1].fn + 1;
		line[i].line = o->fr.locs[i - 1].line;
		loc[i].mapping_index = 1;
		loc[i].n_lines = 1;
		loc[i].lines = arena_calloc(&o->mem, 1, sizeof(Line *));
		loc[i].lines[0] = &line[i];
	}
	d->n_function_table = n_f + 1;
	d->function_table = arena_calloc(&o->mem, n_f + 1, sizeof(Function *));
	for (i = 0; i <= n_f; i++) {
		opentelemetry__proto__profiles__v1development__function__init(
			&fn[i]);
		if (i)
			fn[i].name_strindex = fn[i].system_name_strindex =
				(int32_t)o->fr.fn_name[i - 1];
		d->function_table[i] = &fn[i];
	}
	/* the zero link with ids of their full lengths, as the proto
	 * advises for strict codecs */
	opentelemetry__proto__profiles__v1development__link__init(link);
	link->trace_id.len = 16;
	link->trace_id.data = zero_id;
	link->span_id.len = 8;
	link->span_id.data = zero_id;
	d->n_link_table = 1;
	d->link_table = arena_calloc(&o->mem, 1, sizeof(Link *));
	d->link_table[0] = link;

	opentelemetry__proto__profiles__v1development__stack__init(zero_stack);
	d->n_stack_table = o->stacks.n + 1;
	d->stack_table =
		arena_calloc(&o->mem, o->stacks.n + 1, sizeof(Stack *));
	d->stack_table[0] = zero_stack;
	if (o->stacks.n)
		memcpy(d->stack_table + 1, o->stacks.v,
		       o->stacks.n * sizeof(Stack *));

	opentelemetry__proto__profiles__v1development__key_value_and_unit__init(
		zero_attr);
	d->n_attribute_table = o->attrs.n + 1;
	d->attribute_table = arena_calloc(&o->mem, o->attrs.n + 1,
					  sizeof(KeyValueAndUnit *));
	d->attribute_table[0] = zero_attr;
	if (o->attrs.n)
		memcpy(d->attribute_table + 1, o->attrs.v,
		       o->attrs.n * sizeof(KeyValueAndUnit *));

	d->n_string_table = o->fr.strs.n;
	d->string_table = o->fr.strs.v;
}

/* The pid of recording rec's JVM (JFR's jdk.JVMInformation); -1 not
 * known. */
static int64_t recording_pid(const struct query_jvm *jv, size_t n_jv,
			     uint32_t rec)
{
	size_t i, j;

	for (i = 0; i < n_jv; i++)
		for (j = 0; j < jv[i].n_recs; j++)
			if (jv[i].recs[j] == rec)
				return jv[i].pid;
	return -1;
}

static void otlp_release(struct otlp *o)
{
	free(o->stack_of);
	free(o->stacks.v);
	free(o->attrs.v);
	free(o->resources.v);
	profile_frames_release(&o->fr);
	arena_release(&o->mem);
}

int export_otlp(struct store *s, const struct query_options *opt,
		struct buf *out, struct err *e)
{
	Request req =
		OPENTELEMETRY__PROTO__COLLECTOR__PROFILES__V1DEVELOPMENT__EXPORT_PROFILES_SERVICE_REQUEST__INIT;
	Dictionary dict =
		OPENTELEMETRY__PROTO__PROFILES__V1DEVELOPMENT__PROFILES_DICTIONARY__INIT;
	const struct query_recording *recs;
	uint64_t held[SAMPLE__COUNT];
	int32_t have[SAMPLE__COUNT] = {0}; /* a kind's attribute, 0: none */
	struct query *q0;
	struct query_jvm *jv;
	struct otlp o;
	size_t n_recs, n_jv, len;
	uint32_t r;
	int rc = 0;

	if (query_open(s, opt, &q0, e) < 0)
		return ERR_FAIL;
	memset(&o, 0, sizeof(o));
	arena_init(&o.mem, 65536);
	profile_frames_init(&o.fr);
	o.n_nodes = query_n_stacks(q0);
	o.stack_of = xcalloc(o.n_nodes ? o.n_nodes : 1, sizeof(*o.stack_of));
	query_kind_counts(q0, held);
	query_recordings(q0, &recs, &n_recs);
	query_jvms(q0, &jv, &n_jv);
	for (r = 0; r < n_recs && rc == 0; r++)
		if (query_options_keep_recording(opt, r))
			rc = recording_profiles(&o, s, opt, r, &recs[r],
						recording_pid(jv, n_jv, r),
						held, have, e);
	query_jvms_free(jv, n_jv);
	if (rc == 0 && o.fr.strs.n > INT32_MAX)
		rc = err_set(e, ERR_FAIL,
			     "otlp: %zu strings exceed the format's indexes",
			     o.fr.strs.n);
	if (rc == 0) {
		dictionary(&o, &dict);
		req.dictionary = &dict;
		req.n_resource_profiles = o.resources.n;
		req.resource_profiles = (ResourceProfiles **)o.resources.v;
		len = opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__get_packed_size(
			&req);
		buf_grow(out, len + 1);
		opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__pack(
			&req, (uint8_t *)out->data + out->len);
		buf_setlen(out, out->len + len);
	}
	otlp_release(&o);
	query_free(q0);
	return rc;
}
