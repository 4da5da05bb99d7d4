/*
 * The JFR chunk header's signature (docs/formats/jfr.md, "Versions"; the
 * byte layout: ../shared/reference/jfr-format.md, section 3): "FLR\0",
 * then a big-endian u16 major and u16 minor version.
 * JDK 11+ (and OpenJDK 8u's backport of JFR) write major 2 (minor 0, or
 * 1 since JDK 14); major 0 (0.9, Oracle JDK 7 and 8) and major 1 (1.0,
 * Oracle JDK 9 and 10) are other formats, recognised only to be refused
 * clearly (jfr.c, jfr_version_writer()).
 */
#ifndef HS_JFR_MAGIC_H
#define HS_JFR_MAGIC_H

#define JFR_MAGIC	    "FLR\0"
#define JFR_MAGIC_LEN	    4
#define JFR_MAJOR_SUPPORTED 2

#endif
