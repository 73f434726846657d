/*
 * The hostile plugin's lifetime and device entries (fuzz/hostile_plugin.h):
 * init, shutdown, count_devices, describe_device and unavailable_reason,
 * each answering from the stream (hostile_answer, fuzz/hostile_plugin.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "hostile_entries.h"
#include "hurray/plugin_support.h"

FUZZ_ORACLE_BEGIN

/* What init found of its "runtime" (PL-AVAIL-1), as a real plugin would:
 * libm stands in for a vendor library, a name nobody has for a missing one. */
static void *runtime;
static char runtime_reason[HURRAY_SUPPORT_REASON_SIZE];
static double (*runtime_cos)(double);
static void (*runtime_missing)(void);

hurray_status h_init(void **out_state, hurray_error *err) {
  FUZZ_CHECK(hostile_seen.inits == hostile_seen.shutdowns); /* PL-CALL-2: once per load */
  hurray_status status = hostile_answer(err, "init");
  if (status == HURRAY_OK) {
    /* PL-BUILD-1, PL-AVAIL-1: the runtime is opened with dlopen; a missing
     * one or a missing required symbol is no load failure, only a reason. */
    uint8_t how = hostile_u8(hostile_stream);
    static const char *const names[] = {"libhurray-hostile-runtime.so.1", "libm.so.6"};
    const char *opened = NULL;
    runtime_reason[0] = '\0';
    /* The missing name then libm, the missing name alone, or libm alone. */
    size_t first = how % 3u == 2u ? 1u : 0u;
    size_t tried = how % 3u == 0u ? 2u : 1u;
    runtime = hurray_support_open_runtime("HURRAY_HOSTILE_LIBRARY", names + first, tried, 0,
                                          &opened, runtime_reason, sizeof runtime_reason);
    if (runtime != NULL) {
      hurray_support_symbol symbols[] = {
          {"cos", &runtime_cos, HURRAY_TRUE},
          {"hurray_hostile_no_such_symbol", &runtime_missing,
           (how & 2u) != 0u ? HURRAY_TRUE : HURRAY_FALSE},
      };
      if (!hurray_support_resolve_symbols(runtime, opened, symbols, 2, runtime_reason,
                                          sizeof runtime_reason)) {
        dlclose(runtime);
        runtime = NULL;
      }
    }
    *out_state = &hostile_state_marker;
    hostile_seen.inits++;
  }
  return status;
}

void h_shutdown(void *state) {
  FUZZ_CHECK(state == &hostile_state_marker);
  FUZZ_CHECK(hostile_seen.shutdowns < hostile_seen.inits);
  /* PL-LIFE-1: after every buffer and event of the plugin was released. */
  FUZZ_CHECK(hostile_seen.live_buffers == 0u && hostile_seen.live_events == 0u);
  if (runtime != NULL) {
    dlclose(runtime);
    runtime = NULL;
  }
  hostile_seen.shutdowns++;
}

hurray_status h_count(void *state, uint32_t *out, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  hurray_status status = hostile_answer(err, "count_devices");
  uint8_t b = hostile_u8(hostile_stream);
  uint32_t count = b < 0xF0u ? 1u + b % 3u : b == 0xFEu ? 257u : b == 0xFFu ? 256u : 0u;
  *out = count;
  hostile_seen.count_answered = status == HURRAY_OK ? count : 0u;
  return status;
}

/* The classes a device of `tag` may declare (BP-PAIR-1, BP-PAIR-2). */
static size_t valid_classes(hurray_device_tag tag, hurray_memory_class out[6]) {
  static const hurray_memory_class candidates[] = {0x00, 0x01, 0x02, 0x03, 0xF0, 0xF1};
  size_t n = 0;
  for (size_t i = 0; i < sizeof candidates; i++) {
    if (hurray_pair_is_valid(tag, candidates[i])) {
      out[n++] = candidates[i];
    }
  }
  return n;
}

static uint32_t host_flag(hurray_device_tag tag, hurray_memory_class c, bool choice) {
  if (tag == HURRAY_DEVICE_CPU || c == HURRAY_MEMORY_HOST_PINNED || c == HURRAY_MEMORY_UNIFIED) {
    return HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE; /* PL-DEV-5 */
  }
  if (c == HURRAY_MEMORY_PEER) {
    return 0u;
  }
  return choice ? HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE : 0u;
}

/* A correct description (PL-DEV-1..5) shaped by byte `v`, then at most one
 * of the breaks the host must refuse at load, chosen by byte `m`. */
hurray_status h_describe(void *state, uint32_t index, hurray_plugin_device_info *out,
                         hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  FUZZ_CHECK(index < hostile_seen.count_answered);
  hurray_status status = hostile_answer(err, "describe_device");
  uint8_t v = hostile_u8(hostile_stream);
  uint8_t m = hostile_u8(hostile_stream);
  hurray_device_tag tag = hostile_table_config.device_tag;
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  snprintf(info.name, sizeof info.name, "hostile device %u", (unsigned)index);
  info.memory_bytes = (uint64_t)v << 20;
  hurray_memory_class classes[6];
  size_t available = valid_classes(tag, classes);
  size_t count = available == 0u ? 0u : 1u + (size_t)(v % available);
  for (size_t i = 0; i < count; i++) {
    hurray_memory_class c = classes[(i + (size_t)(v >> 4)) % available];
    hurray_support_add_memory_class(&info, c, host_flag(tag, c, ((v >> i) & 1u) != 0u),
                                    64u << ((v + i) % 15u)); /* up to 1 MiB */
  }
  if ((v & 0x80u) != 0u && hostile_offered(HOSTILE_EXPORT_EVENT)) {
    info.ipc_capabilities = HURRAY_IPC_EXPORTS_EVENTS;
  }
  bool invalid = count == 0u;
  switch (m % 24u) {
    case 16:
      info.name[sizeof info.name - 1u] = 'x';
      memset(info.name, 'n', sizeof info.name);
      invalid = true;
      break;
    case 17:
      info.ipc_capabilities |= 4u;
      invalid = true;
      break;
    case 18:
      info.reserved = 1u;
      invalid = true;
      break;
    case 19:
      info.memory_class_count = (m & 0x80u) != 0u ? 9u : 0u;
      invalid = true;
      break;
    case 20:
      if (count > 0u && count < 8u) {
        info.memory_classes[count] = info.memory_classes[0]; /* the same class twice */
        info.memory_class_count = (uint32_t)count + 1u;
        invalid = true;
      }
      break;
    case 21:
      info.memory_classes[0].max_alignment = (m & 0x80u) != 0u ? 32u : 96u;
      invalid = true;
      break;
    case 22:
      info.memory_classes[0].memory_class = 0x09u;
      invalid = true;
      break; /* reserved class */
    case 23:
      /* PL-DEV-3: event export claimed; refused without export_event. */
      info.ipc_capabilities |= HURRAY_IPC_EXPORTS_EVENTS;
      invalid = invalid || !hostile_offered(HOSTILE_EXPORT_EVENT);
      break;
    default: break;
  }
  if (m % 24u == 15u && count > 0u) {
    /* PL-DEV-5: a host-access claim the class contradicts, where it has one. */
    hurray_plugin_memory_class_info *c = &info.memory_classes[0];
    uint32_t want = host_flag(tag, c->memory_class, false);
    uint32_t other = host_flag(tag, c->memory_class, true);
    if (want == other) { /* the class decides the flag: flip it */
      c->flags ^= HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE;
      invalid = true;
    }
  }
  hurray_plugin_copy_out(out, &info, sizeof info);
  if (status == HURRAY_OK) {
    hostile_seen.invalid_description = hostile_seen.invalid_description || invalid;
  }
  return status;
}

size_t h_reason(void *state, char *buf, size_t cap) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_UNAVAILABLE_REASON);
  uint8_t b = hostile_u8(hostile_stream);
  memset(buf, 0, cap);
  switch (b % 4u) {
    case 1: memset(buf, 'r', cap); break; /* unterminated (PL-AVAIL-2) */
    case 2:                               /* what init found, as a plugin's copy-out writes it */
      (void)hurray_support_copy_reason(buf, cap,
                                       runtime_reason[0] != '\0' ? runtime_reason : "no reason");
      break;
    case 3:
      if (cap > 0u) {
        buf[0] = (char)hostile_u8(hostile_stream);
      }
      break;
    default: break;
  }
  return (size_t)hostile_u64(hostile_stream); /* a length the host must not trust */
}

FUZZ_ORACLE_END
