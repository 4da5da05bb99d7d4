/*
 * A flame graph drawn as SVG: one drawing for the triage report's HTML
 * page (embedded, styled by the page's CSS, as wide as the page) and
 * for `heapsift export --format=svg` (a standalone file carrying the
 * same styles and the script itself), so that the picture attached to
 * a case and the one exported are the same.  It draws nodes already
 * laid out (the query layer's query_flame() cuts the call tree for it):
 * callers at the top, allocating frames below, width the share of the
 * root's bytes.  Above the frames it says what the picture is (its
 * title, the kind, the unit, the total, the lines its caller gives:
 * the recordings) and what the colours mean, so that a screenshot of
 * it pasted into a ticket explains itself.  It chooses nothing and
 * knows nothing of stores or queries.
 */
#ifndef HS_FLAME_H
#define HS_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct rx_user;

/*
 * What a frame is, for its colour.  The stores keep no frame type
 * (interpreted, compiled, native), so FLAME_FRAME_GUESS reads it from
 * the label (flame_frame_of()); a node whose maker knows better (the
 * allocated class put at the leaf) says so.
 */
enum flame_frame {
	FLAME_FRAME_GUESS = 0, /* from the label: flame_frame_of() */
	FLAME_FRAME_ROOT,      /* all samples */
	FLAME_FRAME_APP,       /* Java, not in the library */
	FLAME_FRAME_LIBRARY,   /* Java, in the library (the JDK's) */
	FLAME_FRAME_NATIVE,    /* native code or the VM: no Java class */
	FLAME_FRAME_CLASS,     /* the allocated class as a frame */
	FLAME_FRAME_THREAD,    /* a thread as a root (--threads) */
	FLAME_FRAME__COUNT
};

/* A node of the flame graph, parents before their children. */
struct flame_node {
	char *label;	 /* owned: flame_free() */
	uint32_t parent; /* UINT32_MAX for the root */
	uint32_t depth;
	int64_t bytes;
	uint64_t samples;
	double x;  /* left edge, share of the root's bytes */
	int frame; /* enum flame_frame; 0 (a calloc'd node): guessed */
};

/* Free nodes[0..n) and their labels. */
void flame_free(struct flame_node *nodes, size_t n);

/*
 * The kind of a frame labelled label ("class.method:line"), where no
 * one said: native (no "class." part, a C++ "::" name, or a
 * "[bracketed]"/"(parenthesised)" pseudo-frame), else library where
 * library (a compiled user's regex; NULL: none) matches the label, else
 * application.
 */
enum flame_frame flame_frame_of(const char *label,
				const struct rx_user *library);

/*
 * The fill colour of a frame of kind f labelled label ("#rrggbb" in
 * out, FLAME_COLOUR_SIZE bytes): each kind its own hue, as async-profiler's
 * flame graphs colour Java, native and allocated-type frames apart, and
 * the label shading it a little so neighbours stay apart.
 */
#define FLAME_COLOUR_SIZE 8
const char *flame_colour(enum flame_frame f, const char *label, char *out);
/* The legend's words for f ("application", "JDK / library", ...). */
const char *flame_frame_name(enum flame_frame f);

/* What the picture says about itself, above the frames. */
struct flame_info {
	const char *kind; /* the sample kind's name */
	const char *unit; /* of the widths: "bytes" */
	/* lines under the title (the recordings), '\n' between them;
	 * NULL: none.  Borrowed for the call. */
	const char *lines;
	/* the library's regex for flame_frame_of(); NULL: no frame is
	 * the library's.  A pattern that does not compile is the
	 * caller's to refuse first: here it colours nothing as library. */
	const char *library_re;
	/* an XML declaration first, and the styles and the script inside
	 * the element, so that the file is complete alone, drawn at its own
	 * width; otherwise the embedding page supplies flame_css and
	 * flame_script, and the drawing is as wide as its container */
	bool standalone;
};

/*
 * Append the <svg> element of the flame graph of nodes[0..n) (n >= 1).
 * Every name is made safe (buf_add_printable: no control bytes, no
 * invalid UTF-8) and then XML-escaped, so the output is well-formed
 * XML.  Each frame's label is cut, with an ellipsis, to what its
 * rectangle holds at the monospaced font's width, and a frame too narrow
 * for three characters has none; the full name and the numbers are its
 * <title> (a tooltip).
 */
void flame_svg(struct buf *out, const struct flame_node *nodes, size_t n,
	       const struct flame_info *info);

/*
 * The flame graph's own CSS rules and script (the HTML page has them in
 * its <style> and <script>).  The script, where scripts run: a click on
 * a frame zooms to it, "Reset zoom" (or Escape) goes back; "Search"
 * (or the key /) asks for a regex, highlights the frames it matches and
 * says the share of the bytes under them.  window.flameSearch(regex)
 * (returns the share, 0..1), flameZoom(g) and flameReset() do the same
 * from a script.
 */
extern const char flame_css[];
extern const char flame_script[];

#endif
