/*
 * libFuzzer harness for the javacore grammar and importer: any bytes as
 * a javacore, through a sink that reads every field of every record,
 * every map cell included (a dangling pointer or an unterminated string
 * shows up under ASan).  Seeds: the javacore fixtures, cut to a few
 * sections (tests/fuzz/make-seeds.sh); the dictionary adds the tags.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	importer_javacore.import(&in, &sink, &env, &e);
	input_release(&in);
	return 0;
}
