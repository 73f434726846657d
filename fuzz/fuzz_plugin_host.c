/*
 * Fuzz target plugin_host: the plugin host (core/runtime/plugin_loader.c,
 * plugin_registry.c, plugin_lifetime.c, plugin_buffer*.c, plugin_events.c,
 * plugin_call.c) driven by a hostile plugin whose every answer comes from
 * the input (fuzz/hostile_plugin.c), loaded through the loader's seam for
 * linked plugins: load, describe, allocate, import, copies, export, events, unload.
 *
 * Input: byte 0 picks the table's struct_size (sizeof, the ABI 1.0 and
 * 1.1-memory sizes, the minimum, one that ends inside an entry, a newer
 * minor's, too small); bytes 1-2 XOR all ones say which optional entries
 * are set; byte 3 breaks the table (declines, NULL strings or entries, a
 * reserved byte, another major, a bad name); byte 4 is the tag (below 0x80:
 * a named tag, modulo 9). The rest is one stream read in turn by the
 * harness (the next operation and its arguments) and by the plugin (each
 * answer); a stream that ends answers correctly.
 *
 * Oracle, from specs/plugin-abi.md:
 *  - every status is a defined one; a failure fills the error (status as
 *    returned, detail terminated); the caller's error is never read
 *    (poisoned before each call);
 *  - a plugin entry that fails is reported as PL-CALL-3 and PL-CALL-4 say:
 *    its status, DEVICE_ERROR with the raw value for one outside
 *    hurray_status, the host's "gave no reason" for an empty detail;
 *  - load (PL-LOAD-5, PL-LOAD-6, PL-DEV-1..5): the table's verdict is
 *    hurray_plugin_table_validate's; a refusal names the plugin, leaves the
 *    registry empty and shuts down what was initialised; an accepted plugin
 *    has the devices it counted, no invalid description;
 *  - an optional entry the table does not offer wholly is never called
 *    (PL-NEG-4, PL-TABLE-8; the plugin checks every call);
 *  - allocate (PL-ALLOC-1, PL-IPC-1): the request checks in order, before
 *    the plugin is called; the answer accepted exactly when PL-ALLOC-4
 *    holds, recomputed here (alignment, size, class, device, address, each
 *    address measured, the CPU address too, the basis, host access); the
 *    handle as PL-ALLOC-5 builds it; a refused answer freed through the
 *    plugin; import (PL-IPC-3) likewise, its pre-checks before the plugin;
 *  - copies (PL-COPY-2), export (PL-IPC-2, no descriptor left open on
 *    failure), events (PL-IPC-7..9, PL-EVENT-5) refused and accepted as
 *    the rules say;
 *  - PL-LIFE-1..3: a second release is USE_AFTER_DESTROY and calls nothing;
 *    outstanding counts what is live; after unload the plugin is shut down
 *    exactly when its last buffer and event are released; at the end every
 *    buffer and event was freed once and no descriptor is left open.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/plugin.h"
#include "plugin_internal.h"

FUZZ_ORACLE_BEGIN

#define LINKED_NAME "hostile-linked"
#define SLOTS 6

static hostile_source in;
static hurray_plugin_registry *registry;
static hurray_plugin *plugin; /* NULL once unloaded */
static hurray_plugin_buffer *buffers[SLOTS];
static bool buffer_live[SLOTS];
static hurray_plugin_event *events[SLOTS];
static uint32_t event_flags[SLOTS];
static hurray_error err;

static void poison(void) { memset(&err, 0xAA, sizeof err); }

/* Every answer: a defined status; a failure fills the error. */
static hurray_status checked(hurray_status s) { return fuzz_checked_status(s, &err); }

/* PL-CALL-3, PL-CALL-4: after a call in which the plugin answered last
 * with a failure, the caller gets that failure as the rules map it. */
static void check_plugin_failure(hurray_status s, uint32_t answers_before) {
  if (hostile_seen.answers == answers_before || hostile_seen.last_status == HURRAY_OK) {
    return;
  }
  hurray_status raw = hostile_seen.last_status;
  FUZZ_CHECK(s == hostile_mapped(raw));
  if ((uint32_t)raw >= (uint32_t)HURRAY_STATUS_COUNT) {
    FUZZ_CHECK(err.value == (uint32_t)raw);
    FUZZ_CHECK(strstr(err.detail, "which is not a hurray_status") != NULL);
  } else if (!hostile_seen.last_detail_given) {
    FUZZ_CHECK(strstr(err.detail, "gave no reason") != NULL);
  }
}

static bool power_of_two(uint64_t v) { return v != 0u && (v & (v - 1u)) == 0u; }

/* The alignment an address shows, capped at 2^31 (BP-ALIGN-5). */
static uint64_t measured(uint64_t address) {
  if (address == 0u) {
    return 1ull << 31;
  }
  uint64_t low = address & (~address + 1u);
  return low > (1ull << 31) ? (1ull << 31) : low;
}

static const hurray_plugin_memory_class_info *class_of(uint32_t device, hurray_memory_class c,
                                                       hurray_plugin_device_info *info) {
  info->struct_size = sizeof *info;
  hurray_error e;
  if (hurray_plugin_describe_device(plugin, device, info, &e) != HURRAY_OK) {
    return NULL;
  }
  for (uint32_t i = 0; i < info->memory_class_count; i++) {
    if (info->memory_classes[i].memory_class == c) {
      return &info->memory_classes[i];
    }
  }
  return NULL;
}

/* PL-ALLOC-4, recomputed from the text: is this answer acceptable? */
static bool answer_acceptable(const hurray_plugin_allocation *a, uint32_t device, uint64_t size,
                              uint32_t alignment, hurray_memory_class c, bool host_class) {
  if (!power_of_two(a->alignment) || a->alignment < alignment || a->byte_size < size ||
      a->memory_class != c || a->device_index != device || a->address == NULL) {
    return false;
  }
  if (a->host_address != NULL && measured((uintptr_t)a->host_address) < a->alignment) {
    return false;
  }
  if (a->device_address != 0u && measured(a->device_address) < a->alignment) {
    return false;
  }
  if (hostile_table_config.device_tag == HURRAY_DEVICE_CPU &&
      measured((uintptr_t)a->address) < a->alignment) {
    return false; /* HO-CHECK-3: the pointer the handoff carries */
  }
  bool basis = (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST && a->host_address) ||
               (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE &&
                a->device_address != 0u) ||
               a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  return basis && !(host_class && a->host_address == NULL);
}

static int free_slot(void) {
  for (int i = 0; i < SLOTS; i++) {
    if (!buffer_live[i]) {
      return i;
    }
  }
  return -1;
}

/* What the host does after the plugin's allocate or import answered:
 * shared by both (PL-ALLOC-4, PL-ALLOC-5, PL-IPC-3, PL-IPC-4). */
static void check_answer(hurray_status s, hurray_plugin_buffer *got, uint32_t answers_before,
                         uint32_t live_before, uint32_t device, uint64_t size, uint32_t alignment,
                         hurray_memory_class c, uint32_t declared, int slot) {
  check_plugin_failure(s, answers_before);
  hurray_plugin_device_info info;
  const hurray_plugin_memory_class_info *ci = class_of(device, c, &info);
  FUZZ_CHECK(ci != NULL);
  bool host_class = (ci->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u;
  if (hostile_seen.last_status != HURRAY_OK) {
    FUZZ_CHECK(got == NULL && hostile_seen.live_buffers == live_before);
    return;
  }
  bool ok = answer_acceptable(&hostile_seen.last_allocation, device, size, alignment, c,
                              host_class);
  if (!ok) {
    FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_INVALID && got == NULL);
    FUZZ_CHECK(hostile_seen.live_buffers == live_before); /* freed through the plugin */
    return;
  }
  FUZZ_CHECK(s == HURRAY_OK && got != NULL);
  FUZZ_CHECK(hostile_seen.live_buffers == live_before + 1u);
  const hurray_buffer_handle *h = hurray_plugin_buffer_handle(got);
  FUZZ_CHECK(h != NULL && h->byte_size == size && h->alignment == declared &&
             h->device_tag == hostile_table_config.device_tag &&
             h->sync_mode == HURRAY_SYNC_PRODUCER_SYNCED && h->memory_class == c);
  FUZZ_CHECK(hurray_plugin_buffer_plugin(got) == plugin);
  buffers[slot] = got;
  buffer_live[slot] = true;
}

static void op_allocate(void) {
  int slot = free_slot();
  if (slot < 0 || plugin == NULL) {
    return;
  }
  uint32_t count = hurray_plugin_device_count(plugin);
  uint32_t device = hostile_u8(&in) % (count + 1u);
  uint8_t sz = hostile_u8(&in);
  uint64_t size = sz == 0xFFu ? (2u << 20) : sz == 0xFEu ? 0u : 1u + (uint64_t)sz * 37u;
  uint8_t al = hostile_u8(&in);
  uint32_t alignment = al >= 0xF0u ? (uint32_t)al * 3u : 1u << (al % 24u);
  hurray_memory_class c = hostile_u8(&in);
  if (c < 0xF0u) {
    c = (hurray_memory_class)(c % 4u);
  }
  uint32_t flags = hostile_u8(&in) % 3u; /* 0, EXPORTABLE, an undefined bit */
  hurray_plugin_device_info info;
  const hurray_plugin_memory_class_info *ci = device < count ? class_of(device, c, &info) : NULL;
  /* PL-IPC-1, PL-ALLOC-1 in order: the refusal before the plugin is asked. */
  hurray_status want = HURRAY_OK;
  if ((flags & ~(uint32_t)HURRAY_PLUGIN_ALLOCATE_KNOWN_FLAGS) != 0u) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  } else if (flags != 0u && !hostile_offered(HOSTILE_EXPORT_MEMORY)) {
    want = HURRAY_ERR_UNSUPPORTED;
  } else if (device >= count || size == 0u) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  } else if (!power_of_two(alignment)) {
    want = HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO;
  } else if (alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    want = HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM;
  } else if (ci == NULL || alignment > ci->max_alignment) {
    want = HURRAY_ERR_UNSUPPORTED;
  }
  uint32_t calls = hostile_seen.allocate_calls;
  uint32_t answers = hostile_seen.answers;
  uint32_t live = hostile_seen.live_buffers;
  hurray_plugin_buffer *got = NULL;
  poison();
  hurray_status s =
      checked(hurray_plugin_allocate_flags(plugin, device, size, alignment, c, flags, &got, &err));
  if (want != HURRAY_OK) {
    FUZZ_CHECK(s == want && got == NULL && hostile_seen.allocate_calls == calls);
    if (want == HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO ||
        want == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
      FUZZ_CHECK(err.value == alignment && err.index == 0u);
    }
    return;
  }
  FUZZ_CHECK(hostile_seen.allocate_calls == calls + 1u);
  check_answer(s, got, answers, live, device, size, alignment, c,
               flags != 0u ? alignment : hostile_seen.last_allocation.alignment, slot);
}

static void op_import(void) {
  int slot = free_slot();
  if (slot < 0 || plugin == NULL) {
    return;
  }
  uint32_t count = hurray_plugin_device_count(plugin);
  uint32_t device = hostile_u8(&in) % (count + 1u);
  uint8_t m = hostile_u8(&in);
  hurray_plugin_ipc_memory mem;
  memset(&mem, 0, sizeof mem);
  mem.struct_size = sizeof mem;
  mem.kind = (m & 1u) != 0u ? HURRAY_PLUGIN_IPC_MEMORY_HANDLE : HURRAY_PLUGIN_IPC_MEMORY_FD;
  mem.fd = -1;
  mem.handle_size = mem.kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE ? 64u : 0u;
  mem.byte_size = 1u + (uint64_t)hostile_u8(&in) * 61u;
  mem.segment_size = mem.byte_size + 4096u;
  mem.offset = 4096u;
  mem.alignment = 64u << (hostile_u8(&in) % 8u);
  mem.device_tag = hostile_table_config.device_tag;
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  uint8_t pick = hostile_u8(&in);
  if (device < count && hurray_plugin_describe_device(plugin, device, &info, NULL) == HURRAY_OK) {
    mem.memory_class = info.memory_classes[pick % info.memory_class_count].memory_class;
  }
  switch ((m >> 1) % 12u) {
    case 1: mem.struct_size = 8u; break;
    case 2: mem.device_tag ^= 0x01u; break;
    case 3: mem.kind = 9u; break;
    case 4: mem.reserved[1] = 1u; break;
    case 5: mem.offset = mem.segment_size; break;
    case 6: mem.byte_size = UINT64_MAX; mem.offset = 8u; break;
    case 7: mem.byte_size = 0u; break;
    case 8: mem.alignment = 96u; break;
    case 9: mem.alignment = 32u; break;
    case 10: mem.memory_class = 0xF7u; break;
    default: break;
  }
  /* A descriptor for kind FD, as an importer gets one: a memfd of the
   * segment's size, one too small, or no regular file; the caller keeps it. */
  if (mem.kind == HURRAY_PLUGIN_IPC_MEMORY_FD && (m & 0x40u) != 0u) {
    if ((m & 0x80u) != 0u) {
      mem.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    } else {
      mem.fd = memfd_create("hostile-import", MFD_CLOEXEC);
      FUZZ_CHECK(mem.fd >= 0 && ftruncate(mem.fd, (off_t)((m & 0x20u) != 0u ? 64u : 65536u)) == 0);
      if ((m & 0x10u) != 0u) {
        mem.offset = 64u; /* not a page */
      }
    }
  }
  const hurray_plugin_memory_class_info *ci =
      device < count ? class_of(device, mem.memory_class, &info) : NULL;
  /* PL-IPC-3 (no order is given: any rule broken may be the one named). */
  hurray_status allowed[8];
  size_t n = 0;
  if (mem.struct_size < sizeof mem) allowed[n++] = HURRAY_ERR_INVALID_ARGUMENT;
  if (mem.device_tag != hostile_table_config.device_tag) allowed[n++] = HURRAY_ERR_DEVICE_TAG_MISMATCH;
  if (mem.kind > 2u || mem.kind == 0u || mem.reserved[1] != 0u) allowed[n++] = HURRAY_ERR_INVALID_ARGUMENT;
  if (mem.offset > mem.segment_size || mem.byte_size > mem.segment_size - mem.offset)
    allowed[n++] = HURRAY_ERR_IPC_BAD_SEGMENT;
  if (!hostile_offered(HOSTILE_IMPORT_MEMORY)) allowed[n++] = HURRAY_ERR_UNSUPPORTED;
  if (device >= count || mem.byte_size == 0u) allowed[n++] = HURRAY_ERR_INVALID_ARGUMENT;
  if (!power_of_two(mem.alignment)) allowed[n++] = HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO;
  else if (mem.alignment < 64u) allowed[n++] = HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM;
  if (ci == NULL) allowed[n++] = HURRAY_ERR_UNSUPPORTED;
  uint32_t calls = hostile_seen.import_calls;
  uint32_t answers = hostile_seen.answers;
  uint32_t live = hostile_seen.live_buffers;
  hurray_plugin_buffer *got = NULL;
  poison();
  hurray_status s = checked(hurray_plugin_import(plugin, device, &mem, &got, &err));
  if (mem.fd >= 0) {
    close(mem.fd);
  }
  if (n > 0u) {
    bool named = false;
    for (size_t i = 0; i < n; i++) {
      named = named || s == allowed[i];
    }
    FUZZ_CHECK(named && got == NULL && hostile_seen.import_calls == calls);
    return;
  }
  FUZZ_CHECK(hostile_seen.import_calls == calls + 1u);
  check_answer(s, got, answers, live, device, mem.byte_size, mem.alignment, mem.memory_class,
               mem.alignment, slot);
}

static void op_release(void) {
  int slot = hostile_u8(&in) % SLOTS;
  if (buffers[slot] == NULL) {
    return;
  }
  uint32_t live = hostile_seen.live_buffers;
  poison();
  hurray_status s = checked(hurray_plugin_buffer_release(buffers[slot], &err));
  if (buffer_live[slot]) {
    FUZZ_CHECK(s == HURRAY_OK && hostile_seen.live_buffers == live - 1u);
    buffer_live[slot] = false;
  } else {
    /* PL-LIFE-3: a second release changes nothing and calls nothing. */
    FUZZ_CHECK(s == HURRAY_ERR_USE_AFTER_DESTROY && hostile_seen.live_buffers == live);
    FUZZ_CHECK(hurray_plugin_buffer_handle(buffers[slot]) == NULL);
  }
}

/* PL-COPY-2, PL-LIFE-3: the range first, 0 bytes never reach the plugin. */
static void op_copy(bool write) {
  int slot = hostile_u8(&in) % SLOTS;
  if (buffers[slot] == NULL) {
    return;
  }
  uint64_t offset = hostile_u16(&in);
  uint64_t bytes = hostile_u16(&in) % 2048u;
  if ((offset & 0x8000u) != 0u) {
    offset = UINT64_MAX - (offset & 0xFFu); /* overflowing ranges */
  }
  static uint8_t host[2048];
  memset(host, 0x3C, sizeof host);
  uint32_t calls = hostile_seen.copy_calls;
  uint32_t answers = hostile_seen.answers;
  const hurray_buffer_handle *h = hurray_plugin_buffer_handle(buffers[slot]);
  uint64_t size = h != NULL ? h->byte_size : 0u;
  poison();
  hurray_status s =
      checked(write ? hurray_plugin_buffer_write(buffers[slot], offset, host, bytes, &err)
                    : hurray_plugin_buffer_read(buffers[slot], offset, host, bytes, &err));
  if (!buffer_live[slot]) {
    FUZZ_CHECK(s == HURRAY_ERR_USE_AFTER_DESTROY && hostile_seen.copy_calls == calls);
  } else if (offset > size || bytes > size - offset) {
    FUZZ_CHECK(s == HURRAY_ERR_INVALID_ARGUMENT && err.expected == size && err.index == 1u);
    FUZZ_CHECK(hostile_seen.copy_calls == calls);
  } else if (bytes == 0u) {
    FUZZ_CHECK(s == HURRAY_OK && hostile_seen.copy_calls == calls);
  } else {
    FUZZ_CHECK(hostile_seen.copy_calls == calls + 1u);
    FUZZ_CHECK(s == HURRAY_OK || hostile_seen.last_status != HURRAY_OK);
    check_plugin_failure(s, answers);
  }
}

static bool fd_open(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

/* PL-IPC-2: the host decides what is exported and checks the answer; no
 * descriptor stays open on failure. */
static void op_export(void) {
  int slot = hostile_u8(&in) % SLOTS;
  if (buffers[slot] == NULL) {
    return;
  }
  hurray_plugin_ipc_memory out;
  memset(&out, 0xAB, sizeof out);
  out.struct_size = sizeof out;
  hurray_plugin_ipc_memory untouched = out;
  const hurray_plugin_buffer *b = buffers[slot];
  const hurray_buffer_handle *h = hurray_plugin_buffer_handle(b);
  uint64_t size = h != NULL ? h->byte_size : 0u;
  uint32_t answers = hostile_seen.answers;
  hostile_seen.last_exported_fd = -1;
  poison();
  hurray_status s = checked(hurray_plugin_buffer_export(b, &out, &err));
  int given = hostile_seen.last_exported_fd;
  if (!buffer_live[slot]) {
    FUZZ_CHECK(s == HURRAY_ERR_USE_AFTER_DESTROY);
    return;
  }
  if (hostile_seen.answers == answers) {
    FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED); /* no entry, or not allocated exportable */
    return;
  }
  check_plugin_failure(s, answers);
  if (s != HURRAY_OK) {
    FUZZ_CHECK(!fd_open(given)); /* no descriptor left open */
    FUZZ_CHECK(memcmp(&out, &untouched, sizeof out) == 0); /* nothing written */
    return;
  }
  FUZZ_CHECK(out.byte_size == size && out.offset <= out.segment_size &&
             size <= out.segment_size - out.offset);
  FUZZ_CHECK(out.device_tag == hostile_table_config.device_tag);
  if (out.kind == HURRAY_PLUGIN_IPC_MEMORY_FD) {
    FUZZ_CHECK(out.fd == given && fd_open(out.fd));
    close(out.fd);
  } else {
    FUZZ_CHECK(out.kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE && out.fd == -1 &&
               out.handle_size >= 1u && out.handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE);
  }
}

static int free_event_slot(void) {
  for (int i = 0; i < SLOTS; i++) {
    if (events[i] == NULL) {
      return i;
    }
  }
  return -1;
}

/* PL-IPC-7, in its order, before the plugin is called. */
static void op_event_create(void) {
  int slot = free_event_slot();
  if (slot < 0 || plugin == NULL) {
    return;
  }
  uint32_t count = hurray_plugin_device_count(plugin);
  uint32_t device = hostile_u8(&in) % (count + 1u);
  uint32_t flags = hostile_u8(&in) % 3u;
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  bool exports = device < count && hurray_plugin_describe_device(plugin, device, &info, NULL) ==
                                       HURRAY_OK &&
                 (info.ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u;
  hurray_status want = HURRAY_OK;
  if ((flags & ~(uint32_t)HURRAY_PLUGIN_EVENT_KNOWN_FLAGS) != 0u) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  } else if (!hostile_offered(HOSTILE_CREATE_EVENT)) {
    want = HURRAY_ERR_UNSUPPORTED;
  } else if (device >= count) {
    want = HURRAY_ERR_INVALID_ARGUMENT;
  } else if (flags != 0u && (!hostile_offered(HOSTILE_CREATE_EVENT_FLAGS) || !exports)) {
    want = HURRAY_ERR_UNSUPPORTED;
  }
  uint32_t calls = hostile_seen.event_calls;
  uint32_t answers = hostile_seen.answers;
  hurray_plugin_event *e = NULL;
  poison();
  hurray_status s = checked(hurray_plugin_event_create_flags(plugin, device, flags, &e, &err));
  if (want != HURRAY_OK) {
    FUZZ_CHECK(s == want && e == NULL && hostile_seen.event_calls == calls);
    return;
  }
  FUZZ_CHECK(hostile_seen.event_calls == calls + 1u);
  check_plugin_failure(s, answers);
  FUZZ_CHECK((s == HURRAY_OK) == (e != NULL));
  if (e != NULL) {
    events[slot] = e;
    event_flags[slot] = flags;
  }
}

static void op_event_use(void) {
  int slot = hostile_u8(&in) % SLOTS;
  uint8_t what = hostile_u8(&in) % 3u;
  if (events[slot] == NULL) {
    return;
  }
  uint32_t answers = hostile_seen.answers;
  poison();
  hurray_status s;
  if (what == 0u) {
    s = checked(hurray_plugin_event_record(events[slot], NULL, &err));
  } else if (what == 1u) {
    s = checked(hurray_plugin_event_wait(events[slot], HURRAY_PLUGIN_WAIT_FOREVER, &err));
  } else {
    s = checked(hurray_plugin_event_stream_wait(events[slot], NULL, &err));
    if (!hostile_offered(HOSTILE_STREAM_WAIT_EVENT)) {
      FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED && hostile_seen.answers == answers);
      return;
    }
  }
  FUZZ_CHECK(hostile_seen.answers == answers + 1u);
  check_plugin_failure(s, answers);
}

/* PL-EVENT-5: a handle of the device's runtime, non-zero, or PLUGIN_INVALID. */
static void op_event_native(void) {
  int slot = hostile_u8(&in) % SLOTS;
  if (events[slot] == NULL) {
    return;
  }
  hurray_plugin_native_event out;
  memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  uint32_t answers = hostile_seen.answers;
  poison();
  hurray_status s = checked(hurray_plugin_event_native(events[slot], &out, &err));
  if (!hostile_offered(HOSTILE_NATIVE_EVENT)) {
    FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED && hostile_seen.answers == answers);
    FUZZ_CHECK(err.expected == hostile_table_config.device_tag);
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
static void op_event_export(void) {
  int slot = hostile_u8(&in) % SLOTS;
  if (events[slot] == NULL) {
    return;
  }
  hurray_plugin_ipc_event out;
  memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  uint32_t answers = hostile_seen.answers;
  poison();
  hurray_status s = checked(hurray_plugin_event_export(events[slot], &out, &err));
  if (!hostile_offered(HOSTILE_EXPORT_EVENT) ||
      (event_flags[slot] & HURRAY_PLUGIN_EVENT_EXPORTABLE) == 0u) {
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
static void op_event_import(void) {
  int slot = free_event_slot();
  if (slot < 0 || plugin == NULL) {
    return;
  }
  uint32_t count = hurray_plugin_device_count(plugin);
  uint32_t device = hostile_u8(&in) % (count + 1u);
  uint8_t m = hostile_u8(&in);
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
  if (record.struct_size < sizeof record) want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (record.device_tag != hostile_table_config.device_tag) want = HURRAY_ERR_DEVICE_TAG_MISMATCH;
  else if (record.kind != HURRAY_PLUGIN_IPC_EVENT_HANDLE) want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (record.handle_size == 0u || record.handle_size > 64u) want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (record.reserved[0] | record.reserved[1] | record.reserved[2]) want = HURRAY_ERR_INVALID_ARGUMENT;
  else if (!hostile_offered(HOSTILE_IMPORT_EVENT)) want = HURRAY_ERR_UNSUPPORTED;
  else if (device >= count) want = HURRAY_ERR_INVALID_ARGUMENT;
  uint32_t calls = hostile_seen.event_calls;
  uint32_t answers = hostile_seen.answers;
  hurray_plugin_event *e = NULL;
  poison();
  hurray_status s = checked(hurray_plugin_event_import(plugin, device, &record, &e, &err));
  if (want != HURRAY_OK) {
    FUZZ_CHECK(s == want && e == NULL && hostile_seen.event_calls == calls);
    return;
  }
  check_plugin_failure(s, answers);
  FUZZ_CHECK((s == HURRAY_OK) == (e != NULL));
  if (e != NULL) {
    events[slot] = e;
    event_flags[slot] = 0x80000000u; /* imported: never exported again */
  }
}

static void op_event_release(void) {
  int slot = hostile_u8(&in) % SLOTS;
  if (events[slot] == NULL) {
    return;
  }
  uint32_t live = hostile_seen.live_events;
  hurray_plugin_event_release(events[slot]);
  events[slot] = NULL;
  FUZZ_CHECK(hostile_seen.live_events == live - 1u);
}

/* The queries: the reason (PL-AVAIL-2), the descriptions (PL-DEV-4,
 * PL-VER-5), outstanding (PL-LIFE-2), stream waits. */
static void op_query(void) {
  if (plugin == NULL) {
    return;
  }
  uint8_t what = hostile_u8(&in);
  uint32_t count = hurray_plugin_device_count(plugin);
  if (what % 4u == 0u) {
    static char reason[4096 + 64];
    memset(reason, 0xAA, sizeof reason);
    size_t n = hurray_plugin_unavailable_reason(plugin, reason, sizeof reason);
    FUZZ_CHECK(n < 4096u && strlen(reason) == n); /* terminated in the host's 4096 (PL-AVAIL-2) */
    FUZZ_CHECK(count > 0u ? n == 0u : n > 0u);
    char tiny[4];
    size_t m = hurray_plugin_unavailable_reason(plugin, tiny, sizeof tiny);
    FUZZ_CHECK(strlen(tiny) == (m < 3u ? m : 3u)); /* snprintf-style */
  } else if (what % 4u == 1u) {
    hurray_plugin_device_info info;
    memset(&info, 0xAA, sizeof info);
    info.struct_size = 8u + what % 64u; /* an older caller's view (PL-VER-5) */
    uint32_t device = hostile_u8(&in) % (count + 1u);
    poison();
    hurray_status s = checked(hurray_plugin_describe_device(plugin, device, &info, &err));
    FUZZ_CHECK(s == (device < count ? HURRAY_OK : HURRAY_ERR_INVALID_ARGUMENT));
    FUZZ_CHECK(info.struct_size == 8u + what % 64u);
  } else if (what % 4u == 2u) {
    size_t b = 0;
    size_t e = 0;
    size_t total = hurray_plugin_outstanding(plugin, &b, &e);
    FUZZ_CHECK(b == hostile_seen.live_buffers && e == hostile_seen.live_events && total == b + e);
  } else {
    uint32_t device = hostile_u8(&in) % (count + 1u);
    uint32_t answers = hostile_seen.answers;
    poison();
    hurray_status s = checked(hurray_plugin_stream_wait(plugin, device, NULL, 0, &err));
    if (!hostile_offered(HOSTILE_WAIT_STREAM)) {
      FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED);
    } else if (device >= count) {
      FUZZ_CHECK(s == HURRAY_ERR_INVALID_ARGUMENT && err.index == 1u);
    } else {
      check_plugin_failure(s, answers);
    }
  }
}

/* PL-LOAD-7, PL-LIFE-1: out of the registry at once; shut down when the
 * last buffer and event are gone. */
static void op_unload(void) {
  if (plugin == NULL) {
    return;
  }
  hurray_plugin_unload(plugin);
  plugin = NULL;
  FUZZ_CHECK(hurray_plugin_registry_count(registry) == 0u);
  FUZZ_CHECK(hurray_plugin_registry_find(registry, hostile_table_config.device_tag) == NULL);
  bool live = hostile_seen.live_buffers + hostile_seen.live_events > 0u;
  FUZZ_CHECK(hostile_seen.shutdowns == (live ? 0u : 1u));
}

/* PL-REG-1: a second plugin for a served tag is refused before init. */
static void op_load_again(void) {
  if (plugin == NULL) {
    return;
  }
  uint32_t inits = hostile_seen.inits;
  hurray_plugin *second = NULL;
  poison();
  hurray_status s =
      checked(hurray_plugin_load_linked(registry, LINKED_NAME "-2", hostile_plugin_entry, 0,
                                        &second, &err));
  FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_DUPLICATE_TAG && second == NULL);
  FUZZ_CHECK(err.value == hostile_table_config.device_tag && hostile_seen.inits == inits);
  FUZZ_CHECK(hurray_plugin_registry_count(registry) == 1u);
}

/* PL-REG-1..3: what the registry says of its one plugin. */
static void op_registry(void) {
  size_t count = hurray_plugin_registry_count(registry);
  FUZZ_CHECK(count == (plugin != NULL ? 1u : 0u));
  FUZZ_CHECK(hurray_plugin_registry_at(registry, 0) == plugin);
  FUZZ_CHECK(hurray_plugin_registry_at(registry, 1) == NULL);
  FUZZ_CHECK(hurray_plugin_registry_find(registry, hostile_table_config.device_tag) == plugin);
  if (plugin != NULL) {
    FUZZ_CHECK(strcmp(hurray_plugin_name(plugin), hostile_table_config.name) == 0);
    FUZZ_CHECK(strcmp(hurray_plugin_path(plugin), LINKED_NAME) == 0);
    FUZZ_CHECK(hurray_plugin_abi_version(plugin) == hostile_table_config.abi_version);
    FUZZ_CHECK(hurray_plugin_serves_tag(plugin) == HURRAY_TRUE);
    FUZZ_CHECK(strcmp(hurray_plugin_version(plugin), hostile_table_config.version) == 0);
  }
}

/* The table from the header bytes. */
static void configure(void) {
  hostile_config *c = &hostile_table_config;
  uint8_t size_pick = hostile_u8(&in);
  uint16_t optional = hostile_u16(&in);
  uint8_t faults = hostile_u8(&in);
  uint8_t tag = hostile_u8(&in);
  hostile_config_default(c, tag < 0x80u ? (hurray_device_tag)(tag % 9u) : tag);
  switch (size_pick % 8u) {
    case 1: c->struct_size = HURRAY_PLUGIN_TABLE_SIZE_1_0; break;
    case 2: c->struct_size = HURRAY_PLUGIN_TABLE_SIZE_1_1_MEMORY; break;
    case 3: c->struct_size = HURRAY_PLUGIN_TABLE_MIN_SIZE; break;
    case 4: /* anywhere from the minimum to the whole table: inside entries too */
      c->struct_size = HURRAY_PLUGIN_TABLE_MIN_SIZE +
                       size_pick % (sizeof(hurray_plugin_table) - HURRAY_PLUGIN_TABLE_MIN_SIZE);
      break;
    case 5: c->struct_size = sizeof(hurray_plugin_table) + 16u; break;
    case 6: c->struct_size = size_pick % HURRAY_PLUGIN_TABLE_MIN_SIZE; break;
    default: break;
  }
  if (c->struct_size <= HURRAY_PLUGIN_TABLE_SIZE_1_0) {
    c->abi_version = HURRAY_PLUGIN_ABI_MAKE(1u, 0u);
  }
  c->optional = (optional ^ 0xFFFFu) & HOSTILE_ALL_OPTIONAL;
  c->decline = (faults & 0x01u) != 0u;
  c->name_null = (faults & 0x0Fu) == 0x02u;
  c->version_null = (faults & 0x0Fu) == 0x04u;
  if ((faults & 0x0Fu) == 0x06u) c->reserved_byte = 1u;
  if ((faults & 0x0Fu) == 0x08u) c->abi_version = HURRAY_PLUGIN_ABI_MAKE(2u, 0u);
  if ((faults & 0x0Fu) == 0x0Au) c->required_null = 1u << (faults >> 5);
  if ((faults & 0x0Fu) == 0x0Cu) snprintf(c->name, sizeof c->name, "Hostile Name");
  if ((faults & 0x0Fu) == 0x0Eu) {
    memset(c->version, 'v', 35);
    c->version[35] = '\0';
  }
}

/* PL-LOAD-5, PL-LOAD-6, PL-DEV-1..5: the load as the rules decide it. */
static void load(void) {
  uint32_t declared = hostile_table_config.struct_size;
  poison();
  hurray_status s = checked(
      hurray_plugin_load_linked(registry, LINKED_NAME, hostile_plugin_entry, 0, &plugin, &err));
  if (s == HURRAY_OK) {
    FUZZ_CHECK(plugin != NULL && hurray_plugin_registry_count(registry) == 1u);
    FUZZ_CHECK(hostile_seen.inits == 1u && hostile_seen.shutdowns == 0u);
    FUZZ_CHECK(!hostile_seen.invalid_description && hostile_seen.count_answered <= 256u);
    FUZZ_CHECK(hurray_plugin_device_count(plugin) == hostile_seen.count_answered);
    FUZZ_CHECK(hurray_plugin_device_tag(plugin) == hostile_table_config.device_tag);
    FUZZ_CHECK(hurray_plugin_supports_events(plugin) ==
               (hostile_offered(HOSTILE_CREATE_EVENT) ? HURRAY_TRUE : HURRAY_FALSE));
    return;
  }
  FUZZ_CHECK(plugin == NULL && hurray_plugin_registry_count(registry) == 0u);
  FUZZ_CHECK(strstr(err.detail, LINKED_NAME) != NULL); /* PL-LOAD-6: names the plugin */
  FUZZ_CHECK(hostile_seen.shutdowns == hostile_seen.inits); /* nothing left initialised */
  if (hostile_table_config.decline) {
    FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_ABI_MISMATCH);
    return;
  }
  if (hostile_seen.inits == 0u && hostile_seen.answers == 0u) {
    /* Refused on the table: the verdict of the pure validation. */
    hurray_plugin_table out;
    out.struct_size = sizeof out;
    size_t readable = declared < sizeof out ? (declared < 8u ? 8u : declared) : sizeof out;
    hurray_error v;
    const hurray_plugin_table *t = hostile_plugin_entry(HURRAY_PLUGIN_ABI_VERSION);
    hurray_status want = hurray_plugin_table_validate(t, readable, HURRAY_PLUGIN_ABI_VERSION, &out, &v);
    if (want == HURRAY_OK) {
      want = hurray_plugin_table_check_strings(&out, &v);
    }
    FUZZ_CHECK(want == s && want != HURRAY_OK);
    return;
  }
  if (hostile_seen.last_status != HURRAY_OK) {
    FUZZ_CHECK(s == hostile_mapped(hostile_seen.last_status));
    return;
  }
  FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_INVALID);
  FUZZ_CHECK(hostile_seen.invalid_description || hostile_seen.count_answered > 256u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fds_before = fuzz_count_fds();
  in.data = data;
  in.size = size;
  in.at = 0;
  hostile_reset();
  hostile_set_source(&in);
  memset(buffers, 0, sizeof buffers);
  memset(buffer_live, 0, sizeof buffer_live);
  memset(events, 0, sizeof events);
  plugin = NULL;
  configure();
  FUZZ_CHECK(hurray_plugin_registry_create(&registry, NULL) == HURRAY_OK);
  load();
  bool loaded = plugin != NULL;
  for (int ops = 0; loaded && ops < 96 && in.at < in.size; ops++) {
    switch (hostile_u8(&in) % 19u) {
      case 0: case 1: op_allocate(); break;
      case 2: op_import(); break;
      case 3: op_release(); break;
      case 4: op_copy(true); break;
      case 5: op_copy(false); break;
      case 6: op_export(); break;
      case 7: op_event_create(); break;
      case 8: op_event_use(); break;
      case 9: op_event_native(); break;
      case 10: op_event_export(); break;
      case 11: op_event_import(); break;
      case 12: op_event_release(); break;
      case 13: op_query(); break;
      case 14: op_load_again(); break;
      case 15: op_unload(); break;
      case 16: hostile_files_op(&in); break;
      case 17: op_registry(); break;
      default: /* a careless caller (fuzz/hostile_misuse.c) */
        hostile_misuse_op(&in, plugin, buffer_live[0] ? buffers[0] : NULL, events[0]);
        break;
    }
  }
  /* Whatever is left: released after the registry has let go of the
   * plugin, so the last release shuts it down (PL-LIFE-1). */
  hurray_plugin_registry_destroy(registry);
  registry = NULL;
  plugin = NULL;
  for (int i = 0; i < SLOTS; i++) {
    if (buffer_live[i]) {
      FUZZ_CHECK(hostile_seen.shutdowns == 0u);
      hurray_plugin_buffer_free(buffers[i]);
    }
    if (events[i] != NULL) {
      FUZZ_CHECK(hostile_seen.shutdowns == 0u);
      hurray_plugin_event_release(events[i]);
    }
  }
  FUZZ_CHECK(hostile_seen.live_buffers == 0u && hostile_seen.live_events == 0u);
  FUZZ_CHECK(hostile_seen.shutdowns == hostile_seen.inits && hostile_seen.inits <= 1u);
  hostile_set_source(NULL);
  hostile_forget_table();
  FUZZ_CHECK(fuzz_count_fds() == fds_before);
  return 0;
}

FUZZ_ORACLE_END
