/*
 * libFuzzer harness for the HotSpot code-heap grammar (src/formats/codeheap)
 * and the importer's state machine: any bytes as a report, through a
 * sink that reads every field of every snapshot.  Seeds: slices of the
 * real reports in fixtures/codeheap (tests/fuzz/make-seeds.sh), so that
 * mutations start inside maps, tables and legends.
 */
#include <stddef.h>
#include <stdint.h>

#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "touch_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink sink = {&touch_sink_ops, NULL};
	struct import_env env = {"fuzz.txt", touch_warn, NULL, 0, 0};
	struct input in;
	struct err e;

	input_init_memory(&in, "fuzz.txt", data, size);
	err_init(&e);
	importer_codeheap.import(&in, &sink, &env, &e);
	input_release(&in);
	return 0;
}
