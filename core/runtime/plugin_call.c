/*
 * What a plugin entry said, turned into what the host reports: the host's
 * own error for every call, statuses outside hurray_status mapped, the file
 * named without cutting the reason.
 * Rules: specs/plugin-abi.md PL-CALL-1, PL-CALL-3, PL-CALL-4, PL-LOAD-6.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hurray/plugin.h"
#include "plugin_internal.h"
#include "hurray/plugin_support.h"

void hurray_plugin_call_prepare(hurray_error *call_err) {
  /* The fields and an empty reason; the rest of detail is only ever read up
   * to its terminator. Not a memset of the whole struct: this runs on every
   * allocation (PL-ALLOC overhead, bench_plugin_alloc). */
  call_err->status = HURRAY_OK; /* PL-ERR-1: not a fill (PL-CALL-3) */
  call_err->value = 0;
  call_err->expected = 0;
  call_err->index = 0;
  call_err->detail[0] = '\0';
}

hurray_status hurray_plugin_call_result(const char *who, const char *entry, hurray_status returned,
                                        hurray_error *call_err, hurray_error *err) {
  if (returned == HURRAY_OK) {
    return HURRAY_OK;
  }
  /* PL-CALL-3: whatever the plugin wrote, the host reads no further. */
  call_err->detail[sizeof call_err->detail - 1u] = '\0';
  /* The raw value goes through unsigned: an enum holding any int. */
  uint32_t raw = (uint32_t)returned;
  if (raw >= (uint32_t)HURRAY_STATUS_COUNT) {
    /* PL-CALL-4: a status no caller could interpret. */
    return hurray_plugin_fail(err, HURRAY_ERR_DEVICE_ERROR, raw, 0, 0,
                              "%s%s%s returned status %u, which is not a hurray_status",
                              who != NULL ? who : "", who != NULL ? ": " : "", entry,
                              (unsigned)raw);
  }
  if (call_err->detail[0] == '\0') {
    return hurray_plugin_fail(err, returned, call_err->value, call_err->expected, call_err->index,
                              "%s%s%s failed with status %s (%u) and gave no reason",
                              who != NULL ? who : "", who != NULL ? ": " : "", entry,
                              hurray_status_name(returned), (unsigned)raw);
  }
  call_err->status = returned; /* PL-ERR-1: not a fill, the plugin's error */
  if (err != NULL) {
    *err = *call_err;
  }
  return returned;
}

/* Copies at most `room` bytes of `path` into `out` (room + 1 bytes), keeping
 * its end: "..." replaces what does not fit. Returns the bytes written. */
static size_t shortened_path(const char *path, size_t room, char *out) {
  size_t length = strlen(path);
  if (length <= room) {
    memcpy(out, path, length + 1u);
    return length;
  }
  static const char ellipsis[] = "...";
  size_t mark = sizeof ellipsis - 1u;
  if (room <= mark) {
    memcpy(out, ellipsis, room);
    out[room] = '\0';
    return room;
  }
  size_t tail = room - mark;
  memcpy(out, ellipsis, mark);
  memcpy(out + mark, path + length - tail, tail + 1u);
  return room;
}

void hurray_plugin_name_file(hurray_error *err, const char *path) {
  if (err == NULL || path[0] == '\0' || strstr(err->detail, path) != NULL) {
    return;
  }
  static const char separator[] = ": ";
  const size_t separator_length = sizeof separator - 1u;
  const size_t capacity = sizeof err->detail - 1u;
  const char *slash = strrchr(path, '/');
  const char *file_name = slash != NULL ? slash + 1 : path;
  /* The file name, with "..." before it when the directories go. */
  size_t file_room = strlen(file_name) + 3u;
  size_t reason = strnlen(err->detail, capacity);
  /* PL-LOAD-6: the reason is kept whole; the path gets what is left, and
   * only a reason that leaves no room even for the file name is cut. */
  if (reason + separator_length + file_room > capacity) {
    reason = capacity > separator_length + file_room ? capacity - separator_length - file_room : 0u;
  }
  size_t room = capacity - separator_length - reason;
  char detail[HURRAY_ERROR_DETAIL_SIZE];
  size_t used = shortened_path(path, room, detail);
  memcpy(detail + used, separator, separator_length);
  used += separator_length;
  memcpy(detail + used, err->detail, reason);
  detail[used + reason] = '\0';
  memcpy(err->detail, detail, sizeof detail);
}

hurray_status hurray_plugin_fail(hurray_error *err, hurray_status status, uint64_t value,
                                 uint64_t expected, size_t index, const char *format, ...) {
  if (err != NULL) {
    va_list args;
    va_start(args, format);
    (void)!hurray_support_vfail(err, status, value, expected, index, format, args);
    va_end(args);
  }
  return status;
}

hurray_status hurray_plugin_fail_at(hurray_error *err, hurray_status status, uint64_t value,
                                    uint64_t expected, size_t index, const char *path,
                                    const char *format, ...) {
  if (err != NULL) {
    va_list args;
    va_start(args, format);
    (void)!hurray_support_vfail(err, status, value, expected, index, format, args);
    va_end(args);
    hurray_plugin_name_file(err, path);
  }
  return status;
}

hurray_status hurray_plugin_check_out_size(const void *out, size_t library_size, size_t index,
                                           const char *type_name, hurray_error *err) {
  /* PL-VER-5: the caller's view may be smaller than ours, never below the
   * header. */
  uint32_t out_size;
  memcpy(&out_size, out, sizeof out_size);
  if (out_size < 2u * sizeof(uint32_t)) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, out_size, library_size, index,
                              "out->struct_size %u is below the 8-byte header: set it to "
                              "sizeof(%s)",
                              (unsigned)out_size, type_name);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_check_query(const void *subject, const void *out, size_t library_size,
                                        const char *type_name, const char *who, hurray_error *err) {
  if (subject == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, subject == NULL ? 0u : 1u,
                              "%s: NULL argument", who);
  }
  return hurray_plugin_check_out_size(out, library_size, 1, type_name, err);
}
