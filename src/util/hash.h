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

#endif

/*
 * An open-addressing map from uint64_t keys to uint64_t values, for the
 * sparse 64-bit keys binary formats use (JFR constant-pool keys, type
 * ids).  Same rules as hmap: no deletion, values by pointer.
 */
struct u64map {
	uint64_t *keys;
	uint64_t *values;
	unsigned char *used;
	size_t n_slots; /* 0 or a power of two */
	size_t n_items;
};

void u64map_init(struct u64map *m);
void u64map_release(struct u64map *m);
/* Forget every item, keep the allocation (for per-chunk reuse). */
void u64map_clear(struct u64map *m);
bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *value);
/* Find or add; see hmap_put. */
uint64_t *u64map_put(struct u64map *m, uint64_t key, uint64_t value,
		     bool *added);
