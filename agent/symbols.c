/*
 * The interning tables declared in symbols.h.  Ids are array indexes
 * plus one; tables only grow (nothing interned is ever forgotten, since
 * a later sample may use it and the file has no way to retract).
 */
#include "agent/symbols.h"

#include <stdlib.h>
#include <string.h>

#include "agent/pending.h"
#include "agent/recbuf.h"

void symbols_release(struct symbols *s)
{
	uint32_t i;

	internmap_release(&s->class_map);
	internmap_release(&s->method_map);
	internmap_release(&s->stack_map);
	for (i = 0; i < s->n_methods; i++)
		free(s->methods[i].lines);
	free(s->classes);
	free(s->names);
	free(s->methods);
	free(s->stacks);
	free(s->frames);
	memset(s, 0, sizeof(*s));
}

/* Room for one more element in *arr of *cap elements; -1 if none. */
static int reserve(void **arr, uint32_t n, uint32_t *cap, size_t elem)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (n >= UINT32_MAX / 2)
		return -1;
	ncap = *cap ? *cap * 2 : 256;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int reserve_bytes(void **arr, size_t len, size_t need, size_t *cap,
			 size_t elem)
{
	size_t ncap = *cap ? *cap : 4096;
	void *p;

	if (need <= *cap - len)
		return 0;
	while (ncap - len < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -1;
		ncap *= 2;
	}
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return internmap_mix(h);
}

/* Strings in definitions are cut at the format's limit, as recbuf_str
 * does; a class name that long is damage anyway. */
static uint32_t clamp_str(size_t n)
{
	return n > AGENTREC_MAX_STRING ? AGENTREC_MAX_STRING : (uint32_t)n;
}

static unsigned char *put_str(unsigned char *p, const char *s, uint32_t n)
{
	le_put32(p, n);
	if (n)
		memcpy(p + 4, s, n);
	return p + 4 + n;
}

uint32_t symbols_class(struct symbols *s, struct pending *defs,
		       const char *name, size_t len)
{
	uint64_t h = hash_bytes(name, len);
	uint32_t id, n = clamp_str(len);
	unsigned char *rec;
	size_t pos;

	for (id = internmap_first(&s->class_map, h, &pos); id;
	     id = internmap_next(&s->class_map, h, &pos))
		if (s->classes[id - 1].len == len &&
		    !memcmp(s->names + s->classes[id - 1].off, name, len))
			return id;
	if (reserve((void **)&s->classes, s->n_classes, &s->classes_cap,
		    sizeof(*s->classes)) < 0 ||
	    reserve_bytes((void **)&s->names, s->names_len, len + 1,
			  &s->names_cap, 1) < 0 ||
	    len > UINT32_MAX)
		return 0;
	rec = pending_reserve(defs, frame_size(8 + (size_t)n));
	if (!rec)
		return 0;
	id = s->n_classes + 1;
	le_put32(rec + 8, id);
	put_str(rec + 12, name, n);
	frame_seal(rec, AR_CLASS, 8 + n);
	s->classes[id - 1].off = s->names_len;
	s->classes[id - 1].len = (uint32_t)len;
	memcpy(s->names + s->names_len, name, len);
	s->names_len += len;
	s->n_classes++;
	/* without the map entry the class is merely not deduplicated: a
	 * second CLASS record with a new id, still correct */
	(void)internmap_put(&s->class_map, h, id);
	return id;
}

uint32_t symbols_thread(struct symbols *s, struct pending *defs,
			const char *name, size_t len, int64_t java_id,
			uint32_t flags)
{
	uint32_t n = clamp_str(len), id;
	unsigned char *rec;

	if (s->n_threads == UINT32_MAX)
		return 0;
	rec = pending_reserve(defs, frame_size(20 + (size_t)n));
	if (!rec)
		return 0;
	id = ++s->n_threads;
	le_put32(rec + 8, id);
	le_put32(rec + 12, flags);
	le_put64(rec + 16, (uint64_t)java_id);
	put_str(rec + 24, name, n);
	frame_seal(rec, AR_THREAD, 20 + n);
	return id;
}

static uint32_t method_id(const struct symbols *s, jmethodID mid)
{
	uint64_t h = internmap_mix((uint64_t)(uintptr_t)mid);
	uint32_t id;
	size_t pos;

	for (id = internmap_first(&s->method_map, h, &pos); id;
	     id = internmap_next(&s->method_map, h, &pos))
		if (s->methods[id - 1].mid == mid)
			return id;
	return 0;
}

int symbols_has_method(const struct symbols *s, jmethodID mid)
{
	return method_id(s, mid) != 0;
}

uint32_t symbols_method(struct symbols *s, struct pending *defs,
			struct method_res *r)
{
	uint32_t id = method_id(s, r->mid), nn, ns;
	size_t name_len = r->name ? strlen(r->name) : 0;
	size_t sig_len = r->sig ? strlen(r->sig) : 0;
	unsigned char *rec, *p;

	if (id)
		return id;
	nn = clamp_str(name_len);
	ns = clamp_str(sig_len);
	if (reserve((void **)&s->methods, s->n_methods, &s->methods_cap,
		    sizeof(*s->methods)) < 0)
		return 0;
	rec = pending_reserve(defs, frame_size(20 + (size_t)nn + ns));
	if (!rec)
		return 0;
	id = s->n_methods + 1;
	le_put32(rec + 8, id);
	le_put32(rec + 12, r->class_id);
	le_put32(rec + 16, r->flags);
	p = put_str(rec + 20, r->name, nn);
	put_str(p, r->sig, ns);
	frame_seal(rec, AR_METHOD, 20 + nn + ns);
	s->methods[id - 1].mid = r->mid;
	s->methods[id - 1].lines = r->lines;
	s->methods[id - 1].n_lines = r->n_lines;
	r->lines = NULL;
	s->n_methods++;
	if (internmap_put(&s->method_map,
			  internmap_mix((uint64_t)(uintptr_t)r->mid), id) < 0) {
		/* unfindable, so its stacks could never be interned: let the
		 * record stand (ids stay unique) but report failure */
		return 0;
	}
	return id;
}

uint32_t symbols_missing(const struct symbols *s, const jvmtiFrameInfo *frames,
			 uint32_t n, jmethodID *miss)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!method_id(s, frames[i].method))
			miss[k++] = frames[i].method;
	return k;
}

/* A frame's bci: jlocation is a bytecode index for Java frames and -1
 * for native ones. */
static int32_t frame_bci(const jvmtiFrameInfo *f)
{
	return f->location < 0 || f->location > INT32_MAX
		       ? -1
		       : (int32_t)f->location;
}

uint64_t symbols_stack_hash(const jvmtiFrameInfo *frames, uint32_t n,
			    uint32_t flags)
{
	uint64_t h = internmap_mix(((uint64_t)n << 1) | (flags & 1));
	uint32_t i;

	/* method pointers use the low 47 bits; the bci goes above them */
	for (i = 0; i < n; i++)
		h = internmap_mix(
			h ^ (uint64_t)(uintptr_t)frames[i].method ^
			((uint64_t)(uint32_t)frame_bci(&frames[i]) << 47));
	return h;
}

static int same_stack(const struct symbols *s, const struct stack_entry *e,
		      const jvmtiFrameInfo *frames, uint32_t n, uint32_t flags)
{
	const struct stack_frame *f = s->frames + e->off;
	uint32_t i;

	if (e->n_frames != n || e->flags != flags)
		return 0;
	for (i = 0; i < n; i++)
		if (f[i].mid != frames[i].method ||
		    f[i].bci != frame_bci(&frames[i]))
			return 0;
	return 1;
}

int32_t symbols_line(const struct line_entry *lines, uint32_t n, int32_t bci)
{
	uint32_t lo = 0, hi = n;

	if (bci < 0)
		return -1;
	/* first entry with start > bci; the one before it is the line */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (lines[mid].start <= bci)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lines[lo - 1].line : -1;
}

uint32_t symbols_stack(struct symbols *s, struct pending *defs,
		       const jvmtiFrameInfo *frames, uint32_t n, uint32_t flags,
		       uint64_t hash)
{
	uint32_t id, i;
	unsigned char *rec, *p;
	size_t pos, payload;

	for (id = internmap_first(&s->stack_map, hash, &pos); id;
	     id = internmap_next(&s->stack_map, hash, &pos))
		if (same_stack(s, &s->stacks[id - 1], frames, n, flags))
			return id;
	/* a new stack: all its methods must be known before anything is
	 * appended (looked up again below; new stacks are rare) */
	for (i = 0; i < n; i++)
		if (!method_id(s, frames[i].method))
			return 0;
	if (reserve((void **)&s->stacks, s->n_stacks, &s->stacks_cap,
		    sizeof(*s->stacks)) < 0 ||
	    reserve_bytes((void **)&s->frames, s->n_frames, n, &s->frames_cap,
			  sizeof(*s->frames)) < 0)
		return 0;
	payload = 12 + (size_t)n * AR_FRAME_LEN;
	rec = pending_reserve(defs, frame_size(payload));
	if (!rec)
		return 0;
	id = s->n_stacks + 1;
	le_put32(rec + 8, id);
	le_put32(rec + 12, flags);
	le_put32(rec + 16, n);
	p = rec + 20;
	for (i = 0; i < n; i++) {
		uint32_t mid = method_id(s, frames[i].method);
		const struct method_entry *m = &s->methods[mid - 1];
		int32_t bci = frame_bci(&frames[i]);

		le_put32(p, mid);
		le_put32(p + 4, (uint32_t)bci);
		le_put32(p + 8,
			 (uint32_t)symbols_line(m->lines, m->n_lines, bci));
		p += AR_FRAME_LEN;
		s->frames[s->n_frames + i].mid = frames[i].method;
		s->frames[s->n_frames + i].bci = bci;
	}
	frame_seal(rec, AR_STACK, (uint32_t)payload);
	s->stacks[id - 1].off = s->n_frames;
	s->stacks[id - 1].n_frames = n;
	s->stacks[id - 1].flags = flags;
	s->n_frames += n;
	s->n_stacks++;
	(void)internmap_put(&s->stack_map, hash, id);
	return id;
}
