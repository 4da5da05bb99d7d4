/*
 * The code-cache text lexer; see codeheap.h.  Patterns follow the grammar
 * docs/formats/codeheap.md cites (../shared/reference/codeheap-analytics.md),
 * checked against the JDK 17 fixtures; where they are looser than the
 * reference (zero spaces after a comma, optional trailing blanks) it is
 * because real output was.
 */
#include "formats/codeheap/codeheap_lex.h"

#include <string.h>

enum {
	P_TIMING,
	P_JIT_IS,
	P_THREADS,
	P_CACHE_SIZE,
	P_COMMITTED,
	P_SEGMENT,
	P_GRANULES,
	P_STAT,
	P_ZOMBIE,
	P_SEG_START,
	P_SEG_END,
	P_SEG_RESERVED,
	P_COMPILE_ID,
	P_HOTNESS,
	P_FREE_COUNT,
	P_LEGEND,
	P_MAP,
	P_ROW,
	P_FREE,
	P_TOPTEN,
	P_RANGE,
	P_SUM_HEAP,
	P_SUM_TOTAL,
	P_BOUNDS,
	P_BLOBS,
	P_COMPILATION,
	P_COMPILATION23,
	P_STOPPED,
	P_FULL_COUNT,
	P_CODELIST,
	P_NO_MAP,
	P_FUNCTION,
	P_NO_DATA,
	P_LOG,
};

static const char *const patterns[] = {
	[P_TIMING] = "^__ (CodeHeapStateAnalytics lock wait took|"
		     "CodeHeapStateAnalytics total duration|"
		     "Compile & CodeCache \\((?:global|function)\\) lock "
		     "(?:wait|hold) took)\\s+[0-9]+\\.[0-9]+ seconds _+\\s*$",
	[P_JIT_IS] = "^\\s+JIT is :\\s+(on|off)\\s*$",
	[P_THREADS] = "^\\s+Compiler threads :\\s+(\\d+)\\s*$",
	[P_CACHE_SIZE] = "^\\s+(Reserved size|Committed size|Unallocated "
			 "capacity) :\\s+(\\d+) KB\\s*$",
	[P_COMMITTED] =
		"^   CodeHeap committed size (\\d+)K \\(\\d+M\\), "
		"reserved size (\\d+)K \\(\\d+M\\), (\\d+)% occupied\\.",
	[P_SEGMENT] = "^   CodeHeap allocation segment size is (\\d+) bytes\\.",
	[P_GRANULES] = "^   CodeHeap \\(committed part\\) is mapped to (\\d+) "
		       "granules of size (\\d+) bytes\\.",
	[P_STAT] =
		"^\\s*(freeSpace|usedSpace|Tier1 Space|Tier2 Space|Alive "
		"Space|disconnected|not entrant|unloadedSpace|deadSpace|"
		"stubSpace)\\s*=\\s*(\\d+)k, nBlocks_[a-z0-9]+\\s*=\\s*(\\d+),",
	[P_ZOMBIE] = "^ZombieBlocks\\s*=\\s*(\\d+)\\.",
	[P_SEG_START] = "^Segment start\\s+= (0x[0-9a-fA-F]+),",
	[P_SEG_END] = "^Segment end \\(used\\)\\s+= (0x[0-9a-fA-F]+),",
	[P_SEG_RESERVED] = "^Segment end \\(reserved\\)\\s*= (0x[0-9a-fA-F]+),",
	[P_COMPILE_ID] = "^(latest allocated|highest observed) compilation "
			 "id = (\\d+)\\s*$",
	[P_HOTNESS] = "^(min|avg|max)\\. hotness =\\s*(-?\\d+)\\s*$",
	[P_FREE_COUNT] = "^   Free space in .* is distributed over (\\d+) "
			 "free blocks\\.",
	[P_LEGEND] = "^  (.) - (\\S.*?)\\s*$",
	[P_MAP] = "^(0x[0-9a-f]{16}) \\(\\+(0x[0-9a-f]{8})\\): \\|(.*)\\|\\s*$",
	[P_ROW] = "^(0x[0-9a-f]{16}) \\(\\+(0x[0-9a-f]{8})\\)(.*)$",
	[P_FREE] = "^(0x[0-9a-f]{16}): Len\\[\\s*(\\d+)\\] = (0x[0-9a-f]+)"
		   "(?:,\\s*Gap\\[\\s*\\d+\\.\\.\\s*\\d+\\]: (0x[0-9a-f]+) "
		   "bytes,\\s*block count:\\s*(\\d+)( !! permanent gap.*)?)?"
		   "\\s*$",
	[P_TOPTEN] = "^Pos\\s+(\\d+): Block\\s+(\\d+) - size (0x[0-9a-f]+),",
	[P_RANGE] = "^Address range \\[(0x[0-9a-f]+),(0x[0-9a-f]+)\\), "
		    "\\d+k\\s*$",
	[P_SUM_HEAP] = "^(CodeHeap '[^']*'|CodeCache): size=(\\d+)Kb "
		       "used=(\\d+)Kb max_used=(\\d+)Kb free=(\\d+)Kb\\s*$",
	[P_SUM_TOTAL] = "^CodeCache: size=(\\d+)Kb, used=(\\d+)Kb, "
			"max_used=(\\d+)Kb, free=(\\d+)Kb\\s*$",
	[P_BOUNDS] = "^ bounds \\[(0x[0-9a-f]+), (0x[0-9a-f]+), "
		     "(0x[0-9a-f]+)\\]\\s*$",
	[P_BLOBS] = "^ total_blobs=(\\d+),? nmethods=(\\d+),? "
		    "adapters=(\\d+)(?:, full_count=(\\d+))?\\s*$",
	[P_COMPILATION] = "^ compilation: (.*?)\\s*$",
	[P_COMPILATION23] = "^Compilation: (enabled|disabled \\([^)]*\\)), "
			    "stopped_count=(\\d+), restarted_count=(\\d+)\\s*$",
	[P_STOPPED] = "^\\s+stopped_count=(\\d+), restarted_count=(\\d+)\\s*$",
	[P_FULL_COUNT] = "^ full_count=(\\d+)\\s*$",
	[P_CODELIST] = "^(\\d+) (\\d) (\\d) (.+) \\[(0x[0-9a-f]+), "
		       "(0x[0-9a-f]+) - (0x[0-9a-f]+)\\]\\s*$",
	[P_NO_MAP] = "^No .* found in CodeHeap\\.\\s*$",
	[P_FUNCTION] = "(Function '?\\w+'? is not supported|is only available "
		       "as part of function)",
	[P_NO_DATA] = "^No aggregated .*data available",
	[P_LOG] = "^(\\[[0-9.]+s\\]\\[\\w+\\s*\\]|OpenJDK 64-Bit Server VM "
		  "warning:|Java HotSpot\\(TM\\) 64-Bit Server VM warning:|"
		  "\\d+:\\s*$)",
};

static struct rx_table table = RX_TABLE(patterns);

void ch_lexer_init(struct ch_lexer *lx)
{
	rx_match_init(&lx->m);
}

void ch_lexer_release(struct ch_lexer *lx)
{
	rx_match_release(&lx->m);
}

static bool match(struct ch_lexer *lx, int p, const char *s, size_t len)
{
	return rx_match(&table, (size_t)p, s, len, &lx->m);
}

static void text(struct ch_lexer *lx, int g, struct ch_line *o)
{
	if (!rx_group(&lx->m, g, &o->text, &o->text_len)) {
		o->text = "";
		o->text_len = 0;
	}
}

static int64_t num(struct ch_lexer *lx, int g)
{
	int64_t v;

	return rx_int(&lx->m, g, &v) ? v : -1;
}

static uint64_t hex(struct ch_lexer *lx, int g)
{
	uint64_t v;

	return rx_hex(&lx->m, g, &v) ? v : 0;
}

bool ch_title(const char *title, size_t len, const char *prefix,
	      const char **rest, size_t *rest_len)
{
	size_t n = strlen(prefix);

	if (len < n || memcmp(title, prefix, n))
		return false;
	if (rest) {
		*rest = title + n;
		*rest_len = len - n;
	}
	return true;
}

/* "=  TITLE  =" or "|  TITLE  |": the title between the frames. */
static bool box(const char *s, size_t len, char frame, struct ch_line *o)
{
	size_t end = len;

	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	if (end < 6 || s[0] != frame || s[end - 1] != frame || s[1] != ' ' ||
	    s[2] != ' ' || s[end - 2] != ' ' || s[end - 3] != ' ')
		return false;
	o->text = s + 3;
	o->text_len = end - 6;
	return true;
}

static bool border(const char *s, size_t len)
{
	size_t i;

	while (len > 0 && s[len - 1] == ' ')
		len--;
	if (len < 3)
		return false;
	if (s[0] == '=') {
		for (i = 0; i < len; i++)
			if (s[i] != '=')
				return false;
		return true;
	}
	if (s[0] != '+' || s[len - 1] != '+')
		return false;
	for (i = 1; i + 1 < len; i++)
		if (s[i] != '-')
			return false;
	return true;
}

static void lex_hex_line(struct ch_lexer *lx, const char *s, size_t len,
			 struct ch_line *o)
{
	if (match(lx, P_MAP, s, len)) {
		o->type = CHL_MAP;
		o->addr = hex(lx, 1);
		o->a = (int64_t)hex(lx, 2);
		text(lx, 3, o);
	} else if (match(lx, P_FREE, s, len)) {
		o->type = CHL_FREE;
		o->addr = hex(lx, 1);
		o->a = num(lx, 2);
		o->b = (int64_t)hex(lx, 3);
		o->c = lx->m.start[4] >= 0 ? (int64_t)hex(lx, 4) : -1;
		o->d = lx->m.start[5] >= 0 ? num(lx, 5) : -1;
		o->flag = lx->m.start[6] >= 0;
	} else if (match(lx, P_ROW, s, len)) {
		o->type = CHL_ROW;
		o->addr = hex(lx, 1);
		o->a = (int64_t)hex(lx, 2);
		text(lx, 3, o);
	}
}

static void lex_summary(struct ch_lexer *lx, const char *s, size_t len,
			struct ch_line *o)
{
	if (match(lx, P_SUM_HEAP, s, len)) {
		o->type = CHL_SUM_HEAP;
		text(lx, 1, o);
		o->a = num(lx, 2);
		o->b = num(lx, 3);
		o->c = num(lx, 4);
		o->d = num(lx, 5);
	} else if (match(lx, P_SUM_TOTAL, s, len)) {
		o->type = CHL_SUM_TOTAL;
		o->a = num(lx, 1);
		o->b = num(lx, 2);
		o->c = num(lx, 3);
		o->d = num(lx, 4);
	}
}

/* Lines that start with a blank: indented data of several kinds. */
static void lex_indented(struct ch_lexer *lx, const char *s, size_t len,
			 struct ch_line *o)
{
	if (len >= 20 && !memcmp(s, "   General JIT info", 19)) {
		size_t k = 19;

		while (k < len && s[k] == ' ')
			k++;
		if (k == len) {
			o->type = CHL_GENERAL;
			return;
		}
	}
	if (match(lx, P_BOUNDS, s, len)) {
		o->type = CHL_BOUNDS;
		o->addr = hex(lx, 1);
		o->addr2 = hex(lx, 2);
		o->addr3 = hex(lx, 3);
	} else if (match(lx, P_BLOBS, s, len)) {
		o->type = CHL_BLOBS;
		o->a = num(lx, 1);
		o->b = num(lx, 2);
		o->c = num(lx, 3);
		o->d = lx->m.start[4] >= 0 ? num(lx, 4) : -1;
	} else if (match(lx, P_COMPILATION, s, len)) {
		o->type = CHL_COMPILATION;
		text(lx, 1, o);
		o->a = o->b = -1;
	} else if (match(lx, P_FULL_COUNT, s, len)) {
		o->type = CHL_FULL_COUNT;
		o->a = num(lx, 1);
	} else if (match(lx, P_STOPPED, s, len)) {
		o->type = CHL_STOPPED;
		o->a = num(lx, 1);
		o->b = num(lx, 2);
	} else if (match(lx, P_JIT_IS, s, len)) {
		o->type = CHL_JIT_IS;
		o->a = s[lx->m.start[1] + 1] == 'n';
	} else if (match(lx, P_THREADS, s, len)) {
		o->type = CHL_THREADS;
		o->a = num(lx, 1);
	} else if (match(lx, P_CACHE_SIZE, s, len)) {
		o->type = CHL_CACHE_SIZE;
		text(lx, 1, o);
		o->a = num(lx, 2);
	} else if (match(lx, P_COMMITTED, s, len)) {
		o->type = CHL_COMMITTED;
		o->a = num(lx, 1);
		o->b = num(lx, 2);
		o->c = num(lx, 3);
	} else if (match(lx, P_SEGMENT, s, len)) {
		o->type = CHL_SEGMENT;
		o->a = num(lx, 1);
	} else if (match(lx, P_GRANULES, s, len)) {
		o->type = CHL_GRANULES;
		o->a = num(lx, 1);
		o->b = num(lx, 2);
	} else if (match(lx, P_STAT, s, len)) {
		o->type = CHL_STAT;
		text(lx, 1, o);
		o->a = num(lx, 2);
		o->b = num(lx, 3);
	} else if (match(lx, P_FREE_COUNT, s, len)) {
		o->type = CHL_FREE_COUNT;
		o->a = num(lx, 1);
	} else if (match(lx, P_LEGEND, s, len)) {
		o->type = CHL_LEGEND;
		o->letter = s[lx->m.start[1]];
		text(lx, 2, o);
	} else if (len > 10 && s[0] == ' ' && s[1] == ' ' && s[2] == '-') {
		size_t k = 2;

		while (k < len && s[k] == '-')
			k++;
		if (k == len)
			o->type = CHL_LEGEND_END;
	}
}

void ch_lex(struct ch_lexer *lx, const char *s, size_t len, struct ch_line *o)
{
	size_t k;

	memset(o, 0, sizeof(*o));
	o->type = CHL_OTHER;
	o->text = s;
	o->text_len = len;
	for (k = 0; k < len && (s[k] == ' ' || s[k] == '\t'); k++)
		;
	if (k == len) {
		o->type = CHL_BLANK;
		return;
	}
	switch (s[0]) {
	case '0':
		if (len > 2 && s[1] == 'x')
			lex_hex_line(lx, s, len, o);
		return;
	case '=':
		if (border(s, len))
			o->type = CHL_BORDER;
		else if (box(s, len, '=', o))
			o->type = CHL_MAJOR;
		return;
	case '+':
		if (border(s, len))
			o->type = CHL_BORDER;
		return;
	case '|':
		if (box(s, len, '|', o))
			o->type = CHL_MINOR;
		return;
	case ' ':
	case '\t':
		lex_indented(lx, s, len, o);
		return;
	case '_':
		if (match(lx, P_TIMING, s, len)) {
			o->type = CHL_TIMING;
			text(lx, 1, o);
			o->flag = o->text_len > 22 && o->text[22] == ' ' &&
				  o->text[23] == 't';
		} else if (match(lx, P_FUNCTION, s, len)) {
			o->type = CHL_FUNCTION;
			o->text = s;
			o->text_len = len;
		}
		return;
	case 'C':
		lex_summary(lx, s, len, o);
		if (o->type == CHL_OTHER &&
		    match(lx, P_COMPILATION23, s, len)) {
			o->type = CHL_COMPILATION;
			text(lx, 1, o);
			o->a = num(lx, 2);
			o->b = num(lx, 3);
		}
		if (o->type == CHL_OTHER && match(lx, P_FUNCTION, s, len)) {
			o->type = CHL_FUNCTION;
			o->text = s;
			o->text_len = len;
		}
		return;
	case 'S':
		if (match(lx, P_SEG_START, s, len)) {
			o->type = CHL_SEG_START;
			o->addr = hex(lx, 1);
		} else if (match(lx, P_SEG_END, s, len)) {
			o->type = CHL_SEG_END;
			o->addr = hex(lx, 1);
		} else if (match(lx, P_SEG_RESERVED, s, len)) {
			o->type = CHL_SEG_RESERVED;
			o->addr = hex(lx, 1);
		}
		return;
	case 'A':
		if (len > 12 && !memcmp(s, "Addr(module)", 12))
			o->type = CHL_HEADER;
		else if (match(lx, P_RANGE, s, len)) {
			o->type = CHL_RANGE;
			o->addr = hex(lx, 1);
			o->addr2 = hex(lx, 2);
		}
		return;
	case 'P':
		if (match(lx, P_TOPTEN, s, len)) {
			o->type = CHL_TOPTEN;
			o->a = num(lx, 1);
			o->b = num(lx, 2);
			o->c = (int64_t)hex(lx, 3);
		}
		return;
	case 'Z':
		if (match(lx, P_ZOMBIE, s, len)) {
			o->type = CHL_ZOMBIE;
			o->a = num(lx, 1);
		}
		return;
	case 'N':
		if (match(lx, P_NO_MAP, s, len))
			o->type = CHL_NO_MAP;
		else if (match(lx, P_NO_DATA, s, len))
			o->type = CHL_NO_DATA;
		else if (match(lx, P_FUNCTION, s, len))
			o->type = CHL_FUNCTION;
		return;
	default:
		break;
	}
	if (s[0] >= '1' && s[0] <= '9' && match(lx, P_CODELIST, s, len)) {
		o->type = CHL_CODELIST;
		o->a = num(lx, 1);
		o->b = num(lx, 2);
		o->c = num(lx, 3);
		text(lx, 4, o);
		o->addr = hex(lx, 5);
		o->addr2 = hex(lx, 6);
		o->addr3 = hex(lx, 7);
	} else if (match(lx, P_STAT, s, len)) {
		o->type = CHL_STAT;
		text(lx, 1, o);
		o->a = num(lx, 2);
		o->b = num(lx, 3);
	} else if (match(lx, P_COMPILE_ID, s, len)) {
		o->type = CHL_COMPILE_ID;
		text(lx, 1, o);
		o->a = num(lx, 2);
	} else if (match(lx, P_HOTNESS, s, len)) {
		o->type = CHL_HOTNESS;
		text(lx, 1, o);
		o->a = num(lx, 2);
	} else if (match(lx, P_LOG, s, len)) {
		o->type = CHL_NOISE;
	}
}
