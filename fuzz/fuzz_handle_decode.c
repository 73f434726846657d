/*
 * Fuzz target handle_decode: one 16-byte handle (BP-WIRE-1, BP-ORDER-1).
 *
 * Input: bytes 0..15 are the handle (shorter inputs are zero-padded). Optional
 * trailing bytes drive the API around a decoded handle:
 *   16      transport (BP-XPORT-1..4), checked with the handle's sync_mode
 *   17      IPC capability bits
 *   18..25  a host address and 26..29 a max_alignment (BP-ALIGN-5)
 *
 * Oracle: fuzz/reference_decoder.c decides what the spec requires; decode,
 * validate, the constructors, the byte conversions and names, the pair table,
 * the transport rules and host-memory alignment must all agree with it, and
 * every accepted handle must encode back to the same 16 bytes.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

static hurray_buffer_handle handle_of(const ref_fields *f) {
  hurray_buffer_handle h;
  h.byte_size = f->byte_size;
  h.alignment = f->alignment;
  h.device_tag = f->device_tag;
  h.sync_mode = f->sync_mode;
  h.memory_class = f->memory_class;
  return h;
}

/* Runs one fallible call's outcome past the oracle: the verdict must match,
 * and on success err must be left untouched. */
static void expect(ref_verdict want, hurray_status got, const hurray_error *err) {
  FUZZ_CHECK(ref_verdict_matches(want, got, err));
  if (got == HURRAY_OK) {
    FUZZ_CHECK(ref_error_is_poisoned(err));
  }
}

/* BP-DEV, BP-MEM, BP-SYNC byte conversions, names and the pair table. */
static void check_byte_values(uint8_t tag, uint8_t sync, uint8_t memory_class) {
  hurray_error err;
  uint8_t out = 0;
  ref_kind tag_kind = ref_device_kind(tag);
  ref_error_poison(&err);
  hurray_status s = hurray_device_tag_from_byte(tag, &out, &err);
  ref_verdict want = ref_ok();
  if (tag_kind == REF_RESERVED) {
    want = ref_fail(HURRAY_ERR_RESERVED_DEVICE_TAG, tag, 0, 0);
  } else if (tag_kind == REF_INVALID) {
    want = ref_fail(HURRAY_ERR_INVALID_DEVICE_TAG, tag, 0, 0);
  }
  expect(want, s, &err);
  FUZZ_CHECK(s != HURRAY_OK || out == tag);
  if (s == HURRAY_OK) {
    FUZZ_CHECK(hurray_device_tag_from_byte(tag, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
               err.index == 1);
  }
  FUZZ_CHECK(hurray_device_tag_is_private(tag) == (tag_kind == REF_PRIVATE));
  FUZZ_CHECK(strcmp(hurray_device_tag_name(tag), ref_device_name(tag)) == 0);

  ref_kind class_kind = ref_memory_class_kind(memory_class);
  ref_error_poison(&err);
  s = hurray_memory_class_from_byte(memory_class, &out, &err);
  want = ref_ok();
  if (class_kind == REF_RESERVED) {
    want = ref_fail(HURRAY_ERR_RESERVED_MEMORY_CLASS, memory_class, 0, 0);
  } else if (class_kind == REF_INVALID) {
    want = ref_fail(HURRAY_ERR_INVALID_MEMORY_CLASS, memory_class, 0, 0);
  }
  expect(want, s, &err);
  FUZZ_CHECK(s != HURRAY_OK || out == memory_class);
  if (s == HURRAY_OK) {
    FUZZ_CHECK(hurray_memory_class_from_byte(memory_class, NULL, &err) ==
                   HURRAY_ERR_NULL_ARGUMENT &&
               err.index == 1);
  }
  FUZZ_CHECK(hurray_memory_class_is_private(memory_class) == (class_kind == REF_PRIVATE));
  FUZZ_CHECK(strcmp(hurray_memory_class_name(memory_class), ref_memory_class_name(memory_class)) ==
             0);

  ref_error_poison(&err);
  s = hurray_sync_mode_from_byte(sync, &out, &err);
  want = ref_sync_mode_kind(sync) == REF_NAMED ? ref_ok()
                                               : ref_fail(HURRAY_ERR_INVALID_SYNC_MODE, sync, 0, 0);
  expect(want, s, &err);
  FUZZ_CHECK(s != HURRAY_OK || out == sync);
  if (s == HURRAY_OK) {
    FUZZ_CHECK(hurray_sync_mode_from_byte(sync, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
               err.index == 1);
  }
  FUZZ_CHECK(!hurray_sync_mode_is_private(sync));
  FUZZ_CHECK(strcmp(hurray_sync_mode_name(sync), ref_sync_mode_name(sync)) == 0);

  FUZZ_CHECK(hurray_pair_is_valid(tag, memory_class) == ref_pair_valid(tag, memory_class));
}

/* Decode, validate, construct and encode one handle. */
static void check_handle(const uint8_t wire[16]) {
  hurray_error err;
  hurray_buffer_handle decoded;
  memset(&decoded, 0x5A, sizeof decoded);
  const hurray_buffer_handle untouched = decoded;

  ref_fields want_fields;
  ref_verdict want = ref_decode_handle(wire, 0, &want_fields);
  ref_error_poison(&err);
  hurray_status s = hurray_buffer_handle_decode(wire, &decoded, &err);
  expect(want, s, &err);
  FUZZ_CHECK(hurray_buffer_handle_decode(wire, &decoded, NULL) == s);
  FUZZ_CHECK(hurray_buffer_handle_decode(NULL, &decoded, &err) == HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0);
  FUZZ_CHECK(hurray_buffer_handle_decode(wire, NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 1);

  /* The same fields as a value, without the reserved byte. */
  ref_fields raw = ref_read_fields(wire);
  hurray_buffer_handle raw_handle = handle_of(&raw);
  ref_verdict want_value = ref_check_fields(&raw, 0);
  ref_error_poison(&err);
  expect(want_value, hurray_buffer_handle_validate(&raw_handle, &err), &err);
  FUZZ_CHECK(hurray_buffer_handle_validate(NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 0);

  hurray_buffer_handle built;
  ref_error_poison(&err);
  s = hurray_buffer_handle_with_memory_class(raw.byte_size, raw.alignment, raw.device_tag,
                                             raw.sync_mode, raw.memory_class, &built, &err);
  expect(want_value, s, &err);
  FUZZ_CHECK(s != HURRAY_OK || hurray_buffer_handle_equal(&built, &raw_handle));
  if (s == HURRAY_OK) {
    FUZZ_CHECK(hurray_buffer_handle_with_memory_class(raw.byte_size, raw.alignment, raw.device_tag,
                                                      raw.sync_mode, raw.memory_class, NULL,
                                                      &err) == HURRAY_ERR_NULL_ARGUMENT &&
               err.index == 5);
  }

  ref_fields standard = raw;
  standard.memory_class = HURRAY_MEMORY_STANDARD;
  ref_error_poison(&err);
  s = hurray_buffer_handle_new(raw.byte_size, raw.alignment, raw.device_tag, raw.sync_mode, &built,
                               &err);
  expect(ref_check_fields(&standard, 0), s, &err);
  if (s == HURRAY_OK) {
    hurray_buffer_handle want_standard = handle_of(&standard);
    FUZZ_CHECK(hurray_buffer_handle_equal(&built, &want_standard));
    FUZZ_CHECK(hurray_buffer_handle_new(raw.byte_size, raw.alignment, raw.device_tag, raw.sync_mode,
                                        NULL, &err) == HURRAY_ERR_NULL_ARGUMENT &&
               err.index == 4);
  }

  if (want.status != HURRAY_OK) {
    FUZZ_CHECK(memcmp(&decoded, &untouched, sizeof decoded) == 0); /* nothing half-written */
    return;
  }

  /* Accepted: every accessor reports the wire fields, and the handle encodes
   * back to the very same bytes (the reserved byte is 0 here). */
  FUZZ_CHECK(hurray_buffer_handle_byte_size(&decoded) == want_fields.byte_size);
  FUZZ_CHECK(hurray_buffer_handle_alignment(&decoded) == want_fields.alignment);
  FUZZ_CHECK(hurray_buffer_handle_device_tag(&decoded) == want_fields.device_tag);
  FUZZ_CHECK(hurray_buffer_handle_sync_mode(&decoded) == want_fields.sync_mode);
  FUZZ_CHECK(hurray_buffer_handle_memory_class(&decoded) == want_fields.memory_class);
  FUZZ_CHECK(hurray_buffer_handle_is_empty(&decoded) == (want_fields.byte_size == 0));
  FUZZ_CHECK(hurray_buffer_handle_equal(&decoded, &raw_handle));
  /* Equality looks at every field: changing any one of them breaks it. */
  for (int field = 0; field < 5; field++) {
    hurray_buffer_handle other = decoded;
    switch (field) {
      case 0: other.byte_size ^= 1u; break;
      case 1: other.alignment ^= 1u; break;
      case 2: other.device_tag ^= 1u; break;
      case 3: other.sync_mode ^= 1u; break;
      default: other.memory_class ^= 1u; break;
    }
    FUZZ_CHECK(!hurray_buffer_handle_equal(&decoded, &other));
  }

  uint8_t encoded[HURRAY_BUFFER_HANDLE_SIZE];
  hurray_buffer_handle_encode(&decoded, encoded);
  FUZZ_CHECK(memcmp(encoded, wire, sizeof encoded) == 0);

  /* An empty handle on the same device is valid exactly when the device is. */
  hurray_buffer_handle empty = hurray_buffer_handle_empty(want_fields.device_tag);
  FUZZ_CHECK(empty.byte_size == 0 && empty.alignment == 1 &&
             empty.sync_mode == HURRAY_SYNC_PRODUCER_SYNCED &&
             empty.memory_class == HURRAY_MEMORY_STANDARD &&
             empty.device_tag == want_fields.device_tag);
  FUZZ_CHECK(hurray_buffer_handle_validate(&empty, NULL) == HURRAY_OK);
}

/* BP-XPORT-1..4 for the handle's sync_mode byte. */
static void check_transport(uint8_t tag, uint8_t sync, uint8_t transport, uint8_t capabilities) {
  hurray_error err;
  ref_error_poison(&err);
  hurray_status s =
      hurray_transport_check_sync_mode((hurray_transport)transport, sync, capabilities, &err);
  expect(ref_transport_check(transport, sync, capabilities), s, &err);
  FUZZ_CHECK(hurray_device_default_ipc_capabilities(tag) == ref_default_ipc_capabilities(tag));
}

/* BP-ALIGN-5: the declared alignment is measured from the address. */
static void check_host_memory(uint64_t address, uint32_t max_alignment, uint64_t byte_size) {
  const void *pointer = (const void *)(uintptr_t)address; /* never dereferenced */
  uint32_t measured = hurray_alignment_of(pointer);
  FUZZ_CHECK(measured == ref_alignment_of((uintptr_t)address));

  hurray_error err;
  hurray_buffer_handle out;
  ref_error_poison(&err);
  hurray_status s =
      hurray_buffer_handle_for_host_memory(pointer, byte_size, max_alignment, &out, &err);
  ref_verdict want;
  ref_fields f = {byte_size, measured < max_alignment ? measured : max_alignment, 0, 0, 0};
  if (__builtin_popcount(max_alignment) != 1) {
    want = ref_fail(HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, max_alignment, 0, 0);
  } else {
    want = ref_check_fields(&f, 0);
  }
  expect(want, s, &err);
  if (s == HURRAY_OK) {
    hurray_buffer_handle want_handle = handle_of(&f);
    FUZZ_CHECK(hurray_buffer_handle_equal(&out, &want_handle));
  }
  FUZZ_CHECK(hurray_buffer_handle_for_host_memory(pointer, byte_size, 64u, NULL, &err) ==
                 HURRAY_ERR_NULL_ARGUMENT &&
             err.index == 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t wire[HURRAY_BUFFER_HANDLE_SIZE] = {0};
  memcpy(wire, data, size < sizeof wire ? size : sizeof wire);
  check_handle(wire);
  check_byte_values(wire[12], wire[13], wire[14]);
  if (size >= 18) {
    check_transport(wire[12], wire[13], data[16], data[17]);
  }
  if (size >= 30) {
    check_host_memory(fuzz_read_u64(data + 18), fuzz_read_u32(data + 26), fuzz_read_u64(wire));
  }
  return 0;
}

FUZZ_ORACLE_END
