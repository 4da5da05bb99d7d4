/*
 * An open-addressing multimap from 64-bit hashes to nonzero 32-bit
 * values (indexes into the caller's arrays), for the interning tables.
 *
 * It stores hashes, not keys: several values may share a hash and the
 * caller compares its own keys while walking the candidates with
 * internmap_first()/internmap_next().  Allocation failures are returned, never
 * fatal.  No locking: the owner serialises access.
 */
#ifndef HS_AGENT_INTERNMAP_H
#define HS_AGENT_INTERNMAP_H

#include <stddef.h>
#include <stdint.h>

struct internmap {
	uint64_t *keys; /* owned */
	uint32_t *vals; /* owned; 0 marks an empty slot */
	size_t mask;	/* capacity - 1; capacity 0 before the first put */
	size_t n;
};

#define HMAP_INIT                \
	{                        \
		NULL, NULL, 0, 0 \
	}

void internmap_release(struct internmap *m);

/* The first value stored under key, or 0; *pos is the cursor for
 * internmap_next(). */
uint32_t internmap_first(const struct internmap *m, uint64_t key, size_t *pos);
uint32_t internmap_next(const struct internmap *m, uint64_t key, size_t *pos);

/* Add (key, val), val != 0; grows as needed.  0, or -1 out of memory
 * (the map is unchanged). */
int internmap_put(struct internmap *m, uint64_t key, uint32_t val);

/* A 64-bit mix of a value (splitmix64's finaliser), for keys that are
 * pointers or small integers. */
static inline uint64_t internmap_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#endif
