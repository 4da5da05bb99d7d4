/*
 * The JFR importer.  For now only the probe: the reader itself comes with
 * the JFR importer issue, in formats/jfr.
 */
#include <string.h>

#include "formats/jfr/jfr_magic.h"
#include "importers/list.h"

static int jfr_probe(const unsigned char *p, size_t len, int complete)
{
	unsigned major;

	(void)complete;
	if (len < JFR_MAGIC_LEN || memcmp(p, JFR_MAGIC, JFR_MAGIC_LEN) != 0)
		return 0;
	if (len < 8)
		return 60; /* the magic, cut short: still surely JFR */
	major = (unsigned)p[4] << 8 | p[5];
	/* major 1 is JDK 7/8's format: ours to refuse with a clear message */
	return major == JFR_MAJOR_SUPPORTED ? 100 : 80;
}

const struct importer_ops importer_jfr = {
	.name = "jfr",
	.kind = KIND_JFR,
	.probe_class = PROBE_SIGNATURE,
	.probe = jfr_probe,
	.import = NULL,
};
