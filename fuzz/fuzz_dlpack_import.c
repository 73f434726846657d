/*
 * Fuzz target dlpack_import: a DLPack producer's tensor taken into a handoff
 * (hurray_dlpack_import, hurray_dlpack_import_versioned; BP-DLPACK-9 ..
 * BP-DLPACK-14). The tensor is what an untrusted producer hands over, so
 * every field is the fuzzer's.
 *
 * Input (missing bytes read as 0):
 *   byte 0      bit 0 versioned, bit 1 strides given, bit 2 data NULL,
 *               bit 3 no deleter
 *   byte 1      device_type (as int8_t: -128..127)
 *   byte 2      ndim (as int8_t)
 *   byte 3..6   dtype: code, bits, lanes (u16)
 *   byte 7..8   offset of data from a 4096-aligned base (u16, mod 4096)
 *   byte 9      byte_offset: 0..254 as is, 255 the u64 at bytes 10..17
 *   byte 18..19 version major, minor (versioned only)
 *   byte 20..27 flags (versioned only)
 *   byte 28..   per dimension 2 bytes for its extent, then (strides given)
 *               2 bytes for its stride; each pair b0, b1:
 *                 b1 bit 7 set: a special value (b0 % 6: INT64_MAX,
 *                   INT64_MIN, -1, 2^32, 2^62, 0)
 *                 stride with b1 bit 6 set: the compact stride there
 *                 otherwise (b0 | b1 << 8) & 0x3FFF
 *
 * Oracle: the rules of BP-DLPACK-9..14 recomputed here in the order the
 * spec lists them (device, element, ndim, extents, size, strides, address,
 * data, alignment) give the verdict: status, and the value the spec names.
 * On OK the handoff holds an offer whose accepted handle is exactly the one
 * the rules build (size, measured alignment, tag and class of the device
 * type, producer_synced) at data + byte_offset, the versioned flags are
 * handed back, and the deleter runs exactly once, at the release. On any
 * refusal the handoff is still EMPTY and no deleter ran (BP-DLPACK-13).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "fuzz_check.h"
#include "hurray/dlpack.h"
#include "hurray/handoff.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

/* More than HURRAY_DLPACK_MAX_NDIM, so every accepted ndim has its extents. */
enum { MAX_DIMS = 80, ARENA = 3 * 4096 };

static unsigned deleter_calls;
static void count_legacy(hurray_dl_managed_tensor *self) {
  (void)self;
  deleter_calls++;
}
static void count_versioned(hurray_dl_managed_tensor_versioned *self) {
  (void)self;
  deleter_calls++;
}

static uint8_t byte_at(const uint8_t *data, size_t size, size_t i) {
  return i < size ? data[i] : 0u;
}

static int64_t special_value(uint8_t b0) {
  static const int64_t values[6] = {INT64_MAX,        INT64_MIN,        -1,
                                    INT64_C(1) << 32, INT64_C(1) << 62, 0};
  return values[b0 % 6u];
}

/* BP-DLPACK-9: device types whose data is an object handle. */
static bool ref_object_handle(int32_t device_type) {
  return device_type == HURRAY_DLPACK_OPENCL || device_type == HURRAY_DLPACK_VULKAN ||
         device_type == HURRAY_DLPACK_METAL || device_type == HURRAY_DLPACK_WEBGPU;
}

typedef struct expected_import {
  ref_verdict verdict;
  bool value_known; /* the spec names the value for this refusal */
  uint64_t byte_size;
  uint32_t alignment;
  uint8_t tag;
  uint8_t memory_class;
} expected_import;

static expected_import reference_import(const hurray_dl_tensor *t) {
  expected_import e;
  memset(&e, 0, sizeof e);
  e.value_known = true;
  if (!ref_dlpack_import(t->device.device_type, &e.tag, &e.memory_class) ||
      ref_object_handle(t->device.device_type)) {
    e.verdict = ref_fail(HURRAY_ERR_UNSUPPORTED, (uint64_t)(int64_t)t->device.device_type, 0, 0);
    return e;
  }
  const uint64_t bits = (uint64_t)t->dtype.bits * t->dtype.lanes;
  if (t->dtype.bits == 0u || t->dtype.lanes == 0u || bits % 8u != 0u) {
    e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, bits, 0, 1);
    e.value_known = false; /* the spec names the field, not a value */
    return e;
  }
  if (t->ndim < 0 || t->ndim > HURRAY_DLPACK_MAX_NDIM) {
    e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 1);
    e.value_known = false;
    return e;
  }
  bool zero_extent = false;
  for (int32_t i = 0; i < t->ndim; i++) {
    if (t->shape[i] < 0) {
      e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 1);
      e.value_known = false;
      return e;
    }
    zero_extent = zero_extent || t->shape[i] == 0;
  }
  /* Overflow seen by the compiler's checked multiply rather than avoided by
   * division, as the library does. */
  uint64_t count = 1u;
  if (zero_extent) {
    count = 0u;
  } else {
    for (int32_t i = 0; i < t->ndim; i++) {
      if (__builtin_mul_overflow(count, (uint64_t)t->shape[i], &count)) {
        e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 1);
        e.value_known = false;
        return e;
      }
    }
  }
  if (__builtin_mul_overflow(count, bits / 8u, &e.byte_size)) {
    e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, 0, 0, 1);
    e.value_known = false;
    return e;
  }
  if (t->strides != NULL && count != 0u) {
    uint64_t compact = 1u; /* a product of extents, each a factor of count: no overflow */
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
      if (t->shape[i] > 1 && (t->strides[i] < 0 || (uint64_t)t->strides[i] != compact)) {
        e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)t->strides[i], compact, 1);
        return e;
      }
      compact *= (uint64_t)t->shape[i];
    }
  }
  const uintptr_t base = (uintptr_t)t->data;
  if (t->byte_offset > (uint64_t)(UINTPTR_MAX - base)) {
    e.verdict = ref_fail(HURRAY_ERR_INVALID_ARGUMENT, t->byte_offset, 0, 1);
    return e;
  }
  if (t->data == NULL && e.byte_size != 0u) {
    e.verdict = ref_fail(HURRAY_ERR_NULL_ARGUMENT, 0, 0, 1);
    return e;
  }
  e.alignment = ref_alignment_of(base + (uintptr_t)t->byte_offset);
  if (e.byte_size != 0u && e.alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    e.verdict =
        ref_fail(HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, e.alignment, HURRAY_MIN_BUFFER_ALIGNMENT, 0);
    return e;
  }
  e.verdict = ref_ok();
  return e;
}

static _Alignas(4096) uint8_t arena[ARENA];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t mode = byte_at(data, size, 0);
  const bool versioned = (mode & 1u) != 0u;
  const bool with_strides = (mode & 2u) != 0u;
  const bool null_data = (mode & 4u) != 0u;
  const bool no_deleter = (mode & 8u) != 0u;

  hurray_dl_tensor t;
  memset(&t, 0, sizeof t);
  t.device.device_type = (int8_t)byte_at(data, size, 1);
  t.ndim = (int8_t)byte_at(data, size, 2);
  t.dtype.code = byte_at(data, size, 3);
  t.dtype.bits = byte_at(data, size, 4);
  t.dtype.lanes = (uint16_t)(byte_at(data, size, 5) | byte_at(data, size, 6) << 8);
  size_t misalign = (size_t)(byte_at(data, size, 7) | byte_at(data, size, 8) << 8) % 4096u;
  t.data = null_data ? NULL : arena + misalign;
  uint8_t offset_byte = byte_at(data, size, 9);
  if (offset_byte == 255u) {
    uint8_t raw[8];
    for (size_t k = 0; k < 8; k++) {
      raw[k] = byte_at(data, size, 10 + k);
    }
    t.byte_offset = fuzz_read_u64(raw);
  } else {
    t.byte_offset = offset_byte;
  }
  int64_t shape[MAX_DIMS];
  int64_t strides[MAX_DIMS];
  memset(shape, 0, sizeof shape);
  memset(strides, 0, sizeof strides);
  /* Dimensions beyond MAX_DIMS exist only when ndim is out of range, which
   * is refused before any extent is read. */
  int32_t dims = t.ndim < 0 ? 0 : (t.ndim > MAX_DIMS ? MAX_DIMS : t.ndim);
  size_t at = 28;
  for (int32_t i = 0; i < dims; i++) {
    uint8_t b0 = byte_at(data, size, at);
    uint8_t b1 = byte_at(data, size, at + 1);
    at += 2;
    shape[i] = (b1 & 0x80u) != 0u ? special_value(b0) : (int64_t)((b0 | b1 << 8) & 0x3FFF);
  }
  if (with_strides) {
    int64_t compact = 1;
    for (int32_t i = dims - 1; i >= 0; i--) {
      uint8_t b0 = byte_at(data, size, at + 2u * (size_t)i);
      uint8_t b1 = byte_at(data, size, at + 2u * (size_t)i + 1);
      strides[i] = (b1 & 0x80u) != 0u   ? special_value(b0)
                   : (b1 & 0x40u) != 0u ? compact
                                        : (int64_t)((b0 | b1 << 8) & 0x3FFF);
      /* The compact stride of the dimension before; wrapping is harmless
       * here (the oracle computes its own in 128 bits). */
      compact = (int64_t)((uint64_t)compact * (uint64_t)(shape[i] > 0 ? shape[i] : 1));
    }
  }
  t.shape = shape;
  t.strides = with_strides ? strides : NULL;

  hurray_dl_managed_tensor legacy;
  hurray_dl_managed_tensor_versioned modern;
  memset(&legacy, 0, sizeof legacy);
  memset(&modern, 0, sizeof modern);
  legacy.dl_tensor = t;
  legacy.deleter = no_deleter ? NULL : count_legacy;
  modern.version.major = byte_at(data, size, 18);
  modern.version.minor = byte_at(data, size, 19);
  uint8_t raw_flags[8];
  for (size_t k = 0; k < 8; k++) {
    raw_flags[k] = byte_at(data, size, 20 + k);
  }
  modern.flags = fuzz_read_u64(raw_flags);
  modern.dl_tensor = t;
  modern.deleter = no_deleter ? NULL : count_versioned;

  expected_import want = reference_import(&t);
  if (versioned && modern.version.major != HURRAY_DLPACK_VERSION_MAJOR) {
    want.verdict = ref_fail(HURRAY_ERR_UNSUPPORTED, modern.version.major,
                            HURRAY_DLPACK_VERSION_MAJOR, 0); /* BP-DLPACK-14: read first */
    want.value_known = true;
  }

  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  deleter_calls = 0;
  hurray_error err;
  ref_error_poison(&err);
  uint64_t flags_back = 0xEEu;
  hurray_status s = versioned ? hurray_dlpack_import_versioned(&handoff, &modern, &flags_back, &err)
                              : hurray_dlpack_import(&handoff, &legacy, &err);
  FUZZ_CHECK(deleter_calls == 0u);
  if (want.verdict.status != HURRAY_OK) {
    /* The runtime names the field in detail (ref_verdict_matches is for the
     * core's detail-less errors): status, index, and the values the spec
     * names. */
    FUZZ_CHECK(s == want.verdict.status && err.status == s && err.index == want.verdict.index);
    FUZZ_CHECK(err.detail[0] != '\0');
    if (want.value_known) {
      FUZZ_CHECK(err.value == want.verdict.value && err.expected == want.verdict.expected);
    }
    /* BP-DLPACK-13: nothing taken. */
    FUZZ_CHECK(hurray_handoff_state_of(&handoff) == HURRAY_HANDOFF_EMPTY);
    FUZZ_CHECK(flags_back == 0xEEu);
    FUZZ_CHECK(hurray_handoff_destroy(&handoff, &err) == HURRAY_OK);
    FUZZ_CHECK(deleter_calls == 0u);
    return 0;
  }
  FUZZ_CHECK(s == HURRAY_OK);
  FUZZ_CHECK(hurray_handoff_state_of(&handoff) == HURRAY_HANDOFF_OFFERED);
  if (versioned) {
    FUZZ_CHECK(flags_back == modern.flags); /* BP-DLPACK-14: handed back, none refused */
  }
  /* The consumer's view: accept cross-checks the offer (BP-DLPACK-12). */
  hurray_accepted_buffer accepted = HURRAY_ACCEPTED_BUFFER_INIT;
  FUZZ_CHECK(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IN_PROCESS, 0, &accepted, &err) ==
             HURRAY_OK);
  FUZZ_CHECK(accepted.handle.byte_size == want.byte_size);
  FUZZ_CHECK(accepted.handle.alignment == want.alignment);
  FUZZ_CHECK(accepted.handle.device_tag == want.tag);
  FUZZ_CHECK(accepted.handle.memory_class == want.memory_class);
  FUZZ_CHECK(accepted.handle.sync_mode == HURRAY_SYNC_PRODUCER_SYNCED);
  FUZZ_CHECK((uintptr_t)accepted.data == (uintptr_t)t.data + (uintptr_t)t.byte_offset);
  FUZZ_CHECK(deleter_calls == 0u);
  FUZZ_CHECK(hurray_handoff_release(&handoff, &err) == HURRAY_OK);
  FUZZ_CHECK(deleter_calls == (no_deleter ? 0u : 1u)); /* exactly once, at the release */
  FUZZ_CHECK(hurray_handoff_release(&handoff, &err) == HURRAY_ERR_ALREADY_RELEASED);
  FUZZ_CHECK(hurray_handoff_destroy(&handoff, &err) == HURRAY_OK);
  FUZZ_CHECK(deleter_calls == (no_deleter ? 0u : 1u));
  return 0;
}

FUZZ_ORACLE_END
