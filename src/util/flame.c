/*
 * The flame graph's SVG; see flame.h.  The labels are cut here, not by
 * the script, so that the picture reads the same where no script runs
 * (an <img>, a ticket's preview): a monospaced font makes a label's
 * width its number of characters times FLAME_CW.
 */
#include "util/flame.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/human.h"
#include "util/rx.h"

/* The drawing's width, a frame's height, the frames' font size and the
 * width its characters are counted at: 0.6 em is the advance of the
 * usual monospaced fonts (DejaVu Sans Mono 0.602, Liberation Mono
 * 0.600, Courier 0.600), with room to spare. */
#define FLAME_W	 1200.0
#define FLAME_RH 18.0
#define FLAME_CW 7.3
/* A label's room: its rectangle less 3 px each side. */
#define FLAME_PAD 3.0

const char flame_css[] =
	".flame text{font:12px monospace;fill:#000}"
	".flame .ttl{font:bold 16px sans-serif}"
	".flame .fr{cursor:pointer}"
	".flame .fr:hover rect{stroke:#000;stroke-width:.5}"
	".flame .fr text{pointer-events:none}"
	".flame .fr.hl rect{fill:#e040e0}"
	".flame .btn{cursor:pointer;fill:#0645ad;text-decoration:underline}";

/* Where scripts run: zoom, reset and search (flame.h).  The labels are
 * cut again only when a frame's width changes (zoom) or where the
 * browser's monospaced font is wider than FLAME_CW allows (data-refit
 * counts those, so that a test can tell the drawing was right alone).
 * Reset puts back the attributes read at load, so that it restores the
 * drawing exactly. */
const char flame_script[] =
	"(function(){var s=document.getElementById('flame');if(!s)return;"
	"var W=+s.getAttribute('data-width'),CW=+s.getAttribute('data-cw'),"
	"fr=[].slice.call(s.querySelectorAll('g.fr')),"
	"m=s.querySelector('.fmatch'),orig=[],refit=0,last='';"
	"function A(e,k){return +e.getAttribute(k);}"
	"function nm(g){return g.querySelector('title').textContent"
	".split('\\n')[0];}"
	"function sh(n){var e=n.indexOf(':'),p=(e<0?n:n.slice(0,e))"
	".split('.');return p.length<3?n:p.slice(-2).join('.')+"
	"(e<0?'':n.slice(e));}"
	"function fit(g,w){var t=g.querySelector('text'),n=nm(g),"
	"c=Math.floor((w-6)/CW),l;if(n.length>c)n=sh(n);"
	"l=c<3?'':n.length>c?n.slice(0,c-1)+'\\u2026':n;t.textContent=l;"
	"while(l&&t.getComputedTextLength()>w-6){l=l.length>4?"
	"l.slice(0,l.length-2)+'\\u2026':'';t.textContent=l;}}"
	"fr.forEach(function(g){var r=g.querySelector('rect'),"
	"t=g.querySelector('text'),w=A(r,'width');"
	"if(t.textContent&&t.getComputedTextLength()>w-6+0.01){"
	"fit(g,w);refit++;}"
	"orig.push([r.getAttribute('x'),r.getAttribute('width'),"
	"t.getAttribute('x'),t.textContent]);});"
	"s.setAttribute('data-refit',refit);"
	"function reset(){fr.forEach(function(g,i){var r=g.querySelector("
	"'rect'),t=g.querySelector('text'),o=orig[i];g.style.display='';"
	"r.setAttribute('x',o[0]);r.setAttribute('width',o[1]);"
	"t.setAttribute('x',o[2]);t.textContent=o[3];});}"
	"function zoom(z){var x0=A(z,'data-x'),w0=A(z,'data-w'),e=1e-9;"
	"if(w0<=0)return;fr.forEach(function(g){var x=A(g,'data-x'),"
	"w=A(g,'data-w'),r=g.querySelector('rect'),t=g.querySelector("
	"'text'),a=Math.max(0,(x-x0)/w0*W),b=Math.min(W,(x+w-x0)/w0*W);"
	"if(x+w<=x0+e||x>=x0+w0-e||b-a<=0){g.style.display='none';"
	"return;}g.style.display='';r.setAttribute('x',a.toFixed(2));"
	"r.setAttribute('width',Math.max(b-a-0.5,0).toFixed(2));"
	"t.setAttribute('x',(a+3).toFixed(2));fit(g,Math.max(b-a-0.5,0));"
	"});}"
	"function search(p){var re=null,cov=[],share=0,k=0;last=p||'';"
	"if(p){try{re=new RegExp(p);}catch(x){m.textContent="
	"'not a regex: '+p;return NaN;}}"
	"fr.forEach(function(g,i){var pi=A(g,'data-p'),"
	"hit=!!re&&re.test(nm(g)),up=pi>=0&&cov[pi];cov[i]=hit||up;"
	"g.classList.toggle('hl',hit);if(hit){k++;if(!up)share+="
	"A(g,'data-w');}});"
	"m.textContent=re?'Matched: '+(100*share).toFixed(2)+'% of the '+"
	"s.getAttribute('data-unit')+' ('+k+' frames)':'';return share;}"
	"function ask(){var p=window.prompt('Search frames (a regex):',"
	"last);if(p!==null)search(p);}"
	"fr.forEach(function(g){g.addEventListener('click',function(){"
	"zoom(g);});});"
	"[].forEach.call(s.querySelectorAll('.btn'),function(b){"
	"b.style.visibility='visible';b.addEventListener('click',"
	"b.classList.contains('fsearch')?ask:reset);});"
	"document.addEventListener('keydown',function(ev){"
	"if(ev.key==='/'||(ev.ctrlKey&&ev.key==='f')){ev.preventDefault();"
	"ask();}else if(ev.key==='Escape'){search('');reset();}});"
	"window.flameSearch=search;window.flameZoom=zoom;"
	"window.flameReset=reset;})();";

static void h(struct buf *out, const char *s, size_t len)
{
	struct buf c = BUF_INIT;

	buf_add_printable(&c, s, len);
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

enum flame_frame flame_frame_of(const char *label,
				const struct rx_user *library)
{
	const char *dot, *end;

	if (!label || !*label || *label == '[' || *label == '(' ||
	    strstr(label, "::"))
		return FLAME_FRAME_NATIVE;
	/* "class.method" with the line after a ':' */
	end = strchr(label, ':');
	dot = strchr(label, '.');
	if (!dot || (end && dot > end))
		return FLAME_FRAME_NATIVE;
	if (library && rx_user_match(library, label))
		return FLAME_FRAME_LIBRARY;
	return FLAME_FRAME_APP;
}

const char *flame_frame_name(enum flame_frame f)
{
	static const char *const names[FLAME_FRAME__COUNT] = {
		[FLAME_FRAME_ROOT] = "all samples",
		[FLAME_FRAME_APP] = "application",
		[FLAME_FRAME_LIBRARY] = "JDK / library",
		[FLAME_FRAME_NATIVE] = "native / VM",
		[FLAME_FRAME_CLASS] = "allocated class",
		[FLAME_FRAME_THREAD] = "thread",
	};

	return f > 0 && f < FLAME_FRAME__COUNT ? names[f] : "frame";
}

/* HSL (h in degrees, s and l 0..1) as "#rrggbb". */
static const char *hsl(double hue, double s, double l, char *out)
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(hue, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
	double r = 0, g = 0, b = 0;

	if (hp < 1)
		r = c, g = x;
	else if (hp < 2)
		r = x, g = c;
	else if (hp < 3)
		g = c, b = x;
	else if (hp < 4)
		g = x, b = c;
	else if (hp < 5)
		r = x, b = c;
	else
		r = c, b = x;
	snprintf(out, FLAME_COLOUR_SIZE, "#%02x%02x%02x",
		 (unsigned)lround((r + m) * 255),
		 (unsigned)lround((g + m) * 255),
		 (unsigned)lround((b + m) * 255));
	return out;
}

const char *flame_colour(enum flame_frame f, const char *label, char *out)
{
	/* per kind: the hue's base and spread, saturation, lightness's
	 * base and spread; the spread keeps neighbours apart, and every
	 * fill stays light enough for black text */
	static const double pal[FLAME_FRAME__COUNT][5] = {
		[FLAME_FRAME_ROOT] = {0, 0, 0, 0.80, 0},
		[FLAME_FRAME_APP] = {95, 30, 0.55, 0.55, 0.10},
		[FLAME_FRAME_LIBRARY] = {172, 18, 0.50, 0.58, 0.10},
		[FLAME_FRAME_NATIVE] = {0, 16, 0.70, 0.64, 0.06},
		[FLAME_FRAME_CLASS] = {205, 15, 0.75, 0.70, 0.06},
		[FLAME_FRAME_THREAD] = {275, 12, 0.30, 0.80, 0.04},
	};
	const double *p;
	unsigned hash = 0;
	double u, v;

	if (f <= 0 || f >= FLAME_FRAME__COUNT)
		f = FLAME_FRAME_APP;
	p = pal[f];
	for (; label && *label; label++)
		hash = hash * 31 + (unsigned char)*label;
	u = label ? (double)(hash % 1000) / 1000 : 0.5;
	v = label ? (double)((hash / 1000) % 1000) / 1000 : 0.5;
	return hsl(p[0] + p[1] * u, p[2], p[3] + p[4] * v, out);
}

/* Columns a printable string takes in a monospaced font: a code point
 * from U+1100 up (the wide scripts start there) counts two, as a
 * terminal counts it, which is the safe side for the others. */
static size_t cols_of(const char *s, size_t len, size_t *cut_at, size_t max)
{
	size_t i = 0, cols = 0;

	*cut_at = len;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		size_t w = c < 0xe1 ? 1 : 2;

		if (i + n > len)
			n = len - i;
		if (cols + w > max && *cut_at == len)
			*cut_at = i;
		cols += w;
		i += n;
	}
	return cols;
}

/* Where a frame's name reads without its package: "HashMap.resize:69"
 * of "java.util.HashMap.resize:69" (the class's simple name, the
 * method, the line); s itself where there is no package. */
static size_t short_start(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	size_t end = colon ? (size_t)(colon - s) : len, i, dots = 0;

	for (i = end; i > 0; i--)
		if (s[i - 1] == '.' && ++dots == 2)
			return i;
	return 0;
}

/* s (printable, len bytes) XML-escaped, to fit room px: whole, else
 * without its package (short, for a frame's name), else cut with an
 * ellipsis; nothing where fewer than 3 characters fit. */
static void add_fitted(struct buf *out, const char *s, size_t len, double room,
		       bool shorten)
{
	size_t cols = room > 0 ? (size_t)(room / FLAME_CW) : 0, cut;

	if (cols < 3)
		return;
	if (cols_of(s, len, &cut, cols) <= cols) {
		buf_add_xml(out, s, len);
		return;
	}
	if (shorten) {
		size_t k = short_start(s, len);

		s += k;
		len -= k;
		if (cols_of(s, len, &cut, cols) <= cols) {
			buf_add_xml(out, s, len);
			return;
		}
	}
	cols_of(s, len, &cut, cols - 1);
	buf_add_xml(out, s, cut);
	buf_adds(out, "\xe2\x80\xa6"); /* U+2026 */
}

/* v with a comma between each three digits, as a fact to read. */
static void add_grouped(struct buf *out, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, v), i;

	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf_addch(out, ',');
		buf_addch(out, d[i]);
	}
}

/* One line of text of the header at y, cut to the width. */
static void header_line(struct buf *out, double y, const char *s, size_t len)
{
	struct buf c = BUF_INIT;

	buf_add_printable(&c, s, len);
	buf_addf(out, "<text x=\"10\" y=\"%.0f\">", y);
	add_fitted(out, c.data, c.len, FLAME_W - 20, false);
	buf_adds(out, "</text>\n");
	buf_release(&c);
}

/* The title, the total, the caller's lines and the legend with the
 * controls; returns where the frames start. */
static double header(struct buf *out, const struct flame_node *fl, size_t n,
		     const struct flame_info *in, uint32_t depth, double *h_out)
{
	bool threads = false;
	size_t i;
	const char *p = in->lines;
	double y = 22, x;
	struct buf t = BUF_INIT;
	char b[32], col[FLAME_COLOUR_SIZE];
	int f;

	buf_adds(out, "<text class=\"ttl\" x=\"10\" y=\"22\">Flame graph: ");
	h(out, in->kind, strlen(in->kind));
	buf_addf(out, ", width in %s</text>\n", in->unit);
	buf_addf(&t, "Total %s (", human_bytes(fl[0].bytes, b, sizeof(b)));
	add_grouped(&t, fl[0].bytes > 0 ? (uint64_t)fl[0].bytes : 0);
	buf_addf(&t, " %s) in ", in->unit);
	add_grouped(&t, fl[0].samples);
	buf_adds(&t, " samples");
	y += 20;
	header_line(out, y, t.data, t.len);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		y += 16;
		header_line(out, y, p, len);
		p += len + (nl ? 1 : 0);
	}
	y += 20;
	x = 10;
	/* threads only where there are thread frames (--threads) */
	for (i = 0; i < n && !threads; i++)
		threads = fl[i].frame == FLAME_FRAME_THREAD;
	for (f = FLAME_FRAME_APP; f < FLAME_FRAME__COUNT; f++) {
		const char *name = flame_frame_name(f);

		if (f == FLAME_FRAME_THREAD && !threads)
			continue;

		buf_addf(out,
			 "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
			 "height=\"12\" fill=\"%s\"/><text x=\"%.0f\" "
			 "y=\"%.0f\">%s</text>\n",
			 x, y - 10, flame_colour(f, NULL, col), x + 16, y,
			 name);
		x += 16 + FLAME_CW * (double)strlen(name) + 18;
	}
	/* the controls, shown by the script (they do nothing without it) */
	buf_addf(out,
		 "<text class=\"btn fsearch\" x=\"%.0f\" y=\"%.0f\" "
		 "style=\"visibility:hidden\">Search</text>"
		 "<text class=\"btn freset\" x=\"%.0f\" y=\"%.0f\" "
		 "style=\"visibility:hidden\">Reset zoom</text>\n"
		 "<text class=\"fmatch\" text-anchor=\"end\" x=\"%.0f\" "
		 "y=\"%.0f\"></text>\n",
		 x + 10, y, x + 10 + FLAME_CW * 8, y, FLAME_W - 10, y);
	buf_release(&t);
	*h_out = y + 10 + (depth + 1) * FLAME_RH + 4;
	return y + 10;
}

void flame_svg(struct buf *out, const struct flame_node *fl, size_t n,
	       const struct flame_info *in)
{
	const double W = FLAME_W, RH = FLAME_RH;
	struct rx_user *lib = NULL;
	uint32_t depth = 0;
	size_t i;
	double top, height;
	struct buf body = BUF_INIT, lb = BUF_INIT;
	char b[32], col[FLAME_COLOUR_SIZE];
	struct err e;

	if (in->library_re) {
		err_init(&e);
		lib = rx_user_new(in->library_re, &e);
	}
	for (i = 0; i < n; i++)
		if (fl[i].depth > depth)
			depth = fl[i].depth;
	if (in->standalone)
		buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	top = header(&body, fl, n, in, depth, &height);
	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" "
		 "id=\"flame\" width=\"%s\"%s viewBox=\"0 0 %.0f %.0f\" "
		 "data-width=\"%.0f\" data-cw=\"%.1f\" data-unit=\"%s\" "
		 "role=\"img\"><title>Flame graph: ",
		 in->standalone ? "1200" : "100%",
		 in->standalone ? "" : " preserveAspectRatio=\"xMinYMin\"", W,
		 height, W, FLAME_CW, in->unit);
	h(out, in->kind, strlen(in->kind));
	buf_addf(out, " (%s)</title>\n", in->unit);
	if (in->standalone)
		buf_addf(out,
			 "<style>svg{background:#fff}%s</style>\n"
			 "<rect width=\"100%%\" height=\"100%%\" "
			 "fill=\"#fff\"/>\n",
			 flame_css);
	buf_add(out, body.data, body.len);
	for (i = 0; i < n; i++) {
		const struct flame_node *fn = &fl[i];
		double share = (double)fn->bytes / (double)fl[0].bytes;
		double x = fn->x * W, w = share * W, rw = w > 0.5 ? w - 0.5 : w;
		enum flame_frame kind = fn->frame ? (enum flame_frame)fn->frame
					: i ? flame_frame_of(fn->label, lib)
					    : FLAME_FRAME_ROOT;

		buf_addf(out,
			 "<g class=\"fr\" data-x=\"%.6f\" data-w=\"%.6f\" "
			 "data-p=\"%" PRId64 "\"><title>",
			 fn->x, share,
			 fn->parent == UINT32_MAX ? (int64_t)-1
						  : (int64_t)fn->parent);
		h(out, fn->label, strlen(fn->label));
		buf_addf(out, "\n%s, %s (", flame_frame_name(kind),
			 human_bytes(fn->bytes, b, sizeof(b)));
		add_grouped(out, fn->bytes > 0 ? (uint64_t)fn->bytes : 0);
		buf_addf(out, " %s), %.2f%%, ", in->unit, 100 * share);
		add_grouped(out, fn->samples);
		buf_adds(out, " samples</title>");
		buf_addf(out,
			 "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			 "height=\"%.1f\" fill=\"%s\"/>",
			 x, top + fn->depth * RH, rw, RH - 1,
			 flame_colour(kind, fn->label, col));
		buf_addf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + FLAME_PAD,
			 top + fn->depth * RH + 13);
		buf_reset(&lb);
		buf_add_printable(&lb, fn->label, strlen(fn->label));
		add_fitted(out, lb.data, lb.len, rw - 2 * FLAME_PAD, true);
		buf_adds(out, "</text></g>\n");
	}
	if (in->standalone)
		buf_addf(out, "<script><![CDATA[%s]]></script>\n",
			 flame_script);
	buf_adds(out, "</svg>\n");
	buf_release(&body);
	buf_release(&lb);
	rx_user_free(lib);
}
