/*
 * The hash maps declared in hash.h.  The hash is a 64-bit multiply-and-
 * mix over 8-byte words (in the spirit of wyhash) with a seed drawn per
 * process, so that keys chosen in a file cannot be made to collide.
 */
#include "util/hash.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "util/size.h"
#include "util/xalloc.h"

static uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * A seed drawn once per process: keys come from files, and with a fixed
 * seed a hostile file could pick keys that all collide and make every
 * lookup a linear scan.
 */
static uint64_t seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;
/* seed once it is drawn: every lookup reads it, and pthread_once is a
 * call into libc each time */
static _Atomic uint64_t seed_ready;

static void seed_init(void)
{
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
		       (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_sec;
	}
	seed |= 1;
	atomic_store_explicit(&seed_ready, seed, memory_order_release);
}

static inline uint64_t hash_seed(void)
{
	uint64_t s = atomic_load_explicit(&seed_ready, memory_order_acquire);

	if (s)
		return s;
	pthread_once(&seed_once, seed_init);
	return seed;
}

uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x243f6a8885a308d3ull ^ len ^ hash_seed();
	uint64_t tail = 0;
	size_t i = 0;

	for (; i + 8 <= len; i += 8)
		h = mix(h ^ load64(p + i), 0x9e3779b97f4a7c15ull);
	if (i < len) {
		memcpy(&tail, p + i, len - i);
		h = mix(h ^ tail, 0xbf58476d1ce4e5b9ull);
	}
	return mix(h, 0x94d049bb133111ebull);
}

void hmap_init(struct hmap *m)
{
	m->slots = NULL;
	m->n_slots = 0;
	m->n_items = 0;
}

void hmap_release(struct hmap *m)
{
	free(m->slots);
	hmap_init(m);
}

static struct hmap_slot *find_slot(struct hmap_slot *slots, size_t n_slots,
				   const void *key, size_t len, uint64_t hash)
{
	size_t mask = n_slots - 1, i = (size_t)hash & mask;

	for (;;) {
		struct hmap_slot *s = &slots[i];

		if (!s->key)
			return s;
		if (s->hash == hash && s->key_len == len &&
		    (len == 0 || memcmp(s->key, key, len) == 0))
			return s;
		i = (i + 1) & mask;
	}
}

static void grow(struct hmap *m)
{
	size_t n = m->n_slots ? m->n_slots : 8, i;
	struct hmap_slot *slots;

	if (!size_mul(n, 2, &n))
		die("hash map too large");
	slots = xcalloc(n, sizeof(*slots));
	for (i = 0; i < m->n_slots; i++) {
		struct hmap_slot *s = &m->slots[i];

		if (s->key)
			*find_slot(slots, n, s->key, s->key_len, s->hash) = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->n_slots = n;
}

bool hmap_get(const struct hmap *m, const void *key, size_t len,
	      uint64_t *value)
{
	struct hmap_slot *s;

	if (!m->n_items)
		return false;
	s = find_slot(m->slots, m->n_slots, key, len, hash_bytes(key, len));
	if (!s->key)
		return false;
	*value = s->value;
	return true;
}

uint64_t *hmap_put(struct hmap *m, const void *key, size_t len, uint64_t value,
		   bool *added)
{
	uint64_t h = hash_bytes(key, len);
	struct hmap_slot *s;

	/* Keep the load factor at or below 1/2. */
	if ((m->n_items + 1) * 2 > m->n_slots)
		grow(m);
	s = find_slot(m->slots, m->n_slots, key, len, h);
	if (s->key) {
		if (added)
			*added = false;
		return &s->value;
	}
	/* A zero-length key still needs a non-NULL marker. */
	s->key = len ? key : (const void *)"";
	s->key_len = len;
	s->hash = h;
	s->value = value;
	m->n_items++;
	if (added)
		*added = true;
	return &s->value;
}

/* --- u64map ------------------------------------------------------------ */

#define EMPTY UINT64_MAX

static size_t u64_slot(uint64_t key, size_t mask)
{
	return (size_t)mix(key ^ hash_seed(), 0xbf58476d1ce4e5b9ull) & mask;
}

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_release(struct u64map *m)
{
	free(m->slots);
	u64map_init(m);
}

static void fill_empty(struct u64map_slot *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		s[i].key = EMPTY;
}

void u64map_clear(struct u64map *m)
{
	fill_empty(m->slots, m->n_slots);
	m->n_items = 0;
	m->has_max = false;
}

static size_t u64_find(const struct u64map_slot *slots, size_t n_slots,
		       uint64_t key)
{
	size_t mask = n_slots - 1, i = u64_slot(key, mask);

	while (slots[i].key != EMPTY && slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

static void u64_grow(struct u64map *m)
{
	size_t size = m->n_slots ? m->n_slots : 8, i;
	struct u64map_slot *slots;

	if (!size_mul(size, 2, &size))
		die("u64 map too large");
	slots = xreallocarray(NULL, size, sizeof(*slots));
	fill_empty(slots, size);
	for (i = 0; i < m->n_slots; i++)
		if (m->slots[i].key != EMPTY)
			slots[u64_find(slots, size, m->slots[i].key)] =
				m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->n_slots = size;
}

bool u64map_get(const struct u64map *m, uint64_t key, uint64_t *value)
{
	size_t i;

	if (key == EMPTY) {
		if (m->has_max)
			*value = m->max_value;
		return m->has_max;
	}
	if (!m->n_slots)
		return false;
	i = u64_find(m->slots, m->n_slots, key);
	if (m->slots[i].key == EMPTY)
		return false;
	*value = m->slots[i].value;
	return true;
}

uint64_t *u64map_put(struct u64map *m, uint64_t key, uint64_t value,
		     bool *added)
{
	size_t i;

	if (key == EMPTY) {
		if (added)
			*added = !m->has_max;
		if (!m->has_max) {
			m->has_max = true;
			m->max_value = value;
			m->n_items++;
		}
		return &m->max_value;
	}
	if ((m->n_items + 1) * 2 > m->n_slots)
		u64_grow(m);
	i = u64_find(m->slots, m->n_slots, key);
	if (m->slots[i].key != EMPTY) {
		if (added)
			*added = false;
		return &m->slots[i].value;
	}
	m->slots[i].key = key;
	m->slots[i].value = value;
	m->n_items++;
	if (added)
		*added = true;
	return &m->slots[i].value;
}

bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key,
		 uint64_t *value)
{
	while (*pos < m->n_slots) {
		const struct u64map_slot *s = &m->slots[(*pos)++];

		if (s->key != EMPTY) {
			*key = s->key;
			*value = s->value;
			return true;
		}
	}
	if (*pos == m->n_slots && m->has_max) {
		(*pos)++;
		*key = EMPTY;
		*value = m->max_value;
		return true;
	}
	return false;
}

/* --- u64cache ---------------------------------------------------------- */

void u64cache_init(struct u64cache *c, unsigned log2_slots)
{
	size_t n = (size_t)1 << log2_slots;

	if (log2_slots < 1 || log2_slots > 24)
		BUG("u64cache of 2^%u slots", log2_slots);
	c->e = xreallocarray(NULL, n, sizeof(*c->e));
	fill_empty(c->e, n);
	c->shift = 64 - log2_slots;
}

void u64cache_clear(struct u64cache *c)
{
	fill_empty(c->e, (size_t)1 << (64 - c->shift));
}

void u64cache_release(struct u64cache *c)
{
	free(c->e);
	c->e = NULL;
}

/* --- idxset ------------------------------------------------------------ */

void idxset_init(struct idxset *s)
{
	memset(s, 0, sizeof(*s));
}

void idxset_release(struct idxset *s)
{
	free(s->slots);
	idxset_init(s);
}

static void idx_place(uint64_t *slots, size_t mask, uint64_t v)
{
	size_t i = (size_t)(v >> 32) & mask;

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = v;
}

void idxset_add(struct idxset *s, uint64_t h, uint32_t idx)
{
	if (idx == IDXSET_NONE)
		BUG("idxset: index %u", idx);
	/* Keep the load factor at or below 1/2, as the other maps do. */
	if ((s->n_items + 1) * 2 > s->n_slots) {
		size_t n = s->n_slots ? s->n_slots : 64, i;
		uint64_t *slots;

		if (!size_mul(n, 2, &n) || n > ((size_t)1 << 33))
			die("index set too large");
		slots = xcalloc(n, sizeof(*slots));
		for (i = 0; i < s->n_slots; i++)
			if (s->slots[i])
				idx_place(slots, n - 1, s->slots[i]);
		free(s->slots);
		s->slots = slots;
		s->n_slots = n;
	}
	idx_place(s->slots, s->n_slots - 1,
		  (h >> 32) << 32 | ((uint64_t)idx + 1));
	s->n_items++;
}
