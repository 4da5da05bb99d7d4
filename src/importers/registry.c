/*
 * The one place every importer is listed.  Order matters only between
 * classes: signature probes run first and a perfect score stops the
 * auction; the table is checked for that order by a unit test.
 */
#include "importers/registry.h"

#include "importers/importer_list.h"

#include <limits.h>
#include <stdarg.h>

#include "util/buf.h"

const struct importer_ops *const importer_table[] = {
	&importer_jfr, &importer_agent, &importer_codeheap, &importer_javacore,
	NULL,
};

const char *import_kind_name(enum import_kind kind)
{
	switch (kind) {
	case KIND_JFR:
		return "jfr";
	case KIND_AGENT:
		return "agent";
	case KIND_CODEHEAP:
		return "codeheap";
	case KIND_JAVACORE:
		return "javacore";
	case KIND_UNKNOWN:
	case KIND__COUNT:
		break;
	}
	return "unknown";
}

struct probe_result importer_probe(const unsigned char *prefix, size_t len,
				   int complete)
{
	struct probe_result best = {NULL, KIND_UNKNOWN, 0};
	size_t i;

	for (i = 0; importer_table[i]; i++) {
		const struct importer_ops *ops = importer_table[i];
		int score = ops->probe(prefix, len, complete);

		if (score > best.score) {
			best.ops = ops;
			best.kind = ops->kind;
			best.score = score > 100 ? 100 : score;
		}
		if (best.score == 100)
			break;
	}
	return best;
}

/* One warning, at a byte offset or (when line is not 0) at a line. */
static void import_vwarn(const struct import_env *env, enum err_code code,
			 uint64_t offset, uint64_t line, const char *fmt,
			 va_list ap) __attribute__((format(printf, 5, 0)));

static void import_vwarn(const struct import_env *env, enum err_code code,
			 uint64_t offset, uint64_t line, const char *fmt,
			 va_list ap)
{
	struct buf b = BUF_INIT;
	struct err e;

	buf_vaddf(&b, fmt, ap);
	err_init(&e);
	if (line)
		err_set_line(&e, code, line > UINT_MAX ? 0 : (unsigned)line, 0,
			     "%s", b.data);
	else
		err_set_at(&e, code, offset, "%s", b.data);
	err_source(&e, env->source);
	env->warn(env->ctx, &e);
	buf_release(&b);
}

void import_warnf(const struct import_env *env, enum err_code code,
		  uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	import_vwarn(env, code, offset, 0, fmt, ap);
	va_end(ap);
}

void import_warn_line(const struct import_env *env, enum err_code code,
		      uint64_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	import_vwarn(env, code, ERR_NO_OFFSET, line, fmt, ap);
	va_end(ap);
}
