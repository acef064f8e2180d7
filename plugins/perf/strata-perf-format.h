/* strata-perf-format.h
 *
 * The numbers of the perf.data format, as the kernel's
 * tools/perf/Documentation/perf.data-file-format.txt and the perf_event
 * ABI (include/uapi/linux/perf_event.h) define them: record types, the
 * sample_type and read_format bits, the attr's layout, feature bits. Only
 * numbers live here; the reader that uses them is the rest of plugins/perf/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "PERFILE2" read as a little-endian u64, and the version 1 magic. */
#define PERF_MAGIC2        G_GUINT64_CONSTANT (0x32454c4946524550)
#define PERF_MAGIC2_SWAPPED G_GUINT64_CONSTANT (0x50455246494c4532)
#define PERF_MAGIC1_STR    "PERFFILE"

/* The file header: magic, size, attr_size, three sections, 256 feature bits. */
#define PERF_FILE_HEADER_SIZE       104
#define PERF_FILE_HEADER_SIZE_V1     72   /* without the feature bitmap */
#define PERF_PIPE_HEADER_SIZE        16

/* Record types the kernel writes. */
enum
{
  PERF_RECORD_MMAP = 1,
  PERF_RECORD_LOST = 2,
  PERF_RECORD_COMM = 3,
  PERF_RECORD_EXIT = 4,
  PERF_RECORD_THROTTLE = 5,
  PERF_RECORD_UNTHROTTLE = 6,
  PERF_RECORD_FORK = 7,
  PERF_RECORD_READ = 8,
  PERF_RECORD_SAMPLE = 9,
  PERF_RECORD_MMAP2 = 10,
  PERF_RECORD_AUX = 11,
  PERF_RECORD_ITRACE_START = 12,
  PERF_RECORD_LOST_SAMPLES = 13,
  PERF_RECORD_SWITCH = 14,
  PERF_RECORD_SWITCH_CPU_WIDE = 15,
  PERF_RECORD_NAMESPACES = 16,
  PERF_RECORD_KSYMBOL = 17,
  PERF_RECORD_BPF_EVENT = 18,
  PERF_RECORD_CGROUP = 19,
  PERF_RECORD_TEXT_POKE = 20,
  PERF_RECORD_AUX_OUTPUT_HW_ID = 21,

  /* Records perf itself writes. */
  PERF_RECORD_HEADER_ATTR = 64,
  PERF_RECORD_HEADER_EVENT_TYPE = 65,
  PERF_RECORD_HEADER_TRACING_DATA = 66,
  PERF_RECORD_HEADER_BUILD_ID = 67,
  PERF_RECORD_FINISHED_ROUND = 68,
  PERF_RECORD_ID_INDEX = 69,
  PERF_RECORD_AUXTRACE_INFO = 70,
  PERF_RECORD_AUXTRACE = 71,
  PERF_RECORD_AUXTRACE_ERROR = 72,
  PERF_RECORD_THREAD_MAP = 73,
  PERF_RECORD_CPU_MAP = 74,
  PERF_RECORD_STAT_CONFIG = 75,
  PERF_RECORD_STAT = 76,
  PERF_RECORD_STAT_ROUND = 77,
  PERF_RECORD_EVENT_UPDATE = 78,
  PERF_RECORD_TIME_CONV = 79,
  PERF_RECORD_HEADER_FEATURE = 80,
  PERF_RECORD_COMPRESSED = 81,
  PERF_RECORD_FINISHED_INIT = 82,
  PERF_RECORD_COMPRESSED2 = 83,

  PERF_RECORD_MAX_TYPE = 84,
};

/* header.misc bits. */
#define PERF_RECORD_MISC_CPUMODE_MASK       7
#define PERF_RECORD_MISC_KERNEL             1
#define PERF_RECORD_MISC_COMM_EXEC          (1 << 13)
#define PERF_RECORD_MISC_SWITCH_OUT         (1 << 13)
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#define PERF_RECORD_MISC_MMAP_BUILD_ID      (1 << 14)

/* perf_event_attr.type */
#define PERF_TYPE_HARDWARE    0
#define PERF_TYPE_SOFTWARE    1
#define PERF_TYPE_TRACEPOINT  2
#define PERF_COUNT_SW_DUMMY   9

/* perf_event_attr.sample_type, in the order the fields appear in a sample. */
enum
{
  PERF_SAMPLE_IP = 1u << 0,
  PERF_SAMPLE_TID = 1u << 1,
  PERF_SAMPLE_TIME = 1u << 2,
  PERF_SAMPLE_ADDR = 1u << 3,
  PERF_SAMPLE_READ = 1u << 4,
  PERF_SAMPLE_CALLCHAIN = 1u << 5,
  PERF_SAMPLE_ID = 1u << 6,
  PERF_SAMPLE_CPU = 1u << 7,
  PERF_SAMPLE_PERIOD = 1u << 8,
  PERF_SAMPLE_STREAM_ID = 1u << 9,
  PERF_SAMPLE_RAW = 1u << 10,
  PERF_SAMPLE_BRANCH_STACK = 1u << 11,
  PERF_SAMPLE_REGS_USER = 1u << 12,
  PERF_SAMPLE_STACK_USER = 1u << 13,
  PERF_SAMPLE_WEIGHT = 1u << 14,
  PERF_SAMPLE_DATA_SRC = 1u << 15,
  PERF_SAMPLE_IDENTIFIER = 1u << 16,
  PERF_SAMPLE_TRANSACTION = 1u << 17,
  PERF_SAMPLE_REGS_INTR = 1u << 18,
  PERF_SAMPLE_PHYS_ADDR = 1u << 19,
  PERF_SAMPLE_AUX = 1u << 20,
  PERF_SAMPLE_CGROUP = 1u << 21,
  PERF_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
  PERF_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
  PERF_SAMPLE_WEIGHT_STRUCT = 1u << 24,
};

/* perf_event_attr.read_format */
enum
{
  PERF_FORMAT_TOTAL_TIME_ENABLED = 1u << 0,
  PERF_FORMAT_TOTAL_TIME_RUNNING = 1u << 1,
  PERF_FORMAT_ID = 1u << 2,
  PERF_FORMAT_GROUP = 1u << 3,
  PERF_FORMAT_LOST = 1u << 4,
};

/* perf_event_attr's bit field word (after read_format), bit numbers. */
#define PERF_ATTR_FLAG_SAMPLE_ID_ALL  18
#define PERF_ATTR_FLAG_USE_CLOCKID    25
#define PERF_ATTR_FLAG_CONTEXT_SWITCH 26

/* perf_event_attr: byte offsets of the fields read, and the sizes of its
 * published versions. A file's attr may be of any size: fields past its
 * size are zero, fields past ours are skipped. */
#define PERF_ATTR_OFF_TYPE               0
#define PERF_ATTR_OFF_SIZE               4
#define PERF_ATTR_OFF_CONFIG             8
#define PERF_ATTR_OFF_SAMPLE_PERIOD     16
#define PERF_ATTR_OFF_SAMPLE_TYPE       24
#define PERF_ATTR_OFF_READ_FORMAT       32
#define PERF_ATTR_OFF_FLAGS             40
#define PERF_ATTR_OFF_BRANCH_SAMPLE     72
#define PERF_ATTR_OFF_REGS_USER         80
#define PERF_ATTR_OFF_STACK_USER        88
#define PERF_ATTR_OFF_CLOCKID           92
#define PERF_ATTR_OFF_REGS_INTR         96
#define PERF_ATTR_SIZE_VER0             64
#define PERF_ATTR_SIZE_KNOWN           136   /* VER8: config3 */

/* branch_sample_type: the sample's branch stack has a hw_idx word. */
#define PERF_SAMPLE_BRANCH_HW_INDEX     (1u << 17)

/* Feature bits of the file header (HEADER_*), in section order. */
enum
{
  PERF_FEAT_TRACING_DATA = 1,
  PERF_FEAT_BUILD_ID = 2,
  PERF_FEAT_HOSTNAME = 3,
  PERF_FEAT_OSRELEASE = 4,
  PERF_FEAT_VERSION = 5,
  PERF_FEAT_ARCH = 6,
  PERF_FEAT_NRCPUS = 7,
  PERF_FEAT_CPUDESC = 8,
  PERF_FEAT_CPUID = 9,
  PERF_FEAT_TOTAL_MEM = 10,
  PERF_FEAT_CMDLINE = 11,
  PERF_FEAT_EVENT_DESC = 12,
  PERF_FEAT_CPU_TOPOLOGY = 13,
  PERF_FEAT_NUMA_TOPOLOGY = 14,
  PERF_FEAT_BRANCH_STACK = 15,
  PERF_FEAT_PMU_MAPPINGS = 16,
  PERF_FEAT_GROUP_DESC = 17,
  PERF_FEAT_AUXTRACE = 18,
  PERF_FEAT_STAT = 19,
  PERF_FEAT_CACHE = 20,
  PERF_FEAT_SAMPLE_TIME = 21,
  PERF_FEAT_MEM_TOPOLOGY = 22,
  PERF_FEAT_CLOCKID = 23,
  PERF_FEAT_DIR_FORMAT = 24,
  PERF_FEAT_BPF_PROG_INFO = 25,
  PERF_FEAT_BPF_BTF = 26,
  PERF_FEAT_COMPRESSED = 27,
  PERF_FEAT_CPU_PMU_CAPS = 28,
  PERF_FEAT_CLOCK_DATA = 29,
  PERF_FEAT_HYBRID_TOPOLOGY = 30,
  PERF_FEAT_PMU_CAPS = 31,
  PERF_FEAT_BITS = 256,
};

/* PERF_RECORD_EVENT_UPDATE types. */
#define PERF_EVENT_UPDATE_NAME 2

G_END_DECLS
