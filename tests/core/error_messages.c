/*
 * Human messages (hurray_error_format): for every status the core produces,
 * the message made from a real failing call names the offending values (and
 * the handle's index where there is one); the formatter's snprintf-style
 * truncation; the detail suffix; status names; display-form truncation.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "hurray/hurray.h"
#include "test_support.h"

/* True when msg shows v as a number of its own: in decimal, or in hex with a
 * 0x prefix (two digits or more, either case), not as part of a longer number. */
static bool mentions_number(const char *msg, uint64_t v) {
  char forms[4][40];
  snprintf(forms[0], sizeof forms[0], "%llu", (unsigned long long)v);
  snprintf(forms[1], sizeof forms[1], "0x%02llX", (unsigned long long)v);
  snprintf(forms[2], sizeof forms[2], "0x%02llx", (unsigned long long)v);
  snprintf(forms[3], sizeof forms[3], "0x%08llX", (unsigned long long)v);
  for (int f = 0; f < 4; f++) {
    size_t n = strlen(forms[f]);
    for (const char *p = strstr(msg, forms[f]); p != NULL; p = strstr(p + 1, forms[f])) {
      bool before_ok = p == msg || !isalnum((unsigned char)p[-1]);
      bool after_ok = !isalnum((unsigned char)p[n]);
      if (before_ok && after_ok) return true;
    }
  }
  return false;
}

static void message_of(const hurray_error *err, char *buf, size_t cap) {
  size_t n = hurray_error_format(err, buf, cap);
  ck_assert_uint_lt(n, cap);
  ck_assert_uint_eq(n, strlen(buf));
  ck_assert_uint_gt(n, 0);
}

/* Checks that the message of the error a call just produced names each of
 * the given numbers, and the status it carries is `want`. */
static void require_message(const char *what, hurray_status got, const hurray_error *err,
                            hurray_status want, int count, const uint64_t *numbers) {
  REQUIRE(got == want && err->status == want, "%s: got %s, want %s", what, hurray_status_name(got),
          hurray_status_name(want));
  char msg[512];
  message_of(err, msg, sizeof msg);
  for (int i = 0; i < count; i++) {
    REQUIRE(mentions_number(msg, numbers[i]), "%s: message \"%s\" does not name %llu", what, msg,
            (unsigned long long)numbers[i]);
  }
}

#define NUMBERS(...) \
  (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), (uint64_t[]) { __VA_ARGS__ }

/* A 200-handle CUDA table with one handle replaced, so index 137 shows. */
static hurray_status decode_table_with(uint8_t tag, uint8_t sync, uint8_t cls, uint8_t reserved,
                                       uint32_t alignment, uint64_t size, hurray_error *err) {
  static uint8_t table[1 + 16 * 200];
  static hurray_buffer_handle out[200];
  table[0] = 200;
  for (size_t i = 0; i < 200; i++) spec_put_handle(table + 1 + 16 * i, 4096, 4096, 1, 1, 0, 0);
  spec_put_handle(table + 1 + 16 * 137, size, alignment, tag, sync, cls, reserved);
  size_t count;
  return hurray_buffer_table_decode(table, sizeof table, out, 200, &count, err);
}

START_TEST(messages_name_handle_faults) {
  hurray_error err;
  require_message("not a power of two", decode_table_with(1, 1, 0, 0, 4095, 1, &err), &err,
                  HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, NUMBERS(4095, 137));
  require_message("below minimum", decode_table_with(1, 1, 0, 0, 16, 1, &err), &err,
                  HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, NUMBERS(16, 64, 137));
  require_message("undefined sync", decode_table_with(1, 0xA7, 0, 0, 64, 1, &err), &err,
                  HURRAY_ERR_INVALID_SYNC_MODE, NUMBERS(0xA7, 137));
  require_message("reserved tag", decode_table_with(0x3C, 1, 0, 0, 64, 1, &err), &err,
                  HURRAY_ERR_RESERVED_DEVICE_TAG, NUMBERS(0x3C, 137));
  require_message("invalid tag", decode_table_with(0xFF, 1, 0, 0, 64, 1, &err), &err,
                  HURRAY_ERR_INVALID_DEVICE_TAG, NUMBERS(0xFF, 137));
  require_message("reserved class", decode_table_with(1, 1, 0x5D, 0, 64, 1, &err), &err,
                  HURRAY_ERR_RESERVED_MEMORY_CLASS, NUMBERS(0x5D, 137));
  require_message("invalid class", decode_table_with(1, 1, 0xFF, 0, 64, 1, &err), &err,
                  HURRAY_ERR_INVALID_MEMORY_CLASS, NUMBERS(0xFF, 137));
  require_message("pair", decode_table_with(5, 1, 3, 0, 64, 1, &err), &err, HURRAY_ERR_INVALID_PAIR,
                  NUMBERS(0x03, 0x05, 137));
  require_message("reserved byte", decode_table_with(1, 1, 0, 0xC4, 64, 1, &err), &err,
                  HURRAY_ERR_RESERVED_BYTE_NONZERO, NUMBERS(0xC4, 137));
  require_message("device mismatch", decode_table_with(4, 1, 0, 0, 64, 1, &err), &err,
                  HURRAY_ERR_DEVICE_TAG_MISMATCH, NUMBERS(0x04, 0x01, 137));
  require_message("class mismatch", decode_table_with(1, 1, 2, 0, 64, 1, &err), &err,
                  HURRAY_ERR_MEMORY_CLASS_MISMATCH, NUMBERS(0x02, 0x00, 137));
  /* The CPU sync rule: the mode found and the one required. */
  hurray_buffer_handle h;
  hurray_status status = hurray_buffer_handle_new(64, 64, 0, 2, &h, &err);
  require_message("cpu sync", status, &err, HURRAY_ERR_INVALID_SYNC_MODE, NUMBERS(0x02, 0x00));
  char msg[512];
  message_of(&err, msg, sizeof msg);
  ck_assert_ptr_nonnull(strstr(msg, "consumer_stream"));
  ck_assert_ptr_nonnull(strstr(msg, "producer_synced"));
  /* Private values show with their byte in the pair and mismatch messages. */
  status = decode_table_with(0xF2, 1, 0, 0, 64, 1, &err);
  message_of(&err, msg, sizeof msg);
  ck_assert_ptr_nonnull(strstr(msg, "0xF2"));
}
END_TEST

START_TEST(messages_name_table_and_api_faults) {
  hurray_error err;
  uint8_t table[1 + 16 * 3 + 5];
  table[0] = 3;
  for (size_t i = 0; i < 3; i++) spec_put_handle(table + 1 + 16 * i, 64, 64, 1, 0, 0, 0);
  hurray_buffer_handle out[3];
  size_t count;
  require_message("truncated", hurray_buffer_table_decode(table, 30, out, 3, &count, &err), &err,
                  HURRAY_ERR_TRUNCATED, NUMBERS(30, 49));
  require_message("trailing",
                  hurray_buffer_table_decode_exact(table, sizeof table, out, 3, &count, &err), &err,
                  HURRAY_ERR_TRAILING_BYTES, NUMBERS(54, 49));
  require_message("capacity", hurray_buffer_table_decode(table, 49, out, 2, &count, &err), &err,
                  HURRAY_ERR_CAPACITY, NUMBERS(3, 2));
  table[0] = 0;
  hurray_status status = hurray_buffer_table_decode(table, 1, out, 3, &count, &err);
  ck_assert_int_eq(status, HURRAY_ERR_EMPTY_BUFFER_LIST);
  char msg[512];
  message_of(&err, msg, sizeof msg);
  require_message("not allowed",
                  hurray_transport_check_sync_mode(HURRAY_TRANSPORT_NETWORK, 1, 0, &err), &err,
                  HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, NUMBERS(0x01));
  message_of(&err, msg, sizeof msg);
  ck_assert_ptr_nonnull(strstr(msg, "network"));
  int32_t type;
  require_message("unsupported export", hurray_dlpack_device_type_from_pair(2, 2, &type, &err),
                  &err, HURRAY_ERR_UNSUPPORTED, NUMBERS(2));
  require_message("unsupported export private",
                  hurray_dlpack_device_type_from_pair(0xF1, 0, &type, &err), &err,
                  HURRAY_ERR_UNSUPPORTED, NUMBERS(0xF1));
  hurray_device_tag tag;
  hurray_memory_class cls;
  require_message("unsupported import", hurray_dlpack_device_type_to_pair(9, &tag, &cls, &err),
                  &err, HURRAY_ERR_UNSUPPORTED, NUMBERS(9));
  /* A negative DLDeviceType is named as the negative number it is. */
  status = hurray_dlpack_device_type_to_pair(-7, &tag, &cls, &err);
  ck_assert_int_eq(status, HURRAY_ERR_UNSUPPORTED);
  message_of(&err, msg, sizeof msg);
  REQUIRE(strstr(msg, "-7") != NULL, "import(-7): message \"%s\" does not name -7", msg);
  require_message("null", hurray_buffer_table_decode(table, 1, out, 3, NULL, &err), &err,
                  HURRAY_ERR_NULL_ARGUMENT, NUMBERS(4));
  require_message("invalid argument",
                  hurray_transport_check_sync_mode((hurray_transport)7, 0, 0, &err), &err,
                  HURRAY_ERR_INVALID_ARGUMENT, NUMBERS(7));
  hurray_buffer_handle h;
  require_message("host memory", hurray_buffer_handle_for_host_memory(msg + 1, 8, 4096, &h, &err),
                  &err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM,
                  NUMBERS(hurray_alignment_of(msg + 1), 64));
}
END_TEST

START_TEST(messages_every_status_nonempty) {
  for (int s = 0; s < HURRAY_STATUS_COUNT + 3; s++) {
    hurray_error err = junk_error();
    err.status = (hurray_status)s;
    err.value = 0x1234;
    err.expected = 0x56;
    err.index = 3;
    err.detail[0] = '\0';
    char msg[512];
    size_t n = hurray_error_format(&err, msg, sizeof msg);
    REQUIRE(n > 0 && n == strlen(msg), "status %d: empty or inconsistent message", s);
  }
  char msg[128];
  size_t n = hurray_error_format(NULL, msg, sizeof msg);
  ck_assert_uint_gt(n, 0);
  ck_assert_uint_eq(n, strlen(msg));
}
END_TEST

/* snprintf-style: the full length whatever the capacity; at most cap bytes
 * written, NUL included; the text written is a prefix of the full message. */
static void require_truncation(const hurray_error *err) {
  size_t full = hurray_error_format(err, NULL, 0);
  ck_assert_uint_gt(full, 0);
  char whole[1024];
  ck_assert_uint_lt(full, sizeof whole);
  ck_assert_uint_eq(hurray_error_format(err, whole, sizeof whole), full);
  ck_assert_uint_eq(strlen(whole), full);
  for (size_t cap = 0; cap <= full + 2; cap++) {
    char buf[1100];
    memset(buf, 0x7E, sizeof buf);
    size_t n = hurray_error_format(err, buf, cap);
    REQUIRE(n == full, "cap %zu: returned %zu, full length %zu", cap, n, full);
    if (cap == 0) {
      REQUIRE(buf[0] == 0x7E, "cap 0: a byte was written");
      continue;
    }
    size_t kept = cap - 1 < full ? cap - 1 : full;
    REQUIRE(buf[kept] == '\0', "cap %zu: not terminated at %zu", cap, kept);
    REQUIRE(memcmp(buf, whole, kept) == 0, "cap %zu: not a prefix of the message", cap);
    for (size_t k = cap; k < sizeof buf; k++) {
      REQUIRE(buf[k] == 0x7E, "cap %zu: byte %zu written past the capacity", cap, k);
    }
  }
}

START_TEST(format_truncation) {
  hurray_error err;
  decode_table_with(0xF3, 1, 0, 0, 64, 1, &err);
  require_truncation(&err);
  hurray_buffer_handle h;
  ck_assert_int_ne(hurray_buffer_handle_new(1, 32, 1, 1, &h, &err), HURRAY_OK);
  require_truncation(&err);
  /* With a detail suffix (runtime errors carry one): named in the message. */
  snprintf(err.detail, sizeof err.detail, "%s", "libcuda.so.1: cannot open shared object file");
  char msg[512];
  message_of(&err, msg, sizeof msg);
  ck_assert_ptr_nonnull(strstr(msg, "libcuda.so.1: cannot open shared object file"));
  ck_assert(mentions_number(msg, 32));
  require_truncation(&err);
  /* A detail that fills its whole array (no NUL inside) is still bounded. */
  memset(err.detail, 'd', sizeof err.detail);
  size_t n = hurray_error_format(&err, msg, sizeof msg);
  ck_assert_uint_lt(n, sizeof msg);
  ck_assert_uint_eq(strlen(msg), n);
  require_truncation(&err);
}
END_TEST

START_TEST(display_truncation) {
  char buf[32];
  for (size_t cap = 0; cap <= 16; cap++) {
    memset(buf, 0x7E, sizeof buf);
    size_t n = hurray_device_tag_display(0xF2, buf, cap);
    ck_assert_uint_eq(n, strlen("private(0xF2)"));
    if (cap == 0) {
      ck_assert_int_eq(buf[0], 0x7E);
      continue;
    }
    size_t kept = cap - 1 < n ? cap - 1 : n;
    ck_assert_int_eq(buf[kept], '\0');
    ck_assert_int_eq(memcmp(buf, "private(0xF2)", kept), 0);
  }
  ck_assert_uint_eq(hurray_memory_class_display(0xF1, NULL, 0), strlen("private(0xF1)"));
  ck_assert_uint_eq(hurray_sync_mode_display(0x03, NULL, 0), strlen("reserved(0x03)"));
  ck_assert_uint_eq(hurray_device_tag_display(0x07, NULL, 0), strlen("level_zero"));
}
END_TEST

START_TEST(status_names) {
  /* In value order, the constant beside its name: a renumbered status fails
   * here as well as a renamed one. */
  static const struct {
    hurray_status status;
    const char *name;
  } names[HURRAY_STATUS_COUNT] = {
      {HURRAY_OK, "OK"},
      {HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, "ALIGNMENT_NOT_POWER_OF_TWO"},
      {HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, "ALIGNMENT_BELOW_MINIMUM"},
      {HURRAY_ERR_INVALID_SYNC_MODE, "INVALID_SYNC_MODE"},
      {HURRAY_ERR_RESERVED_DEVICE_TAG, "RESERVED_DEVICE_TAG"},
      {HURRAY_ERR_INVALID_DEVICE_TAG, "INVALID_DEVICE_TAG"},
      {HURRAY_ERR_RESERVED_MEMORY_CLASS, "RESERVED_MEMORY_CLASS"},
      {HURRAY_ERR_INVALID_MEMORY_CLASS, "INVALID_MEMORY_CLASS"},
      {HURRAY_ERR_INVALID_PAIR, "INVALID_PAIR"},
      {HURRAY_ERR_RESERVED_BYTE_NONZERO, "RESERVED_BYTE_NONZERO"},
      {HURRAY_ERR_DEVICE_TAG_MISMATCH, "DEVICE_TAG_MISMATCH"},
      {HURRAY_ERR_MEMORY_CLASS_MISMATCH, "MEMORY_CLASS_MISMATCH"},
      {HURRAY_ERR_EMPTY_BUFFER_LIST, "EMPTY_BUFFER_LIST"},
      {HURRAY_ERR_TRUNCATED, "TRUNCATED"},
      {HURRAY_ERR_TRAILING_BYTES, "TRAILING_BYTES"},
      {HURRAY_ERR_CAPACITY, "CAPACITY"},
      {HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, "SYNC_MODE_NOT_ALLOWED"},
      {HURRAY_ERR_UNSUPPORTED, "UNSUPPORTED"},
      {HURRAY_ERR_NULL_ARGUMENT, "NULL_ARGUMENT"},
      {HURRAY_ERR_SYNC_MODE_MISMATCH, "SYNC_MODE_MISMATCH"},
      {HURRAY_ERR_ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION"},
      {HURRAY_ERR_ALREADY_RELEASED, "ALREADY_RELEASED"},
      {HURRAY_ERR_USE_AFTER_DESTROY, "USE_AFTER_DESTROY"},
      {HURRAY_ERR_PLUGIN_LOAD_FAILED, "PLUGIN_LOAD_FAILED"},
      {HURRAY_ERR_PLUGIN_ABI_MISMATCH, "PLUGIN_ABI_MISMATCH"},
      {HURRAY_ERR_PLUGIN_INVALID, "PLUGIN_INVALID"},
      {HURRAY_ERR_PLUGIN_UNSAFE_PATH, "PLUGIN_UNSAFE_PATH"},
      {HURRAY_ERR_PLUGIN_DUPLICATE_TAG, "PLUGIN_DUPLICATE_TAG"},
      {HURRAY_ERR_DEVICE_UNAVAILABLE, "DEVICE_UNAVAILABLE"},
      {HURRAY_ERR_OUT_OF_MEMORY, "OUT_OF_MEMORY"},
      {HURRAY_ERR_DEVICE_ERROR, "DEVICE_ERROR"},
      {HURRAY_ERR_INVALID_ARGUMENT, "INVALID_ARGUMENT"},
      {HURRAY_ERR_TIMEOUT, "TIMEOUT"},
      {HURRAY_ERR_IPC_REFUSED, "IPC_REFUSED"},
      {HURRAY_ERR_IPC_PEER_GONE, "IPC_PEER_GONE"},
      {HURRAY_ERR_IPC_BAD_SEGMENT, "IPC_BAD_SEGMENT"},
      {HURRAY_ERR_IO, "IO"},
  };
  for (int s = 0; s < HURRAY_STATUS_COUNT; s++) {
    ck_assert_int_eq(names[s].status, s);
    ck_assert_str_eq(hurray_status_name((hurray_status)s), names[s].name);
  }
  ck_assert_int_eq(HURRAY_ERR_TRUNCATED, 13);
  ck_assert_int_eq(HURRAY_ERR_NULL_ARGUMENT, 18);
  ck_assert_str_eq(hurray_status_name((hurray_status)HURRAY_STATUS_COUNT), "UNKNOWN");
  ck_assert_str_eq(hurray_status_name((hurray_status)-1), "UNKNOWN");
  ck_assert_str_eq(hurray_status_name((hurray_status)1000), "UNKNOWN");
}
END_TEST

START_TEST(error_left_alone_on_success) {
  hurray_error err = junk_error();
  hurray_error before = err;
  hurray_buffer_handle h;
  ck_assert_int_eq(hurray_buffer_handle_new(64, 64, 1, 1, &h, &err), HURRAY_OK);
  uint8_t table[17];
  table[0] = 1;
  spec_put_handle(table + 1, 64, 64, 1, 1, 0, 0);
  size_t count;
  ck_assert_int_eq(hurray_buffer_table_decode_exact(table, 17, &h, 1, &count, &err), HURRAY_OK);
  ck_assert_int_eq(hurray_validate_colocation(&h, 1, NULL, &err), HURRAY_OK);
  ck_assert_mem_eq(&err, &before, sizeof err);
}
END_TEST

/* The transports' errors as each one fills them (NET-RECV-4, NET-RECV-6,
 * NET-CONN-3, IPC-FLT-2): no wrapped count, no buffer count shown as a pid. */
static void require_text(hurray_status status, uint64_t value, uint64_t expected, size_t index,
                         const char *want, const char *unwanted) {
  hurray_error err = junk_error();
  err.status = status;
  err.value = value;
  err.expected = expected;
  err.index = index;
  err.detail[0] = '\0';
  char msg[512];
  message_of(&err, msg, sizeof msg);
  REQUIRE(strstr(msg, want) != NULL, "%s: \"%s\" lacks \"%s\"", hurray_status_name(status), msg,
          want);
  REQUIRE(unwanted == NULL || strstr(msg, unwanted) == NULL, "%s: \"%s\" says \"%s\"",
          hurray_status_name(status), msg, unwanted);
}

/* RX-ST-2: each transport's PEER_GONE and REFUSED read right (the IPC
 * producer's pid, a network transfer cut short, an ended connection), under
 * the neutral names and the IPC ones alike (RX-ST-1). */
START_TEST(messages_of_each_transport) {
  require_text(HURRAY_ERR_TRAILING_BYTES, 0, 4096, 2,
               "buffer 2: more than the 4096 bytes declared arrived", "18446744073709");
  require_text(HURRAY_ERR_TRAILING_BYTES, 54, 49, 0, "5 trailing bytes: input is 54 bytes", NULL);
  require_text(HURRAY_ERR_IPC_PEER_GONE, 1, 3, 0, "mid-transfer: 1 of 3 buffers arrived", "pid");
  require_text(HURRAY_ERR_IPC_PEER_GONE, 0, 0, 0, "the connection has ended", "pid");
  require_text(HURRAY_ERR_IPC_PEER_GONE, 4242, 0, 0, "the peer process (pid 4242) is gone", NULL);
  require_text(HURRAY_ERR_PEER_GONE, 1, 2, 0, "mid-transfer: 1 of 2 buffers arrived", "pid");
  require_text(HURRAY_ERR_PEER_GONE, 0, 0, 0, "the connection has ended", "pid");
  require_text(HURRAY_ERR_PEER_GONE, 4242, 0, 0, "the peer process (pid 4242) is gone", NULL);
  require_text(HURRAY_ERR_REFUSED, 2, 1000, 0, "refused by the peer, reason 2 (uid 1000)", NULL);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("error messages", "messages", SWEEP_TIMEOUT_S,
                           messages_name_handle_faults, messages_name_table_and_api_faults,
                           messages_every_status_nonempty, format_truncation, display_truncation,
                           status_names, messages_of_each_transport, error_left_alone_on_success);
}
