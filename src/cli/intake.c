/*
 * The rule for inputs that are not recognised (intake.h).
 */
#include "cli/intake.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "input/walk.h"
#include "util/err.h"

/* Members named in a bundle's note; the rest are counted. */
#define NAMES_SHOWN 3

/* What heapsift reads, for the messages: the importers' kinds. */
#define READS                                                              \
	"no importer recognises its first bytes: heapsift reads JFR and "  \
	"heapsift agent recordings, HotSpot code-heap reports and OpenJ9 " \
	"javacores"

void cli_intake_init_kind(struct cli_intake *t, const char *cmd,
			  const char *one, const char *many, const char *reads)
{
	memset(t, 0, sizeof(*t));
	t->cmd = cmd;
	t->one = one;
	t->many = many;
	t->reads = reads;
	buf_init(&t->names);
}

void cli_intake_init(struct cli_intake *t, const char *cmd)
{
	cli_intake_init_kind(t, cmd, "a recording or report heapsift reads",
			     "recordings or reports heapsift reads", READS);
}

void cli_intake_release(struct cli_intake *t)
{
	buf_release(&t->names);
}

void cli_intake_begin(struct cli_intake *t, const char *input)
{
	t->input = input;
	t->recognised = t->unrecognised = 0;
	t->named_unrecognised = t->named_refused = false;
	buf_reset(&t->names);
}

void cli_intake_member(struct cli_intake *t, const struct member *m,
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

bool cli_intake_refused(struct cli_intake *t, const struct member *m,
			const struct err *e)
{
	if (e->code != ERR_UNSUPPORTED || m->path[0])
		return false;
	t->named_refused = true;
	return true;
}

static void say(struct cli_intake *t, const char *severity, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
static void say(struct cli_intake *t, const char *severity, const char *fmt,
		...)
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
	cli_problem(t->cmd, severity, &e);
	buf_release(&msg);
}

bool cli_intake_end(struct cli_intake *t)
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
		say(t, "error", "not %s (%s); not read", t->one, t->reads);
	} else if (t->unrecognised && !t->recognised) {
		say(t, "error",
		    "nothing in it is %s (%llu member%s: %s%s; %s); "
		    "not read",
		    t->one, (unsigned long long)t->unrecognised,
		    t->unrecognised == 1 ? "" : "s", t->names.data, tail,
		    t->reads);
	} else {
		if (t->unrecognised == 1)
			say(t, "note",
			    "1 of its members is not %s (%s): skipped, as a "
			    "bundle's logs and notes are",
			    t->one, t->names.data);
		else if (t->unrecognised)
			say(t, "note",
			    "%llu of its members are not %s (%s%s): skipped, "
			    "as a bundle's logs and notes are",
			    (unsigned long long)t->unrecognised, t->many,
			    t->names.data, tail);
		return false;
	}
	t->not_read++;
	return true;
}
