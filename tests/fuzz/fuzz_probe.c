/*
 * libFuzzer harness for the importer probes: every probe must accept any
 * prefix, of any length, without reading past it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "importers/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so ASan sees any over-read */
	unsigned char *p = malloc(size ? size : 1);
	size_t i;

	memcpy(p, data, size);
	for (i = 0; importer_table[i]; i++) {
		int score = importer_table[i]->probe(p, size, 1);

		if (score < 0 || score > 100)
			abort();
	}
	importer_probe(p, size, 0);
	free(p);
	return 0;
}
