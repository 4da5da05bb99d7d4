/*
 * The JFR chunk decoder declared in jfr.h (jfr_int.h says how it is
 * split): a chunk's life, its header, opening it and reading its
 * events.
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

#include "formats/jfr/jfr_int.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/size.h"
#include "util/xalloc.h"

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
	free(c->refs);
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

/*
 * Who wrote a major version heapsift does not read, for the message.
 * The versions, from the writers and readers that know them: major 0
 * (0.9) is Oracle JDK 7 and 8's commercial Flight Recorder, major 1
 * (1.0) Oracle JDK 9 and 10's (JMC's FlightRecordingLoader: VERSION_0
 * "JDK7 & JDK8", VERSION_1 "JDK9 & JDK10", VERSION_2 "JDK11"); 2.0 is
 * written by JDK 11 to 13 and by OpenJDK 8u's backport of JFR
 * (jfrChunkWriter.cpp, JFR_VERSION_MAJOR 2, JFR_VERSION_MINOR 0), 2.1
 * since JDK 14 (jfrChunk.cpp, JFR_VERSION_MINOR 1).
 */
static const char *jfr_version_writer(unsigned major)
{
	switch (major) {
	case 0:
		return ": it is Oracle JDK 7 and 8's Flight Recorder format";
	case 1:
		return ": it is Oracle JDK 9 and 10's Flight Recorder format";
	}
	return ": no JDK heapsift knows writes it";
}

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
				  "jfr: file format %u.%u is not supported%s "
				  "(heapsift reads 2.x, written by JDK 11 and "
				  "later and by OpenJDK 8u's JFR)",
				  h->major, h->minor,
				  jfr_version_writer(h->major));
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
		if (jfr_parse_metadata(c, meta, e) < 0)
			return ERR_FAIL;
		keep_metadata(c, meta);
	}

	if (check_offsets(&c->h, e) < 0) {
		err_prefix(e, "jfr: chunk %u header", chunk_no);
		rc = 1;
	}

	/* pass 3: index the pools; a damaged checkpoint loses only itself */
	for (i = 0; (size_t)i < c->n_checkpoints; i++)
		if (jfr_parse_checkpoint(c, c->checkpoints[i], e) < 0)
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
	ev->have = ev->floats = 0;
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
			if (o->slot >= 0)
				ev->floats |= 1u << o->slot;
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
					jfr_decode_jstr(c, &c->consts, &s, 0);
				ev->have |= 1u << o->slot;
			}
			continue;
		}
		case OP_HEAPSPACE: {
			/* heapSpace: an inline VirtualSpace */
			struct capture cap;

			jfr_capture_struct(c, &r, o->type, &cap);
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
			jfr_skip_value(c, &r, o->type, o->array, o->cp, 0);
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
	ev->have = ev->floats = 0;
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
