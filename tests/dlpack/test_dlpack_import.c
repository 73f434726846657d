/*
 * Import of DLPack tensors (0.x and 1.x) into handoff offers
 * (BP-DLPACK-9..14): the alignment measured from data + byte_offset (aligned
 * and under-aligned addresses), the device of every row of BP-DLPACK-2,
 * compact row-major only, size overflow, the producer's deleter called
 * exactly once on release and never on a refusal, and a round trip through
 * export.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>

#include "dlpack_test_support.h"
#include "check_main.h"

static _Alignas(4096) unsigned char host[8192];

/* A producer's DLPack tensor: a managed tensor whose deleter counts. */
typedef struct producer_tensor {
  hurray_dl_managed_tensor managed;
  hurray_dl_managed_tensor_versioned versioned;
  int64_t shape[4];
  int64_t strides[4];
  int deletes;
  void *deleted;
} producer_tensor;

static void count_delete(hurray_dl_managed_tensor *self) {
  producer_tensor *p = self->manager_ctx;
  p->deletes++;
  p->deleted = self;
}

static void count_delete_versioned(hurray_dl_managed_tensor_versioned *self) {
  producer_tensor *p = self->manager_ctx;
  p->deletes++;
  p->deleted = self;
}

/* A tensor of ndim float32 dimensions at data + byte_offset on device_type. */
static void make_tensor(producer_tensor *p, void *data, uint64_t byte_offset, int32_t device_type,
                        int32_t ndim, const int64_t *shape) {
  memset(p, 0, sizeof *p);
  for (int32_t i = 0; i < ndim; i++) {
    p->shape[i] = shape[i];
  }
  const hurray_dl_tensor t = {
      data, {device_type, 0}, ndim, hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1), p->shape,
      NULL, byte_offset};
  p->managed.dl_tensor = t;
  p->managed.manager_ctx = p;
  p->managed.deleter = count_delete;
  p->versioned.version.major = 1;
  p->versioned.version.minor = 1;
  p->versioned.manager_ctx = p;
  p->versioned.deleter = count_delete_versioned;
  p->versioned.dl_tensor = t;
}

/* Accepts what an import offered; returns the accepted buffer. */
static hurray_accepted_buffer accept_import(hurray_handoff *h) {
  hurray_accepted_buffer got = HURRAY_ACCEPTED_BUFFER_INIT;
  hurray_error err;
  hurray_status status = hurray_handoff_accept(h, HURRAY_TRANSPORT_IN_PROCESS, 0, &got, &err);
  if (status != HURRAY_OK) {
    char message[256];
    hurray_error_format(&err, message, sizeof message);
    ck_abort_msg("accept: %s (%s)", hurray_status_name(status), message);
  }
  return got;
}

/* After the refusals of imports of p into h: nothing was taken (the handoff
 * is still empty, the producer's deleter not called); h is then destroyed. */
static void expect_nothing_taken(hurray_handoff *h, const producer_tensor *p) {
  ck_assert_uint_eq(hurray_handoff_state_of(h), HURRAY_HANDOFF_EMPTY);
  ck_assert_int_eq(p->deletes, 0);
  ck_assert_int_eq(hurray_handoff_destroy(h, NULL), HURRAY_OK);
}

/* BP-DLPACK-11..13: a 0.x CPU tensor, aligned; the deleter once on release. */
START_TEST(import_legacy_cpu) {
  producer_tensor p;
  const int64_t shape[2] = {16, 16};
  make_tensor(&p, host, 0, 1, 2, shape);
  hurray_handoff h;
  hurray_handoff_init(&h);
  hurray_error err;
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_OK);
  ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_OFFERED);
  ck_assert_int_eq(p.deletes, 0);
  const hurray_accepted_buffer got = accept_import(&h);
  ck_assert_uint_eq(got.handle.byte_size, 16u * 16u * 4u);
  ck_assert_uint_eq(got.handle.alignment, oracle_alignment(host));
  ck_assert_uint_ge(got.handle.alignment, 4096u);
  ck_assert_uint_eq(got.handle.device_tag, HURRAY_DEVICE_CPU);
  ck_assert_uint_eq(got.handle.memory_class, HURRAY_MEMORY_STANDARD);
  ck_assert_uint_eq(got.handle.sync_mode, HURRAY_SYNC_PRODUCER_SYNCED);
  ck_assert_ptr_eq(got.data, host);
  ck_assert_ptr_null(got.event);
  ck_assert_int_eq(p.deletes, 0);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 1);
  ck_assert_ptr_eq(p.deleted, &p.managed);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_ERR_ALREADY_RELEASED);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 1);
}
END_TEST

/* BP-DLPACK-11: the alignment is that of data + byte_offset, measured. */
START_TEST(import_measures_data_plus_offset) {
  static const struct {
    uint64_t offset;
    uint32_t want; /* 0: refused; else the alignment (at least, for 4096) */
  } cases[] = {{64, 64}, {128, 128}, {192, 64}, {256, 256}, {4096, 4096},
               {4, 0},   {8, 0},     {32, 0},   {96, 0},    {4097, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    producer_tensor p;
    const int64_t shape[1] = {16};
    make_tensor(&p, host, cases[i].offset, 1, 1, shape);
    hurray_handoff h;
    hurray_handoff_init(&h);
    hurray_error err;
    hurray_status status = hurray_dlpack_import(&h, &p.managed, &err);
    const uint32_t measured = oracle_alignment(host + cases[i].offset);
    if (cases[i].want != 0u) {
      ck_assert_msg(status == HURRAY_OK, "offset %llu: %s", (unsigned long long)cases[i].offset,
                    hurray_status_name(status));
      const hurray_accepted_buffer got = accept_import(&h);
      /* host is 4096-aligned, so below 4096 the offset alone decides. */
      if (cases[i].want < 4096u) {
        ck_assert_uint_eq(got.handle.alignment, cases[i].want);
      } else {
        ck_assert_uint_ge(got.handle.alignment, cases[i].want);
      }
      ck_assert_uint_eq(got.handle.alignment, measured);
      ck_assert_ptr_eq(got.data, host + cases[i].offset);
      ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
      ck_assert_int_eq(p.deletes, 1);
    } else {
      char what[64];
      snprintf(what, sizeof what, "offset %llu", (unsigned long long)cases[i].offset);
      expect_error(what, status, &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, measured, 64);
      char text[32];
      snprintf(text, sizeof text, "%u-byte aligned", (unsigned)measured);
      expect_message_has(&err, text);
      /* Nothing was taken: the handoff is still empty, the deleter not called. */
      ck_assert_uint_eq(hurray_handoff_state_of(&h), HURRAY_HANDOFF_EMPTY);
      ck_assert_int_eq(p.deletes, 0);
      p.managed.deleter(&p.managed); /* the caller's own duty */
    }
    ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
    ck_assert_int_eq(p.deletes, 1);
  }
  /* An under-aligned data pointer, no offset; and an empty tensor, which
   * declares what it measures (BP-ALIGN-3). */
  producer_tensor p;
  const int64_t shape[1] = {16};
  make_tensor(&p, host + 8, 0, 1, 1, shape);
  hurray_handoff h;
  hurray_handoff_init(&h);
  hurray_error err;
  expect_error("data + 8", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, 8, 64);
  const int64_t empty[2] = {0, 5};
  make_tensor(&p, host + 4, 0, 1, 2, empty);
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_OK);
  hurray_accepted_buffer got = accept_import(&h);
  ck_assert_uint_eq(got.handle.byte_size, 0u);
  ck_assert_uint_eq(got.handle.alignment, 4u);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 1);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  make_tensor(&p, NULL, 0, 1, 2, empty);
  hurray_handoff_init(&h);
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_OK);
  got = accept_import(&h);
  ck_assert_ptr_null(got.data);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 1);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
}
END_TEST

/* BP-DLPACK-9, -2: every DLDeviceType of the table to its (tag, class);
 * object-handle types and unknown types refused, nothing taken. */
START_TEST(import_device_of_every_row) {
  static const struct {
    int32_t type;
    uint8_t tag, memory_class;
  } rows[] = {{1, 0x00, 0x00},  {2, 0x01, 0x00},  {3, 0x01, 0x01},  {13, 0x01, 0x02},
              {10, 0x02, 0x00}, {11, 0x02, 0x01}, {14, 0x07, 0x00}, {16, 0x06, 0x00}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    producer_tensor p;
    const int64_t shape[1] = {1024};
    void *data = rows[i].tag == HURRAY_DEVICE_CPU ? (void *)host : FAKE_DEVICE_POINTER;
    make_tensor(&p, data, 0, rows[i].type, 1, shape);
    hurray_handoff h;
    hurray_handoff_init(&h);
    hurray_error err;
    hurray_status status = hurray_dlpack_import_versioned(&h, &p.versioned, NULL, &err);
    ck_assert_msg(status == HURRAY_OK, "type %d: %s", rows[i].type, hurray_status_name(status));
    const hurray_accepted_buffer got = accept_import(&h);
    ck_assert_msg(
        got.handle.device_tag == rows[i].tag && got.handle.memory_class == rows[i].memory_class,
        "type %d: tag 0x%02X class 0x%02X, spec says 0x%02X 0x%02X", rows[i].type,
        got.handle.device_tag, got.handle.memory_class, rows[i].tag, rows[i].memory_class);
    ck_assert_uint_eq(got.handle.alignment, oracle_alignment(data));
    ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
    ck_assert_int_eq(p.deletes, 1);
    ck_assert_ptr_eq(p.deleted, &p.versioned);
    ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  }
  /* Every row of the table maps back (BP-DLPACK-2) and round-trips to the
   * DLPack type the export table gives for that pair. */
  for (size_t i = 0; i < SPEC_ROW_COUNT; i++) {
    hurray_device_tag tag = 0xEE;
    hurray_memory_class memory_class = 0xEE;
    ck_assert_int_eq(
        hurray_dlpack_device_type_to_pair(spec_rows[i].device_type, &tag, &memory_class, NULL),
        HURRAY_OK);
    ck_assert_uint_eq(tag, spec_rows[i].tag);
    int32_t back = 0;
    ck_assert_int_eq(hurray_dlpack_device_type_from_pair(tag, memory_class, &back, NULL),
                     HURRAY_OK);
    ck_assert_int_eq(back, spec_rows[i].device_type);
  }
  /* Object handles (BP-DLPACK-9) and types without a Hurray device. */
  static const struct {
    int32_t type;
    const char *text;
  } refused[] = {{4, "object handle"},    {7, "object handle"},     {8, "object handle"},
                 {15, "object handle"},   {9, "no Hurray device"},  {12, "no Hurray device"},
                 {0, "no Hurray device"}, {17, "no Hurray device"}, {-1, "no Hurray device"}};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    producer_tensor p;
    const int64_t shape[1] = {1024};
    make_tensor(&p, FAKE_DEVICE_POINTER, 0, refused[i].type, 1, shape);
    hurray_handoff h;
    hurray_handoff_init(&h);
    hurray_error err;
    char what[32];
    snprintf(what, sizeof what, "device type %d", refused[i].type);
    expect_error(what, hurray_dlpack_import(&h, &p.managed, &err), &err, HURRAY_ERR_UNSUPPORTED,
                 (uint64_t)(int64_t)refused[i].type, 0);
    expect_message_has(&err, refused[i].text);
    expect_nothing_taken(&h, &p);
  }
}
END_TEST

/* BP-DLPACK-10: compact row-major only; the dimension is named. */
START_TEST(import_contiguity) {
  producer_tensor p;
  const int64_t shape[3] = {4, 1, 16};
  make_tensor(&p, host, 0, 1, 3, shape);
  hurray_handoff h;
  hurray_error err;
  /* Compact strides given explicitly, with any stride on the extent-1 dimension. */
  p.strides[0] = 16;
  p.strides[1] = 12345;
  p.strides[2] = 1;
  p.managed.dl_tensor.strides = p.strides;
  hurray_handoff_init(&h);
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_OK);
  ck_assert_uint_eq(accept_import(&h).handle.byte_size, 256u);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 1);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  /* A transposed tensor. */
  const int64_t square[2] = {16, 16};
  make_tensor(&p, host, 0, 1, 2, square);
  p.strides[0] = 1;
  p.strides[1] = 16;
  p.managed.dl_tensor.strides = p.strides;
  hurray_handoff_init(&h);
  expect_error("transposed", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 16, 1);
  expect_message_has(&err, "dimension 1 is not contiguous");
  ck_assert_uint_eq(err.index, 1u);
  /* Padded rows. */
  p.strides[0] = 32;
  p.strides[1] = 1;
  expect_error("padded rows", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 32, 16);
  expect_message_has(&err, "dimension 0");
  /* A negative stride. */
  p.strides[0] = -16;
  expect_error("negative stride", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)-16, 16);
  expect_nothing_taken(&h, &p);
}
END_TEST

/* BP-DLPACK-10: sizes that overflow, bad extents and dtypes; nothing taken. */
START_TEST(import_size_refusals) {
  hurray_handoff h;
  hurray_handoff_init(&h);
  hurray_error err;
  producer_tensor p;
  const int64_t overflow[2] = {INT64_C(1) << 40, INT64_C(1) << 30};
  make_tensor(&p, host, 0, 1, 2, overflow);
  expect_error("2^70 elements", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, UINT64_C(1) << 30, 0);
  expect_message_has(&err, "overflows 64 bits");
  const int64_t bytes_overflow[1] = {INT64_C(1) << 62};
  make_tensor(&p, host, 0, 1, 1, bytes_overflow); /* float32: 2^64 bytes */
  expect_error("2^64 bytes", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, UINT64_C(1) << 62, 0);
  const int64_t negative[2] = {4, -1};
  make_tensor(&p, host, 0, 1, 2, negative);
  expect_error("negative extent", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)-1, 0);
  expect_message_has(&err, "shape[1] is -1");
  const int64_t shape[1] = {64};
  make_tensor(&p, host, 0, 1, 1, shape);
  p.managed.dl_tensor.dtype = hurray_dl_data_type_of(HURRAY_DL_INT, 4, 1);
  expect_error("int4", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 4, 0);
  make_tensor(&p, host, 0, 1, 1, shape);
  p.managed.dl_tensor.ndim = 65;
  expect_error("ndim 65", hurray_dlpack_import(&h, &p.managed, &err), &err,
               HURRAY_ERR_INVALID_ARGUMENT, 65, 64);
  make_tensor(&p, host, 0, 1, 1, shape);
  p.managed.dl_tensor.shape = NULL;
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_ERR_INVALID_ARGUMENT);
  make_tensor(&p, NULL, 0, 1, 1, shape);
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_ERR_NULL_ARGUMENT);
  make_tensor(&p, (void *)(uintptr_t)(UINTPTR_MAX - 63u), 4096, 2, 1, shape);
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_ERR_INVALID_ARGUMENT);
  expect_message_has(&err, "beyond the address space");
  ck_assert_int_eq(hurray_dlpack_import(NULL, &p.managed, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 0u);
  ck_assert_int_eq(hurray_dlpack_import(&h, NULL, &err), HURRAY_ERR_NULL_ARGUMENT);
  ck_assert_uint_eq(err.index, 1u);
  expect_nothing_taken(&h, &p);
}
END_TEST

/* BP-DLPACK-14: versions and flags; BP-DLPACK-13: a handoff that is not
 * empty takes nothing; withdraw gives the tensor back. */
START_TEST(import_versioned_and_ownership) {
  producer_tensor p;
  const int64_t shape[1] = {256};
  make_tensor(&p, host, 0, 1, 1, shape);
  p.versioned.flags = HURRAY_DLPACK_FLAG_READ_ONLY;
  hurray_handoff h;
  hurray_handoff_init(&h);
  hurray_error err;
  uint64_t flags = 99;
  ck_assert_int_eq(hurray_dlpack_import_versioned(&h, &p.versioned, &flags, &err), HURRAY_OK);
  ck_assert_uint_eq(flags, 1u);
  /* A second import into the same (offered) handoff is refused; nothing taken. */
  producer_tensor q;
  make_tensor(&q, host + 4096, 0, 1, 1, shape);
  expect_error("not empty", hurray_dlpack_import(&h, &q.managed, &err), &err,
               HURRAY_ERR_ILLEGAL_TRANSITION, HURRAY_HANDOFF_OP_OFFER, HURRAY_HANDOFF_OFFERED);
  expect_message_has(&err, "initialised and empty");
  ck_assert_int_eq(q.deletes, 0);
  /* The producer withdraws: nothing called, the tensor is the caller's again. */
  ck_assert_int_eq(hurray_handoff_withdraw(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 0);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
  p.versioned.deleter(&p.versioned);
  ck_assert_int_eq(p.deletes, 1);
  /* Major version 2: refused before anything after the deleter is read. */
  make_tensor(&p, host, 0, 1, 1, shape);
  p.versioned.version.major = 2;
  p.versioned.dl_tensor.shape = NULL; /* would be refused differently if read */
  hurray_handoff_init(&h);
  flags = 99;
  expect_error("major 2", hurray_dlpack_import_versioned(&h, &p.versioned, &flags, &err), &err,
               HURRAY_ERR_UNSUPPORTED, 2, 1);
  expect_message_has(&err, "DLPack version 2.1");
  ck_assert_uint_eq(flags, 99u);
  p.versioned.version.major = 0;
  ck_assert_int_eq(hurray_dlpack_import_versioned(&h, &p.versioned, NULL, &err),
                   HURRAY_ERR_UNSUPPORTED);
  ck_assert_int_eq(p.deletes, 0);
  /* A NULL deleter: imported, released, nothing to call. */
  make_tensor(&p, host, 0, 1, 1, shape);
  p.managed.deleter = NULL;
  ck_assert_int_eq(hurray_dlpack_import(&h, &p.managed, &err), HURRAY_OK);
  accept_import(&h);
  ck_assert_int_eq(hurray_handoff_release(&h, NULL), HURRAY_OK);
  ck_assert_int_eq(p.deletes, 0);
  ck_assert_int_eq(hurray_handoff_destroy(&h, NULL), HURRAY_OK);
}
END_TEST

/* Export then import: the original producer's release runs exactly once,
 * when the last consumer releases. */
START_TEST(round_trip_through_dlpack) {
  release_log log;
  release_log_reset(&log);
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(host, 4096, 4096, &handle, NULL),
                   HURRAY_OK);
  hurray_handoff first;
  accept_buffer(&first, &handle, host, &log);
  const int64_t shape[2] = {32, 32};
  const hurray_dlpack_layout layout =
      hurray_dlpack_layout_of(hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1), 2, shape, NULL, 0);
  for (int versioned = 0; versioned < 2; versioned++) {
    if (versioned) {
      release_log_reset(&log);
      accept_buffer(&first, &handle, host, &log);
    }
    hurray_dl_managed_tensor *t = NULL;
    hurray_dl_managed_tensor_versioned *v = NULL;
    hurray_handoff second;
    hurray_handoff_init(&second);
    if (versioned) {
      ck_assert_int_eq(hurray_dlpack_export_versioned(&first, &layout, 0, &v, NULL), HURRAY_OK);
      ck_assert_int_eq(hurray_dlpack_import_versioned(&second, v, NULL, NULL), HURRAY_OK);
    } else {
      ck_assert_int_eq(hurray_dlpack_export(&first, &layout, &t, NULL), HURRAY_OK);
      ck_assert_int_eq(hurray_dlpack_import(&second, t, NULL), HURRAY_OK);
    }
    ck_assert_int_eq(hurray_handoff_destroy(&first, NULL), HURRAY_OK);
    const hurray_accepted_buffer got = accept_import(&second);
    ck_assert(hurray_buffer_handle_equal(
        &got.handle,
        &(hurray_buffer_handle){4096u, oracle_alignment(host), HURRAY_DEVICE_CPU,
                                HURRAY_SYNC_PRODUCER_SYNCED, HURRAY_MEMORY_STANDARD, 0}));
    ck_assert_ptr_eq(got.data, host);
    ck_assert_int_eq(atomic_load(&log.buffer_releases), 0);
    ck_assert_int_eq(hurray_handoff_release(&second, NULL), HURRAY_OK);
    ck_assert_int_eq(atomic_load(&log.buffer_releases), 1);
    ck_assert_ptr_eq(log.buffer_seen, host);
    ck_assert_int_eq(hurray_handoff_destroy(&second, NULL), HURRAY_OK);
    ck_assert_int_eq(atomic_load(&log.buffer_releases), 1);
  }
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("dlpack_import", "import", 0, import_legacy_cpu,
                           import_measures_data_plus_offset, import_device_of_every_row,
                           import_contiguity, import_size_refusals, import_versioned_and_ownership,
                           round_trip_through_dlpack);
}
