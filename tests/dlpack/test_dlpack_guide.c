/*
 * Compiles and runs every example of docs/dlpack.md (extracted at build time
 * by tests/handoff/extract_guide_examples.py), so the guide cannot drift
 * from the library: the export and import examples with their releases
 * counted (BP-DLPACK-5, BP-DLPACK-13) and an import the guide's code must
 * refuse (BP-DLPACK-11).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <string.h>

#include "dlpack_examples.h" /* generated: the guide's code blocks, in order */
#include "check_main.h"
#include "handoff_test_support.h"

static _Alignas(4096) float host[1024];
static int host_releases;

static void count_host_release(void *buffer, void *ctx) {
  (void)ctx;
  ck_assert_ptr_eq(buffer, host);
  host_releases++;
}

static void fill_host(void) {
  for (int i = 0; i < 1024; i++) {
    host[i] = (float)i;
  }
}

static const double sum_0_to_1023 = 1023.0 * 1024.0 / 2.0;

START_TEST(export_example) {
  fill_host();
  host_releases = 0;
  hurray_buffer_handle handle;
  ck_assert_int_eq(hurray_buffer_handle_for_host_memory(host, sizeof host, 4096, &handle, NULL),
                   HURRAY_OK);
  const hurray_buffer_offer offer =
      hurray_buffer_offer_make(host, count_host_release, NULL, hurray_sync_payload_none());
  hurray_handoff handoff;
  offer_and_accept_buffer(&handoff, &handle, &offer);
  hurray_dl_managed_tensor *tensor = share_as_floats(&handoff);
  ck_assert_ptr_nonnull(tensor);
  ck_assert_uint_eq(hurray_handoff_state_of(&handoff), HURRAY_HANDOFF_DESTROYED);
  ck_assert_int_eq(tensor->dl_tensor.shape[0], 16);
  ck_assert_int_eq(tensor->dl_tensor.shape[1], 64);
  ck_assert_int_eq(host_releases, 0);
  ck_assert(sum_and_drop(tensor) == sum_0_to_1023);
  ck_assert_int_eq(host_releases, 1);
}
END_TEST

START_TEST(owned_versioned_example) {
  fill_host();
  hurray_dl_managed_tensor_versioned *tensor = share_copy_read_only(host, 100);
  ck_assert_ptr_nonnull(tensor);
  ck_assert_uint_eq(tensor->flags, HURRAY_DLPACK_FLAG_READ_ONLY | HURRAY_DLPACK_FLAG_IS_COPIED);
  ck_assert_uint_eq(tensor->version.major, 1u);
  ck_assert_int_eq(tensor->dl_tensor.shape[0], 100);
  ck_assert_ptr_ne(tensor->dl_tensor.data, host);
  ck_assert(((const float *)tensor->dl_tensor.data)[99] == 99.0f);
  tensor->deleter(tensor); /* frees the copy: valgrind sees no leak */
}
END_TEST

typedef struct producer {
  hurray_dl_managed_tensor managed;
  int64_t shape[1];
  int deletes;
} producer;

static void delete_producer(hurray_dl_managed_tensor *self) {
  ((producer *)self->manager_ctx)->deletes++;
}

static void make_producer(producer *p, void *data, int64_t count) {
  memset(p, 0, sizeof *p);
  p->shape[0] = count;
  p->managed.dl_tensor.data = data;
  p->managed.dl_tensor.device.device_type = HURRAY_DLPACK_CPU;
  p->managed.dl_tensor.ndim = 1;
  p->managed.dl_tensor.dtype = hurray_dl_data_type_of(HURRAY_DL_FLOAT, 32, 1);
  p->managed.dl_tensor.shape = p->shape;
  p->managed.manager_ctx = p;
  p->managed.deleter = delete_producer;
}

START_TEST(import_example) {
  fill_host();
  producer p;
  make_producer(&p, host, 1024);
  double sum = 0.0;
  hurray_error err;
  ck_assert_int_eq(sum_dlpack_floats(&p.managed, &sum, &err), HURRAY_OK);
  ck_assert(sum == sum_0_to_1023);
  ck_assert_int_eq(p.deletes, 1);
  /* Under-aligned: refused, not deleted, still the caller's. */
  make_producer(&p, host + 1, 1000);
  sum = -1.0;
  ck_assert_int_eq(sum_dlpack_floats(&p.managed, &sum, &err), HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM);
  ck_assert_uint_eq(err.value, 4u);
  ck_assert(sum == -1.0);
  ck_assert_int_eq(p.deletes, 0);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("dlpack_guide", "guide", 0, export_example, owned_versioned_example,
                           import_example);
}
