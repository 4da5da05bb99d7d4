/*
 * The flame graph's drawing (src/util/flame.c): what a frame is, and
 * what the SVG says, on nodes written here by hand.  The browser's side
 * (labels measured by the font, search, zoom) is tests/cli/flame_svg.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/flame.h"
#include "util/rx.h"
#include "util/xalloc.h"
#include "test.h"

TEST(flame_frame_kinds_from_labels)
{
	struct err e;
	struct rx_user *lib;

	err_init(&e);
	lib = rx_user_new("^(java|javax|jdk|sun|com\\.sun)\\.", &e);
	CHECK(lib != NULL);
	CHECK_INT(flame_frame_of("java.util.HashMap.resize:69", lib), ==,
		  FLAME_FRAME_LIBRARY);
	CHECK_INT(flame_frame_of("com.sun.Foo.bar", lib), ==,
		  FLAME_FRAME_LIBRARY);
	CHECK_INT(flame_frame_of("javaxx.Foo.bar:1", lib), ==, FLAME_FRAME_APP);
	CHECK_INT(flame_frame_of("HeapWorkload.main:188", lib), ==,
		  FLAME_FRAME_APP);
	CHECK_INT(flame_frame_of("Foo$$Lambda/0x0000000801001234.apply", lib),
		  ==, FLAME_FRAME_APP);
	/* no class: native code or the VM */
	CHECK_INT(flame_frame_of("JavaThread::run", lib), ==,
		  FLAME_FRAME_NATIVE);
	CHECK_INT(flame_frame_of("[unknown]", lib), ==, FLAME_FRAME_NATIVE);
	CHECK_INT(flame_frame_of("(no stack)", lib), ==, FLAME_FRAME_NATIVE);
	CHECK_INT(flame_frame_of("memcpy", lib), ==, FLAME_FRAME_NATIVE);
	CHECK_INT(flame_frame_of("run:12.5", lib), ==, FLAME_FRAME_NATIVE);
	/* without a library every Java frame is the application's */
	CHECK_INT(flame_frame_of("java.util.HashMap.resize:69", NULL), ==,
		  FLAME_FRAME_APP);
	rx_user_free(lib);
}

TEST(flame_colours_tell_kinds_apart)
{
	char a[FLAME_COLOUR_SIZE], b[FLAME_COLOUR_SIZE];
	int f, g;

	/* a kind's colours, whatever the label, are never another's */
	for (f = FLAME_FRAME_ROOT; f < FLAME_FRAME__COUNT; f++)
		for (g = f + 1; g < FLAME_FRAME__COUNT; g++) {
			flame_colour(f, "a.B.c:1", a);
			flame_colour(g, "a.B.c:1", b);
			CHECK(strcmp(a, b) != 0);
		}
	CHECK_INT((int)strlen(flame_colour(FLAME_FRAME_APP, NULL, a)), ==, 7);
	CHECK(a[0] == '#');
}

static struct flame_node *two_nodes(const char *child, int frame)
{
	struct flame_node *fl = xcalloc(2, sizeof(*fl));

	fl[0].label = xstrdup("all");
	fl[0].parent = UINT32_MAX;
	fl[0].bytes = 1500;
	fl[0].samples = 3;
	fl[1].label = xstrdup(child);
	fl[1].parent = 0;
	fl[1].depth = 1;
	fl[1].bytes = 1500;
	fl[1].samples = 3;
	fl[1].frame = frame;
	return fl;
}

TEST(flame_svg_says_what_it_is)
{
	struct flame_node *fl = two_nodes("com.example.App.run:7", 0);
	struct flame_info in = {.kind = "jdk.ObjectAllocationSample",
				.unit = "bytes",
				.lines = "Recording a.jfr\nline two",
				.standalone = true};
	struct buf b = BUF_INIT;

	flame_svg(&b, fl, 2, &in);
	CHECK_CONTAINS(b.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
	CHECK_CONTAINS(b.data, "Flame graph: jdk.ObjectAllocationSample, "
			       "width in bytes</text>");
	CHECK_CONTAINS(b.data, ">Total 1.50 kB (1,500 bytes) in 3 samples<");
	CHECK_CONTAINS(b.data, ">Recording a.jfr</text>");
	CHECK_CONTAINS(b.data, ">line two</text>");
	CHECK_CONTAINS(b.data, ">allocated class</text>");
	CHECK_CONTAINS(b.data, "<script><![CDATA[");
	/* the whole name fits the whole width */
	CHECK_CONTAINS(b.data, ">com.example.App.run:7</text>");
	CHECK_CONTAINS(b.data, "<title>com.example.App.run:7\napplication, ");
	flame_free(fl, 2);
	buf_release(&b);
}

TEST(flame_svg_class_frame_is_coloured_as_one)
{
	struct flame_node *fl = two_nodes("byte[]", FLAME_FRAME_CLASS);
	struct flame_info in = {.kind = "k", .unit = "bytes"};
	struct buf b = BUF_INIT, want = BUF_INIT;
	char c[FLAME_COLOUR_SIZE];

	flame_svg(&b, fl, 2, &in);
	buf_addf(&want, "fill=\"%s\"/>",
		 flame_colour(FLAME_FRAME_CLASS, "byte[]", c));
	CHECK_CONTAINS(b.data, want.data);
	CHECK_CONTAINS(b.data, "<title>byte[]\nallocated class, ");
	/* embedded: as wide as the page, no script of its own */
	CHECK_CONTAINS(b.data, "width=\"100%\"");
	CHECK(!strstr(b.data, "<script"));
	CHECK(!strstr(b.data, "<?xml"));
	flame_free(fl, 2);
	buf_release(&b);
	buf_release(&want);
}

TEST(flame_svg_labels_cut_to_their_frames)
{
	/* 1200 px wide, 1194 px of room, 7.3 px a character: 163 columns */
	struct buf name = BUF_INIT, b = BUF_INIT;
	struct flame_node *fl;
	struct flame_info in = {.kind = "k", .unit = "bytes"};
	int i;

	buf_adds(&name, "org.example.deep.pkg.");
	for (i = 0; i < 200; i++)
		buf_addch(&name, 'A');
	buf_adds(&name, ".m:1");
	fl = two_nodes(name.data, 0);
	flame_svg(&b, fl, 2, &in);
	/* the package goes first: 200 A's and ".m:1" are still too long, so
	 * 162 columns of it and an ellipsis */
	buf_reset(&name);
	buf_addch(&name, '>');
	for (i = 0; i < 162; i++)
		buf_addch(&name, 'A');
	buf_adds(&name, "\xe2\x80\xa6</text>");
	CHECK_CONTAINS(b.data, name.data);
	flame_free(fl, 2);

	/* wide characters count two columns: 100 of them are 200 */
	buf_reset(&name);
	buf_adds(&name, "a.");
	for (i = 0; i < 100; i++)
		buf_adds(&name, "\xe6\xbc\xa2"); /* U+6F22 */
	buf_adds(&name, ".m");
	fl = two_nodes(name.data, 0);
	buf_reset(&b);
	flame_svg(&b, fl, 2, &in);
	buf_reset(&name);
	buf_addch(&name, '>');
	for (i = 0; i < 81; i++)
		buf_adds(&name, "\xe6\xbc\xa2");
	buf_adds(&name, "\xe2\x80\xa6</text>");
	CHECK_CONTAINS(b.data, name.data);
	flame_free(fl, 2);

	/* markup and control bytes in a name stay text */
	fl = two_nodes("a.<b>&\x01.c", 0);
	buf_reset(&b);
	flame_svg(&b, fl, 2, &in);
	CHECK_CONTAINS(b.data, ">a.&lt;b&gt;&amp;\\x01.c</text>");
	flame_free(fl, 2);
	buf_release(&name);
	buf_release(&b);
}
