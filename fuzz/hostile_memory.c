/*
 * The hostile plugin's memory entries (fuzz/hostile_plugin.h): allocate,
 * free, the two copies, export_memory and import_memory, over blocks of
 * heap or shared memory the plugin keeps track of.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1 /* memfd_create */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "hostile_entries.h"
#include "hurray/plugin_support.h"

FUZZ_ORACLE_BEGIN

/* Larger requests are refused as OUT_OF_MEMORY: the fuzzer's memory is small. */
#define HOSTILE_MAX_BYTES (1u << 20)

#define BLOCK_MAGIC 0x484F5354u

typedef struct hostile_block {
  uint32_t magic;
  uint32_t exportable;
  void *base;
  size_t size;
  hurray_support_shared_memory shared; /* fd -1: heap memory at base */
} hostile_block;

/* What allocate and import_memory write: a correct answer for memory at
 * `base`, then at most one field off, chosen by byte `m`. */
static void write_allocation(hurray_plugin_allocation *out, hostile_block *block,
                             uint32_t device_index, uint32_t alignment,
                             hurray_memory_class memory_class, bool host_accessible) {
  hurray_device_tag tag = hostile_table_config.device_tag;
  uint8_t v = hostile_u8(hostile_stream);
  uint8_t m = hostile_u8(hostile_stream);
  hurray_plugin_allocation a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  /* PL-ALLOC-3: what the address shows, as a plugin measures it. */
  a.alignment =
      hurray_support_alignment_capped((uintptr_t)block->base, HURRAY_PLUGIN_MAX_ALIGNMENT);
  if ((v & 4u) != 0u && hurray_support_lowest_set_bit((uintptr_t)block->base) >= alignment) {
    a.alignment = alignment; /* or just what was asked, which the address also shows */
  }
  a.byte_size = block->size;
  a.address = block->base;
  bool host = host_accessible || tag == HURRAY_DEVICE_CPU || (v & 1u) != 0u;
  a.host_address = host ? block->base : NULL;
  a.device_address = (v & 2u) != 0u ? (uint64_t)(uintptr_t)block->base : 0u;
  a.alignment_basis = host                     ? HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST
                      : a.device_address != 0u ? HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE
                                               : HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  a.plugin_data = block;
  a.device_index = device_index;
  a.memory_class = memory_class;
  unsigned char *base = block->base;
  switch (m % 20u) {
    case 10: a.alignment = hostile_u32(hostile_stream); break;
    case 11: a.alignment = alignment * 2u; break; /* more than the address may show */
    case 12: a.byte_size = block->size - 1u; break;
    case 13: a.memory_class = (hurray_memory_class)(memory_class ^ 1u); break;
    case 14: a.device_index = device_index + 1u; break;
    case 15: a.address = NULL; break;
    case 16: /* PL-ALLOC-4, HO-CHECK-3 */
      a.address = base + (hostile_u8(hostile_stream) | 1u);
      break;
    case 17: a.host_address = (hostile_u8(hostile_stream) & 1u) != 0u ? NULL : base + 8; break;
    case 18: a.device_address = (uint64_t)(uintptr_t)base + hostile_u8(hostile_stream); break;
    case 19:
      a.alignment_basis = (hurray_plugin_alignment_basis)(hostile_u8(hostile_stream) % 4u);
      break;
    default: break;
  }
  hurray_plugin_copy_out(out, &a, sizeof a);
  hostile_seen.last_allocation = a;
}

/* Memory of `size` bytes at `alignment`, or OUT_OF_MEMORY: heap memory,
 * or (shared) a memfd mapped as plugin_support makes it (PL-IPC-1). */
static hurray_status make_block(uint64_t size, uint32_t alignment, bool shared, hostile_block **out,
                                hurray_error *err) {
  if (size > HOSTILE_MAX_BYTES || alignment > HOSTILE_MAX_BYTES) {
    (void)hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, size, HOSTILE_MAX_BYTES,
                                    "hostile: %llu bytes at %u: too much for a fuzzer",
                                    (unsigned long long)size, (unsigned)alignment);
    return hostile_fail_now(HURRAY_ERR_OUT_OF_MEMORY, true);
  }
  hostile_block *block = calloc(1, sizeof *block);
  if (block == NULL) {
    return hostile_fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
  }
  block->shared.fd = -1;
  void *base = NULL;
  if (shared) {
    hurray_status status =
        hurray_support_shared_create("hostile", size, alignment, &block->shared, err);
    if (status != HURRAY_OK) {
      free(block);
      return hostile_fail_now(status, true);
    }
    base = block->shared.address;
  } else if (posix_memalign(&base, alignment < 64u ? 64u : alignment,
                            size > 0u ? (size_t)size : 1u) != 0) {
    free(block);
    return hostile_fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
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
    hurray_support_shared_release(&block->shared);
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

hurray_status h_allocate(void *state, uint32_t device_index, uint64_t byte_size, uint32_t alignment,
                         hurray_memory_class memory_class, uint32_t flags,
                         hurray_plugin_allocation *out, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  hostile_seen.allocate_calls++;
  /* PL-ALLOC-1, PL-IPC-1: what the host checked before calling. */
  FUZZ_CHECK(device_index < hostile_seen.count_answered);
  FUZZ_CHECK(byte_size > 0u);
  FUZZ_CHECK(alignment >= 64u && (alignment & (alignment - 1u)) == 0u);
  FUZZ_CHECK((flags & ~(uint32_t)HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) == 0u);
  FUZZ_CHECK(flags == 0u || hostile_offered(HOSTILE_EXPORT_MEMORY));
  hurray_status status = hostile_answer(err, "allocate");
  if (status != HURRAY_OK) {
    return status;
  }
  hostile_block *block = NULL;
  status = make_block(byte_size, alignment, flags != 0u, &block, err);
  if (status != HURRAY_OK) {
    return status;
  }
  block->exportable = flags;
  bool host = hostile_u8(hostile_stream) & 1u;
  write_allocation(out, block, device_index, alignment, memory_class, host);
  hostile_seen.live_buffers++;
  return HURRAY_OK;
}

void h_free(void *state, const hurray_plugin_allocation *a) {
  FUZZ_CHECK(state == &hostile_state_marker);
  FUZZ_CHECK(hostile_seen.live_buffers > 0u);
  drop_block(live_block(a));
  hostile_seen.live_buffers--;
}

hurray_status h_to_device(void *state, const hurray_plugin_allocation *dst, uint64_t offset,
                          const void *src, uint64_t bytes, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  hostile_block *block = live_block(dst);
  /* PL-COPY-2: never 0 bytes, never outside the buffer. */
  FUZZ_CHECK(bytes > 0u && offset <= block->size && bytes <= block->size - offset);
  hostile_seen.copy_calls++;
  memcpy((unsigned char *)block->base + offset, src, (size_t)bytes);
  return hostile_answer(err, "copy_to_device");
}

hurray_status h_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                        uint64_t offset, uint64_t bytes, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  hostile_block *block = live_block(src);
  FUZZ_CHECK(bytes > 0u && offset <= block->size && bytes <= block->size - offset);
  hostile_seen.copy_calls++;
  memcpy(dst, (const unsigned char *)block->base + offset, (size_t)bytes);
  return hostile_answer(err, "copy_to_host");
}

hurray_status h_export_memory(void *state, const hurray_plugin_allocation *allocation,
                              hurray_plugin_ipc_memory *out, hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_EXPORT_MEMORY);
  hostile_block *block = live_block(allocation);
  FUZZ_CHECK(block->exportable != 0u); /* PL-IPC-2: the host decides, not the plugin */
  FUZZ_CHECK(out->fd == -1);
  hurray_status status = hostile_answer(err, "export_memory");
  uint8_t m = hostile_u8(hostile_stream);
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
    hurray_status s = hurray_support_shared_export("hostile", &block->shared, &memory, err);
    if (s != HURRAY_OK) {
      return hostile_fail_now(s, true);
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
    case 8:
      memory.segment_size = hostile_u64(hostile_stream);
      memory.offset = hostile_u64(hostile_stream);
      break;
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

hurray_status h_import_memory(void *state, uint32_t device_index,
                              const hurray_plugin_ipc_memory *in, hurray_plugin_allocation *out,
                              hurray_error *err) {
  FUZZ_CHECK(state == &hostile_state_marker);
  OFFERED(HOSTILE_IMPORT_MEMORY);
  hostile_seen.import_calls++;
  /* PL-IPC-3: what the host checked before calling. */
  FUZZ_CHECK(device_index < hostile_seen.count_answered);
  FUZZ_CHECK(in->struct_size >= sizeof *in);
  FUZZ_CHECK(in->device_tag == hostile_table_config.device_tag);
  FUZZ_CHECK(in->kind == HURRAY_PLUGIN_IPC_MEMORY_FD ||
             in->kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE);
  FUZZ_CHECK(in->reserved[0] == 0u && in->reserved[1] == 0u);
  FUZZ_CHECK(in->byte_size > 0u && in->offset <= in->segment_size &&
             in->byte_size <= in->segment_size - in->offset);
  FUZZ_CHECK(in->alignment >= 64u && (in->alignment & (in->alignment - 1u)) == 0u);
  hurray_status status = hostile_answer(err, "import_memory");
  if (status != HURRAY_OK) {
    return status;
  }
  hostile_block *block = NULL;
  if (in->kind == HURRAY_PLUGIN_IPC_MEMORY_FD && in->fd >= 0) {
    /* PL-IPC-3 as plugin_support does it: map the segment, or say why not. */
    block = calloc(1, sizeof *block);
    if (block == NULL) {
      return hostile_fail_now(HURRAY_ERR_OUT_OF_MEMORY, false);
    }
    status = hurray_support_shared_import("hostile", in, &block->shared, err);
    if (status != HURRAY_OK) {
      free(block);
      return hostile_fail_now(status, true);
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
  bool host = hostile_u8(hostile_stream) & 1u;
  write_allocation(out, block, device_index, in->alignment, in->memory_class, host);
  hostile_seen.live_buffers++;
  return HURRAY_OK;
}

FUZZ_ORACLE_END
