/*
 * The flame graph's SVG (flame_svg.h), shared by the report's HTML page
 * and `heapsift export --format=svg`: one drawing, so that the picture
 * attached to a case and the one exported are the same.  Every name is
 * cleaned (report_clean: no control bytes, no invalid UTF-8) and then
 * XML-escaped, so the output is well-formed XML.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame_svg.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/human.h"
#include "util/xalloc.h"

const char report_flame_css[] =
	".flame g:hover rect{stroke:#000;stroke-width:.5}"
	".flame text{pointer-events:none}";

/* Zoom where scripts run: a click on a frame widens it to the whole
 * graph; a click on the root goes back.  Nothing needs it to read. */
const char report_flame_script[] =
	"(function(){var s=document.getElementById('flame');if(!s)return;"
	"var W=s.viewBox.baseVal.width,gs=s.querySelectorAll('g');"
	"function zoom(x0,w0){for(var i=0;i<gs.length;i++){var g=gs[i],"
	"x=+g.getAttribute('data-x'),w=+g.getAttribute('data-w'),"
	"r=g.querySelector('rect'),t=g.querySelector('text'),"
	"nx=(x-x0)/w0*W,nw=w/w0*W,out=x+w<=x0+1e-9||x>=x0+w0-1e-9;"
	"g.style.display=out?'none':'';r.setAttribute('x',nx);"
	"r.setAttribute('width',Math.max(nw-0.5,0));"
	"if(t){t.setAttribute('x',nx+3);"
	"t.style.display=nw<26?'none':'';}}}"
	"for(var i=0;i<gs.length;i++){gs[i].addEventListener('click',"
	"function(){zoom(+this.getAttribute('data-x'),"
	"+this.getAttribute('data-w'));});}})();";

void report_xml_escape(struct buf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		switch (s[i]) {
		case '&':
			buf_adds(out, "&amp;");
			break;
		case '<':
			buf_adds(out, "&lt;");
			break;
		case '>':
			buf_adds(out, "&gt;");
			break;
		case '"':
			buf_adds(out, "&quot;");
			break;
		case '\'':
			buf_adds(out, "&#39;");
			break;
		default:
			buf_addch(out, s[i]);
		}
}

static void h(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;

	report_clean(&c, s ? s : "");
	report_xml_escape(out, c.data, c.len);
	buf_release(&c);
}

int report_flame_build(struct query *q, struct report_flame_node **out,
		       size_t *n_out, struct err *e)
{
	const struct query_tree_node *nodes;
	struct query_total total;
	struct report_flame_node *fl;
	size_t n, i, m = 0;
	uint32_t *map;
	double *next_x;

	*out = NULL;
	*n_out = 0;
	if (query_tree(q, false, 0, &nodes, &n, &total, e) < 0)
		return ERR_FAIL;
	if (!n || nodes[0].est_bytes <= 0)
		return 0;
	map = xmalloc(n * sizeof(*map));
	next_x = xcalloc(n, sizeof(*next_x));
	fl = xcalloc(n, sizeof(*fl));
	/* nodes come parents first: a node's x is where its parent's next
	 * child starts */
	for (i = 0; i < n; i++) {
		const struct query_tree_node *t = &nodes[i];
		struct report_flame_node *fn;
		double share =
			(double)t->est_bytes / (double)nodes[0].est_bytes;
		uint32_t p = t->parent;

		map[i] = UINT32_MAX;
		if (i && (p == QUERY_TREE_NONE || map[p] == UINT32_MAX ||
			  share < 0.002))
			continue;
		fn = &fl[m];
		fn->label = xstrdup(t->label);
		fn->parent = i ? map[p] : UINT32_MAX;
		fn->depth = t->depth;
		fn->bytes = t->est_bytes;
		fn->samples = t->samples;
		fn->x = i ? next_x[p] : 0;
		if (i)
			next_x[p] += share;
		next_x[i] = fn->x;
		map[i] = (uint32_t)m++;
	}
	free(map);
	free(next_x);
	*out = fl;
	*n_out = m;
	return 0;
}

void report_flame_free(struct report_flame_node *nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(nodes[i].label);
	free(nodes);
}

void report_flame_svg(struct buf *out, const struct report_flame_node *fl,
		      size_t n, const char *kind, bool standalone)
{
	const double W = 1060, RH = 17;
	uint32_t depth = 0;
	size_t i;
	char b[32];

	for (i = 0; i < n; i++)
		if (fl[i].depth > depth)
			depth = fl[i].depth;
	if (standalone)
		buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" "
		 "id=\"flame\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 "
		 "%.0f %.0f\" role=\"img\"><title>Flame graph: ",
		 W, (depth + 1) * RH + 2, W, (depth + 1) * RH + 2);
	h(out, kind);
	buf_adds(out, "</title>\n");
	if (standalone)
		buf_addf(out,
			 "<style>svg{background:#fff}"
			 "text{font:11px sans-serif}%s</style>\n"
			 "<rect width=\"100%%\" height=\"100%%\" "
			 "fill=\"#fff\"/>\n",
			 report_flame_css);
	for (i = 0; i < n; i++) {
		const struct report_flame_node *fn = &fl[i];
		double share = (double)fn->bytes / (double)fl[0].bytes;
		double x = fn->x * W, w = share * W;
		size_t chars = (size_t)(w / 6.5);
		unsigned hue = 0;
		const char *p;

		for (p = fn->label; *p; p++)
			hue = hue * 31 + (unsigned char)*p;
		buf_addf(out, "<g data-x=\"%.6f\" data-w=\"%.6f\"><title>",
			 fn->x, share);
		h(out, fn->label);
		buf_addf(out, " (%s, %.2f%%, %" PRIu64 " samples)</title>",
			 human_bytes(fn->bytes, b, sizeof(b)), 100 * share,
			 fn->samples);
		buf_addf(out,
			 "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			 "height=\"%.1f\" fill=\"hsl(%u,70%%,%u%%)\"/>",
			 x, fn->depth * RH, w > 0.5 ? w - 0.5 : w, RH - 1,
			 i ? 10 + hue % 45 : 0, i ? 55 + hue % 15 : 80);
		if (chars >= 4) {
			struct buf lb = BUF_INIT;

			buf_addf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3,
				 fn->depth * RH + 12);
			report_clean(&lb, fn->label);
			if (lb.len > chars) {
				/* cut on a character boundary */
				size_t cut = chars - 2;

				while (cut && ((unsigned char)lb.data[cut] &
					       0xc0) == 0x80)
					cut--;
				buf_setlen(&lb, cut);
				buf_adds(&lb, "..");
			}
			report_xml_escape(out, lb.data, lb.len);
			buf_adds(out, "</text>");
			buf_release(&lb);
		}
		buf_adds(out, "</g>\n");
	}
	if (standalone)
		buf_addf(out, "<script><![CDATA[%s]]></script>\n",
			 report_flame_script);
	buf_adds(out, "</svg>\n");
}
