/*
 * Building framed records (docs/formats/agent-recording.md) in memory.
 *
 * Two levels: le_put32()/le_put64() and frame_seal() work on memory the
 * caller already has (the pending queues reserve exact sizes under the
 * lock, so a definition is encoded in place, without a copy), and
 * struct recbuf is a growable buffer for the writer thread, which builds
 * batch records of unknown length.
 *
 * Nothing here can exit: a recbuf that fails to grow sets its sticky
 * `oom` flag, ignores further appends, and the caller drops the batch
 * and counts it.  There is no locking; each buffer has one owner.
 */
#ifndef HS_AGENT_RECBUF_H
#define HS_AGENT_RECBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/agentrec/agentrec.h"

static inline void le_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline void le_put64(unsigned char *p, uint64_t v)
{
	le_put32(p, (uint32_t)v);
	le_put32(p + 4, (uint32_t)(v >> 32));
}

/* Bytes of a whole frame around a payload of payload_len. */
static inline size_t frame_size(size_t payload_len)
{
	return AGENTREC_FRAME + payload_len;
}

/*
 * frame points at frame_size(payload_len) bytes whose payload (at
 * frame + 8) is already written: fill in length, type and the CRC-32C
 * of type and payload.
 */
void frame_seal(unsigned char *frame, uint32_t type, uint32_t payload_len);

struct recbuf {
	unsigned char *data; /* owned; NULL until the first append */
	size_t len, cap;
	int oom; /* sticky: an append failed, the contents are incomplete */
};

#define RECBUF_INIT           \
	{                     \
		NULL, 0, 0, 0 \
	}

void recbuf_release(struct recbuf *b);
/* Empty it (keeps the memory) and clear oom. */
void recbuf_reset(struct recbuf *b);
/* n bytes at the end, uninitialised; NULL (and oom set) on failure. */
unsigned char *recbuf_grow(struct recbuf *b, size_t n);
void recbuf_put(struct recbuf *b, const void *p, size_t n);
void recbuf_u32(struct recbuf *b, uint32_t v);
void recbuf_u64(struct recbuf *b, uint64_t v);
/* A format string: u32 length then the bytes. */
void recbuf_str(struct recbuf *b, const char *s, size_t n);

/*
 * Open a frame of the given type: returns the offset to pass to
 * recbuf_end() once the payload is appended, which fills the length and
 * appends the CRC.
 */
size_t recbuf_begin(struct recbuf *b, uint32_t type);
void recbuf_end(struct recbuf *b, size_t start);

#endif
