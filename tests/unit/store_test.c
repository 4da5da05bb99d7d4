/*
 * The store's sample-block codec (src/store/sample_block.h): values at
 * the edges of their types survive a round trip, the bytes are the ones
 * docs/formats/store.md describes (checked on hand-written bytes, not on
 * the encoder's), and the decoder refuses what the format forbids.
 */
#include <stdlib.h>

#include "importers/sink.h"
#include "store/sample_block.h"
#include "test.h"

struct cols_buf {
	uint32_t seq[8], rec[8], th[8], cls[8], node[8];
	int64_t t[8], bytes[8], size[8];
	uint8_t flags[8];
	int64_t rest[8];
	struct block_cols c;
};

static void cols_init(struct cols_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->c = (struct block_cols){b->seq,  b->t,   b->rec,  b->flags,
				   b->th,   b->cls, b->node, b->bytes,
				   b->size, b->rest};
}

static const struct block_limits lim = {1000, 3, 10, 10, 10};

TEST(sample_block_round_trip_at_the_edges)
{
	static unsigned char buf[SAMPLE_BLOCK_MAX];
	const struct block_sample in[4] = {
		{5, INT64_MIN, 0, 0, STORE_NONE, STORE_NONE, 0, INT64_MIN,
		 INT64_MAX, 0},
		{6, -1, 2, 1, 9, 0, 9, -1, 0, 0},
		{900, 0, 1, 0, 0, 9, 1, INT64_MAX, INT64_MIN, 0},
		{999, INT64_MAX, 2, 1, 3, 3, 3, 0, -5, 0},
	};
	struct block_enc enc;
	struct cols_buf out;
	uint32_t bad = 77;
	int i;

	block_enc_begin(&enc, 4 /* agent: has a size */, 0, buf);
	for (i = 0; i < 4; i++)
		block_enc_add(&enc, &in[i]);
	enc.head.length = (uint32_t)enc.len;
	CHECK_UINT(enc.head.n, ==, 4);
	CHECK_UINT(enc.head.first_seq, ==, 5);
	CHECK_INT(enc.head.first_ns, ==, INT64_MIN);
	CHECK_INT(enc.head.last_ns, ==, INT64_MAX);
	cols_init(&out);
	CHECK(block_decode(&enc.head, buf, &lim, &out.c, 2, &bad) == NULL);
	for (i = 0; i < 4; i++) {
		CHECK_UINT(out.seq[2 + i], ==, in[i].seq);
		CHECK_INT(out.t[2 + i], ==, in[i].time_ns);
		CHECK_UINT(out.rec[2 + i], ==, in[i].recording);
		CHECK_UINT(out.flags[2 + i], ==, in[i].flags);
		CHECK_UINT(out.th[2 + i], ==, in[i].thread);
		CHECK_UINT(out.cls[2 + i], ==, in[i].cls);
		CHECK_UINT(out.node[2 + i], ==, in[i].node);
		CHECK_INT(out.bytes[2 + i], ==, in[i].bytes);
		CHECK_INT(out.size[2 + i], ==, in[i].size);
	}
}

TEST(sample_block_rest_column)
{
	/* ObjectAllocationSample with the rest column (2.3): weights and
	 * rests at the edges of int64, each given back exactly; a block
	 * without the flag has no column, and leaves rest alone */
	static unsigned char buf[SAMPLE_BLOCK_MAX];
	const struct block_sample in[4] = {
		{1, 10, 0, 0, 0, 0, 0, 1000, REC_NONE, 1000},
		{2, 20, 0, 0, 0, 0, 0, 1000, REC_NONE, 0},
		{3, 30, 0, 0, 0, 0, 0, INT64_MAX, REC_NONE, INT64_MIN},
		{4, 40, 0, 0, 0, 0, 0, INT64_MIN, REC_NONE, INT64_MAX},
	};
	struct block_enc enc;
	struct cols_buf out;
	uint32_t bad;
	size_t with;
	int i;

	block_enc_begin(&enc, 0, STORE_BLOCK_REST, buf);
	for (i = 0; i < 4; i++)
		block_enc_add(&enc, &in[i]);
	enc.head.length = (uint32_t)enc.len;
	with = enc.len;
	cols_init(&out);
	CHECK(block_decode(&enc.head, buf, &lim, &out.c, 0, &bad) == NULL);
	for (i = 0; i < 4; i++) {
		CHECK_INT(out.bytes[i], ==, in[i].bytes);
		CHECK_INT(out.rest[i], ==, in[i].rest);
	}
	/* a rest equal to the weight costs one byte */
	CHECK_UINT(with, >=, 4);
	block_enc_begin(&enc, 0, 0, buf);
	for (i = 0; i < 4; i++)
		block_enc_add(&enc, &in[i]);
	enc.head.length = (uint32_t)enc.len;
	cols_init(&out);
	out.rest[0] = 77;
	CHECK(block_decode(&enc.head, buf, &lim, &out.c, 0, &bad) == NULL);
	CHECK_INT(out.rest[0], ==, 77);
	/* the first two samples' rests took 1 byte each more with it */
	CHECK_UINT(with - enc.len, >=, 2);
	/* a flagged block cut before its last rest runs past its end */
	block_enc_begin(&enc, 0, STORE_BLOCK_REST, buf);
	block_enc_add(&enc, &in[0]);
	enc.head.length = (uint32_t)enc.len - 1;
	cols_init(&out);
	CHECK(block_decode(&enc.head, buf, &lim, &out.c, 0, &bad) != NULL);
}

/* One ObjectAllocationSample block written by hand from the format page:
 * two samples, seqs 3 and 5, times 100 and 400 ns. */
static const unsigned char two[] = {
	0x00, 0x00, 0x02, 0x00, 0x01,
	0x02, 0x80, 0x08, /* seq 3, t 100,
	rec 1, no thread, class 0, node 2, bytes 512 (zigzag 1024) */
	0x02, 0xac, 0x02, 0x03, 0x05,
	0x00, 0x00, 0x01, /* seq +2, t +300,
	rec 1 truncated, thread 4, no class, node 0, bytes -1 */
};

static struct store_block two_head(void)
{
	struct store_block h;

	memset(&h, 0, sizeof(h));
	h.kind = 0;
	h.n = 2;
	h.length = sizeof(two);
	h.first_ns = 100;
	h.last_ns = 400;
	h.first_seq = 3;
	return h;
}

TEST(sample_block_reads_the_documented_bytes)
{
	struct store_block h = two_head();
	struct cols_buf out;
	uint32_t bad;

	cols_init(&out);
	CHECK(block_decode(&h, two, &lim, &out.c, 0, &bad) == NULL);
	CHECK_UINT(out.seq[0], ==, 3);
	CHECK_UINT(out.seq[1], ==, 5);
	CHECK_INT(out.t[0], ==, 100);
	CHECK_INT(out.t[1], ==, 400);
	CHECK_UINT(out.rec[0], ==, 1);
	CHECK_UINT(out.flags[0], ==, 0);
	CHECK_UINT(out.flags[1], ==, 1);
	CHECK_UINT(out.th[0], ==, STORE_NONE);
	CHECK_UINT(out.th[1], ==, 4);
	CHECK_UINT(out.cls[0], ==, 0);
	CHECK_UINT(out.cls[1], ==, STORE_NONE);
	CHECK_UINT(out.node[0], ==, 2);
	CHECK_INT(out.bytes[0], ==, 512);
	CHECK_INT(out.bytes[1], ==, -1);
}

TEST(sample_block_refuses_what_the_format_forbids)
{
	unsigned char b[sizeof(two) + 1];
	struct store_block h;
	struct cols_buf out;
	struct block_limits small = lim;
	uint32_t bad;

	cols_init(&out);
	/* cut short, one byte too many, a varint past 64 bits */
	h = two_head();
	h.length = sizeof(two) - 1;
	CHECK(block_decode(&h, two, &lim, &out.c, 0, &bad) != NULL);
	memcpy(b, two, sizeof(two));
	b[sizeof(two)] = 0;
	h = two_head();
	h.length = sizeof(b);
	CHECK(block_decode(&h, b, &lim, &out.c, 0, &bad) != NULL);
	/* the last time is not last_ns */
	h = two_head();
	h.last_ns = 401;
	CHECK(block_decode(&h, two, &lim, &out.c, 0, &bad) != NULL);
	CHECK_UINT(bad, ==, 1);
	/* a second sample with the same seq (gap 0) */
	memcpy(b, two, sizeof(two));
	b[8] = 0;
	h = two_head();
	CHECK(block_decode(&h, b, &lim, &out.c, 0, &bad) != NULL);
	/* references past their tables: recording, thread, node, seq */
	small.n_recordings = 2; /* recording 1: just inside */
	small.n_threads = 5;	/* thread 4: just inside */
	small.n_nodes = 3;	/* node 2: just inside */
	small.n_samples = 6;	/* seq 5: just inside */
	h = two_head();
	CHECK(block_decode(&h, two, &small, &out.c, 0, &bad) == NULL);
	small.n_recordings = 1;
	CHECK(block_decode(&h, two, &small, &out.c, 0, &bad) != NULL);
	small = lim;
	small.n_threads = 4;
	CHECK(block_decode(&h, two, &small, &out.c, 0, &bad) != NULL);
	small = lim;
	small.n_nodes = 2;
	CHECK(block_decode(&h, two, &small, &out.c, 0, &bad) != NULL);
	small = lim;
	small.n_samples = 5;
	CHECK(block_decode(&h, two, &small, &out.c, 0, &bad) != NULL);
	/* a time gap that would pass INT64_MAX */
	h = two_head();
	h.first_ns = INT64_MAX - 100;
	h.last_ns = INT64_MAX;
	CHECK(block_decode(&h, two, &lim, &out.c, 0, &bad) != NULL);
	/* an 11-byte varint */
	{
		unsigned char v[16];

		memset(v, 0x80, 10);
		v[10] = 0x00;
		h = two_head();
		h.n = 1;
		h.length = 11;
		CHECK(block_decode(&h, v, &lim, &out.c, 0, &bad) != NULL);
	}
}
