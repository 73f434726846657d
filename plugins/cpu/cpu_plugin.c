/*
 * libhurray device plugin: CPU (device tag 0x00 cpu).
 *
 * Runtime: none beyond the C library and the kernel, so nothing is loaded
 * with dlopen and there is no HURRAY_CPU_LIBRARY override; the plugin is
 * always available (one device, the host).
 *
 * Memory classes (facts §5, specs BP-PAIR-1: cpu pairs with standard,
 * host_pinned and unified):
 *   standard    -> posix_memalign                       (ordinary heap memory)
 *   host_pinned -> posix_memalign + mlock               (page-locked; refused with
 *                  a message naming RLIMIT_MEMLOCK when the limit is too small)
 *   unified     -> mmap(MAP_SHARED | MAP_ANONYMOUS)     (a shared anonymous
 *                  mapping, the memory a forked child or a device driver can map)
 * Every class is host-accessible. IPC: nothing (a CPU buffer crosses
 * processes only as shared memory the transport sets up, BP-OWN-3).
 *
 * Events: CPU work is done when the call returns (copies are memcpy), so an
 * event is complete once recorded; waits still check the event is ours.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS: not in POSIX 2008 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: error filling, measured alignment */

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations: none (the C library's own headers above)         */
/* ------------------------------------------------------------------------ */

/* Largest alignment offered: 2 MiB, the huge-page size. posix_memalign and
 * an over-sized mapping can give more, but a plugin declares a bound it
 * guarantees and refuses past it. */
#define CPU_MAX_ALIGNMENT (2u * 1024u * 1024u)

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table: none (no runtime is loaded)                  */
/* ------------------------------------------------------------------------ */

typedef struct cpu_state {
  size_t page_size;
} cpu_state;

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

static hurray_status cpu_init(void **out_state, hurray_error *err) {
  cpu_state *state = calloc(1, sizeof *state);
  if (state == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *state, 0,
                                     "cpu: plugin state");
  }
  long page = sysconf(_SC_PAGESIZE);
  state->page_size = page > 0 ? (size_t)page : 4096u;
  *out_state = state;
  return HURRAY_OK;
}

static void cpu_shutdown(void *state) { free(state); }

static hurray_status cpu_count_devices(void *state, uint32_t *out_count, hurray_error *err) {
  (void)state;
  (void)err;
  *out_count = 1u;
  return HURRAY_OK;
}

static hurray_status cpu_describe_device(void *state, uint32_t device_index,
                                         hurray_plugin_device_info *out, hurray_error *err) {
  (void)state;
  if (device_index != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "cpu: no device %u", (unsigned)device_index);
  }
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.ipc_capabilities = 0u;
  snprintf(info.name, sizeof info.name, "host");
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  info.memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0u;
  const hurray_memory_class classes[] = {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED,
                                         HURRAY_MEMORY_UNIFIED};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    hurray_support_add_memory_class(&info, classes[i], HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE,
                                    CPU_MAX_ALIGNMENT);
  }
  hurray_plugin_copy_out(out, &info, sizeof info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

static size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1u) / multiple * multiple;
}

/* A shared anonymous mapping aligned to `alignment`: map enough to find an
 * aligned start inside, then give back the slack on both sides. */
static void *map_shared_aligned(size_t length, size_t alignment, size_t page_size) {
  size_t slack = alignment > page_size ? alignment - page_size : 0u;
  unsigned char *base =
      mmap(NULL, length + slack, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    return NULL;
  }
  uintptr_t start = round_up((uintptr_t)base, alignment);
  size_t head = start - (uintptr_t)base;
  if (head > 0u) {
    munmap(base, head);
  }
  size_t tail = slack - head;
  if (tail > 0u) {
    munmap((unsigned char *)start + length, tail);
  }
  return (void *)start;
}

/* PL-IPC-1..4: memory another process can map is a memfd mapped shared
 * (plugins/common). The allocation's plugin_data says so; without it the
 * memory is private. */
typedef struct cpu_shared {
  hurray_support_shared_memory memory;
  bool locked; /* host_pinned: mlock'ed */
} cpu_shared;

/* Fills the allocation record of host memory the host may read directly,
 * its alignment measured from the address (PL-ALLOC-3). */
static inline __attribute__((always_inline)) void fill_host_allocation(
    hurray_plugin_allocation *out, void *memory, uint64_t byte_size,
    hurray_memory_class memory_class, void *plugin_data) {
  /* Filled in place when the host's view holds all of ours (always, from a
   * host of this ABI or later): building it on the stack and copying it out
   * costs a store-forwarding stall per allocation (bench_plugin_alloc). */
  hurray_plugin_allocation local;
  bool in_place = out->struct_size >= sizeof local;
  hurray_plugin_allocation *result = in_place ? out : &local;
  uint32_t host_size = out->struct_size;
  memset(result, 0, sizeof *result);
  result->struct_size = in_place ? host_size : (uint32_t)sizeof local;
  result->alignment =
      hurray_support_alignment_capped((uintptr_t)memory, HURRAY_PLUGIN_MAX_ALIGNMENT);
  result->alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  result->byte_size = byte_size;
  result->address = memory;
  result->host_address = memory;
  result->device_index = 0u;
  result->memory_class = memory_class;
  result->plugin_data = plugin_data;
  if (!in_place) {
    hurray_plugin_copy_out(out, &local, sizeof local);
  }
}

/* PL-IPC-1: an exportable allocation, in any class: a memfd the size of
 * whole pages, mapped shared (pinned: and locked). */
static hurray_status cpu_allocate_shared(uint64_t byte_size, uint32_t alignment,
                                         hurray_memory_class memory_class,
                                         hurray_plugin_allocation *out, hurray_error *err) {
  cpu_shared *shared = calloc(1, sizeof *shared);
  if (shared == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *shared, 0,
                                     "cpu: shared record");
  }
  hurray_status status =
      hurray_support_shared_create("cpu", byte_size, alignment, &shared->memory, err);
  if (status != HURRAY_OK) {
    free(shared);
    return status;
  }
  if (memory_class == HURRAY_MEMORY_HOST_PINNED) {
    if (mlock(shared->memory.address, (size_t)shared->memory.length) != 0) {
      int e = errno;
      hurray_support_shared_release(&shared->memory);
      free(shared);
      return hurray_support_entry_fail(
          err, e == ENOMEM || e == EPERM ? HURRAY_ERR_OUT_OF_MEMORY : HURRAY_ERR_DEVICE_ERROR,
          byte_size, 0, "cpu: mlock of a shared segment refused (%s)", strerror(e));
    }
    shared->locked = true;
  }
  fill_host_allocation(out, shared->memory.address, byte_size, memory_class, shared);
  return HURRAY_OK;
}

static hurray_status cpu_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                                  uint32_t alignment, hurray_memory_class memory_class,
                                  uint32_t flags, hurray_plugin_allocation *out,
                                  hurray_error *err) {
  const cpu_state *state = opaque;
  if (device_index != 0u || (flags & ~HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, device_index != 0u ? device_index : flags, 0,
        "cpu: device %u / flags 0x%X: only device 0 and the exportable flag exist",
        (unsigned)device_index, (unsigned)flags);
  }
  if (alignment > CPU_MAX_ALIGNMENT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, CPU_MAX_ALIGNMENT,
                                     "cpu: alignment %u above the %u guaranteed",
                                     (unsigned)alignment, CPU_MAX_ALIGNMENT);
  }
  if (byte_size > SIZE_MAX / 2u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0, "cpu: %llu bytes",
                                     (unsigned long long)byte_size);
  }
  size_t size = (size_t)byte_size;
  if ((flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u &&
      (memory_class == HURRAY_MEMORY_STANDARD || memory_class == HURRAY_MEMORY_HOST_PINNED ||
       memory_class == HURRAY_MEMORY_UNIFIED)) {
    return cpu_allocate_shared(byte_size, alignment, memory_class, out, err);
  }
  void *memory = NULL;
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD:
    case HURRAY_MEMORY_HOST_PINNED: {
      int rc = posix_memalign(&memory, alignment, size);
      if (rc != 0) {
        return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                         "cpu: posix_memalign(%u, %zu): %s", (unsigned)alignment,
                                         size, strerror(rc));
      }
      if (memory_class == HURRAY_MEMORY_HOST_PINNED && mlock(memory, size) != 0) {
        int e = errno;
        free(memory);
        struct rlimit limit;
        unsigned long long soft = 0;
        if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0) {
          soft = (unsigned long long)limit.rlim_cur;
        }
        return hurray_support_entry_fail(
            err, e == ENOMEM || e == EPERM ? HURRAY_ERR_OUT_OF_MEMORY : HURRAY_ERR_DEVICE_ERROR,
            byte_size, soft,
            "cpu: mlock of %zu bytes refused (%s); RLIMIT_MEMLOCK is %llu bytes "
            "(raise it with ulimit -l or limits.conf)",
            size, strerror(e), soft);
      }
      break;
    }
    case HURRAY_MEMORY_UNIFIED:
      memory = map_shared_aligned(round_up(size, state->page_size), alignment, state->page_size);
      if (memory == NULL) {
        return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                         "cpu: mmap(MAP_SHARED | MAP_ANONYMOUS) of %zu bytes: %s",
                                         size, strerror(errno));
      }
      break;
    default:
      return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_CPU,
                                       "cpu: memory class 0x%02X is not offered",
                                       (unsigned)memory_class);
  }
  fill_host_allocation(out, memory, byte_size, memory_class, NULL);
  return HURRAY_OK;
}

static void cpu_free(void *opaque, const hurray_plugin_allocation *allocation) {
  const cpu_state *state = opaque;
  size_t size = (size_t)allocation->byte_size;
  cpu_shared *shared = allocation->plugin_data;
  if (shared != NULL) { /* PL-IPC-4: only our mapping and our descriptor go */
    if (shared->locked) {
      munlock(shared->memory.address, (size_t)shared->memory.length);
    }
    hurray_support_shared_release(&shared->memory);
    free(shared);
    return;
  }
  switch (allocation->memory_class) {
    case HURRAY_MEMORY_HOST_PINNED:
      munlock(allocation->address, size);
      free(allocation->address);
      break;
    case HURRAY_MEMORY_UNIFIED:
      munmap(allocation->address, round_up(size, state->page_size));
      break;
    default: free(allocation->address); break;
  }
}

/* PL-IPC-2: a new descriptor of the memfd, the caller's. */
static hurray_status cpu_export_memory(void *opaque, const hurray_plugin_allocation *allocation,
                                       hurray_plugin_ipc_memory *out, hurray_error *err) {
  (void)opaque;
  const cpu_shared *shared = allocation->plugin_data;
  if (shared == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, 0, HURRAY_DEVICE_CPU,
                                     "cpu: this buffer is private memory; allocate it with "
                                     "HURRAY_PLUGIN_ALLOCATE_EXPORTABLE to share it (PL-IPC-1)");
  }
  return hurray_support_shared_export("cpu", &shared->memory, out, err);
}

/* PL-IPC-3: the segment mapped shared; read-only when its writer sealed
 * writes (IPC-SEG-1), and then a copy into it is refused. */
static hurray_status cpu_import_memory(void *opaque, uint32_t device_index,
                                       const hurray_plugin_ipc_memory *in,
                                       hurray_plugin_allocation *out, hurray_error *err) {
  (void)opaque;
  hurray_status status = hurray_support_check_device("cpu", device_index, 1u, err);
  if (status != HURRAY_OK) {
    return status;
  }
  cpu_shared *shared = calloc(1, sizeof *shared);
  if (shared == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *shared, 0,
                                     "cpu: shared record");
  }
  status = hurray_support_shared_import("cpu", in, &shared->memory, err);
  if (status != HURRAY_OK) {
    free(shared);
    return status;
  }
  fill_host_allocation(out, shared->memory.address, in->byte_size, in->memory_class, shared);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */

static hurray_status cpu_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                        uint64_t dst_offset, const void *src, uint64_t bytes,
                                        hurray_error *err) {
  (void)state;
  const cpu_shared *shared = dst->plugin_data;
  if (shared != NULL && shared->memory.read_only == HURRAY_TRUE) { /* PL-IPC-4 */
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, bytes, 0,
        "cpu: read-only import: its writer sealed the segment against writes");
  }
  memcpy((unsigned char *)dst->address + dst_offset, src, (size_t)bytes);
  return HURRAY_OK;
}

static hurray_status cpu_copy_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                                      uint64_t src_offset, uint64_t bytes, hurray_error *err) {
  (void)state;
  (void)err;
  memcpy(dst, (const unsigned char *)src->address + src_offset, (size_t)bytes);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */

/* A marker whose only content is whether it was recorded: CPU work is
 * complete when its call returns. */
typedef struct cpu_event {
  unsigned recorded;
} cpu_event;

static hurray_status cpu_create_event(void *state, uint32_t device_index, void **out_event,
                                      hurray_error *err) {
  (void)state;
  if (device_index != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "cpu: no device %u", (unsigned)device_index);
  }
  cpu_event *event = calloc(1, sizeof *event);
  if (event == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0, "cpu: event");
  }
  *out_event = event;
  return HURRAY_OK;
}

static hurray_status cpu_record_event(void *state, void *event, void *stream, hurray_error *err) {
  (void)state;
  if (stream != NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 0,
                                     "cpu: there are no streams; record on NULL");
  }
  ((cpu_event *)event)->recorded++;
  return HURRAY_OK;
}

static hurray_status cpu_wait_event(void *state, void *event, uint64_t timeout_ns,
                                    hurray_error *err) {
  (void)state;
  (void)event;
  (void)timeout_ns;
  (void)err;
  return HURRAY_OK;
}

static void cpu_release_event(void *state, void *event) {
  (void)state;
  free(event);
}

static hurray_status cpu_wait_stream(void *state, uint32_t device_index, void *stream,
                                     uint64_t timeout_ns, hurray_error *err) {
  (void)state;
  (void)timeout_ns;
  if (device_index != 0u || stream != NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "cpu: only device 0 and the NULL stream exist");
  }
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

static const hurray_plugin_table cpu_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "cpu",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_CPU,
    .init = cpu_init,
    .shutdown = cpu_shutdown,
    .count_devices = cpu_count_devices,
    .describe_device = cpu_describe_device,
    .allocate = cpu_allocate,
    .free = cpu_free,
    .copy_to_device = cpu_copy_to_device,
    .copy_to_host = cpu_copy_to_host,
    .create_event = cpu_create_event,
    .record_event = cpu_record_event,
    .wait_event = cpu_wait_event,
    .release_event = cpu_release_event,
    .wait_stream = cpu_wait_stream,
    .export_memory = cpu_export_memory,
    .import_memory = cpu_import_memory,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &cpu_table;
}
