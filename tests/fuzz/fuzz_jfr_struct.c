/*
 * The JFR harness (fuzz_jfr.c) with a structure-aware mutator: the input
 * is cut into chunks and each chunk into events (size, type, payload),
 * one event's payload is changed (its bytes by libFuzzer's own
 * mutations, or one of its varints to a value chosen to hurt), or events
 * are dropped, copied, moved or retyped, and the chunk is written out
 * again with everything the reader checks before it looks inside made
 * right: each event's size, the chain of checkpoint deltas, and the
 * chunk header's size, checkpoint offset and metadata offset.  So the
 * mutations land in the metadata, the constant pools and the events
 * instead of being refused at the header or the framing, as
 * fuzz_store.c's checksum fix-ups do for stores.  JFR has no checksums.
 *
 * An input that is not a chunk (no magic at 0) is mutated as bytes, and
 * one mutation in 32 is left without fix-ups, so that the checks of
 * the framing stay covered too.  Seeds: the JFR harness's.
 */
#include "fuzz_jfr.c"

#include <stdlib.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
				 const uint8_t *data2, size_t size2,
				 uint8_t *out, size_t max_out_size,
				 unsigned int seed);

#define HDR	   68
#define MAX_EVENTS 65536
#define MAX_CHUNKS 16
#define SCRATCH	   (4u << 20)

/* An event: its type varint and payload (the size is recomputed). */
struct sev {
	const uint8_t *p;
	size_t len;
	uint64_t type;
	uint8_t chunk;
};

struct schunk {
	const uint8_t *hdr;  /* 68 bytes */
	uint32_t first, n;   /* events */
	const uint8_t *tail; /* bytes after the last whole event */
	size_t tail_len;
};

struct sfile {
	struct sev ev[MAX_EVENTS];
	uint32_t n_ev;
	struct schunk ch[MAX_CHUNKS];
	uint32_t n_ch;
	const uint8_t *rest; /* bytes after the last chunk */
	size_t rest_len;
};

static struct sfile file_a, file_b;
static uint8_t scratch[SCRATCH]; /* bodies of changed events */
static size_t scratch_used;
static uint8_t outbuf[SCRATCH];
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* A varint at p (at most end - p bytes); 0 bytes read when cut off. */
static size_t get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < 8; i++) {
		if (p + i >= end)
			return 0;
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (p[i] < 0x80)
			return i + 1;
	}
	if (p + 8 >= end)
		return 0;
	*v |= (uint64_t)p[8] << 56;
	return 9;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80 && n < 9) {
		v >>= 7;
		n++;
	}
	return n;
}

/* v in exactly width bytes (padded), width at least varint_len(v). */
static void put_varint_width(uint8_t *p, uint64_t v, size_t width)
{
	size_t i;

	for (i = 0; i < width && i < 8; i++) {
		p[i] = (uint8_t)(v & 0x7f) | (i + 1 < width ? 0x80 : 0);
		v >>= 7;
	}
	if (width == 9)
		p[8] = (uint8_t)v;
}

static int parse(const uint8_t *data, size_t size, struct sfile *f)
{
	size_t pos = 0;

	f->n_ev = f->n_ch = 0;
	while (f->n_ch < MAX_CHUNKS && size - pos >= HDR &&
	       memcmp(data + pos, "FLR\0", 4) == 0) {
		struct schunk *c = &f->ch[f->n_ch++];
		uint64_t csize = be64(data + pos + 8);
		const uint8_t *end =
			data + pos +
			(csize < HDR || csize > size - pos ? size - pos
							   : csize);
		const uint8_t *p = data + pos + HDR;

		c->hdr = data + pos;
		c->first = f->n_ev;
		while (p < end && f->n_ev < MAX_EVENTS) {
			uint64_t es, type;
			size_t a = get_varint(p, end, &es), b;

			if (!a || es <= a || es > (uint64_t)(end - p))
				break;
			b = get_varint(p + a, p + es, &type);
			if (!b)
				break;
			f->ev[f->n_ev].p = p + a;
			f->ev[f->n_ev].len = es - a;
			f->ev[f->n_ev].type = type;
			f->ev[f->n_ev].chunk = (uint8_t)(f->n_ch - 1);
			f->n_ev++;
			p += es;
		}
		c->n = f->n_ev - c->first;
		c->tail = p;
		c->tail_len = (size_t)(end - p);
		pos = (size_t)(end - data);
	}
	f->rest = data + pos;
	f->rest_len = size - pos;
	return f->n_ch ? 0 : -1;
}

/* Room for a changed body; NULL when the scratch is full. */
static uint8_t *scratch_take(size_t n)
{
	uint8_t *p;

	if (n > SCRATCH - scratch_used)
		return NULL;
	p = scratch + scratch_used;
	scratch_used += n;
	return p;
}

/* An event, metadata and checkpoints favoured: they are few. */
static int pick_event(const struct sfile *f)
{
	uint32_t i, n = 0, want = below(4);

	if (!f->n_ev)
		return -1;
	if (want < 2) {
		/* a random one of the wanted type, by reservoir */
		int got = -1;

		for (i = 0; i < f->n_ev; i++)
			if (f->ev[i].type == want && below(++n) == 0)
				got = (int)i;
		if (got >= 0)
			return got;
	}
	return (int)below(f->n_ev);
}

/*
 * A varint of the body p at or after a random place: the byte after one
 * without the continuation bit starts one.  For most events and for the
 * metadata, the varints read one after the other are the real fields.
 * 0 when there is none; *at is where it starts.
 */
static size_t random_varint(const uint8_t *p, size_t len, size_t *at,
			    uint64_t *v)
{
	size_t pos;

	if (!len)
		return 0;
	pos = below((uint32_t)len);
	while (pos > 0 && pos < len && p[pos - 1] >= 0x80)
		pos++;
	if (pos >= len)
		pos = 0;
	*at = pos;
	return get_varint(p + pos, p + len, v);
}

static uint64_t hurt_value(uint64_t v, const struct sfile *f)
{
	static const uint64_t special[] = {0,
					   1,
					   2,
					   0x7f,
					   0x80,
					   0xff,
					   0x3fff,
					   0x4000,
					   0xffff,
					   0x7fffffff,
					   0x80000000,
					   0xffffffff,
					   0x100000000u,
					   INT64_MAX,
					   UINT64_MAX,
					   (uint64_t)INT64_MIN};

	switch (below(6)) {
	case 0:
		return special[below(sizeof(special) / sizeof(*special))];
	case 1:
		return v + 1;
	case 2:
		return v - 1;
	case 3:
		return v ^ (1ull << below(64));
	case 4: {
		/* a value from elsewhere in the file: a key, a type id */
		size_t at;
		uint64_t w = v;
		uint32_t e;

		if (!f || !f->n_ev)
			return v;
		e = below(f->n_ev);
		random_varint(f->ev[e].p, f->ev[e].len, &at, &w);
		return w;
	}
	default:
		return below(4) ? below(300) : rnd();
	}
}

/* One varint of event e's body (its type varint now and then) changed. */
static int mutate_varint(struct sfile *f, int e)
{
	struct sev *ev = &f->ev[e];
	size_t at = 0, old, nw, width;
	uint64_t v, w;
	uint8_t *b;

	if (below(8) == 0)
		old = get_varint(ev->p, ev->p + ev->len, &v);
	else
		old = random_varint(ev->p, ev->len, &at, &v);
	if (!old)
		return -1;
	w = hurt_value(v, f);
	nw = varint_len(w);
	/* minimal, the old width if it fits, or padded to 9 */
	width = nw;
	if (below(4) == 0 && old >= nw)
		width = old;
	else if (below(16) == 0)
		width = 9;
	b = scratch_take(ev->len - old + width);
	if (!b)
		return -1;
	memcpy(b, ev->p, at);
	put_varint_width(b + at, w, width);
	memcpy(b + at + width, ev->p + at + old, ev->len - at - old);
	ev->p = b;
	ev->len = ev->len - old + width;
	if (at == 0)
		ev->type = w;
	return 0;
}

/* Event e's payload (after its type) through libFuzzer's mutations. */
static int mutate_bytes(struct sfile *f, int e, size_t room)
{
	struct sev *ev = &f->ev[e];
	uint64_t type;
	size_t t = get_varint(ev->p, ev->p + ev->len, &type), max, n;
	uint8_t *b;

	if (!t)
		return -1;
	max = ev->len + 1 + (room < 4096 ? room : 4096);
	b = scratch_take(max + 1);
	if (!b)
		return -1;
	memcpy(b, ev->p, ev->len);
	n = ev->len - t;
	/* LLVMFuzzerMutate wants at least one byte */
	if (!n)
		b[t + n++] = 0;
	n = LLVMFuzzerMutate(b + t, n, max - t);
	ev->p = b;
	ev->len = t + n;
	return 0;
}

/* Move events [from, from + 1) of the array to index to. */
static void move_event(struct sfile *f, uint32_t from, uint32_t to)
{
	struct sev tmp = f->ev[from];

	if (from < to)
		memmove(&f->ev[from], &f->ev[from + 1],
			(to - from) * sizeof(tmp));
	else if (to < from)
		memmove(&f->ev[to + 1], &f->ev[to], (from - to) * sizeof(tmp));
	f->ev[to] = tmp;
}

/* The chunk of event index i (events of a chunk are contiguous). */
static uint32_t chunk_of(const struct sfile *f, uint32_t i)
{
	uint32_t c;

	for (c = 0; c + 1 < f->n_ch; c++)
		if (i < f->ch[c].first + f->ch[c].n)
			break;
	return c;
}

static void delete_event(struct sfile *f, uint32_t i)
{
	uint32_t c = chunk_of(f, i), k;

	memmove(&f->ev[i], &f->ev[i + 1], (f->n_ev - i - 1) * sizeof(*f->ev));
	f->n_ev--;
	f->ch[c].n--;
	for (k = c + 1; k < f->n_ch; k++)
		f->ch[k].first--;
}

/* A copy of ev inserted before index at, in chunk c. */
static void insert_event(struct sfile *f, uint32_t c, uint32_t at,
			 const struct sev *ev)
{
	uint32_t k;

	if (f->n_ev >= MAX_EVENTS)
		return;
	memmove(&f->ev[at + 1], &f->ev[at], (f->n_ev - at) * sizeof(*f->ev));
	f->ev[at] = *ev;
	f->ev[at].chunk = (uint8_t)c;
	f->n_ev++;
	f->ch[c].n++;
	for (k = c + 1; k < f->n_ch; k++)
		f->ch[k].first++;
}

static uint32_t random_slot(const struct sfile *f, uint32_t c)
{
	return f->ch[c].first + below(f->ch[c].n + 1);
}

/* The chunk header: a field other than the ones fixed up. */
static void mutate_header(uint8_t *h)
{
	switch (below(6)) {
	case 0: /* start nanos, duration */
		put_be64(h + 32 + 8 * below(2), hurt_value(be64(h + 32), NULL));
		break;
	case 1: /* start ticks */
		put_be64(h + 48, below(2) ? be64(h + 48) + below(1000) - 500
					  : hurt_value(be64(h + 48), NULL));
		break;
	case 2: /* ticks per second */
		put_be64(h + 56, below(2) ? 1 + below(3000000000u)
					  : hurt_value(be64(h + 56), NULL));
		break;
	case 3: /* state */
		h[64] = (uint8_t)(below(2) ? below(3) : 255);
		break;
	case 4: /* flags, keeping the integer compression mostly */
		h[67] = (uint8_t)(below(8) ? (h[67] ^ (2u << below(3))) | 1
					   : below(256));
		break;
	default: /* minor version */
		h[7] = (uint8_t)below(3);
		break;
	}
}

/*
 * Write f out with every size and offset made right.  Checkpoint deltas
 * are written 9 bytes wide so that the offsets can be known before them.
 * Returns the length, or 0 when it does not fit.
 */
static size_t serialize(const struct sfile *f, uint8_t *out, size_t max,
			const uint8_t *headers, bool fix)
{
	size_t o = 0;
	uint32_t c, i;

	for (c = 0; c < f->n_ch; c++) {
		const struct schunk *ch = &f->ch[c];
		size_t start = o, last_cp = 0, last_meta = 0, prev_cp = 0;

		if (max - o < HDR)
			return 0;
		memcpy(out + o, headers + HDR * c, HDR);
		o += HDR;
		for (i = ch->first; i < ch->first + ch->n; i++) {
			const struct sev *ev = &f->ev[i];
			const uint8_t *p = ev->p, *end = ev->p + ev->len;
			size_t body = ev->len, k, sl, at = o;
			uint64_t v, size;
			size_t cut[5], m = 0;

			/* a checkpoint: type, startTime, duration, delta */
			if (ev->type == 1 && fix) {
				const uint8_t *q = p;

				for (m = 0; m < 4; m++) {
					k = get_varint(q, end, &v);
					if (!k)
						break;
					cut[m] = (size_t)(q - p);
					q += k;
				}
				if (m == 4) {
					cut[4] = (size_t)(q -
							  p); /* after delta */
					body = ev->len - (cut[4] - cut[3]) + 9;
				} else {
					m = 0;
				}
			}
			/* size counts itself */
			for (sl = 1; sl <= 9; sl++)
				if (varint_len(body + sl) <= sl)
					break;
			size = body + sl;
			if (size > max - o)
				return 0;
			put_varint_width(out + o, size, varint_len(size));
			o += varint_len(size);
			/* a size varint shorter than sl: pad it */
			if (varint_len(size) < sl) {
				o = at;
				put_varint_width(out + o, size, sl);
				o += sl;
			}
			if (m == 4) {
				uint64_t delta =
					prev_cp ? (uint64_t)prev_cp -
							  (uint64_t)(at - start)
						: 0;

				memcpy(out + o, p, cut[3]);
				o += cut[3];
				put_varint_width(out + o, delta, 9);
				o += 9;
				memcpy(out + o, p + cut[4], ev->len - cut[4]);
				o += ev->len - cut[4];
				prev_cp = at - start;
			} else {
				memcpy(out + o, p, ev->len);
				o += ev->len;
			}
			if (ev->type == 1)
				last_cp = at - start;
			else if (ev->type == 0)
				last_meta = at - start;
		}
		if (ch->tail_len > max - o)
			return 0;
		memcpy(out + o, ch->tail, ch->tail_len);
		o += ch->tail_len;
		if (fix) {
			put_be64(out + start + 8, o - start);
			if (last_cp)
				put_be64(out + start + 16, last_cp);
			if (last_meta)
				put_be64(out + start + 24, last_meta);
		}
	}
	if (f->rest_len > max - o)
		return 0;
	memcpy(out + o, f->rest, f->rest_len);
	return o + f->rest_len;
}

static uint8_t headers[HDR * MAX_CHUNKS];

static void copy_headers(const struct sfile *f)
{
	uint32_t c;

	for (c = 0; c < f->n_ch; c++)
		memcpy(headers + HDR * c, f->ch[c].hdr, HDR);
}

/* One structural change to f (events from g may be copied in). */
static void mutate_once(struct sfile *f, const struct sfile *g, size_t room)
{
	int e = pick_event(f);
	uint32_t c = below(f->n_ch);

	switch (below(16)) {
	case 0:
	case 1:
	case 2:
	case 3:
	case 4:
		if (e >= 0)
			mutate_bytes(f, e, room);
		break;
	case 5:
	case 6:
	case 7:
	case 8:
	case 9:
		if (e >= 0)
			mutate_varint(f, e);
		break;
	case 10: /* drop an event */
		if (e >= 0)
			delete_event(f, (uint32_t)e);
		break;
	case 11: /* copy an event elsewhere in its chunk or another */
		if (e >= 0) {
			struct sev ev = f->ev[e];

			insert_event(f, c, random_slot(f, c), &ev);
		}
		break;
	case 12: /* move an event within its chunk */
		if (e >= 0) {
			uint32_t k = f->ev[e].chunk;

			if (f->ch[k].n)
				move_event(f, (uint32_t)e,
					   f->ch[k].first + below(f->ch[k].n));
		}
		break;
	case 13: /* an event from the other input */
		if (g && g->n_ev) {
			struct sev ev = g->ev[pick_event(g)];

			insert_event(f, c, random_slot(f, c), &ev);
		}
		break;
	case 14:
		mutate_header(headers + HDR * c);
		break;
	default: /* one event claims to be of another event's type */
		if (e >= 0 && f->n_ev) {
			struct sev *ev = &f->ev[e];
			uint64_t t, old;
			size_t ol = get_varint(ev->p, ev->p + ev->len, &old);
			uint8_t *b;

			t = below(4) == 0 ? below(2)
					  : f->ev[below(f->n_ev)].type;
			if (!ol || !(b = scratch_take(ev->len + 9)))
				break;
			put_varint_width(b, t, varint_len(t));
			memcpy(b + varint_len(t), ev->p + ol, ev->len - ol);
			ev->len = ev->len - ol + varint_len(t);
			ev->p = b;
			ev->type = t;
		}
		break;
	}
}

static size_t finish(struct sfile *f, uint8_t *data, size_t max_size)
{
	bool fix = below(32) != 0;
	size_t n = serialize(f, outbuf, max_size < SCRATCH ? max_size : SCRATCH,
			     headers, fix);

	if (!n)
		return 0;
	/* now and then cut short, as a crash or a copy in progress does */
	if (n > HDR + 1 && below(32) == 0)
		n = HDR + below((uint32_t)(n - HDR)) + 1;
	memcpy(data, outbuf, n);
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size_t n;
	int k, times;

	rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
	if (parse(data, size, &file_a) < 0 || below(16) == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	scratch_used = 0;
	copy_headers(&file_a);
	times = 1 + (int)below(3);
	for (k = 0; k < times; k++)
		mutate_once(&file_a, NULL,
			    max_size > size ? max_size - size : 0);
	n = finish(&file_a, data, max_size);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
				 const uint8_t *data2, size_t size2,
				 uint8_t *out, size_t max_out_size,
				 unsigned int seed)
{
	size_t n;
	int k, times;

	rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 7;
	if (parse(data1, size1, &file_a) < 0 ||
	    parse(data2, size2, &file_b) < 0) {
		n = size1 < max_out_size ? size1 : max_out_size;
		memcpy(out, data1, n);
		return n;
	}
	scratch_used = 0;
	copy_headers(&file_a);
	times = 1 + (int)below(4);
	for (k = 0; k < times && file_b.n_ev; k++) {
		struct sev ev = file_b.ev[pick_event(&file_b)];
		uint32_t c = below(file_a.n_ch);

		insert_event(&file_a, c, random_slot(&file_a, c), &ev);
	}
	return finish(&file_a, out, max_out_size);
}
