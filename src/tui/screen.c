/*
 * ncurses set-up and clipped drawing (screen.h).  Colour is decided once:
 * NO_COLOR (https://no-color.org) or a terminal without colours gives
 * none, and the styles fall back to reverse video and bold so that the
 * cursor and the status line stay visible; 256 colours give softer bars.
 * UTF-8 pieces are used only when nl_langinfo says the locale is UTF-8:
 * ncursesw would otherwise print them as garbage.
 */
#include "tui/screen.h"
#include "util/buf.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct screen scr;

static attr_t style_attr[ST__COUNT];

static void styles(void)
{
	static const struct {
		short fg8, bg8, fg256, bg256;
		attr_t extra, mono;
	} def[ST__COUNT] = {
		[ST_NORMAL] = {-1, -1, -1, -1, 0, A_NORMAL},
		[ST_TITLE] = {COLOR_WHITE, COLOR_BLUE, 255, 24, 0, A_REVERSE},
		[ST_TAB] = {COLOR_BLACK, COLOR_CYAN, 16, 117, A_BOLD, A_BOLD},
		[ST_HEADER] = {COLOR_YELLOW, -1, 179, -1, A_BOLD, A_BOLD},
		[ST_CURSOR] = {COLOR_BLACK, COLOR_CYAN, 16, 153, 0, A_REVERSE},
		[ST_STATUS] = {COLOR_WHITE, COLOR_BLUE, 255, 24, 0, A_REVERSE},
		[ST_BAR] = {COLOR_GREEN, -1, 71, -1, 0, A_NORMAL},
		[ST_BAR2] = {COLOR_CYAN, -1, 74, -1, 0, A_NORMAL},
		[ST_RANGE] = {COLOR_BLACK, COLOR_YELLOW, 16, 222, 0, A_REVERSE},
		[ST_ERROR] = {COLOR_RED, -1, 203, -1, A_BOLD, A_BOLD},
		[ST_SUSPECT] = {COLOR_RED, -1, 203, -1, 0, A_BOLD},
		[ST_DIM] = {COLOR_BLUE, -1, 244, -1, 0, A_DIM},
		[ST_GREW] = {COLOR_RED, -1, 203, -1, A_BOLD, A_BOLD},
		[ST_SHRANK] = {COLOR_GREEN, -1, 71, -1, A_BOLD, A_UNDERLINE},
	};
	int i;

	for (i = 0; i < ST__COUNT; i++) {
		if (!scr.colours) {
			style_attr[i] = def[i].mono;
			continue;
		}
		if (i == ST_NORMAL) {
			style_attr[i] = A_NORMAL;
			continue;
		}
		if (scr.colours >= 256)
			init_pair((short)i, def[i].fg256, def[i].bg256);
		else
			init_pair((short)i, def[i].fg8, def[i].bg8);
		style_attr[i] = COLOR_PAIR(i) | def[i].extra;
	}
}

int screen_init(char *why, size_t why_size)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	const char *cup;

	setlocale(LC_ALL, "");
	scr.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	/* newterm, not initscr, which would print curses' own words and
	 * exit on a terminal it does not know */
	if (!term || !*term) {
		snprintf(why, why_size,
			 "TERM is not set: the browser needs to know the "
			 "terminal (TERM=xterm-256color, say)");
		return -1;
	}
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(why, why_size,
			 "the terminal TERM=%s is not one curses knows "
			 "(no terminfo entry)",
			 term);
		return -1;
	}
	/* a terminal that cannot place the cursor (TERM=dumb) would get
	 * a blank screen that answers keys unseen */
	cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		snprintf(why, why_size,
			 "the terminal TERM=%s cannot place the cursor, which "
			 "the browser needs; the other commands print to any "
			 "terminal",
			 term);
		return -1;
	}
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* presses as they come: curses' click detection would hold each
	 * one back for mouseinterval, and tui.c tells double clicks itself */
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	scr.colours = 0;
	if (has_colors() && !(nc && *nc)) {
		start_color();
		use_default_colors();
		scr.colours = COLORS >= 256 ? 256 : COLORS >= 8 ? 8 : 0;
	}
	styles();
	if (scr.utf8) {
		scr.ellipsis = "\u2026";
		scr.vline = "\u2502";
		scr.tee = "\u251c";
		scr.corner = "\u2514";
		scr.open = "\u25be";
		scr.closed = "\u25b8";
		scr.leaf = " ";
	} else {
		scr.ellipsis = "~";
		scr.vline = "|";
		scr.tee = "|";
		scr.corner = "`";
		scr.open = "-";
		scr.closed = "+";
		scr.leaf = " ";
	}
	screen_size();
	return 0;
}

void screen_end(void)
{
	endwin();
}

void screen_size(void)
{
	getmaxyx(stdscr, scr.rows, scr.cols);
	if (scr.rows < 0)
		scr.rows = 0;
	if (scr.cols < 0)
		scr.cols = 0;
}

void screen_clear(void)
{
	erase();
}

/* Bytes of the next character at s that may go to the terminal as they
 * are (utf8_printable_len: no controls, C1 controls, line separators,
 * bidi controls or invalid UTF-8: names come from the files), or 0: one
 * byte shown as '?'. */
static int seq_len(const unsigned char *s)
{
	return (int)utf8_printable_len(s, strnlen((const char *)s, 4));
}

int screen_put(int y, int x, int w, enum style st, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int used = 0;

	if (y < 0 || y >= scr.rows || x >= scr.cols || w <= 0)
		return 0;
	if (x < 0) {
		w += x;
		x = 0;
	}
	if (x + w > scr.cols)
		w = scr.cols - x;
	/* ncurses may scroll when the last cell is written: never write
	 * it */
	if (y == scr.rows - 1 && x + w >= scr.cols)
		w = scr.cols - x - 1;
	attrset(style_attr[st]);
	move(y, x);
	while (*p && used < w) {
		int n = seq_len(p);

		if (n == 0) {
			addch('?');
			n = 1;
		} else if (n > 1 && !scr.utf8) {
			addch('?');
		} else {
			addnstr((const char *)p, n);
		}
		p += n;
		used++;
	}
	attrset(A_NORMAL);
	return used;
}

int screen_putf(int y, int x, int w, enum style st, const char *fmt, ...)
{
	char b[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	return screen_put(y, x, w, st, b);
}

void screen_fill(int y, int x, int w, enum style st)
{
	char b[512];

	if (w <= 0)
		return;
	if (w > (int)sizeof(b) - 1)
		w = (int)sizeof(b) - 1;
	memset(b, ' ', (size_t)w);
	b[w] = '\0';
	screen_put(y, x, w, st, b);
}

static const char *const eighths_h[] = {
	"",	  "\u258f", "\u258e", "\u258d",
	"\u258c", "\u258b", "\u258a", "\u2589",
};
static const char *const eighths_v[] = {
	" ",	  "\u2581", "\u2582", "\u2583",
	"\u2584", "\u2585", "\u2586", "\u2587",
};

void screen_bar(int y, int x, int w, double frac, enum style st)
{
	char b[2048];
	size_t len = 0;
	int full, part, i;

	if (w <= 0 || w > 500)
		return;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	full = (int)(frac * w * 8 + 0.5);
	part = full % 8;
	full /= 8;
	for (i = 0; i < full; i++) {
		const char *c = scr.utf8 ? "\u2588" : "#";

		memcpy(b + len, c, strlen(c));
		len += strlen(c);
	}
	if (part && full < w) {
		const char *c = scr.utf8    ? eighths_h[part]
				: part >= 4 ? "#"
					    : "";

		memcpy(b + len, c, strlen(c));
		len += strlen(c);
	}
	b[len] = '\0';
	screen_put(y, x, w, st, b);
}

void screen_column(int bottom, int x, int h, double frac, enum style st)
{
	int full, part, i;

	if (h <= 0)
		return;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	full = (int)(frac * h * 8 + 0.5);
	part = full % 8;
	full /= 8;
	for (i = 0; i < full; i++)
		screen_put(bottom - i, x, 1, st, scr.utf8 ? "\u2588" : "#");
	if (part && full < h)
		screen_put(bottom - full, x, 1, st,
			   scr.utf8    ? eighths_v[part]
			   : part >= 4 ? "#"
				       : ".");
}

void screen_show(void)
{
	refresh();
}
