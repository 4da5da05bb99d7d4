/*
 * Unit tests for the fleet lake's cells and ids (src/export/lake_file.c)
 * and the temporary files' registry past its size (src/util/xalloc.c).
 * The expected cells are RFC 4180 and docs/export.md's rules written out
 * by hand; the ids are hex of values chosen here.
 */
#include <stdio.h>
#include <string.h>

#include "export/lake_int.h"
#include "test.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* A text cell as lake_out_text() writes it, through a real lake_out
 * whose row is read back before it is written anywhere. */
static void cell(const char *s, bool guard, struct buf *out)
{
	struct lake_out o;

	memset(&o, 0, sizeof(o));
	buf_init(&o.row);
	buf_init(&o.cell);
	o.guard = guard;
	buf_adds(&o.row, "x\r\n"); /* a row just ended: no separator */
	lake_out_text(&o, s);
	buf_reset(out);
	buf_add(out, o.row.data + 3, o.row.len - 3);
	buf_release(&o.row);
	buf_release(&o.cell);
}

TEST(lake_text_cells_are_quoted_and_guarded)
{
	struct buf b = BUF_INIT;

	cell("main", true, &b);
	CHECK(!strcmp(b.data, "\"main\""));
	cell("worker, \"7\"", true, &b);
	CHECK(!strcmp(b.data, "\"worker, \"\"7\"\"\""));
	cell("=SUM(A1)", true, &b);
	CHECK(!strcmp(b.data, "\"'=SUM(A1)\""));
	cell("=SUM(A1)", false, &b); /* Parquet's staging: no guard */
	CHECK(!strcmp(b.data, "\"=SUM(A1)\""));
	cell("-", true, &b); /* one character alone runs nothing */
	CHECK(!strcmp(b.data, "\"-\""));
	cell("a\nb", true, &b); /* as on a terminal: no line break */
	CHECK(!strcmp(b.data, "\"a\\x0ab\""));
	cell("", true, &b); /* NULL: nothing, not "" */
	CHECK_INT(b.len, ==, 0);
	buf_release(&b);
}

TEST(lake_row_ids_read_back)
{
	char hex[17], line[64];
	uint64_t id = 0;

	lake_id_hex(hex, 0x0123456789abcdefull);
	CHECK(!strcmp(hex, "0123456789abcdef"));
	snprintf(line, sizeof(line), "\"%s\",\"x\"\r\n", hex);
	CHECK(lake_row_id(line, strlen(line), &id));
	CHECK(id == 0x0123456789abcdefull);
	CHECK(!lake_row_id("recording_id,host\r\n", 19, &id)); /* a header */
	CHECK(!lake_row_id("\"0123456789ABCDEF\",", 19, &id)); /* upper case */
	CHECK(!lake_row_id("\"0123\",", 7, &id));
}

TEST(die_unlink_registry_past_its_size_declines)
{
	static char names[DIE_UNLINK_MAX + 1][32];
	size_t i;

	for (i = 0; i < DIE_UNLINK_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "/nonexistent/r%zu", i);
		CHECK(die_unlink_add(names[i]));
	}
	snprintf(names[i], sizeof(names[i]), "/nonexistent/one-more");
	CHECK(!die_unlink_add(names[i])); /* left to newfile_sweep() */
	die_unlink_remove(names[i]);	  /* not held: nothing happens */
	for (i = 0; i < DIE_UNLINK_MAX; i++)
		die_unlink_remove(names[i]);
	CHECK(die_unlink_add(names[DIE_UNLINK_MAX])); /* room again */
	die_unlink_remove(names[DIE_UNLINK_MAX]);
}
