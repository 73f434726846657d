/*
 * Export of accepted buffers as DLPack tensors (BP-DLPACK-4..8): 0.x and 1.x
 * of a CPU buffer, the deleter releasing exactly once (counted), the layout
 * checks (mismatch, overflow, bad dtype), refusal of buffers not yet
 * readable (event, consumer_stream), the device type of every row of
 * BP-DLPACK-1 and the pairs DLPack has none for.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>

#include "dlpack_test_support.h"
#include "check_main.h"

static _Alignas(4096) unsigned char host[4096];

static void cpu_handoff(hurray_handoff *handoff, release_log *log) {
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(host, sizeof host, 4096, &handle, NULL),
                   HURRAY_OK);
  accept_buffer(handoff, &handle, host, log);
}

/* The host buffer accepted into a handoff, with the log its release
 * counts into. */
typedef struct host_export {
  release_log log;
  hurray_handoff handoff;
} host_export;

/* A fresh log and the host buffer accepted into x's handoff. */
static void accept_host_buffer(host_export *x) {
  release_log_reset(&x->log);
  cpu_handoff(&x->handoff, &x->log);
}

static void assert_releases(release_log *log, int buffer) {
  const int releases = atomic_load(&log->buffer_releases);
  ck_assert_int_eq(releases, buffer);
}

/* BP-DLPACK-5, -6: the default layout, the handoff released without a
 * callback, the deleter releasing exactly once. */
START_TEST(export_cpu_bytes_legacy) {
  host_export x;
  accept_host_buffer(&x);
  hurray_dl_managed_tensor *t = NULL;
  hurray_error err;
  ck_assert_int_eq(hurray_dlpack_export(&x.handoff, NULL, &t, &err), HURRAY_OK);
  ck_assert_ptr_nonnull(t);
  ck_assert_ptr_eq(t->dl_tensor.data, host);
  ck_assert_int_eq(t->dl_tensor.device.device_type, 1); /* kDLCPU */
  ck_assert_int_eq(t->dl_tensor.device.device_id, 0);
  ck_assert_int_eq(t->dl_tensor.ndim, 1);
  ck_assert_uint_eq(t->dl_tensor.dtype.code, 1u); /* kDLUInt */
  ck_assert_uint_eq(t->dl_tensor.dtype.bits, 8u);
  ck_assert_uint_eq(t->dl_tensor.dtype.lanes, 1u);
  ck_assert_int_eq(t->dl_tensor.shape[0], 4096);
  ck_assert_ptr_nonnull(t->dl_tensor.strides);
  ck_assert_int_eq(t->dl_tensor.strides[0], 1);
  ck_assert_uint_eq(t->dl_tensor.byte_offset, 0u);
  ck_assert(t->deleter != NULL);
  /* The duty moved: the handoff is released, nothing was called, it can go. */
  ck_assert_uint_eq(hurray_handoff_state_of(&x.handoff), HURRAY_HANDOFF_RELEASED);
  assert_releases(&x.log, 0);
  ck_assert_int_eq(hurray_handoff_release(&x.handoff, &err), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_destroy(&x.handoff, NULL), HURRAY_OK);
  assert_releases(&x.log, 0);
  /* The consumer writes through it: the memory is the buffer itself. */
  unsigned char *bytes = t->dl_tensor.data;
  bytes[17] = 0xA5;
  ck_assert_uint_eq(host[17], 0xA5);
  t->deleter(t);
  assert_releases(&x.log, 1);
  ck_assert_ptr_eq(x.log.buffer_seen, host);
}
END_TEST

/* BP-DLPACK-8: versioned, with a dtype and shape, the read-only flag. */
START_TEST(export_cpu_float_versioned) {
  host_export x;
  accept_host_buffer(&x);
  const int64_t shape[2] = {4, 256};
  const hurray_dlpack_layout layout =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1), 2, shape, NULL, 0);
  hurray_dl_managed_tensor_versioned *t = NULL;
  hurray_error err;
  ck_assert_int_eq(
      hurray_dlpack_export_versioned(&x.handoff, &layout, HURRAY_DLPACK_FLAG_READ_ONLY, &t, &err),
      HURRAY_OK);
  ck_assert_uint_eq(t->version.major, 1u);
  ck_assert_uint_eq(t->version.minor, 0u);
  ck_assert_uint_eq(t->flags, 1u); /* DLPACK_FLAG_BITMASK_READ_ONLY */
  ck_assert_ptr_nonnull(t->manager_ctx);
  ck_assert_ptr_eq(t->dl_tensor.data, host);
  ck_assert_int_eq(t->dl_tensor.device.device_type, 1);
  ck_assert_int_eq(t->dl_tensor.ndim, 2);
  ck_assert_uint_eq(t->dl_tensor.dtype.code, 2u);
  ck_assert_uint_eq(t->dl_tensor.dtype.bits, 32u);
  ck_assert_int_eq(t->dl_tensor.shape[0], 4);
  ck_assert_int_eq(t->dl_tensor.shape[1], 256);
  ck_assert_int_eq(t->dl_tensor.strides[0], 256); /* compact strides filled (BP-DLPACK-6) */
  ck_assert_int_eq(t->dl_tensor.strides[1], 1);
  ck_assert_ptr_ne(t->dl_tensor.shape, shape); /* copied, not borrowed */
  ck_assert_uint_eq(hurray_handoff_state_of(&x.handoff), HURRAY_HANDOFF_RELEASED);
  ck_assert_int_eq(hurray_handoff_destroy(&x.handoff, NULL), HURRAY_OK);
  assert_releases(&x.log, 0);
  t->deleter(t);
  assert_releases(&x.log, 1);
}
END_TEST

/* BP-DLPACK-7: strides within the buffer are exported as given; a scalar. */
START_TEST(export_strided_and_scalar) {
  host_export x;
  accept_host_buffer(&x);
  /* A 3x5 float32 view with rows of 8 elements: reaches (2*8 + 4 + 1) * 4 = 84 bytes. */
  const int64_t shape[2] = {3, 5};
  const int64_t strides[2] = {8, 1};
  const hurray_dlpack_layout layout =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1), 2, shape, strides, 3);
  hurray_dl_managed_tensor *t = NULL;
  ck_assert_int_eq(hurray_dlpack_export(&x.handoff, &layout, &t, NULL), HURRAY_OK);
  ck_assert_int_eq(t->dl_tensor.strides[0], 8);
  ck_assert_int_eq(t->dl_tensor.strides[1], 1);
  ck_assert_int_eq(t->dl_tensor.device.device_id, 3);
  t->deleter(t);
  assert_releases(&x.log, 1);
  ck_assert_int_eq(hurray_handoff_destroy(&x.handoff, NULL), HURRAY_OK);

  /* A scalar: ndim 0, one element covering the whole (4-byte) layout. */
  hurray_error err;
  const hurray_dlpack_layout scalar =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_INT, 32, 1), 0, NULL, NULL, 0);
  ck_assert_int_eq(hurray_dlpack_layout_check(&scalar, 4, &err), HURRAY_OK);
  expect_error("scalar on 8 bytes", hurray_dlpack_layout_check(&scalar, 8, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 4, 8);
}
END_TEST

/* BP-DLPACK-7: a layout that does not match byte_size is refused through the
 * export, which then changes nothing and calls nothing. */
START_TEST(export_mismatch_changes_nothing) {
  host_export x;
  accept_host_buffer(&x);
  const int64_t shape[1] = {1025};
  const hurray_dlpack_layout layout =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1), 1, shape, NULL, 0);
  hurray_dl_managed_tensor *t = (hurray_dl_managed_tensor *)&x.log; /* must stay untouched */
  hurray_error err;
  expect_error("1025 floats on 4096 bytes", hurray_dlpack_export(&x.handoff, &layout, &t, &err),
               &err, HURRAY_ERR_INVALID_ARGUMENT, 4100, 4096);
  ck_assert_uint_eq(err.index, 1u);
  expect_message_has(&err, "4100 bytes");
  ck_assert_ptr_eq(t, (hurray_dl_managed_tensor *)&x.log);
  ck_assert_uint_eq(hurray_handoff_state_of(&x.handoff), HURRAY_HANDOFF_READABLE);
  assert_releases(&x.log, 0);
  /* Fewer bytes than the buffer is a mismatch too (compact layouts cover it exactly). */
  const int64_t fewer[1] = {1000};
  const hurray_dlpack_layout small =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1), 1, fewer, NULL, 0);
  expect_error("1000 floats", hurray_dlpack_export(&x.handoff, &small, &t, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 4000, 4096);
  /* Versioned: an undefined flag bit. */
  hurray_dl_managed_tensor_versioned *v = NULL;
  expect_error("flag 0x4", hurray_dlpack_export_versioned(&x.handoff, NULL, 0x4u, &v, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 0x4u, 0x3u);
  ck_assert_ptr_null(v);
  ck_assert_uint_eq(hurray_handoff_state_of(&x.handoff), HURRAY_HANDOFF_READABLE);
  /* NULL arguments. */
  ck_assert_int_eq(hurray_dlpack_export(NULL, NULL, &t, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0u);
  ck_assert_int_eq(hurray_dlpack_export(&x.handoff, NULL, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u);
  ck_assert_int_eq(hurray_dlpack_export_versioned(&x.handoff, NULL, 0, NULL, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 3u);
  /* Still the consumer's to release, once. */
  ck_assert_int_eq(hurray_handoff_release(&x.handoff, NULL), HURRAY_OK);
  assert_releases(&x.log, 1);
  ck_assert_int_eq(hurray_handoff_destroy(&x.handoff, NULL), HURRAY_OK);
}
END_TEST

static void expect_layout_refused(const char *what, const hurray_dlpack_layout *layout,
                                  uint64_t byte_size, uint64_t value, const char *text) {
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_status status = hurray_dlpack_layout_check(layout, byte_size, &err);
  char message[512];
  hurray_error_format(&err, message, sizeof message);
  ck_assert_msg(status == HURRAY_ERR_INVALID_ARGUMENT, "%s: %s (%s)", what,
                hurray_status_name(status), message);
  ck_assert_msg(err.value == value, "%s: value %llu, want %llu (%s)", what,
                (unsigned long long)err.value, (unsigned long long)value, message);
  ck_assert_msg(strstr(message, text) != NULL, "%s: \"%s\" lacks \"%s\"", what, message, text);
}

/* BP-DLPACK-7: overflow, negative values, bad dtypes, bad ndim, short structs. */
START_TEST(layout_refusals) {
  const hurray_dl_data_type u8 = hurray_dl_data_type_of(HURRAY_DL_UINT, 8, 1);
  const hurray_dl_data_type f32 = hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1);
  const int64_t big[2] = {INT64_MAX, 4};
  hurray_dlpack_layout l = hurray_dlpack_layout_of(u8, 2, big, NULL, 0);
  expect_layout_refused("count overflow", &l, 4096, 4, "overflows 64 bits");
  const int64_t quarter[1] = {INT64_C(1) << 62};
  l = hurray_dlpack_layout_of(f32, 1, quarter, NULL, 0);
  expect_layout_refused("bytes overflow", &l, 4096, UINT64_C(1) << 62, "overflow 64 bits");
  const int64_t negative[2] = {4, -3};
  l = hurray_dlpack_layout_of(u8, 2, negative, NULL, 0);
  expect_layout_refused("negative extent", &l, 4096, (uint64_t)-3, "shape[1] is -3");
  const int64_t shape[2] = {2, 2};
  const int64_t negative_stride[2] = {-1, 1};
  l = hurray_dlpack_layout_of(u8, 2, shape, negative_stride, 0);
  expect_layout_refused("negative stride", &l, 4096, (uint64_t)-1, "strides[0] is -1");
  const int64_t far[2] = {INT64_MAX, 1};
  l = hurray_dlpack_layout_of(u8, 2, shape, far, 0);
  expect_layout_refused("stride reaching past", &l, 4096, (uint64_t)INT64_MAX + 2u, "reaches");
  const int64_t huge_stride[2] = {INT64_MAX, INT64_MAX};
  const int64_t three[2] = {3, 3};
  l = hurray_dlpack_layout_of(u8, 2, three, huge_stride, 0);
  expect_layout_refused("stride overflow", &l, 4096, (uint64_t)INT64_MAX, "overflows 64 bits");
  l = hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_INT, 4, 1), 1, shape, NULL, 0);
  expect_layout_refused("int4", &l, 1, 4, "not a positive multiple of 8");
  l = hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 0), 1, shape, NULL, 0);
  expect_layout_refused("lanes 0", &l, 8, 0, "lanes 0");
  l = hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 0, 1), 1, shape, NULL, 0);
  expect_layout_refused("bits 0", &l, 8, 0, "bits 0");
  l = hurray_dlpack_layout_of(u8, HURRAY_DLPACK_MAX_NDIM + 1, shape, NULL, 0);
  expect_layout_refused("ndim 65", &l, 4, 65, "ndim is 65");
  l = hurray_dlpack_layout_of(u8, -1, shape, NULL, 0);
  expect_layout_refused("ndim -1", &l, 4, (uint64_t)-1, "ndim is -1");
  l = hurray_dlpack_layout_of(u8, 2, NULL, NULL, 0);
  expect_layout_refused("NULL shape", &l, 4, 0, "shape is NULL");
  l = hurray_dlpack_layout_of(u8, 2, shape, NULL, 0);
  l.struct_size = 8;
  expect_layout_refused("struct_size", &l, 4, 8, "struct_size 8");
  /* Accepted: vector lanes, an empty tensor (0 bytes whatever the other
   * extents), an empty strided one, 64 dimensions of 1. */
  const int64_t two[1] = {2};
  l = hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 4), 1, two, NULL, 0);
  ck_assert_int_eq(hurray_dlpack_layout_check(&l, 32, NULL), HURRAY_OK);
  const int64_t empty[3] = {INT64_MAX, 0, INT64_MAX};
  l = hurray_dlpack_layout_of(u8, 3, empty, NULL, 0);
  ck_assert_int_eq(hurray_dlpack_layout_check(&l, 0, NULL), HURRAY_OK);
  const int64_t empty_strides[3] = {1, 1, 1};
  l = hurray_dlpack_layout_of(u8, 3, empty, empty_strides, 0);
  ck_assert_int_eq(hurray_dlpack_layout_check(&l, 0, NULL), HURRAY_OK);
  int64_t ones[HURRAY_DLPACK_MAX_NDIM];
  for (int i = 0; i < HURRAY_DLPACK_MAX_NDIM; i++) {
    ones[i] = 1;
  }
  l = hurray_dlpack_layout_of(u8, HURRAY_DLPACK_MAX_NDIM, ones, NULL, 0);
  ck_assert_int_eq(hurray_dlpack_layout_check(&l, 1, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_dlpack_layout_check(NULL, 12345, NULL), HURRAY_OK);
}
END_TEST

/* BP-DLPACK-4: an event buffer is exported only once waited on and its
 * event released; a consumer_stream buffer once an inter-stream wait is
 * recorded. The refusals change nothing. */
START_TEST(export_refuses_until_readable) {
  release_log log;
  release_log_reset(&log);
  hurray_handoff h;
  hurray_error err;
  hurray_dl_managed_tensor *t = NULL;
  drive_to_state(&h, HURRAY_HANDOFF_EVENT_PENDING, HURRAY_SYNC_EVENT, &log);
  expect_error("event pending", hurray_dlpack_export(&h, NULL, &t, &err), &err,
               HURRAY_ERR_ILLEGAL_TRANSITION, HURRAY_HANDOFF_OP_TRANSFER,
               HURRAY_HANDOFF_EVENT_PENDING);
  expect_message_has(&err, "record_event_wait");
  ck_assert_ptr_null(t);
  ck_assert_int_eq(hurray_handoff_record_event_wait(&h, NULL), HURRAY_OK);
  expect_error("event waited", hurray_dlpack_export(&h, NULL, &t, &err), &err,
               HURRAY_ERR_ILLEGAL_TRANSITION, HURRAY_HANDOFF_OP_TRANSFER,
               HURRAY_HANDOFF_EVENT_WAITED);
  expect_message_has(&err, "release the event first");
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EVENT_WAITED);
  ck_assert_int_eq(atomic_load(&log.event_releases), 0);
  assert_releases(&log, 0);
  ck_assert_int_eq(hurray_handoff_release_event(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_dlpack_export(&h, NULL, &t, &err), HURRAY_OK);
  ck_assert_int_eq(t->dl_tensor.device.device_type, 2); /* kDLCUDA */
  ck_assert_ptr_eq(t->dl_tensor.data, FAKE_DEVICE_POINTER);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  t->deleter(t);
  assert_releases(&log, 1);
  ck_assert_int_eq(atomic_load(&log.event_releases), 1);

  release_log_reset(&log);
  drive_to_state(&h, HURRAY_HANDOFF_STREAM_BOUND, HURRAY_SYNC_CONSUMER_STREAM, &log);
  hurray_dl_managed_tensor_versioned *v = NULL;
  expect_error("stream bound", hurray_dlpack_export_versioned(&h, NULL, 0, &v, &err), &err,
               HURRAY_ERR_ILLEGAL_TRANSITION, HURRAY_HANDOFF_OP_TRANSFER,
               HURRAY_HANDOFF_STREAM_BOUND);
  expect_message_has(&err, "record_stream_wait");
  ck_assert_int_eq(hurray_handoff_record_stream_wait(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_dlpack_export_versioned(&h, NULL, 0, &v, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  v->deleter(v);
  assert_releases(&log, 1);

  /* Dropped events, offers not accepted, released buffers: refused too. */
  release_log_reset(&log);
  drive_to_state(&h, HURRAY_HANDOFF_EVENT_DROPPED, HURRAY_SYNC_EVENT, &log);
  ck_assert_int_eq(hurray_dlpack_export(&h, NULL, &t, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_dlpack_export(&h, NULL, &t, &err), HURRAY_ERR_ALREADY_RELEASED);
  assert_releases(&log, 1);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  release_log_reset(&log);
  drive_to_state(&h, HURRAY_HANDOFF_OFFERED, HURRAY_SYNC_PRODUCER_SYNCED, &log);
  ck_assert_int_eq(hurray_dlpack_export(&h, NULL, &t, &err), HURRAY_ERR_ILLEGAL_TRANSITION);
  expect_message_has(&err, "hurray_handoff_accept");
  ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  assert_releases(&log, 0);
}
END_TEST

/* BP-DLPACK-1 through the export, every row of the table; the pairs without
 * a DLPack value refused (UNSUPPORTED, value: class, expected: tag). */
START_TEST(export_device_of_every_row) {
  for (size_t i = 0; i < SPEC_ROW_COUNT; i++) {
    release_log log;
    release_log_reset(&log);
    const dlpack_row row = spec_rows[i];
    hurray_buffer_handle handle = {
        4096u, 4096u, row.tag, HURRAY_SYNC_PRODUCER_SYNCED, row.memory_class, 0};
    hurray_handoff h;
    accept_buffer(&h, &handle, row.tag == HURRAY_DEVICE_CPU ? (void *)host : FAKE_DEVICE_POINTER,
                  &log);
    hurray_dl_managed_tensor_versioned *t = NULL;
    hurray_status status = hurray_dlpack_export_versioned(&h, NULL, 0, &t, NULL);
    ck_assert_msg(status == HURRAY_OK, "row %zu: %s", i, hurray_status_name(status));
    ck_assert_msg(t->dl_tensor.device.device_type == row.device_type,
                  "tag 0x%02X class 0x%02X: device type %d, spec says %d", row.tag,
                  row.memory_class, t->dl_tensor.device.device_type, row.device_type);
    ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
    t->deleter(t);
    assert_releases(&log, 1);
  }
  static const struct {
    uint8_t tag, memory_class;
  } none[] = {{0x02, 0x02}, {0x01, 0x03}, {0x02, 0x03}, {0x04, 0x03},
              {0x07, 0x03}, {0xF0, 0x00}, {0xF3, 0xF1}};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    release_log log;
    release_log_reset(&log);
    hurray_buffer_handle handle = {
        4096u, 4096u, none[i].tag, HURRAY_SYNC_PRODUCER_SYNCED, none[i].memory_class, 0};
    hurray_handoff h;
    accept_buffer(&h, &handle, FAKE_DEVICE_POINTER, &log);
    hurray_dl_managed_tensor *t = NULL;
    hurray_error err;
    char what[64];
    snprintf(what, sizeof what, "tag 0x%02X class 0x%02X", none[i].tag, none[i].memory_class);
    expect_error(what, hurray_dlpack_export(&h, NULL, &t, &err), &err, HURRAY_ERR_UNSUPPORTED,
                 none[i].memory_class, none[i].tag);
    expect_message_has(&err, "DLPack has no device type");
    ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_READABLE);
    ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
    assert_releases(&log, 1);
    ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  }
}
END_TEST

/* BP-DLPACK-4, -5 for a buffer held outside a handoff. */
START_TEST(export_owned_buffer) {
  release_log log;
  release_log_reset(&log);
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(host, sizeof host, 4096, &handle, NULL),
                   HURRAY_OK);
  hurray_dl_managed_tensor *t = NULL;
  hurray_error err;
  ck_assert_int_eq(
      hurray_dlpack_export_buffer(&handle, host, count_buffer_release, &log, NULL, &t, &err),
      HURRAY_OK);
  ck_assert_int_eq(t->dl_tensor.shape[0], 4096);
  assert_releases(&log, 0);
  t->deleter(t);
  assert_releases(&log, 1);
  hurray_dl_managed_tensor_versioned *v = NULL;
  ck_assert_int_eq(hurray_dlpack_export_buffer_versioned(&handle, host, count_buffer_release, &log,
                                                         NULL, HURRAY_DLPACK_FLAG_IS_COPIED, &v,
                                                         &err),
                   HURRAY_OK);
  ck_assert_uint_eq(v->flags, 2u);
  v->deleter(v);
  assert_releases(&log, 2);
  /* Refusals: nothing called, the caller keeps the buffer. */
  const hurray_buffer_handle event = cuda_handle(HURRAY_SYNC_EVENT);
  expect_error("event outside a handoff",
               hurray_dlpack_export_buffer(&event, FAKE_DEVICE_POINTER, count_buffer_release, &log,
                                           NULL, &t, &err),
               &err, HURRAY_ERR_INVALID_SYNC_MODE, HURRAY_SYNC_EVENT, 0);
  expect_message_has(&err, "cannot record a wait");
  const hurray_buffer_handle stream = cuda_handle(HURRAY_SYNC_CONSUMER_STREAM);
  ck_assert_int_eq(hurray_dlpack_export_buffer_versioned(
                       &stream, FAKE_DEVICE_POINTER, count_buffer_release, &log, NULL, 0, &v, &err),
                   HURRAY_ERR_INVALID_SYNC_MODE);
  ck_assert_int_eq(
      hurray_dlpack_export_buffer(&handle, NULL, count_buffer_release, &log, NULL, &t, &err),
      HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1u);
  ck_assert_int_eq(hurray_dlpack_export_buffer(&handle, host, NULL, &log, NULL, &t, &err),
                   HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 2u);
  ck_assert_int_eq(
      hurray_dlpack_export_buffer(NULL, host, count_buffer_release, &log, NULL, &t, &err),
      HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0u);
  ck_assert_int_eq(
      hurray_dlpack_export_buffer(&handle, host, count_buffer_release, &log, NULL, NULL, &err),
      HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 5u);
  expect_error("flags",
               hurray_dlpack_export_buffer_versioned(&handle, host, count_buffer_release, &log,
                                                     NULL, 0x8u, &v, &err),
               &err, HURRAY_ERR_INVALID_ARGUMENT, 0x8u, 0x3u);
  ck_assert_uint_eq(err.index, 5u);
  hurray_buffer_handle bad = handle;
  bad.alignment = 3;
  ck_assert_int_eq(
      hurray_dlpack_export_buffer(&bad, host, count_buffer_release, &log, NULL, &t, &err),
      HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO);
  /* An empty buffer with a NULL pointer is fine (BP-ALIGN-3). */
  const hurray_buffer_handle empty = hurray_buffer_handle_empty(HURRAY_DEVICE_CPU);
  ck_assert_int_eq(
      hurray_dlpack_export_buffer(&empty, NULL, count_buffer_release, &log, NULL, &t, &err),
      HURRAY_OK);
  ck_assert_int_eq(t->dl_tensor.shape[0], 0);
  ck_assert_ptr_null(t->dl_tensor.data);
  t->deleter(t);
  assert_releases(&log, 3);
}
END_TEST

/* Many exports and deleters in a row: each releases once, nothing leaks
 * (run under valgrind by tools/test). */
START_TEST(export_many) {
  release_log log;
  release_log_reset(&log);
  for (int i = 0; i < 1000; i++) {
    hurray_handoff h;
    cpu_handoff(&h, &log);
    const int64_t shape[3] = {4, 4, 64};
    const hurray_dlpack_layout layout =
        hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_UINT, 32, 1), 3, shape, NULL, 0);
    hurray_dl_managed_tensor *t = NULL;
    ck_assert_int_eq(hurray_dlpack_export(&h, &layout, &t, NULL), HURRAY_OK);
    ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
    t->deleter(t);
    assert_releases(&log, i + 1);
  }
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN(
      "dlpack_export", "export", 0, export_cpu_bytes_legacy, export_cpu_float_versioned,
      export_strided_and_scalar, export_mismatch_changes_nothing, layout_refusals,
      export_refuses_until_readable, export_device_of_every_row, export_owned_buffer, export_many);
}
