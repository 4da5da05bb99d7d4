/*
 * An open-addressing hash map from byte strings to 64-bit values.
 *
 * Used to intern names (class, method, thread, member) and to cache
 * lookups while importing.  Keys are borrowed: the map stores the pointer
 * and length, so the caller keeps the bytes alive (typically in an arena)
 * for as long as the map is used.  Values are plain uint64_t; store an
 * index or a pointer cast through uintptr_t.
 *
 * Linear probing with the full 64-bit hash kept per slot, so a probe
 * compares bytes only when hashes agree.  No deletion: importers only add.
 */
#ifndef HS_HASH_H
#define HS_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	const void *key; /* NULL: empty slot */
	size_t key_len;
	uint64_t hash;
	uint64_t value;
};

struct hmap {
	struct hmap_slot *slots;
	size_t n_slots; /* 0 or a power of two */
	size_t n_items;
};

uint64_t hash_bytes(const void *p, size_t len);

void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);

/* True and *value set when key is present. */
bool hmap_get(const struct hmap *m, const void *key, size_t len,
	      uint64_t *value);

/*
 * Find key, adding it with value when absent.  Returns a pointer to the
 * stored value (valid until the next hmap_put), and sets *added to say
 * which happened.  The key bytes are borrowed, not copied.
 */
uint64_t *hmap_put(struct hmap *m, const void *key, size_t len, uint64_t value,
		   bool *added);

/*
 * An open-addressing map from uint64_t keys to uint64_t values, for the
 * sparse 64-bit keys binary formats use (JFR constant-pool keys, type
 * ids) and for the query engine's big tables.  Same rules as hmap: no
 * deletion, values by pointer.  Key and value sit side by side, so a
 * lookup in a table of millions costs one cache miss; the key
 * UINT64_MAX marks empty slots and is itself kept apart.
 */
struct u64map_slot {
	uint64_t key;
	uint64_t value;
};

struct u64map {
	struct u64map_slot *slots;
	size_t n_slots; /* 0 or a power of two */
	size_t n_items; /* UINT64_MAX included */
	bool has_max;
	uint64_t max_value;
};

void u64map_init(struct u64map *m);
void u64map_release(struct u64map *m);
/* Forget every item, keep the allocation (for per-chunk reuse). */
void u64map_clear(struct u64map *m);
bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *value);
/* Find or add; see hmap_put. */
uint64_t *u64map_put(struct u64map *m, uint64_t key, uint64_t value,
		     bool *added);
/*
 * Iterate: *pos starts at 0; each call yields one item until it returns
 * false.  Adding items while iterating is not allowed.
 */
bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key,
		 uint64_t *value);

/*
 * A direct-mapped cache of u64 keys, to put in front of a u64map on a
 * hot path: a lookup is one multiply and one compare, inline, where the
 * map costs a call, a seeded mix and a probe.  A newer key evicts an
 * older one in the same slot; the key UINT64_MAX is never cached.
 * Fibonacci hashing spreads the dense ids importers hand out, and also
 * ids that are multiples of a power of two.  A hostile key set only
 * makes misses, so it needs no seed.
 */
struct u64cache {
	struct u64map_slot *e;
	unsigned shift; /* 64 - log2(slots) */
};

void u64cache_init(struct u64cache *c, unsigned log2_slots);
void u64cache_release(struct u64cache *c);
void u64cache_clear(struct u64cache *c);

static inline struct u64map_slot *u64cache_slot(const struct u64cache *c,
						uint64_t key)
{
	return &c->e[(key * 0x9e3779b97f4a7c15ull) >> c->shift];
}

static inline bool u64cache_get(const struct u64cache *c, uint64_t key,
				uint64_t *value)
{
	const struct u64map_slot *s = u64cache_slot(c, key);

	if (s->key != key || key == UINT64_MAX)
		return false;
	*value = s->value;
	return true;
}

static inline void u64cache_put(struct u64cache *c, uint64_t key,
				uint64_t value)
{
	struct u64map_slot *s = u64cache_slot(c, key);

	s->key = key;
	s->value = value;
}

/*
 * A set of 32-bit indexes into a table the caller keeps (an array of
 * fixed-size records, a string pool, a trie's columns), found by a hash
 * of what they index: an interning map that stores no key, so that a
 * table of millions costs 16 to 32 bytes an entry, not a slot of 32 and
 * a copy of the key.  Each slot holds the index and 32 bits of its hash;
 * the caller compares the candidates whose bits match:
 *
 *     for (i = idxset_first(&s, h, &p); i != IDXSET_NONE;
 *          i = idxset_next(&s, &p))
 *             if (same(table[i], key))
 *                     return i;
 *     idxset_add(&s, h, new_index);
 *
 * No deletion.  The slot's position comes from those 32 bits alone, so
 * the set grows without asking the caller for hashes again.
 */
struct idxset {
	uint64_t *slots; /* hash bits << 32 | index + 1; 0: empty */
	size_t n_slots;	 /* 0 or a power of two */
	size_t n_items;
};

#define IDXSET_NONE UINT32_MAX

struct idxset_probe {
	size_t i, mask;
	uint32_t bits;
};

void idxset_init(struct idxset *s);
void idxset_release(struct idxset *s);
/* Add index idx (at most UINT32_MAX - 1) under hash h; the caller has
 * found no equal one. */
void idxset_add(struct idxset *s, uint64_t h, uint32_t idx);

static inline uint32_t idxset_scan_(const struct idxset *s,
				    struct idxset_probe *p)
{
	for (;;) {
		uint64_t v = s->slots[p->i];

		if (!v)
			return IDXSET_NONE;
		if ((uint32_t)(v >> 32) == p->bits)
			return (uint32_t)v - 1;
		p->i = (p->i + 1) & p->mask;
	}
}

/* The first index whose hash bits are h's, IDXSET_NONE if none. */
static inline uint32_t idxset_first(const struct idxset *s, uint64_t h,
				    struct idxset_probe *p)
{
	if (!s->n_items)
		return IDXSET_NONE;
	p->bits = (uint32_t)(h >> 32);
	p->mask = s->n_slots - 1;
	p->i = p->bits & p->mask;
	return idxset_scan_(s, p);
}

/* The next candidate after the one idxset_first() or this gave. */
static inline uint32_t idxset_next(const struct idxset *s,
				   struct idxset_probe *p)
{
	p->i = (p->i + 1) & p->mask;
	return idxset_scan_(s, p);
}

#endif
