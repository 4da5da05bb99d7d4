/*
 * Record encoding declared in recbuf.h.  The CRC is util/crc32c.c's,
 * compiled into the agent (hardware crc32 where the CPU has it).
 */
#include "agent/recbuf.h"

#include <stdlib.h>

#include "util/crc32c.h"

void frame_seal(unsigned char *frame, uint32_t type, uint32_t payload_len)
{
	uint32_t crc;

	le_put32(frame, payload_len);
	le_put32(frame + 4, type);
	/* the CRC covers the type bytes then the payload, contiguous here */
	crc = crc32c_update(0, frame + 4, 4 + (size_t)payload_len);
	le_put32(frame + 8 + payload_len, crc);
}

void recbuf_release(struct recbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

void recbuf_reset(struct recbuf *b)
{
	b->len = 0;
	b->oom = 0;
}

unsigned char *recbuf_grow(struct recbuf *b, size_t n)
{
	unsigned char *p;

	if (b->oom)
		return NULL;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->oom = 1;
				return NULL;
			}
			cap *= 2;
		}
		p = realloc(b->data, cap);
		if (!p) {
			b->oom = 1;
			return NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	p = b->data + b->len;
	b->len += n;
	return p;
}

void recbuf_put(struct recbuf *b, const void *p, size_t n)
{
	unsigned char *d = recbuf_grow(b, n);

	if (d && n)
		memcpy(d, p, n);
}

void recbuf_u32(struct recbuf *b, uint32_t v)
{
	unsigned char *d = recbuf_grow(b, 4);

	if (d)
		le_put32(d, v);
}

void recbuf_u64(struct recbuf *b, uint64_t v)
{
	unsigned char *d = recbuf_grow(b, 8);

	if (d)
		le_put64(d, v);
}

void recbuf_str(struct recbuf *b, const char *s, size_t n)
{
	if (n > AGENTREC_MAX_STRING)
		n = AGENTREC_MAX_STRING; /* longer is damage to a reader */
	recbuf_u32(b, (uint32_t)n);
	recbuf_put(b, s, n);
}

size_t recbuf_begin(struct recbuf *b, uint32_t type)
{
	size_t start = b->len;
	unsigned char *d = recbuf_grow(b, 8);

	/* the length is filled in by recbuf_end, which reads the type back */
	if (d)
		le_put32(d + 4, type);
	return start;
}

void recbuf_end(struct recbuf *b, size_t start)
{
	size_t payload;
	uint32_t type;

	if (b->oom || !recbuf_grow(b, 4))
		return;
	payload = b->len - start - AGENTREC_FRAME;
	type = b->data[start + 4] | (uint32_t)b->data[start + 5] << 8 |
	       (uint32_t)b->data[start + 6] << 16 |
	       (uint32_t)b->data[start + 7] << 24;
	frame_seal(b->data + start, type, (uint32_t)payload);
}
