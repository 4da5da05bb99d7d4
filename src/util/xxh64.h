/*
 * XXH64 (Yann Collet's xxHash, 64-bit), fed in pieces: a fast
 * non-cryptographic hash of a stream, for keys that must change whenever
 * the bytes do (the cache store's name: cli/cache.c).
 *
 * It is the published algorithm, so its values can be checked against
 * any other implementation (the unit tests hold it to the reference's
 * vectors).  Not for hostile inputs: anyone can make two streams with
 * one XXH64, which is no concern where the user's own files are hashed
 * to find the user's own cache.  hash_bytes() (hash.h) is for hash
 * tables, and is seeded per process, so its values change between runs.
 */
#ifndef HS_XXH64_H
#define HS_XXH64_H

#include <stddef.h>
#include <stdint.h>

/* Caller-owned state; no resources, so no release. */
struct xxh64 {
	uint64_t v[4];	       /* the four lanes */
	uint64_t total_len;    /* bytes fed so far */
	unsigned char buf[32]; /* a stripe not yet complete */
	size_t buf_len;
	uint64_t seed;
};

void xxh64_init(struct xxh64 *h, uint64_t seed);
/* Feed len bytes; feeding a buffer in pieces gives the same value as
 * feeding it whole. */
void xxh64_update(struct xxh64 *h, const void *data, size_t len);
/* The hash of everything fed so far; h may be fed more afterwards. */
uint64_t xxh64_value(const struct xxh64 *h);
/* One buffer's hash. */
uint64_t xxh64(const void *data, size_t len, uint64_t seed);

#endif
