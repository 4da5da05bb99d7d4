/*
 * The multimap declared in internmap.h: linear probing, load kept under 1/2,
 * never shrinks, no deletion (interned things live as long as the
 * agent).
 */
#include "agent/internmap.h"

#include <stdlib.h>

void internmap_release(struct internmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->mask = 0;
	m->n = 0;
}

uint32_t internmap_first(const struct internmap *m, uint64_t key, size_t *pos)
{
	if (!m->vals)
		return 0;
	*pos = (size_t)key & m->mask;
	/* land on the first slot that is empty or holds key */
	for (;;) {
		if (!m->vals[*pos] || m->keys[*pos] == key)
			return m->vals[*pos];
		*pos = (*pos + 1) & m->mask;
	}
}

uint32_t internmap_next(const struct internmap *m, uint64_t key, size_t *pos)
{
	for (;;) {
		*pos = (*pos + 1) & m->mask;
		if (!m->vals[*pos] || m->keys[*pos] == key)
			return m->vals[*pos];
	}
}

static void insert(uint64_t *keys, uint32_t *vals, size_t mask, uint64_t key,
		   uint32_t val)
{
	size_t i = (size_t)key & mask;

	while (vals[i])
		i = (i + 1) & mask;
	keys[i] = key;
	vals[i] = val;
}

int internmap_put(struct internmap *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->mask + 1 || !m->vals) {
		size_t cap = m->vals ? (m->mask + 1) * 2 : 64, i;
		uint64_t *keys = malloc(cap * sizeof(*keys));
		uint32_t *vals = calloc(cap, sizeof(*vals));

		if (!keys || !vals || cap > SIZE_MAX / sizeof(*keys)) {
			free(keys);
			free(vals);
			return -1;
		}
		if (m->vals)
			for (i = 0; i <= m->mask; i++)
				if (m->vals[i])
					insert(keys, vals, cap - 1, m->keys[i],
					       m->vals[i]);
		free(m->keys);
		free(m->vals);
		m->keys = keys;
		m->vals = vals;
		m->mask = cap - 1;
	}
	insert(m->keys, m->vals, m->mask, key, val);
	m->n++;
	return 0;
}
