/*
 * Every sample of a store in seq order, a block of each kind at a time
 * (store_int.h's seq cursor): what --append replays from and what
 * store_verify() checks the whole sample order with, in the memory of one
 * block per kind whatever the store's size.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

int seq_cursor_init(struct seq_cursor *sc, struct store *s, struct err *e)
{
	int k;

	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->rec = UINT32_MAX;
	for (k = 0; k < SAMPLE__COUNT; k++) {
		struct kind_cursor *c = &sc->k[k];
		const struct store_block *ix;
		uint32_t b;

		if (store_kind_blocks(s, k, &ix, &c->n_blocks, e) < 0)
			return ERR_FAIL;
		c->bb = store_block_buf_new();
		c->rec_lo = xmalloc((c->n_blocks + 1) * sizeof(uint32_t));
		c->rec_hi = xmalloc((c->n_blocks + 1) * sizeof(uint32_t));
		for (b = 0; b < c->n_blocks; b++) {
			c->rec_lo[b] = UINT32_MAX;
			c->rec_hi[b] = 0;
		}
	}
	return 0;
}

/* Start again from the first blocks, for recording rec only. */
void seq_cursor_rewind(struct seq_cursor *sc, uint32_t rec)
{
	int k;

	sc->rec = rec;
	for (k = 0; k < SAMPLE__COUNT; k++) {
		sc->k[k].b = 0;
		sc->k[k].i = sc->k[k].m.n = 0;
	}
}

void seq_cursor_release(struct seq_cursor *sc)
{
	int k;

	for (k = 0; k < SAMPLE__COUNT; k++) {
		store_block_buf_free(sc->k[k].bb);
		free(sc->k[k].rec_lo);
		free(sc->k[k].rec_hi);
	}
}

/* Kind k's next sample (of sc->rec) at m[i], reading blocks as needed;
 * false when the kind has no more. */
static int kind_ready(struct seq_cursor *sc, int k, struct err *e)
{
	struct kind_cursor *c = &sc->k[k];

	for (;;) {
		while (c->i < c->m.n) {
			if (sc->rec == UINT32_MAX ||
			    c->m.recording[c->i] == sc->rec)
				return 1;
			c->i++;
		}
		/* a block that holds none of rec is not read */
		while (c->b < c->n_blocks && sc->rec != UINT32_MAX &&
		       (sc->rec < c->rec_lo[c->b] || sc->rec > c->rec_hi[c->b]))
			c->b++;
		if (c->b == c->n_blocks)
			return 0;
		if (store_read_block_buf(sc->s, k, c->b, c->bb, &c->m, e) < 0)
			return ERR_FAIL;
		c->b++;
		c->i = 0;
	}
}

/* The next sample by seq: 1, 0 at the end, <0 on damage. */
int seq_cursor_next(struct seq_cursor *sc, struct store_sample_row *x,
		    struct err *e)
{
	struct kind_cursor *c;
	int k, best = -1, rc;
	uint64_t i;

	for (k = 0; k < SAMPLE__COUNT; k++) {
		rc = kind_ready(sc, k, e);
		if (rc < 0)
			return ERR_FAIL;
		if (rc &&
		    (best < 0 || sc->k[k].m.seq[sc->k[k].i] <
					 sc->k[best].m.seq[sc->k[best].i]))
			best = k;
	}
	if (best < 0)
		return 0;
	c = &sc->k[best];
	i = c->i++;
	x->seq = c->m.seq[i];
	x->recording = c->m.recording[i];
	x->thread = c->m.thread[i];
	x->cls = c->m.cls[i];
	x->node = c->m.node[i];
	x->time_ns = c->m.time_ns[i];
	x->bytes = c->m.bytes[i];
	x->size = c->m.size ? c->m.size[i] : REC_NONE;
	x->rest = c->m.rest ? c->m.rest[i] : 0;
	x->kind = (uint8_t)best;
	x->flags = c->m.flags[i];
	/* the first pass notes which recordings each block holds */
	if (sc->rec == UINT32_MAX) {
		if (x->recording < c->rec_lo[c->b - 1])
			c->rec_lo[c->b - 1] = x->recording;
		if (x->recording > c->rec_hi[c->b - 1])
			c->rec_hi[c->b - 1] = x->recording;
	}
	return 1;
}

/* Every seq once, in time order (what store_samples() checks), and the
 * blocks' recordings noted. */
int seq_cursor_check(struct seq_cursor *sc, struct err *e)
{
	struct store_sample_row x;
	uint64_t want = 0;
	int64_t prev = INT64_MIN;
	int rc;

	while ((rc = seq_cursor_next(sc, &x, e)) > 0) {
		if (x.seq != want) {
			err_set(e, ERR_FORMAT,
				"store: section 'sample blocks' holds a "
				"sample twice");
			return ERR_FAIL;
		}
		if (x.time_ns < prev) {
			err_set(e, ERR_FORMAT,
				"store: section 'sample blocks', sample %llu "
				"is not in time order",
				(unsigned long long)want);
			return ERR_FAIL;
		}
		prev = x.time_ns;
		want++;
	}
	return rc;
}

/* --- the public cursor (store.h) ------------------------------------------ */

struct store_cursor {
	struct seq_cursor sc;
	bool mapped; /* a whole pass has noted each block's recordings */
};

int store_cursor_new(struct store *s, struct store_cursor **out, struct err *e)
{
	struct store_cursor *c = xcalloc(1, sizeof(*c));

	*out = NULL;
	if (seq_cursor_init(&c->sc, s, e) < 0) {
		seq_cursor_release(&c->sc);
		free(c);
		return ERR_FAIL;
	}
	*out = c;
	return 0;
}

int store_cursor_rewind(struct store_cursor *c, uint32_t rec, struct err *e)
{
	if (rec == 0 && !c->mapped) {
		const struct store_recording *recs;
		uint32_t n;

		/* a store of one recording: every sample is its, and the
		 * pass that maps the blocks to recordings is not needed */
		if (store_recordings(c->sc.s, &recs, &n, e) < 0)
			return ERR_FAIL;
		if (n <= 1)
			rec = STORE_NONE;
	}
	if (rec != STORE_NONE && !c->mapped) {
		seq_cursor_rewind(&c->sc, UINT32_MAX);
		if (seq_cursor_check(&c->sc, e) < 0)
			return ERR_FAIL;
		c->mapped = true;
	}
	seq_cursor_rewind(&c->sc, rec == STORE_NONE ? UINT32_MAX : rec);
	return 0;
}

int store_cursor_next(struct store_cursor *c, struct store_sample_row *x,
		      struct err *e)
{
	int rc = seq_cursor_next(&c->sc, x, e);

	/* a pass over every sample from the start notes the recordings */
	if (rc == 0 && c->sc.rec == UINT32_MAX)
		c->mapped = true;
	return rc;
}

void store_cursor_free(struct store_cursor *c)
{
	if (!c)
		return;
	seq_cursor_release(&c->sc);
	free(c);
}
