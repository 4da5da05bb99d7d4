/*
 * Unit tests for the importer registry and its probes, on the real JVM
 * outputs in fixtures/ (whose kinds are known from how they were made:
 * fixtures/README.md) and on made-up near misses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/agentrec/agentrec_magic.h"
#include "importers/registry.h"
#include "test.h"

static struct probe_result probe_file(const char *name)
{
	static unsigned char buf[PROBE_PREFIX];
	struct probe_result none = {NULL, KIND_UNKNOWN, -1};
	FILE *f = fopen(test_fixture(name), "rb");
	size_t n;
	int complete;

	if (!f) {
		test_fail(__FILE__, __LINE__, "cannot open fixture %s", name);
		return none;
	}
	n = fread(buf, 1, sizeof(buf), f);
	complete = n < sizeof(buf);
	fclose(f);
	return importer_probe(buf, n, complete);
}

static struct probe_result probe_str(const char *s)
{
	return importer_probe((const unsigned char *)s, strlen(s), 1);
}

TEST(registry_lists_signatures_before_text)
{
	size_t i;
	int seen_text = 0, kinds = 0;

	for (i = 0; importer_table[i]; i++) {
		if (importer_table[i]->probe_class == PROBE_TEXT)
			seen_text = 1;
		else
			CHECK(!seen_text);
		kinds |= 1 << importer_table[i]->kind;
		CHECK_STR(importer_table[i]->name,
			  import_kind_name(importer_table[i]->kind));
	}
	/* one importer for each kind but unknown */
	CHECK_INT(kinds, ==, (1 << KIND__COUNT) - 2);
}

TEST(probe_real_jfr_recordings)
{
	struct probe_result r = probe_file("jfr/jdk17-leak-gcroots.jfr");

	CHECK_STR(import_kind_name(r.kind), "jfr");
	CHECK_INT(r.score, ==, 100);
	/* a chunk the JVM never finished still starts with the header */
	r = probe_file("jfr/jdk17-killed-unfinished.jfr");
	CHECK_STR(import_kind_name(r.kind), "jfr");
	CHECK_INT(r.score, ==, 100);
}

TEST(probe_jfr_versions_and_cut_magic)
{
	struct probe_result r;

	/* JDK 9/10's major 1: still jfr (to be refused by name), not sure */
	r = importer_probe((const unsigned char *)"FLR\0\0\1\0\0", 8, 1);
	CHECK_INT(r.kind, ==, KIND_JFR);
	CHECK_INT(r.score, <, 100);
	r = importer_probe((const unsigned char *)"FLR", 3, 1);
	CHECK_INT(r.kind, ==, KIND_UNKNOWN);
	r = importer_probe((const unsigned char *)"FLR\1\0\2\0\0", 8, 1);
	CHECK_INT(r.kind, ==, KIND_UNKNOWN);
}

TEST(probe_agent_magic)
{
	unsigned char b[16];
	struct probe_result r;

	memcpy(b, AGENTREC_MAGIC, AGENTREC_MAGIC_LEN);
	memset(b + 8, 0, 8);
	r = importer_probe(b, sizeof(b), 1);
	CHECK_INT(r.kind, ==, KIND_AGENT);
	CHECK_INT(r.score, ==, 100);
	b[3] = 'X';
	CHECK_INT(importer_probe(b, sizeof(b), 1).kind, ==, KIND_UNKNOWN);
}

TEST(probe_real_codeheap_reports)
{
	static const char *files[] = {
		"codeheap/jdk17-seg-jcmd-codecache.txt",
		"codeheap/jdk17-noseg-analytics-aggregate-16384.txt",
		"codeheap/jdk17-full-noseg-jcmd-codelist.txt",
		"codeheap/jdk17-seg-exit-stdout.txt",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct probe_result r = probe_file(files[i]);

		if (r.kind != KIND_CODEHEAP || r.score < 50)
			test_fail(__FILE__, __LINE__, "%s: kind %s score %d",
				  files[i], import_kind_name(r.kind), r.score);
	}
	/* the workload's stderr mentions no code heap at all */
	CHECK_INT(probe_file("codeheap/jdk17-seg-stderr.txt").kind, ==,
		  KIND_UNKNOWN);
}

TEST(probe_real_javacore)
{
	struct probe_result r =
		probe_file("javacore/javacore.20230830.134339.30220.0001.txt");

	CHECK_INT(r.kind, ==, KIND_JAVACORE);
	CHECK_INT(r.score, >=, 90);
}

TEST(probe_text_near_misses_stay_unknown)
{
	CHECK_INT(probe_str("").kind, ==, KIND_UNKNOWN);
	CHECK_INT(probe_str("hello world\n").kind, ==, KIND_UNKNOWN);
	/* one tagged line is not a javacore */
	CHECK_INT(probe_str("1STSEGMENT     0x0\nplain\nplain\n").kind, ==,
		  KIND_UNKNOWN);
	/* a heap summary line alone: a weak codeheap bid */
	{
		struct probe_result r = probe_str(
			"CodeHeap 'profiled nmethods': size=120032Kb "
			"used=10812Kb max_used=14112Kb free=109219Kb\n");

		CHECK_INT(r.kind, ==, KIND_CODEHEAP);
		CHECK_INT(r.score, <, 90);
	}
	/* binary bytes are never text */
	CHECK_INT(importer_probe((const unsigned char *)"0SECTION\0\0\0", 11, 1)
			  .kind,
		  ==, KIND_UNKNOWN);
}
