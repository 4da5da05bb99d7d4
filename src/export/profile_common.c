/*
 * The sample types, string table, frames and time the profile exports
 * share (profile_common.h).  The tables grow in the order things are met,
 * so the same query gives the same file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/profile_common.h"
#include "util/xalloc.h"

static const char *const value_names[PROFILE_VALUE__N][2] = {
	{"samples", "count"},	  {"alloc_objects", "count"},
	{"alloc_space", "bytes"}, {"inuse_objects", "count"},
	{"inuse_space", "bytes"},
};

const char *profile_value_type(enum profile_value v)
{
	return value_names[v][0];
}

const char *profile_value_unit(enum profile_value v)
{
	return value_names[v][1];
}

bool profile_value_on(enum profile_value v, enum sample_kind k, bool fate)
{
	bool objects = query_kind_objects(k);

	switch (v) {
	case PROFILE_SAMPLES:
	case PROFILE_SPACE:
		return true;
	case PROFILE_OBJECTS:
		return objects;
	case PROFILE_INUSE_OBJECTS:
		return fate && objects;
	case PROFILE_INUSE_SPACE:
		return fate;
	case PROFILE_VALUE__N:
		break;
	}
	return false;
}

int64_t profile_value_of(enum profile_value v, const struct query_stack *st)
{
	switch (v) {
	case PROFILE_SAMPLES:
		return (int64_t)st->samples;
	case PROFILE_OBJECTS:
		return llround(st->est_objects);
	case PROFILE_SPACE:
		return st->est_bytes;
	case PROFILE_INUSE_OBJECTS:
		return llround(st->inuse_objects);
	case PROFILE_INUSE_SPACE:
		return st->inuse_bytes;
	case PROFILE_VALUE__N:
		break;
	}
	return 0;
}

void profile_strings_init(struct profile_strings *t)
{
	memset(t, 0, sizeof(*t));
	hmap_init(&t->idx);
	arena_init(&t->mem, 65536);
	profile_strz(t, "");
}

void profile_strings_release(struct profile_strings *t)
{
	free(t->v);
	hmap_release(&t->idx);
	arena_release(&t->mem);
}

int64_t profile_str(struct profile_strings *t, const char *s, size_t len)
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

int64_t profile_strz(struct profile_strings *t, const char *s)
{
	return profile_str(t, s, strlen(s));
}

void profile_frames_init(struct profile_frames *f)
{
	memset(f, 0, sizeof(*f));
	profile_strings_init(&f->strs);
	hmap_init(&f->loc_idx);
	hmap_init(&f->fn_idx);
	buf_init(&f->method);
}

void profile_frames_release(struct profile_frames *f)
{
	free(f->locs);
	free(f->fn_name);
	hmap_release(&f->loc_idx);
	hmap_release(&f->fn_idx);
	buf_release(&f->method);
	profile_strings_release(&f->strs);
}

/* The function named by string name (len bytes), added on first use. */
static uint32_t frames_function(struct profile_frames *f, int64_t name,
				size_t len)
{
	uint64_t id;
	bool added;

	id = *hmap_put(&f->fn_idx, f->strs.v[name], len, f->n_fns, &added);
	if (!added)
		return (uint32_t)id;
	if (f->n_fns == f->alloc_fns) {
		f->alloc_fns = f->alloc_fns ? 2 * f->alloc_fns : 256;
		f->fn_name = xreallocarray(f->fn_name, f->alloc_fns,
					   sizeof(*f->fn_name));
	}
	f->fn_name[f->n_fns] = name;
	return (uint32_t)f->n_fns++;
}

uint32_t profile_frames_location(struct profile_frames *f, struct query *q,
				 uint32_t node, uint32_t *up)
{
	const char *site;
	int32_t line;
	uint64_t id;
	size_t len;
	struct profile_loc *l;

	*up = query_node_frame(q, node, &f->method, &line, &site);
	len = strlen(site);
	if (hmap_get(&f->loc_idx, site, len, &id))
		return (uint32_t)id;
	/* the key copied: site is q's, and the frames outlive queries when
	 * a profile is made of several */
	hmap_put(&f->loc_idx, arena_memdup(&f->strs.mem, site, len), len,
		 f->n_locs, NULL);
	if (f->n_locs == f->alloc_locs) {
		f->alloc_locs = f->alloc_locs ? 2 * f->alloc_locs : 256;
		f->locs =
			xreallocarray(f->locs, f->alloc_locs, sizeof(*f->locs));
	}
	l = &f->locs[f->n_locs];
	/* the string first: the table's order is the order things are met */
	l->fn = frames_function(
		f, profile_str(&f->strs, f->method.data, f->method.len),
		f->method.len);
	l->line = line >= 0 ? line : 0;
	return (uint32_t)f->n_locs++;
}

bool profile_time(struct query *q, const struct query_total *total,
		  int64_t *start_ns, int64_t *duration_ns)
{
	int64_t from, to, covered;

	if (!total->samples)
		return false;
	covered = query_covered(q, &from, &to);
	/* the time the recordings cover: the samples' own span starts at
	 * the first and ends at the last, short of the recording's ends;
	 * several recordings at different times: from the first's start,
	 * for the time they cover, their gaps left out */
	if (covered > 0) {
		*start_ns = from;
		*duration_ns = covered;
	} else {
		*start_ns = total->first_ns;
		*duration_ns = total->last_ns - total->first_ns;
	}
	return true;
}
