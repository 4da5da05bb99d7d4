/*
 * The flame graph as SVG: one drawing for the triage report's HTML page
 * (embedded, styled by the page's CSS) and for `heapsift export
 * --format=svg` (a standalone file carrying the same styles and the zoom
 * script itself).  It draws the call tree of query_tree(), callers at
 * the top, allocating frames below, width the share of the bytes; it
 * does not choose the kind or the filters: the caller's query does.
 */
#ifndef HS_REPORT_FLAME_SVG_H
#define HS_REPORT_FLAME_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

struct buf;
struct err;

/*
 * The nodes to draw, from q's call tree: those of at least 0.2% of the
 * root's bytes (the rest would be thinner than a pixel) whose parent is
 * drawn, parents first.  *out (owned by the caller: free each label and
 * the array, report_flame_free()) is NULL with *n 0 when the tree has
 * no bytes.  <0 with e set when the store is damaged.
 */
int report_flame_build(struct query *q, struct report_flame_node **out,
		       size_t *n, struct err *e);
void report_flame_free(struct report_flame_node *nodes, size_t n);

/*
 * Append the <svg> element of the flame graph of nodes[0..n) (n >= 1)
 * of kind (a sample kind's name, for the title).  standalone: an XML
 * declaration first, and the styles and the click-to-zoom script inside
 * the element, so that the file is complete alone; otherwise the
 * embedding page supplies report_flame_css and report_flame_script.
 */
void report_flame_svg(struct buf *out, const struct report_flame_node *nodes,
		      size_t n, const char *kind, bool standalone);

/* The flame graph's own CSS rules and script (the HTML page has them in
 * its <style> and <script>). */
extern const char report_flame_css[];
extern const char report_flame_script[];

/* s escaped for XML text and attributes (the five entities only). */
void report_xml_escape(struct buf *out, const char *s, size_t len);

#endif
