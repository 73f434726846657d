/*
 * Plugins the loader must refuse, one per way of breaking the ABI, plus the
 * valid ones the negotiation tests need. Built several times by
 * tests/plugins/meson.build, each with one BROKEN_* or VARIANT_* macro.
 * The entries are a minimal host-memory implementation: what is under test
 * is the table, not the memory.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin.h"

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "broken"
#endif
#ifndef PLUGIN_TAG
#define PLUGIN_TAG 0xF7u
#endif
#ifndef PLUGIN_DEVICE_COUNT
#define PLUGIN_DEVICE_COUNT 1u
#endif

static hurray_status t_init(void **out_state, hurray_error *err) {
#ifdef BROKEN_INIT_SILENT
  /* Fails and leaves err exactly as it found it (PL-CALL-3). */
  (void)out_state;
  (void)err;
  return HURRAY_ERR_DEVICE_ERROR;
#endif
#ifdef BROKEN_INIT_UNTERMINATED
  /* Fills every byte of detail, with no terminating NUL (PL-CALL-3). */
  (void)out_state;
  err->status = HURRAY_ERR_DEVICE_ERROR;
  memset(err->detail, 'x', sizeof err->detail);
  return HURRAY_ERR_DEVICE_ERROR;
#endif
#ifdef BROKEN_INIT_STATUS
  /* A status the enum does not define (PL-CALL-4). */
  (void)out_state;
  (void)err;
  return (hurray_status)1000;
#endif
#ifdef BROKEN_INIT_FAILS
  (void)out_state;
  err->status = HURRAY_ERR_DEVICE_ERROR;
  err->value = 42;
  err->expected = 0;
  err->index = 0;
  strcpy(err->detail, "acmeInit: ACME_ERROR_NO_LICENSE (42)");
  return HURRAY_ERR_DEVICE_ERROR;
#endif
  (void)err;
  *out_state = malloc(16);
  return *out_state != NULL ? HURRAY_OK : HURRAY_ERR_OUT_OF_MEMORY;
}
static void t_shutdown(void *state) { free(state); }
static hurray_status t_count(void *state, uint32_t *n, hurray_error *err) {
  (void)state;
  (void)err;
  *n = PLUGIN_DEVICE_COUNT;
  return HURRAY_OK;
}
static hurray_status t_describe(void *state, uint32_t i, hurray_plugin_device_info *out,
                                hurray_error *err) {
  (void)state;
  (void)i;
  (void)err;
  hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  strcpy(info.name, "test host memory");
  info.memory_class_count = 1;
  info.memory_classes[0].memory_class = HURRAY_MEMORY_STANDARD;
  info.memory_classes[0].flags = HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE;
  info.memory_classes[0].max_alignment = 4096;
#ifdef BROKEN_EVENTS_CLAIM
  /* Claims events other processes can wait on, without export_event (PL-DEV-3). */
  info.ipc_capabilities = HURRAY_IPC_EXPORTS_EVENTS;
#endif
#ifdef BROKEN_DEVICE_CLASS
  info.memory_classes[0].memory_class = HURRAY_MEMORY_PEER; /* not valid with a private tag */
#endif
  hurray_plugin_copy_out(out, &info, sizeof info);
  return HURRAY_OK;
}
static hurray_status t_allocate(void *state, uint32_t device, uint64_t size, uint32_t alignment,
                                hurray_memory_class memory_class, uint32_t flags,
                                hurray_plugin_allocation *out, hurray_error *err) {
  (void)state;
  (void)flags;
  (void)err;
  void *p = NULL;
#ifdef BROKEN_ALLOCATE_STATUS
  (void)size;
  (void)device;
  (void)memory_class;
  (void)out;
  (void)p;
  return (hurray_status)77; /* outside hurray_status (PL-CALL-4) */
#endif
#ifdef BROKEN_ALLOCATE_SILENT
  (void)size;
  (void)device;
  (void)memory_class;
  (void)out;
  (void)p;
  return HURRAY_ERR_OUT_OF_MEMORY; /* and no reason given (PL-CALL-3) */
#endif
  if (posix_memalign(&p, alignment, (size_t)size) != 0) {
    return HURRAY_ERR_OUT_OF_MEMORY;
  }
  hurray_plugin_allocation a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.alignment = alignment; /* what posix_memalign guarantees */
#ifdef BROKEN_ALIGNMENT_CLAIM
  a.alignment = 0x80000000u; /* claims more than any heap address has */
#endif
  a.byte_size = size;
  a.address = p;
  a.host_address = p;
#ifdef BROKEN_MISALIGNED_ADDRESS
  /* The host pointer is aligned, the address the handoff carries is not
   * (PL-ALLOC-4, HO-CHECK-3); built with the CPU tag. */
  a.address = (unsigned char *)p + 1;
#endif
  a.device_index = device;
  a.memory_class = memory_class;
  a.alignment_basis = HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST;
  hurray_plugin_copy_out(out, &a, sizeof a);
  return HURRAY_OK;
}
static void t_free(void *state, const hurray_plugin_allocation *a) {
  (void)state;
  free(a->host_address); /* what posix_memalign gave, whatever address says */
}
static hurray_status t_to_device(void *state, const hurray_plugin_allocation *dst, uint64_t off,
                                 const void *src, uint64_t n, hurray_error *err) {
  (void)state;
  (void)err;
  memcpy((unsigned char *)dst->address + off, src, (size_t)n);
  return HURRAY_OK;
}
static hurray_status t_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                               uint64_t off, uint64_t n, hurray_error *err) {
  (void)state;
  (void)err;
  memcpy(dst, (const unsigned char *)src->address + off, (size_t)n);
  return HURRAY_OK;
}
static hurray_status t_create_event(void *state, uint32_t device, void **out, hurray_error *err) {
  (void)state;
  (void)device;
  (void)err;
  *out = malloc(8);
  return *out != NULL ? HURRAY_OK : HURRAY_ERR_OUT_OF_MEMORY;
}
static hurray_status t_record(void *state, void *event, void *stream, hurray_error *err) {
  (void)state;
  (void)event;
  (void)stream;
  (void)err;
  return HURRAY_OK;
}
static hurray_status t_wait(void *state, void *event, uint64_t timeout, hurray_error *err) {
  (void)state;
  (void)event;
  (void)timeout;
  (void)err;
  return HURRAY_OK;
}
static void t_release(void *state, void *event) {
  (void)state;
  free(event);
}
#ifdef BROKEN_EXPORT_WITHOUT_IMPORT
static hurray_status t_export(void *state, const hurray_plugin_allocation *allocation,
                              hurray_plugin_ipc_memory *out, hurray_error *err) {
  (void)state;
  (void)allocation;
  (void)out;
  (void)err;
  return HURRAY_ERR_UNSUPPORTED; /* never called: the table is refused (PL-IPC-5) */
}
#endif
/* PL-EVENT-5: a private runtime's own type; the event's address stands for
 * its handle. BROKEN_NATIVE_TYPE answers a named runtime's type instead. */
static hurray_status t_native(void *state, void *event, hurray_plugin_native_event *out,
                              hurray_error *err) {
  (void)state;
  (void)err;
#ifdef BROKEN_NATIVE_TYPE
  out->native_type = HURRAY_NATIVE_EVENT_CL_EVENT;
#else
  out->native_type = HURRAY_NATIVE_EVENT_PRIVATE_FIRST + 7u;
#endif
  out->handle = (uint64_t)(uintptr_t)event;
  return HURRAY_OK;
}

#if defined(BROKEN_REASON_UNTERMINATED) || defined(BROKEN_PARTIAL_REASON)
/* PL-AVAIL-2: fills every byte it is given, with no terminator, and
 * returns a length it never wrote. */
static size_t t_reason(void *state, char *buf, size_t cap) {
  (void)state;
  memset(buf, 'r', cap);
  return SIZE_MAX;
}
#endif

#if defined(BROKEN_EVENT_IPC_PARTIAL) || defined(BROKEN_EVENT_IPC_WITHOUT_EVENTS) || \
    defined(VARIANT_ABI_1_1_MEMORY)
/* PL-IPC-10: entries the host must refuse (or, past a 1.1-memory table's
 * end, never read); never called. */
static hurray_status t_create_flags(void *state, uint32_t device_index, uint32_t flags,
                                    void **out_event, hurray_error *err) {
  (void)state;
  (void)device_index;
  (void)flags;
  (void)out_event;
  (void)err;
  abort();
}
static hurray_status t_export_event(void *state, void *event, hurray_plugin_ipc_event *out,
                                    hurray_error *err) {
  (void)state;
  (void)event;
  (void)out;
  (void)err;
  abort();
}
#ifndef BROKEN_EVENT_IPC_PARTIAL /* the entry that variant leaves out */
static hurray_status t_import_event(void *state, uint32_t device_index,
                                    const hurray_plugin_ipc_event *in, void **out_event,
                                    hurray_error *err) {
  (void)state;
  (void)device_index;
  (void)in;
  (void)out_event;
  (void)err;
  abort();
}
#endif
#endif

static const struct {
  hurray_plugin_table table;
} t_table = {{
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
    .name = PLUGIN_NAME,
    .plugin_version = "0.0.1",
    .device_tag = PLUGIN_TAG,
    .init = t_init,
    .shutdown = t_shutdown,
    .count_devices = t_count,
    .describe_device = t_describe,
    .allocate = t_allocate,
    .free = t_free,
    .copy_to_device = t_to_device,
    .copy_to_host = t_to_host,
    .create_event = t_create_event,
    .record_event = t_record,
    .wait_event = t_wait,
    .release_event = t_release,
    .native_event = t_native,
}};

#ifdef VARIANT_NEWER_MINOR
static struct {
  hurray_plugin_table table;
  unsigned char later_minor_fields[64];
} wide;
#endif

#ifdef BROKEN_ENTRY_DATA
/* The entry name on a data object: calling it would jump into the table's
 * bytes (PL-ENTRY-5). */
#define BROKEN_NO_ENTRY
HURRAY_PLUGIN_EXPORT extern const hurray_plugin_table hurray_plugin_entry;
HURRAY_PLUGIN_EXPORT const hurray_plugin_table hurray_plugin_entry = {
    .struct_size = sizeof(hurray_plugin_table),
    .abi_version = HURRAY_PLUGIN_ABI_VERSION,
};
#endif

#if defined(BROKEN_NATIVE_WITHOUT_EVENTS) || defined(BROKEN_EVENT_IPC_WITHOUT_EVENTS)
/* Leaves out the four event entries t_table has; a table has all four or
 * none, so whatever else of events the variant keeps, the host must refuse. */
static void drop_events(hurray_plugin_table *table) {
  table->create_event = NULL;
  table->record_event = NULL;
  table->wait_event = NULL;
  table->release_event = NULL;
}
#endif

#if defined(BROKEN_EVENT_IPC_WITHOUT_EVENTS) || defined(VARIANT_ABI_1_1_MEMORY)
/* Declares the three entries of events across processes. */
static void set_event_ipc_entries(hurray_plugin_table *table) {
  table->create_event_flags = t_create_flags;
  table->export_event = t_export_event;
  table->import_event = t_import_event;
}
#endif

#ifdef BROKEN_NO_ENTRY
/* A table that nothing exports under the entry name. */
HURRAY_PLUGIN_EXPORT const void *hurray_test_not_the_entry(void);
#ifdef BROKEN_FOREIGN_ENTRY
/* Defined by foreign_entry_provider.c; using it keeps that library a
 * dependency even under --as-needed. */
const void *hurray_test_foreign_marker(void);
HURRAY_PLUGIN_EXPORT const void *hurray_test_not_the_entry(void) {
  return hurray_test_foreign_marker() != NULL ? (const void *)&t_table : NULL;
}
#else
HURRAY_PLUGIN_EXPORT const void *hurray_test_not_the_entry(void) { return &t_table; }
#endif
#else
static hurray_plugin_table patched;
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);
HURRAY_PLUGIN_EXPORT const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  patched = t_table.table;
#ifdef BROKEN_WRONG_MAJOR
  patched.abi_version = HURRAY_PLUGIN_ABI_MAKE(HURRAY_PLUGIN_ABI_MAJOR + 1u, 0u);
#endif
#ifdef BROKEN_TOO_SMALL
  patched.struct_size = 16;
#endif
#ifdef BROKEN_NULL_REQUIRED
  patched.allocate = NULL;
#endif
#ifdef BROKEN_PARTIAL_EVENTS
  patched.wait_event = NULL;
#endif
#ifdef BROKEN_NATIVE_WITHOUT_EVENTS
  drop_events(&patched);
#endif
#ifdef BROKEN_EXPORT_WITHOUT_IMPORT
  patched.export_memory = t_export;
#endif
#ifdef BROKEN_EVENT_IPC_PARTIAL
  patched.create_event_flags = t_create_flags;
  patched.export_event = t_export_event;
#endif
#ifdef BROKEN_EVENT_IPC_WITHOUT_EVENTS
  drop_events(&patched);
  patched.native_event = NULL;
  set_event_ipc_entries(&patched);
#endif
#ifdef VARIANT_ABI_1_1_MEMORY
  /* Built against the 1.1 header before events crossed processes: its
   * table ends with import_memory; the entries past it (set here) are not
   * the host's to read, so its events are not exportable (PL-IPC-10). */
  patched.struct_size = HURRAY_PLUGIN_TABLE_SIZE_1_1_MEMORY;
  set_event_ipc_entries(&patched);
#endif
#ifdef VARIANT_ABI_1_0
  /* Built against the 1.0 header: its table ends before native_event, and
   * whatever lies past it (here: the entry) is not the host's to read. */
  patched.abi_version = HURRAY_PLUGIN_ABI_MAKE(1u, 0u);
  patched.struct_size = HURRAY_PLUGIN_TABLE_SIZE_1_0;
#endif
#ifdef BROKEN_BAD_NAME
  patched.name = "Bad Name";
#endif
#ifdef BROKEN_REASON_UNTERMINATED
  patched.unavailable_reason = t_reason;
#endif
#ifdef BROKEN_PARTIAL_REASON
  /* PL-NEG-4, PL-TABLE-8: struct_size ends 4 bytes into unavailable_reason;
   * its low 4 bytes followed by zeros are no function of this plugin. */
  patched.unavailable_reason = t_reason;
  patched.struct_size = (uint32_t)offsetof(hurray_plugin_table, unavailable_reason) + 4u;
#endif
#ifdef BROKEN_PARTIAL_NATIVE
  /* The same inside native_event, with the events whole (ABI 1.1). */
  patched.struct_size = (uint32_t)offsetof(hurray_plugin_table, native_event) + 4u;
#endif
#ifdef BROKEN_DECLINES
  return NULL; /* this plugin refuses every host */
#endif
#ifdef VARIANT_OLDER_MINOR
  /* A plugin built before the optional entries existed: only the required part. */
  patched.struct_size = HURRAY_PLUGIN_TABLE_MIN_SIZE;
#endif
#ifdef VARIANT_NEWER_MINOR
  /* Built for a later minor: declares more bytes than this host knows. */
  wide.table = patched;
  wide.table.abi_version = HURRAY_PLUGIN_ABI_MAKE(HURRAY_PLUGIN_ABI_MAJOR, 0x7Fu);
  wide.table.struct_size = (uint32_t)sizeof wide;
  memset(wide.later_minor_fields, 0xEE, sizeof wide.later_minor_fields); /* unknown to this host */
  return &wide.table;
#else
  return &patched;
#endif
}
#endif
