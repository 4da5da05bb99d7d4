/*
 * libFuzzer harness for the JFR decoder and importer: any bytes as a
 * recording, every event decoded and every constant it refers to
 * resolved, through a sink that reads every field of every record (so
 * that a dangling pointer or an unterminated string shows up under
 * ASan).  Seeds: the fixtures' recordings, whole and cut.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "touch_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink sink = {&touch_sink_ops, NULL};
	struct import_env env = {"fuzz.jfr", touch_warn, NULL, 16 << 20, 0};
	struct input in;
	struct err e;

	input_init_memory(&in, "fuzz.jfr", data, size);
	err_init(&e);
	importer_jfr.import(&in, &sink, &env, &e);
	input_release(&in);
	return 0;
}
