/*
 * The independent model of specs/buffer-protocol.md (see spec_oracle.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "spec_oracle.h"

spec_range spec_device_tag_range(uint8_t byte) {
  /* BP-DEV-1: 0x00..0x08 named; BP-DEV-2: 0x09..0xEF reserved;
   * BP-DEV-3: 0xF0..0xFE private; BP-DEV-4: 0xFF invalid. */
  if (byte <= 8) return SPEC_NAMED;
  if (byte <= 239) return SPEC_RESERVED;
  if (byte <= 254) return SPEC_PRIVATE;
  return SPEC_INVALID;
}

spec_range spec_memory_class_range(uint8_t byte) {
  /* BP-MEM-1: 0x00..0x03 named; BP-MEM-3: 0x04..0xEF reserved, 0xFF invalid;
   * BP-MEM-2: 0xF0..0xFE private. */
  if (byte <= 3) return SPEC_NAMED;
  if (byte <= 239) return SPEC_RESERVED;
  if (byte <= 254) return SPEC_PRIVATE;
  return SPEC_INVALID;
}

bool spec_is_power_of_two(uint64_t value) {
  int bits = 0;
  for (int k = 0; k < 64; k++) {
    bits += (int)((value >> k) & 1u);
  }
  return bits == 1;
}

/* The rows of the BP-PAIR-1 table as printed in the spec, columns standard,
 * host_pinned, unified, peer. */
static const char *const pair_table_rows[9] = {
    "yes yes yes no ", /* cpu 0x00 */
    "yes yes yes yes", /* cuda 0x01 */
    "yes yes yes yes", /* rocm 0x02 */
    "yes yes yes no ", /* metal 0x03 */
    "yes yes yes yes", /* vulkan 0x04 */
    "yes no  no  no ", /* webgpu 0x05 */
    "yes yes yes no ", /* hexagon 0x06 */
    "yes yes yes yes", /* level_zero 0x07 */
    "yes yes yes no ", /* opencl 0x08 */
};
static const char *const private_device_row = "yes no  no  no "; /* 0xF0..0xFE */

static bool row_says_yes(const char *row, uint8_t memory_class) {
  return row[4 * memory_class] == 'y';
}

bool spec_pair_is_valid(uint8_t device_tag, uint8_t memory_class) {
  spec_range tag = spec_device_tag_range(device_tag);
  spec_range cls = spec_memory_class_range(memory_class);
  /* BP-PAIR-3: reserved or invalid on either side is never valid. */
  if (tag == SPEC_RESERVED || tag == SPEC_INVALID) return false;
  if (cls == SPEC_RESERVED || cls == SPEC_INVALID) return false;
  if (tag == SPEC_NAMED) {
    /* BP-PAIR-2: a named device never pairs with a private class. */
    return cls == SPEC_NAMED && row_says_yes(pair_table_rows[device_tag], memory_class);
  }
  /* A private device: its table row, plus every private class (BP-PAIR-2). */
  return cls == SPEC_PRIVATE || row_says_yes(private_device_row, memory_class);
}

static spec_verdict verdict(hurray_status status, uint64_t value, uint64_t expected,
                            bool has_expected) {
  spec_verdict v = {status, value, expected, has_expected, true};
  return v;
}

spec_verdict spec_handle_verdict(uint64_t byte_size, uint32_t alignment, uint8_t device_tag,
                                 uint8_t sync_mode, uint8_t memory_class, uint8_t reserved) {
  /* BP-ORDER-1, one step after the other. */
  if (reserved != 0) /* 1. BP-WIRE-2 */
    return verdict(HURRAY_ERR_RESERVED_BYTE_NONZERO, reserved, 0, false);
  switch (spec_device_tag_range(device_tag)) { /* 2. BP-DEV-2, BP-DEV-4 */
    case SPEC_RESERVED: return verdict(HURRAY_ERR_RESERVED_DEVICE_TAG, device_tag, 0, false);
    case SPEC_INVALID: return verdict(HURRAY_ERR_INVALID_DEVICE_TAG, device_tag, 0, false);
    default: break;
  }
  if (sync_mode > 2) /* 3. BP-SYNC-1: expected 0 */
    return verdict(HURRAY_ERR_INVALID_SYNC_MODE, sync_mode, 0, true);
  switch (spec_memory_class_range(memory_class)) { /* 4. BP-MEM-3 */
    case SPEC_RESERVED: return verdict(HURRAY_ERR_RESERVED_MEMORY_CLASS, memory_class, 0, false);
    case SPEC_INVALID: return verdict(HURRAY_ERR_INVALID_MEMORY_CLASS, memory_class, 0, false);
    default: break;
  }
  if (!spec_is_power_of_two(alignment)) /* 5. BP-ALIGN-1 */
    return verdict(HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, alignment, 0, false);
  if (byte_size > 0 && alignment < 64) /* 6. BP-ALIGN-2 (BP-ALIGN-3 for empty) */
    return verdict(HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, alignment, 64, true);
  if (device_tag == 0 && sync_mode != 0) /* 7. BP-SYNC-2 */
    return verdict(HURRAY_ERR_INVALID_SYNC_MODE, sync_mode, 0, true);
  if (!spec_pair_is_valid(device_tag, memory_class)) /* 8. BP-PAIR-1 */
    return verdict(HURRAY_ERR_INVALID_PAIR, memory_class, device_tag, true);
  return verdict(HURRAY_OK, 0, 0, false);
}

void spec_put_handle(uint8_t out[16], uint64_t byte_size, uint32_t alignment, uint8_t device_tag,
                     uint8_t sync_mode, uint8_t memory_class, uint8_t reserved) {
  for (int k = 0; k < 8; k++) out[k] = (uint8_t)(byte_size / ((uint64_t)1 << (8 * k)) % 256u);
  for (int k = 0; k < 4; k++) out[8 + k] = (uint8_t)(alignment / ((uint64_t)1 << (8 * k)) % 256u);
  out[12] = device_tag;
  out[13] = sync_mode;
  out[14] = memory_class;
  out[15] = reserved;
}

/* The rows of the BP-DLPACK-1 table: device tag, memory class, DLDeviceType. */
static const struct {
  uint8_t tag;
  uint8_t memory_class;
  int32_t type;
} dlpack_rows[] = {
    {0x00, 0x00, 1},  {0x00, 0x01, 1},  {0x00, 0x02, 1},  /* cpu: kDLCPU */
    {0x01, 0x00, 2},                                      /* cuda standard: kDLCUDA */
    {0x01, 0x01, 3},                                      /* cuda host_pinned: kDLCUDAHost */
    {0x01, 0x02, 13},                                     /* cuda unified: kDLCUDAManaged */
    {0x02, 0x00, 10},                                     /* rocm standard: kDLROCM */
    {0x02, 0x01, 11},                                     /* rocm host_pinned: kDLROCMHost */
    {0x03, 0x00, 8},  {0x03, 0x01, 8},  {0x03, 0x02, 8},  /* metal: kDLMetal */
    {0x04, 0x00, 7},  {0x04, 0x01, 7},  {0x04, 0x02, 7},  /* vulkan: kDLVulkan */
    {0x05, 0x00, 15},                                     /* webgpu standard: kDLWebGPU */
    {0x06, 0x00, 16}, {0x06, 0x01, 16}, {0x06, 0x02, 16}, /* hexagon: kDLHexagon */
    {0x07, 0x00, 14}, {0x07, 0x01, 14}, {0x07, 0x02, 14}, /* level_zero: kDLOneAPI */
    {0x08, 0x00, 4},  {0x08, 0x01, 4},  {0x08, 0x02, 4},  /* opencl: kDLOpenCL */
};

int32_t spec_dlpack_type(uint8_t device_tag, uint8_t memory_class) {
  for (size_t i = 0; i < sizeof dlpack_rows / sizeof dlpack_rows[0]; i++) {
    if (dlpack_rows[i].tag == device_tag && dlpack_rows[i].memory_class == memory_class) {
      return dlpack_rows[i].type;
    }
  }
  return 0;
}

bool spec_transport_allows(hurray_transport transport, uint8_t sync_mode,
                           uint32_t ipc_capabilities) {
  switch (transport) {
    case HURRAY_TRANSPORT_IN_PROCESS: return true; /* BP-XPORT-2 */
    case HURRAY_TRANSPORT_IPC:                     /* BP-XPORT-3 */
      if (sync_mode == 0) return true;
      if (sync_mode == 1) return (ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0;
      return (ipc_capabilities & HURRAY_IPC_EXPORTS_STREAMS) != 0;
    case HURRAY_TRANSPORT_NETWORK: return sync_mode == 0; /* BP-XPORT-4 */
  }
  return false;
}

/* The fields of a handle read back from its 16 bytes per BP-WIRE-1. */
static uint64_t little_endian(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; k--) v = v * 256u + p[k];
  return v;
}

spec_verdict spec_table_verdict(const uint8_t *in, size_t len, size_t cap, size_t *index) {
  *index = SIZE_MAX;
  if (len < 1) /* BP-TABLE-2 */
    return verdict(HURRAY_ERR_TRUNCATED, len, 1, true);
  size_t count = in[0];
  size_t needed = 1 + 16 * count;
  if (len < needed) /* BP-TABLE-2 */
    return verdict(HURRAY_ERR_TRUNCATED, len, needed, true);
  if (count == 0) { /* BP-TABLE-3: no payload named */
    spec_verdict v = verdict(HURRAY_ERR_EMPTY_BUFFER_LIST, 0, 0, false);
    v.has_value = false;
    return v;
  }
  if (cap < count) /* BP-TABLE-4 */
    return verdict(HURRAY_ERR_CAPACITY, count, cap, true);
  for (size_t i = 0; i < count; i++) { /* BP-TABLE-5 */
    const uint8_t *h = in + 1 + 16 * i;
    spec_verdict v = spec_handle_verdict(little_endian(h, 8), (uint32_t)little_endian(h + 8, 4),
                                         h[12], h[13], h[14], h[15]);
    if (v.status != HURRAY_OK) {
      *index = i;
      return v;
    }
  }
  const uint8_t *first = in + 1;
  for (size_t i = 1; i < count; i++) { /* BP-COLOC-2 */
    const uint8_t *h = in + 1 + 16 * i;
    if (h[12] != first[12]) {
      *index = i;
      return verdict(HURRAY_ERR_DEVICE_TAG_MISMATCH, h[12], first[12], true);
    }
    if (h[14] != first[14]) {
      *index = i;
      return verdict(HURRAY_ERR_MEMORY_CLASS_MISMATCH, h[14], first[14], true);
    }
  }
  return verdict(HURRAY_OK, 0, 0, false);
}
