/*
 * Unit tests for src/util: buf, arena, hash map, err, size arithmetic,
 * CRC32C, XXH64.  Expected values come from the definitions (RFC 3720
 * for the checksum, RFC 4180 for CSV quoting, xxHash's reference for
 * XXH64), not from the code under test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/crc32c.h"
#include "util/env.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/human.h"
#include "util/paths.h"
#include "util/size.h"
#include "util/term.h"
#include "util/xalloc.h"
#include "util/xxh64.h"
#include "store/store_write_sort.h"

TEST(buf_starts_empty_and_terminated)
{
	struct buf b = BUF_INIT;

	CHECK(b.data != NULL);
	CHECK_UINT(b.len, ==, 0);
	CHECK_STR(b.data, "");
	buf_reset(&b); /* must not write into the shared empty string badly */
	CHECK_STR(b.data, "");
	buf_release(&b);
	CHECK(b.data == buf_empty);
}

TEST(buf_appends_and_grows)
{
	struct buf b;
	int i;

	buf_init(&b);
	buf_adds(&b, "abc");
	buf_addch(&b, 'd');
	buf_addf(&b, "-%d-%s", 42, "x");
	CHECK_STR(b.data, "abcd-42-x");
	CHECK_UINT(b.len, ==, 9);
	for (i = 0; i < 10000; i++)
		buf_addch(&b, 'z');
	CHECK_UINT(b.len, ==, 10009);
	CHECK(b.data[b.len] == '\0');
	CHECK(b.alloc > b.len);
	/* a long formatted string forces the second vsnprintf */
	buf_reset(&b);
	buf_addf(&b, "%0300d", 7);
	CHECK_UINT(b.len, ==, 300);
	CHECK(b.data[299] == '7' && b.data[0] == '0');
	buf_release(&b);
}

TEST(buf_holds_nul_bytes_and_detaches)
{
	struct buf b = BUF_INIT;
	size_t len;
	char *p;

	buf_add(&b, "a\0b", 3);
	CHECK_UINT(b.len, ==, 3);
	CHECK(memcmp(b.data, "a\0b", 4) == 0);
	p = buf_detach(&b, &len);
	CHECK_UINT(len, ==, 3);
	CHECK(b.data == buf_empty && b.len == 0);
	free(p);
	/* detaching an empty buffer still gives an owned string */
	p = buf_detach(&b, &len);
	CHECK_UINT(len, ==, 0);
	CHECK_STR(p, "");
	free(p);
}

TEST(buf_escapes_unprintable_names)
{
	struct buf b = BUF_INIT;

	buf_add_printable(&b, "a\x1b[2Jb\\c\n", 9);
	CHECK_STR(b.data, "a\\x1b[2Jb\\\\c\\x0a");
	buf_reset(&b);
	/* valid UTF-8 stays, a lone continuation byte and C1 controls don't */
	buf_add_printable(&b, "\xc3\xa9\x80\xc2\x9b", 5);
	CHECK_STR(b.data, "\xc3\xa9\\x80\\xc2\\x9b");
	buf_reset(&b);
	/* an overlong encoding of '/' is not let through */
	buf_add_printable(&b, "\xc0\xaf", 2);
	CHECK_STR(b.data, "\\xc0\\xaf");
	buf_release(&b);
}

/* The one rule of what reaches a terminal (utf8_printable_len), each
 * code point's bytes written out by hand from Unicode's tables: the line
 * and paragraph separators (Zl, Zp), every Bidi_Control character
 * (PropList.txt), a C1 control (NEL); and their neighbours, which pass. */
TEST(buf_escapes_separators_and_bidi_controls)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"a\xe2\x80\xa8"
		 "b",
		 "a\\xe2\\x80\\xa8"
		 "b"},				     /* U+2028 */
		{"\xe2\x80\xa9", "\\xe2\\x80\\xa9"}, /* U+2029 */
		{"\xd8\x9c", "\\xd8\\x9c"},	     /* U+061C ALM */
		{"\xe2\x80\x8e", "\\xe2\\x80\\x8e"}, /* U+200E LRM */
		{"\xe2\x80\x8f", "\\xe2\\x80\\x8f"}, /* U+200F RLM */
		{"\xe2\x80\xaa", "\\xe2\\x80\\xaa"}, /* U+202A LRE */
		{"\xe2\x80\xae", "\\xe2\\x80\\xae"}, /* U+202E RLO */
		{"\xe2\x81\xa6", "\\xe2\\x81\\xa6"}, /* U+2066 LRI */
		{"\xe2\x81\xa9", "\\xe2\\x81\\xa9"}, /* U+2069 PDI */
		{"\xc2\x85", "\\xc2\\x85"},	     /* U+0085 NEL */
		/* neighbours that are printable: U+2027, U+202F, U+2065
		 * (unassigned, shown), U+206A, U+200D (ZWJ, in emoji),
		 * U+00A0, U+061B */
		{"\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80\x8d"
		 "\xc2\xa0\xd8\x9b",
		 "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80\x8d"
		 "\xc2\xa0\xd8\x9b"},
	};
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&b);
		buf_add_printable(&b, cases[i].in, strlen(cases[i].in));
		CHECK_STR(b.data, cases[i].want);
	}
	/* JSON's text spelling: \uXXXX, valid JSON and inert JavaScript */
	buf_reset(&b);
	buf_add_json(&b, "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\x8f", 9,
		     BUF_JSON_TEXT);
	CHECK_STR(b.data, "\"\\u2028\\u2029\\u200f\"");
	buf_release(&b);
}

/* term.h: the format's text as it is, every conversion's output through
 * the escaper; widths pad what is shown; numbers as printf writes them. */
TEST(term_printf_escapes_every_argument)
{
	struct buf b = BUF_INIT;
	char want[128];

	term_addf(&b, "heapsift %s: --by: '%s'\n", "top",
		  "\x1b]0;pwned\x07\xe2\x80\xa8");
	CHECK_STR(b.data, "heapsift top: --by: '\\x1b]0;pwned\\x07"
			  "\\xe2\\x80\\xa8'\n");
	buf_reset(&b);
	/* the width pads what is shown, escapes counted; '-' and '*' */
	term_addf(&b, "[%8s][%-8s][%*s][%-*s]", "a\x1b", "b\\", 3, "c", 3, "d");
	CHECK_STR(b.data, "[   a\\x1b][b\\\\     ][  c][d  ]");
	buf_reset(&b);
	/* a negative '*' width pads on the right, as printf's */
	term_addf(&b, "[%*s]", -3, "e");
	CHECK_STR(b.data, "[e  ]");
	buf_reset(&b);
	/* the precision cuts the bytes given, before escaping */
	term_addf(&b, "%.2s|%.*s", "\x1bxyz", 1, "\x07q");
	CHECK_STR(b.data, "\\x1bx|\\x07");
	buf_reset(&b);
	/* numbers, characters, %%, as the C library writes them */
	term_addf(&b, "%d %5u %-3lld| %llu %zu %.3f %+.1e %x %c %c 100%%", -42,
		  7u, -1LL, 18446744073709551615ULL, (size_t)12, 1.5, -2.0,
		  255u, 'z', 27);
	snprintf(want, sizeof(want),
		 "%d %5u %-3lld| %llu %zu %.3f %+.1e %x %c \\x1b 100%%", -42,
		 7u, -1LL, 18446744073709551615ULL, (size_t)12, 1.5, -2.0, 255u,
		 'z');
	CHECK_STR(b.data, want);
	buf_reset(&b);

	term_addf(&b, "no conversion");
	CHECK_STR(b.data, "no conversion");
	buf_release(&b);
}

TEST(buf_quotes_csv_per_rfc4180)
{
	struct buf b = BUF_INIT;

	buf_add_csv(&b, "plain", 5);
	buf_addch(&b, '|');
	buf_add_csv(&b, "a,b", 3);
	buf_addch(&b, '|');
	buf_add_csv(&b, "say \"hi\"", 8);
	buf_addch(&b, '|');
	buf_add_csv(&b, "two\nlines", 9);
	CHECK_STR(b.data, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"");
	buf_release(&b);
}

/* OWASP's rule for CSV injection: a cell that begins with = + - @, a
 * tab or a CR gets a ' in front and is quoted; inner quotes doubled as
 * RFC 4180 has them; the others as above. */
TEST(buf_guards_csv_formulas)
{
	struct buf b = BUF_INIT;

	buf_add_csv(&b, "=HYPERLINK(\"http://evil/\",\"click\").jfr", 38);
	buf_addch(&b, '|');
	buf_add_csv(&b, "+cmd|calc", 9);
	buf_addch(&b, '|');
	buf_add_csv(&b, "@SUM(1)", 7);
	buf_addch(&b, '|');
	buf_add_csv(&b, "-2+3", 4);
	buf_addch(&b, '|');
	buf_add_csv(&b, "\tx", 2);
	buf_addch(&b, '|');
	buf_add_csv(&b, "a=b", 3);
	buf_addch(&b, '|');
	buf_add_csv(&b, "", 0);
	buf_addch(&b, '|');
	buf_add_csv(&b, "-", 1);
	CHECK_STR(b.data,
		  "\"'=HYPERLINK(\"\"http://evil/\"\",\"\"click\"\").jfr\"|"
		  "\"'+cmd|calc\"|\"'@SUM(1)\"|\"'-2+3\"|\"'\tx\"|a=b||-");
	buf_release(&b);
}

/* The two spellings of a JSON string, each expected value written out by
 * hand from RFC 8259 and the header's rules. */
TEST(buf_writes_json_strings_in_both_spellings)
{
	/* a quote, a backslash, ESC, e acute, C1 CSI, U+2028, a bidi
	 * override (U+202E), a lone continuation byte */
	static const char s[] =
		"q\"b\\e\x1b\xc3\xa9\xc2\x9b\xe2\x80\xa8\xe2\x80\xae\x80";
	struct buf b = BUF_INIT;

	buf_add_json(&b, s, sizeof(s) - 1, BUF_JSON_TEXT);
	CHECK_STR(b.data, "\"q\\\"b\\\\e\\u001b\xc3\xa9\\u009b\\u2028"
			  "\\u202e\\\\x80\"");
	buf_reset(&b);
	/* buf_add_printable()'s text (b\\e, \x1b ...), then quoted: U+2028
	 * is the text \xe2\x80\xa8 there, as in the folded export */
	buf_add_json(&b, s, sizeof(s) - 1, BUF_JSON_PRINTABLE);
	CHECK_STR(b.data,
		  "\"q\\\"b\\\\\\\\e\\\\x1b\xc3\xa9\\\\xc2\\\\x9b"
		  "\\\\xe2\\\\x80\\\\xa8\\\\xe2\\\\x80\\\\xae\\\\x80\"");
	buf_reset(&b);
	buf_add_json(&b, "", 0, BUF_JSON_TEXT);
	CHECK_STR(b.data, "\"\"");
	buf_release(&b);
}

TEST(arena_aligns_and_keeps_contents)
{
	struct arena a;
	char *s[1000];
	int i;

	arena_init(&a, 256);
	for (i = 0; i < 1000; i++) {
		char tmp[16];

		snprintf(tmp, sizeof(tmp), "s%d", i);
		s[i] = arena_strdup(&a, tmp);
		CHECK_UINT((uintptr_t)s[i] % _Alignof(max_align_t), ==, 0);
	}
	for (i = 0; i < 1000; i++) {
		char tmp[16];

		snprintf(tmp, sizeof(tmp), "s%d", i);
		CHECK_STR(s[i], tmp);
	}
	/* bigger than the block: gets a block of its own */
	{
		unsigned char *big = arena_alloc(&a, 10000);

		memset(big, 0xab, 10000);
		CHECK(big[9999] == 0xab);
		CHECK_STR(s[999], "s999");
	}
	CHECK(arena_calloc(&a, 4, 8) != NULL);
	CHECK(((int *)arena_calloc(&a, 4, sizeof(int)))[3] == 0);
	arena_reset(&a);
	CHECK_UINT(a.used, ==, 0);
	CHECK_STR(arena_strdup(&a, "again"), "again");
	arena_release(&a);
	CHECK(a.head == NULL);
}

TEST(hmap_put_get_and_grow)
{
	struct hmap m;
	static char keys[5000][16];
	uint64_t v;
	bool added;
	int i;

	hmap_init(&m);
	CHECK(!hmap_get(&m, "x", 1, &v));
	for (i = 0; i < 5000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		hmap_put(&m, keys[i], strlen(keys[i]), (uint64_t)i * 3, &added);
		CHECK(added);
	}
	CHECK_UINT(m.n_items, ==, 5000);
	for (i = 0; i < 5000; i++) {
		char k[16];

		snprintf(k, sizeof(k), "k%d", i); /* a different pointer */
		CHECK(hmap_get(&m, k, strlen(k), &v));
		CHECK_UINT(v, ==, (uint64_t)i * 3);
	}
	/* an existing key is found, not replaced */
	*hmap_put(&m, "k7", 2, 999, &added) += 1;
	CHECK(!added);
	CHECK(hmap_get(&m, "k7", 2, &v));
	CHECK_UINT(v, ==, 22);
	/* the empty key and keys differing only in length */
	hmap_put(&m, "", 0, 5, &added);
	CHECK(added);
	CHECK(hmap_get(&m, "", 0, &v) && v == 5);
	CHECK(!hmap_get(&m, "k1\0", 3, &v));
	hmap_release(&m);
}

TEST(hash_spreads_similar_keys)
{
	/* 4096 keys that differ in one byte must not share low bits much */
	static unsigned char seen[1024];
	int i, collisions = 0;

	for (i = 0; i < 4096; i++) {
		char k[32];
		size_t n = (size_t)snprintf(k, sizeof(k), "java.lang.Obj%d", i);
		unsigned b = (unsigned)(hash_bytes(k, n) & 1023);

		collisions += seen[b]++ != 0;
	}
	/* 4096 into 1024 buckets: about 3072 land on a used one anyway; a
	 * bad hash piles them into few buckets and leaves most empty.  The
	 * seed is random per process, so the bound must hold for a good hash
	 * whatever the seed: a bucket's load is about Poisson(4), and
	 * P(X >= 24) is about 1e-11, 1e-8 over 1024 buckets (16 failed about
	 * once in 60 runs: make mutate saw it) */
	for (i = 0; i < 1024; i++)
		CHECK(seen[i] < 24);
	CHECK(collisions < 4096);
}

TEST(size_arithmetic_detects_overflow)
{
	size_t s;
	uint64_t u;

	CHECK(size_add(1, 2, &s) && s == 3);
	CHECK(!size_add(SIZE_MAX, 1, &s));
	CHECK(s == 3); /* untouched on overflow */
	CHECK(size_mul(SIZE_MAX / 2, 2, &s));
	CHECK(!size_mul(SIZE_MAX / 2 + 1, 2, &s));
	CHECK(!u64_add(UINT64_MAX, 1, &u));
	CHECK(!u64_mul(1ull << 32, 1ull << 32, &u));
	CHECK(u64_mul(1ull << 31, 1ull << 32, &u) && u == 1ull << 63);
	CHECK(range_ok(0, 10, 10));
	CHECK(range_ok(10, 0, 10));
	CHECK(!range_ok(11, 0, 10));
	CHECK(!range_ok(5, 6, 10));
	CHECK(!range_ok(1, UINT64_MAX, 10)); /* off + len would wrap */
	CHECK(!range_ok(UINT64_MAX, 2, UINT64_MAX));
	CHECK(size_align(13, 8, &s) && s == 16);
	CHECK(size_align(16, 8, &s) && s == 16);
	CHECK(!size_align(SIZE_MAX - 2, 8, &s));
}

TEST(crc32c_matches_rfc3720_vectors)
{
	unsigned char b[32];
	int i;

	/* RFC 3720, appendix B.4 */
	memset(b, 0, 32);
	CHECK_UINT(crc32c_update(0, b, 32), ==, 0x8a9136aa);
	memset(b, 0xff, 32);
	CHECK_UINT(crc32c_update(0, b, 32), ==, 0x62a8ab43);
	for (i = 0; i < 32; i++)
		b[i] = (unsigned char)i;
	CHECK_UINT(crc32c_update(0, b, 32), ==, 0x46dd794e);
	for (i = 0; i < 32; i++)
		b[i] = (unsigned char)(31 - i);
	CHECK_UINT(crc32c_update(0, b, 32), ==, 0x113fdb5c);
	/* the common check value */
	CHECK_UINT(crc32c_update(0, "123456789", 9), ==, 0xe3069283);
	CHECK_UINT(crc32c_update(0, "", 0), ==, 0);
}

TEST(xxh64_matches_the_reference)
{
	static unsigned char b[1000];
	const char *spam = "Nobody inspects the spammish repetition";
	int i;

	/* xxHash's own values (the empty string's in its specification;
	 * the others from libxxhash 0.8.1's XXH64(), the reference
	 * implementation, through Python's ctypes): short inputs, one
	 * under a stripe, one stripe, many stripes, and a seed */
	CHECK_UINT(xxh64("", 0, 0), ==, 0xef46db3751d8e999ull);
	CHECK_UINT(xxh64("a", 1, 0), ==, 0xd24ec4f1a98c6e5bull);
	CHECK_UINT(xxh64("abc", 3, 0), ==, 0x44bc2cf5ad770999ull);
	CHECK_UINT(xxh64(spam, strlen(spam), 0), ==, 0xfbcea83c8a378bf1ull);
	for (i = 0; i < 1000; i++)
		b[i] = (unsigned char)i;
	CHECK_UINT(xxh64(b, 31, 0), ==, 0xc346d2b59b4d8ee1ull);
	CHECK_UINT(xxh64(b, 32, 0), ==, 0xcbf59c5116ff32b4ull);
	CHECK_UINT(xxh64(b, 1000, 0), ==, 0x6ef436b00eba4078ull);
	CHECK_UINT(xxh64(b, 31, 2654435761u), ==, 0x71969c89a30a986aull);
	CHECK_UINT(xxh64(b, 32, 2654435761u), ==, 0x7181354774e0d600ull);
	CHECK_UINT(xxh64(b, 1000, 2654435761u), ==, 0x5697daf2ccbfc5fbull);
}

TEST(xxh64_in_pieces_is_whole)
{
	static unsigned char b[1000];
	struct xxh64 h;
	size_t at, n, step;

	for (at = 0; at < sizeof(b); at++)
		b[at] = (unsigned char)(at * 7);
	/* every piece size from 1 to 70 crosses the 32-byte stripes
	 * at every offset */
	for (step = 1; step <= 70; step++) {
		xxh64_init(&h, 5);
		for (at = 0; at < sizeof(b); at += n) {
			n = step < sizeof(b) - at ? step : sizeof(b) - at;
			xxh64_update(&h, b + at, n);
		}
		CHECK_UINT(xxh64_value(&h), ==, xxh64(b, sizeof(b), 5));
	}
	/* one byte more changes it */
	xxh64_init(&h, 5);
	xxh64_update(&h, b, 999);
	CHECK(xxh64_value(&h) != xxh64(b, sizeof(b), 5));
}

TEST(crc32c_incremental_and_unaligned)
{
	static unsigned char data[4099];
	uint32_t whole, parts;
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	whole = crc32c_update(0, data + 1, sizeof(data) - 1);
	parts = crc32c_update(0, data + 1, 5);
	parts = crc32c_update(parts, data + 6, 1000);
	parts = crc32c_update(parts, data + 1006, sizeof(data) - 1006);
	CHECK_UINT(whole, ==, parts);
}

TEST(err_formats_source_offset_and_line)
{
	struct err e;
	struct buf b = BUF_INIT;

	err_init(&e);
	CHECK(!err_isset(&e));
	CHECK_INT(err_set_at(&e, ERR_FORMAT, 81234,
			     "constant pool count %u exceeds chunk",
			     4294967295u),
		  ==, ERR_FAIL);
	err_source(&e, "case.tar.gz!rec.jfr");
	err_format(&e, &b);
	CHECK_STR(b.data, "case.tar.gz!rec.jfr: constant pool count 4294967295 "
			  "exceeds chunk at offset 81234");
	buf_reset(&b);
	err_set_line(&e, ERR_FORMAT, 12, 3, "bad granule");
	err_format(&e, &b);
	CHECK_STR(b.data, "case.tar.gz!rec.jfr:12:3: bad granule");
	buf_reset(&b);
	err_prefix(&e, "reading %s", "map");
	err_format(&e, &b);
	CHECK_STR(b.data, "case.tar.gz!rec.jfr:12:3: reading map: bad granule");
	CHECK_STR(err_code_name(e.code), "format");
	buf_release(&b);
}

TEST(err_cuts_long_text_and_escapes)
{
	struct err e;
	struct buf b = BUF_INIT;
	char longname[3000];

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	err_init(&e);
	err_set(&e, ERR_IO, "%s", longname);
	CHECK_UINT(strlen(e.msg), ==, ERR_MSG_MAX - 1);
	CHECK_STR(e.msg + ERR_MSG_MAX - 4, "...");
	err_source(&e, longname);
	CHECK_UINT(strlen(e.source), ==, ERR_SOURCE_MAX - 1);
	err_source(&e, "evil\x1b]0;x\a");
	err_set(&e, ERR_IO, "gone");
	err_format(&e, &b);
	CHECK_STR(b.data, "evil\\x1b]0;x\\x07: gone");
	buf_release(&b);
}

TEST(paths_find_runtime_beside_the_binary)
{
	struct buf dir = BUF_INIT, found = BUF_INIT, want = BUF_INIT;

	/* the unit-test binary is built next to the static library */
	CHECK(paths_exe_dir(&dir));
	CHECK(paths_find_runtime("libheapsift.a", &found));
	buf_addf(&want, "%s/libheapsift.a", dir.data);
	CHECK_STR(found.data, want.data);
	/* a missing file: false, and the installed path for the message */
	CHECK(!paths_find_runtime("no-such-runtime-file.so", &found));
	CHECK_CONTAINS(found.data, "/heapsift/no-such-runtime-file.so");
	buf_release(&dir);
	buf_release(&found);
	buf_release(&want);
}

TEST(u64map_sparse_keys_and_clear)
{
	struct u64map m;
	uint64_t v, i;
	bool added;

	u64map_init(&m);
	CHECK(!u64map_get(&m, 0, &v));
	for (i = 0; i < 3000; i++) {
		/* sparse keys like JFR's, 0 and all-ones included */
		u64map_put(&m, i * 0x100000001ull, i, &added);
		CHECK(added);
	}
	u64map_put(&m, UINT64_MAX, 7, &added);
	CHECK(added);
	for (i = 0; i < 3000; i++)
		CHECK(u64map_get(&m, i * 0x100000001ull, &v) && v == i);
	CHECK(u64map_get(&m, UINT64_MAX, &v) && v == 7);
	CHECK(!u64map_get(&m, 5, &v));
	*u64map_put(&m, 0, 99, &added) += 1;
	CHECK(!added);
	CHECK(u64map_get(&m, 0, &v) && v == 1);
	u64map_clear(&m);
	CHECK_UINT(m.n_items, ==, 0);
	CHECK(!u64map_get(&m, 0, &v));
	u64map_put(&m, 42, 1, &added);
	CHECK(added && u64map_get(&m, 42, &v) && v == 1);
	u64map_release(&m);
}

TEST(crc32c_hardware_and_table_agree)
{
	static unsigned char data[10007];
	size_t i, len;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 131 + (i >> 7));
	/* every alignment and a range of lengths, both paths */
	for (len = 0; len < 300; len += 7)
		for (i = 0; i < 9; i++)
			CHECK_UINT(crc32c_update(0, data + i, len), ==,
				   crc32c_portable(0, data + i, len));
	CHECK_UINT(crc32c_update(0x12345678, data, sizeof(data)), ==,
		   crc32c_portable(0x12345678, data, sizeof(data)));
	CHECK_UINT(crc32c_portable(0, "123456789", 9), ==, 0xe3069283);
}

/* The hardware path runs long buffers in three lanes (3 x 8192 bytes,
 * then 3 x 256) and joins them: each edge of both, any alignment. */
TEST(crc32c_lanes_join_as_one_chain)
{
	static unsigned char data[100003];
	static const size_t lens[] = {767,   768,   769,   775,	  776,
				      1536,  24575, 24576, 24577, 24583,
				      25343, 25344, 49152, 50000, 100000};
	size_t i, k;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
		for (i = 0; i < 3; i++)
			CHECK_UINT(
				crc32c_update(0x9e3779b9, data + i, lens[k]),
				==,
				crc32c_portable(0x9e3779b9, data + i, lens[k]));
}

/* --- store/time_sort: against a comparison sort ----------------------- */

static const int64_t *ts_time;

static int ts_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (ts_time[x] != ts_time[y])
		return ts_time[x] < ts_time[y] ? -1 : 1;
	return x < y ? -1 : x > y; /* ties in index order */
}

static uint64_t ts_rng = 88172645463325252ull;

static uint64_t ts_next(void)
{
	ts_rng ^= ts_rng << 13;
	ts_rng ^= ts_rng >> 7;
	ts_rng ^= ts_rng << 17;
	return ts_rng;
}

/* 0 when time_sort gives what qsort on (time, index) gives */
static int ts_check(const int64_t *time, size_t n)
{
	uint32_t *got = xmalloc((n ? n : 1) * 4),
		 *want = xmalloc((n ? n : 1) * 4);
	size_t i;
	int bad = 0;

	time_sort(time, got, n);
	for (i = 0; i < n; i++)
		want[i] = (uint32_t)i;
	ts_time = time;
	qsort(want, n, 4, ts_cmp);
	for (i = 0; i < n && !bad; i++)
		bad = got[i] != want[i];
	free(got);
	free(want);
	return bad;
}

TEST(time_sort_matches_a_comparison_sort)
{
	size_t n = 200000, i;
	int64_t *t = xmalloc(n * sizeof(*t));

	CHECK_INT(ts_check(t, 0), ==, 0);
	t[0] = 5;
	CHECK_INT(ts_check(t, 1), ==, 0);
	/* sorted already, and all equal (stability is everything) */
	for (i = 0; i < n; i++)
		t[i] = 1000 + (int64_t)i / 3;
	CHECK_INT(ts_check(t, n), ==, 0);
	for (i = 0; i < n; i++)
		t[i] = 42;
	CHECK_INT(ts_check(t, n), ==, 0);
	/* what JFR gives: sorted runs (thread buffers) that overlap */
	for (i = 0; i < n; i++)
		t[i] = (int64_t)(i % 2000) * 5000 + (int64_t)(i / 2000) * 7 +
		       1700000000000000000ll;
	CHECK_INT(ts_check(t, n), ==, 0);
	/* nearly sorted, with ties, and a few samples far out of place:
	 * insertion sorts most buckets, and gives up part way through
	 * some, which the radix sort must finish stably */
	for (i = 0; i < n; i++)
		t[i] = 1700000000000000000ll + (int64_t)i / 2 * 1000;
	for (i = 0; i + 300 < n; i += 97)
		t[i + (i % 3 ? 300 : 1)] = t[i] - (int64_t)(ts_next() % 200000);
	CHECK_INT(ts_check(t, n), ==, 0);
	/* random over 10 s, with many ties */
	for (i = 0; i < n; i++)
		t[i] = 1700000000000000000ll +
		       (int64_t)(ts_next() % 10000000000ull) / 1000 * 1000;
	CHECK_INT(ts_check(t, n), ==, 0);
	/* skewed: two clusters days apart, most samples in one bucket */
	for (i = 0; i < n; i++)
		t[i] = (i & 1 ? 1700000000000000000ll : 1700300000000000000ll) +
		       (int64_t)(ts_next() % 1000000);
	CHECK_INT(ts_check(t, n), ==, 0);
	/* the whole int64 range, negative times (before 1970) included */
	for (i = 0; i < n; i++)
		t[i] = (int64_t)ts_next();
	t[1] = INT64_MIN;
	t[2] = INT64_MAX;
	t[3] = -1;
	CHECK_INT(ts_check(t, n), ==, 0);
	/* a small span: fewer bits than one bucket digit */
	for (i = 0; i < n; i++)
		t[i] = -5 + (int64_t)(ts_next() % 7);
	CHECK_INT(ts_check(t, n), ==, 0);
	free(t);
}

TEST(human_version_has_name)
{
	/* JDK 17+: jvmVersion repeats jvmName; the name is printed once */
	CHECK(human_version_has_name("OpenJDK 64-Bit Server VM",
				     "OpenJDK 64-Bit Server VM (25.0.3+9-LTS) "
				     "for linux-amd64"));
	CHECK(human_version_has_name("Eclipse OpenJ9 VM", "Eclipse OpenJ9 VM"));
	/* a version of its own, or a name that is only a prefix of a word */
	CHECK(!human_version_has_name("OpenJDK 64-Bit Server VM",
				      "(11.0.2+9) for linux-amd64"));
	CHECK(!human_version_has_name("Open", "OpenJDK 64-Bit Server VM (17)"));
	CHECK(!human_version_has_name("", "anything"));
	CHECK(!human_version_has_name(NULL, "anything"));
	CHECK(!human_version_has_name("x", NULL));
}

/* Expected instants from the calendar: the epoch, a nanosecond before it
 * (cut down, into the day before), 17 days 8:40 and a nanosecond short
 * of a second (cut, where rounding would make it 8:40:01.000), and the
 * ends of int64_t nanoseconds, which are pandas' Timestamp.min - 1 ns
 * and Timestamp.max. */
TEST(human_time_iso8601_cut_down)
{
	char t[HUMAN_TIME_SIZE];

	CHECK_STR(human_time(0, 3, NULL, t, sizeof(t)),
		  "1970-01-01T00:00:00.000Z");
	CHECK_STR(human_time(-1, 3, NULL, t, sizeof(t)),
		  "1969-12-31T23:59:59.999Z");
	CHECK_STR(human_time(-1, 9, NULL, t, sizeof(t)),
		  "1969-12-31T23:59:59.999999999Z");
	CHECK_STR(human_time(1500000999999999, 3, NULL, t, sizeof(t)),
		  "1970-01-18T08:40:00.999Z");
	CHECK_STR(human_time(INT64_MAX, 9, NULL, t, sizeof(t)),
		  "2262-04-11T23:47:16.854775807Z");
	/* INT64_MIN: "not recorded" where the caller says so */
	CHECK_STR(human_time(INT64_MIN, 9, NULL, t, sizeof(t)),
		  "1677-09-21T00:12:43.145224192Z");
	CHECK_STR(human_time(INT64_MIN, 3, "?", t, sizeof(t)), "?");
	CHECK_STR(human_time(INT64_MIN, 3, "(not recorded)", t, sizeof(t)),
		  "(not recorded)");
}

/* Sizes in powers of 1000 (kB, MB, ...), two decimals
 * past 999 bytes, the same for a fall (a diff's negative change) as for
 * a rise: the expected texts are the arithmetic, not the code's output */
TEST(human_bytes_in_powers_of_1000_both_signs)
{
	char b[32];

	CHECK_STR(human_bytes(0, b, sizeof(b)), "0 B");
	CHECK_STR(human_bytes(999, b, sizeof(b)), "999 B");
	CHECK_STR(human_bytes(-999, b, sizeof(b)), "-999 B");
	CHECK_STR(human_bytes(1000, b, sizeof(b)), "1.00 kB");
	CHECK_STR(human_bytes(1500000, b, sizeof(b)), "1.50 MB");
	CHECK_STR(human_bytes(-1500000, b, sizeof(b)), "-1.50 MB");
	CHECK_STR(human_bytes(-2250000000LL, b, sizeof(b)), "-2.25 GB");
	/* past the last unit: more of it */
	CHECK_STR(human_bytes(3000000000000000000LL, b, sizeof(b)),
		  "3000.00 PB");
}

/* buf_add_u64 and buf_add_i64 write what printf's %llu and %lld write:
 * every power of ten and its neighbours, the extremes, and a
 * pseudo-random sweep of every length */
TEST(buf_adds_integers_as_printf_does)
{
	struct buf b = BUF_INIT;
	char want[32];
	uint64_t x = 0x9e3779b97f4a7c15ull, p = 1;
	int i, bad = 0;

	for (i = 0; i < 20000 && bad < 5; i++) {
		uint64_t u;
		int64_t v;

		if (i < 60) { /* 10^k - 1, 10^k, 10^k + 1 */
			u = p - 1 + (uint64_t)(i % 3);
			if (i % 3 == 2)
				p = p > UINT64_MAX / 10 ? p : p * 10;
		} else if (i < 64) {
			static const uint64_t edge[] = {0, UINT64_MAX,
							(uint64_t)INT64_MAX,
							(uint64_t)INT64_MIN};
			u = edge[i - 60];
		} else {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			u = x >> (x % 64); /* every length */
		}
		v = (int64_t)u;
		buf_reset(&b);
		buf_add_u64(&b, u);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)u);
		if (strcmp(b.data, want)) {
			CHECK_STR(b.data, want);
			bad++;
		}
		buf_reset(&b);
		buf_add_i64(&b, v);
		snprintf(want, sizeof(want), "%lld", (long long)v);
		if (strcmp(b.data, want)) {
			CHECK_STR(b.data, want);
			bad++;
		}
	}
	CHECK_INT(bad, ==, 0);
	CHECK_INT(i, ==, 20000);
	buf_release(&b);
}

/* The knobs' one reader: a plain decimal number in range, else the
 * default (the JFR importer's HEAPSIFT_JFR_AHEAD needs 0 allowed, the
 * spill's counts 1 at least). */
TEST(env_count_takes_plain_numbers_in_range)
{
	static const char *const bad[] = {"",	"x",  "12x", "-1",
					  " 5", "+5", "65",  "0x10"};
	size_t i;

	setenv("HS_TEST_COUNT", "7", 1);
	CHECK_UINT(env_count("HS_TEST_COUNT", 3, 1, 64), ==, 7);
	setenv("HS_TEST_COUNT", "0", 1);
	CHECK_UINT(env_count("HS_TEST_COUNT", 3, 0, 64), ==, 0);
	CHECK_UINT(env_count("HS_TEST_COUNT", 3, 1, 64), ==, 3);
	setenv("HS_TEST_COUNT", "64", 1);
	CHECK_UINT(env_count("HS_TEST_COUNT", 3, 1, 64), ==, 64);
	setenv("HS_TEST_COUNT", "99999999999999999999999", 1);
	CHECK_UINT(env_count("HS_TEST_COUNT", 3, 1, 64), ==, 3);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("HS_TEST_COUNT", bad[i], 1);
		CHECK_UINT(env_count("HS_TEST_COUNT", 3, 1, 64), ==, 3);
	}
	unsetenv("HS_TEST_COUNT");
	CHECK_UINT(env_count("HS_TEST_COUNT", 3, 1, 64), ==, 3);
}
