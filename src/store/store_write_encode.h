/*
 * The encoder: samples in seq order through the corrected estimate's
 * walk (store_estimate.h) into one open block per kind, each written out when
 * it holds STORE_BLOCK_SAMPLES, and into the rollup builder; on a thread
 * of its own (a workq of one), fed in batches by one other thread, so
 * that it sees exactly the sequence it would see inline and the file's
 * bytes are the same.  The commit's merge of the spill feeds it
 * (store_write_commit.c), and so does the window of samples as they arrive
 * (store_write_stream.c).  Private to the store module.
 */
#ifndef HS_STORE_ENCODE_H
#define HS_STORE_ENCODE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store_estimate.h"
#include "store/store_write_rollup.h"
#include "store/store_block.h"
#include "store/store_write_spill.h"
#include "store/store_write_out.h"
#include "store/store_write_int.h"
#include "util/workq.h"

/* 32768 samples a batch (about 2 MB; three in flight): batches of 8192 were
 * handed over every millisecond or so, and where other work shares the
 * cores each hand-over can wait for a thread to be scheduled; on
 * scale-512M.jfr beside two fuzzers at nice 19, 8 alternating runs
 * each: import median 4.05 s (2.87-5.91) with 8192, 3.4 s (2.97-4.07)
 * with 32768 */
#define ENC_BATCH 32768u
#define ENC_DEPTH 3u
/* Batches of slices hold no copies, only the window's columns a while
 * longer: eight in flight let the window run further ahead of the
 * encoder, and the threads behind it with it, where three stalled them:
 * scale-512M.jfr -10.9% (-13.7..-7.9, 12 rounds), CPU -7.7%; 16 no
 * better; the 39 MB head no different (24 rounds); 4 MB more memory. */
#define ENC_DEPTH_SLICES 8u
#define ENC_DEPTH_MAX	 8u
#define ENC_AHEAD	 8u

/* The encoder's state: its thread's alone while a pass runs.  The
 * corrected estimate's walk comes first: it hands the samples on to the
 * blocks and the rollups, those of ObjectAllocationSample with their
 * rests, once settled. */
struct encoder {
	struct est_walk *walk;
	struct out *o;
	struct store_toc_entry *t; /* the sample blocks' section */
	struct block_enc enc[SAMPLE__COUNT];
	unsigned char *bufs;
	struct vec *index;
	struct rollup_builder *rb;
	/* slices' samples of these kinds (a mask): their import index and
	 * seq into pairs (struct enc_pair), in seq order */
	unsigned sparse_kinds;
	struct vec *pairs;
	int failed; /* o->failed, for the other thread (atomic) */
};

/* A sample of the sparse kinds given in a slice: its import index and
 * seq, by which its old-object and liveness records find it at commit. */
struct enc_pair {
	uint64_t import;
	uint32_t seq;
};

/* A run of the window's samples for the encoder to read where they lie:
 * c.order[pos..pos + n) of the columns c, seqs from seq on.  The columns
 * are not touched by their owner until the batch is taken back. */
struct enc_slice {
	struct spill_cols c;
	uint32_t pos, n;
	uint32_t recording;
	uint32_t seq;
	uint64_t import_base;
};
#define ENC_SLICES 512u

/* Samples given one by one (s, kind: the commit's merge), or slices of
 * the window's columns (the stream): one or the other in a pipe.  n
 * counts the samples either way; a pipe of slices allocates its batches
 * only up to kind (pipe_init). */
struct enc_batch {
	struct encoder *en;
	uint32_t n, n_slices;
	struct enc_slice sl[ENC_SLICES];
	uint8_t kind[ENC_BATCH];
	struct block_sample s[ENC_BATCH];
};

/* The feeding thread's side: fill->s[fill->n++] (or a slice),
 * pipe_submit when full.  Batches are numbered from 0 as submitted;
 * those below done have been encoded and given back. */
struct enc_pipe {
	struct workq *q;
	struct enc_batch *batch[ENC_DEPTH_MAX];
	unsigned depth;
	struct enc_batch *fill;
	uint64_t submitted, done;
};

/* The sample blocks' section begun in o, the blocks' index into index,
 * the walk sized for n_recs recordings and n_threads threads (it grows
 * past them), the rollups into rb. */
void encoder_begin(struct encoder *en, struct out *o, struct vec *index,
		   struct rollup_builder *rb, uint32_t n_recs,
		   uint32_t n_threads);
/* Every sample given: the walk's waiting ones out, the open blocks
 * written, the index sorted by kind and seq.  The walk stays, for its
 * facts (est_walk_facts). */
void encoder_end(struct encoder *en);
/* Its memory (the walk too); after encoder_end or instead of it. */
void encoder_free(struct encoder *en);

/* A pipe for samples one by one (ENC_DEPTH batches), or for slices
 * (ENC_DEPTH_SLICES, with no room for samples: pipe_slice only). */
void pipe_init(struct enc_pipe *p, struct encoder *en, bool slices);
/* The slice sl (its n samples) into the fill batch: submitted when it
 * is full.  Returns the number of the batch it went into. */
uint64_t pipe_slice(struct enc_pipe *p, const struct enc_slice *sl);
void pipe_submit(struct enc_pipe *p);
/* Every sample given is encoded (drain) or dropped, and the thread gone:
 * the encoder is the caller's thread's again. */
void pipe_end(struct enc_pipe *p, bool drain);

#endif
