/*
 * The heapsift agent recording format, shared by the writer (the JVMTI
 * agent, agent/) and the reader (src/importers/import_agent.c).  Normative
 * description: docs/formats/agent-recording.md; the constants and entry
 * layouts here are the ones it gives.
 *
 * This header is self-contained (C11 and <stdint.h> only) so that the
 * agent, built as a shared library loaded into a JVM, includes it
 * without anything else from heapsift.  The reader functions at the end
 * are in agentrec.c, which the agent does not link.
 */
#ifndef HS_AGENTREC_H
#define HS_AGENTREC_H

#include <stddef.h>
#include <stdint.h>

#include "formats/agentrec/agentrec_magic.h"

#define AGENTREC_MAJOR	     1
#define AGENTREC_MINOR	     0
#define AGENTREC_PREAMBLE    16		 /* magic, major, minor, reserved */
#define AGENTREC_FRAME	     12		 /* u32 length, u32 type, u32 crc */
#define AGENTREC_MAX_PAYLOAD (64u << 20) /* longer: damage */
#define AGENTREC_MAX_STRING  (1u << 20)

enum agentrec_type {
	AR_HEADER = 1,
	AR_CLASS = 2,
	AR_METHOD = 3,
	AR_THREAD = 4,
	AR_STACK = 5,
	AR_SAMPLES = 6,
	AR_DEATHS = 7,
	AR_GCS = 8,
	AR_COUNTERS = 9,
	AR_ALIVE = 10,
	AR_END = 11,
};

enum agentrec_sampler {
	AR_SAMPLER_UNKNOWN = 0,
	AR_SAMPLER_POISSON = 1,	   /* HotSpot: geometric distances, mean I */
	AR_SAMPLER_SYSTEMATIC = 2, /* OpenJ9: running remainder modulo I */
};

#define AR_METHOD_HIDDEN     1u
#define AR_THREAD_VIRTUAL    1u
#define AR_STACK_TRUNCATED   1u
#define AR_SAMPLE_TRACKED    1u
#define AR_SAMPLE_TABLE_FULL 2u

/* Entry sizes of the batch records (little-endian, packed as listed). */
#define AR_SAMPLE_LEN \
	48		 /* u64 sample, i64 time, u64 size, u32 thread,
			     u32 class, u32 stack, u32 gc, u32 flags,
			     u32 reserved */
#define AR_DEATH_LEN  24 /* u64 sample, i64 time, u32 gc, u32 survived */
#define AR_GC_LEN     24 /* u32 gc, u32 reserved, i64 start, i64 end */
#define AR_ALIVE_LEN  8	 /* u64 sample */
#define AR_FRAME_LEN  12 /* u32 method, i32 bci, i32 line */
#define AR_N_COUNTERS 12

/* COUNTERS, in order */
enum agentrec_counter {
	ARC_SAMPLES,
	ARC_WRITTEN,
	ARC_TRACKED,
	ARC_DROPPED_UNTRACKED,
	ARC_DROPPED_BUFFER,
	ARC_DEATHS,
	ARC_GCS,
	ARC_STACK_FAILURES,
	ARC_FLUSHES,
	ARC_BYTES_WRITTEN,
	ARC_ALIVE_AT_END,
	ARC_RESERVED,
};

/* Little-endian fields of the format, at any alignment. */
static inline uint32_t agentrec_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t agentrec_le64(const unsigned char *p)
{
	return (uint64_t)agentrec_le32(p) | (uint64_t)agentrec_le32(p + 4)
						    << 32;
}

/* --- the reader (agentrec.c) ------------------------------------------ */

struct agentrec_reader {
	const unsigned char *data;
	size_t len, pos; /* pos: the next frame */
	unsigned major, minor;
};

struct agentrec_record {
	uint32_t type;
	uint64_t offset; /* of the frame in the file */
	const unsigned char *payload;
	uint32_t len;
};

/*
 * Check the preamble.  0, or -1 with why (a static string) and the
 * offset at fault.
 */
int agentrec_open(struct agentrec_reader *r, const unsigned char *data,
		  size_t len, const char **why, uint64_t *at);

/*
 * The next record: 1 when there is one, 0 at the clean end of the file,
 * -1 when the frame at r->pos is cut short or damaged (*why says which;
 * the readable part ends there, and r->pos stays at it).
 */
int agentrec_next(struct agentrec_reader *r, struct agentrec_record *rec,
		  const char **why);

/* Cursor over a payload: reads fail (and stick) past the end. */
struct agentrec_cursor {
	const unsigned char *p, *end;
	int bad;
};

void agentrec_cursor(struct agentrec_cursor *c,
		     const struct agentrec_record *rec);
uint32_t agentrec_u32(struct agentrec_cursor *c);
uint64_t agentrec_u64(struct agentrec_cursor *c);
/* A string: *s points into the payload (not terminated), *n its length. */
void agentrec_str(struct agentrec_cursor *c, const char **s, uint32_t *n);

#endif
