/*
 * The heapsift agent-recording importer.  For now only the probe on the
 * format's magic; the reader comes with the agent issue.
 */
#include <string.h>

#include "formats/agentrec/agentrec_magic.h"
#include "importers/list.h"

static int agent_probe(const unsigned char *p, size_t len, int complete)
{
	(void)complete;
	if (len >= AGENTREC_MAGIC_LEN &&
	    memcmp(p, AGENTREC_MAGIC, AGENTREC_MAGIC_LEN) == 0)
		return 100;
	return 0;
}

const struct importer_ops importer_agent = {
	.name = "agent",
	.kind = KIND_AGENT,
	.probe_class = PROBE_SIGNATURE,
	.probe = agent_probe,
	.import = NULL,
};
