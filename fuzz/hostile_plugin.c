/*
 * The fuzz-driven plugin (fuzz/hostile_plugin.h). Every entry reads its
 * answer from the byte stream: see answer() for the status and error, and
 * each entry for how its out-struct departs from a correct answer.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1 /* memfd_create */

#include "hostile_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hurray/plugin_support.h"

FUZZ_ORACLE_BEGIN

hostile_config hostile_table_config;
hostile_record hostile_seen;

static hostile_source *source;
static hurray_plugin_table *table_block; /* the entry's table, exactly struct_size bytes */
static char *name_block;
static char *version_block;
static int state_marker; /* what init hands the host as its state */
/* What init found of its "runtime" (PL-AVAIL-1), as a real plugin would:
 * libm stands in for a vendor library, a name nobody has for a missing one. */
static void *runtime;
static char runtime_reason[PLUGIN_REASON_SIZE];
static double (*runtime_cos)(double);
static void (*runtime_missing)(void);

/* Larger requests are refused as OUT_OF_MEMORY: the fuzzer's memory is small. */
#define HOSTILE_MAX_BYTES (1u << 20)

uint8_t hostile_u8(hostile_source *s) {
  if (s == NULL || s->at >= s->size) {
    return 0;
  }
  return s->data[s->at++];
}

uint16_t hostile_u16(hostile_source *s) {
  uint16_t lo = hostile_u8(s);
  return (uint16_t)(lo | (uint16_t)(hostile_u8(s) << 8));
}

uint32_t hostile_u32(hostile_source *s) {
  uint32_t lo = hostile_u16(s);
  return lo | ((uint32_t)hostile_u16(s) << 16);
}

uint64_t hostile_u64(hostile_source *s) {
  uint64_t lo = hostile_u32(s);
  return lo | ((uint64_t)hostile_u32(s) << 32);
}

void hostile_set_source(hostile_source *s) { source = s; }

void hostile_reset(void) {
  memset(&hostile_seen, 0, sizeof hostile_seen);
  hostile_seen.last_exported_fd = -1;
}

void hostile_forget_table(void) {
  free(table_block);
  free(name_block);
  free(version_block);
  table_block = NULL;
  name_block = NULL;
  version_block = NULL;
}

hurray_status hostile_mapped(hurray_status returned) {
  return (uint32_t)returned >= (uint32_t)HURRAY_STATUS_COUNT ? HURRAY_ERR_DEVICE_ERROR : returned;
}

static const size_t optional_offsets[HOSTILE_OPTIONAL_COUNT] = {
    offsetof(hurray_plugin_table, unavailable_reason),
    offsetof(hurray_plugin_table, create_event),
    offsetof(hurray_plugin_table, record_event),
    offsetof(hurray_plugin_table, wait_event),
    offsetof(hurray_plugin_table, release_event),
    offsetof(hurray_plugin_table, wait_stream),
    offsetof(hurray_plugin_table, stream_wait_event),
    offsetof(hurray_plugin_table, native_event),
    offsetof(hurray_plugin_table, export_memory),
    offsetof(hurray_plugin_table, import_memory),
    offsetof(hurray_plugin_table, create_event_flags),
    offsetof(hurray_plugin_table, export_event),
    offsetof(hurray_plugin_table, import_event),
};

bool hostile_offered(unsigned which) {
  const hostile_config *c = &hostile_table_config;
  size_t known = c->struct_size < sizeof(hurray_plugin_table) ? c->struct_size
                                                              : sizeof(hurray_plugin_table);
  return (c->optional & (1u << which)) != 0u &&
         optional_offsets[which] + sizeof(void (*)(void)) <= known;
}

/* PL-TABLE-8: an entry the host must not call. */
#define OFFERED(which) FUZZ_CHECK(hostile_offered(which))

/* The status an entry returns and what it writes into the host's error:
 * byte bits 0-1: OK (0, 1), a defined failure (2), a value outside
 * hurray_status (3); bits 2-3: no reason, a reason, a detail without a
 * terminator, a reason with payload values. */
static hurray_status answer(hurray_error *err, const char *entry) {
  uint8_t b = hostile_u8(source);
  hurray_status status = HURRAY_OK;
  switch (b & 3u) {
    case 2:
      status = (hurray_status)(1u + hostile_u8(source) % ((unsigned)HURRAY_STATUS_COUNT - 1u));
      break;
    case 3:
      status = (b & 0x80u) != 0u ? (hurray_status)-1
                                 : (hurray_status)((unsigned)HURRAY_STATUS_COUNT + hostile_u8(source));
      break;
    default:
      break;
  }
  unsigned mode = (b >> 2) & 3u;
  if (status != HURRAY_OK) {
    switch (mode) {
      case 1:
        (void)plugin_fail(err, status, hostile_u8(source), 0, "hostile: %s: vendorCall: VENDOR_ERROR (%d)",
                          entry, (int)status);
        break;
      case 2:
        memset(err->detail, 'u', sizeof err->detail);
        break;
      case 3:
        err->status = (hurray_status)hostile_u8(source);
        err->value = hostile_u64(source);
        err->expected = hostile_u64(source);
        err->index = hostile_u8(source);
        snprintf(err->detail, sizeof err->detail, "%s: reason with values", entry);
        break;
      default:
        break;
    }
  }
  hostile_seen.last_status = status;
  hostile_seen.last_detail_given = status != HURRAY_OK && mode != 0u;
  hostile_seen.answers++;
  return status;
}

/* A failure the plugin decides after answer() said OK (its own limits). */
static hurray_status fail_now(hurray_status status, bool detail_given) {
  hostile_seen.last_status = status;
  hostile_seen.last_detail_given = detail_given;
  return status;
}

/* ---------------------------------------------------------------------- */
/* Lifetime and devices                                                   */
/* ---------------------------------------------------------------------- */

static hurray_status h_init(void **out_state, hurray_error *err) {
  FUZZ_CHECK(hostile_seen.inits == hostile_seen.shutdowns); /* PL-CALL-2: once per load */
  hurray_status status = answer(err, "init");
  if (status == HURRAY_OK) {
    /* PL-BUILD-1, PL-AVAIL-1: the runtime is opened with dlopen; a missing
     * one or a missing required symbol is no load failure, only a reason. */
    uint8_t how = hostile_u8(source);
    static const char *const names[] = {"libhurray-hostile-runtime.so.1", "libm.so.6"};
    const char *opened = NULL;
    runtime_reason[0] = '\0';
    /* The missing name then libm, the missing name alone, or libm alone. */
    size_t first = how % 3u == 2u ? 1u : 0u;
    size_t tried = how % 3u == 0u ? 2u : 1u;
    runtime = plugin_open_runtime("HURRAY_HOSTILE_LIBRARY", names + first, tried, 0, &opened,
                                  runtime_reason, sizeof runtime_reason);
    if (runtime != NULL) {
      plugin_symbol symbols[] = {
          {"cos", &runtime_cos, HURRAY_TRUE},
          {"hurray_hostile_no_such_symbol", &runtime_missing,
           (how & 2u) != 0u ? HURRAY_TRUE : HURRAY_FALSE},
      };
      if (!plugin_resolve_symbols(runtime, opened, symbols, 2, runtime_reason,
                                  sizeof runtime_reason)) {
        dlclose(runtime);
        runtime = NULL;
      }
    }
    *out_state = &state_marker;
    hostile_seen.inits++;
  }
  return status;
}

static void h_shutdown(void *state) {
  FUZZ_CHECK(state == &state_marker);
  FUZZ_CHECK(hostile_seen.shutdowns < hostile_seen.inits);
  /* PL-LIFE-1: after every buffer and event of the plugin was released. */
  FUZZ_CHECK(hostile_seen.live_buffers == 0u && hostile_seen.live_events == 0u);
  if (runtime != NULL) {
    dlclose(runtime);
    runtime = NULL;
  }
  hostile_seen.shutdowns++;
}

static hurray_status h_count(void *state, uint32_t *out, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  hurray_status status = answer(err, "count_devices");
  uint8_t b = hostile_u8(source);
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
static hurray_status h_describe(void *state, uint32_t index, hurray_plugin_device_info *out,
                                hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  FUZZ_CHECK(index < hostile_seen.count_answered);
  hurray_status status = answer(err, "describe_device");
  uint8_t v = hostile_u8(source);
  uint8_t m = hostile_u8(source);
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
    plugin_add_memory_class(&info, c, host_flag(tag, c, ((v >> i) & 1u) != 0u),
                            64u << ((v + i) % 15u)); /* up to 1 MiB */
  }
  if ((v & 0x80u) != 0u && hostile_offered(HOSTILE_EXPORT_EVENT)) {
    info.ipc_capabilities = HURRAY_IPC_EXPORTS_EVENTS;
  }
  bool invalid = count == 0u;
  switch (m % 24u) {
    case 16: info.name[sizeof info.name - 1u] = 'x'; memset(info.name, 'n', sizeof info.name); invalid = true; break;
    case 17: info.ipc_capabilities |= 4u; invalid = true; break;
    case 18: info.reserved = 1u; invalid = true; break;
    case 19: info.memory_class_count = (m & 0x80u) != 0u ? 9u : 0u; invalid = true; break;
    case 20:
      if (count > 0u && count < 8u) {
        info.memory_classes[count] = info.memory_classes[0]; /* the same class twice */
        info.memory_class_count = (uint32_t)count + 1u;
        invalid = true;
      }
      break;
    case 21: info.memory_classes[0].max_alignment = (m & 0x80u) != 0u ? 32u : 96u; invalid = true; break;
    case 22: info.memory_classes[0].memory_class = 0x09u; invalid = true; break; /* reserved class */
    case 23:
      /* PL-DEV-3: event export claimed; refused without export_event. */
      info.ipc_capabilities |= HURRAY_IPC_EXPORTS_EVENTS;
      invalid = invalid || !hostile_offered(HOSTILE_EXPORT_EVENT);
      break;
    default:
      break;
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

static size_t h_reason(void *state, char *buf, size_t cap) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_UNAVAILABLE_REASON);
  uint8_t b = hostile_u8(source);
  memset(buf, 0, cap);
  switch (b % 4u) {
    case 1: memset(buf, 'r', cap); break; /* unterminated (PL-AVAIL-2) */
    case 2: /* what init found, as a plugin's copy-out writes it */
      (void)plugin_copy_reason(buf, cap, runtime_reason[0] != '\0' ? runtime_reason : "no reason");
      break;
    case 3: if (cap > 0u) { buf[0] = (char)hostile_u8(source); } break;
    default: break;
  }
  return (size_t)hostile_u64(source); /* a length the host must not trust */
}

/* ---------------------------------------------------------------------- */
/* Memory                                                                 */
/* ---------------------------------------------------------------------- */

#define BLOCK_MAGIC 0x484F5354u

typedef struct hostile_block {
  uint32_t magic;
  uint32_t exportable;
  void *base;
  size_t size;
  plugin_shared_memory shared; /* fd -1: heap memory at base */
} hostile_block;

/* What allocate and import_memory write: a correct answer for memory at
 * `base`, then at most one field off, chosen by byte `m`. */
static void write_allocation(hurray_plugin_allocation *out, hostile_block *block,
                             uint32_t device_index, uint32_t alignment,
                             hurray_memory_class memory_class, bool host_accessible) {
  hurray_device_tag tag = hostile_table_config.device_tag;
  uint8_t v = hostile_u8(source);
  uint8_t m = hostile_u8(source);
  hurray_plugin_allocation a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  /* PL-ALLOC-3: what the address shows, as a plugin measures it. */
  a.alignment = plugin_alignment_capped((uintptr_t)block->base, HURRAY_PLUGIN_MAX_ALIGNMENT);
  if ((v & 4u) != 0u && plugin_alignment_of_address((uintptr_t)block->base) >= alignment) {
    a.alignment = alignment; /* or just what was asked, which the address also shows */
  }
  a.byte_size = block->size;
  a.address = block->base;
  bool host = host_accessible || tag == HURRAY_DEVICE_CPU || (v & 1u) != 0u;
  a.host_address = host ? block->base : NULL;
  a.device_address = (v & 2u) != 0u ? (uint64_t)(uintptr_t)block->base : 0u;
  a.alignment_basis = host ? HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST
                           : a.device_address != 0u ? HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE
                                                    : HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  a.plugin_data = block;
  a.device_index = device_index;
  a.memory_class = memory_class;
  unsigned char *base = block->base;
  switch (m % 20u) {
    case 10: a.alignment = hostile_u32(source); break;
    case 11: a.alignment = alignment * 2u; break; /* more than the address may show */
    case 12: a.byte_size = block->size - 1u; break;
    case 13: a.memory_class = (hurray_memory_class)(memory_class ^ 1u); break;
    case 14: a.device_index = device_index + 1u; break;
    case 15: a.address = NULL; break;
    case 16: a.address = base + (hostile_u8(source) | 1u); break; /* PL-ALLOC-4, HO-CHECK-3 */
    case 17: a.host_address = (hostile_u8(source) & 1u) != 0u ? NULL : base + 8; break;
    case 18: a.device_address = (uint64_t)(uintptr_t)base + hostile_u8(source); break;
    case 19: a.alignment_basis = (hurray_plugin_alignment_basis)(hostile_u8(source) % 4u); break;
    default: break;
  }
  hurray_plugin_copy_out(out, &a, sizeof a);
  hostile_seen.last_allocation = a;
}

/* Memory of `size` bytes at `alignment`, or OUT_OF_MEMORY: heap memory,
 * or (shared) a memfd mapped as plugin_support makes it (PL-IPC-1). */
static hurray_status make_block(uint64_t size, uint32_t alignment, bool shared,
                                hostile_block **out, hurray_error *err) {
  if (size > HOSTILE_MAX_BYTES || alignment > HOSTILE_MAX_BYTES) {
    (void)plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, size, HOSTILE_MAX_BYTES,
                      "hostile: %llu bytes at %u: too much for a fuzzer",
                      (unsigned long long)size, (unsigned)alignment);
    return fail_now(HURRAY_ERR_OUT_OF_MEMORY, true);
  }
  hostile_block *block = calloc(1, sizeof *block);
  if (block == NULL) {
    return fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
  }
  block->shared.fd = -1;
  void *base = NULL;
  if (shared) {
    hurray_status status = plugin_shared_create("hostile", size, alignment, &block->shared, err);
    if (status != HURRAY_OK) {
      free(block);
      return fail_now(status, true);
    }
    base = block->shared.address;
  } else if (posix_memalign(&base, alignment < 64u ? 64u : alignment,
                            size > 0u ? (size_t)size : 1u) != 0) {
    free(block);
    return fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
  }
  memset(base, 0x5A, (size_t)size);
  block->magic = BLOCK_MAGIC;
  block->base = base;
  block->size = (size_t)size;
  *out = block;
  return HURRAY_OK;
}

static void drop_block(hostile_block *block) {
  block->magic = 0;
  if (block->shared.fd >= 0 || block->shared.address != NULL) {
    plugin_shared_release(&block->shared);
  } else {
    free(block->base);
  }
  free(block);
}

/* The block behind an allocation the host hands back: one this plugin made
 * and has not freed. */
static hostile_block *live_block(const hurray_plugin_allocation *a) {
  FUZZ_CHECK(a != NULL && a->plugin_data != NULL);
  hostile_block *block = a->plugin_data;
  FUZZ_CHECK(block->magic == BLOCK_MAGIC);
  return block;
}

static hurray_status h_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                uint32_t alignment, hurray_memory_class memory_class,
                                uint32_t flags, hurray_plugin_allocation *out, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  hostile_seen.allocate_calls++;
  /* PL-ALLOC-1, PL-IPC-1: what the host checked before calling. */
  FUZZ_CHECK(device_index < hostile_seen.count_answered);
  FUZZ_CHECK(byte_size > 0u);
  FUZZ_CHECK(alignment >= 64u && (alignment & (alignment - 1u)) == 0u);
  FUZZ_CHECK((flags & ~(uint32_t)HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) == 0u);
  FUZZ_CHECK(flags == 0u || hostile_offered(HOSTILE_EXPORT_MEMORY));
  hurray_status status = answer(err, "allocate");
  if (status != HURRAY_OK) {
    return status;
  }
  hostile_block *block = NULL;
  status = make_block(byte_size, alignment, flags != 0u, &block, err);
  if (status != HURRAY_OK) {
    return status;
  }
  block->exportable = flags;
  bool host = hostile_u8(source) & 1u;
  write_allocation(out, block, device_index, alignment, memory_class, host);
  hostile_seen.live_buffers++;
  return HURRAY_OK;
}

static void h_free(void *state, const hurray_plugin_allocation *a) {
  FUZZ_CHECK(state == &state_marker);
  FUZZ_CHECK(hostile_seen.live_buffers > 0u);
  drop_block(live_block(a));
  hostile_seen.live_buffers--;
}

static hurray_status h_to_device(void *state, const hurray_plugin_allocation *dst, uint64_t offset,
                                 const void *src, uint64_t bytes, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  hostile_block *block = live_block(dst);
  /* PL-COPY-2: never 0 bytes, never outside the buffer. */
  FUZZ_CHECK(bytes > 0u && offset <= block->size && bytes <= block->size - offset);
  hostile_seen.copy_calls++;
  memcpy((unsigned char *)block->base + offset, src, (size_t)bytes);
  return answer(err, "copy_to_device");
}

static hurray_status h_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                               uint64_t offset, uint64_t bytes, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  hostile_block *block = live_block(src);
  FUZZ_CHECK(bytes > 0u && offset <= block->size && bytes <= block->size - offset);
  hostile_seen.copy_calls++;
  memcpy(dst, (const unsigned char *)block->base + offset, (size_t)bytes);
  return answer(err, "copy_to_host");
}

static hurray_status h_export_memory(void *state, const hurray_plugin_allocation *allocation,
                                     hurray_plugin_ipc_memory *out, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_EXPORT_MEMORY);
  hostile_block *block = live_block(allocation);
  FUZZ_CHECK(block->exportable != 0u); /* PL-IPC-2: the host decides, not the plugin */
  FUZZ_CHECK(out->fd == -1);
  hurray_status status = answer(err, "export_memory");
  uint8_t m = hostile_u8(source);
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  memory.fd = -1;
  memory.segment_size = block->size + 64u;
  memory.offset = 64u;
  if ((m & 1u) != 0u) {
    memory.kind = HURRAY_PLUGIN_IPC_MEMORY_HANDLE;
    memory.handle_size = 1u + m % 64u;
  } else if (block->shared.fd >= 0) {
    /* PL-IPC-2 as plugin_support does it: a new descriptor of the memfd. */
    hurray_status s = plugin_shared_export("hostile", &block->shared, &memory, err);
    if (s != HURRAY_OK) {
      return fail_now(s, true);
    }
    hostile_seen.last_exported_fd = memory.fd;
  } else {
    memory.kind = HURRAY_PLUGIN_IPC_MEMORY_FD;
    memory.fd = memfd_create("hostile-export", MFD_CLOEXEC); /* ours to hand out */
    hostile_seen.last_exported_fd = memory.fd;
  }
  switch ((m >> 1) % 10u) {
    case 5:
      /* A kind nobody defines: the descriptor, if any, is no longer one
       * the host could know to close, so the plugin keeps none open. */
      if (memory.fd >= 0) {
        close(memory.fd);
        hostile_seen.last_exported_fd = -1;
        memory.fd = -1;
      }
      memory.kind = 7u;
      break;
    case 6: memory.handle_size = memory.kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE ? 65u : 3u; break;
    case 7: memory.offset = memory.segment_size; break;
    case 8: memory.segment_size = hostile_u64(source); memory.offset = hostile_u64(source); break;
    case 9:
      if (memory.kind == HURRAY_PLUGIN_IPC_MEMORY_FD && memory.fd >= 0) {
        close(memory.fd); /* says FD but gives none */
        hostile_seen.last_exported_fd = -1;
        memory.fd = -7;
      }
      break;
    default: break;
  }
  hurray_plugin_copy_out(out, &memory, sizeof memory);
  return status;
}

static hurray_status h_import_memory(void *state, uint32_t device_index,
                                     const hurray_plugin_ipc_memory *in,
                                     hurray_plugin_allocation *out, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_IMPORT_MEMORY);
  hostile_seen.import_calls++;
  /* PL-IPC-3: what the host checked before calling. */
  FUZZ_CHECK(device_index < hostile_seen.count_answered);
  FUZZ_CHECK(in->struct_size >= sizeof *in);
  FUZZ_CHECK(in->device_tag == hostile_table_config.device_tag);
  FUZZ_CHECK(in->kind == HURRAY_PLUGIN_IPC_MEMORY_FD || in->kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE);
  FUZZ_CHECK(in->reserved[0] == 0u && in->reserved[1] == 0u);
  FUZZ_CHECK(in->byte_size > 0u && in->offset <= in->segment_size &&
             in->byte_size <= in->segment_size - in->offset);
  FUZZ_CHECK(in->alignment >= 64u && (in->alignment & (in->alignment - 1u)) == 0u);
  hurray_status status = answer(err, "import_memory");
  if (status != HURRAY_OK) {
    return status;
  }
  hostile_block *block = NULL;
  if (in->kind == HURRAY_PLUGIN_IPC_MEMORY_FD && in->fd >= 0) {
    /* PL-IPC-3 as plugin_support does it: map the segment, or say why not. */
    block = calloc(1, sizeof *block);
    if (block == NULL) {
      return fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
    }
    status = plugin_shared_import("hostile", in, &block->shared, err);
    if (status != HURRAY_OK) {
      free(block);
      return fail_now(status, true);
    }
    block->magic = BLOCK_MAGIC;
    block->base = block->shared.address;
    block->size = (size_t)in->byte_size;
  } else {
    status = make_block(in->byte_size, in->alignment, false, &block, err);
    if (status != HURRAY_OK) {
      return status;
    }
  }
  bool host = hostile_u8(source) & 1u;
  write_allocation(out, block, device_index, in->alignment, in->memory_class, host);
  hostile_seen.live_buffers++;
  return HURRAY_OK;
}

/* ---------------------------------------------------------------------- */
/* Events                                                                 */
/* ---------------------------------------------------------------------- */

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
  hurray_status status = answer(err, entry);
  if (status != HURRAY_OK) {
    *out = (void *)(uintptr_t)0xDEAD; /* never to be used by the host */
    return status;
  }
  hostile_event *e = malloc(sizeof *e);
  if (e == NULL) {
    return fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
  }
  e->magic = EVENT_MAGIC;
  e->device_index = device_index;
  *out = e;
  hostile_seen.live_events++;
  return HURRAY_OK;
}

static hurray_status h_create_event(void *state, uint32_t device_index, void **out,
                                    hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_CREATE_EVENT);
  return new_event(device_index, out, err, "create_event");
}

static hurray_status h_create_event_flags(void *state, uint32_t device_index, uint32_t flags,
                                          void **out, hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_CREATE_EVENT_FLAGS);
  FUZZ_CHECK(flags == HURRAY_PLUGIN_EVENT_EXPORTABLE); /* flags 0 go to create_event */
  return new_event(device_index, out, err, "create_event_flags");
}

/* What every entry on a live event checks, then its answer. */
static hurray_status event_call(void *state, void *event, unsigned which, hurray_error *err,
                                const char *entry) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(which);
  live_event(event);
  return answer(err, entry);
}

static hurray_status h_record(void *state, void *event, void *stream, hurray_error *err) {
  (void)stream;
  return event_call(state, event, HOSTILE_RECORD_EVENT, err, "record_event");
}

static hurray_status h_wait(void *state, void *event, uint64_t timeout, hurray_error *err) {
  (void)timeout;
  return event_call(state, event, HOSTILE_WAIT_EVENT, err, "wait_event");
}

static void h_release(void *state, void *event) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_RELEASE_EVENT);
  hostile_event *e = live_event(event);
  FUZZ_CHECK(hostile_seen.live_events > 0u);
  e->magic = 0;
  free(e);
  hostile_seen.live_events--;
}

static hurray_status h_wait_stream(void *state, uint32_t device_index, void *stream,
                                   uint64_t timeout, hurray_error *err) {
  (void)stream;
  (void)timeout;
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_WAIT_STREAM);
  /* Never fails: the host checked the index (PL-CALL-1 as plugins write it). */
  FUZZ_CHECK(plugin_check_device("hostile", device_index, hostile_seen.count_answered, err) ==
             HURRAY_OK);
  return answer(err, "wait_stream");
}

static hurray_status h_stream_wait(void *state, void *stream, void *event, hurray_error *err) {
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

static hurray_status h_native(void *state, void *event, hurray_plugin_native_event *out,
                              hurray_error *err) {
  hurray_status status = event_call(state, event, HOSTILE_NATIVE_EVENT, err, "native_event");
  uint8_t m = hostile_u8(source);
  hurray_plugin_native_event native;
  memset(&native, 0, sizeof native);
  native.struct_size = sizeof native;
  native.native_type = native_type_for(hostile_table_config.device_tag);
  native.handle = (uint64_t)(uintptr_t)event;
  switch (m % 6u) {
    case 3: native.native_type = hostile_u32(source); break;
    case 4: native.handle = 0u; break;
    case 5: native.reserved = 0xFFFFFFFFu; native.device_index = 99u; break;
    default: break;
  }
  hurray_plugin_copy_out(out, &native, sizeof native);
  return status;
}

static hurray_status h_export_event(void *state, void *event, hurray_plugin_ipc_event *out,
                                    hurray_error *err) {
  hurray_status status = event_call(state, event, HOSTILE_EXPORT_EVENT, err, "export_event");
  uint8_t m = hostile_u8(source);
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  record.kind = HURRAY_PLUGIN_IPC_EVENT_HANDLE;
  record.handle_size = 1u + m % 64u;
  memset(record.handle, 0x77, sizeof record.handle);
  switch ((m >> 6) % 4u) {
    case 1: record.kind = hostile_u32(source); break;
    case 2: record.handle_size = (m & 1u) != 0u ? 0u : 65u; break;
    case 3: record.device_tag = 0xEEu; record.reserved[1] = 9u; break; /* the host rewrites them */
    default: break;
  }
  hurray_plugin_copy_out(out, &record, sizeof record);
  return status;
}

static hurray_status h_import_event(void *state, uint32_t device_index,
                                    const hurray_plugin_ipc_event *in, void **out,
                                    hurray_error *err) {
  FUZZ_CHECK(state == &state_marker);
  OFFERED(HOSTILE_IMPORT_EVENT);
  /* PL-IPC-9: what the host checked before calling. */
  FUZZ_CHECK(in->struct_size >= sizeof *in);
  FUZZ_CHECK(in->device_tag == hostile_table_config.device_tag);
  FUZZ_CHECK(in->kind == HURRAY_PLUGIN_IPC_EVENT_HANDLE);
  FUZZ_CHECK(in->handle_size >= 1u && in->handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE);
  FUZZ_CHECK(in->reserved[0] == 0u && in->reserved[1] == 0u && in->reserved[2] == 0u);
  return new_event(device_index, out, err, "import_event");
}

/* ---------------------------------------------------------------------- */
/* The table                                                              */
/* ---------------------------------------------------------------------- */

void hostile_config_default(hostile_config *config, hurray_device_tag tag) {
  memset(config, 0, sizeof *config);
  config->struct_size = sizeof(hurray_plugin_table);
  config->abi_version = HURRAY_PLUGIN_ABI_VERSION;
  config->device_tag = tag;
  config->optional = HOSTILE_ALL_OPTIONAL;
  snprintf(config->name, sizeof config->name, "hostile");
  snprintf(config->version, sizeof config->version, "6.6.6");
}

/* The table as a plugin built against `struct_size` bytes of header would
 * hold it: a heap block of exactly that size (ASan sees a read past it). */
const hurray_plugin_table *hostile_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  const hostile_config *c = &hostile_table_config;
  if (c->decline) {
    return NULL;
  }
  if (table_block != NULL) {
    return table_block; /* PL-ENTRY-2: valid and unchanged until unloaded */
  }
  name_block = strdup(c->name);
  version_block = strdup(c->version);
  hurray_plugin_table t;
  memset(&t, 0, sizeof t);
  t.struct_size = c->struct_size;
  t.abi_version = c->abi_version;
  t.name = c->name_null ? NULL : name_block;
  t.plugin_version = c->version_null ? NULL : version_block;
  t.device_tag = c->device_tag;
  t.reserved[0] = c->reserved_byte;
  t.init = (c->required_null & 0x01u) ? NULL : h_init;
  t.shutdown = (c->required_null & 0x02u) ? NULL : h_shutdown;
  t.count_devices = (c->required_null & 0x04u) ? NULL : h_count;
  t.describe_device = (c->required_null & 0x08u) ? NULL : h_describe;
  t.allocate = (c->required_null & 0x10u) ? NULL : h_allocate;
  t.free = (c->required_null & 0x20u) ? NULL : h_free;
  t.copy_to_device = (c->required_null & 0x40u) ? NULL : h_to_device;
  t.copy_to_host = (c->required_null & 0x80u) ? NULL : h_to_host;
#define SET(bit, field, fn) t.field = (c->optional & (1u << (bit))) != 0u ? fn : NULL
  SET(HOSTILE_UNAVAILABLE_REASON, unavailable_reason, h_reason);
  SET(HOSTILE_CREATE_EVENT, create_event, h_create_event);
  SET(HOSTILE_RECORD_EVENT, record_event, h_record);
  SET(HOSTILE_WAIT_EVENT, wait_event, h_wait);
  SET(HOSTILE_RELEASE_EVENT, release_event, h_release);
  SET(HOSTILE_WAIT_STREAM, wait_stream, h_wait_stream);
  SET(HOSTILE_STREAM_WAIT_EVENT, stream_wait_event, h_stream_wait);
  SET(HOSTILE_NATIVE_EVENT, native_event, h_native);
  SET(HOSTILE_EXPORT_MEMORY, export_memory, h_export_memory);
  SET(HOSTILE_IMPORT_MEMORY, import_memory, h_import_memory);
  SET(HOSTILE_CREATE_EVENT_FLAGS, create_event_flags, h_create_event_flags);
  SET(HOSTILE_EXPORT_EVENT, export_event, h_export_event);
  SET(HOSTILE_IMPORT_EVENT, import_event, h_import_event);
#undef SET
  size_t bytes = c->struct_size < 8u ? 8u : c->struct_size;
  table_block = malloc(bytes);
  if (table_block == NULL) {
    abort();
  }
  memset(table_block, 0xEE, bytes); /* past sizeof: later minors' fields */
  memcpy(table_block, &t, bytes < sizeof t ? bytes : sizeof t);
  return table_block;
}

FUZZ_ORACLE_END
