/*
 * libhurray device plugin: Qualcomm Hexagon (device tag 0x06 hexagon).
 *
 * Runtime: FastRPC shared memory from the compute-DSP user library, loaded
 * at run time from "libcdsprpc.so" (its name on Qualcomm Linux and Android
 * images), or from the file named by HURRAY_HEXAGON_LIBRARY. Only the rpcmem
 * allocator is used: rpcmem_alloc2 (rpcmem_alloc on libraries that predate
 * it), rpcmem_free and rpcmem_to_fd; rpcmem_init/rpcmem_deinit are called
 * where the library still exports them. No Debian package ships a header for
 * these, so the few declarations below are written from the Hexagon SDK's
 * rpcmem documentation.
 *
 * One device, "the compute DSP", available when a probe allocation succeeds
 * and has a dma-buf descriptor (rpcmem_to_fd >= 0): that is FastRPC memory
 * working end to end, not merely a library that loads.
 *
 * Memory classes (facts §5, specs BP-PAIR-1); every one is rpcmem memory on
 * the system heap (RPCMEM_HEAP_ID_SYSTEM, recommended for the cDSP), a host
 * pointer the DSP reaches through its SMMU:
 *   standard    -> cached (RPCMEM_DEFAULT_FLAGS): "DDR" memory the DSP maps
 *                  per FastRPC call, which does the cache maintenance;
 *   host_pinned -> cached | RPCMEM_TRY_MAP_STATIC: pre-mapped into every
 *                  FastRPC session (FastRPC shared memory, no coherency);
 *   unified     -> RPCMEM_FLAG_UNCACHED: coherent without maintenance
 *                  (FastRPC coherent).
 * VTCM is not reachable through rpcmem and is not offered. Every allocation
 * is aligned to at least 128 bytes, the HVX vector size (BP-DEV-5).
 * Events and streams: FastRPC calls are synchronous and rpcmem has no event
 * object, so the event entries are NULL (not supported) and IPC capabilities
 * are 0; the dma-buf descriptor is what crosses processes.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin_vendor.h"
#include "hurray/plugin_support.h" /* plugins/common: what every plugin does alike */
#include "runtime_loader.h"
#include "plugin_allocation.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations (Hexagon SDK rpcmem.h, from its documentation)    */
/* ------------------------------------------------------------------------ */

/* Heap: non-contiguous system memory behind the DSP's SMMU. */
#define RPCMEM_HEAP_ID_SYSTEM 25
/* ION cache flags: default is cached (ION_FLAG_CACHED == 1). */
#define RPCMEM_DEFAULT_FLAGS 1u
#define RPCMEM_FLAG_UNCACHED 0u
/* Pre-map the buffer into all current and future FastRPC sessions. */
#define RPCMEM_TRY_MAP_STATIC 0x04000000u

#define HEXAGON_DEFAULT_LIBRARY "libcdsprpc.so"
#define HEXAGON_LIBRARY_ENV "HURRAY_HEXAGON_LIBRARY"
/* HVX vectors are 128 bytes: the least alignment any allocation gets. */
#define HEXAGON_MIN_ALIGNMENT 128u
/* The largest alignment allocate() offers (over-allocating beyond the
 * page alignment rpcmem gives). */
#define HEXAGON_MAX_ALIGNMENT 65536u
#define HEXAGON_PROBE_BYTES 4096

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */
/* X(required, return type, name, (parameter types)): an optional symbol the
 * library lacks is left NULL (rpcmem_alloc2 and rpcmem_init/deinit are not in
 * every release); a missing required one means "not supported". */
#define HEXAGON_SYMBOLS(X)                                 \
  X(true, void *, rpcmem_alloc, (int, uint32_t, int))      \
  X(true, void, rpcmem_free, (void *))                     \
  X(true, int, rpcmem_to_fd, (void *))                     \
  X(false, void *, rpcmem_alloc2, (int, uint32_t, size_t)) \
  X(false, void, rpcmem_init, (void))                      \
  X(false, void, rpcmem_deinit, (void))

typedef struct hexagon_symbols {
#define HEXAGON_SYMBOL_FIELD(required, ret, name, args) ret(*name) args;
  HEXAGON_SYMBOLS(HEXAGON_SYMBOL_FIELD)
#undef HEXAGON_SYMBOL_FIELD
} hexagon_symbols;

typedef struct hexagon_state {
  void *library;
  hexagon_symbols rpc;
  uint32_t device_count; /* 0 or 1 */
  char reason[HURRAY_SUPPORT_REASON_SIZE];
} hexagon_state;

/* rpcmem_alloc2 where the library has it; rpcmem_alloc (an int size)
 * otherwise. *call names the function used, for errors. */
static void *hexagon_rpcmem_alloc(const hexagon_state *s, uint32_t flags, size_t bytes,
                                  const char **call) {
  if (s->rpc.rpcmem_alloc2 != NULL) {
    *call = "rpcmem_alloc2";
    return s->rpc.rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, flags, bytes);
  }
  *call = "rpcmem_alloc";
  return bytes <= INT_MAX ? s->rpc.rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, flags, (int)bytes) : NULL;
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

/* Loads the library and probes FastRPC memory; on any failure the state
 * holds zero devices and the reason (PL-AVAIL-1). */
static void hexagon_open(hexagon_state *s) {
  static const char *const default_libraries[] = {HEXAGON_DEFAULT_LIBRARY};
  const char *library = NULL;
  /* The X-macro's second expansion into s->rpc; an optional symbol the
   * library lacks is left NULL. */
#define HEXAGON_SYMBOL_ENTRY(required, ret, name, args) {#name, &s->rpc.name, required},
  const hurray_support_symbol symbols[] = {HEXAGON_SYMBOLS(HEXAGON_SYMBOL_ENTRY)};
#undef HEXAGON_SYMBOL_ENTRY
  s->library = plugin_load_runtime(HEXAGON_LIBRARY_ENV, default_libraries, 1u, 0, symbols,
                                   sizeof symbols / sizeof symbols[0], &library, s->reason,
                                   sizeof s->reason);
  if (s->library == NULL) {
    return;
  }
  if (s->rpc.rpcmem_init != NULL) {
    s->rpc.rpcmem_init();
  }
  const char *call = NULL;
  void *probe = hexagon_rpcmem_alloc(s, RPCMEM_DEFAULT_FLAGS, HEXAGON_PROBE_BYTES, &call);
  if (probe == NULL) {
    snprintf(s->reason, sizeof s->reason,
             "%s: rpcmem_alloc probe (%s, heap %d, %d bytes) returned NULL: no FastRPC memory",
             library, call, RPCMEM_HEAP_ID_SYSTEM, HEXAGON_PROBE_BYTES);
    goto deinit;
  }
  int fd = s->rpc.rpcmem_to_fd(probe);
  s->rpc.rpcmem_free(probe);
  if (fd < 0) {
    snprintf(s->reason, sizeof s->reason,
             "%s: rpcmem_to_fd of the probe allocation returned %d: no dma-buf behind it", library,
             fd);
    goto deinit;
  }
  s->device_count = 1;
  return;
deinit:
  if (s->rpc.rpcmem_deinit != NULL) {
    s->rpc.rpcmem_deinit();
  }
  dlclose(s->library);
  s->library = NULL;
  memset(&s->rpc, 0, sizeof s->rpc);
}

static hurray_status hexagon_init(void **out_state, hurray_error *err) {
  hexagon_state *s = calloc(1, sizeof *s);
  if (s == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *s, 0,
                                     "hexagon: no memory for the plugin state");
  }
  hexagon_open(s);
  *out_state = s;
  return HURRAY_OK;
}

static void hexagon_shutdown(void *state) {
  hexagon_state *s = state;
  if (s->library != NULL) {
    if (s->rpc.rpcmem_deinit != NULL) {
      s->rpc.rpcmem_deinit();
    }
    dlclose(s->library);
  }
  free(s);
}

static hurray_status hexagon_count_devices(void *state, uint32_t *out_count, hurray_error *err) {
  (void)err;
  *out_count = ((hexagon_state *)state)->device_count;
  return HURRAY_OK;
}

static size_t hexagon_unavailable_reason(void *state, char *buf, size_t cap) {
  const hexagon_state *s = state;
  return hurray_support_copy_reason(buf, cap, s->device_count > 0 ? "" : s->reason);
}

/* The rpcmem flags of each class (see the header comment). */
static bool hexagon_class_flags(hurray_memory_class memory_class, uint32_t *flags) {
  switch (memory_class) {
    case HURRAY_MEMORY_STANDARD: *flags = RPCMEM_DEFAULT_FLAGS; return true;
    case HURRAY_MEMORY_HOST_PINNED:
      *flags = RPCMEM_DEFAULT_FLAGS | RPCMEM_TRY_MAP_STATIC;
      return true;
    case HURRAY_MEMORY_UNIFIED: *flags = RPCMEM_FLAG_UNCACHED; return true;
    default: return false;
  }
}

static hurray_status hexagon_describe_device(void *state, uint32_t device_index,
                                             hurray_plugin_device_info *out, hurray_error *err) {
  const hexagon_state *s = state;
  hurray_status status = hurray_support_check_device("hexagon", device_index, s->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.ipc_capabilities = 0u;
  snprintf(info.name, sizeof info.name, "Hexagon compute DSP (FastRPC rpcmem)");
  info.memory_bytes = 0u; /* rpcmem does not say */
  static const hurray_memory_class classes[] = {HURRAY_MEMORY_STANDARD, HURRAY_MEMORY_HOST_PINNED,
                                                HURRAY_MEMORY_UNIFIED};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    hurray_support_add_memory_class(&info, classes[i], HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE,
                                    HEXAGON_MAX_ALIGNMENT);
  }
  hurray_plugin_copy_out(out, &info, sizeof info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

static hurray_status hexagon_allocate(void *state, uint32_t device_index, uint64_t byte_size,
                                      uint32_t alignment, hurray_memory_class memory_class,
                                      uint32_t flags, hurray_plugin_allocation *out,
                                      hurray_error *err) {
  const hexagon_state *s = state;
  uint32_t rpc_flags = 0;
  hurray_status status = hurray_support_check_device("hexagon", device_index, s->device_count, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (!hexagon_class_flags(memory_class, &rpc_flags)) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, memory_class, HURRAY_DEVICE_HEXAGON,
        "hexagon: memory class 0x%02X is not offered", (unsigned)memory_class);
  }
  if (flags != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, 0,
                                     "hexagon: allocate flags must be 0 in ABI 1.x");
  }
  if (alignment > HEXAGON_MAX_ALIGNMENT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, HEXAGON_MAX_ALIGNMENT,
                                     "hexagon: alignment %u above the %u this plugin guarantees",
                                     (unsigned)alignment, HEXAGON_MAX_ALIGNMENT);
  }
  if (byte_size > SIZE_MAX - HEXAGON_MAX_ALIGNMENT) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                     "hexagon: %llu bytes do not fit in this address space",
                                     (unsigned long long)byte_size);
  }
  uint32_t wanted = alignment < HEXAGON_MIN_ALIGNMENT ? HEXAGON_MIN_ALIGNMENT : alignment;
  const char *call = NULL;
  unsigned char *base = hexagon_rpcmem_alloc(s, rpc_flags, (size_t)byte_size, &call);
  if (base != NULL && hurray_support_lowest_set_bit((uintptr_t)base) < wanted) {
    /* Less than asked: allocate with slack and align the address up; free()
     * uses the base kept in plugin_data. */
    s->rpc.rpcmem_free(base);
    base = hexagon_rpcmem_alloc(s, rpc_flags, (size_t)byte_size + wanted, &call);
  }
  if (base == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                     "%s(heap %d, flags 0x%x, %llu bytes) returned NULL", call,
                                     RPCMEM_HEAP_ID_SYSTEM, (unsigned)rpc_flags,
                                     (unsigned long long)byte_size);
  }
  uintptr_t address = ((uintptr_t)base + wanted - 1u) & ~(uintptr_t)(wanted - 1u);
  uint64_t measured = hurray_support_lowest_set_bit(address);
  hurray_plugin_allocation a;
  plugin_allocation_init(&a, byte_size, device_index, memory_class);
  a.alignment = (uint32_t)(measured < HEXAGON_MAX_ALIGNMENT ? measured : HEXAGON_MAX_ALIGNMENT);
  a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  a.address = base + (address - (uintptr_t)base);
  a.host_address = a.address;
  a.device_address = 0u; /* the DSP's address is assigned per FastRPC session */
  a.plugin_data = base;
  hurray_plugin_copy_out(out, &a, sizeof a);
  return HURRAY_OK;
}

static void hexagon_free(void *state, const hurray_plugin_allocation *allocation) {
  const hexagon_state *s = state;
  s->rpc.rpcmem_free(allocation->plugin_data);
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */
/* rpcmem memory is host memory the DSP maps: copies are memcpy, and FastRPC
 * does the cache maintenance of cached buffers when it passes them to the
 * DSP. The host has already checked the range (PL-COPY-2). */

static hurray_status hexagon_copy_to_device(void *state, const hurray_plugin_allocation *dst,
                                            uint64_t dst_offset, const void *src, uint64_t bytes,
                                            hurray_error *err) {
  (void)state;
  (void)err;
  memcpy((unsigned char *)dst->host_address + dst_offset, src, (size_t)bytes);
  return HURRAY_OK;
}

static hurray_status hexagon_copy_to_host(void *state, void *dst,
                                          const hurray_plugin_allocation *src, uint64_t src_offset,
                                          uint64_t bytes, hurray_error *err) {
  (void)state;
  (void)err;
  memcpy(dst, (const unsigned char *)src->host_address + src_offset, (size_t)bytes);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams: none (see the header comment)                     */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

static const hurray_plugin_table hexagon_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "hexagon",
    .plugin_version = "1.0.0",
    .device_tag = HURRAY_DEVICE_HEXAGON,
    .init = hexagon_init,
    .shutdown = hexagon_shutdown,
    .count_devices = hexagon_count_devices,
    .describe_device = hexagon_describe_device,
    .allocate = hexagon_allocate,
    .free = hexagon_free,
    .copy_to_device = hexagon_copy_to_device,
    .copy_to_host = hexagon_copy_to_host,
    .unavailable_reason = hexagon_unavailable_reason,
};

HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &hexagon_table;
}
