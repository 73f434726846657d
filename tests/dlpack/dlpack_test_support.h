/*
 * Shared by the DLPack tests: the table of BP-DLPACK-1/2 written out from the
 * spec (never taken from the library), an alignment oracle, and a handoff
 * accepted for any (device_tag, memory_class).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_DLPACK_SUPPORT_H
#define HURRAY_TESTS_DLPACK_SUPPORT_H

#include <check.h>
#include <string.h>

#include "handoff_test_support.h"
#include "hurray/dlpack.h"

/* One row of specs/buffer-protocol.md BP-DLPACK-1 (facts §9), expanded per
 * memory class. */
typedef struct dlpack_row {
  uint8_t tag;
  uint8_t memory_class;
  int32_t device_type;
} dlpack_row;

static const dlpack_row spec_rows[] = {
    {0x00, 0x00, 1},  {0x00, 0x01, 1},  {0x00, 0x02, 1},  /* cpu: kDLCPU */
    {0x01, 0x00, 2},  {0x01, 0x01, 3},  {0x01, 0x02, 13}, /* cuda: CUDA, CUDAHost, Managed */
    {0x02, 0x00, 10}, {0x02, 0x01, 11},                   /* rocm: ROCM, ROCMHost */
    {0x03, 0x00, 8},  {0x03, 0x01, 8},  {0x03, 0x02, 8},  /* metal */
    {0x04, 0x00, 7},  {0x04, 0x01, 7},  {0x04, 0x02, 7},  /* vulkan */
    {0x05, 0x00, 15},                                     /* webgpu */
    {0x06, 0x00, 16}, {0x06, 0x01, 16}, {0x06, 0x02, 16}, /* hexagon */
    {0x07, 0x00, 14}, {0x07, 0x01, 14}, {0x07, 0x02, 14}, /* level_zero: kDLOneAPI */
    {0x08, 0x00, 4},  {0x08, 0x01, 4},  {0x08, 0x02, 4},  /* opencl */
};
#define SPEC_ROW_COUNT (sizeof spec_rows / sizeof spec_rows[0])

/* The largest power of two dividing an address, at most 2^31 (BP-ALIGN-5),
 * computed here independently of hurray_alignment_of. */
static inline uint32_t oracle_alignment(const void *address) {
  uintptr_t a = (uintptr_t)address;
  uint32_t alignment = 1u;
  while (alignment < 0x80000000u && a % ((uintptr_t)alignment * 2u) == 0u) {
    alignment *= 2u;
  }
  return alignment;
}

/* A fresh handoff holding an accepted producer_synced buffer. */
static inline void accept_buffer(hurray_handoff *handoff, const hurray_buffer_handle *handle,
                                 void *data, release_log *log) {
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(data, count_buffer_release, log, hurray_sync_payload_none());
  offer_and_accept_buffer(handoff, handle, &offer);
}

/* Fails the test unless err carries what the spec says. */
static inline void expect_error(const char *what, hurray_status got, const hurray_error *err,
                                hurray_status status, uint64_t value, uint64_t expected) {
  char message[512];
  hurray_error_format(err, message, sizeof message);
  ck_assert_msg(got == status, "%s: got %s (%s), want %s", what, hurray_status_name(got), message,
                hurray_status_name(status));
  ck_assert_msg(err->status == status, "%s: err->status %s", what, hurray_status_name(err->status));
  ck_assert_msg(err->value == value, "%s: value %llu, want %llu (%s)", what,
                (unsigned long long)err->value, (unsigned long long)value, message);
  ck_assert_msg(err->expected == expected, "%s: expected %llu, want %llu (%s)", what,
                (unsigned long long)err->expected, (unsigned long long)expected, message);
}

/* The formatted message contains `text`. */
static inline void expect_message_has(const hurray_error *err, const char *text) {
  char message[512];
  hurray_error_format(err, message, sizeof message);
  ck_assert_msg(strstr(message, text) != NULL, "message \"%s\" lacks \"%s\"", message, text);
}

#endif
