/*
 * Drawing primitives over ncurses, and what the terminal can do: colours
 * (256, 8, or none under NO_COLOR, TERM=vt100 and the like) and whether
 * bars and boxes may use UTF-8 (only when the locale's charset is).
 * Every primitive clips to the screen, so that a view drawn for one size
 * is safe at any other.  Views draw through these, never with raw curses
 * calls, so that the fallbacks hold everywhere.
 */
#ifndef HS_TUI_SCREEN_H
#define HS_TUI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a cell is drawn as; mapped to colour pairs or attributes. */
enum style {
	ST_NORMAL,
	ST_TITLE,   /* the view tabs */
	ST_TAB,	    /* the current view's tab */
	ST_HEADER,  /* column headings */
	ST_CURSOR,  /* the selected row */
	ST_STATUS,  /* the status line */
	ST_BAR,	    /* bars and charts */
	ST_BAR2,    /* a second series */
	ST_RANGE,   /* the selected time range */
	ST_ERROR,   /* messages about mistakes */
	ST_SUSPECT, /* leak suspects */
	ST_DIM,	    /* secondary text */
	ST_GREW,    /* a row that grew beyond noise (against the baseline) */
	ST_SHRANK,  /* a row that shrank beyond noise */
	ST__COUNT
};

struct screen {
	int rows, cols;
	bool utf8;
	int colours; /* 0, 8 or 256 */
	/* the charset's pieces, UTF-8 or ASCII */
	const char *ellipsis, *vline, *tee, *corner, *open, *closed, *leaf;
};

extern struct screen scr;

/* Set up the terminal (locale, colours, keys, mouse).  <0 when there is
 * no terminal to draw on (TERM unset, unknown, or one that cannot place
 * the cursor), with the reason in why. */
int screen_init(char *why, size_t why_size);
void screen_end(void);
/* After a resize: the new size into scr. */
void screen_size(void);

void screen_clear(void);
/* Text at (y, x), at most w columns, clipped to the screen; returns
 * the columns used.  Non-printable bytes are shown as '?'. */
int screen_put(int y, int x, int w, enum style st, const char *s);
int screen_putf(int y, int x, int w, enum style st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Fill w columns of row y from x with spaces in style st. */
void screen_fill(int y, int x, int w, enum style st);
/* A horizontal bar of frac (0..1) of w columns, eighths in UTF-8. */
void screen_bar(int y, int x, int w, double frac, enum style st);
/* One column of a vertical chart: height h ending at row bottom, the
 * top frac (0..1) of it filled, eighths in UTF-8. */
void screen_column(int bottom, int x, int h, double frac, enum style st);
void screen_show(void);

#endif
