/*
 * The agent recording's framing (src/formats/agentrec/agentrec.c) on
 * files built here byte by byte, as docs/formats/agent-recording.md lays
 * them out: every way a file can be damaged, with the offset the reader
 * names.  The importer's tests reach the common paths through real
 * recordings; these are the rare ones (coverage showed none reached).
 */
#include <stdlib.h>

#include "formats/agentrec/agentrec.h"
#include "test.h"
#include "util/crc32c.h"

static size_t put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
	return 4;
}

/* magic, major 1, minor 0, 4 reserved bytes: 16 bytes */
static size_t preamble(unsigned char *p, unsigned major)
{
	memcpy(p, AGENTREC_MAGIC, 8);
	p[8] = (unsigned char)major;
	p[9] = 0;
	p[10] = p[11] = 0;
	memset(p + 12, 0, 4);
	return 16;
}

/* A frame: length, type, payload, CRC-32C of type and payload. */
static size_t frame(unsigned char *p, uint32_t type, const void *payload,
		    uint32_t len)
{
	size_t n = put32(p, len);

	n += put32(p + n, type);
	memcpy(p + n, payload, len);
	n += len;
	n += put32(p + n, crc32c_update(0, p + 4, (size_t)len + 4));
	return n;
}

TEST(agentrec_crc_is_crc32c)
{
	/* the check value of CRC-32C (Castagnoli), RFC 3720 B.4 */
	CHECK_UINT(crc32c_update(0, "123456789", 9), ==, 0xE3069283u);
}

TEST(agentrec_open_refuses_what_is_not_one)
{
	unsigned char b[64];
	struct agentrec_reader r;
	const char *why = NULL;
	uint64_t at = 99;

	memcpy(b, "\x89HSB\r\n\x1a\n", 8);
	CHECK_INT(agentrec_open(&r, b, 16, &why, &at), ==, -1);
	CHECK_CONTAINS(why, "bad magic");
	CHECK_UINT(at, ==, 0);
	/* shorter than the magic */
	CHECK_INT(agentrec_open(&r, (const unsigned char *)AGENTREC_MAGIC, 5,
				&why, &at),
		  ==, -1);
	CHECK_CONTAINS(why, "bad magic");
	/* the magic, then 7 of the preamble's other 8 bytes */
	preamble(b, 1);
	CHECK_INT(agentrec_open(&r, b, 15, &why, &at), ==, -1);
	CHECK_CONTAINS(why, "cut short inside its 16-byte preamble");
	CHECK_UINT(at, ==, 8);
	/* a major version from the future */
	preamble(b, 2);
	CHECK_INT(agentrec_open(&r, b, 16, &why, &at), ==, -1);
	CHECK_CONTAINS(why, "major version");
	CHECK_UINT(at, ==, 8);
	/* the preamble alone: a file with no record, at its clean end */
	preamble(b, 1);
	CHECK_INT(agentrec_open(&r, b, 16, &why, &at), ==, 0);
	{
		struct agentrec_record rec;

		CHECK_INT(agentrec_next(&r, &rec, &why), ==, 0);
	}
}

TEST(agentrec_next_names_each_damage)
{
	static unsigned char b[256];
	struct agentrec_reader r;
	struct agentrec_record rec;
	const char *why = NULL;
	uint64_t at;
	size_t n = preamble(b, 1), first;

	n += frame(b + n, 7, "abcd", 4);
	first = n; /* 16 + 12 + 4 = 32 */
	CHECK_UINT(first, ==, 32);
	n += frame(b + n, 9, "xy", 2);

	/* whole: two records, their types, offsets and payloads */
	CHECK_INT(agentrec_open(&r, b, n, &why, &at), ==, 0);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, 1);
	CHECK_UINT(rec.type, ==, 7);
	CHECK_UINT(rec.offset, ==, 16);
	CHECK_UINT(rec.len, ==, 4);
	CHECK(!memcmp(rec.payload, "abcd", 4));
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, 1);
	CHECK_UINT(rec.type, ==, 9);
	CHECK_UINT(rec.offset, ==, 32);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, 0);

	/* the second frame cut inside its 12 bytes of framing: 5 left */
	agentrec_open(&r, b, first + 5, &why, &at);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, 1);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, -1);
	CHECK_CONTAINS(why, "record frame cut short");
	CHECK_UINT(r.pos, ==, first); /* the readable part ends there */

	/* its payload cut: framing whole, one payload byte missing */
	agentrec_open(&r, b, n - 1, &why, &at);
	agentrec_next(&r, &rec, &why);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, -1);
	CHECK_CONTAINS(why, "a record cut short");

	/* a checksum that does not match: one payload byte changed */
	b[first + 8] ^= 1;
	agentrec_open(&r, b, n, &why, &at);
	agentrec_next(&r, &rec, &why);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, -1);
	CHECK_CONTAINS(why, "checksum does not match");
	b[first + 8] ^= 1;

	/* a length past the format's 64 MiB, though the file is short */
	put32(b + first, (64u << 20) + 1);
	agentrec_open(&r, b, n, &why, &at);
	agentrec_next(&r, &rec, &why);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, -1);
	CHECK_CONTAINS(why, "beyond the format's 64 MiB");
	/* exactly 64 MiB is allowed by the format: only cut short here */
	put32(b + first, 64u << 20);
	agentrec_open(&r, b, n, &why, &at);
	agentrec_next(&r, &rec, &why);
	CHECK_INT(agentrec_next(&r, &rec, &why), ==, -1);
	CHECK_CONTAINS(why, "a record cut short");
}

TEST(agentrec_cursor_fails_and_sticks_past_the_end)
{
	unsigned char p[32];
	struct agentrec_record rec = {.payload = p};
	struct agentrec_cursor c;
	const char *s;
	uint32_t len;

	/* u32 5, u64 2^40 + 3, string of 3 "abc", then a string whose
	 * length (4) runs past the payload's end by one byte */
	size_t n = put32(p, 5);

	n += put32(p + n, 3);
	n += put32(p + n, 1u << 8);
	n += put32(p + n, 3);
	memcpy(p + n, "abc", 3);
	n += 3;
	n += put32(p + n, 4);
	memcpy(p + n, "xyz", 3);
	n += 3;
	rec.len = (uint32_t)n;
	agentrec_cursor(&c, &rec);
	CHECK_UINT(agentrec_u32(&c), ==, 5);
	CHECK_UINT(agentrec_u64(&c), ==, ((uint64_t)1 << 40) + 3);
	agentrec_str(&c, &s, &len);
	CHECK_UINT(len, ==, 3);
	CHECK(!memcmp(s, "abc", 3));
	CHECK_INT(c.bad, ==, 0);
	agentrec_str(&c, &s, &len);
	CHECK_INT(c.bad, ==, 1);
	CHECK_UINT(len, ==, 0);
	CHECK_STR(s, "");
	/* once bad, every read fails, even one that would fit */
	agentrec_cursor(&c, &rec);
	c.bad = 1;
	CHECK_UINT(agentrec_u32(&c), ==, 0);
	CHECK_UINT(agentrec_u64(&c), ==, 0);
	/* a u64 with 7 bytes left, a u32 with 3 */
	rec.len = 7;
	agentrec_cursor(&c, &rec);
	CHECK_UINT(agentrec_u64(&c), ==, 0);
	CHECK_INT(c.bad, ==, 1);
	rec.len = 3;
	agentrec_cursor(&c, &rec);
	CHECK_UINT(agentrec_u32(&c), ==, 0);
	CHECK_INT(c.bad, ==, 1);
	/* a string longer than the format's 1 MiB, whatever is left */
	put32(p, (1u << 20) + 1);
	rec.len = 32;
	agentrec_cursor(&c, &rec);
	agentrec_str(&c, &s, &len);
	CHECK_INT(c.bad, ==, 1);
}
