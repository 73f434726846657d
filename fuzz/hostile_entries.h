/*
 * What the parts of the hostile plugin share (fuzz/hostile_plugin.h is what
 * the harnesses see): the stream every entry reads its answer from, the
 * status and error it answers with, and the entries the table points at.
 * fuzz/hostile_plugin.c holds the stream, the answers and the table;
 * fuzz/hostile_devices.c, fuzz/hostile_memory.c and fuzz/hostile_events.c
 * the entries.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_HOSTILE_ENTRIES_H
#define HURRAY_FUZZ_HOSTILE_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostile_plugin.h"
#include "hurray/plugin.h"

/* Where the answers come from (hostile_set_source); NULL answers correctly. */
extern hostile_source *hostile_stream;
/* What init hands the host as its state; every other entry checks it. */
extern int hostile_state_marker;

/* The status an entry returns and what it writes into the host's error,
 * read from the stream; recorded in hostile_seen. */
hurray_status hostile_answer(hurray_error *err, const char *entry);
/* A failure the plugin decides after hostile_answer said OK (its own limits). */
hurray_status hostile_fail_now(hurray_status status, bool detail_given);

/* PL-TABLE-8: an entry the host must not call. */
#define OFFERED(which) FUZZ_CHECK(hostile_offered(which))

/* Lifetime and devices (fuzz/hostile_devices.c). */
hurray_status h_init(void **out_state, hurray_error *err);
void h_shutdown(void *state);
hurray_status h_count(void *state, uint32_t *out, hurray_error *err);
hurray_status h_describe(void *state, uint32_t index, hurray_plugin_device_info *out,
                         hurray_error *err);
size_t h_reason(void *state, char *buf, size_t cap);

/* Memory (fuzz/hostile_memory.c). */
hurray_status h_allocate(void *state, uint32_t device_index, uint64_t byte_size, uint32_t alignment,
                         hurray_memory_class memory_class, uint32_t flags,
                         hurray_plugin_allocation *out, hurray_error *err);
void h_free(void *state, const hurray_plugin_allocation *a);
hurray_status h_to_device(void *state, const hurray_plugin_allocation *dst, uint64_t offset,
                          const void *src, uint64_t bytes, hurray_error *err);
hurray_status h_to_host(void *state, void *dst, const hurray_plugin_allocation *src,
                        uint64_t offset, uint64_t bytes, hurray_error *err);
hurray_status h_export_memory(void *state, const hurray_plugin_allocation *allocation,
                              hurray_plugin_ipc_memory *out, hurray_error *err);
hurray_status h_import_memory(void *state, uint32_t device_index,
                              const hurray_plugin_ipc_memory *in, hurray_plugin_allocation *out,
                              hurray_error *err);

/* Events (fuzz/hostile_events.c). */
hurray_status h_create_event(void *state, uint32_t device_index, void **out, hurray_error *err);
hurray_status h_create_event_flags(void *state, uint32_t device_index, uint32_t flags, void **out,
                                   hurray_error *err);
hurray_status h_record(void *state, void *event, void *stream, hurray_error *err);
hurray_status h_wait(void *state, void *event, uint64_t timeout, hurray_error *err);
void h_release(void *state, void *event);
hurray_status h_wait_stream(void *state, uint32_t device_index, void *stream, uint64_t timeout,
                            hurray_error *err);
hurray_status h_stream_wait(void *state, void *stream, void *event, hurray_error *err);
hurray_status h_native(void *state, void *event, hurray_plugin_native_event *out,
                       hurray_error *err);
hurray_status h_export_event(void *state, void *event, hurray_plugin_ipc_event *out,
                             hurray_error *err);
hurray_status h_import_event(void *state, uint32_t device_index, const hurray_plugin_ipc_event *in,
                             void **out, hurray_error *err);

#endif /* HURRAY_FUZZ_HOSTILE_ENTRIES_H */
