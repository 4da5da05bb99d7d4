/*
 * The flame graph as one SVG file: the triage report's drawing
 * (util/flame.h) of query_flame()'s nodes, standalone, over the
 * caller's query.  Nothing is drawn here.
 */
#include "export/export.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/flame.h"

int export_svg(struct query *q, struct buf *out, struct err *e)
{
	struct flame_node *fl;
	size_t n;

	if (query_flame(q, &fl, &n, e) < 0)
		return ERR_FAIL;
	if (!n)
		return err_set(e, ERR_USAGE,
			       "--format=svg: the %s samples that pass the "
			       "filters carry no bytes: nothing to draw",
			       sample_kind_name(query_kind(q)));
	flame_svg(out, fl, n, sample_kind_name(query_kind(q)), true);
	flame_free(fl, n);
	return 0;
}
