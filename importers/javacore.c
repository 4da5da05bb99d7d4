/*
 * The OpenJ9 javacore importer.  For now only the probe; the memory
 * sections come with the code-heap issue (formats/javacore).
 *
 * A javacore is lines of "TAG<padding>content" where a tag is a nesting
 * digit, a two-letter component and a name (1STSEGMENT, 0SECTION, NULL);
 * see ../shared/reference/openj9-javacore-memory.md.  The first line is
 * normally the TITLE section header.
 */
#include <ctype.h>

#include "importers/list.h"
#include "importers/textprobe.h"

static bool tag_line(const char *s, size_t len)
{
	size_t i = 3;

	if (text_starts(s, len, "NULL"))
		return true;
	if (len < 4 || !isdigit((unsigned char)s[0]) ||
	    !isupper((unsigned char)s[1]) || !isupper((unsigned char)s[2]))
		return false;
	while (i < len && (isupper((unsigned char)s[i]) ||
			   isdigit((unsigned char)s[i]) || s[i] == '_'))
		i++;
	return i == len || s[i] == ' ';
}

static int javacore_probe(const unsigned char *p, size_t len, int complete)
{
	struct text_lines t;
	const char *line;
	size_t n;
	int tags = 0, others = 0, sections = 0, first = 1, title = 0;

	(void)complete;
	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		p += 3; /* UTF-8 byte-order mark */
		len -= 3;
	}
	if (text_is_binary(p, len))
		return 0;
	text_lines_init(&t, p, len);
	while (text_lines_next(&t, &line, &n)) {
		if (first && text_starts(line, n, "0SECTION") &&
		    text_contains(line, n, "TITLE subcomponent dump routine"))
			title = 1;
		first = 0;
		if (!n)
			continue;
		if (tag_line(line, n)) {
			tags++;
			sections += text_starts(line, n, "0SECTION");
		} else {
			others++;
		}
	}
	if (title)
		return 95;
	if (sections && tags >= 5 && tags > others * 4)
		return 75;
	return 0;
}

const struct importer_ops importer_javacore = {
	.name = "javacore",
	.kind = KIND_JAVACORE,
	.probe_class = PROBE_TEXT,
	.probe = javacore_probe,
	.import = NULL,
};
