/*
 * Slicing-by-8 CRC32C.  The tables are computed on first use from the
 * reflected polynomial 0x82F63B78, which avoids 8 KiB of magic numbers in
 * the source; the result is checked against RFC 3720's vectors in the
 * unit tests.
 */
#include "util/crc32c.h"

#include <pthread.h>
#include <string.h>

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
		table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			table[j][i] = (table[j - 1][i] >> 8) ^
				      table[0][table[j - 1][i] & 0xff];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define HAVE_HW_CRC 1

/*
 * SSE 4.2's crc32 instruction computes exactly CRC32C, 8 bytes a step:
 * about ten times the table's speed on the store's large sections.
 *
 * One chain of crc32 instructions waits out each one's latency (three
 * cycles) before the next can start; the core can start one a cycle.  So
 * a long buffer is cut into three lanes run side by side, each from a
 * zero register but the first, and joined after: the CRC register is
 * linear, so the register after A then B is the register after A moved
 * past len(B) zero bytes (shift()), xored with B's register from zero.
 * The move is four table lookups for each of the two lane lengths.
 */
#define LANE_LONG  8192
#define LANE_SHORT 256
_Static_assert(LANE_LONG % LANE_SHORT == 0, "the long lane is short lanes");

static uint32_t shift_long[4][256], shift_short[4][256];

/* The raw register (no complement) moved past a zero byte. */
static uint32_t zero_byte(uint32_t c)
{
	int j;

	for (j = 0; j < 8; j++)
		c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	return c;
}

/* The register moved past len zero bytes is linear in the register: the
 * xor of each set bit's image, which t holds a byte at a time. */
static void shift_table(uint32_t t[4][256], const uint32_t bit[32])
{
	int k, b;

	for (k = 0; k < 4; k++) {
		t[k][0] = 0;
		for (b = 1; b < 256; b++)
			t[k][b] = t[k][b & (b - 1)] ^
				  bit[8 * k + __builtin_ctz((unsigned)b)];
	}
}

static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

static inline uint64_t shift(const uint32_t t[4][256], uint64_t c);

/* The short lane's images a byte at a time (256 x 32 byte steps); the
 * long lane's by moving them past the short one's table 32 times, as
 * LANE_LONG is 32 x LANE_SHORT. */
static void shift_init(void)
{
	uint32_t bit[32];
	int i, n;
	size_t k;

	for (i = 0; i < 32; i++) {
		bit[i] = 1u << i;
		for (k = 0; k < LANE_SHORT; k++)
			bit[i] = zero_byte(bit[i]);
	}
	shift_table(shift_short, bit);
	for (i = 0; i < 32; i++)
		for (n = 1; n < LANE_LONG / LANE_SHORT; n++)
			bit[i] = (uint32_t)shift(shift_short, bit[i]);
	shift_table(shift_long, bit);
}

static inline uint64_t shift(const uint32_t t[4][256], uint64_t c)
{
	return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^
	       t[3][(c >> 24) & 0xff];
}

__attribute__((target("sse4.2"))) static inline uint64_t
lanes(uint64_t c, const unsigned char **pp, size_t *len, size_t lane,
      const uint32_t t[4][256])
{
	const unsigned char *p = *pp;

	while (*len >= 3 * lane) {
		uint64_t c1 = 0, c2 = 0, v;
		const unsigned char *end = p + lane;

		do {
			memcpy(&v, p, 8);
			c = _mm_crc32_u64(c, v);
			memcpy(&v, p + lane, 8);
			c1 = _mm_crc32_u64(c1, v);
			memcpy(&v, p + 2 * lane, 8);
			c2 = _mm_crc32_u64(c2, v);
			p += 8;
		} while (p < end);
		c = shift(t, c) ^ c1;
		c = shift(t, c) ^ c2;
		p += 2 * lane;
		*len -= 3 * lane;
	}
	*pp = p;
	return c;
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = ~crc;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((uint32_t)c, *p++);
		len--;
	}
	if (len >= 3 * LANE_SHORT) {
		pthread_once(&shift_once, shift_init);
		c = lanes(c, &p, &len, LANE_LONG, shift_long);
		c = lanes(c, &p, &len, LANE_SHORT, shift_short);
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = _mm_crc32_u64(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return ~(uint32_t)c;
}
#endif

static uint32_t crc32c_sw(uint32_t crc, const void *data, size_t len);

uint32_t crc32c_update(uint32_t crc, const void *data, size_t len)
{
#ifdef HAVE_HW_CRC
	static int hw = -1;

	if (hw < 0)
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	if (hw)
		return crc32c_hw(crc, data, len);
#endif
	return crc32c_sw(crc, data, len);
}

/* Also called directly by the unit tests, to check the two agree. */
uint32_t crc32c_portable(uint32_t crc, const void *data, size_t len)
{
	return crc32c_sw(crc, data, len);
}

static uint32_t crc32c_sw(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t c = ~crc;

	pthread_once(&table_once, table_init);
	while (len && ((uintptr_t)p & 7)) {
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
		len--;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (len >= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= c;
		c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		    table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		    table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		    table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
#endif
	while (len--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
	return ~c;
}
