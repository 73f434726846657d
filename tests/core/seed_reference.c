/*
 * The Rust examples of the BufferHandle reference (seed 003, "Struct
 * BufferHandle"), translated to C, one test per documented item, each named
 * after its section. Expected values are the seed's own asserts and its wire
 * layout table.
 *
 * Which seed example maps to which test:
 *   Wire layout table (offsets 0, 8, 12, 13, 14, 15) -> reference_wire_layout
 *   Examples (CPU 1024/64 standard, CUDA unified, empty CUDA) -> reference_examples
 *   new(): valid calls -> reference_new
 *   new(): Errors (3, 32, CPU with Event) -> reference_new_errors
 *   with_memory_class() -> reference_with_memory_class
 *   with_memory_class(): Errors (the same three rules) ->
 *       reference_with_memory_class_errors
 *   empty() -> reference_empty
 *   byte_size() -> reference_byte_size
 *   alignment() -> reference_alignment
 *   device_tag() -> reference_device_tag
 *   sync_mode() -> reference_sync_mode
 *   memory_class() -> reference_memory_class
 *   is_empty() -> reference_is_empty
 *   Trait implementations: Clone/Copy and PartialEq/Eq -> reference_copy_and_equality
 *       (C struct assignment, hurray_buffer_handle_equal). Debug and Hash have
 *       no C counterpart in this API and are not translated.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

START_TEST(reference_wire_layout) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(
                       0x0102030405060708ULL, 0x00001000u, HURRAY_DEVICE_VULKAN,
                       HURRAY_SYNC_CONSUMER_STREAM, HURRAY_MEMORY_PEER, &handle, NULL),
                   HURRAY_OK);
  uint8_t wire[16];
  memset(wire, 0xCC, sizeof wire);
  hurray_buffer_handle_encode(&handle, wire);
  /* 0: byte_size uint64 LE */
  static const uint8_t size_le[8] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  ck_assert_mem_eq(wire, size_le, 8);
  /* 8: alignment uint32 LE */
  static const uint8_t alignment_le[4] = {0x00, 0x10, 0x00, 0x00};
  ck_assert_mem_eq(wire + 8, alignment_le, 4);
  ck_assert_uint_eq(wire[12], 0x04); /* device_tag */
  ck_assert_uint_eq(wire[13], 0x02); /* sync_mode */
  ck_assert_uint_eq(wire[14], 0x03); /* memory_class */
  ck_assert_uint_eq(wire[15], 0x00); /* _reserved */
  ck_assert_uint_eq(HURRAY_BUFFER_HANDLE_SIZE, 16);
}
END_TEST

START_TEST(reference_examples) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_new(1024, HURRAY_MIN_BUFFER_ALIGNMENT, HURRAY_DEVICE_CPU,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &handle, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_byte_size(&handle), 1024);
  ck_assert_uint_eq(hurray_buffer_handle_alignment(&handle), 64);
  ck_assert_uint_eq(hurray_buffer_handle_device_tag(&handle), HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(hurray_buffer_handle_sync_mode(&handle), HURRAY_SYNC_PRODUCER_SYNCED);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&handle), HURRAY_MEMORY_STANDARD);
  ck_assert(!hurray_buffer_handle_is_empty(&handle));

  hurray_buffer_handle unified;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(4096, 4096, HURRAY_DEVICE_CUDA,
                                                          HURRAY_SYNC_PRODUCER_SYNCED,
                                                          HURRAY_MEMORY_UNIFIED, &unified, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&unified), HURRAY_MEMORY_UNIFIED);

  hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CUDA);
  ck_assert(hurray_buffer_handle_is_empty(&empty));
  ck_assert_uint_eq(hurray_buffer_handle_alignment(&empty), 1);
}
END_TEST

START_TEST(reference_new) {
  hurray_buffer_handle h;
  ck_assert_int_eq(
      hurray_buffer_handle_new(512, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, &h, NULL),
      HURRAY_OK);
  ck_assert_int_eq(
      hurray_buffer_handle_new(512, 64, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT, &h, NULL),
      HURRAY_OK);
  ck_assert_int_eq(
      hurray_buffer_handle_new(0, 1, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, &h, NULL),
      HURRAY_OK);
}
END_TEST

START_TEST(reference_new_errors) {
  hurray_buffer_handle h;
  memset(&h, 0x5A, sizeof h);
  hurray_buffer_handle untouched = h;
  hurray_error err = junk_error();
  hurray_status status =
      hurray_buffer_handle_new(512, 3, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, &h, &err);
  require_status_value("alignment 3", status, &err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 3, 0);
  err = junk_error();
  status =
      hurray_buffer_handle_new(512, 32, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, &h, &err);
  require_error("alignment 32", status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 32, 64, 0);
  err = junk_error();
  status = hurray_buffer_handle_new(512, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_EVENT, &h, &err);
  require_error("cpu event", status, &err, HURRAY_ERR_INVALID_SYNC_MODE, 0x01, 0x00, 0);
  /* Out-parameters are written only on success. */
  ck_assert_mem_eq(&h, &untouched, sizeof h);
}
END_TEST

START_TEST(reference_with_memory_class) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(4096, 4096, HURRAY_DEVICE_CUDA,
                                                          HURRAY_SYNC_PRODUCER_SYNCED,
                                                          HURRAY_MEMORY_UNIFIED, &handle, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&handle), HURRAY_MEMORY_UNIFIED);
  hurray_buffer_handle pinned;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(512, 64, HURRAY_DEVICE_CPU,
                                                          HURRAY_SYNC_PRODUCER_SYNCED,
                                                          HURRAY_MEMORY_HOST_PINNED, &pinned, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&pinned), HURRAY_MEMORY_HOST_PINNED);
}
END_TEST

START_TEST(reference_with_memory_class_errors) {
  hurray_buffer_handle h;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_handle_with_memory_class(
      512, 3, HURRAY_DEVICE_CUDA, HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_MEMORY_UNIFIED, &h, &err);
  require_status_value("alignment 3", status, &err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, 3, 0);
  err = junk_error();
  status = hurray_buffer_handle_with_memory_class(512, 32, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT,
                                                  HURRAY_MEMORY_HOST_PINNED, &h, &err);
  require_error("alignment 32", status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 32, 64, 0);
  err = junk_error();
  status = hurray_buffer_handle_with_memory_class(
      512, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_CONSUMER_STREAM, HURRAY_MEMORY_HOST_PINNED, &h, &err);
  require_error("cpu consumer_stream", status, &err, HURRAY_ERR_INVALID_SYNC_MODE, 0x02, 0x00, 0);
}
END_TEST

START_TEST(reference_empty) {
  hurray_buffer_handle handle = hurray_buffer_handle_empty(HURRAY_DEVICE_CPU);
  require_empty_handle(&handle);
  ck_assert_uint_eq(hurray_buffer_handle_device_tag(&handle), HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(hurray_buffer_handle_sync_mode(&handle), HURRAY_SYNC_PRODUCER_SYNCED);
  /* Infallible for every tag; the tag is stored as given (see buffer.h). */
  for (unsigned tag = 0; tag < 256; tag++) {
    hurray_buffer_handle e = hurray_buffer_handle_empty((hurray_device_tag)tag);
    REQUIRE(e.device_tag == tag && e.byte_size == 0 && e.alignment == 1 &&
                e.sync_mode == HURRAY_SYNC_PRODUCER_SYNCED &&
                e.memory_class == HURRAY_MEMORY_STANDARD,
            "empty(0x%02X) has the wrong fields", tag);
  }
}
END_TEST

START_TEST(reference_byte_size) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(
      hurray_buffer_handle_new(4096, 4096, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT, &handle, NULL),
      HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_byte_size(&handle), 4096);
}
END_TEST

START_TEST(reference_alignment) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_new(8192, HURRAY_PAGE_ALIGNMENT, HURRAY_DEVICE_CUDA,
                                            HURRAY_SYNC_EVENT, &handle, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_alignment(&handle), 4096);
}
END_TEST

START_TEST(reference_device_tag) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(
      hurray_buffer_handle_new(256, 64, HURRAY_DEVICE_METAL, HURRAY_SYNC_EVENT, &handle, NULL),
      HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_device_tag(&handle), HURRAY_DEVICE_METAL);
}
END_TEST

START_TEST(reference_sync_mode) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_new(1024, 64, HURRAY_DEVICE_CUDA,
                                            HURRAY_SYNC_CONSUMER_STREAM, &handle, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_sync_mode(&handle), HURRAY_SYNC_CONSUMER_STREAM);
  hurray_buffer_handle cpu;
  ck_assert_int_eq(hurray_buffer_handle_new(1024, 64, HURRAY_DEVICE_CPU,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &cpu, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_sync_mode(&cpu), HURRAY_SYNC_PRODUCER_SYNCED);
}
END_TEST

START_TEST(reference_memory_class) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_new(1024, 64, HURRAY_DEVICE_CUDA,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &handle, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&handle), HURRAY_MEMORY_STANDARD);
  hurray_buffer_handle unified;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(1024, 64, HURRAY_DEVICE_CUDA,
                                                          HURRAY_SYNC_PRODUCER_SYNCED,
                                                          HURRAY_MEMORY_UNIFIED, &unified, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&unified), HURRAY_MEMORY_UNIFIED);
}
END_TEST

START_TEST(reference_is_empty) {
  hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CPU);
  ck_assert(hurray_buffer_handle_is_empty(&empty));
  hurray_buffer_handle one;
  ck_assert_int_eq(
      hurray_buffer_handle_new(1, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, &one, NULL),
      HURRAY_OK);
  ck_assert(!hurray_buffer_handle_is_empty(&one));
}
END_TEST

START_TEST(reference_copy_and_equality) {
  hurray_buffer_handle a;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(4096, 4096, HURRAY_DEVICE_ROCM,
                                                          HURRAY_SYNC_EVENT, HURRAY_MEMORY_PEER, &a,
                                                          NULL),
                   HURRAY_OK);
  hurray_buffer_handle b = a; /* Copy */
  ck_assert(hurray_buffer_handle_equal(&a, &b));
  ck_assert(hurray_buffer_handle_equal(&b, &a));
  /* Any one field that differs makes them unequal. */
  hurray_buffer_handle c = a;
  c.byte_size = 4097;
  ck_assert(!hurray_buffer_handle_equal(&a, &c));
  c = a;
  c.alignment = 8192;
  ck_assert(!hurray_buffer_handle_equal(&a, &c));
  c = a;
  c.device_tag = HURRAY_DEVICE_CUDA;
  ck_assert(!hurray_buffer_handle_equal(&a, &c));
  c = a;
  c.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  ck_assert(!hurray_buffer_handle_equal(&a, &c));
  c = a;
  c.memory_class = HURRAY_MEMORY_UNIFIED;
  ck_assert(!hurray_buffer_handle_equal(&a, &c));
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("seed 003: BufferHandle reference", "reference", SWEEP_TIMEOUT_S,
                           reference_wire_layout, reference_examples, reference_new,
                           reference_new_errors, reference_with_memory_class,
                           reference_with_memory_class_errors, reference_empty, reference_byte_size,
                           reference_alignment, reference_device_tag, reference_sync_mode,
                           reference_memory_class, reference_is_empty, reference_copy_and_equality);
}
