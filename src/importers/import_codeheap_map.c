/*
 * The granule maps of a CodeHeap_Analytics report (codeheap_int.h): a
 * map's title says what its cells measure and of which blocks, its lines
 * give the cells, one character a granule, and a map is kept only when
 * it has as many granules as its heap.
 */
#include <string.h>

#include "importers/import_codeheap_int.h"

void ch_map_drop(struct chi *c)
{
	int i;

	for (i = 0; i < 3; i++)
		buf_reset(&c->m_cells[i]);
	c->m_comps = 0;
	if (c->sub == SUB_MAP)
		c->sub = SUB_NONE;
}

/* The map being read is over: keep it when it is whole. */
void ch_map_finish(struct chi *c, bool cut)
{
	struct heap_build *hb;
	size_t n;
	int i;

	if (!c->m_comps)
		return;
	if (c->cur < 0) {
		ch_map_drop(c);
		return;
	}
	hb = &c->heaps[c->cur];
	n = c->m_cells[0].len;
	if (cut) {
		ch_warn(c, c->m_line,
			"%s: the %s map (%s) is cut short after %zu granules; "
			"not imported",
			hb->h.name, ch_measure_name(c->m_measure),
			ch_part_name(c->m_parts[0]), n);
		ch_map_drop(c);
		return;
	}
	if (!n) { /* a title with no lines under it */
		ch_map_drop(c);
		return;
	}
	if (hb->h.n_granules == REC_NONE) {
		/* a print step without the aggregation part: the maps tell */
		hb->h.n_granules = (int64_t)n;
	} else if ((int64_t)n != hb->h.n_granules) {
		ch_warn(c, c->m_line,
			"%s: the %s map (%s) has %zu granules, the heap %lld; "
			"not imported",
			hb->h.name, ch_measure_name(c->m_measure),
			ch_part_name(c->m_parts[0]), n,
			(long long)hb->h.n_granules);
		ch_map_drop(c);
		return;
	}
	for (i = 0; i < c->m_comps; i++) {
		struct rec_ch_map *m;

		GROW(hb->maps, hb->n_maps, hb->cap_maps);
		m = &hb->maps[hb->n_maps++];
		m->measure = c->m_measure;
		m->part = c->m_parts[i];
		m->bundle = c->m_comps > 1;
		m->n = (uint32_t)n;
		m->cells = (const uint8_t *)arena_memdup(
			&c->ar, c->m_cells[i].data, c->m_cells[i].len);
	}
	ch_map_drop(c);
}

/* What one cell character means in the current map. */
static uint8_t cell_value(struct chi *c, char ch, enum ch_measure m)
{
	unsigned char u = (unsigned char)ch;

	if (ch == ' ')
		return 0;
	if (m != CH_TYPE) {
		if (ch >= '0' && ch <= '9')
			return (uint8_t)(m == CH_COUNT ? ch - '0'
						       : 1 + (ch - '0'));
		if (m == CH_COUNT && ch >= 'a' && ch <= 'f')
			return (uint8_t)(10 + ch - 'a');
		if (ch == '*')
			return m == CH_COUNT ? CH_COUNT_MANY : CH_SPACE_FULL;
	}
	/* a block-type letter: granule == segment, so one block, full */
	if (!c->legend_set[u] && !c->m_warned) {
		c->m_warned = true;
		ch_warn(c, c->line,
			"'%c' is not in the report's block-type legend; "
			"shown as an unknown block type",
			ch);
	}
	if (m == CH_TYPE)
		return c->legend_set[u] ? c->legend[u] : CHB_UNKNOWN;
	if (m == CH_AGE)
		return 0;
	return m == CH_COUNT ? 1 : CH_SPACE_FULL;
}

void ch_map_line(struct chi *c, const struct ch_line *l)
{
	const char *p = l->text;
	size_t n = l->text_len, i;
	int w = c->m_comps == 1 ? 1 : 2 * c->m_comps;

	if (c->cur >= 0 && !c->m_cells[0].len) {
		struct heap_build *hb = &c->heaps[c->cur];

		if (hb->h.low && l->addr != hb->h.low && !c->m_warned) {
			c->m_warned = true;
			ch_warn(c, c->line,
				"%s: the map starts at 0x%llx, the heap at "
				"0x%llx",
				hb->h.name, (unsigned long long)l->addr,
				(unsigned long long)hb->h.low);
		}
		if (!hb->h.low)
			hb->h.low = l->addr;
	}
	/* room for the whole line first: a map line is 128 cells */
	if (w == 1) {
		struct buf *cb = &c->m_cells[0];
		uint8_t *o;

		buf_grow(cb, n);
		o = (uint8_t *)cb->data + cb->len;
		for (i = 0; i < n; i++)
			o[i] = cell_value(c, p[i], c->m_measure);
		buf_setlen(cb, cb->len + n);
		return;
	}
	/* "a:b:c " or "a:b ": the last one may lose its trailing blank */
	for (int k = 0; k < c->m_comps; k++) {
		struct buf *cb = &c->m_cells[k];
		size_t got = 0;
		uint8_t *o;

		buf_grow(cb, n / (size_t)w + 1);
		o = (uint8_t *)cb->data + cb->len;
		for (i = 0; i + (size_t)w - 1 <= n; i += (size_t)w)
			o[got++] = cell_value(c, p[i + 2 * (size_t)k],
					      c->m_measure);
		buf_setlen(cb, cb->len + got);
	}
}

struct map_title {
	const char *prefix;
	enum ch_measure measure;
	enum ch_part parts[3];
	int comps;
	bool letters;
};

/* Identified by title, never by position (reference 2.8-2.10). */
static const struct map_title map_titles[] = {
	{"Total (all tiers) count", CH_COUNT, {CH_ALL}, 1, false},
	{"Total (all types) count for granule size == segment size",
	 CH_TYPE,
	 {CH_ALL},
	 1,
	 true},
	{"Tier1 nMethod count", CH_COUNT, {CH_TIER1}, 1, true},
	{"Tier2 nMethod count", CH_COUNT, {CH_TIER2}, 1, true},
	{"not_used/not_entrant/not_installed nMethod count",
	 CH_COUNT,
	 {CH_INACTIVE},
	 1,
	 true},
	{"Stub & Blob count", CH_COUNT, {CH_STUB}, 1, true},
	{"Dead nMethod count", CH_COUNT, {CH_DEAD}, 1, true},
	{"Count by tier", CH_COUNT, {CH_TIER1, CH_TIER2, CH_STUB}, 3, false},
	{"Total (all types) space consumption for granule size == segment "
	 "size",
	 CH_SPACE,
	 {CH_ALL},
	 1,
	 true},
	{"Total (all types) space consumption", CH_SPACE, {CH_ALL}, 1, false},
	{"Tier1 space consumption", CH_SPACE, {CH_TIER1}, 1, true},
	{"Tier2 space consumption", CH_SPACE, {CH_TIER2}, 1, true},
	{"not_used/not_entrant/not_installed space consumption",
	 CH_SPACE,
	 {CH_INACTIVE},
	 1,
	 true},
	{"Stub and Blob space consumption", CH_SPACE, {CH_STUB}, 1, true},
	{"Dead space consumption", CH_SPACE, {CH_DEAD}, 1, true},
	{"Space consumption by tier",
	 CH_SPACE,
	 {CH_TIER1, CH_TIER2, CH_STUB},
	 3,
	 false},
	{"Age distribution", CH_AGE, {CH_ALL}, 1, false},
	{"Tier1 age distribution", CH_AGE, {CH_TIER1}, 1, false},
	{"Tier2 age distribution", CH_AGE, {CH_TIER2}, 1, false},
	{"not_used/not_entrant/not_installed age distribution",
	 CH_AGE,
	 {CH_INACTIVE},
	 1,
	 false},
	{"age distribution by tier", CH_AGE, {CH_TIER1, CH_TIER2}, 2, false},
};

void ch_map_begin(struct chi *c, const char *t, size_t len)
{
	size_t i;

	ch_map_finish(c, false);
	for (i = 0; i < sizeof(map_titles) / sizeof(map_titles[0]); i++) {
		const struct map_title *mt = &map_titles[i];

		if (!ch_title(t, len, mt->prefix, NULL, NULL))
			continue;
		c->m_measure = mt->measure;
		memcpy(c->m_parts, mt->parts, sizeof(c->m_parts));
		c->m_comps = mt->comps;
		c->m_letters = mt->letters;
		c->m_line = c->line;
		c->m_warned = false;
		c->sub = SUB_MAP;
		return;
	}
	ch_warn(c, c->line, "unknown granule map '%.*s'; skipped", (int)len, t);
	c->sub = SUB_OTHER;
}
