/*
 * The Rust and Python examples of the Layer 1 cookbook (seed 000, "Layer 1:
 * Buffer Protocol"), translated to C, one test per example, each named after
 * its seed section. Expected values are the seed's own asserts.
 *
 * Which seed example maps to which test:
 *   Creating Buffer Handles, Rust (1 KB CPU, SIMD alignment)
 *       -> cookbook_creating_buffer_handles
 *   Creating Buffer Handles, Python (handle of a tensor built from 1024 bytes:
 *       the C binding measures the host memory it is given; "producer_synced";
 *       one device per descriptor) -> cookbook_creating_buffer_handles_from_bytes
 *   Creating Buffer Handles, Rust (CUDA page alignment)
 *       -> cookbook_creating_buffer_handles_page_alignment
 *   Empty Buffers, Rust -> cookbook_empty_buffers
 *   Empty Buffers, Python (handle of an empty tensor)
 *       -> cookbook_empty_buffers_from_bytes
 *   Memory Class, Rust (unified, host-pinned) -> cookbook_memory_class
 *   Memory Class, Rust (round trip through the wire byte)
 *       -> cookbook_memory_class_round_trip
 *   Memory Class, Rust (private class on a private device)
 *       -> cookbook_private_memory_classes
 *   Memory Class, Python (hurray.Device(0xF0, memory_class=0xF1))
 *       -> cookbook_private_memory_classes_device
 *   Private Device Tags, Rust -> cookbook_private_device_tags
 *   Private Device Tags, Python (is_private, tag, kind "private", repr carries
 *       the byte) -> cookbook_private_device_tags_names
 *   Alignment Validation, Rust (63) -> cookbook_alignment_validation_power_of_two
 *   Alignment Validation, Rust (32; empty with 1)
 *       -> cookbook_alignment_validation_minimum
 *   Alignment Is Measured, Not Asserted, Python (from_numpy of a 4 MiB array:
 *       copied when under-aligned, then >= 64) -> cookbook_alignment_is_measured
 *   Alignment Is Measured, Python (array[1:] with copy=False: refused,
 *       "4-byte aligned, below the 64-byte minimum")
 *       -> cookbook_alignment_is_measured_under_aligned_refused
 *   Allocating arrays that need no copy, Python: NumPy's NEP 49 allocator hook
 *       (hurray.aligned_allocator) has no C counterpart: a C producer simply
 *       allocates aligned memory itself. What the example asserts (memory
 *       allocated for Hurray is accepted as is, >= 64) ->
 *       cookbook_allocating_arrays_that_need_no_copy. The thread-locality and
 *       nesting of the hook cannot apply in C and are not translated.
 *       The paragraph's consequence (a rebuilt copy honestly declares the
 *       alignment of its new address: 4096 becomes 64)
 *       -> cookbook_alignment_after_rebuild
 *   Sync Mode, Python (constructed buffers are producer_synced; a decoded one
 *       reports what its producer declared) -> cookbook_sync_mode. The
 *       binding's refusal to hand out the bytes of a buffer that is not
 *       producer_synced is the handoff layer's (tests/handoff), not this one's.
 *   Device Colocation, Rust (CPU data + scale) -> cookbook_device_colocation
 *   Device Colocation, Rust (mixed devices)
 *       -> cookbook_device_colocation_mixed_devices
 *   Device Colocation, Rust (mixed memory classes)
 *       -> cookbook_device_colocation_mixed_memory_classes
 *   Device Tag Round-Trip, Rust -> cookbook_device_tag_round_trip
 *   Device Tag Round-Trip, Rust (0x09, 0xFF rejected)
 *       -> cookbook_device_tag_round_trip_rejects
 *   Named Device Tags (the nine named types) -> cookbook_named_device_tags
 * The Python examples that build a hurray.Tensor translate to the C calls a
 * binding makes for it: a handle for the tensor's host memory (measured
 * alignment), its buffer table, and colocation.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

/* Memory at an address whose measured alignment is exactly `alignment`
 * (at most 4096): `alignment` bytes into a block aligned to 8192. */
typedef struct placed_memory {
  unsigned char *block;
  unsigned char *at;
} placed_memory;

static placed_memory place_exactly(size_t alignment, size_t bytes) {
  placed_memory m;
  size_t size = (bytes + 4 * alignment + 8191u) / 8192u * 8192u;
  m.block = aligned_alloc(8192u, size);
  ck_assert_ptr_nonnull(m.block);
  memset(m.block, 0, size);
  m.at = m.block + alignment; /* a multiple of alignment, not of 2 * alignment */
  return m;
}

START_TEST(cookbook_creating_buffer_handles) {
  hurray_buffer_handle handle;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_new(1024, HURRAY_MIN_BUFFER_ALIGNMENT, HURRAY_DEVICE_CPU,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &handle, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_byte_size(&handle), 1024);
  ck_assert_uint_eq(hurray_buffer_handle_alignment(&handle), 64);
  ck_assert_uint_eq(hurray_buffer_handle_device_tag(&handle), HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(hurray_buffer_handle_sync_mode(&handle), HURRAY_SYNC_PRODUCER_SYNCED);
}
END_TEST

START_TEST(cookbook_creating_buffer_handles_from_bytes) {
  /* tensor = hurray.Tensor(bytes(1024), uint8, [1024]); handle, = buffer_handles */
  placed_memory bytes = place_exactly(64, 1024);
  hurray_buffer_handle handle;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(bytes.at, 1024, HURRAY_MIN_BUFFER_ALIGNMENT,
                                                        &handle, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(handle.byte_size, 1024);
  ck_assert_uint_eq(handle.alignment, HURRAY_MIN_BUFFER_ALIGNMENT);
  ck_assert_str_eq(hurray_sync_mode_name(handle.sync_mode), "producer_synced");
  /* handle.device is tensor.device: colocation of the tensor's one buffer */
  hurray_device_tag device = 0xEE;
  ck_assert_int_eq(hurray_validate_colocation(&handle, 1, &device, &err), HURRAY_OK);
  ck_assert_uint_eq(device, HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(handle.device_tag, device);
  /* A handle is a value: freeing the bytes leaves it intact. */
  hurray_buffer_handle copy = handle;
  free(bytes.block);
  ck_assert(hurray_buffer_handle_equal(&copy, &handle));
  ck_assert_uint_eq(copy.byte_size, 1024);
}
END_TEST

START_TEST(cookbook_creating_buffer_handles_page_alignment) {
  hurray_buffer_handle gpu_buffer;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_new(8192, HURRAY_PAGE_ALIGNMENT, HURRAY_DEVICE_CUDA,
                                            HURRAY_SYNC_EVENT, &gpu_buffer, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_alignment(&gpu_buffer), 4096);
  ck_assert_uint_eq(hurray_buffer_handle_device_tag(&gpu_buffer), HURRAY_DEVICE_CUDA);
}
END_TEST

START_TEST(cookbook_empty_buffers) {
  hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CPU);
  require_empty_handle(&empty);
  ck_assert_int_eq(hurray_buffer_handle_validate(&empty, NULL), HURRAY_OK);
}
END_TEST

START_TEST(cookbook_empty_buffers_from_bytes) {
  /* empty, = hurray.Tensor(b"", float32, [0]).buffer_handles: an empty buffer
   * has no byte to align, so the binding declares 1 (BP-ALIGN-3), whatever
   * its pointer, NULL included. */
  hurray_buffer_handle empty;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(NULL, 0, 1, &empty, &err), HURRAY_OK);
  ck_assert(hurray_buffer_handle_is_empty(&empty));
  ck_assert_uint_eq(empty.byte_size, 0);
  ck_assert_uint_eq(empty.alignment, 1);
  static const unsigned char odd[3] = {1, 2, 3};
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(odd + 1, 0, 1, &empty, &err), HURRAY_OK);
  ck_assert_uint_eq(empty.alignment, 1);
}
END_TEST

START_TEST(cookbook_memory_class) {
  hurray_buffer_handle unified;
  hurray_buffer_handle pinned;
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(
                       8192, HURRAY_PAGE_ALIGNMENT, HURRAY_DEVICE_CUDA, HURRAY_SYNC_PRODUCER_SYNCED,
                       HURRAY_MEMORY_UNIFIED, &unified, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&unified), HURRAY_MEMORY_UNIFIED);
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(4096, HURRAY_PAGE_ALIGNMENT,
                                                          HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT,
                                                          HURRAY_MEMORY_HOST_PINNED, &pinned, &err),
                   HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_handle_memory_class(&pinned), HURRAY_MEMORY_HOST_PINNED);
}
END_TEST

START_TEST(cookbook_memory_class_round_trip) {
  hurray_memory_class original = HURRAY_MEMORY_UNIFIED;
  uint8_t byte = original; /* to_byte: the wire value is the byte itself */
  ck_assert_uint_eq(byte, 0x02);
  hurray_memory_class recovered = 0xEE;
  hurray_error err;
  ck_assert_int_eq(hurray_memory_class_from_byte(byte, &recovered, &err), HURRAY_OK);
  ck_assert_uint_eq(recovered, original);
}
END_TEST

START_TEST(cookbook_private_memory_classes) {
  hurray_memory_class vendor_class;
  hurray_device_tag vendor_device;
  hurray_buffer_handle handle;
  hurray_error err;
  ck_assert_int_eq(hurray_memory_class_from_byte(0xF1, &vendor_class, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_device_tag_from_byte(0xF0, &vendor_device, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(
                       2048, HURRAY_MIN_BUFFER_ALIGNMENT, vendor_device,
                       HURRAY_SYNC_PRODUCER_SYNCED, vendor_class, &handle, &err),
                   HURRAY_OK);
  ck_assert(hurray_memory_class_is_private(hurray_buffer_handle_memory_class(&handle)));
}
END_TEST

START_TEST(cookbook_private_memory_classes_device) {
  /* device = hurray.Device(0xF0, 0, memory_class=0xF1) */
  hurray_device_tag device;
  hurray_memory_class memory_class;
  hurray_error err;
  ck_assert_int_eq(hurray_device_tag_from_byte(0xF0, &device, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_memory_class_from_byte(0xF1, &memory_class, &err), HURRAY_OK);
  ck_assert_str_eq(hurray_memory_class_name(memory_class), "private");
  ck_assert_uint_eq(memory_class, 0xF1);
  /* tensor = hurray.Tensor(bytes(2048), float32, [512], device=device):
   * its one buffer is on the tensor's device and class. */
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(2048, HURRAY_MIN_BUFFER_ALIGNMENT, device,
                                                          HURRAY_SYNC_PRODUCER_SYNCED, memory_class,
                                                          &handle, &err),
                   HURRAY_OK);
  hurray_device_tag found = 0;
  ck_assert_int_eq(hurray_validate_colocation(&handle, 1, &found, &err), HURRAY_OK);
  ck_assert_uint_eq(found, 0xF0);
  ck_assert_uint_eq(handle.memory_class, 0xF1);
}
END_TEST

START_TEST(cookbook_private_device_tags) {
  hurray_device_tag custom_device;
  hurray_buffer_handle handle;
  hurray_error err;
  ck_assert_int_eq(hurray_device_tag_from_byte(0xF2, &custom_device, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_handle_new(4096, HURRAY_MIN_BUFFER_ALIGNMENT, custom_device,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &handle, &err),
                   HURRAY_OK);
  ck_assert(hurray_device_tag_is_private(custom_device));
  ck_assert_uint_eq(custom_device, 0xF2);
}
END_TEST

START_TEST(cookbook_private_device_tags_names) {
  /* custom = hurray.Device(0xF2) */
  hurray_device_tag custom;
  hurray_error err;
  ck_assert_int_eq(hurray_device_tag_from_byte(0xF2, &custom, &err), HURRAY_OK);
  ck_assert(hurray_device_tag_is_private(custom));
  ck_assert_uint_eq(custom, 0xF2);
  ck_assert_str_eq(hurray_device_tag_name(custom), "private"); /* kind */
  /* repr carries the byte, since the kind alone does not tell tags apart */
  char shown[32];
  ck_assert_uint_eq(hurray_device_tag_display(custom, shown, sizeof shown),
                    strlen("private(0xF2)"));
  ck_assert_str_eq(shown, "private(0xF2)");
  hurray_device_tag_display(0xF3, shown, sizeof shown);
  ck_assert_str_eq(shown, "private(0xF3)");
  /* tensor = hurray.Tensor(bytes(4096), float32, [1024], device=custom) */
  hurray_buffer_handle handle;
  ck_assert_int_eq(
      hurray_buffer_handle_new(4096, 64, custom, HURRAY_SYNC_PRODUCER_SYNCED, &handle, &err),
      HURRAY_OK);
  ck_assert_uint_eq(handle.device_tag, 0xF2);
}
END_TEST

/* hurray_buffer_handle_new for the cookbook's 512-byte CPU buffer, its
 * error record junk before the call. */
static hurray_status new_cpu_buffer(uint32_t alignment, hurray_error *err) {
  hurray_buffer_handle handle;
  *err = junk_error();
  return hurray_buffer_handle_new(512, alignment, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED,
                                  &handle, err);
}

START_TEST(cookbook_alignment_validation_power_of_two) {
  hurray_error err;
  ck_assert_int_eq(new_cpu_buffer(63, &err), HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  ck_assert_int_eq(err.status, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  ck_assert_uint_eq(err.value, 63);
}
END_TEST

START_TEST(cookbook_alignment_validation_minimum) {
  hurray_error err;
  ck_assert_int_eq(new_cpu_buffer(32, &err), HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  ck_assert_uint_eq(err.value, 32);
  ck_assert_uint_eq(err.expected, 64);
  hurray_buffer_handle empty;
  ck_assert_int_eq(
      hurray_buffer_handle_new(0, 1, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED, &empty, NULL),
      HURRAY_OK);
  ck_assert(hurray_buffer_handle_is_empty(&empty));
}
END_TEST

/* What hurray.from_numpy(copy=True) does in C: measure, and when the address
 * does not qualify, copy into memory that does (BP-ALIGN-5). */
static hurray_status handle_for_source(const unsigned char *source, size_t bytes,
                                       unsigned char **copy, hurray_buffer_handle *out) {
  *copy = NULL;
  hurray_error err;
  hurray_status status =
      hurray_buffer_handle_for_host_memory(source, bytes, HURRAY_PAGE_ALIGNMENT, out, &err);
  if (status != HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
    return status;
  }
  *copy = aligned_alloc(HURRAY_MIN_BUFFER_ALIGNMENT, (bytes + 63u) / 64u * 64u);
  ck_assert_ptr_nonnull(*copy);
  memcpy(*copy, source, bytes);
  return hurray_buffer_handle_for_host_memory(*copy, bytes, HURRAY_PAGE_ALIGNMENT, out, &err);
}

START_TEST(cookbook_alignment_is_measured) {
  /* array = np.zeros(1 << 20, dtype=np.float32): 4 MiB from the C heap,
   * whose alignment nobody promised (malloc gives 16). */
  size_t bytes = (size_t)4 << 20;
  unsigned char *array = malloc(bytes + 16);
  ck_assert_ptr_nonnull(array);
  memset(array, 0, bytes + 16);
  /* Both what malloc happened to return and an address 16 past it. */
  for (size_t shift = 0; shift <= 16; shift += 16) {
    unsigned char *copy;
    hurray_buffer_handle handle;
    ck_assert_int_eq(handle_for_source(array + shift, bytes, &copy, &handle), HURRAY_OK);
    ck_assert_uint_ge(handle.alignment, HURRAY_MIN_BUFFER_ALIGNMENT);
    ck_assert_uint_eq(handle.byte_size, bytes);
    /* The declared alignment is what the address really has. */
    const void *used = copy != NULL ? (const void *)copy : (const void *)(array + shift);
    ck_assert_uint_eq((uintptr_t)used % handle.alignment, 0);
    free(copy);
  }
  free(array);
}
END_TEST

START_TEST(cookbook_alignment_is_measured_under_aligned_refused) {
  /* under_aligned = array[1:]: 4 bytes past a 64-byte-aligned float32 array,
   * so 4-byte aligned. copy=False: refuse rather than copy. */
  placed_memory array = place_exactly(64, 4096);
  const unsigned char *under_aligned = array.at + 4;
  ck_assert_uint_eq(hurray_alignment_of(under_aligned), 4);
  hurray_buffer_handle handle;
  hurray_error err = junk_error();
  hurray_status status = hurray_buffer_handle_for_host_memory(under_aligned, 4092,
                                                              HURRAY_PAGE_ALIGNMENT, &handle, &err);
  require_error("array[1:]", status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 4, 64, 0);
  char message[256];
  hurray_error_format(&err, message, sizeof message);
  ck_assert_ptr_nonnull(strstr(message, "4-byte aligned"));
  ck_assert_ptr_nonnull(strstr(message, "64-byte minimum"));
  free(array.block);
}
END_TEST

START_TEST(cookbook_allocating_arrays_that_need_no_copy) {
  /* with hurray.aligned_allocator(): weights = np.zeros((512, 512), float32) */
  size_t bytes = (size_t)512 * 512 * 4;
  unsigned char *weights = aligned_alloc(HURRAY_PAGE_ALIGNMENT, bytes);
  ck_assert_ptr_nonnull(weights);
  memset(weights, 0, bytes);
  unsigned char *copy;
  hurray_buffer_handle handle;
  ck_assert_int_eq(handle_for_source(weights, bytes, &copy, &handle), HURRAY_OK);
  ck_assert_ptr_null(copy); /* accepted: no copy is needed */
  ck_assert_uint_ge(handle.alignment, HURRAY_MIN_BUFFER_ALIGNMENT);
  free(weights);
}
END_TEST

START_TEST(cookbook_alignment_after_rebuild) {
  /* A tensor that arrived declaring 4096 declares 64 after a rebuild whose
   * new address is only 64-byte aligned. */
  placed_memory original = place_exactly(4096, 256);
  placed_memory rebuilt = place_exactly(64, 256);
  hurray_buffer_handle before;
  hurray_buffer_handle after;
  ck_assert_int_eq(
      hurray_buffer_handle_for_host_memory(original.at, 256, HURRAY_PAGE_ALIGNMENT, &before, NULL),
      HURRAY_OK);
  ck_assert_uint_eq(before.alignment, 4096);
  memcpy(rebuilt.at, original.at, 256);
  ck_assert_int_eq(
      hurray_buffer_handle_for_host_memory(rebuilt.at, 256, HURRAY_PAGE_ALIGNMENT, &after, NULL),
      HURRAY_OK);
  ck_assert_uint_eq(after.alignment, 64);
  free(original.block);
  free(rebuilt.block);
}
END_TEST

START_TEST(cookbook_sync_mode) {
  /* tensor = hurray.Tensor(bytes(64), float32, [16]) */
  placed_memory bytes = place_exactly(64, 64);
  hurray_buffer_handle handle;
  ck_assert_int_eq(
      hurray_buffer_handle_for_host_memory(bytes.at, 64, HURRAY_PAGE_ALIGNMENT, &handle, NULL),
      HURRAY_OK);
  ck_assert_str_eq(hurray_sync_mode_name(handle.sync_mode), "producer_synced");
  /* A tensor decoded from another producer reports what that producer
   * declared: here a CUDA buffer with event sync. */
  uint8_t table[1 + 16];
  table[0] = 1;
  spec_put_handle(table + 1, 4096, 4096, 0x01, 0x01, 0x00, 0x00);
  hurray_buffer_handle decoded;
  size_t count = 0;
  ck_assert_int_eq(hurray_buffer_table_decode(table, sizeof table, &decoded, 1, &count, NULL),
                   HURRAY_OK);
  ck_assert_uint_eq(count, 1);
  ck_assert_str_eq(hurray_sync_mode_name(decoded.sync_mode), "event");
  free(bytes.block);
}
END_TEST

START_TEST(cookbook_device_colocation) {
  hurray_buffer_handle buffers[2];
  hurray_error err;
  ck_assert_int_eq(hurray_buffer_handle_new(1024, 64, HURRAY_DEVICE_CPU,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &buffers[0], &err),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_handle_new(16, 64, HURRAY_DEVICE_CPU, HURRAY_SYNC_PRODUCER_SYNCED,
                                            &buffers[1], &err),
                   HURRAY_OK);
  hurray_device_tag device = 0xEE;
  ck_assert_int_eq(hurray_validate_colocation(buffers, 2, &device, &err), HURRAY_OK);
  ck_assert_uint_eq(device, HURRAY_DEVICE_CPU);
}
END_TEST

START_TEST(cookbook_device_colocation_mixed_devices) {
  hurray_buffer_handle buffers[2];
  ck_assert_int_eq(hurray_buffer_handle_new(1024, 64, HURRAY_DEVICE_CPU,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &buffers[0], NULL),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_handle_new(256, 4096, HURRAY_DEVICE_CUDA,
                                            HURRAY_SYNC_PRODUCER_SYNCED, &buffers[1], NULL),
                   HURRAY_OK);
  hurray_error err = junk_error();
  hurray_status status = hurray_validate_colocation(buffers, 2, NULL, &err);
  require_error("cpu + cuda", status, &err, HURRAY_ERR_DEVICE_TAG_MISMATCH, 0x01, 0x00, 1);
}
END_TEST

START_TEST(cookbook_device_colocation_mixed_memory_classes) {
  hurray_buffer_handle buffers[2];
  ck_assert_int_eq(hurray_buffer_handle_new(4096, HURRAY_PAGE_ALIGNMENT, HURRAY_DEVICE_CUDA,
                                            HURRAY_SYNC_EVENT, &buffers[0], NULL),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_buffer_handle_with_memory_class(4096, HURRAY_PAGE_ALIGNMENT,
                                                          HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT,
                                                          HURRAY_MEMORY_UNIFIED, &buffers[1], NULL),
                   HURRAY_OK);
  hurray_error err = junk_error();
  hurray_status status = hurray_validate_colocation(buffers, 2, NULL, &err);
  require_error("standard + unified", status, &err, HURRAY_ERR_MEMORY_CLASS_MISMATCH, 0x02, 0x00,
                1);
}
END_TEST

START_TEST(cookbook_device_tag_round_trip) {
  hurray_device_tag original = HURRAY_DEVICE_CUDA;
  uint8_t byte = original;
  ck_assert_uint_eq(byte, 0x01);
  hurray_device_tag recovered = 0xEE;
  ck_assert_int_eq(hurray_device_tag_from_byte(byte, &recovered, NULL), HURRAY_OK);
  ck_assert_uint_eq(recovered, original);
  /* println!("Round-trip: {} -> 0x{:02X} -> {}") */
  char shown[16];
  hurray_device_tag_display(recovered, shown, sizeof shown);
  ck_assert_str_eq(shown, "cuda");
}
END_TEST

START_TEST(cookbook_device_tag_round_trip_rejects) {
  hurray_device_tag out = 0xEE;
  hurray_error err = junk_error();
  hurray_status status = hurray_device_tag_from_byte(0x09, &out, &err);
  require_status_value("0x09", status, &err, HURRAY_ERR_RESERVED_DEVICE_TAG, 0x09, 0);
  err = junk_error();
  status = hurray_device_tag_from_byte(0xFF, &out, &err);
  require_status_value("0xFF", status, &err, HURRAY_ERR_INVALID_DEVICE_TAG, 0xFF, 0);
  ck_assert_uint_eq(out, 0xEE); /* nothing written on failure */
}
END_TEST

START_TEST(cookbook_named_device_tags) {
  static const char *const names[9] = {"cpu",    "cuda",    "rocm",       "metal", "vulkan",
                                       "webgpu", "hexagon", "level_zero", "opencl"};
  for (uint8_t tag = 0; tag < 9; tag++) {
    ck_assert_str_eq(hurray_device_tag_name(tag), names[tag]);
    hurray_device_tag out;
    ck_assert_int_eq(hurray_device_tag_from_byte(tag, &out, NULL), HURRAY_OK);
    ck_assert(!hurray_device_tag_is_private(tag));
  }
  ck_assert_uint_eq(HURRAY_DEVICE_OPENCL, 0x08);
  ck_assert_uint_eq(HURRAY_DEVICE_LEVEL_ZERO, 0x07);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN(
      "seed 000: Layer 1 cookbook", "cookbook", SWEEP_TIMEOUT_S, cookbook_creating_buffer_handles,
      cookbook_creating_buffer_handles_from_bytes, cookbook_creating_buffer_handles_page_alignment,
      cookbook_empty_buffers, cookbook_empty_buffers_from_bytes, cookbook_memory_class,
      cookbook_memory_class_round_trip, cookbook_private_memory_classes,
      cookbook_private_memory_classes_device, cookbook_private_device_tags,
      cookbook_private_device_tags_names, cookbook_alignment_validation_power_of_two,
      cookbook_alignment_validation_minimum, cookbook_alignment_is_measured,
      cookbook_alignment_is_measured_under_aligned_refused,
      cookbook_allocating_arrays_that_need_no_copy, cookbook_alignment_after_rebuild,
      cookbook_sync_mode, cookbook_device_colocation, cookbook_device_colocation_mixed_devices,
      cookbook_device_colocation_mixed_memory_classes, cookbook_device_tag_round_trip,
      cookbook_device_tag_round_trip_rejects, cookbook_named_device_tags);
}
