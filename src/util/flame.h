/*
 * A flame graph drawn as SVG: one drawing for the triage report's HTML
 * page (embedded, styled by the page's CSS) and for `heapsift export
 * --format=svg` (a standalone file carrying the same styles and the zoom
 * script itself), so that the picture attached to a case and the one
 * exported are the same.  It draws nodes already laid out (the query
 * layer's query_flame() cuts the call tree for it): callers at the top,
 * allocating frames below, width the share of the root's bytes.  It
 * chooses nothing and knows nothing of stores or queries.
 */
#ifndef HS_FLAME_H
#define HS_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

/* A node of the flame graph, parents before their children. */
struct flame_node {
	char *label;	 /* owned: flame_free() */
	uint32_t parent; /* UINT32_MAX for the root */
	uint32_t depth;
	int64_t bytes;
	uint64_t samples;
	double x; /* left edge, share of the root's bytes */
};

/* Free nodes[0..n) and their labels. */
void flame_free(struct flame_node *nodes, size_t n);

/*
 * Append the <svg> element of the flame graph of nodes[0..n) (n >= 1)
 * of kind (a sample kind's name, for the title).  Every name is made
 * safe (buf_add_printable: no control bytes, no invalid UTF-8) and then
 * XML-escaped, so the output is well-formed XML.  standalone: an XML
 * declaration first, and the styles and the click-to-zoom script inside
 * the element, so that the file is complete alone; otherwise the
 * embedding page supplies flame_css and flame_script.
 */
void flame_svg(struct buf *out, const struct flame_node *nodes, size_t n,
	       const char *kind, bool standalone);

/* The flame graph's own CSS rules and script (the HTML page has them in
 * its <style> and <script>). */
extern const char flame_css[];
extern const char flame_script[];

#endif
