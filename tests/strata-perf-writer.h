/* strata-perf-writer.h
 *
 * The perf tests' own hands on the bytes of a perf.data, apart from the
 * reader's: little-endian integers read and written at an address, an
 * integer's bytes turned round in place (a big-endian perf's file), and
 * a record's 8-byte header written. The tests that rewrite or extend a
 * real recording (test-perf-byteorder, test-perf-record-types,
 * test-perf-records) share them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint64 strata_test_le                 (const guint8 *p,
                                        guint         width);
void    strata_test_put_le             (guint8       *p,
                                        guint         width,
                                        guint64       v);
void    strata_test_swap               (guint8       *p,
                                        guint         width);
void    strata_test_perf_record_header (guint8       *p,
                                        guint32       type,
                                        guint16       misc,
                                        gsize         size);

#define strata_test_le16(p) ((guint16) strata_test_le ((p), 2))
#define strata_test_le32(p) ((guint32) strata_test_le ((p), 4))
#define strata_test_le64(p) strata_test_le ((p), 8)
#define strata_test_put16(p, v) strata_test_put_le ((p), 2, (v))
#define strata_test_put32(p, v) strata_test_put_le ((p), 4, (v))
#define strata_test_put64(p, v) strata_test_put_le ((p), 8, (v))
#define strata_test_swap16(p) strata_test_swap ((p), 2)
#define strata_test_swap32(p) strata_test_swap ((p), 4)
#define strata_test_swap64(p) strata_test_swap ((p), 8)

G_END_DECLS
