/*
 * The HotSpot code-heap report importer.  For now only the probe; the
 * grammar comes with the code-heap issue (formats/codeheap).
 *
 * The probe recognises the three kinds of text HotSpot prints about its
 * code cache (../shared/reference/codeheap-analytics.md): the
 * CodeHeap_Analytics report, the Compiler.codecache / PrintCodeCache
 * summary, and Compiler.codelist.  Reports are often embedded in a JVM's
 * stdout among other lines, so it counts evidence instead of insisting
 * on the first line.
 */
#include <ctype.h>
#include <string.h>

#include "importers/list.h"
#include "importers/textprobe.h"

/* "N N N name [0x..., 0x... - 0x...]": one Compiler.codelist line. */
static bool codelist_line(const char *s, size_t len)
{
	size_t i = 0, k;

	while (i < len && isdigit((unsigned char)s[i]))
		i++;
	if (i == 0 || i + 5 > len || s[i] != ' ' ||
	    !isdigit((unsigned char)s[i + 1]) || s[i + 2] != ' ' ||
	    !isdigit((unsigned char)s[i + 3]) || s[i + 4] != ' ')
		return false;
	if (len < 2 || s[len - 1] != ']')
		return false;
	/* the bracket holds "0x..., 0x... - 0x..." */
	for (k = len - 1; k > i && s[k] != '['; k--)
		;
	return k > i + 5 && text_starts(s + k, len - k, "[0x") &&
	       text_contains(s + k, len - k, ", 0x") &&
	       text_contains(s + k, len - k, " - 0x");
}

static int codeheap_probe(const unsigned char *p, size_t len, int complete)
{
	struct text_lines t;
	const char *line;
	size_t n, lines = 0;
	int summary = 0, bounds = 0, codelist = 0, other = 0;

	(void)complete;
	if (text_is_binary(p, len))
		return 0;
	if (text_contains((const char *)p, len, "CodeHeapStateAnalytics") ||
	    text_contains((const char *)p, len, "General JIT info"))
		return 95;
	text_lines_init(&t, p, len);
	while (text_lines_next(&t, &line, &n)) {
		lines++;
		if ((text_starts(line, n, "CodeHeap '") &&
		     text_contains(line, n, "': size=") &&
		     text_contains(line, n, "Kb used=")) ||
		    text_starts(line, n, "CodeCache: size="))
			summary++;
		else if (text_starts(line, n, " bounds [0x"))
			bounds++;
		else if (codelist_line(line, n))
			codelist++;
		else if (n)
			other++;
	}
	if (summary && bounds)
		return 90;
	/* jcmd's "<pid>:" line is the one other line a codelist has */
	if (codelist >= 3 || (codelist && other <= 1))
		return codelist > other ? 85 : 60;
	if (summary)
		return 50;
	return 0;
}

const struct importer_ops importer_codeheap = {
	.name = "codeheap",
	.kind = KIND_CODEHEAP,
	.probe_class = PROBE_TEXT,
	.probe = codeheap_probe,
	.import = NULL,
};
