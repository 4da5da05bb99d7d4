/*
 * CRC32C (Castagnoli), the checksum of the store's sections.
 *
 * Chosen over zlib's CRC32 because it has hardware support on x86 and ARM
 * should it ever matter; this implementation is portable slicing-by-8,
 * a few GB/s, which is far more than the store needs.
 * crc32c_update(0, p, n) is the checksum of p; feeding a buffer in pieces,
 * passing the previous result each time, gives the same value.
 */
#ifndef HS_CRC32C_H
#define HS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c_update(uint32_t crc, const void *data, size_t len);

#endif
