/*
 * The flame graph's SVG; see flame.h.
 */
#include "util/flame.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/human.h"

const char flame_css[] = ".flame g:hover rect{stroke:#000;stroke-width:.5}"
			 ".flame text{pointer-events:none}";

/* Zoom where scripts run: a click on a frame widens it to the whole
 * graph; a click on the root goes back.  Nothing needs it to read. */
const char flame_script[] =
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

static void h(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;

	if (!s)
		s = "";
	buf_add_printable(&c, s, strlen(s));
	buf_add_xml(out, c.data, c.len);
	buf_release(&c);
}

void flame_free(struct flame_node *nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(nodes[i].label);
	free(nodes);
}

void flame_svg(struct buf *out, const struct flame_node *fl, size_t n,
	       const char *kind, bool standalone)
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
			 flame_css);
	for (i = 0; i < n; i++) {
		const struct flame_node *fn = &fl[i];
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
			buf_add_printable(&lb, fn->label, strlen(fn->label));
			if (lb.len > chars) {
				/* cut on a character boundary */
				size_t cut = chars - 2;

				while (cut && ((unsigned char)lb.data[cut] &
					       0xc0) == 0x80)
					cut--;
				buf_setlen(&lb, cut);
				buf_adds(&lb, "..");
			}
			buf_add_xml(out, lb.data, lb.len);
			buf_adds(out, "</text>");
			buf_release(&lb);
		}
		buf_adds(out, "</g>\n");
	}
	if (standalone)
		buf_addf(out, "<script><![CDATA[%s]]></script>\n",
			 flame_script);
	buf_adds(out, "</svg>\n");
}
