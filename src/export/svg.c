/*
 * The flame graph as one SVG file: the triage report's drawing
 * (report/flame_svg.c), standalone, over the caller's query.  Nothing
 * is drawn here.
 */
#include "export/export.h"
#include "report/flame_svg.h"
#include "util/buf.h"
#include "util/err.h"

int export_svg(struct query *q, struct buf *out, struct err *e)
{
	struct report_flame_node *fl;
	size_t n;

	if (report_flame_build(q, &fl, &n, e) < 0)
		return ERR_FAIL;
	if (!n)
		return err_set(e, ERR_USAGE,
			       "--format=svg: the %s samples that pass the "
			       "filters carry no bytes: nothing to draw",
			       sample_kind_name(query_kind(q)));
	report_flame_svg(out, fl, n, sample_kind_name(query_kind(q)), true);
	report_flame_free(fl, n);
	return 0;
}
