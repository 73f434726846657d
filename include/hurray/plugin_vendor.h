/*
 * libhurray device plugins, the vendor side: the versioned plugin ABI a
 * plugin implements (versions, limits, the structs it fills, the entry
 * points, the table and the entry symbol). A plugin includes only this
 * header, hurray/buffer.h (which this one includes) and, when it links the
 * support library, hurray/plugin_support.h (PL-BUILD-2); it does not link
 * libhurray (nor any vendor library: vendor symbols are resolved with dlsym
 * at run time, PL-BUILD-1). The host side (loader, registry, buffers,
 * events) is hurray/plugin_host.h; hurray/plugin.h includes both.
 *
 * Every rule is defined once in specs/plugin-abi.md under an ID (PL-...);
 * docs/plugin-abi.md is the document a vendor reads, docs/vendor-guide.md the
 * step-by-step guide from plugins/example-private to a loaded plugin.
 *
 * How the two sides meet (PL-ENTRY-1..4, PL-NEG-1..5):
 *   1. The host dlopen()s the plugin file (RTLD_NOW | RTLD_LOCAL) and looks up
 *      the one exported symbol HURRAY_PLUGIN_ENTRY_SYMBOL.
 *   2. It calls it with the ABI version it speaks (HURRAY_PLUGIN_ABI_VERSION).
 *   3. The plugin returns a pointer to its hurray_plugin_table, which starts
 *      with the table's struct_size and the ABI version the plugin was built
 *      against.
 *   4. The majors must be equal. The host reads only the bytes the plugin's
 *      struct_size covers; a field past them reads as NULL / zero. Required
 *      entries must be non-NULL; an optional entry that is NULL means "not
 *      supported" and the host never calls it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGIN_VENDOR_H
#define HURRAY_PLUGIN_VENDOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hurray/buffer.h"
#include "hurray/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Part 1: the ABI a plugin implements                                      */
/* ======================================================================== */

/* ------------------------------------------------------------------------ */
/* Versions (PL-VER-1..4)                                                   */
/* ------------------------------------------------------------------------ */

/** Major of the plugin ABI: bumped only for incompatible changes. */
#define HURRAY_PLUGIN_ABI_MAJOR 1u
/** Minor of the plugin ABI: bumped when fields are appended to a struct.
 * 1.1 appended native_event (PL-EVENT-5), export_memory and import_memory
 * (PL-IPC-1..6), create_event_flags, export_event and import_event
 * (PL-IPC-7..11) to hurray_plugin_table. */
#define HURRAY_PLUGIN_ABI_MINOR 1u
/** One u32: major in the high 16 bits, minor in the low 16 bits. */
#define HURRAY_PLUGIN_ABI_MAKE(major, minor) ((uint32_t)(((major) << 16) | (minor)))
#define HURRAY_PLUGIN_ABI_VERSION \
  HURRAY_PLUGIN_ABI_MAKE(HURRAY_PLUGIN_ABI_MAJOR, HURRAY_PLUGIN_ABI_MINOR)
#define HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(version) ((uint32_t)(version) >> 16)
#define HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(version) ((uint32_t)(version)&0xFFFFu)

/* ------------------------------------------------------------------------ */
/* Limits and flags                                                         */
/* ------------------------------------------------------------------------ */

/** Most devices one plugin can report (PL-DEV-4). */
#define HURRAY_PLUGIN_MAX_DEVICES 256u
/** Most memory classes one device can declare. */
#define HURRAY_PLUGIN_MAX_MEMORY_CLASSES 8u
/** Capacity of a device name, the terminating NUL included. */
#define HURRAY_PLUGIN_DEVICE_NAME_SIZE 64u
/** Longest plugin name (bytes, without the NUL): [a-z0-9_-], 1..31 (PL-TABLE-4). */
#define HURRAY_PLUGIN_NAME_MAX 31u
/** Longest plugin version string (bytes, without the NUL) (PL-TABLE-4). */
#define HURRAY_PLUGIN_VERSION_MAX 31u
/** Largest alignment the ABI can carry: the handle's alignment field is u32. */
#define HURRAY_PLUGIN_MAX_ALIGNMENT 0x80000000u
/** A timeout that never expires (wait_event, wait_stream). */
#define HURRAY_PLUGIN_WAIT_FOREVER UINT64_MAX

/** hurray_plugin_memory_class_info.flags: the host may dereference the memory. */
#define HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE 0x1u

/** allocate() flags (ABI 1.1): memory another process can import (PL-IPC-1). */
#define HURRAY_PLUGIN_ALLOCATE_EXPORTABLE 0x1u
/** Every allocate() flag this version defines. */
#define HURRAY_PLUGIN_ALLOCATE_KNOWN_FLAGS HURRAY_PLUGIN_ALLOCATE_EXPORTABLE

/**
 * How hurray_plugin_allocation.alignment was obtained (PL-ALLOC-3). A plugin
 * measures it from an address wherever the runtime gives one.
 */
typedef uint8_t hurray_plugin_alignment_basis;
/* The values of hurray_plugin_alignment_basis: constants only (HO-ABI-4). */
enum {
  /** Measured from host_address (the host pointer of the memory). */
  HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST = 0,
  /** Measured from device_address (the device's virtual address). */
  HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE = 1,
  /**
   * The memory is an opaque object with no address the runtime reveals (an
   * OpenCL cl_mem without SVM); alignment is the base-address guarantee the
   * device reports at run time (e.g. CL_DEVICE_MEM_BASE_ADDR_ALIGN), never
   * the alignment that was requested.
   */
  HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE = 2
};

/* ------------------------------------------------------------------------ */
/* Structs the plugin fills (growable: struct_size first, PL-NEG-4)         */
/* ------------------------------------------------------------------------ */

/** One memory class a device can allocate. */
typedef struct hurray_plugin_memory_class_info {
  /** The class byte; the (plugin tag, class) pair must be valid (BP-PAIR-1). */
  hurray_memory_class memory_class;
  uint8_t reserved[3];
  /** HURRAY_PLUGIN_MEMORY_* bits. */
  uint32_t flags;
  /** The largest alignment allocate() can obtain in this class (power of two, >= 64). */
  uint32_t max_alignment;
} hurray_plugin_memory_class_info;

/**
 * What describe_device() reports. The caller sets struct_size to the size it
 * knows and zero-fills the rest; the plugin writes only bytes below that
 * size (hurray_plugin_copy_out() does this).
 */
typedef struct hurray_plugin_device_info {
  uint32_t struct_size;
  /** HURRAY_IPC_EXPORTS_EVENTS / _STREAMS: what crosses processes (BP-XPORT-3). */
  uint32_t ipc_capabilities;
  /** NUL-terminated device name, e.g. "pthread-skylake-avx512" or "llvmpipe". */
  char name[HURRAY_PLUGIN_DEVICE_NAME_SIZE];
  /** Device memory in bytes; 0 when the runtime does not say. */
  uint64_t memory_bytes;
  /** Entries used in memory_classes[], 1..HURRAY_PLUGIN_MAX_MEMORY_CLASSES. */
  uint32_t memory_class_count;
  uint32_t reserved;
  hurray_plugin_memory_class_info memory_classes[HURRAY_PLUGIN_MAX_MEMORY_CLASSES];
} hurray_plugin_device_info;

/**
 * One allocation, as allocate() reports it. The same struct is handed back to
 * free() and the copy entries unchanged.
 */
typedef struct hurray_plugin_allocation {
  uint32_t struct_size;
  /**
   * The alignment actually obtained (PL-ALLOC-3): a power of two, at least
   * the one requested, measured as alignment_basis says. The library builds
   * the buffer handle from this value and checks it against host_address and
   * device_address.
   */
  uint32_t alignment;
  uint64_t byte_size;
  /**
   * The buffer's base address as the handoff carries it, per the device's
   * memory model (BP-DEV-5): a host pointer, a device pointer, or the
   * runtime's object (cl_mem, VkDeviceMemory) for opaque memory.
   */
  void *address;
  /** A pointer the host may dereference, or NULL when the memory is not host-accessible. */
  void *host_address;
  /** The device virtual address, or 0 when the runtime gives none. */
  uint64_t device_address;
  /** Plugin-private bookkeeping; the host never reads it. */
  void *plugin_data;
  uint32_t device_index;
  hurray_memory_class memory_class;
  /** A hurray_plugin_alignment_basis value. */
  hurray_plugin_alignment_basis alignment_basis;
  uint8_t reserved[2];
} hurray_plugin_allocation;

/**
 * Writes the fields of a plugin-side struct `src` of `src_size` bytes into
 * the caller's struct `dst`, whose first u32 is the size the caller knows:
 * only min(dst size, src_size) bytes, and dst's struct_size is kept. This is
 * how a plugin built for one minor answers a host built for another (PL-NEG-4).
 */
static inline void hurray_plugin_copy_out(void *dst, const void *src, size_t src_size) {
  uint32_t dst_size;
  memcpy(&dst_size, dst, sizeof dst_size);
  size_t n = dst_size < src_size ? dst_size : src_size;
  if (n > sizeof dst_size) {
    memcpy((unsigned char *)dst + sizeof dst_size, (const unsigned char *)src + sizeof dst_size,
           n - sizeof dst_size);
  }
}

/* ------------------------------------------------------------------------ */
/* Entry points (PL-CALL-1..)                                               */
/* ------------------------------------------------------------------------ */
/*
 * Every fallible entry returns a hurray_status and fills `err` (never NULL
 * when the library calls) with the offending values and, in `detail`, the
 * vendor call and error name ("clCreateBuffer: CL_INVALID_BUFFER_SIZE (-61)").
 * `state` is what init() returned. Every entry except init and shutdown may
 * be called from any thread, concurrently (PL-CALL-2).
 */

/** Sets up the plugin; *out_state is passed back to every other entry. A
 * missing vendor runtime is NOT a failure: init succeeds, count_devices
 * reports 0 and unavailable_reason says why (PL-AVAIL-1). */
typedef hurray_status (*hurray_plugin_init_fn)(void **out_state, hurray_error *err);
/** Releases everything init() set up. Called once, after every buffer and
 * event of this state was freed. */
typedef void (*hurray_plugin_shutdown_fn)(void *state);
/** Number of usable devices; 0 when the runtime is missing. */
typedef hurray_status (*hurray_plugin_count_devices_fn)(void *state, uint32_t *out_count,
                                                        hurray_error *err);
/** Fills *out (its struct_size set by the caller) for device index < count. */
typedef hurray_status (*hurray_plugin_describe_device_fn)(void *state, uint32_t device_index,
                                                          hurray_plugin_device_info *out,
                                                          hurray_error *err);
/**
 * Allocates byte_size (> 0) bytes of memory_class on the device with at
 * least `alignment` (a power of two, >= 64). `flags`: 0, or (ABI 1.1, only
 * to a plugin with export_memory) HURRAY_PLUGIN_ALLOCATE_EXPORTABLE. A class
 * the device does not offer, or an alignment it cannot obtain, is
 * HURRAY_ERR_UNSUPPORTED — never a silent downgrade (PL-ALLOC-2). Out of
 * memory is HURRAY_ERR_OUT_OF_MEMORY (value: byte_size). *out's struct_size
 * is set by the caller.
 */
typedef hurray_status (*hurray_plugin_allocate_fn)(void *state, uint32_t device_index,
                                                   uint64_t byte_size, uint32_t alignment,
                                                   hurray_memory_class memory_class, uint32_t flags,
                                                   hurray_plugin_allocation *out,
                                                   hurray_error *err);
/** Frees an allocation made by allocate() on this state. Never fails. */
typedef void (*hurray_plugin_free_fn)(void *state, const hurray_plugin_allocation *allocation);
/** Copies `bytes` from host memory `src` to dst at dst_offset. Blocking:
 * the bytes are on the device when it returns (PL-COPY-1). */
typedef hurray_status (*hurray_plugin_copy_to_device_fn)(void *state,
                                                         const hurray_plugin_allocation *dst,
                                                         uint64_t dst_offset, const void *src,
                                                         uint64_t bytes, hurray_error *err);
/** Copies `bytes` from src at src_offset to host memory `dst`. Blocking. */
typedef hurray_status (*hurray_plugin_copy_to_host_fn)(void *state, void *dst,
                                                       const hurray_plugin_allocation *src,
                                                       uint64_t src_offset, uint64_t bytes,
                                                       hurray_error *err);
/** Optional. Why the plugin has no devices ("libOpenCL.so.1: cannot open
 * shared object file"); snprintf-style, returns the length, "" (0) when
 * devices are available. */
typedef size_t (*hurray_plugin_unavailable_reason_fn)(void *state, char *buf, size_t cap);
/** Optional (events: all four or none, PL-TABLE-6). Creates an event on a
 * device. A fresh event, never recorded, counts as complete. */
typedef hurray_status (*hurray_plugin_create_event_fn)(void *state, uint32_t device_index,
                                                       void **out_event, hurray_error *err);
/** Records the event on `stream` (the runtime's queue; NULL: the plugin's
 * default queue of the event's device): it completes when all work submitted
 * there before it has completed. Re-recording replaces the previous point. */
typedef hurray_status (*hurray_plugin_record_event_fn)(void *state, void *event, void *stream,
                                                       hurray_error *err);
/** Blocks the calling thread until the event completes, or fails with
 * HURRAY_ERR_TIMEOUT (value: timeout_ns) after timeout_ns nanoseconds. */
typedef hurray_status (*hurray_plugin_wait_event_fn)(void *state, void *event, uint64_t timeout_ns,
                                                     hurray_error *err);
/** Destroys the event. Never fails; callable from any thread. */
typedef void (*hurray_plugin_release_event_fn)(void *state, void *event);
/** Optional. Blocks until all work on `stream` (NULL: the device's default
 * queue) has completed, or HURRAY_ERR_TIMEOUT. */
typedef hurray_status (*hurray_plugin_wait_stream_fn)(void *state, uint32_t device_index,
                                                      void *stream, uint64_t timeout_ns,
                                                      hurray_error *err);
/** Optional. Makes later work on `stream` (NULL: default queue) wait for the
 * event on the device, without blocking the host. */
typedef hurray_status (*hurray_plugin_stream_wait_event_fn)(void *state, void *stream, void *event,
                                                            hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Native event handles (PL-EVENT-5, ABI 1.1)                               */
/* ------------------------------------------------------------------------ */

/* What hurray_plugin_native_event.native_type names: the runtime's own type
 * of the handle, so a consumer can wait on it with that runtime's API. */
/** No native handle (never returned with HURRAY_OK). */
#define HURRAY_NATIVE_EVENT_NONE 0u
/** CUDA driver API `CUevent` (handle: the pointer). */
#define HURRAY_NATIVE_EVENT_CU_EVENT 1u
/** ROCm HIP `hipEvent_t` (handle: the pointer). */
#define HURRAY_NATIVE_EVENT_HIP_EVENT 2u
/** Metal `id<MTLSharedEvent>` (handle: the object pointer; wait_value: the
 * signaled value to wait for). */
#define HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT 3u
/** Vulkan timeline `VkSemaphore` (handle: the 64-bit non-dispatchable
 * handle; wait_value: the counter value to wait for; device: the VkDevice). */
#define HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE 4u
/** Vulkan `VkFence` (handle: the 64-bit handle; device: the VkDevice). */
#define HURRAY_NATIVE_EVENT_VK_FENCE 5u
/** Level Zero `ze_event_handle_t` (handle: the pointer). */
#define HURRAY_NATIVE_EVENT_ZE_EVENT 6u
/** OpenCL `cl_event` (handle: the pointer). */
#define HURRAY_NATIVE_EVENT_CL_EVENT 7u
/** First value a plugin of a private tag (0xF0..0xFE) may use for its own
 * runtime's type; the named types above are reserved to their devices. */
#define HURRAY_NATIVE_EVENT_PRIVATE_FIRST 0x80000000u

/**
 * The runtime's own handle behind a plugin event (PL-EVENT-5). Growable: the
 * caller sets struct_size; the library writes at most that many bytes.
 */
typedef struct hurray_plugin_native_event {
  /** sizeof(hurray_plugin_native_event) as the caller was compiled. */
  uint32_t struct_size;
  /** HURRAY_NATIVE_EVENT_*. */
  uint32_t native_type;
  /** The handle: a pointer (as uintptr_t) or a 64-bit Vulkan handle. Never 0. */
  uint64_t handle;
  /** The value to wait for (timeline semaphores, shared events); else 0. */
  uint64_t wait_value;
  /** The runtime object the handle belongs to where its API needs one to
   * wait (VkDevice, as uintptr_t); else 0. */
  uint64_t device;
  /** The plugin device index of the event. */
  uint32_t device_index;
  /** Zero. */
  uint32_t reserved;
} hurray_plugin_native_event;

/** Optional (ABI 1.1; set only with the event entries, PL-TABLE-10). Fills
 * `out` (the host has zeroed it and set struct_size) with the runtime's
 * handle of the event's last record. UNSUPPORTED when the event has no
 * native handle, INVALID_ARGUMENT when it was never recorded and the
 * runtime has no handle before a record (OpenCL). */
typedef hurray_status (*hurray_plugin_native_event_fn)(void *state, void *event,
                                                       hurray_plugin_native_event *out,
                                                       hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Memory shared with another process (PL-IPC-1..6, ABI 1.1)                */
/* ------------------------------------------------------------------------ */

/** hurray_plugin_ipc_memory.kind: `fd` is a descriptor to map or import. */
#define HURRAY_PLUGIN_IPC_MEMORY_FD 1u
/** hurray_plugin_ipc_memory.kind: `handle` holds a runtime's opaque IPC handle. */
#define HURRAY_PLUGIN_IPC_MEMORY_HANDLE 2u
/** Bytes of the largest runtime IPC handle (cuIpcMemHandle, hipIpcMemHandle_t). */
#define HURRAY_PLUGIN_IPC_HANDLE_SIZE 64u

/**
 * An exported buffer as another process imports it (PL-IPC-2, PL-IPC-3).
 * Growable: struct_size first. 144 bytes, no implicit padding.
 */
typedef struct hurray_plugin_ipc_memory {
  /** sizeof(hurray_plugin_ipc_memory) as the writer was compiled. */
  uint32_t struct_size;
  /** HURRAY_PLUGIN_IPC_MEMORY_*. */
  uint32_t kind;
  /** kind FD: the descriptor (the receiver's own, after SCM_RIGHTS); -1 otherwise. */
  int32_t fd;
  /** kind HANDLE: bytes of `handle` used; 0 otherwise. */
  uint32_t handle_size;
  /** kind HANDLE: the runtime's IPC handle. */
  uint8_t handle[HURRAY_PLUGIN_IPC_HANDLE_SIZE];
  /** The exporting device's identity (Vulkan deviceUUID, …) where the runtime has one; zeros otherwise. */
  uint8_t device_uuid[16];
  /** The exporting driver's identity (Vulkan driverUUID) where the runtime has one; zeros
   * otherwise. An importer refuses memory whose identities are not its own. */
  uint8_t driver_uuid[16];
  /** Bytes of the shared object (the memfd, the runtime's allocation). */
  uint64_t segment_size;
  /** Where the buffer starts in it. */
  uint64_t offset;
  /** The buffer's size, as its handle declares. */
  uint64_t byte_size;
  /** The alignment the exporter measured (its handle's). */
  uint32_t alignment;
  hurray_device_tag device_tag;
  hurray_memory_class memory_class;
  /** Zero. */
  uint8_t reserved[2];
} hurray_plugin_ipc_memory;

/** Optional (ABI 1.1, with import_memory, PL-IPC-5). Fills `out` (zeroed by
 * the host, struct_size set, fd -1) for an allocation made with
 * HURRAY_PLUGIN_ALLOCATE_EXPORTABLE; a descriptor it returns is new and
 * becomes the caller's. UNSUPPORTED for any other allocation. */
typedef hurray_status (*hurray_plugin_export_memory_fn)(void *state,
                                                        const hurray_plugin_allocation *allocation,
                                                        hurray_plugin_ipc_memory *out,
                                                        hurray_error *err);
/** Optional (ABI 1.1, with export_memory). Maps or imports `in` (checked by
 * the host, PL-IPC-3) on the device and fills *out like allocate() does;
 * free() later undoes the import only. The caller keeps in->fd. */
typedef hurray_status (*hurray_plugin_import_memory_fn)(void *state, uint32_t device_index,
                                                        const hurray_plugin_ipc_memory *in,
                                                        hurray_plugin_allocation *out,
                                                        hurray_error *err);

/* ------------------------------------------------------------------------ */
/* Events shared with another process (PL-IPC-7..11, ABI 1.1)               */
/* ------------------------------------------------------------------------ */

/** create_event_flags() flags: an event another process can open
 * (PL-IPC-7); runtimes fix this at creation (CU_EVENT_INTERPROCESS). */
#define HURRAY_PLUGIN_EVENT_EXPORTABLE 0x1u
/** Every event creation flag this version defines. */
#define HURRAY_PLUGIN_EVENT_KNOWN_FLAGS HURRAY_PLUGIN_EVENT_EXPORTABLE
/** hurray_plugin_ipc_event.kind: `handle` holds a runtime's opaque IPC event
 * handle. The value of HURRAY_PLUGIN_IPC_MEMORY_HANDLE, so a kind reads the
 * same in both records; 1 stays free for a descriptor kind. */
#define HURRAY_PLUGIN_IPC_EVENT_HANDLE 2u

/**
 * An exported event as another process opens it (PL-IPC-8, PL-IPC-9).
 * Growable: struct_size first. 112 bytes, no implicit padding.
 */
typedef struct hurray_plugin_ipc_event {
  /** sizeof(hurray_plugin_ipc_event) as the writer was compiled. */
  uint32_t struct_size;
  /** HURRAY_PLUGIN_IPC_EVENT_HANDLE. */
  uint32_t kind;
  /** Bytes of `handle` used, 1..HURRAY_PLUGIN_IPC_HANDLE_SIZE. */
  uint32_t handle_size;
  /** The exporting plugin's tag; an importer of another tag refuses it. */
  hurray_device_tag device_tag;
  /** Zero. */
  uint8_t reserved[3];
  /** The runtime's IPC event handle (cuIpcEventHandle, hipIpcEventHandle_t). */
  uint8_t handle[HURRAY_PLUGIN_IPC_HANDLE_SIZE];
  /** The exporting device's identity where the runtime has one; zeros otherwise. */
  uint8_t device_uuid[16];
  /** The exporting driver's identity where the runtime has one; zeros otherwise. */
  uint8_t driver_uuid[16];
} hurray_plugin_ipc_event;

/** Optional (ABI 1.1, with export_event and import_event, PL-IPC-10).
 * Creates an event as create_event() does; `flags` is
 * HURRAY_PLUGIN_EVENT_EXPORTABLE (the host passes no other value, and flags
 * 0 go to create_event): an event export_event() can describe. A device that
 * cannot make one says UNSUPPORTED. */
typedef hurray_status (*hurray_plugin_create_event_flags_fn)(void *state, uint32_t device_index,
                                                             uint32_t flags, void **out_event,
                                                             hurray_error *err);
/** Optional (ABI 1.1, PL-IPC-8). Fills `out` (zeroed by the host,
 * struct_size set) with kind, handle_size and handle (and the identities
 * where the runtime has them) of an event made by create_event_flags(). */
typedef hurray_status (*hurray_plugin_export_event_fn)(void *state, void *event,
                                                       hurray_plugin_ipc_event *out,
                                                       hurray_error *err);
/** Optional (ABI 1.1, PL-IPC-9). Opens `in` (checked by the host) on the
 * device as an event that wait_event, stream_wait_event, native_event and
 * release_event accept; release_event later closes the import only. */
typedef hurray_status (*hurray_plugin_import_event_fn)(void *state, uint32_t device_index,
                                                       const hurray_plugin_ipc_event *in,
                                                       void **out_event, hurray_error *err);

/* ------------------------------------------------------------------------ */
/* The table (PL-TABLE-1..8)                                                */
/* ------------------------------------------------------------------------ */

/**
 * What the entry symbol returns. Usually one `static const` object in the
 * plugin. Fields are only ever appended (PL-VER-2); a plugin sets
 * struct_size = sizeof(hurray_plugin_table) as it was compiled.
 */
typedef struct hurray_plugin_table {
  /** sizeof(hurray_plugin_table) in the plugin; at least HURRAY_PLUGIN_TABLE_MIN_SIZE. */
  uint32_t struct_size;
  /** HURRAY_PLUGIN_ABI_VERSION the plugin was compiled with. */
  uint32_t abi_version;
  /** Short name, [a-z0-9_-]{1,31}: "cpu", "opencl", "example-private". */
  const char *name;
  /** The plugin's own version, 1..31 printable bytes: "1.0.0". */
  const char *plugin_version;
  /** The one device tag the plugin serves: named (0x00..0x08) or private (0xF0..0xFE). */
  hurray_device_tag device_tag;
  /** Must be zero. */
  uint8_t reserved[7];
  /* Required (non-NULL). */
  hurray_plugin_init_fn init;
  hurray_plugin_shutdown_fn shutdown;
  hurray_plugin_count_devices_fn count_devices;
  hurray_plugin_describe_device_fn describe_device;
  hurray_plugin_allocate_fn allocate;
  hurray_plugin_free_fn free;
  hurray_plugin_copy_to_device_fn copy_to_device;
  hurray_plugin_copy_to_host_fn copy_to_host;
  /* Optional (NULL: not supported). */
  hurray_plugin_unavailable_reason_fn unavailable_reason;
  hurray_plugin_create_event_fn create_event;
  hurray_plugin_record_event_fn record_event;
  hurray_plugin_wait_event_fn wait_event;
  hurray_plugin_release_event_fn release_event;
  hurray_plugin_wait_stream_fn wait_stream;
  hurray_plugin_stream_wait_event_fn stream_wait_event;
  /* ABI 1.1 (optional, PL-VER-3). */
  hurray_plugin_native_event_fn native_event;
  hurray_plugin_export_memory_fn export_memory;
  hurray_plugin_import_memory_fn import_memory;
  /* ABI 1.1, events across processes (optional, all three or none, PL-IPC-10). */
  hurray_plugin_create_event_flags_fn create_event_flags;
  hurray_plugin_export_event_fn export_event;
  hurray_plugin_import_event_fn import_event;
  /* ABI 1.2 and later append here. */
} hurray_plugin_table;

/** The smallest struct_size accepted: the header and every required entry (PL-NEG-3). */
#define HURRAY_PLUGIN_TABLE_MIN_SIZE \
  ((uint32_t)(offsetof(hurray_plugin_table, copy_to_host) + sizeof(hurray_plugin_copy_to_host_fn)))

/** The size of a table built against plugin ABI 1.0 (no native_event). */
#define HURRAY_PLUGIN_TABLE_SIZE_1_0 ((uint32_t)offsetof(hurray_plugin_table, native_event))

/** The size of a table built against an unreleased snapshot of 1.1 that
 * ended with import_memory (no event export, PL-IPC-10); it keeps loading. */
#define HURRAY_PLUGIN_TABLE_SIZE_1_1_MEMORY \
  ((uint32_t)offsetof(hurray_plugin_table, create_event_flags))

/** The name of the one symbol a plugin exports (PL-ENTRY-1). */
#define HURRAY_PLUGIN_ENTRY_SYMBOL "hurray_plugin_entry"

/**
 * The entry symbol's type. Called by the host with the ABI version it speaks;
 * returns the plugin's table (normally whatever that version, so the host
 * can report a mismatch precisely), or NULL to decline that host.
 */
typedef const hurray_plugin_table *(*hurray_plugin_entry_fn)(uint32_t host_abi_version);

/** Marks the entry symbol for export from a plugin built with hidden visibility. */
#if defined(__GNUC__) || defined(__clang__)
#define HURRAY_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define HURRAY_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* HURRAY_PLUGIN_VENDOR_H */
