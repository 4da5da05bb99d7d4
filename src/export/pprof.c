/*
 * pprof's profile.proto, gzipped, encoded with protobuf-c from the
 * vendored src/formats/pprof/profile.proto (compiled at build time).  The
 * sample types follow the Go heap profile's convention (docs/export.md):
 * samples/count always; alloc_objects/count where the kind has an
 * object count; alloc_space/bytes; inuse_objects/inuse_space where the
 * kind has liveness (the part still alive when its recording ended);
 * they, the frames and the time come from profile_common.h, which the
 * OTLP export shares.  With several kinds (export_pprof_kinds()), each
 * kind's types are named by the kind and a sample is one kind's stack.
 * A function is a Java method (class.method), a location a (method,
 * line) site; one mapping stands for the JVM, since Java frames have no
 * addresses.  It does not add labels (thread, class): a sample is a
 * stack, summed over the query's filters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "export/profile_common.h"
#include "formats/pprof/profile.pb-c.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

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

/* One kind's samples: its query's stacks, and where its values go in a
 * sample (slot[v]: v's index, -1 where the kind does not write v). */
struct pprof_part {
	struct query *q;
	const struct query_stack *st;
	size_t n;
	bool fate;
	struct query_total total;
	int slot[PROFILE_VALUE__N];
};

/* The profile's tables as they grow, and the messages made of them. */
struct pprof {
	struct profile_frames fr;
	ValueType *vt, **vtp;
	size_t n_vt;
	Location *locs, **locp;
	Line *lines, **linep;
	Function *fns, **fnp;
	Sample *smp, **smpp;
	uint64_t *loc_ids;
	int64_t *vals;
	size_t n_smp;
};

/* The sample types of each part, in order: Go's names, or with
 * qualified, each prefixed by the kind's word ("tlab.alloc_space") so
 * that the kinds' types differ in one profile. */
static void value_types(struct pprof *p, struct pprof_part *parts,
			size_t n_parts, bool qualified)
{
	struct buf name = BUF_INIT;
	size_t i;
	int v;

	p->vt = xcalloc(n_parts * PROFILE_VALUE__N, sizeof(*p->vt));
	p->vtp = xcalloc(n_parts * PROFILE_VALUE__N, sizeof(*p->vtp));
	for (i = 0; i < n_parts; i++) {
		enum sample_kind k = query_kind(parts[i].q);

		for (v = 0; v < PROFILE_VALUE__N; v++) {
			ValueType *t = &p->vt[p->n_vt];

			parts[i].slot[v] = -1;
			if (!profile_value_on(v, k, parts[i].fate))
				continue;
			buf_reset(&name);
			if (qualified)
				buf_addf(&name, "%s.", sample_kind_word(k));
			buf_adds(&name, profile_value_type(v));
			perftools__profiles__value_type__init(t);
			t->type = profile_str(&p->fr.strs, name.data, name.len);
			t->unit = profile_strz(&p->fr.strs,
					       profile_value_unit(v));
			p->vtp[p->n_vt] = t;
			parts[i].slot[v] = (int)p->n_vt++;
		}
	}
	buf_release(&name);
}

/* The samples: one a stack of each part, leaf first, as pprof wants; a
 * part's values in its slots, 0 in the other parts'.  A sample without
 * a stack gets the "(no stack)" location. */
static void add_samples(struct pprof *p, const struct pprof_part *parts,
			size_t n_parts)
{
	size_t i, k, n = 0, n_ids = 0, at = 0;

	/* how many samples and location ids in all, to allocate once */
	for (i = 0; i < n_parts; i++)
		for (k = 0; k < parts[i].n; k++, n++) {
			size_t depth = query_path_frames(
				parts[i].q, parts[i].st[k].stack, NULL, 0);

			n_ids += depth ? depth : 1;
		}
	p->smp = xcalloc(n ? n : 1, sizeof(*p->smp));
	p->smpp = xcalloc(n ? n : 1, sizeof(*p->smpp));
	p->loc_ids = xcalloc(n_ids ? n_ids : 1, sizeof(*p->loc_ids));
	p->vals = xcalloc((n ? n : 1) * (p->n_vt ? p->n_vt : 1),
			  sizeof(*p->vals));
	n_ids = 0;
	for (i = 0; i < n_parts; i++)
		for (k = 0; k < parts[i].n; k++, at++) {
			const struct query_stack *st = &parts[i].st[k];
			Sample *s = &p->smp[at];
			uint32_t node = st->stack;
			int64_t *val = &p->vals[at * p->n_vt];
			int v;

			perftools__profiles__sample__init(s);
			p->smpp[at] = s;
			s->location_id = &p->loc_ids[n_ids];
			do {
				p->loc_ids[n_ids++] =
					profile_frames_location(&p->fr,
								parts[i].q,
								node, &node) +
					1;
				s->n_location_id++;
			} while (node);
			s->value = val;
			s->n_value = p->n_vt;
			for (v = 0; v < PROFILE_VALUE__N; v++)
				if (parts[i].slot[v] >= 0)
					val[parts[i].slot[v]] =
						profile_value_of(v, st);
		}
	p->n_smp = n;
}

/* The locations and functions met, as pprof's messages (ids from 1). */
static void add_frames(struct pprof *p)
{
	size_t d, n_l = p->fr.n_locs, n_f = p->fr.n_fns;

	p->locs = xcalloc(n_l ? n_l : 1, sizeof(*p->locs));
	p->locp = xcalloc(n_l ? n_l : 1, sizeof(*p->locp));
	p->lines = xcalloc(n_l ? n_l : 1, sizeof(*p->lines));
	p->linep = xcalloc(n_l ? n_l : 1, sizeof(*p->linep));
	for (d = 0; d < n_l; d++) {
		perftools__profiles__location__init(&p->locs[d]);
		perftools__profiles__line__init(&p->lines[d]);
		p->lines[d].function_id = p->fr.locs[d].fn + 1;
		p->lines[d].line = p->fr.locs[d].line;
		p->linep[d] = &p->lines[d];
		p->locs[d].id = d + 1;
		p->locs[d].mapping_id = 1;
		p->locs[d].n_line = 1;
		p->locs[d].line = &p->linep[d];
		p->locp[d] = &p->locs[d];
	}
	p->fns = xcalloc(n_f ? n_f : 1, sizeof(*p->fns));
	p->fnp = xcalloc(n_f ? n_f : 1, sizeof(*p->fnp));
	for (d = 0; d < n_f; d++) {
		perftools__profiles__function__init(&p->fns[d]);
		p->fns[d].id = d + 1;
		p->fns[d].name = p->fns[d].system_name = p->fr.fn_name[d];
		p->fnp[d] = &p->fns[d];
	}
}

static void pprof_release(struct pprof *p)
{
	free(p->vt);
	free(p->vtp);
	free(p->locs);
	free(p->locp);
	free(p->lines);
	free(p->linep);
	free(p->fns);
	free(p->fnp);
	free(p->smp);
	free(p->smpp);
	free(p->loc_ids);
	free(p->vals);
	profile_frames_release(&p->fr);
}

/* The time the profile covers, which pprof divides by for rates: one
 * part's (profile_time()), or from the earliest part's start to the
 * latest part's end. */
static void set_time(Profile *prof, const struct pprof_part *parts,
		     size_t n_parts)
{
	int64_t start, dur, lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	for (i = 0; i < n_parts; i++) {
		if (!profile_time(parts[i].q, &parts[i].total, &start, &dur))
			continue;
		if (n_parts == 1) {
			prof->time_nanos = start;
			prof->duration_nanos = dur;
			return;
		}
		lo = start < lo ? start : lo;
		hi = start + dur > hi ? start + dur : hi;
	}
	if (lo <= hi) {
		prof->time_nanos = lo;
		prof->duration_nanos = hi - lo;
	}
}

/* prof with a comment per part, its kind (their strings added last),
 * and the string table, packed and gzipped onto out. */
static int pack(Profile *prof, const struct pprof_part *parts, size_t n_parts,
		struct profile_strings *strs, struct buf *out, struct err *e)
{
	int64_t *c = xcalloc(n_parts ? n_parts : 1, sizeof(*c));
	uint8_t *packed;
	size_t packed_len, i;
	int rc;

	for (i = 0; i < n_parts; i++)
		c[i] = profile_strz(strs,
				    sample_kind_name(query_kind(parts[i].q)));
	prof->n_comment = n_parts;
	prof->comment = c;
	prof->n_string_table = strs->n;
	prof->string_table = strs->v;
	packed_len = perftools__profiles__profile__get_packed_size(prof);
	packed = xmalloc(packed_len ? packed_len : 1);
	perftools__profiles__profile__pack(prof, packed);
	prof->comment = NULL;
	rc = gzip_buf(out, packed, packed_len, e);
	free(packed);
	free(c);
	return rc;
}

/* One profile of the parts' samples; qualified: the sample types are
 * named by kind (export_pprof_kinds()). */
static int write_profile(struct pprof_part *parts, size_t n_parts,
			 bool qualified, struct buf *out, struct err *e)
{
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT;
	Mapping *maps[1] = {&map};
	ValueType period = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	struct pprof p;
	int rc;

	/* the strings in the order they are met: the table is the same
	 * for the same query */
	memset(&p, 0, sizeof(p));
	profile_frames_init(&p.fr);
	value_types(&p, parts, n_parts, qualified);
	add_samples(&p, parts, n_parts);
	add_frames(&p);
	map.id = 1;
	map.filename = profile_strz(&p.fr.strs, "[jvm]");
	map.has_functions = map.has_line_numbers = 1;
	prof.n_sample_type = p.n_vt;
	prof.sample_type = p.vtp;
	prof.n_sample = p.n_smp;
	prof.sample = p.smpp;
	prof.n_mapping = 1;
	prof.mapping = maps;
	prof.n_location = p.fr.n_locs;
	prof.location = p.locp;
	prof.n_function = p.fr.n_fns;
	prof.function = p.fnp;
	period.type = profile_strz(&p.fr.strs, "space");
	period.unit = profile_strz(&p.fr.strs, "bytes");
	prof.period_type = &period;
	/* the first part's bytes: alloc's where it is there (kinds come
	 * in their order) */
	if (n_parts)
		prof.default_sample_type =
			p.vt[parts[0].slot[PROFILE_SPACE]].type;
	set_time(&prof, parts, n_parts);
	rc = pack(&prof, parts, n_parts, &p.fr.strs, out, e);
	pprof_release(&p);
	return rc;
}

static int part_open(struct pprof_part *part, struct query *q, struct err *e)
{
	memset(part, 0, sizeof(*part));
	part->q = q;
	return query_stacks(q, &part->st, &part->n, &part->fate, &part->total,
			    e) < 0
		       ? ERR_FAIL
		       : 0;
}

int export_pprof(struct query *q, struct buf *out, struct err *e)
{
	struct pprof_part part;

	if (part_open(&part, q, e) < 0)
		return ERR_FAIL;
	return write_profile(&part, 1, false, out, e);
}

int export_pprof_kinds(struct query *const *queries, size_t n_queries,
		       struct buf *out, struct err *e)
{
	struct pprof_part *parts =
		xcalloc(n_queries ? n_queries : 1, sizeof(*parts));
	size_t i;
	int rc = 0;

	for (i = 0; i < n_queries && rc == 0; i++)
		rc = part_open(&parts[i], queries[i], e);
	if (rc == 0)
		rc = write_profile(parts, n_queries, true, out, e);
	free(parts);
	return rc;
}
