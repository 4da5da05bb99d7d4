/*
 * The javacore grammar: tag lines, sections, and the lines of the two
 * memory sections (see javacore.h).  Line shapes are PCRE2 patterns
 * compiled once (util/rx.h); the state machine around them is small:
 * the current 0SECTION, the current 1STSEGTYPE block, and the path of
 * names down the NATIVEMEMINFO tree.
 *
 * It checks what the writer guarantees and nothing more: sums against
 * printed totals are the importer's cross-check, since it is the
 * importer that decides what to do about them.
 */
#include "formats/javacore/javacore.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/rx.h"
#include "util/xalloc.h"

enum {
	RX_SEGMENT = 0,
	RX_AMOUNT,
	RX_MEMUSER,
	RX_CONNECTOR,
	RX_DATE,
};

static const char *const jc_patterns[] = {
	[RX_SEGMENT] =
		"^(?:0x)?([0-9A-Fa-f]{1,16})\\s+(?:0x)?([0-9A-Fa-f]{1,16})"
		"\\s+(?:0x)?([0-9A-Fa-f]{1,16})\\s+(?:0x)?([0-9A-Fa-f]{1,"
		"16})\\s+(?:0x)?([0-9A-Fa-f]{1,16})\\s+(?:0x)?([0-9A-Fa-"
		"f]{1,16})\\s*$",
	[RX_AMOUNT] = "^(?:Total memory|Total memory in use|Total memory free|"
		      "Allocation limit):\\s+([0-9]{1,20})"
		      "(?:\\s+\\((?:0x)?([0-9A-Fa-f]{1,16})\\))?\\s*$",
	[RX_MEMUSER] = "^((?:\\|  )*)(\\+--)?(.+): ([0-9][0-9,]{0,40}) bytes / "
		       "([0-9]{1,20}) allocations?\\s*$",
	[RX_CONNECTOR] = "^(?:\\|  )*\\|?\\s*$",
	[RX_DATE] = "^Date:\\s*([0-9]{4})/([0-9]{1,2})/([0-9]{1,2}) at "
		    "([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,3}))?"
		    "(?:\\s*\\(UTC\\))?\\s*$",
};

static struct rx_table jc_rx = RX_TABLE(jc_patterns);

/* The free functions (tests, fuzzers) match with a block of their own
 * per call; a parser keeps one. */
struct local_md {
	struct rx_match m;
};

static struct rx_match *md_get(struct local_md *l)
{
	rx_match_init(&l->m);
	return &l->m;
}

/* --- single lines ------------------------------------------------------ */

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool jc_split(const char *s, size_t len, struct jc_line *l)
{
	size_t i;

	if (len && s[len - 1] == '\r')
		len--;
	if (len >= 4 && memcmp(s, "NULL", 4) == 0) {
		l->level = -1;
		i = 4;
	} else {
		if (len < 3 || !is_digit(s[0]) || !is_upper(s[1]) ||
		    !is_upper(s[2]))
			return false;
		l->level = s[0] - '0';
		i = 3;
		while (i < len &&
		       (is_upper(s[i]) || is_digit(s[i]) || s[i] == '_'))
			i++;
	}
	if (i < len && s[i] != ' ' && s[i] != '\t')
		return false;
	l->tag = s;
	l->tag_len = i;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	l->content = s + i;
	l->content_len = len - i;
	return true;
}

bool jc_tag_is(const struct jc_line *l, const char *name)
{
	size_t n = strlen(name);

	return l->tag_len == n && memcmp(l->tag, name, n) == 0;
}

static bool segment_md(struct rx_match *m, const char *s, size_t len,
		       struct jc_segment *seg)
{
	if (!rx_match(&jc_rx, RX_SEGMENT, s, len, m))
		return false;
	return rx_hex(m, 1, &seg->id) && rx_hex(m, 2, &seg->start) &&
	       rx_hex(m, 3, &seg->alloc) && rx_hex(m, 4, &seg->end) &&
	       rx_hex(m, 5, &seg->type) && rx_hex(m, 6, &seg->size);
}

bool jc_parse_segment(const char *s, size_t len, struct jc_segment *seg)
{
	struct local_md l;
	bool ok = segment_md(md_get(&l), s, len, seg);

	rx_match_release(&l.m);
	return ok;
}

static bool amount_md(struct rx_match *m, const char *s, size_t len, int64_t *v,
		      bool *hex_ok)
{
	uint64_t h;

	if (!rx_match(&jc_rx, RX_AMOUNT, s, len, m) || !rx_int(m, 1, v))
		return false;
	*hex_ok = true;
	if (m->start[2] >= 0)
		*hex_ok = rx_hex(m, 2, &h) && h == (uint64_t)*v;
	return true;
}

bool jc_parse_amount(const char *s, size_t len, int64_t *v, bool *hex_ok)
{
	struct local_md l;
	bool ok = amount_md(md_get(&l), s, len, v, hex_ok);

	rx_match_release(&l.m);
	return ok;
}

/* Decimal with thousands separators; false past INT64_MAX. */
static bool parse_commas(const char *p, size_t n, int64_t *v)
{
	uint64_t x = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == ',')
			continue;
		if (!is_digit(p[i]))
			return false;
		if (x > ((uint64_t)INT64_MAX - (uint64_t)(p[i] - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(p[i] - '0');
		any = true;
	}
	*v = (int64_t)x;
	return any;
}

static int memuser_md(struct rx_match *m, const char *s, size_t len,
		      struct jc_memuser *u)
{
	const char *p;
	size_t n;

	if (rx_match(&jc_rx, RX_MEMUSER, s, len, m)) {
		rx_group(m, 1, &p, &n);
		u->depth = (int)(n / 3) + (m->start[2] >= 0 ? 2 : 1);
		rx_group(m, 3, &u->name, &u->name_len);
		rx_group(m, 4, &p, &n);
		if (!parse_commas(p, n, &u->bytes) ||
		    !rx_int(m, 5, &u->allocations))
			return -1;
		return 1;
	}
	if (rx_match(&jc_rx, RX_CONNECTOR, s, len, m))
		return 0;
	return -1;
}

int jc_parse_memuser(const char *s, size_t len, struct jc_memuser *u)
{
	struct local_md l;
	int rc = memuser_md(md_get(&l), s, len, u);

	rx_match_release(&l.m);
	return rc;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool date_md(struct rx_match *m, const char *s, size_t len, int64_t *ns)
{
	int64_t f[7] = {0, 0, 0, 0, 0, 0, 0}, sec;
	int i;

	if (!rx_match(&jc_rx, RX_DATE, s, len, m))
		return false;
	for (i = 0; i < 7; i++)
		if (m->start[i + 1] >= 0 && !rx_int(m, i + 1, &f[i]))
			return false;
	if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 ||
	    f[4] > 59 || f[5] > 60)
		return false;
	sec = days_from_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 +
	      f[4] * 60 + f[5];
	/* what fits in int64 ns: 1677-09-21 to 2262-04-11 */
	if (sec <= INT64_MIN / 1000000000 + 1 ||
	    sec >= INT64_MAX / 1000000000 - 1)
		return false;
	*ns = sec * 1000000000 + f[6] * 1000000;
	return true;
}

bool jc_parse_date(const char *s, size_t len, int64_t *ns)
{
	struct local_md l;
	bool ok = date_md(md_get(&l), s, len, ns);

	rx_match_release(&l.m);
	return ok;
}

void jc_memtype_key(const char *name, char *out, size_t size)
{
	static const struct {
		const char *name, *key;
	} known[] = {
		{"Internal Memory", "internal"}, {"Class Memory", "class"},
		{"JIT Code Cache", "jit_code"},	 {"JIT Data Cache", "jit_data"},
		{"Object Memory", "object"},
	};
	size_t i, o = 0;
	bool gap = false;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(name, known[i].name) == 0) {
			snprintf(out, size, "%s", known[i].key);
			return;
		}
	for (i = 0; name[i] && o + 1 < size; i++) {
		char c = name[i];

		if (is_upper(c))
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || is_digit(c)) {
			if (gap && o && o + 2 < size)
				out[o++] = '_';
			out[o++] = c;
			gap = false;
		} else {
			gap = true;
		}
	}
	if (!o && size > 1)
		out[o++] = '_';
	out[o] = '\0';
}

/* --- the parser -------------------------------------------------------- */

static void warnf(struct jc_parser *p, enum err_code code, uint64_t line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void warnf(struct jc_parser *p, enum err_code code, uint64_t line,
		  const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!p->warn)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	p->warn(p->warn_ctx, code, line, b.data);
	buf_release(&b);
}

/* At most 60 bytes of s for a message, made printable. */
static const char *quote(struct buf *b, const char *s, size_t len)
{
	buf_reset(b);
	buf_add_printable(b, s, len > 60 ? 60 : len);
	if (len > 60)
		buf_adds(b, "...");
	return b->data;
}

void jc_parser_init(struct jc_parser *p, struct arena *a, jc_warn_fn warn,
		    void *ctx)
{
	struct rx_match *m = xmalloc(sizeof(*m));

	memset(p, 0, sizeof(*p));
	rx_match_init(m);
	p->rx = m;
	p->arena = a;
	p->warn = warn;
	p->warn_ctx = ctx;
	p->time_local_ns = p->time_utc_ns = JC_NONE;
	p->heap_total = p->heap_in_use = p->heap_free = JC_NONE;
}

void jc_parser_release(struct jc_parser *p)
{
	size_t i;

	if (p->rx) {
		rx_match_release(p->rx);
		free(p->rx);
	}
	for (i = 0; i < p->n_types; i++)
		free(p->types[i].segs);
	free(p->types);
	free(p->natives);
	memset(p, 0, sizeof(*p));
}

const struct jc_memtype *jc_parser_type(const struct jc_parser *p,
					const char *name)
{
	size_t i;

	for (i = 0; i < p->n_types; i++)
		if (strcmp(p->types[i].name, name) == 0)
			return &p->types[i];
	return NULL;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* A block that ends without its totals was cut short. */
static void close_type(struct jc_parser *p)
{
	struct jc_memtype *t = p->cur;

	p->cur = NULL;
	if (!t)
		return;
	if (t->total == JC_NONE || t->in_use == JC_NONE || t->free == JC_NONE)
		warnf(p, ERR_TRUNC, t->line,
		      "'%s' block (line %llu) ends at line %llu without its "
		      "1STSEGTOTAL/1STSEGINUSE/1STSEGFREE lines",
		      t->name, (unsigned long long)t->line,
		      (unsigned long long)p->line);
}

static void leave_section(struct jc_parser *p)
{
	if (p->section == JC_SEC_MEMINFO) {
		close_type(p);
		p->meminfo_done = true;
		p->meminfo_end = p->line;
	} else if (p->section == JC_SEC_NATIVEMEMINFO) {
		p->native_done = true;
	}
}

static void enter_section(struct jc_parser *p, const struct jc_line *l)
{
	const char *c = l->content;
	size_t n = l->content_len, w = 0;

	leave_section(p);
	while (w < n && c[w] != ' ' && c[w] != '\t')
		w++;
	p->section = JC_SEC_OTHER;
	p->section_line = p->line;
	if (n >= 20 && memcmp(c, "Javadump End section", 20) == 0) {
		p->section = JC_SEC_END;
		p->end_seen = true;
	} else if (w == 7 && memcmp(c, "MEMINFO", 7) == 0) {
		if (p->meminfo_line)
			warnf(p, ERR_FORMAT, p->line,
			      "a second MEMINFO section (the first is at line "
			      "%llu) is ignored",
			      (unsigned long long)p->meminfo_line);
		else {
			p->section = JC_SEC_MEMINFO;
			p->meminfo_line = p->line;
		}
	} else if (w == 13 && memcmp(c, "NATIVEMEMINFO", 13) == 0) {
		if (p->native_line)
			warnf(p, ERR_FORMAT, p->line,
			      "a second NATIVEMEMINFO section (the first is at "
			      "line %llu) is ignored",
			      (unsigned long long)p->native_line);
		else {
			p->section = JC_SEC_NATIVEMEMINFO;
			p->native_line = p->line;
		}
	}
}

static void new_type(struct jc_parser *p, const struct jc_line *l)
{
	struct jc_memtype *t;
	struct buf q = BUF_INIT;
	size_t n = l->content_len;
	char *name;

	close_type(p);
	while (n && (l->content[n - 1] == ' ' || l->content[n - 1] == '\t'))
		n--;
	name = arena_memdup(p->arena, l->content, n);
	if (!n || memchr(name, '\0', n)) {
		warnf(p, ERR_FORMAT, p->line,
		      "1STSEGTYPE without a usable name; its block is ignored");
		return;
	}
	if (jc_parser_type(p, name)) {
		warnf(p, ERR_FORMAT, p->line, "a second '%s' block is ignored",
		      quote(&q, name, n));
		buf_release(&q);
		return;
	}
	if (p->n_types == JC_MAX_TYPES) {
		warnf(p, ERR_LIMIT, p->line,
		      "more than %d 1STSEGTYPE blocks; '%s' and later ones "
		      "are ignored",
		      JC_MAX_TYPES, quote(&q, name, n));
		buf_release(&q);
		return;
	}
	if (!p->types)
		p->types = xcalloc(JC_MAX_TYPES, sizeof(*p->types));
	t = &p->types[p->n_types++];
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->line = p->line;
	t->total = t->in_use = t->free = t->limit = JC_NONE;
	t->keep = strcmp(name, "JIT Code Cache") == 0 ||
		  strcmp(name, "JIT Data Cache") == 0;
	p->cur = t;
}

static void add_segment(struct jc_parser *p, const struct jc_line *l)
{
	struct jc_memtype *t = p->cur;
	struct jc_segment s;
	struct buf q = BUF_INIT;

	if (!t) {
		warnf(p, ERR_FORMAT, p->line,
		      "1STSEGMENT outside a 1STSEGTYPE block is ignored");
		return;
	}
	if (!segment_md(p->rx, l->content, l->content_len, &s)) {
		warnf(p, ERR_FORMAT, p->line,
		      "malformed 1STSEGMENT line in '%s' is ignored: \"%s\"",
		      t->name, quote(&q, l->content, l->content_len));
		buf_release(&q);
		return;
	}
	if (s.start > s.alloc || s.alloc > s.end ||
	    s.end - s.start > (uint64_t)INT64_MAX) {
		warnf(p, ERR_FORMAT, p->line,
		      "1STSEGMENT in '%s' with start 0x%llX, alloc 0x%llX, "
		      "end 0x%llX is not start <= alloc <= end; ignored",
		      t->name, (unsigned long long)s.start,
		      (unsigned long long)s.alloc, (unsigned long long)s.end);
		return;
	}
	t->n_segments++;
	t->sum_size = sat_add(t->sum_size, s.size);
	t->sum_span = sat_add(t->sum_span, s.end - s.start);
	t->sum_used = sat_add(t->sum_used, s.alloc - s.start);
	t->sum_free = sat_add(t->sum_free, s.end - s.alloc);
	if (!t->keep)
		return;
	if (t->n_segs == JC_MAX_KEPT_SEGMENTS) {
		if (!t->dropped)
			warnf(p, ERR_LIMIT, p->line,
			      "more than %d segments in '%s'; the rest are "
			      "counted but not mapped",
			      JC_MAX_KEPT_SEGMENTS, t->name);
		t->dropped = true;
		return;
	}
	if (t->n_segs == t->alloc_segs) {
		t->alloc_segs = t->alloc_segs ? 2 * t->alloc_segs : 16;
		t->segs =
			xreallocarray(t->segs, t->alloc_segs, sizeof(*t->segs));
	}
	t->segs[t->n_segs++] = s;
}

/* The value of a "Total memory: N (0xH)" line, or JC_NONE. */
static int64_t amount(struct jc_parser *p, const struct jc_line *l)
{
	struct buf q = BUF_INIT;
	int64_t v;
	bool hex_ok;

	if (!amount_md(p->rx, l->content, l->content_len, &v, &hex_ok)) {
		warnf(p, ERR_FORMAT, p->line, "malformed %.*s line: \"%s\"",
		      (int)l->tag_len, l->tag,
		      quote(&q, l->content, l->content_len));
		buf_release(&q);
		return JC_NONE;
	}
	if (!hex_ok)
		warnf(p, ERR_FORMAT, p->line,
		      "%.*s: the decimal %lld and the hex value in brackets "
		      "differ; using the decimal",
		      (int)l->tag_len, l->tag, (long long)v);
	return v;
}

static void set_total(struct jc_parser *p, const struct jc_line *l,
		      int64_t *slot, uint64_t *line)
{
	int64_t v = amount(p, l);

	if (v == JC_NONE)
		return;
	if (*slot != JC_NONE)
		warnf(p, ERR_FORMAT, p->line,
		      "a second %.*s line; the first is kept", (int)l->tag_len,
		      l->tag);
	else {
		*slot = v;
		if (line)
			*line = p->line;
	}
}

static void meminfo_line(struct jc_parser *p, const struct jc_line *l)
{
	struct jc_memtype *t = p->cur;

	if (jc_tag_is(l, "1STHEAPTYPE")) {
		close_type(p);
		p->heap_seen = true;
	} else if (jc_tag_is(l, "1STHEAPSPACE")) {
		p->n_heap_spaces++;
	} else if (jc_tag_is(l, "1STHEAPREGION")) {
		p->n_heap_regions++;
	} else if (jc_tag_is(l, "1STHEAPTOTAL")) {
		set_total(p, l, &p->heap_total, NULL);
	} else if (jc_tag_is(l, "1STHEAPINUSE")) {
		set_total(p, l, &p->heap_in_use, NULL);
	} else if (jc_tag_is(l, "1STHEAPFREE")) {
		set_total(p, l, &p->heap_free, NULL);
	} else if (jc_tag_is(l, "1STSEGTYPE")) {
		new_type(p, l);
	} else if (jc_tag_is(l, "1STSEGMENT")) {
		add_segment(p, l);
	} else if (jc_tag_is(l, "1STSEGTOTAL") || jc_tag_is(l, "1STSEGINUSE") ||
		   jc_tag_is(l, "1STSEGFREE") || jc_tag_is(l, "1STSEGLIMIT")) {
		char k = l->tag[6];

		if (!t) {
			warnf(p, ERR_FORMAT, p->line,
			      "%.*s outside a 1STSEGTYPE block is ignored",
			      (int)l->tag_len, l->tag);
			return;
		}
		if (k == 'T')
			set_total(p, l, &t->total, &t->total_line);
		else if (k == 'I')
			set_total(p, l, &t->in_use, &t->in_use_line);
		else if (k == 'F')
			set_total(p, l, &t->free, &t->free_line);
		else
			set_total(p, l, &t->limit, NULL);
	} else if (jc_tag_is(l, "1STGCHTYPE")) {
		close_type(p);
		p->gc_history = true;
	}
}

static void native_line(struct jc_parser *p, const struct jc_line *l)
{
	struct jc_memuser u;
	struct jc_native *r;
	struct buf q = BUF_INIT, path = BUF_INIT;
	int rc, d;

	if (l->tag_len != 8 || memcmp(l->tag + 1, "MEMUSER", 7) != 0)
		return;
	if (l->level == 0)
		return; /* "0MEMUSER": the tree's heading */
	rc = memuser_md(p->rx, l->content, l->content_len, &u);
	if (rc == 0)
		return;
	if (rc < 0) {
		warnf(p, ERR_FORMAT, p->line,
		      "malformed %.*s line is ignored: \"%s\"", (int)l->tag_len,
		      l->tag, quote(&q, l->content, l->content_len));
		buf_release(&q);
		return;
	}
	if (u.name_len > JC_MAX_NAME) {
		warnf(p, ERR_LIMIT, p->line,
		      "%.*s name of %zu bytes (more than %d) is ignored",
		      (int)l->tag_len, l->tag, u.name_len, JC_MAX_NAME);
		return;
	}
	if (p->n_natives == JC_MAX_NATIVE_ROWS) {
		warnf(p, ERR_LIMIT, p->line,
		      "more than %d native memory categories; the rest are "
		      "ignored",
		      JC_MAX_NATIVE_ROWS);
		p->native_done = true;
		p->section = JC_SEC_OTHER;
		return;
	}
	d = l->level;
	if (u.depth != d)
		warnf(p, ERR_FORMAT, p->line,
		      "%.*s drawn at depth %d; the tag's depth %d is used",
		      (int)l->tag_len, l->tag, u.depth, d);
	if (d < 1 || d > JC_MAX_DEPTH || d > p->stack_depth + 1) {
		warnf(p, ERR_FORMAT, p->line,
		      "%.*s \"%s\" has no parent row; ignored", (int)l->tag_len,
		      l->tag, quote(&q, u.name, u.name_len));
		buf_release(&q);
		return;
	}
	if (d > 1) {
		buf_adds(&path, p->stack[d - 1]);
		buf_addch(&path, '/');
	}
	buf_add(&path, u.name, u.name_len);
	p->stack[d] = arena_memdup(p->arena, path.data, path.len);
	p->stack_depth = d;
	buf_release(&path);
	if (p->n_natives == p->alloc_natives) {
		p->alloc_natives = p->alloc_natives ? 2 * p->alloc_natives : 64;
		p->natives = xreallocarray(p->natives, p->alloc_natives,
					   sizeof(*p->natives));
	}
	r = &p->natives[p->n_natives++];
	r->path = p->stack[d];
	r->depth = d;
	r->bytes = u.bytes;
	r->allocations = u.allocations;
	r->line = p->line;
}

static void any_line(struct jc_parser *p, const struct jc_line *l)
{
	int64_t ns;
	const char **slot = NULL;

	if (jc_tag_is(l, "1TIDATETIME") || jc_tag_is(l, "1TIDATETIMEUTC")) {
		bool utc = l->tag_len == 14;
		int64_t *t = utc ? &p->time_utc_ns : &p->time_local_ns;

		if (*t != JC_NONE)
			return;
		if (!date_md(p->rx, l->content, l->content_len, &ns)) {
			struct buf q = BUF_INIT;

			warnf(p, ERR_FORMAT, p->line,
			      "unreadable %.*s date: \"%s\"", (int)l->tag_len,
			      l->tag, quote(&q, l->content, l->content_len));
			buf_release(&q);
			return;
		}
		*t = ns;
		if (utc)
			p->time_utc_line = p->line;
		else
			p->time_local_line = p->line;
		return;
	}
	if (jc_tag_is(l, "1CIJAVAVERSION"))
		slot = &p->java_version;
	else if (jc_tag_is(l, "1CIVMVERSION"))
		slot = &p->vm_version;
	if (slot && !*slot) {
		size_t n = l->content_len;

		while (n &&
		       (l->content[n - 1] == ' ' || l->content[n - 1] == '\t'))
			n--;
		if (n && !memchr(l->content, '\0', n))
			*slot = arena_memdup(p->arena, l->content, n);
	}
}

void jc_parser_line(struct jc_parser *p, const char *s, size_t len)
{
	struct jc_line l;

	p->line++;
	if (!jc_split(s, len, &l))
		return;
	p->n_tagged++;
	if (jc_tag_is(&l, "0SECTION")) {
		enter_section(p, &l);
		return;
	}
	switch (p->section) {
	case JC_SEC_MEMINFO:
		meminfo_line(p, &l);
		break;
	case JC_SEC_NATIVEMEMINFO:
		native_line(p, &l);
		break;
	default:
		any_line(p, &l);
		break;
	}
}

void jc_parser_finish(struct jc_parser *p)
{
	if (p->section == JC_SEC_MEMINFO) {
		close_type(p);
		warnf(p, ERR_TRUNC, p->meminfo_line,
		      "the MEMINFO section (line %llu) is cut short at line "
		      "%llu, the end of the input; what it had is imported",
		      (unsigned long long)p->meminfo_line,
		      (unsigned long long)p->line);
		p->meminfo_done = true;
		p->meminfo_end = p->line;
	} else if (p->section == JC_SEC_NATIVEMEMINFO) {
		warnf(p, ERR_TRUNC, p->native_line,
		      "the NATIVEMEMINFO section (line %llu) is cut short at "
		      "line %llu, the end of the input",
		      (unsigned long long)p->native_line,
		      (unsigned long long)p->line);
	} else if (!p->end_seen && p->n_tagged) {
		warnf(p, ERR_TRUNC, p->line,
		      "the javacore ends at line %llu without its \"Javadump "
		      "End section\"",
		      (unsigned long long)p->line);
	}
	p->section = JC_SEC_NONE;
}
