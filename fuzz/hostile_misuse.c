/*
 * The plugin host's API as a careless caller uses it, for the plugin_host
 * fuzz target: every call with a NULL argument (NULL_ARGUMENT, index: the
 * argument's position) and with no error to fill, an out-struct whose
 * struct_size is below the header (PL-VER-5), what the registry says of its
 * plugin (PL-REG-1..3), and buffers allocated and freed on a thread of
 * their own, more than a thread's record cache holds (PL-LIFE-3: the buffer
 * table's per-thread cache spills and is handed back when the thread ends);
 * and, for a first byte from 0xF0, pointers that were never buffers
 * (PL-LIFE-3: INVALID_ARGUMENT, nothing touched) and a thread whose record
 * cache cannot be allocated (fuzz/fault_seam.h: its allocations are
 * OUT_OF_MEMORY, nothing made).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "fault_seam.h"
#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/plugin.h"

FUZZ_ORACLE_BEGIN

/* The call is refused with NULL_ARGUMENT naming argument `position`. */
#define NULL_IS(call, position)                                                                \
  do {                                                                                         \
    hurray_status s_ = (call);                                                                 \
    FUZZ_CHECK(s_ == HURRAY_ERR_NULL_ARGUMENT && err.status == s_ && err.index == (position)); \
  } while (0)

/* NULL arguments, each refused with its position; the same without an error. */
static void null_arguments(hurray_plugin *plugin, hurray_plugin_buffer *buffer,
                           hurray_plugin_event *event) {
  hurray_error err;
  hurray_plugin_buffer *out = NULL;
  hurray_plugin_event *ev = NULL;
  uint8_t byte = 0;
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  hurray_plugin_native_event native;
  memset(&native, 0, sizeof native);
  native.struct_size = sizeof native;
  NULL_IS(hurray_plugin_allocate(NULL, 0, 64, 64, 0, &out, &err), 0u);
  if (plugin != NULL) { /* with the plugin given, the other argument's position */
    NULL_IS(hurray_plugin_allocate(plugin, 0, 64, 64, 0, NULL, &err), 5u);
    NULL_IS(hurray_plugin_allocate_flags(plugin, 0, 64, 64, 0, 0, NULL, &err), 6u);
    NULL_IS(hurray_plugin_import(plugin, 0, NULL, &out, &err), 2u);
    NULL_IS(hurray_plugin_import(plugin, 0, &memory, NULL, &err), 3u);
    NULL_IS(hurray_plugin_event_create(plugin, 0, NULL, &err), 2u);
    NULL_IS(hurray_plugin_event_create_flags(plugin, 0, 0, NULL, &err), 3u);
    NULL_IS(hurray_plugin_event_import(plugin, 0, NULL, &ev, &err), 2u);
    NULL_IS(hurray_plugin_event_import(plugin, 0, &record, NULL, &err), 3u);
    hurray_plugin_device_info info;
    info.struct_size = sizeof info;
    NULL_IS(hurray_plugin_describe_device(plugin, 0, NULL, &err), 2u);
    NULL_IS(hurray_plugin_describe_device(NULL, 0, &info, &err), 0u);
  }
  if (buffer != NULL) {
    NULL_IS(hurray_plugin_buffer_read(buffer, 0, NULL, 1, &err), 2u);
    NULL_IS(hurray_plugin_buffer_export(buffer, NULL, &err), 1u);
  }
  if (event != NULL) {
    NULL_IS(hurray_plugin_event_native(event, NULL, &err), 1u);
    NULL_IS(hurray_plugin_event_export(event, NULL, &err), 1u);
  }
  FUZZ_CHECK(hurray_plugin_allocate(NULL, 0, 64, 64, 0, &out, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_import(NULL, 0, &memory, &out, &err), 0u);
  FUZZ_CHECK(hurray_plugin_import(NULL, 0, NULL, &out, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_buffer_write(NULL, 0, &byte, 1, &err), 0u);
  FUZZ_CHECK(hurray_plugin_buffer_read(NULL, 0, &byte, 1, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_plugin_buffer_write(NULL, 0, &byte, 1, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_buffer_export(NULL, &memory, &err), 0u);
  FUZZ_CHECK(hurray_plugin_buffer_export(NULL, &memory, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_event_create(NULL, 0, &ev, &err), 0u);
  FUZZ_CHECK(hurray_plugin_event_create(NULL, 0, &ev, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_plugin_event_create_flags(NULL, 0, 0, &ev, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_event_record(NULL, NULL, &err), 0u);
  NULL_IS(hurray_plugin_event_wait(NULL, 0, &err), 0u);
  NULL_IS(hurray_plugin_event_stream_wait(NULL, NULL, &err), 0u);
  FUZZ_CHECK(hurray_plugin_event_record(NULL, NULL, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_plugin_event_wait(NULL, 0, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  FUZZ_CHECK(hurray_plugin_event_stream_wait(NULL, NULL, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_event_native(NULL, &native, &err), 0u);
  FUZZ_CHECK(hurray_plugin_event_native(NULL, &native, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_event_export(NULL, &record, &err), 0u);
  FUZZ_CHECK(hurray_plugin_event_export(NULL, &record, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_event_import(NULL, 0, &record, &ev, &err), 0u);
  FUZZ_CHECK(hurray_plugin_event_import(NULL, 0, &record, &ev, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  NULL_IS(hurray_plugin_stream_wait(NULL, 0, NULL, 0, &err), 0u);
  FUZZ_CHECK(hurray_plugin_stream_wait(NULL, 0, NULL, 0, NULL) == HURRAY_ERR_NULL_ARGUMENT);
  hurray_plugin_registry *none = NULL;
  NULL_IS(hurray_plugin_registry_create(NULL, &err), 0u);
  FUZZ_CHECK(hurray_plugin_registry_count(none) == 0u &&
             hurray_plugin_registry_at(none, 0) == NULL);
  FUZZ_CHECK(hurray_plugin_registry_find(none, 0) == NULL);
  FUZZ_CHECK(hurray_plugin_outstanding(NULL, NULL, NULL) == 0u);
  FUZZ_CHECK(hurray_plugin_buffer_release(NULL, &err) == HURRAY_OK);
  hurray_plugin_buffer_free(NULL);
  hurray_plugin_event_release(NULL);
  hurray_plugin_unload(NULL);
  hurray_plugin_registry_destroy(NULL);
}

/* PL-VER-5: out-structs whose struct_size is below the 8-byte header. */
static void small_out_structs(hurray_plugin *plugin, hurray_plugin_buffer *buffer,
                              hurray_plugin_event *event) {
  hurray_error err;
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = 4;
  FUZZ_CHECK(hurray_plugin_describe_device(plugin, 0, &info, &err) == HURRAY_ERR_INVALID_ARGUMENT &&
             err.index == 2u && err.value == 4u);
  if (buffer != NULL) {
    hurray_plugin_ipc_memory memory;
    memset(&memory, 0, sizeof memory);
    memory.struct_size = 7;
    FUZZ_CHECK(hurray_plugin_buffer_export(buffer, &memory, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  }
  if (event != NULL) {
    hurray_plugin_native_event native;
    memset(&native, 0, sizeof native);
    FUZZ_CHECK(hurray_plugin_event_native(event, &native, &err) == HURRAY_ERR_INVALID_ARGUMENT);
    hurray_plugin_ipc_event record;
    memset(&record, 0, sizeof record);
    FUZZ_CHECK(hurray_plugin_event_export(event, &record, &err) == HURRAY_ERR_INVALID_ARGUMENT);
  }
}

typedef struct on_thread {
  hurray_plugin *plugin;
  uint32_t alignment;
  unsigned made;
} on_thread;

/* More buffers than one thread's record cache holds, made and freed on a
 * thread that then ends (its cache goes back to the table). */
static void *allocate_on_thread(void *arg) {
  on_thread *t = arg;
  hurray_plugin_buffer *b[80];
  unsigned n = 0;
  for (; n < 80u; n++) {
    if (hurray_plugin_allocate(t->plugin, 0, 64, t->alignment, 0, &b[n], NULL) != HURRAY_OK) {
      break;
    }
  }
  for (unsigned i = 0; i < n; i++) {
    hurray_plugin_buffer_free(b[i]);
  }
  t->made = n;
  return NULL;
}

/* PL-LIFE-3: tokens no allocation made (index 0, a chunk the table never
 * grew to, past its last chunk) are refused as never made, and read as
 * no buffer; the table decodes them without touching memory. */
static void forged_tokens(void) {
  static const uintptr_t forged[] = {
      (uintptr_t)1 << (sizeof(uintptr_t) * 4u),
      ((uintptr_t)4000u << 10) + 1u,
      ~(uintptr_t)0xFFFFu,
  };
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
    hurray_plugin_buffer *token = (hurray_plugin_buffer *)forged[i];
    hurray_error err;
    memset(&err, 0xAA, sizeof err);
    FUZZ_CHECK(hurray_plugin_buffer_release(token, &err) == HURRAY_ERR_INVALID_ARGUMENT &&
               err.value == (uint64_t)forged[i]);
    FUZZ_CHECK(strstr(err.detail, "was not made by hurray_plugin_allocate") != NULL);
    uint8_t byte = 0;
    FUZZ_CHECK(hurray_plugin_buffer_write(token, 0, &byte, 1, &err) == HURRAY_ERR_INVALID_ARGUMENT);
    FUZZ_CHECK(hurray_plugin_buffer_handle(token) == NULL &&
               hurray_plugin_buffer_plugin(token) == NULL);
    hurray_plugin_buffer_free(token); /* refused, silently */
  }
}

/* A thread whose record cache cannot be allocated: the host says
 * OUT_OF_MEMORY ("buffer record table") before asking the plugin. */
static void *allocate_without_cache(void *arg) {
  on_thread *t = arg;
  hurray_error err;
  hurray_plugin_buffer *b = NULL;
  uint32_t allocations = hostile_seen.allocate_calls;
  fault_arm(FAULT_CALLOC, 0, ENOMEM);
  hurray_status s = hurray_plugin_allocate(t->plugin, 0, 64, t->alignment, 0, &b, &err);
  bool fired = fault_fired();
  fault_disarm();
  if (fired) {
    FUZZ_CHECK(s == HURRAY_ERR_OUT_OF_MEMORY && b == NULL);
    FUZZ_CHECK(strstr(err.detail, "buffer record table") != NULL);
    FUZZ_CHECK(hostile_seen.allocate_calls == allocations);
  } else if (s != HURRAY_OK) {
    FUZZ_CHECK(b == NULL); /* refused on the request, before any record (PL-ALLOC-1) */
  } else {
    hurray_plugin_buffer_free(b); /* the allocation the answers allowed */
    t->made = 1;
  }
  return NULL;
}

void hostile_misuse_op(hostile_source *in, hurray_plugin *plugin, hurray_plugin_buffer *buffer,
                       hurray_plugin_event *event) {
  uint8_t first = hostile_u8(in);
  if (first >= 0xF0u) {
    forged_tokens();
    if (plugin != NULL && hurray_plugin_device_count(plugin) > 0u) {
      hostile_set_source(NULL);
      on_thread t = {plugin, 64, 0};
      pthread_t thread;
      FUZZ_CHECK(pthread_create(&thread, NULL, allocate_without_cache, &t) == 0);
      FUZZ_CHECK(pthread_join(thread, NULL) == 0);
      hostile_set_source(in);
    }
    return;
  }
  uint8_t what = first % 3u;
  if (what == 0u) {
    null_arguments(plugin, buffer, event);
  } else if (what == 1u) {
    if (plugin != NULL && hurray_plugin_device_count(plugin) > 0u) {
      small_out_structs(plugin, buffer, event);
    }
  } else if (plugin != NULL && hurray_plugin_device_count(plugin) > 0u) {
    hostile_set_source(NULL); /* the thread's answers: correct ones */
    on_thread t = {plugin, 64, 0};
    pthread_t thread;
    uint32_t live = hostile_seen.live_buffers;
    FUZZ_CHECK(pthread_create(&thread, NULL, allocate_on_thread, &t) == 0);
    FUZZ_CHECK(pthread_join(thread, NULL) == 0);
    FUZZ_CHECK(hostile_seen.live_buffers == live);
    hostile_set_source(in);
  }
}

FUZZ_ORACLE_END
