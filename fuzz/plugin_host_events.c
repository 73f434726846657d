/*
 * The plugin_host harness's event operations (fuzz/fuzz_plugin_host.c):
 * create, use, the native handle, export, import and release, refused and
 * accepted as PL-IPC-7..9 and PL-EVENT-5 say.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fault_seam.h"
#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/plugin.h"
#include "plugin_host_harness.h"
#include "plugin_internal.h"

FUZZ_ORACLE_BEGIN

/* The slot the next input byte names, or -1 when it holds no event. */
static int chosen_event_slot(void) {
  const int slot = hostile_u8(&host_input) % SLOTS;
  return host_events[slot] != NULL ? slot : -1;
}

static int free_event_slot(void) {
  for (int i = 0; i < SLOTS; i++) {
    if (host_events[i] == NULL) {
      return i;
    }
  }
  return -1;
}

/* The device the next input byte names: from 0 to the plugin's device
 * count, so also one past the last, a device that does not exist. */
static uint32_t chosen_device(void) {
  return hostile_u8(&host_input) % (hurray_plugin_device_count(host_plugin) + 1u);
}

/* The plugin's counters before a call that may make an event. */
typedef struct event_call_counts {
  uint32_t event_calls;
  uint32_t answers;
} event_call_counts;

/* Takes the counters and poisons the host state for the call. */
static event_call_counts poison_before_event_call(void) {
  const event_call_counts before = {hostile_seen.event_calls, hostile_seen.answers};
  host_poison();
  return before;
}

/* The host's own event record out of memory (a malloc failing under
 * op_under_fault, fuzz/fault_seam.h): OUT_OF_MEMORY before the plugin is
 * asked, and nothing made. */
static bool host_record_failed(hurray_status s, uint32_t calls, const hurray_plugin_event *e) {
  if (!fault_fired() || hostile_seen.event_calls != calls) {
    return false;
  }
  FUZZ_CHECK(s == HURRAY_ERR_OUT_OF_MEMORY && e == NULL);
  FUZZ_CHECK(strstr(host_err.detail, "event record") != NULL);
  return true;
}

/* PL-IPC-7, in its order, before the plugin is called. */
void op_event_create(void) {
  int slot = free_event_slot();
  if (slot < 0 || host_plugin == NULL) {
    return;
  }
  const uint32_t device = chosen_device();
  uint32_t flags = hostile_u8(&host_input) % 3u;
  const bool device_exists = device < hurray_plugin_device_count(host_plugin);
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  bool exports = device_exists &&
                 hurray_plugin_describe_device(host_plugin, device, &info, NULL) == HURRAY_OK &&
                 (info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u;
  hurray_status want = HURRAY_OK;
  if ((flags & ~(uint32_t)HURRAY_PLUGIN_EVENT_KNOWN_FLAGS) != 0u) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  } else if (!hostile_offered(HOSTILE_CREATE_EVENT)) {
    want = HURRAY_ERR_UNSUPPORTED;
  } else if (!device_exists) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  } else if (flags != 0u && (!hostile_offered(HOSTILE_CREATE_EVENT_FLAGS) || !exports)) {
    want = HURRAY_ERR_UNSUPPORTED;
  }
  hurray_plugin_event *e = NULL;
  const event_call_counts before = poison_before_event_call();
  hurray_status s =
      host_checked(hurray_plugin_event_create_flags(host_plugin, device, flags, &e, &host_err));
  if (want != HURRAY_OK) {
    FUZZ_CHECK(s == want && e == NULL && hostile_seen.event_calls == before.event_calls);
    return;
  }
  if (host_record_failed(s, before.event_calls, e)) {
    return;
  }
  FUZZ_CHECK(hostile_seen.event_calls == before.event_calls + 1u);
  check_plugin_failure(s, before.answers);
  FUZZ_CHECK((s == HURRAY_OK) == (e != NULL));
  if (e != NULL) {
    host_events[slot] = e;
    host_event_flags[slot] = flags;
  }
}

void op_event_use(void) {
  int slot = hostile_u8(&host_input) % SLOTS;
  uint8_t what = hostile_u8(&host_input) % 3u;
  if (host_events[slot] == NULL) {
    return;
  }
  uint32_t answers = hostile_seen.answers;
  host_poison();
  hurray_status s;
  if (what == 0u) {
    s = host_checked(hurray_plugin_event_record(host_events[slot], NULL, &host_err));
  } else if (what == 1u) {
    s = host_checked(
        hurray_plugin_event_wait(host_events[slot], HURRAY_PLUGIN_WAIT_FOREVER, &host_err));
  } else {
    s = host_checked(hurray_plugin_event_stream_wait(host_events[slot], NULL, &host_err));
    if (!hostile_offered(HOSTILE_STREAM_WAIT_EVENT)) {
      FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED && hostile_seen.answers == answers);
      return;
    }
  }
  FUZZ_CHECK(hostile_seen.answers == answers + 1u);
  check_plugin_failure(s, answers);
}

/* PL-EVENT-5: a handle of the device's runtime, non-zero, or PLUGIN_INVALID. */
void op_event_native(void) {
  const int slot = chosen_event_slot();
  if (slot < 0) {
    return;
  }
  hurray_plugin_native_event out = {.struct_size = sizeof out};
  uint32_t answers = hostile_seen.answers;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_event_native(host_events[slot], &out, &host_err));
  if (!hostile_offered(HOSTILE_NATIVE_EVENT)) {
    FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED && hostile_seen.answers == answers);
    FUZZ_CHECK(host_err.expected == hostile_table_config.device_tag);
    return;
  }
  check_plugin_failure(s, answers);
  if (s == HURRAY_OK) {
    FUZZ_CHECK(out.handle != 0u && out.reserved == 0u && out.struct_size == sizeof out);
    hurray_device_tag tag = hostile_table_config.device_tag;
    if (tag >= HURRAY_DEVICE_PRIVATE_FIRST) {
      FUZZ_CHECK(out.native_type >= HURRAY_NATIVE_EVENT_PRIVATE_FIRST);
    } else {
      FUZZ_CHECK(out.native_type != HURRAY_NATIVE_EVENT_NONE &&
                 out.native_type < HURRAY_NATIVE_EVENT_PRIVATE_FIRST);
    }
  } else if (hostile_seen.last_status == HURRAY_OK) {
    FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_INVALID && out.handle == 0u); /* nothing written */
  }
}

/* PL-IPC-8. */
void op_event_export(void) {
  const int slot = chosen_event_slot();
  if (slot < 0) {
    return;
  }
  /* Only a plugin that exports events is asked, and only for an event
   * created exportable. */
  const bool exportable = hostile_offered(HOSTILE_EXPORT_EVENT) &&
                          (host_event_flags[slot] & HURRAY_PLUGIN_EVENT_EXPORTABLE) != 0u;
  hurray_plugin_ipc_event out = {.struct_size = sizeof out};
  uint32_t answers = hostile_seen.answers;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_event_export(host_events[slot], &out, &host_err));
  if (!exportable) {
    FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED && hostile_seen.answers == answers);
    return;
  }
  check_plugin_failure(s, answers);
  if (s == HURRAY_OK) {
    FUZZ_CHECK(out.kind == HURRAY_PLUGIN_IPC_EVENT_HANDLE && out.handle_size >= 1u &&
               out.handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE);
    FUZZ_CHECK(out.device_tag == hostile_table_config.device_tag);
    FUZZ_CHECK(out.reserved[0] == 0u && out.reserved[1] == 0u && out.reserved[2] == 0u);
  } else if (hostile_seen.last_status == HURRAY_OK) {
    FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_INVALID && out.kind == 0u);
  }
}

/* PL-IPC-9, in its order. */
void op_event_import(void) {
  int slot = free_event_slot();
  if (slot < 0 || host_plugin == NULL) {
    return;
  }
  const uint32_t device = chosen_device();
  uint8_t m = hostile_u8(&host_input);
  const bool device_exists = device < hurray_plugin_device_count(host_plugin);
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  record.kind = HURRAY_PLUGIN_IPC_EVENT_HANDLE;
  record.handle_size = 64u;
  record.device_tag = hostile_table_config.device_tag;
  switch (m % 8u) {
    case 1: record.struct_size = 16u; break;
    case 2: record.device_tag ^= 0x02u; break;
    case 3: record.kind = m; break;
    case 4: record.handle_size = (m & 0x80u) != 0u ? 0u : 65u; break;
    case 5: record.reserved[m % 3u] = 1u; break;
    default: break;
  }
  hurray_status want = HURRAY_OK;
  if (record.struct_size < sizeof record)
    want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (record.device_tag != hostile_table_config.device_tag)
    want = HURRAY_ERR_DEVICE_TAG_MISMATCH;
  else if (record.kind != HURRAY_PLUGIN_IPC_EVENT_HANDLE)
    want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (record.handle_size == 0u || record.handle_size > 64u)
    want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (record.reserved[0] | record.reserved[1] | record.reserved[2])
    want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (!hostile_offered(HOSTILE_IMPORT_EVENT))
    want = HURRAY_ERR_UNSUPPORTED;
  else if (!device_exists)
    want = HURRAY_ERR_INVALID_ARGUMENT;
  hurray_plugin_event *e = NULL;
  const event_call_counts before = poison_before_event_call();
  hurray_status s =
      host_checked(hurray_plugin_event_import(host_plugin, device, &record, &e, &host_err));
  if (want != HURRAY_OK) {
    FUZZ_CHECK(s == want && e == NULL && hostile_seen.event_calls == before.event_calls);
    return;
  }
  if (host_record_failed(s, before.event_calls, e)) {
    return;
  }
  check_plugin_failure(s, before.answers);
  FUZZ_CHECK((s == HURRAY_OK) == (e != NULL));
  if (e != NULL) {
    host_events[slot] = e;
    host_event_flags[slot] = 0x80000000u; /* imported: never exported again */
  }
}

void op_event_release(void) {
  const int slot = chosen_event_slot();
  if (slot < 0) {
    return;
  }
  uint32_t live = hostile_seen.live_events;
  hurray_plugin_event_release(host_events[slot]);
  host_events[slot] = NULL;
  FUZZ_CHECK(hostile_seen.live_events == live - 1u);
}

FUZZ_ORACLE_END
