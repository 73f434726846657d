/*
 * The plugin_host harness's buffer operations (fuzz/fuzz_plugin_host.c):
 * allocate, import, release, the copies and export, each checked against
 * the rules recomputed here (PL-ALLOC-1, PL-ALLOC-4, PL-ALLOC-5,
 * PL-IPC-1..3, PL-COPY-2, PL-LIFE-1..3).
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

#include "fault_seam.h"
#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/plugin.h"
#include "plugin_host_harness.h"
#include "plugin_internal.h"

FUZZ_ORACLE_BEGIN

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
  if (hurray_plugin_describe_device(host_plugin, device, info, &e) != HURRAY_OK) {
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
  bool basis =
      (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST && a->host_address) ||
      (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE && a->device_address != 0u) ||
      a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  return basis && !(host_class && a->host_address == NULL);
}

static int free_slot(void) {
  for (int i = 0; i < SLOTS; i++) {
    if (!host_buffer_live[i]) {
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
  bool ok =
      answer_acceptable(&hostile_seen.last_allocation, device, size, alignment, c, host_class);
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
  FUZZ_CHECK(hurray_plugin_buffer_plugin(got) == host_plugin);
  host_buffers[slot] = got;
  host_buffer_live[slot] = true;
}

void op_allocate(void) {
  int slot = free_slot();
  if (slot < 0 || host_plugin == NULL) {
    return;
  }
  uint32_t count = hurray_plugin_device_count(host_plugin);
  uint32_t device = hostile_u8(&host_input) % (count + 1u);
  uint8_t sz = hostile_u8(&host_input);
  uint64_t size = sz == 0xFFu ? (2u << 20) : sz == 0xFEu ? 0u : 1u + (uint64_t)sz * 37u;
  uint8_t al = hostile_u8(&host_input);
  uint32_t alignment = al >= 0xF0u ? (uint32_t)al * 3u : 1u << (al % 24u);
  hurray_memory_class c = hostile_u8(&host_input);
  if (c < 0xF0u) {
    c = (hurray_memory_class)(c % 4u);
  }
  uint32_t flags = hostile_u8(&host_input) % 3u; /* 0, EXPORTABLE, an undefined bit */
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
  host_poison();
  hurray_status s = host_checked(hurray_plugin_allocate_flags(host_plugin, device, size, alignment,
                                                              c, flags, &got, &host_err));
  if (want != HURRAY_OK) {
    FUZZ_CHECK(s == want && got == NULL && hostile_seen.allocate_calls == calls);
    if (want == HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO ||
        want == HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM) {
      FUZZ_CHECK(host_err.value == alignment && host_err.index == 0u);
    }
    return;
  }
  FUZZ_CHECK(hostile_seen.allocate_calls == calls + 1u);
  check_answer(s, got, answers, live, device, size, alignment, c,
               flags != 0u ? alignment : hostile_seen.last_allocation.alignment, slot);
}

void op_import(void) {
  int slot = free_slot();
  if (slot < 0 || host_plugin == NULL) {
    return;
  }
  uint32_t count = hurray_plugin_device_count(host_plugin);
  uint32_t device = hostile_u8(&host_input) % (count + 1u);
  uint8_t m = hostile_u8(&host_input);
  hurray_plugin_ipc_memory mem;
  memset(&mem, 0, sizeof mem);
  mem.struct_size = sizeof mem;
  mem.kind = (m & 1u) != 0u ? HURRAY_PLUGIN_IPC_MEMORY_HANDLE : HURRAY_PLUGIN_IPC_MEMORY_FD;
  mem.fd = -1;
  mem.handle_size = mem.kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE ? 64u : 0u;
  mem.byte_size = 1u + (uint64_t)hostile_u8(&host_input) * 61u;
  mem.segment_size = mem.byte_size + 4096u;
  mem.offset = 4096u;
  mem.alignment = 64u << (hostile_u8(&host_input) % 8u);
  mem.device_tag = hostile_table_config.device_tag;
  hurray_plugin_device_info info;
  info.struct_size = sizeof info;
  uint8_t pick = hostile_u8(&host_input);
  if (device < count &&
      hurray_plugin_describe_device(host_plugin, device, &info, NULL) == HURRAY_OK) {
    mem.memory_class = info.memory_classes[pick % info.memory_class_count].memory_class;
  }
  switch ((m >> 1) % 12u) {
    case 1: mem.struct_size = 8u; break;
    case 2: mem.device_tag ^= 0x01u; break;
    case 3: mem.kind = 9u; break;
    case 4: mem.reserved[1] = 1u; break;
    case 5: mem.offset = mem.segment_size; break;
    case 6:
      mem.byte_size = UINT64_MAX;
      mem.offset = 8u;
      break;
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
      fault_hold(); /* the caller's descriptor: no fault of the plugin's */
      mem.fd = memfd_create("hostile-import", MFD_CLOEXEC);
      FUZZ_CHECK(mem.fd >= 0 && ftruncate(mem.fd, (off_t)((m & 0x20u) != 0u ? 64u : 65536u)) == 0);
      fault_release();
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
  if (mem.device_tag != hostile_table_config.device_tag)
    allowed[n++] = HURRAY_ERR_DEVICE_TAG_MISMATCH;
  if (mem.kind > 2u || mem.kind == 0u || mem.reserved[1] != 0u)
    allowed[n++] = HURRAY_ERR_INVALID_ARGUMENT;
  if (mem.offset > mem.segment_size || mem.byte_size > mem.segment_size - mem.offset)
    allowed[n++] = HURRAY_ERR_IPC_BAD_SEGMENT;
  if (!hostile_offered(HOSTILE_IMPORT_MEMORY)) allowed[n++] = HURRAY_ERR_UNSUPPORTED;
  if (device >= count || mem.byte_size == 0u) allowed[n++] = HURRAY_ERR_INVALID_ARGUMENT;
  if (!power_of_two(mem.alignment))
    allowed[n++] = HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO;
  else if (mem.alignment < 64u)
    allowed[n++] = HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM;
  if (ci == NULL) allowed[n++] = HURRAY_ERR_UNSUPPORTED;
  uint32_t calls = hostile_seen.import_calls;
  uint32_t answers = hostile_seen.answers;
  uint32_t live = hostile_seen.live_buffers;
  hurray_plugin_buffer *got = NULL;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_import(host_plugin, device, &mem, &got, &host_err));
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

void op_release(void) {
  int slot = hostile_u8(&host_input) % SLOTS;
  if (host_buffers[slot] == NULL) {
    return;
  }
  uint32_t live = hostile_seen.live_buffers;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_buffer_release(host_buffers[slot], &host_err));
  if (host_buffer_live[slot]) {
    FUZZ_CHECK(s == HURRAY_OK && hostile_seen.live_buffers == live - 1u);
    host_buffer_live[slot] = false;
  } else {
    /* PL-LIFE-3: a second release changes nothing and calls nothing. */
    FUZZ_CHECK(s == HURRAY_ERR_USE_AFTER_DESTROY && hostile_seen.live_buffers == live);
    FUZZ_CHECK(hurray_plugin_buffer_handle(host_buffers[slot]) == NULL);
  }
}

/* PL-COPY-2, PL-LIFE-3: the range first, 0 bytes never reach the plugin. */
void op_copy(bool write) {
  int slot = hostile_u8(&host_input) % SLOTS;
  if (host_buffers[slot] == NULL) {
    return;
  }
  uint64_t offset = hostile_u16(&host_input);
  uint64_t bytes = hostile_u16(&host_input) % 2048u;
  if ((offset & 0x8000u) != 0u) {
    offset = UINT64_MAX - (offset & 0xFFu); /* overflowing ranges */
  }
  static uint8_t host[2048];
  memset(host, 0x3C, sizeof host);
  uint32_t calls = hostile_seen.copy_calls;
  uint32_t answers = hostile_seen.answers;
  const hurray_buffer_handle *h = hurray_plugin_buffer_handle(host_buffers[slot]);
  uint64_t size = h != NULL ? h->byte_size : 0u;
  host_poison();
  hurray_status s = host_checked(
      write ? hurray_plugin_buffer_write(host_buffers[slot], offset, host, bytes, &host_err)
            : hurray_plugin_buffer_read(host_buffers[slot], offset, host, bytes, &host_err));
  if (!host_buffer_live[slot]) {
    FUZZ_CHECK(s == HURRAY_ERR_USE_AFTER_DESTROY && hostile_seen.copy_calls == calls);
  } else if (offset > size || bytes > size - offset) {
    FUZZ_CHECK(s == HURRAY_ERR_INVALID_ARGUMENT && host_err.expected == size &&
               host_err.index == 1u);
    FUZZ_CHECK(hostile_seen.copy_calls == calls);
  } else if (bytes == 0u) {
    FUZZ_CHECK(s == HURRAY_OK && hostile_seen.copy_calls == calls);
  } else {
    FUZZ_CHECK(hostile_seen.copy_calls == calls + 1u);
    FUZZ_CHECK(s == HURRAY_OK || hostile_seen.last_status != HURRAY_OK);
    check_plugin_failure(s, answers);
  }
}

static bool fd_open(int fd) {
  fault_hold();
  bool open = fd >= 0 && fcntl(fd, F_GETFD) != -1;
  fault_release();
  return open;
}

/* PL-IPC-2: the host decides what is exported and checks the answer; no
 * descriptor stays open on failure. */
void op_export(void) {
  int slot = hostile_u8(&host_input) % SLOTS;
  if (host_buffers[slot] == NULL) {
    return;
  }
  hurray_plugin_ipc_memory out;
  memset(&out, 0xAB, sizeof out);
  out.struct_size = sizeof out;
  hurray_plugin_ipc_memory untouched = out;
  const hurray_plugin_buffer *b = host_buffers[slot];
  const hurray_buffer_handle *h = hurray_plugin_buffer_handle(b);
  uint64_t size = h != NULL ? h->byte_size : 0u;
  uint32_t answers = hostile_seen.answers;
  hostile_seen.last_exported_fd = -1;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_buffer_export(b, &out, &host_err));
  int given = hostile_seen.last_exported_fd;
  if (!host_buffer_live[slot]) {
    FUZZ_CHECK(s == HURRAY_ERR_USE_AFTER_DESTROY);
    return;
  }
  if (hostile_seen.answers == answers) {
    FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED); /* no entry, or not allocated exportable */
    return;
  }
  check_plugin_failure(s, answers);
  if (s != HURRAY_OK) {
    FUZZ_CHECK(!fd_open(given));                           /* no descriptor left open */
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

FUZZ_ORACLE_END
