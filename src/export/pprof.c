/*
 * pprof's profile.proto, gzipped, encoded with protobuf-c from the
 * vendored src/formats/pprof/profile.proto (compiled at build time).  The
 * sample types follow the Go heap profile's convention (docs/export.md):
 * samples/count always; alloc_objects/count where the kind has an
 * object count; alloc_space/bytes; inuse_objects/inuse_space where the
 * kind has liveness (the part still alive when its recording ended).
 * A function is a Java method (class.method), a location a (method,
 * line) site; one mapping stands for the JVM, since Java frames have no
 * addresses.  It does not add labels (thread, class): a sample is a
 * stack, summed over the query's filters.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "formats/pprof/profile.pb-c.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/xalloc.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

/* The string table: index 0 is "", as the format requires. */
struct strings {
	struct hmap idx;
	struct arena mem;
	char **v;
	size_t n, alloc;
};

static int64_t str_id(struct strings *t, const char *s, size_t len)
{
	uint64_t v;
	char *copy;

	if (hmap_get(&t->idx, s, len, &v))
		return (int64_t)v;
	copy = arena_memdup(&t->mem, s, len);
	hmap_put(&t->idx, copy, len, t->n, NULL);
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 256;
		t->v = xreallocarray(t->v, t->alloc, sizeof(*t->v));
	}
	t->v[t->n] = copy;
	return (int64_t)t->n++;
}

static int64_t str_idz(struct strings *t, const char *s)
{
	return str_id(t, s, strlen(s));
}

/* gzip (RFC 1952) of in[0..len) appended to out. */
static int gzip_buf(struct buf *out, const uint8_t *in, size_t len,
		    struct err *e)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return err_set(e, ERR_FAIL, "pprof: zlib: cannot start");
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len; /* profiles stay far below 4 GB */
	do {
		buf_grow(out, 65536);
		z.next_out = (Bytef *)out->data + out->len;
		z.avail_out = 65536;
		rc = deflate(&z, Z_FINISH);
		buf_setlen(out, out->len + (65536 - z.avail_out));
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	deflateEnd(&z);
	if (rc != Z_STREAM_END)
		return err_set(e, ERR_FAIL, "pprof: zlib: deflate failed (%d)",
			       rc);
	return 0;
}

enum { V_SAMPLES, V_OBJECTS, V_SPACE, V_INUSE_OBJECTS, V_INUSE_SPACE, V__N };

/* The profile's tables as they grow: strings, locations, functions. */
struct pprof {
	struct strings strs;
	struct hmap loc_idx; /* a location's site: its id */
	struct hmap fn_idx;  /* a function's name: its id */
	Location **locs;
	Function **fns;
	size_t n_locs, n_fns, alloc_locs, alloc_fns;
	struct buf method; /* a frame's class.method, for the next lookup */
};

static void pprof_init(struct pprof *p)
{
	memset(p, 0, sizeof(*p));
	hmap_init(&p->strs.idx);
	arena_init(&p->strs.mem, 65536);
	str_idz(&p->strs, "");
	hmap_init(&p->loc_idx);
	hmap_init(&p->fn_idx);
	buf_init(&p->method);
}

static void pprof_release(struct pprof *p)
{
	size_t d;

	for (d = 0; d < p->n_locs; d++)
		free(p->locs[d]);
	for (d = 0; d < p->n_fns; d++)
		free(p->fns[d]);
	free(p->locs);
	free(p->fns);
	free(p->strs.v);
	hmap_release(&p->strs.idx);
	hmap_release(&p->loc_idx);
	hmap_release(&p->fn_idx);
	arena_release(&p->strs.mem);
	buf_release(&p->method);
}

/* The sample types, Go's names, those the kind has: how many.  slot[V_x]
 * is V_x's index in a sample's values, -1 when it is not written. */
static size_t value_types(struct strings *strs, bool objects, bool fate,
			  ValueType vt[V__N], ValueType *vtp[V__N],
			  int slot[V__N])
{
	static const char *const names[V__N][2] = {
		{"samples", "count"},	  {"alloc_objects", "count"},
		{"alloc_space", "bytes"}, {"inuse_objects", "count"},
		{"inuse_space", "bytes"},
	};
	bool on[V__N] = {true, objects, true, fate && objects, fate};
	size_t n_vt = 0;
	int i;

	for (i = 0; i < V__N; i++) {
		slot[i] = -1;
		if (!on[i])
			continue;
		perftools__profiles__value_type__init(&vt[n_vt]);
		vt[n_vt].type = str_idz(strs, names[i][0]);
		vt[n_vt].unit = str_idz(strs, names[i][1]);
		vtp[n_vt] = &vt[n_vt];
		slot[i] = (int)n_vt++;
	}
	return n_vt;
}

/* The function named by string name (len bytes): its id, added on
 * first use. */
static uint64_t pprof_function(struct pprof *p, int64_t name, size_t len)
{
	uint64_t fid;
	bool added;
	Function *f;

	fid = *hmap_put(&p->fn_idx, p->strs.v[name], len, p->n_fns + 1, &added);
	if (!added)
		return fid;
	f = xcalloc(1, sizeof(*f));
	perftools__profiles__function__init(f);
	f->id = fid;
	f->name = f->system_name = name;
	if (p->n_fns == p->alloc_fns) {
		p->alloc_fns = p->alloc_fns ? 2 * p->alloc_fns : 256;
		p->fns = xreallocarray(p->fns, p->alloc_fns, sizeof(*p->fns));
	}
	p->fns[p->n_fns++] = f;
	return fid;
}

/* The location of node's frame (a method and line: its site), added
 * with its function on first use: its id; *up is the caller's node. */
static uint64_t pprof_location(struct pprof *p, struct query *q, uint32_t node,
			       uint32_t *up)
{
	const char *site;
	int32_t line;
	uint64_t id;
	bool added;
	Location *l;
	Line *ln, **lnp;

	*up = query_node_frame(q, node, &p->method, &line, &site);
	id = *hmap_put(&p->loc_idx, site, strlen(site), p->n_locs + 1, &added);
	if (!added)
		return id;
	/* the location, its one line and the line's pointer in one block */
	l = xcalloc(1, sizeof(*l) + sizeof(Line) + sizeof(Line *));
	ln = (Line *)(l + 1);
	lnp = (Line **)(ln + 1);
	perftools__profiles__location__init(l);
	perftools__profiles__line__init(ln);
	ln->function_id = pprof_function(
		p, str_id(&p->strs, p->method.data, p->method.len),
		p->method.len);
	ln->line = line >= 0 ? line : 0;
	*lnp = ln;
	l->id = id;
	l->mapping_id = 1;
	l->n_line = 1;
	l->line = lnp;
	if (p->n_locs == p->alloc_locs) {
		p->alloc_locs = p->alloc_locs ? 2 * p->alloc_locs : 256;
		p->locs =
			xreallocarray(p->locs, p->alloc_locs, sizeof(*p->locs));
	}
	p->locs[p->n_locs++] = l;
	return id;
}

/* The samples, one a stack, and the arrays they point into. */
struct pprof_samples {
	Sample *v, **p;
	uint64_t *loc_ids;
	int64_t *vals;
};

static void add_samples(struct pprof *p, struct query *q,
			const struct query_stack *st, size_t n,
			const int slot[V__N], size_t n_vt,
			struct pprof_samples *out)
{
	size_t k, n_ids = 0;

	/* how many location ids in all, to allocate once */
	for (k = 0; k < n; k++) {
		size_t depth = query_path_frames(q, st[k].stack, NULL, 0);

		n_ids += depth ? depth : 1;
	}
	out->v = xcalloc(n ? n : 1, sizeof(*out->v));
	out->p = xcalloc(n ? n : 1, sizeof(*out->p));
	out->loc_ids = xcalloc(n_ids ? n_ids : 1, sizeof(*out->loc_ids));
	out->vals = xcalloc((n ? n : 1) * n_vt, sizeof(*out->vals));
	n_ids = 0;
	for (k = 0; k < n; k++) {
		Sample *s = &out->v[k];
		uint32_t node = st[k].stack;
		int64_t *v = &out->vals[k * n_vt];

		perftools__profiles__sample__init(s);
		out->p[k] = s;
		s->location_id = &out->loc_ids[n_ids];
		/* leaf first, as pprof wants; a sample without a stack gets
		 * the "(no stack)" location */
		do {
			out->loc_ids[n_ids++] =
				pprof_location(p, q, node, &node);
			s->n_location_id++;
		} while (node);
		s->value = v;
		s->n_value = n_vt;
		v[slot[V_SAMPLES]] = (int64_t)st[k].samples;
		v[slot[V_SPACE]] = st[k].est_bytes;
		if (slot[V_OBJECTS] >= 0)
			v[slot[V_OBJECTS]] = llround(st[k].est_objects);
		if (slot[V_INUSE_OBJECTS] >= 0)
			v[slot[V_INUSE_OBJECTS]] = llround(st[k].inuse_objects);
		if (slot[V_INUSE_SPACE] >= 0)
			v[slot[V_INUSE_SPACE]] = st[k].inuse_bytes;
	}
}

static void pprof_samples_release(struct pprof_samples *s)
{
	free(s->v);
	free(s->p);
	free(s->loc_ids);
	free(s->vals);
}

/* The time the profile covers, which pprof divides by for rates. */
static void set_time(Profile *prof, struct query *q,
		     const struct query_total *total)
{
	int64_t from, to, covered;

	if (!total->samples)
		return;
	covered = query_covered(q, &from, &to);
	/* the time the recordings cover: the samples' own span starts at
	 * the first and ends at the last, short of the recording's ends;
	 * several recordings at different times: from the first's start,
	 * for the time they cover, their gaps left out */
	if (covered > 0) {
		prof->time_nanos = from;
		prof->duration_nanos = covered;
	} else {
		prof->time_nanos = total->first_ns;
		prof->duration_nanos = total->last_ns - total->first_ns;
	}
}

/* prof with comment (its string added last) and the string table,
 * packed and gzipped onto out. */
static int pack(Profile *prof, struct strings *strs, const char *comment,
		struct buf *out, struct err *e)
{
	int64_t c = str_idz(strs, comment);
	uint8_t *packed;
	size_t packed_len;
	int rc;

	prof->n_comment = 1;
	prof->comment = &c;
	prof->n_string_table = strs->n;
	prof->string_table = strs->v;
	packed_len = perftools__profiles__profile__get_packed_size(prof);
	packed = xmalloc(packed_len ? packed_len : 1);
	perftools__profiles__profile__pack(prof, packed);
	prof->comment = NULL;
	rc = gzip_buf(out, packed, packed_len, e);
	free(packed);
	return rc;
}

int export_pprof(struct query *q, struct buf *out, struct err *e)
{
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT;
	Mapping *maps[1] = {&map};
	ValueType vt[V__N], *vtp[V__N],
		period = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	int slot[V__N]; /* the value's index in a sample, -1: not written */
	const struct query_stack *st;
	struct query_total total;
	struct pprof p;
	struct pprof_samples smp;
	size_t n, n_vt;
	bool fate;
	int rc;

	if (query_stacks(q, &st, &n, &fate, &total, e) < 0)
		return ERR_FAIL;
	/* the strings in the order they are met: the table is the same
	 * for the same query */
	pprof_init(&p);
	n_vt = value_types(&p.strs, query_kind_objects(query_kind(q)), fate, vt,
			   vtp, slot);
	add_samples(&p, q, st, n, slot, n_vt, &smp);
	map.id = 1;
	map.filename = str_idz(&p.strs, "[jvm]");
	map.has_functions = map.has_line_numbers = 1;
	prof.n_sample_type = n_vt;
	prof.sample_type = vtp;
	prof.n_sample = n;
	prof.sample = smp.p;
	prof.n_mapping = 1;
	prof.mapping = maps;
	prof.n_location = p.n_locs;
	prof.location = p.locs;
	prof.n_function = p.n_fns;
	prof.function = p.fns;
	period.type = str_idz(&p.strs, "space");
	period.unit = str_idz(&p.strs, "bytes");
	prof.period_type = &period;
	prof.default_sample_type = vt[slot[V_SPACE]].type;
	set_time(&prof, q, &total);
	rc = pack(&prof, &p.strs, sample_kind_name(query_kind(q)), out, e);
	pprof_samples_release(&smp);
	pprof_release(&p);
	return rc;
}
