/*
 * The hostile plugin's event entries (fuzz/hostile_plugin.h): create,
 * record, wait, release, the stream waits, the native handle and the
 * events' export and import; record, wait and release check that the event
 * is one the plugin made and has not released.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hostile_entries.h"
#include "hurray/plugin_support.h"

FUZZ_ORACLE_BEGIN

#define EVENT_MAGIC 0x45564E54u

typedef struct hostile_event {
  uint32_t magic;
  uint32_t device_index;
} hostile_event;

static hostile_event *live_event(void *event) {
  FUZZ_CHECK(event != NULL);
  hostile_event *e = event;
  FUZZ_CHECK(e->magic == EVENT_MAGIC);
  return e;
}

static hurray_status new_event(uint32_t device_index, void **out, hurray_error *err,
                               const char *entry) {
  FUZZ_CHECK(device_index < hostile_seen.count_answered);
  hostile_seen.event_calls++;
  hurray_status status = hostile_answer(err, entry);
  if (status != HURRAY_OK) {
    *out = (void *)(uintptr_t)0xDEAD; /* never to be used by the host */
    return status;
  }
  hostile_event *e = malloc(sizeof *e);
  if (e == NULL) {
    return hostile_fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
  }
  e->magic = EVENT_MAGIC;
  e->device_index = device_index;
  *out = e;
  hostile_seen.live_events++;
  return HURRAY_OK;
}

hurray_status h_create_event(void *state, uint32_t device_index, void **out, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_CREATE_EVENT);
  return new_event(device_index, out, err, "create_event");
}

hurray_status h_create_event_flags(void *state, uint32_t device_index, uint32_t flags, void **out,
                                   hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_CREATE_EVENT_FLAGS);
  FUZZ_CHECK(flags == HURRAY_PLUGIN_EVENT_EXPORTABLE); /* flags 0 go to create_event */
  return new_event(device_index, out, err, "create_event_flags");
}

/* What every entry on a live event checks, then its answer. */
static hurray_status event_call(void *state, void *event, unsigned which, hurray_error *err,
                                const char *entry) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(which);
  live_event(event);
  return hostile_answer(err, entry);
}

hurray_status h_record(void *state, void *event, void *stream, hurray_error *err) {
  (void)stream;
  return event_call(state, event, HOSTILE_RECORD_EVENT, err, "record_event");
}

hurray_status h_wait(void *state, void *event, uint64_t timeout, hurray_error *err) {
  (void)timeout;
  return event_call(state, event, HOSTILE_WAIT_EVENT, err, "wait_event");
}

void h_release(void *state, void *event) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_RELEASE_EVENT);
  hostile_event *e = live_event(event);
  FUZZ_CHECK(hostile_seen.live_events > 0u);
  e->magic = 0;
  free(e);
  hostile_seen.live_events--;
}

hurray_status h_wait_stream(void *state, uint32_t device_index, void *stream, uint64_t timeout,
                            hurray_error *err) {
  (void)stream;
  (void)timeout;
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_WAIT_STREAM);
  /* Never fails: the host checked the index (PL-CALL-1 as plugins write it). */
  FUZZ_CHECK(hurray_support_check_device("hostile", device_index, hostile_seen.count_answered,
                                         err) == HURRAY_OK);
  return hostile_answer(err, "wait_stream");
}

hurray_status h_stream_wait(void *state, void *stream, void *event, hurray_error *err) {
  (void)stream;
  return event_call(state, event, HOSTILE_STREAM_WAIT_EVENT, err, "stream_wait_event");
}

/* The type a device's runtime has (PL-EVENT-5), or a wrong one. */
static uint32_t native_type_for(hurray_device_tag tag) {
  switch (tag) {
    case HURRAY_DEVICE_CUDA: return HURRAY_NATIVE_EVENT_CU_EVENT;
    case HURRAY_DEVICE_ROCM: return HURRAY_NATIVE_EVENT_HIP_EVENT;
    case HURRAY_DEVICE_METAL: return HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT;
    case HURRAY_DEVICE_VULKAN: return HURRAY_NATIVE_EVENT_VK_FENCE;
    case HURRAY_DEVICE_LEVEL_ZERO: return HURRAY_NATIVE_EVENT_ZE_EVENT;
    case HURRAY_DEVICE_OPENCL: return HURRAY_NATIVE_EVENT_CL_EVENT;
    default: return HURRAY_NATIVE_EVENT_PRIVATE_FIRST;
  }
}

hurray_status h_native(void *state, void *event, hurray_plugin_native_event *out,
                       hurray_error *err) {
  hurray_status status = event_call(state, event, HOSTILE_NATIVE_EVENT, err, "native_event");
  uint8_t m = hostile_u8(hostile_stream);
  hurray_plugin_native_event native = {.struct_size = sizeof native,
                                       .native_type =
                                           native_type_for(hostile_table_config.device_tag),
                                       .handle = (uint64_t)(uintptr_t)event};
  switch (m % 6u) {
    case 3: native.native_type = hostile_u32(hostile_stream); break;
    case 4: native.handle = 0u; break;
    case 5:
      native.reserved = 0xFFFFFFFFu;
      native.device_index = 99u;
      break;
    default: break;
  }
  hurray_plugin_copy_out(out, &native, sizeof native);
  return status;
}

hurray_status h_export_event(void *state, void *event, hurray_plugin_ipc_event *out,
                             hurray_error *err) {
  hurray_status status = event_call(state, event, HOSTILE_EXPORT_EVENT, err, "export_event");
  uint8_t m = hostile_u8(hostile_stream);
  hurray_plugin_ipc_event record = {.struct_size = sizeof record,
                                    .kind = HURRAY_PLUGIN_IPC_EVENT_HANDLE,
                                    .handle_size = 1u + m % 64u};
  memset(record.handle, 0x77, sizeof record.handle);
  switch ((m >> 6) % 4u) {
    case 1: record.kind = hostile_u32(hostile_stream); break;
    case 2: record.handle_size = (m & 1u) != 0u ? 0u : 65u; break;
    case 3:
      record.device_tag = 0xEEu;
      record.reserved[1] = 9u;
      break; /* the host rewrites them */
    default: break;
  }
  hurray_plugin_copy_out(out, &record, sizeof record);
  return status;
}

hurray_status h_import_event(void *state, uint32_t device_index, const hurray_plugin_ipc_event *in,
                             void **out, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_IMPORT_EVENT);
  /* PL-IPC-9: what the host checked before calling. */
  FUZZ_CHECK(in->struct_size >= sizeof *in);
  FUZZ_CHECK(in->device_tag == hostile_table_config.device_tag);
  FUZZ_CHECK(in->kind == HURRAY_PLUGIN_IPC_EVENT_HANDLE);
  FUZZ_CHECK(in->handle_size >= 1u && in->handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE);
  FUZZ_CHECK(in->reserved[0] == 0u && in->reserved[1] == 0u && in->reserved[2] == 0u);
  return new_event(device_index, out, err, "import_event");
}

FUZZ_ORACLE_END
