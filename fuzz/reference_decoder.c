/*
 * The reference reader: table-driven from specs/buffer-protocol.md, written
 * without looking at core/ so that it checks the rules, not the code.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "reference_decoder.h"

#include <string.h>

#include "fuzz_check.h"

FUZZ_ORACLE_BEGIN

/* ---- Byte ranges: BP-DEV-1..4, BP-MEM-1..3, BP-SYNC-1 ------------------- */

typedef struct byte_range {
  uint8_t first;
  uint8_t last;
  ref_kind kind;
} byte_range;

static const byte_range device_ranges[] = {
    {0x00, 0x08, REF_NAMED},
    {0x09, 0xEF, REF_RESERVED},
    {0xF0, 0xFE, REF_PRIVATE},
    {0xFF, 0xFF, REF_INVALID},
};

static const byte_range memory_class_ranges[] = {
    {0x00, 0x03, REF_NAMED},
    {0x04, 0xEF, REF_RESERVED},
    {0xF0, 0xFE, REF_PRIVATE},
    {0xFF, 0xFF, REF_INVALID},
};

/* BP-SYNC-1 has no private modes; the spec's facts table calls 0x03..0xFE
 * reserved and 0xFF invalid. */
static const byte_range sync_mode_ranges[] = {
    {0x00, 0x02, REF_NAMED},
    {0x03, 0xFE, REF_RESERVED},
    {0xFF, 0xFF, REF_INVALID},
};

/* The range tables expanded to one entry per byte on first use, so that the
 * oracle costs a lookup per field (fuzzing speed), while the ranges above stay
 * the spec's text. */
typedef struct kind_lookup {
  bool built;
  uint8_t kind[256];
} kind_lookup;

static kind_lookup device_lookup;
static kind_lookup memory_class_lookup;
static kind_lookup sync_mode_lookup;

static void build_lookup(kind_lookup *lookup, const byte_range *ranges, size_t n) {
  bool seen[256] = {false};
  for (size_t i = 0; i < n; i++) {
    for (unsigned b = ranges[i].first; b <= ranges[i].last; b++) {
      FUZZ_CHECK(!seen[b]); /* the spec's ranges do not overlap */
      seen[b] = true;
      lookup->kind[b] = (uint8_t)ranges[i].kind;
    }
  }
  for (unsigned b = 0; b < 256; b++) {
    FUZZ_CHECK(seen[b]); /* and cover every byte */
  }
  lookup->built = true;
}

static ref_kind kind_in(kind_lookup *lookup, const byte_range *ranges, size_t n, uint8_t byte) {
  if (!lookup->built) {
    build_lookup(lookup, ranges, n);
  }
  return (ref_kind)lookup->kind[byte];
}

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

ref_kind ref_device_kind(uint8_t byte) {
  return kind_in(&device_lookup, device_ranges, COUNT_OF(device_ranges), byte);
}

ref_kind ref_memory_class_kind(uint8_t byte) {
  return kind_in(&memory_class_lookup, memory_class_ranges, COUNT_OF(memory_class_ranges), byte);
}

ref_kind ref_sync_mode_kind(uint8_t byte) {
  return kind_in(&sync_mode_lookup, sync_mode_ranges, COUNT_OF(sync_mode_ranges), byte);
}

static const char *const device_names[] = {"cpu",    "cuda",    "rocm",       "metal", "vulkan",
                                           "webgpu", "hexagon", "level_zero", "opencl"};
static const char *const memory_class_names[] = {"standard", "host_pinned", "unified", "peer"};
static const char *const sync_mode_names[] = {"producer_synced", "event", "consumer_stream"};
static const char *const kind_names[] = {"", "reserved", "private", "invalid"};

const char *ref_device_name(uint8_t byte) {
  ref_kind kind = ref_device_kind(byte);
  return kind == REF_NAMED ? device_names[byte] : kind_names[kind];
}

const char *ref_memory_class_name(uint8_t byte) {
  ref_kind kind = ref_memory_class_kind(byte);
  return kind == REF_NAMED ? memory_class_names[byte] : kind_names[kind];
}

const char *ref_sync_mode_name(uint8_t byte) {
  ref_kind kind = ref_sync_mode_kind(byte);
  return kind == REF_NAMED ? sync_mode_names[byte] : kind_names[kind];
}

/* ---- BP-PAIR-1: the grid as printed in the spec (Y = yes) ------------- */

/* Rows: named devices 0x00..0x08; columns: standard, host_pinned, unified, peer. */
static const char pair_grid[9][5] = {
    "YYYN", /* cpu */
    "YYYY", /* cuda */
    "YYYY", /* rocm */
    "YYYN", /* metal */
    "YYYY", /* vulkan */
    "YNNN", /* webgpu */
    "YYYN", /* hexagon */
    "YYYY", /* level_zero */
    "YYYN", /* opencl */
};

bool ref_pair_valid(uint8_t device_tag, uint8_t memory_class) {
  ref_kind device = ref_device_kind(device_tag);
  ref_kind memory = ref_memory_class_kind(memory_class);
  if (device == REF_NAMED && memory == REF_NAMED) {
    return pair_grid[device_tag][memory_class] == 'Y';
  }
  if (device == REF_PRIVATE) { /* BP-PAIR-1 last row, BP-PAIR-2 */
    return memory_class == 0x00 || memory == REF_PRIVATE;
  }
  return false; /* BP-PAIR-2 (named with private), BP-PAIR-3 */
}

/* ---- BP-ORDER-1 as a rule list --------------------------------------- */

typedef ref_verdict (*field_rule)(const ref_fields *f);

static ref_verdict rule_device_tag(const ref_fields *f) {
  switch (ref_device_kind(f->device_tag)) {
    case REF_RESERVED: return ref_fail(HURRAY_ERR_RESERVED_DEVICE_TAG, f->device_tag, 0, 0);
    case REF_INVALID: return ref_fail(HURRAY_ERR_INVALID_DEVICE_TAG, f->device_tag, 0, 0);
    default: return ref_ok();
  }
}

static ref_verdict rule_sync_mode_defined(const ref_fields *f) {
  if (ref_sync_mode_kind(f->sync_mode) != REF_NAMED) {
    return ref_fail(HURRAY_ERR_INVALID_SYNC_MODE, f->sync_mode, 0, 0);
  }
  return ref_ok();
}

static ref_verdict rule_memory_class(const ref_fields *f) {
  switch (ref_memory_class_kind(f->memory_class)) {
    case REF_RESERVED: return ref_fail(HURRAY_ERR_RESERVED_MEMORY_CLASS, f->memory_class, 0, 0);
    case REF_INVALID: return ref_fail(HURRAY_ERR_INVALID_MEMORY_CLASS, f->memory_class, 0, 0);
    default: return ref_ok();
  }
}

static ref_verdict rule_alignment_power_of_two(const ref_fields *f) {
  if (__builtin_popcount(f->alignment) != 1) {
    return ref_fail(HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, f->alignment, 0, 0);
  }
  return ref_ok();
}

static ref_verdict rule_alignment_minimum(const ref_fields *f) {
  bool empty = f->byte_size == 0; /* BP-ALIGN-3 */
  if (!empty && f->alignment < 64u) {
    return ref_fail(HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, f->alignment, 64u, 0);
  }
  return ref_ok();
}

static ref_verdict rule_cpu_sync(const ref_fields *f) {
  if (f->device_tag == 0x00 && f->sync_mode != 0x00) {
    return ref_fail(HURRAY_ERR_INVALID_SYNC_MODE, f->sync_mode, 0x00, 0);
  }
  return ref_ok();
}

static ref_verdict rule_pair(const ref_fields *f) {
  if (!ref_pair_valid(f->device_tag, f->memory_class)) {
    return ref_fail(HURRAY_ERR_INVALID_PAIR, f->memory_class, f->device_tag, 0);
  }
  return ref_ok();
}

static const field_rule order_steps_2_to_8[] = {
    rule_device_tag,        rule_sync_mode_defined, rule_memory_class, rule_alignment_power_of_two,
    rule_alignment_minimum, rule_cpu_sync,          rule_pair,
};

ref_verdict ref_check_fields(const ref_fields *fields, size_t index) {
  for (size_t i = 0; i < COUNT_OF(order_steps_2_to_8); i++) {
    ref_verdict v = order_steps_2_to_8[i](fields);
    if (v.status != HURRAY_OK) {
      v.index = index;
      return v;
    }
  }
  return ref_ok();
}

ref_fields ref_read_fields(const uint8_t *in) {
  ref_fields f;
  f.byte_size = fuzz_read_u64(in);
  f.alignment = fuzz_read_u32(in + 8);
  f.device_tag = in[12];
  f.sync_mode = in[13];
  f.memory_class = in[14];
  return f;
}

ref_verdict ref_decode_handle(const uint8_t *in, size_t index, ref_fields *out) {
  if (in[15] != 0x00) { /* step 1, BP-WIRE-2 */
    return ref_fail(HURRAY_ERR_RESERVED_BYTE_NONZERO, in[15], 0, index);
  }
  ref_fields f = ref_read_fields(in);
  ref_verdict v = ref_check_fields(&f, index);
  if (v.status == HURRAY_OK) {
    *out = f;
  }
  return v;
}

ref_verdict ref_colocation(const ref_fields *handles, size_t n) {
  if (n == 0) {
    return ref_fail(HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 0, 0);
  }
  for (size_t i = 1; i < n; i++) {
    if (handles[i].device_tag != handles[0].device_tag) {
      return ref_fail(HURRAY_ERR_DEVICE_TAG_MISMATCH, handles[i].device_tag, handles[0].device_tag,
                      i);
    }
    if (handles[i].memory_class != handles[0].memory_class) {
      return ref_fail(HURRAY_ERR_MEMORY_CLASS_MISMATCH, handles[i].memory_class,
                      handles[0].memory_class, i);
    }
  }
  return ref_ok();
}

ref_verdict ref_decode_table(const uint8_t *in, size_t len, size_t cap, bool exact, ref_fields *out,
                             size_t *count) {
  if (len == 0) { /* BP-TABLE-2 */
    return ref_fail(HURRAY_ERR_TRUNCATED, 0, 1, 0);
  }
  size_t n = in[0];
  size_t occupied = 1 + 16 * n; /* BP-TABLE-1 */
  if (len < occupied) {
    return ref_fail(HURRAY_ERR_TRUNCATED, len, occupied, 0);
  }
  if (n == 0) { /* BP-TABLE-3 */
    return ref_fail(HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 0, 0);
  }
  if (cap < n) { /* BP-TABLE-4 */
    return ref_fail(HURRAY_ERR_CAPACITY, n, cap, 0);
  }
  for (size_t i = 0; i < n; i++) { /* BP-TABLE-5 */
    ref_verdict v = ref_decode_handle(in + 1 + 16 * i, i, &out[i]);
    if (v.status != HURRAY_OK) {
      return v;
    }
  }
  ref_verdict v = ref_colocation(out, n);
  if (v.status != HURRAY_OK) {
    return v;
  }
  if (exact && len != occupied) { /* BP-TABLE-6 */
    return ref_fail(HURRAY_ERR_TRAILING_BYTES, len, occupied, 0);
  }
  *count = n;
  return ref_ok();
}

/* ---- BP-DLPACK-1/2 as rows ------------------------------------------- */

typedef struct dlpack_row {
  uint8_t device_tag;
  uint8_t memory_classes; /* bit k: class k maps to this row */
  int32_t device_type;
  uint8_t import_class; /* BP-DLPACK-2 */
} dlpack_row;

#define STD 0x1u
#define PIN 0x2u
#define UNI 0x4u

static const dlpack_row dlpack_rows[] = {
    {0x00, STD | PIN | UNI, 1, 0x00},  /* cpu: kDLCPU */
    {0x01, STD, 2, 0x00},              /* cuda: kDLCUDA */
    {0x01, PIN, 3, 0x01},              /* cuda: kDLCUDAHost */
    {0x01, UNI, 13, 0x02},             /* cuda: kDLCUDAManaged */
    {0x02, STD, 10, 0x00},             /* rocm: kDLROCM */
    {0x02, PIN, 11, 0x01},             /* rocm: kDLROCMHost */
    {0x03, STD | PIN | UNI, 8, 0x00},  /* metal: kDLMetal */
    {0x04, STD | PIN | UNI, 7, 0x00},  /* vulkan: kDLVulkan */
    {0x05, STD, 15, 0x00},             /* webgpu: kDLWebGPU */
    {0x06, STD | PIN | UNI, 16, 0x00}, /* hexagon: kDLHexagon */
    {0x07, STD | PIN | UNI, 14, 0x00}, /* level_zero: kDLOneAPI */
    {0x08, STD | PIN | UNI, 4, 0x00},  /* opencl: kDLOpenCL */
};

int32_t ref_dlpack_export(uint8_t device_tag, uint8_t memory_class) {
  for (size_t i = 0; i < COUNT_OF(dlpack_rows); i++) {
    const dlpack_row *row = &dlpack_rows[i];
    if (row->device_tag == device_tag && memory_class < 8 &&
        ((row->memory_classes >> memory_class) & 1u) != 0) {
      return row->device_type;
    }
  }
  return 0;
}

bool ref_dlpack_import(int32_t device_type, uint8_t *device_tag, uint8_t *memory_class) {
  for (size_t i = 0; i < COUNT_OF(dlpack_rows); i++) {
    if (dlpack_rows[i].device_type == device_type) {
      *device_tag = dlpack_rows[i].device_tag;
      *memory_class = dlpack_rows[i].import_class;
      return true;
    }
  }
  return false;
}

/* ---- BP-XPORT-1..4 --------------------------------------------------- */

ref_verdict ref_transport_check(uint32_t transport, uint8_t mode, uint32_t ipc_capabilities) {
  if (transport > 2) {
    return ref_fail(HURRAY_ERR_INVALID_ARGUMENT, transport, 0, 0);
  }
  if (ref_sync_mode_kind(mode) != REF_NAMED) {
    return ref_fail(HURRAY_ERR_INVALID_SYNC_MODE, mode, 0, 0);
  }
  /* allowed[transport][mode]; IPC's event and stream columns depend on the
   * device's capability bits. */
  bool allowed;
  switch (transport) {
    case 0: allowed = true; break;
    case 1:
      allowed = mode == 0 || (mode == 1 && (ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS)) ||
                (mode == 2 && (ipc_capabilities & HURRAY_IPC_EXPORTS_STREAMS));
      break;
    default: allowed = mode == 0; break;
  }
  return allowed ? ref_ok() : ref_fail(HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, mode, transport, 0);
}

uint32_t ref_default_ipc_capabilities(uint8_t device_tag) {
  return (device_tag == 0x01 || device_tag == 0x02) ? HURRAY_IPC_EXPORTS_EVENTS : 0u;
}

uint32_t ref_alignment_of(uintptr_t address) {
  if (address == 0) {
    return 0x80000000u;
  }
  int zeros = __builtin_ctzll((unsigned long long)address);
  return zeros >= 31 ? 0x80000000u : (uint32_t)1u << zeros;
}

/* ---- Comparing verdicts ---------------------------------------------- */

enum { CMP_VALUE = 1, CMP_EXPECTED = 2, CMP_INDEX = 4 };

/* Which payload fields each status documents in include/hurray/buffer.h. */
static unsigned documented_payload(hurray_status status) {
  switch (status) {
    case HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO:
    case HURRAY_ERR_RESERVED_DEVICE_TAG:
    case HURRAY_ERR_INVALID_DEVICE_TAG:
    case HURRAY_ERR_RESERVED_MEMORY_CLASS:
    case HURRAY_ERR_INVALID_MEMORY_CLASS:
    case HURRAY_ERR_RESERVED_BYTE_NONZERO: return CMP_VALUE | CMP_INDEX;
    case HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM:
    case HURRAY_ERR_INVALID_SYNC_MODE:
    case HURRAY_ERR_INVALID_PAIR:
    case HURRAY_ERR_DEVICE_TAG_MISMATCH:
    case HURRAY_ERR_MEMORY_CLASS_MISMATCH: return CMP_VALUE | CMP_EXPECTED | CMP_INDEX;
    case HURRAY_ERR_TRUNCATED:
    case HURRAY_ERR_TRAILING_BYTES:
    case HURRAY_ERR_CAPACITY:
    case HURRAY_ERR_SYNC_MODE_NOT_ALLOWED:
    case HURRAY_ERR_UNSUPPORTED: return CMP_VALUE | CMP_EXPECTED;
    case HURRAY_ERR_NULL_ARGUMENT: return CMP_INDEX;
    case HURRAY_ERR_INVALID_ARGUMENT: return CMP_VALUE;
    default: return 0;
  }
}

bool ref_verdict_matches(ref_verdict want, hurray_status got, const hurray_error *err) {
  if (got != want.status) {
    return false;
  }
  if (got == HURRAY_OK || err == NULL) {
    return true;
  }
  unsigned fields = documented_payload(got);
  return err->status == got && ((fields & CMP_VALUE) == 0 || err->value == want.value) &&
         ((fields & CMP_EXPECTED) == 0 || err->expected == want.expected) &&
         ((fields & CMP_INDEX) == 0 || err->index == want.index) && err->detail[0] == '\0';
}

static hurray_error poisoned_error;
static bool poisoned_error_built;

static const hurray_error *poison_pattern(void) {
  if (!poisoned_error_built) {
    memset(&poisoned_error, 0xA5, sizeof poisoned_error);
    poisoned_error_built = true;
  }
  return &poisoned_error;
}

/* memcpy and memcmp, not assignment: padding bytes count too. */
void ref_error_poison(hurray_error *err) { memcpy(err, poison_pattern(), sizeof *err); }

bool ref_error_is_poisoned(const hurray_error *err) {
  return memcmp(err, poison_pattern(), sizeof *err) == 0;
}

FUZZ_ORACLE_END
