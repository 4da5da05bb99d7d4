/*
 * The rule for inputs that no importer recognises (ingest.h): what each
 * input held is counted as it is walked, and said once at its end.
 */
#include "ingest/ingest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "input/walk.h"
#include "util/err.h"

/* Members named in a bundle's note; the rest are counted. */
#define NAMES_SHOWN 3

/* What heapsift reads, for the messages: the importers' kinds. */
#define READS                                                              \
	"no importer recognises its first bytes: heapsift reads JFR and "  \
	"heapsift agent recordings, HotSpot code-heap reports and OpenJ9 " \
	"javacores"

const char *ingest_severity_name(enum ingest_severity sev)
{
	switch (sev) {
	case INGEST_NOTE:
		return "note";
	case INGEST_WARNING:
		return "warning";
	case INGEST_ERROR:
		break;
	}
	return "error";
}

void ingest_intake_init_kind(struct ingest_intake *t, const char *one,
			     const char *many, const char *reads,
			     ingest_say_fn *say, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->one = one;
	t->many = many;
	t->reads = reads;
	t->say = say;
	t->ctx = ctx;
	buf_init(&t->names);
}

void ingest_intake_init(struct ingest_intake *t, ingest_say_fn *say, void *ctx)
{
	ingest_intake_init_kind(t, "a recording or report heapsift reads",
				"recordings or reports heapsift reads", READS,
				say, ctx);
}

void ingest_intake_release(struct ingest_intake *t)
{
	buf_release(&t->names);
}

void ingest_intake_begin(struct ingest_intake *t, const char *input)
{
	t->input = input;
	t->recognised = t->unrecognised = 0;
	t->named_unrecognised = t->named_refused = false;
	buf_reset(&t->names);
}

void ingest_intake_member(struct ingest_intake *t, const struct member *m,
			  bool recognised, size_t bytes)
{
	if (recognised) {
		t->recognised++;
		return;
	}
	if (!bytes)
		return;
	t->unrecognised++;
	/* the input itself, or the one stream its compression holds */
	if (!m->path[0])
		t->named_unrecognised = true;
	else if (t->unrecognised <= NAMES_SHOWN) {
		if (t->names.len)
			buf_adds(&t->names, ", ");
		buf_adds(&t->names, m->path);
	}
}

bool ingest_intake_refused(struct ingest_intake *t, const struct member *m,
			   const struct err *e)
{
	if (e->code != ERR_UNSUPPORTED || m->path[0])
		return false;
	t->named_refused = true;
	return true;
}

static void say(struct ingest_intake *t, enum ingest_severity sev,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct ingest_intake *t, enum ingest_severity sev,
		const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	struct err e;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	err_init(&e);
	err_set(&e, ERR_UNSUPPORTED, "%s", msg.data);
	err_source(&e, t->input);
	t->say(t->ctx, sev, &e);
	buf_release(&msg);
}

bool ingest_intake_end(struct ingest_intake *t)
{
	uint64_t more = t->unrecognised > NAMES_SHOWN
				? t->unrecognised - NAMES_SHOWN
				: 0;
	char tail[64] = "";

	if (more)
		snprintf(tail, sizeof(tail), " and %llu more",
			 (unsigned long long)more);
	if (t->named_refused) {
		/* its importer's error has said why */
	} else if (t->named_unrecognised) {
		say(t, INGEST_ERROR, "not %s (%s); not read", t->one, t->reads);
	} else if (t->unrecognised && !t->recognised) {
		say(t, INGEST_ERROR,
		    "nothing in it is %s (%llu member%s: %s%s; %s); "
		    "not read",
		    t->one, (unsigned long long)t->unrecognised,
		    t->unrecognised == 1 ? "" : "s", t->names.data, tail,
		    t->reads);
	} else {
		if (t->unrecognised == 1)
			say(t, INGEST_NOTE,
			    "1 of its members is not %s (%s): skipped, as a "
			    "bundle's logs and notes are",
			    t->one, t->names.data);
		else if (t->unrecognised)
			say(t, INGEST_NOTE,
			    "%llu of its members are not %s (%s%s): skipped, "
			    "as a bundle's logs and notes are",
			    (unsigned long long)t->unrecognised, t->many,
			    t->names.data, tail);
		return false;
	}
	t->not_read++;
	return true;
}
