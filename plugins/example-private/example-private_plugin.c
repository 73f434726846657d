/*
 * example-private: the template a vendor copies to write a libhurray device
 * plugin (docs/vendor-guide.md walks through it; the rules it follows are
 * specs/plugin-abi.md, PL-...).
 *
 * Vendor runtime: none of its own. It stands in for one by resolving a few C
 * library functions at run time, exactly the way a real plugin resolves its
 * runtime's functions, so every step a real plugin takes is here and runs:
 *   - library loaded first: "libc.so.6" (a real plugin: its runtime's usual
 *     soname, e.g. "libOpenCL.so.1");
 *   - override: the environment variable HURRAY_EXAMPLE_PRIVATE_LIBRARY names
 *     another library (set it to a missing file to see the plugin report
 *     "no devices" with the reason instead of failing).
 * Device tag: private 0xF0 (BP-DEV-3). One device, "example-private host
 * memory". Memory classes (BP-PAIR-1, BP-PAIR-2):
 *   - 0x00 standard: host memory from posix_memalign, host-accessible;
 *   - 0xF1 private: the same memory, standing for a vendor-defined class
 *     (a real vendor would give it its own meaning, agreed out of band).
 * Events: all work is synchronous host memory work, so an event completes
 * when it is recorded; waits and releases are still real operations on a
 * small event object.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin_vendor.h"
/* The helper library: the steps every plugin takes the same way
 * (hurray_support_entry_fail, hurray_support_open_runtime,
 * hurray_support_resolve_symbols, hurray_support_alignment_capped, ...), the
 * static libhurray-plugin-support.a installed with libhurray (pkg-config
 * hurray-plugin-support, CMake hurray::plugin_support). It is linked into
 * the plugin, never copied, and never exported from it. */
#include "hurray/plugin_support.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations                                                   */
/* ------------------------------------------------------------------------ */
/* A real plugin includes its vendor's header here (<CL/cl.h>,
 * <vulkan/vulkan.h>) or, where Debian ships none, declares the few types and
 * functions it uses from the vendor documentation. The "vendor" here is the
 * C library, whose functions <stdlib.h> and <string.h> already declare. */

#define EXAMPLE_DEVICE_TAG 0xF0u
#define EXAMPLE_PRIVATE_CLASS 0xF1u
#define EXAMPLE_DEFAULT_LIBRARY "libc.so.6"
#define EXAMPLE_LIBRARY_ENV "HURRAY_EXAMPLE_PRIVATE_LIBRARY"
/* Largest alignment allocate() offers: posix_memalign can do more, but a
 * plugin declares what it is willing to guarantee and refuses beyond it. */
#define EXAMPLE_MAX_ALIGNMENT 65536u

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */
/* ONE list of every vendor function the plugin calls: X(return type, name,
 * (parameter types)). It is expanded twice below, into a struct of function
 * pointers and into the list hurray_support_resolve_symbols looks up with
 * dlsym, so a function cannot be declared and forgotten, or resolved under
 * another name. */
#define EXAMPLE_SYMBOLS(X)                          \
  X(int, posix_memalign, (void **, size_t, size_t)) \
  X(void, free, (void *))                           \
  X(void *, memcpy, (void *restrict, const void *restrict, size_t))

typedef struct example_vendor {
  void *library; /* the dlopen handle; NULL when the runtime is missing */
#define EXAMPLE_DECLARE_POINTER(ret, name, params) ret(*name) params;
  EXAMPLE_SYMBOLS(EXAMPLE_DECLARE_POINTER)
#undef EXAMPLE_DECLARE_POINTER
} example_vendor;

/* Everything one init() sets up. The host passes it back to every entry, so
 * the plugin keeps no global mutable state. */
typedef struct example_state {
  example_vendor vendor;
  /* Why there are no devices, "" when there is one (PL-AVAIL-1). */
  char unavailable_reason[HURRAY_SUPPORT_REASON_SIZE];
} example_state;

/* Opens the runtime and resolves every symbol of the X-macro. On any failure
 * the library is closed again and the reason kept: "not supported", not an
 * error (PL-AVAIL-1). hurray_support_open_runtime tries the override alone
 * when it is set, else each default soname, with dlopen(RTLD_NOW |
 * RTLD_LOCAL): the runtime's symbols must not leak into the process. */
static void example_vendor_open(example_state *state) {
  static const char *const default_libraries[] = {EXAMPLE_DEFAULT_LIBRARY};
  const char *library = NULL;
  void *handle = hurray_support_open_runtime(EXAMPLE_LIBRARY_ENV, default_libraries, 1u, 0,
                                             &library, state->unavailable_reason,
                                             sizeof state->unavailable_reason);
  if (handle == NULL) {
    return;
  }
  /* The X-macro's second expansion: each symbol's name, the field of the
   * struct that receives it, and true (required: a runtime without it is
   * "not supported"), resolved in order by hurray_support_resolve_symbols. */
#define EXAMPLE_SYMBOL_ENTRY(ret, name, params) {#name, &state->vendor.name, true},
  const hurray_support_symbol symbols[] = {EXAMPLE_SYMBOLS(EXAMPLE_SYMBOL_ENTRY)};
#undef EXAMPLE_SYMBOL_ENTRY
  if (!hurray_support_resolve_symbols(handle, library, symbols, sizeof symbols / sizeof symbols[0],
                                      state->unavailable_reason,
                                      sizeof state->unavailable_reason)) {
    dlclose(handle);
    return;
  }
  state->vendor.library = handle;
}

/* ------------------------------------------------------------------------ */
/* 4. Devices                                                               */
/* ------------------------------------------------------------------------ */

/* init: never fails because the runtime is missing; only a failure of the
 * plugin itself (here: no memory for the state) is an error. */
static hurray_status example_init(void **out_state, hurray_error *err) {
  example_state *state = calloc(1, sizeof *state);
  if (state == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *state, 0,
                                     "example-private: no memory for the plugin state");
  }
  example_vendor_open(state);
  *out_state = state;
  return HURRAY_OK;
}

/* shutdown: the host calls it after every buffer and event was freed. */
static void example_shutdown(void *opaque) {
  example_state *state = opaque;
  if (state->vendor.library != NULL) {
    dlclose(state->vendor.library);
  }
  free(state);
}

static hurray_status example_count_devices(void *opaque, uint32_t *out_count, hurray_error *err) {
  (void)err;
  const example_state *state = opaque;
  *out_count = state->vendor.library != NULL ? 1u : 0u;
  return HURRAY_OK;
}

static size_t example_unavailable_reason(void *opaque, char *buf, size_t cap) {
  const example_state *state = opaque;
  return hurray_support_copy_reason(buf, cap, state->unavailable_reason);
}

/* describe_device: fill a local struct of the size this plugin knows, then
 * copy out only what the host's struct has room for (PL-NEG-4). */
static hurray_status example_describe_device(void *opaque, uint32_t device_index,
                                             hurray_plugin_device_info *out, hurray_error *err) {
  const example_state *state = opaque;
  if (state->vendor.library == NULL || device_index != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "example-private: no device %u", (unsigned)device_index);
  }
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  /* Host memory: nothing this plugin makes can cross a process boundary by
   * itself, so it exports neither events nor streams (BP-XPORT-3). */
  info.ipc_capabilities = 0u;
  snprintf(info.name, sizeof info.name, "example-private host memory");
  info.memory_bytes = 0u; /* unknown: the host's memory, shared with everything else */
  hurray_support_add_memory_class(&info, HURRAY_MEMORY_STANDARD,
                                  HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE, EXAMPLE_MAX_ALIGNMENT);
  hurray_support_add_memory_class(&info, EXAMPLE_PRIVATE_CLASS,
                                  HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE, EXAMPLE_MAX_ALIGNMENT);
  hurray_plugin_copy_out(out, &info, sizeof info);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 5. Memory                                                                */
/* ------------------------------------------------------------------------ */

static hurray_status example_allocate(void *opaque, uint32_t device_index, uint64_t byte_size,
                                      uint32_t alignment, hurray_memory_class memory_class,
                                      uint32_t flags, hurray_plugin_allocation *out,
                                      hurray_error *err) {
  const example_state *state = opaque;
  if (state->vendor.library == NULL || device_index != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "example-private: no device %u", (unsigned)device_index);
  }
  if (flags != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags, 0,
                                     "example-private: allocate flags must be 0 in ABI 1.x");
  }
  /* A class or alignment we cannot give is refused, never downgraded
   * (PL-ALLOC-2): the caller may rely on what the handle declares. */
  if (memory_class != HURRAY_MEMORY_STANDARD && memory_class != EXAMPLE_PRIVATE_CLASS) {
    return hurray_support_entry_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, EXAMPLE_DEVICE_TAG,
                                     "example-private: memory class 0x%02X is not offered",
                                     (unsigned)memory_class);
  }
  if (alignment > EXAMPLE_MAX_ALIGNMENT) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_UNSUPPORTED, alignment, EXAMPLE_MAX_ALIGNMENT,
        "example-private: alignment %u above the %u this plugin guarantees", (unsigned)alignment,
        EXAMPLE_MAX_ALIGNMENT);
  }
  if (byte_size > SIZE_MAX) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                     "example-private: %llu bytes do not fit in this address space",
                                     (unsigned long long)byte_size);
  }
  void *memory = NULL;
  int rc = state->vendor.posix_memalign(&memory, alignment, (size_t)byte_size);
  if (rc != 0) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, byte_size, 0,
                                     "example-private: posix_memalign(%u, %llu) failed (%d)",
                                     (unsigned)alignment, (unsigned long long)byte_size, rc);
  }
  hurray_plugin_allocation result;
  memset(&result, 0, sizeof result);
  result.struct_size = sizeof result;
  /* Measured from the address we got (PL-ALLOC-3): posix_memalign promises
   * `alignment`, and often gives more; we report what is really there. */
  result.alignment =
      hurray_support_alignment_capped((uintptr_t)memory, HURRAY_PLUGIN_MAX_ALIGNMENT);
  result.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  result.byte_size = byte_size;
  result.address = memory;      /* what the handoff carries: a host pointer */
  result.host_address = memory; /* host-accessible */
  result.device_address = 0u;   /* no separate device address space */
  result.plugin_data = NULL;    /* nothing more to remember for free() */
  result.device_index = device_index;
  result.memory_class = memory_class;
  hurray_plugin_copy_out(out, &result, sizeof result);
  return HURRAY_OK;
}

static void example_free(void *opaque, const hurray_plugin_allocation *allocation) {
  const example_state *state = opaque;
  state->vendor.free(allocation->address);
}

/* ------------------------------------------------------------------------ */
/* 6. Copies host<->device                                                  */
/* ------------------------------------------------------------------------ */
/* The host has already checked that [offset, offset + bytes) lies inside the
 * allocation (PL-COPY-2); the plugin copies and returns when it is done. */

static hurray_status example_copy_to_device(void *opaque, const hurray_plugin_allocation *dst,
                                            uint64_t dst_offset, const void *src, uint64_t bytes,
                                            hurray_error *err) {
  (void)err;
  const example_state *state = opaque;
  state->vendor.memcpy((unsigned char *)dst->address + dst_offset, src, (size_t)bytes);
  return HURRAY_OK;
}

static hurray_status example_copy_to_host(void *opaque, void *dst,
                                          const hurray_plugin_allocation *src, uint64_t src_offset,
                                          uint64_t bytes, hurray_error *err) {
  (void)err;
  const example_state *state = opaque;
  state->vendor.memcpy(dst, (const unsigned char *)src->address + src_offset, (size_t)bytes);
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 7. Events and streams                                                    */
/* ------------------------------------------------------------------------ */
/* A real runtime has queues that run work later; an event marks a point in
 * a queue. Here work finishes before the call returns, so the event only
 * remembers whether it was recorded, and a wait finds it complete. */

typedef struct example_event {
  uint32_t device_index;
  unsigned recorded; /* how many times it was recorded: for a reader of the template */
} example_event;

static hurray_status example_create_event(void *opaque, uint32_t device_index, void **out_event,
                                          hurray_error *err) {
  const example_state *state = opaque;
  if (state->vendor.library == NULL || device_index != 0u) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "example-private: no device %u", (unsigned)device_index);
  }
  example_event *event = calloc(1, sizeof *event);
  if (event == NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0,
                                     "example-private: no memory for an event");
  }
  event->device_index = device_index;
  *out_event = event;
  return HURRAY_OK;
}

static hurray_status example_record_event(void *opaque, void *opaque_event, void *stream,
                                          hurray_error *err) {
  (void)opaque;
  /* There is one implicit queue; a stream other than it is not ours. */
  if (stream != NULL) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, 0, 0,
        "example-private: only the default queue (NULL stream) exists");
  }
  example_event *event = opaque_event;
  event->recorded++;
  return HURRAY_OK;
}

static hurray_status example_wait_event(void *opaque, void *opaque_event, uint64_t timeout_ns,
                                        hurray_error *err) {
  (void)opaque;
  (void)opaque_event;
  (void)timeout_ns;
  (void)err;
  /* Everything recorded has already completed (see above). */
  return HURRAY_OK;
}

static void example_release_event(void *opaque, void *opaque_event) {
  (void)opaque;
  free(opaque_event);
}

static hurray_status example_wait_stream(void *opaque, uint32_t device_index, void *stream,
                                         uint64_t timeout_ns, hurray_error *err) {
  (void)opaque;
  (void)timeout_ns;
  if (device_index != 0u || stream != NULL) {
    return hurray_support_entry_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, 0,
                                     "example-private: only device 0's default queue exists");
  }
  return HURRAY_OK;
}

static hurray_status example_stream_wait_event(void *opaque, void *stream, void *opaque_event,
                                               hurray_error *err) {
  (void)opaque;
  (void)opaque_event;
  if (stream != NULL) {
    return hurray_support_entry_fail(
        err, HURRAY_ERR_INVALID_ARGUMENT, 0, 0,
        "example-private: only the default queue (NULL stream) exists");
  }
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* 8. The entry table and the single exported entry symbol                  */
/* ------------------------------------------------------------------------ */

/* One constant table. struct_size is this plugin's sizeof: a host built for a
 * later minor reads only this many bytes and treats the rest as NULL. */
static const hurray_plugin_table example_table = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = "example-private",
    .plugin_version = "1.0.0",
    .device_tag = EXAMPLE_DEVICE_TAG,
    .init = example_init,
    .shutdown = example_shutdown,
    .count_devices = example_count_devices,
    .describe_device = example_describe_device,
    .allocate = example_allocate,
    .free = example_free,
    .copy_to_device = example_copy_to_device,
    .copy_to_host = example_copy_to_host,
    .unavailable_reason = example_unavailable_reason,
    .create_event = example_create_event,
    .record_event = example_record_event,
    .wait_event = example_wait_event,
    .release_event = example_release_event,
    .wait_stream = example_wait_stream,
    .stream_wait_event = example_stream_wait_event,
};

/* The only exported symbol (the build uses hidden visibility). It answers any
 * host: the host compares the majors and reports a mismatch precisely, which
 * it could not do if we returned NULL. */
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &example_table;
}
