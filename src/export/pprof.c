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
	struct strings strs;
	struct hmap loc_idx, fn_idx;
	Location **locs = NULL;
	Function **fns = NULL;
	Sample *samples, **sp;
	uint64_t *loc_ids;
	int64_t *vals;
	size_t n, k, n_locs = 0, n_fns = 0, alloc_locs = 0, alloc_fns = 0;
	size_t n_ids = 0, n_vt = 0, d;
	struct buf method = BUF_INIT;
	bool fate, objects;
	uint8_t *packed;
	size_t packed_len;
	int rc;

	if (query_stacks(q, &st, &n, &fate, &total, e) < 0)
		return ERR_FAIL;
	objects = query_kind_objects(query_kind(q));
	memset(&strs, 0, sizeof(strs));
	hmap_init(&strs.idx);
	arena_init(&strs.mem, 65536);
	str_idz(&strs, "");
	hmap_init(&loc_idx);
	hmap_init(&fn_idx);

	/* sample types, Go's names */
	{
		static const char *const names[V__N][2] = {
			{"samples", "count"},	  {"alloc_objects", "count"},
			{"alloc_space", "bytes"}, {"inuse_objects", "count"},
			{"inuse_space", "bytes"},
		};
		bool on[V__N] = {true, objects, true, fate && objects, fate};
		int i;

		for (i = 0; i < V__N; i++) {
			slot[i] = -1;
			if (!on[i])
				continue;
			perftools__profiles__value_type__init(&vt[n_vt]);
			vt[n_vt].type = str_idz(&strs, names[i][0]);
			vt[n_vt].unit = str_idz(&strs, names[i][1]);
			vtp[n_vt] = &vt[n_vt];
			slot[i] = (int)n_vt++;
		}
	}

	/* how many location ids in all, to allocate once */
	for (k = 0; k < n; k++) {
		size_t depth = query_path_frames(q, st[k].stack, NULL, 0);

		n_ids += depth ? depth : 1;
	}
	samples = xcalloc(n ? n : 1, sizeof(*samples));
	sp = xcalloc(n ? n : 1, sizeof(*sp));
	loc_ids = xcalloc(n_ids ? n_ids : 1, sizeof(*loc_ids));
	vals = xcalloc((n ? n : 1) * n_vt, sizeof(*vals));
	n_ids = 0;
	for (k = 0; k < n; k++) {
		Sample *s = &samples[k];
		uint32_t node = st[k].stack;
		int64_t *v = &vals[k * n_vt];

		perftools__profiles__sample__init(s);
		sp[k] = s;
		s->location_id = &loc_ids[n_ids];
		/* leaf first, as pprof wants; a sample without a stack gets
		 * the "(no stack)" location */
		do {
			const char *site;
			int32_t line;
			uint64_t id;
			bool added;
			uint32_t up;

			up = query_node_frame(q, node, &method, &line, &site);
			id = *hmap_put(&loc_idx, site, strlen(site), n_locs + 1,
				       &added);
			if (added) {
				Location *l =
					xcalloc(1, sizeof(*l) + sizeof(Line) +
							   sizeof(Line *));
				Line *ln = (Line *)(l + 1);
				Line **lnp = (Line **)(ln + 1);
				int64_t name =
					str_id(&strs, method.data, method.len);
				uint64_t fid;
				bool fadded;

				fid = *hmap_put(&fn_idx, strs.v[name],
						method.len, n_fns + 1, &fadded);
				if (fadded) {
					Function *f = xcalloc(1, sizeof(*f));

					perftools__profiles__function__init(f);
					f->id = fid;
					f->name = f->system_name = name;
					if (n_fns == alloc_fns) {
						alloc_fns =
							alloc_fns
								? 2 * alloc_fns
								: 256;
						fns = xreallocarray(
							fns, alloc_fns,
							sizeof(*fns));
					}
					fns[n_fns++] = f;
				}
				perftools__profiles__location__init(l);
				perftools__profiles__line__init(ln);
				ln->function_id = fid;
				ln->line = line >= 0 ? line : 0;
				*lnp = ln;
				l->id = id;
				l->mapping_id = 1;
				l->n_line = 1;
				l->line = lnp;
				if (n_locs == alloc_locs) {
					alloc_locs = alloc_locs ? 2 * alloc_locs
								: 256;
					locs = xreallocarray(locs, alloc_locs,
							     sizeof(*locs));
				}
				locs[n_locs++] = l;
			}
			loc_ids[n_ids++] = id;
			s->n_location_id++;
			node = up;
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

	map.id = 1;
	map.filename = str_idz(&strs, "[jvm]");
	map.has_functions = map.has_line_numbers = 1;
	prof.n_sample_type = n_vt;
	prof.sample_type = vtp;
	prof.n_sample = n;
	prof.sample = sp;
	prof.n_mapping = 1;
	prof.mapping = maps;
	prof.n_location = n_locs;
	prof.location = locs;
	prof.n_function = n_fns;
	prof.function = fns;
	period.type = str_idz(&strs, "space");
	period.unit = str_idz(&strs, "bytes");
	prof.period_type = &period;
	prof.default_sample_type = vt[slot[V_SPACE]].type;
	if (total.samples) {
		int64_t from, to, covered = query_covered(q, &from, &to);

		/* the time the recordings cover, which pprof divides by
		 * for rates: the samples' own span starts at the first
		 * and ends at the last, short of the recording's ends;
		 * several recordings at different times: from the first's
		 * start, for the time they cover, their gaps left out */
		if (covered > 0) {
			prof.time_nanos = from;
			prof.duration_nanos = covered;
		} else {
			prof.time_nanos = total.first_ns;
			prof.duration_nanos = total.last_ns - total.first_ns;
		}
	}
	{
		int64_t c = str_idz(&strs, sample_kind_name(query_kind(q)));

		prof.n_comment = 1;
		prof.comment = &c;
		prof.n_string_table = strs.n;
		prof.string_table = strs.v;
		packed_len =
			perftools__profiles__profile__get_packed_size(&prof);
		packed = xmalloc(packed_len ? packed_len : 1);
		perftools__profiles__profile__pack(&prof, packed);
		prof.comment = NULL;
	}
	rc = gzip_buf(out, packed, packed_len, e);

	free(packed);
	for (d = 0; d < n_locs; d++)
		free(locs[d]);
	for (d = 0; d < n_fns; d++)
		free(fns[d]);
	free(locs);
	free(fns);
	free(samples);
	free(sp);
	free(loc_ids);
	free(vals);
	free(strs.v);
	hmap_release(&strs.idx);
	hmap_release(&loc_idx);
	hmap_release(&fn_idx);
	arena_release(&strs.mem);
	buf_release(&method);
	return rc;
}
