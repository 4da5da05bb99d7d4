/*
 * The store's sample-block codec (src/store/store_block.h): values at
 * the edges of their types survive a round trip, the bytes are the ones
 * docs/formats/store.md describes (checked on hand-written bytes, not on
 * the encoder's), and the decoder refuses what the format forbids; and
 * the cursor over every sample in seq order (store_cursor).
 */
#include <stdlib.h>
#include <string.h>

#include "record/sink.h"
#include "store/store_block.h"
#include "store/store.h"
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

/*
 * A full block whose values take every varint length from 1 to 10
 * bytes, in a pseudo-random mix: the decoder reads varints of up to 8
 * bytes 8 bytes at a time where 8 bytes are left, and the rest a byte at
 * a time; both must give back what was encoded, to the block's last
 * byte (where fewer than 8 are left).
 */
/* xorshift64, its value shifted down by 0 to 63 bits: every bit length */
static uint64_t var_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x >> (*x % 64);
}

/* The store format's sample, written as the format describes it with
 * the plainest LEB128 writer: the encoder's bytes must be these. */
static unsigned char *ref_uv(unsigned char *p, uint64_t v)
{
	do {
		*p++ = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return p;
}

static uint64_t ref_zz(int64_t v)
{
	return v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
}

/* n samples of an agent block with the rest column, into out */
static size_t ref_block(const struct block_sample *in, uint32_t n,
			unsigned char *out)
{
	unsigned char *p = out;
	uint32_t i;

	for (i = 0; i < n; i++) {
		p = ref_uv(p, i ? in[i].seq - in[i - 1].seq : 0);
		p = ref_uv(p, i ? (uint64_t)in[i].time_ns -
					      (uint64_t)in[i - 1].time_ns
				: 0);
		p = ref_uv(p,
			   (uint64_t)in[i].recording * 2 + (in[i].flags & 1));
		/* "thread + 1; 0: none", none being 0xFFFFFFFF */
		p = ref_uv(p, in[i].thread == UINT32_MAX
				      ? 0
				      : (uint64_t)in[i].thread + 1);
		p = ref_uv(p, in[i].cls == UINT32_MAX
				      ? 0
				      : (uint64_t)in[i].cls + 1);
		p = ref_uv(p, in[i].node);
		p = ref_uv(p, ref_zz(in[i].bytes));
		p = ref_uv(p, ref_zz(in[i].size));
		p = ref_uv(p, ref_zz((int64_t)((uint64_t)in[i].bytes -
					       (uint64_t)in[i].rest)));
	}
	return (size_t)(p - out);
}

TEST(sample_block_round_trip_every_varint_length)
{
	static unsigned char buf[SAMPLE_BLOCK_MAX], ref[SAMPLE_BLOCK_MAX];
	static struct block_sample in[STORE_BLOCK_SAMPLES];
	static uint32_t seq[STORE_BLOCK_SAMPLES], rec[STORE_BLOCK_SAMPLES],
		th[STORE_BLOCK_SAMPLES], cls[STORE_BLOCK_SAMPLES],
		node[STORE_BLOCK_SAMPLES];
	static int64_t t[STORE_BLOCK_SAMPLES], bytes[STORE_BLOCK_SAMPLES],
		size[STORE_BLOCK_SAMPLES], rest[STORE_BLOCK_SAMPLES];
	static uint8_t flags[STORE_BLOCK_SAMPLES];
	const struct block_limits big = {UINT32_MAX, 1u << 30, UINT32_MAX - 1,
					 UINT32_MAX - 1, UINT32_MAX};
	struct block_cols c = {seq, t,	  rec,	 flags, th,
			       cls, node, bytes, size,	rest};
	struct block_enc enc;
	uint64_t x = 0x2545f4914f6cdd1dull;
	int64_t now = INT64_MIN / 2;
	uint32_t i, n = STORE_BLOCK_SAMPLES, bad = 77, wrong = 0;

	for (i = 0; i < n; i++) {
		in[i].seq = i;
		now += (int64_t)(var_next(&x) >> 14); /* 4096 gaps below 2^50 */
		in[i].time_ns = now;
		in[i].recording = (uint32_t)(var_next(&x) % (1u << 30));
		in[i].flags = (uint8_t)(x & 1);
		in[i].thread = (uint32_t)var_next(&x);
		in[i].cls = (uint32_t)var_next(&x);
		in[i].node = (uint32_t)var_next(&x);
		/* signs and differences in unsigned arithmetic: every
		 * 64-bit pattern, INT64_MIN included */
		in[i].bytes = (int64_t)var_next(&x);
		if (x & 2)
			in[i].bytes = (int64_t)(0 - (uint64_t)in[i].bytes);
		in[i].size = (int64_t)var_next(&x);
		if (x & 4)
			in[i].size = (int64_t)(0 - (uint64_t)in[i].size);
		in[i].rest =
			(int64_t)((uint64_t)in[i].bytes - (var_next(&x) >> 1));
		if (in[i].thread == UINT32_MAX - 1)
			in[i].thread = 0; /* STORE_NONE is UINT32_MAX */
		if (in[i].cls == UINT32_MAX - 1)
			in[i].cls = 0;
		if (in[i].node == UINT32_MAX)
			in[i].node = 0;
	}
	block_enc_begin(&enc, 4 /* agent: has a size */, STORE_BLOCK_REST, buf);
	for (i = 0; i < n; i++)
		block_enc_add(&enc, &in[i]);
	enc.head.length = (uint32_t)enc.len;
	/* the bytes are docs/formats/store.md's, LEB128 a byte at a time */
	CHECK_UINT(enc.len, ==, ref_block(in, n, ref));
	CHECK(memcmp(buf, ref, enc.len) == 0);
	CHECK(block_decode(&enc.head, buf, &big, &c, 0, &bad) == NULL);
	for (i = 0; i < n; i++)
		if (seq[i] != in[i].seq || t[i] != in[i].time_ns ||
		    rec[i] != in[i].recording || flags[i] != in[i].flags ||
		    th[i] != in[i].thread || cls[i] != in[i].cls ||
		    node[i] != in[i].node || bytes[i] != in[i].bytes ||
		    size[i] != in[i].size || rest[i] != in[i].rest)
			wrong++;
	CHECK_UINT(wrong, ==, 0);
	/* one byte short: the last varint runs past the end */
	enc.head.length--;
	CHECK(block_decode(&enc.head, buf, &big, &c, 0, &bad) != NULL);
	CHECK_UINT(bad, ==, n - 1);
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

/*
 * store_cursor: three recordings that overlap in time, 5000 samples
 * each of two kinds in turn (several blocks of each kind), so that the
 * k-th sample in time is at T + k, of recording k % 3, the (k / 3)-th of
 * its recording, whose kind and weight follow from that number.  A pass
 * over every sample gives them all in that order; a rewind to one
 * recording gives its 5000 only; every field agrees with store_samples().
 */
#define CUR_T	 1700000000000000000ll
#define CUR_PER	 5000u
#define CUR_RECS 3u

static int cur_kind(uint64_t i)
{
	return i % 2 ? SAMPLE_TLAB_OUTSIDE : SAMPLE_ALLOC;
}

TEST(store_cursor_gives_every_sample_once_in_order)
{
	static const struct rec_frame fr[] = {
		{"Foo", "Foo", "alloc", "()V", 10, 1, "Interpreted", false, 0}};
	static const struct rec_stack st = {1, fr, 1, false};
	static const struct rec_thread th = {1, "main", 1, 100, false};
	char dir[] = "/tmp/hs-cursor-XXXXXX";
	struct store_writer *w;
	const struct sink *sink;
	struct store *s;
	struct store_samples all;
	struct store_cursor *c = NULL;
	struct store_sample_row x;
	struct err e;
	uint64_t k, bad = 0;
	uint32_t r, i;
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	w = store_writer_new();
	sink = store_writer_sink(w);
	for (r = 0; r < CUR_RECS; r++) {
		struct rec_recording rec;

		for (i = 0; i < CUR_PER; i++) {
			struct rec_sample y;

			rec_sample_init(&y, (enum sample_kind)cur_kind(i));
			y.time_ns = CUR_T + (int64_t)i * CUR_RECS + r;
			y.thread = &th;
			y.stack = &st;
			y.class_name = y.class_raw = "byte[]";
			y.weight = y.alloc_size = (int64_t)i + 1;
			sink->ops->sample(sink->ctx, &y);
		}
		memset(&rec, 0, sizeof(rec));
		rec.source = "c.jfr";
		rec.format = "jfr";
		rec.start_ns = CUR_T;
		rec.end_ns = CUR_T + CUR_PER * CUR_RECS;
		rec.n_chunks = 1;
		sink->ops->recording(sink->ctx, &rec);
	}
	s = test_store_commit(w, dir, "c.hsdb");
	CHECK(s != NULL);
	if (!s)
		return;
	err_init(&e);
	CHECK_INT(store_samples(s, &all, &e), ==, 0);
	CHECK_UINT(all.n, ==, CUR_PER * CUR_RECS);
	CHECK_INT(store_cursor_new(s, &c, &e), ==, 0);
	for (k = 0; (rc = store_cursor_next(c, &x, &e)) > 0; k++) {
		uint64_t nth = k / CUR_RECS;

		if (k >= all.n || x.seq != k ||
		    x.time_ns != CUR_T + (int64_t)k ||
		    x.recording != k % CUR_RECS || x.kind != cur_kind(nth) ||
		    (x.kind == SAMPLE_ALLOC && x.bytes != (int64_t)nth + 1) ||
		    x.time_ns != all.time_ns[k] || x.kind != all.kind[k] ||
		    x.thread != all.thread[k] || x.cls != all.cls[k] ||
		    x.node != all.node[k] || x.bytes != all.bytes[k] ||
		    x.flags != all.flags[k] ||
		    (all.size && x.size != all.size[k]))
			bad++;
	}
	CHECK_INT(rc, ==, 0);
	CHECK_UINT(k, ==, CUR_PER * CUR_RECS);
	CHECK_UINT(bad, ==, 0);
	/* each recording alone, then all again */
	for (r = 0; r <= CUR_RECS; r++) {
		uint32_t want = r < CUR_RECS ? r : STORE_NONE;
		uint64_t n = 0, last = 0;

		bad = 0;
		CHECK_INT(store_cursor_rewind(c, want, &e), ==, 0);
		while ((rc = store_cursor_next(c, &x, &e)) > 0) {
			if (want != STORE_NONE &&
			    (x.recording != want || x.seq % CUR_RECS != want))
				bad++;
			if (n && x.seq <= last)
				bad++;
			last = x.seq;
			n++;
		}
		CHECK_INT(rc, ==, 0);
		CHECK_UINT(n, ==,
			   want == STORE_NONE ? CUR_PER * CUR_RECS : CUR_PER);
		CHECK_UINT(bad, ==, 0);
	}
	store_cursor_free(c);
	store_close(s);
	test_store_remove(dir, "c.hsdb");
}

/* A store of one recording: a rewind to it gives every sample without a
 * mapping pass, and a rewind to a recording it does not have gives none. */
TEST(store_cursor_on_one_recording)
{
	static const struct rec_thread th = {1, "main", 1, 100, false};
	char dir[] = "/tmp/hs-cursor1-XXXXXX";
	struct store_writer *w;
	const struct sink *sink;
	struct store *s;
	struct store_cursor *c = NULL;
	struct store_sample_row x;
	struct err e;
	uint64_t n = 0;
	uint32_t i;
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	w = store_writer_new();
	sink = store_writer_sink(w);
	for (i = 0; i < 5000; i++) {
		struct rec_sample y;

		rec_sample_init(&y, SAMPLE_ALLOC);
		y.time_ns = CUR_T + i;
		y.thread = &th;
		y.weight = 1;
		sink->ops->sample(sink->ctx, &y);
	}
	s = test_recording_commit(w, CUR_T, CUR_T + 5000, dir, "one.hsdb");
	CHECK(s != NULL);
	if (!s)
		return;
	err_init(&e);
	CHECK_INT(store_cursor_new(s, &c, &e), ==, 0);
	CHECK_INT(store_cursor_rewind(c, 0, &e), ==, 0);
	while ((rc = store_cursor_next(c, &x, &e)) > 0)
		if (x.seq == n && x.recording == 0)
			n++;
	CHECK_INT(rc, ==, 0);
	CHECK_UINT(n, ==, 5000);
	CHECK_INT(store_cursor_rewind(c, 1, &e), ==, 0);
	CHECK_INT(store_cursor_next(c, &x, &e), ==, 0);
	store_cursor_free(c);
	store_close(s);
	test_store_remove(dir, "one.hsdb");
}
