/*
 * The browser's shared query state (model.h).  Queries are opened on
 * first use after a change, so that switching the kind and then the
 * range opens one query, not two.
 */
#include "tui/model.h"

#include <string.h>

static void drop_cmp(struct model_cmp *c)
{
	diff_free(c->diff);
	query_free(c->q_base);
	query_free(c->q_new);
	c->diff = NULL;
	c->q_base = c->q_new = NULL;
	c->valid = false;
}

static void drop_base(struct model *m)
{
	drop_cmp(&m->cmp[0]);
	drop_cmp(&m->cmp[1]);
}

static void drop(struct model *m)
{
	drop_base(m);
	if (m->q_all && m->q_all != m->q)
		query_free(m->q_all);
	query_free(m->q);
	m->q = m->q_all = NULL;
}

/* A query whose kind stays decoded: the browser makes a pass at every
 * key (query_hold). */
static int open_held(struct model *m, const struct query_options *o,
		     struct query **out, struct err *e)
{
	if (query_open(m->s, o, out, e) < 0)
		return ERR_FAIL;
	if (query_hold(*out, e) < 0) {
		query_free(*out);
		*out = NULL;
		return ERR_FAIL;
	}
	return 0;
}

static int open_with(struct model *m, bool range, struct query **out,
		     struct err *e)
{
	struct query_options o;

	query_options_init(&o);
	o.kind = m->kind;
	o.estimate = m->estimate;
	if (range) {
		o.from_ns = m->from_ns;
		o.to_ns = m->to_ns;
	}
	return open_held(m, &o, out, e);
}

int model_init(struct model *m, struct store *s, struct err *e)
{
	const struct query_row *rows;
	struct query_total t;
	size_t n;

	memset(m, 0, sizeof(*m));
	m->s = s;
	m->kind = -1;
	m->estimate = -1;
	m->from_ns = INT64_MIN;
	m->to_ns = INT64_MAX;
	if (open_with(m, false, &m->q_all, e) < 0)
		return ERR_FAIL;
	m->q = m->q_all;
	query_kind_counts(m->q, m->kind_counts);
	m->kind = (int)query_kind(m->q);
	if (query_top(m->q, GROUP_RECORDING, &rows, &n, &t, e) < 0)
		return ERR_FAIL;
	m->first_ns = t.first_ns;
	m->last_ns = t.last_ns;
	/* time 0: the same rule as the CLI's offsets (query.h) */
	if (query_time_origin(m->s, -1, &m->start_ns, e) < 0)
		return ERR_FAIL;
	return 0;
}

void model_release(struct model *m)
{
	drop(m);
}

void model_set_base(struct model *m, int64_t rec, int64_t from_ns,
		    int64_t to_ns)
{
	drop_base(m);
	m->base_on = true;
	m->base_recording = rec;
	m->base_from_ns = rec >= 0 ? INT64_MIN : from_ns;
	m->base_to_ns = rec >= 0 ? INT64_MAX : to_ns;
	m->gen++;
}

void model_clear_base(struct model *m)
{
	drop_base(m);
	m->base_on = false;
	m->gen++;
}

struct diff *model_diff_kind(struct model *m, int kind, struct err *e)
{
	struct query_options ob, on;
	struct diff_options dopt;
	const struct query_recording *r;
	size_t n;
	struct query *qn;
	struct model_cmp *c;
	enum query_estimate est;

	if (!m->base_on) {
		err_set(e, ERR_USAGE, "no baseline");
		return NULL;
	}
	if (kind < 0)
		kind = m->kind;
	c = &m->cmp[kind == m->kind ? 0 : 1];
	if (c->valid && c->gen == m->gen && c->kind == kind)
		return c->diff;
	drop_cmp(c);
	c->kind = kind;
	query_options_init(&ob);
	ob.kind = kind;
	ob.estimate = m->estimate;
	ob.recording = m->base_recording;
	ob.from_ns = m->base_from_ns;
	ob.to_ns = m->base_to_ns;
	if (open_held(m, &ob, &c->q_base, e) < 0)
		return NULL;
	query_options_init(&on);
	on.kind = kind;
	on.estimate = m->estimate;
	on.from_ns = m->from_ns;
	on.to_ns = m->to_ns;
	query_recordings(c->q_base, &r, &n);
	if (m->base_recording >= 0 && !model_has_range(m) && n > 1)
		on.recording = m->base_recording + 1 < (int64_t)n
				       ? m->base_recording + 1
				       : m->base_recording - 1;
	if (on.recording >= 0 || kind != m->kind) {
		if (open_held(m, &on, &c->q_new, e) < 0)
			return NULL;
		qn = c->q_new;
	} else {
		qn = model_query(m, e);
		if (!qn)
			return NULL;
	}
	/* one estimate on both sides (docs/diff.md): a side that gives
	 * another is opened again with the one both can give */
	est = diff_estimate_choose(c->q_base, &ob, qn, &on, m->estimate);
	if (query_kind(c->q_base) == SAMPLE_ALLOC &&
	    query_estimate(c->q_base) != est) {
		query_free(c->q_base);
		c->q_base = NULL;
		ob.estimate = (int)est;
		if (open_held(m, &ob, &c->q_base, e) < 0)
			return NULL;
	}
	if (query_kind(qn) == SAMPLE_ALLOC && query_estimate(qn) != est) {
		on.estimate = (int)est;
		if (c->q_new) {
			query_free(c->q_new);
			c->q_new = NULL;
		}
		if (open_held(m, &on, &c->q_new, e) < 0)
			return NULL;
		qn = c->q_new;
	}
	diff_options_init(&dopt);
	if (diff_open(c->q_base, &ob, qn, &on, &dopt, &c->diff, e) < 0)
		return NULL;
	c->valid = true;
	c->gen = m->gen;
	return c->diff;
}

struct diff *model_diff(struct model *m, struct err *e)
{
	return model_diff_kind(m, -1, e);
}

struct query *model_query_all(struct model *m, struct err *e)
{
	if (!m->q_all) {
		if (!model_has_range(m))
			return model_query(m, e);
		if (open_with(m, false, &m->q_all, e) < 0)
			return NULL;
	}
	return m->q_all;
}

struct query *model_query(struct model *m, struct err *e)
{
	if (!m->q) {
		if (open_with(m, true, &m->q, e) < 0)
			return NULL;
		if (!model_has_range(m) && !m->q_all)
			m->q_all = m->q;
	}
	return m->q;
}

int model_open_query(struct model *m, const struct query_options *extra,
		     struct query **out, struct err *e)
{
	struct query_options o;

	if (extra)
		o = *extra;
	else
		query_options_init(&o);
	if (o.kind < 0)
		o.kind = m->kind;
	if (o.estimate < 0)
		o.estimate = m->estimate;
	o.from_ns = m->from_ns;
	o.to_ns = m->to_ns;
	return open_held(m, &o, out, e);
}

bool model_has_range(const struct model *m)
{
	return m->from_ns != INT64_MIN || m->to_ns != INT64_MAX;
}

void model_set_range(struct model *m, int64_t from_ns, int64_t to_ns)
{
	if (from_ns == m->from_ns && to_ns == m->to_ns)
		return;
	/* the whole-span query survives a range change */
	if (m->q && m->q != m->q_all)
		query_free(m->q);
	m->q = NULL;
	m->from_ns = from_ns;
	m->to_ns = to_ns;
	if (!model_has_range(m) && m->q_all)
		m->q = m->q_all;
	m->gen++;
}

void model_set_kind(struct model *m, int kind)
{
	struct err e;
	const struct query_row *rows;
	struct query_total t;
	size_t n;

	if (kind == m->kind)
		return;
	drop(m);
	m->kind = kind;
	m->gen++;
	/* the axis of the new kind */
	err_init(&e);
	if (model_query_all(m, &e) &&
	    query_top(m->q_all, GROUP_RECORDING, &rows, &n, &t, &e) == 0) {
		m->first_ns = t.first_ns;
		m->last_ns = t.last_ns;
	}
}

void model_set_estimate(struct model *m, int estimate)
{
	if (estimate == m->estimate)
		return;
	drop(m);
	m->estimate = estimate;
	m->gen++;
}

enum sample_kind model_kind(struct model *m)
{
	return (enum sample_kind)m->kind;
}
