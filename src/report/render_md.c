/* placeholder */
#include "report/report.h"
#include "util/buf.h"
void report_render_md(const struct report *r, struct buf *out)
{
	report_render_text(r, out);
}
void report_render_html(const struct report *r, struct buf *out)
{
	report_render_text(r, out);
}
