/*
 * libFuzzer harness for the agent-recording reader and importer: any
 * bytes as a recording, through a sink that reads every field of every
 * record (a dangling pointer or an unterminated string shows up under
 * ASan).  Every frame carries a CRC, which random mutations almost never
 * keep right, so that they reach the record decoding behind it, inputs
 * whose first byte after the preamble is odd get every frame's CRC
 * recomputed first.  Seeds: tests/agent/make_recording.py's scenarios.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/agentrec/agentrec.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "touch_sink.h"
#include "util/crc32c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Recompute the CRC of every whole frame. */
static void fix_crcs(uint8_t *p, size_t size)
{
	size_t pos = AGENTREC_PREAMBLE;

	while (pos <= size && size - pos >= AGENTREC_FRAME) {
		uint32_t len = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 |
			       (uint32_t)p[pos + 2] << 16 |
			       (uint32_t)p[pos + 3] << 24,
			 crc;

		if (len > size - pos - AGENTREC_FRAME)
			break;
		crc = crc32c_update(0, p + pos + 4, (size_t)len + 4);
		memcpy(p + pos + 8 + len, &crc, 4); /* little-endian host */
		pos += (size_t)len + AGENTREC_FRAME;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink sink = {&touch_sink_ops, NULL};
	struct import_env env = {"fuzz.hsa", touch_warn, NULL, 0, 0};
	uint8_t *copy = malloc(size ? size : 1);
	struct input in;
	struct err e;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size > AGENTREC_PREAMBLE && (copy[AGENTREC_PREAMBLE] & 1))
		fix_crcs(copy, size);
	input_init_memory(&in, "fuzz.hsa", copy, size);
	err_init(&e);
	importer_agent.import(&in, &sink, &env, &e);
	input_release(&in);
	free(copy);
	return 0;
}
