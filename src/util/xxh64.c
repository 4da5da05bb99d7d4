/*
 * XXH64, as xxHash's specification (doc/xxhash_spec.md, "XXH64
 * Algorithm Description") gives it: four lanes over 32-byte stripes,
 * merged, then the tail and an avalanche.  Reads are little-endian
 * whatever the machine, built from bytes (compilers make one load of
 * them), so the values are the reference's everywhere.
 */
#include "util/xxh64.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t read64(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
}

static uint32_t read32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
	acc += input * P2;
	acc = rotl(acc, 31);
	return acc * P1;
}

static uint64_t merge(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

/* Whole stripes of p into the lanes; the bytes used. */
static size_t stripes(uint64_t v[4], const unsigned char *p, size_t len)
{
	size_t at = 0;

	for (; at + 32 <= len; at += 32) {
		v[0] = round64(v[0], read64(p + at));
		v[1] = round64(v[1], read64(p + at + 8));
		v[2] = round64(v[2], read64(p + at + 16));
		v[3] = round64(v[3], read64(p + at + 24));
	}
	return at;
}

void xxh64_init(struct xxh64 *h, uint64_t seed)
{
	memset(h, 0, sizeof(*h));
	h->seed = seed;
	h->v[0] = seed + P1 + P2;
	h->v[1] = seed + P2;
	h->v[2] = seed;
	h->v[3] = seed - P1;
}

void xxh64_update(struct xxh64 *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	h->total_len += len;
	if (h->buf_len) {
		n = 32 - h->buf_len < len ? 32 - h->buf_len : len;
		memcpy(h->buf + h->buf_len, p, n);
		h->buf_len += n;
		p += n;
		len -= n;
		if (h->buf_len < 32)
			return;
		stripes(h->v, h->buf, 32);
		h->buf_len = 0;
	}
	n = stripes(h->v, p, len);
	memcpy(h->buf, p + n, len - n);
	h->buf_len = len - n;
}

uint64_t xxh64_value(const struct xxh64 *h)
{
	const unsigned char *p = h->buf, *end = h->buf + h->buf_len;
	uint64_t acc;

	if (h->total_len >= 32) {
		acc = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) +
		      rotl(h->v[3], 18);
		acc = merge(acc, h->v[0]);
		acc = merge(acc, h->v[1]);
		acc = merge(acc, h->v[2]);
		acc = merge(acc, h->v[3]);
	} else {
		acc = h->seed + P5;
	}
	acc += h->total_len;
	for (; p + 8 <= end; p += 8) {
		acc ^= round64(0, read64(p));
		acc = rotl(acc, 27) * P1 + P4;
	}
	if (p + 4 <= end) {
		acc ^= (uint64_t)read32(p) * P1;
		acc = rotl(acc, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++) {
		acc ^= *p * P5;
		acc = rotl(acc, 11) * P1;
	}
	acc ^= acc >> 33;
	acc *= P2;
	acc ^= acc >> 29;
	acc *= P3;
	acc ^= acc >> 32;
	return acc;
}

uint64_t xxh64(const void *data, size_t len, uint64_t seed)
{
	struct xxh64 h;

	xxh64_init(&h, seed);
	xxh64_update(&h, data, len);
	return xxh64_value(&h);
}
