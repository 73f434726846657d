/*
 * Compiles and runs every example of docs/handoff-guide.md (extracted at
 * build time by extract_guide_examples.py), against a host-memory stand-in
 * for the application's device layer the guide declares. The stand-in keeps
 * a log of device operations so the test can check the order the guide's
 * consumers follow (wait before read, event released once, buffer released
 * once and last).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <check.h>
#include <string.h>

#include "handoff-guide_examples.h" /* generated: the guide's code blocks, in order */
#include "check_main.h"

/* ------------------------------------------------------------------------ */
/* The application's device layer, on host memory                           */
/* ------------------------------------------------------------------------ */

static int allocations;
static int frees;
static int events_recorded;
static int events_destroyed;
static char device_log[1024];

static void log_op(const char *op) {
  strncat(device_log, op, sizeof device_log - strlen(device_log) - 1);
  strncat(device_log, " ", sizeof device_log - strlen(device_log) - 1);
}

static void reset_device(void) {
  allocations = frees = events_recorded = events_destroyed = 0;
  device_log[0] = '\0';
}

void *app_device_alloc(size_t bytes) {
  allocations++;
  log_op("alloc");
  return aligned_alloc(4096, (bytes + 4095u) / 4096u * 4096u);
}

void app_device_free(void *pointer, void *ctx) {
  (void)ctx;
  frees++;
  log_op("free");
  free(pointer);
}

void app_enqueue_fill(void *stream, void *pointer, size_t bytes) {
  (void)stream;
  memset(pointer, 0x5A, bytes);
  log_op("fill");
}

void app_enqueue_read(void *stream, const void *pointer, size_t bytes) {
  (void)stream;
  const unsigned char *p = pointer;
  ck_assert_uint_eq(p[0], 0x5A);
  ck_assert_uint_eq(p[bytes - 1], 0x5A);
  log_op("read");
}

void *app_event_record(void *stream) {
  (void)stream;
  events_recorded++;
  log_op("record");
  return malloc(16);
}

void app_event_destroy(void *event, void *ctx) {
  (void)ctx;
  events_destroyed++;
  log_op("event-destroy");
  free(event);
}

void app_stream_wait_event(void *stream, void *event) {
  (void)stream;
  ck_assert_ptr_nonnull(event);
  log_op("wait");
}

void app_stream_synchronize(void *stream) {
  (void)stream;
  log_op("sync");
}

static int producer_stream;
static int consumer_stream;
static int side_stream;

/* ------------------------------------------------------------------------ */
/* The examples, run                                                        */
/* ------------------------------------------------------------------------ */

START_TEST(abi_check) { ck_assert(handoff_abi_usable()); }
END_TEST

START_TEST(producer_synced_example) {
  hurray_handoff handoff;
  ck_assert_int_eq(produce_host_floats(&handoff, NULL), HURRAY_OK);
  /* 0 + 1 + ... + 1023 */
  ck_assert(consume_host_floats(&handoff) == 523776.0);
  ck_assert_uint_eq(hurray_handoff_state_of(&handoff), HURRAY_HANDOFF_DESTROYED);
}
END_TEST

START_TEST(event_example) {
  reset_device();
  hurray_handoff handoff;
  ck_assert_int_eq(produce_with_event(&handoff, &producer_stream, NULL), HURRAY_OK);
  ck_assert_int_eq(consume_with_event(&handoff, &consumer_stream, NULL), HURRAY_OK);
  ck_assert_str_eq(device_log, "alloc fill record wait event-destroy read sync free ");
  ck_assert_int_eq(allocations, frees);
  ck_assert_int_eq(events_recorded, events_destroyed);
}
END_TEST

START_TEST(consumer_stream_example) {
  reset_device();
  hurray_handoff handoff;
  ck_assert_int_eq(produce_on_consumer_stream(&handoff, &consumer_stream, NULL), HURRAY_OK);
  ck_assert_int_eq(consume_on_two_streams(&handoff, &consumer_stream, &side_stream, NULL),
                   HURRAY_OK);
  ck_assert_str_eq(device_log, "alloc fill read record wait event-destroy read sync sync free ");
  ck_assert_int_eq(allocations, frees);
}
END_TEST

/* The refusal example: an event buffer over IPC on a device that cannot
 * export events is refused; nothing was called, and the producer takes it
 * back and frees it itself. */
START_TEST(refusal_example) {
  reset_device();
  void *device = app_device_alloc(4096);
  void *event = app_event_record(&producer_stream);
  hurray_handoff handoff;
  hurray_handoff_init(&handoff);
  hurray_buffer_handle handle;
  ck_assert_int_eq(
      hurray_buffer_handle_new(4096, 4096, HURRAY_DEVICE_CUDA, HURRAY_SYNC_EVENT, &handle, NULL),
      HURRAY_OK);
  const hurray_buffer_offer offer = hurray_buffer_offer_make(
      device, app_device_free, NULL,
      hurray_sync_payload_event(event, HURRAY_DEVICE_CUDA, app_event_destroy, NULL));
  ck_assert_int_eq(hurray_handoff_offer(&handoff, &handle, &offer, NULL), HURRAY_OK);
  hurray_accepted_buffer buffer = HURRAY_ACCEPTED_BUFFER_INIT;
  hurray_error err;
  ck_assert_int_eq(hurray_handoff_accept(&handoff, HURRAY_TRANSPORT_IPC, 0, &buffer, &err),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_int_eq(frees, 0);
  ck_assert_int_eq(events_destroyed, 0);
  take_back(&handoff, device, event);
  ck_assert_uint_eq(hurray_handoff_state_of(&handoff), HURRAY_HANDOFF_DESTROYED);
  ck_assert_int_eq(frees, 1);
  ck_assert_int_eq(events_destroyed, 1);
}
END_TEST

START_TEST(buffer_list_example) {
  reset_device();
  hurray_handoff data;
  hurray_handoff scales;
  ck_assert_int_eq(produce_host_floats(&data, NULL), HURRAY_OK);
  ck_assert_int_eq(produce_host_floats(&scales, NULL), HURRAY_OK);
  hurray_buffer_list *tensor = NULL;
  ck_assert_int_eq(keep_tensor(&data, &scales, &tensor, NULL), HURRAY_OK);
  ck_assert_uint_eq(hurray_buffer_list_count(tensor), 2);
  ck_assert_uint_eq(hurray_handoff_state_of(&data), HURRAY_HANDOFF_RELEASED);
  hurray_buffer_list_destroy(&tensor); /* frees both floats buffers (valgrind/ASan check) */
  ck_assert_ptr_null(tensor);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("handoff_guide", "examples", 0, abi_check, producer_synced_example,
                           event_example, consumer_stream_example, refusal_example,
                           buffer_list_example);
}
