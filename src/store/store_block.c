/*
 * Sample blocks (store_block.h): LEB128 varints, gaps for seq and time,
 * zigzag for the signed byte counts.  Samples of one kind a block, in
 * time order, so gaps are small and most values take one or two bytes.
 */
#include "store/store_block.h"

#include <string.h>

static inline unsigned char *put_uv(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static inline uint64_t zigzag(int64_t v)
{
	return (uint64_t)v << 1 ^ -((uint64_t)v >> 63);
}

static inline int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1 ^ -(u & 1));
}

/*
 * A varint of 2 to 8 bytes from the 8 bytes at p, without a branch on
 * its length: the lowest clear top bit ends it, and its 7-bit groups are
 * packed by three shifts of halving width.  The lengths of a block's
 * times, stacks and byte counts vary from sample to sample, and the
 * byte-at-a-time loop mispredicted them: half of a class filter's time
 * over ten million samples was the decoding.  NULL where the 8 bytes
 * hold no end (a longer varint: the loop reads it).
 */
static inline const unsigned char *get_uv8(const unsigned char *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, m, x;

	memcpy(&w, p, 8);
	m = ~w & 0x8080808080808080ull;
	if (!m)
		return NULL;
	/* the bytes up to the end, their top bits off */
	x = w & (m ^ (m - 1)) & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
	x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
	x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
	*v = x;
	return p + (__builtin_ctzll(m) >> 3) + 1;
#else
	(void)p;
	(void)v;
	return NULL;
#endif
}

/* false when the varint runs past end or is longer than 64 bits */
static inline bool get_uv(const unsigned char **pp, const unsigned char *end,
			  uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r = 0;
	unsigned shift = 0;

	/* most values of a block fit one byte */
	if (p != end && *p < 0x80) {
		*v = *p;
		*pp = p + 1;
		return true;
	}
	if (end - p >= 8) {
		const unsigned char *q = get_uv8(p, v);

		if (q) {
			*pp = q;
			return true;
		}
	}
	for (;;) {
		unsigned char b;

		if (p == end)
			return false;
		b = *p++;
		if (shift == 63 && b > 1)
			return false;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return false;
	}
	*pp = p;
	*v = r;
	return true;
}

void block_enc_begin(struct block_enc *b, uint8_t kind, uint8_t flags,
		     unsigned char *buf)
{
	memset(&b->head, 0, sizeof(b->head));
	b->head.kind = kind;
	b->head.flags = flags;
	b->buf = buf;
	b->len = 0;
	b->last_seq = 0;
}

void block_enc_add(struct block_enc *b, const struct block_sample *s)
{
	unsigned char *p = b->buf + b->len;
	uint64_t seq_gap = 0, time_gap = 0;

	if (b->head.n) {
		seq_gap = s->seq - b->last_seq;
		time_gap = (uint64_t)s->time_ns - (uint64_t)b->head.last_ns;
	} else {
		b->head.first_seq = s->seq;
		b->head.first_ns = s->time_ns;
	}
	p = put_uv(p, seq_gap);
	p = put_uv(p, time_gap);
	p = put_uv(p, (uint64_t)s->recording << 1 | (s->flags & 1u));
	p = put_uv(p, (uint32_t)(s->thread + 1));
	p = put_uv(p, (uint32_t)(s->cls + 1));
	p = put_uv(p, s->node);
	p = put_uv(p, zigzag(s->bytes));
	if (STORE_KIND_HAS_SIZE(b->head.kind))
		p = put_uv(p, zigzag(s->size));
	if (b->head.flags & STORE_BLOCK_REST) /* mostly 0: one byte */
		p = put_uv(p, zigzag((int64_t)((uint64_t)s->bytes -
					       (uint64_t)s->rest)));
	b->len = (size_t)(p - b->buf);
	b->last_seq = s->seq;
	b->head.last_ns = s->time_ns;
	b->head.n++;
}

#define BAD(msg)                 \
	do {                     \
		*bad_sample = j; \
		return (msg);    \
	} while (0)

const char *block_decode(const struct store_block *h, const unsigned char *p,
			 const struct block_limits *lim,
			 const struct block_cols *c, size_t at,
			 uint32_t *bad_sample)
{
	const unsigned char *end = p + h->length;
	uint64_t seq = h->first_seq;
	int64_t t = h->first_ns;
	bool sized = STORE_KIND_HAS_SIZE(h->kind);
	bool rested = h->flags & STORE_BLOCK_REST;
	uint32_t j;

	for (j = 0; j < h->n; j++) {
		uint64_t gap, tgap, rec, th, cl, node, bytes, size = 0,
							      held = 0;
		size_t i = at + j;

		if (!get_uv(&p, end, &gap) || !get_uv(&p, end, &tgap) ||
		    !get_uv(&p, end, &rec) || !get_uv(&p, end, &th) ||
		    !get_uv(&p, end, &cl) || !get_uv(&p, end, &node) ||
		    !get_uv(&p, end, &bytes) ||
		    (sized && !get_uv(&p, end, &size)) ||
		    (rested && !get_uv(&p, end, &held)))
			BAD("runs past its end");
		if (j == 0 ? gap || tgap : !gap)
			BAD("is not in sample order");
		/* seq < n_samples <= 2^32, so no wrap-around */
		if (gap >= lim->n_samples - seq)
			BAD("refers to no sample");
		seq += gap;
		/* t + tgap must not pass INT64_MAX: the headroom is
		 * INT64_MAX - t, exact in unsigned arithmetic */
		if (tgap > (uint64_t)INT64_MAX - (uint64_t)t)
			BAD("has a time out of range");
		t = (int64_t)((uint64_t)t + tgap);
		if ((rec >> 1) >= lim->n_recordings)
			BAD("refers to no recording");
		if (th > (uint64_t)lim->n_threads)
			BAD("refers to no thread");
		if (cl > (uint64_t)lim->n_classes)
			BAD("refers to no class");
		if (node >= lim->n_nodes)
			BAD("refers to no stack");
		c->seq[i] = (uint32_t)seq;
		c->time_ns[i] = t;
		c->recording[i] = (uint32_t)(rec >> 1);
		c->flags[i] = (uint8_t)(rec & 1);
		c->thread[i] = (uint32_t)(th - 1); /* 0 - 1: STORE_NONE */
		c->cls[i] = (uint32_t)(cl - 1);
		c->node[i] = (uint32_t)node;
		c->bytes[i] = unzigzag(bytes);
		if (sized)
			c->size[i] = unzigzag(size);
		if (rested && c->rest)
			c->rest[i] = (int64_t)((uint64_t)c->bytes[i] -
					       (uint64_t)unzigzag(held));
	}
	j = h->n ? h->n - 1 : 0;
	if (p != end)
		BAD("has bytes past its last sample");
	if (t != h->last_ns)
		BAD("does not end at its last time");
	return NULL;
}
