/*
 * The agent recording reader declared in agentrec.h: framing, checksums
 * and a bounds-checked cursor over payloads.  What the records mean is
 * the importer's business (src/importers/import_agent.c).
 */
#include "formats/agentrec/agentrec.h"

#include <string.h>

#include "util/crc32c.h"

int agentrec_open(struct agentrec_reader *r, const unsigned char *data,
		  size_t len, const char **why, uint64_t *at)
{
	memset(r, 0, sizeof(*r));
	r->data = data;
	r->len = len;
	*at = 0;
	if (len < AGENTREC_MAGIC_LEN ||
	    memcmp(data, AGENTREC_MAGIC, AGENTREC_MAGIC_LEN) != 0) {
		*why = "not a heapsift agent recording (bad magic)";
		return -1;
	}
	if (len < AGENTREC_PREAMBLE) {
		*at = AGENTREC_MAGIC_LEN;
		*why = "cut short inside its 16-byte preamble";
		return -1;
	}
	r->major = (unsigned)data[8] | (unsigned)data[9] << 8;
	r->minor = (unsigned)data[10] | (unsigned)data[11] << 8;
	if (r->major != AGENTREC_MAJOR) {
		*at = 8;
		*why = "a major version this heapsift does not read";
		return -1;
	}
	r->pos = AGENTREC_PREAMBLE;
	return 0;
}

int agentrec_next(struct agentrec_reader *r, struct agentrec_record *rec,
		  const char **why)
{
	const unsigned char *p = r->data + r->pos;
	size_t left = r->len - r->pos;
	uint32_t len, crc;

	if (left == 0)
		return 0;
	if (left < AGENTREC_FRAME) {
		*why = "a record frame cut short";
		return -1;
	}
	len = agentrec_le32(p);
	if (len > AGENTREC_MAX_PAYLOAD) {
		*why = "a record length beyond the format's 64 MiB";
		return -1;
	}
	if ((size_t)len > left - AGENTREC_FRAME) {
		*why = "a record cut short (the JVM died while writing it, "
		       "or the file was truncated)";
		return -1;
	}
	crc = crc32c_update(0, p + 4, (size_t)len + 4);
	if (crc != agentrec_le32(p + 8 + len)) {
		*why = "a record whose checksum does not match";
		return -1;
	}
	rec->type = agentrec_le32(p + 4);
	rec->offset = r->pos;
	rec->payload = p + 8;
	rec->len = len;
	r->pos += (size_t)len + AGENTREC_FRAME;
	return 1;
}

void agentrec_cursor(struct agentrec_cursor *c,
		     const struct agentrec_record *rec)
{
	c->p = rec->payload;
	c->end = rec->payload + rec->len;
	c->bad = 0;
}

uint32_t agentrec_u32(struct agentrec_cursor *c)
{
	uint32_t v;

	if (c->bad || c->end - c->p < 4) {
		c->bad = 1;
		return 0;
	}
	v = agentrec_le32(c->p);
	c->p += 4;
	return v;
}

uint64_t agentrec_u64(struct agentrec_cursor *c)
{
	uint64_t v;

	if (c->bad || c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	v = agentrec_le64(c->p);
	c->p += 8;
	return v;
}

void agentrec_str(struct agentrec_cursor *c, const char **s, uint32_t *n)
{
	uint32_t len = agentrec_u32(c);

	*s = "";
	*n = 0;
	if (c->bad)
		return;
	if (len > AGENTREC_MAX_STRING || (size_t)(c->end - c->p) < len) {
		c->bad = 1;
		return;
	}
	*s = (const char *)c->p;
	*n = len;
	c->p += len;
}
