/*
 * What the parts of the plugin_host harness share: the state one input
 * drives (fuzz/fuzz_plugin_host.c holds it, with the load, the queries and
 * the driver), the checks every call gets, and the operations on buffers
 * (fuzz/plugin_host_buffers.c) and events (fuzz/plugin_host_events.c).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_PLUGIN_HOST_HARNESS_H
#define HURRAY_FUZZ_PLUGIN_HOST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "hostile_plugin.h"
#include "hurray/plugin.h"

#define LINKED_NAME "hostile-linked"
#define SLOTS 6

extern hostile_source host_input; /* read in turn by the harness and the plugin */
extern hurray_plugin_registry *host_registry;
extern hurray_plugin *host_plugin; /* NULL once unloaded */
extern hurray_plugin_buffer *host_buffers[SLOTS];
extern bool host_buffer_live[SLOTS];
extern hurray_plugin_event *host_events[SLOTS];
extern uint32_t host_event_flags[SLOTS];
extern hurray_error host_err; /* the caller's error of every call */

/* Fills the caller's error with garbage before a call (PL-CALL-3: the host
 * never reads it). */
void host_poison(void);
/* Every answer: a defined status; a failure fills the error. */
hurray_status host_checked(hurray_status s);
/* PL-CALL-3, PL-CALL-4: after a call in which the plugin answered last
 * with a failure, the caller gets that failure as the rules map it. */
void check_plugin_failure(hurray_status s, uint32_t answers_before);

/* Buffers (fuzz/plugin_host_buffers.c). */
void op_allocate(void);
void op_import(void);
void op_release(void);
void op_copy(bool write);
void op_export(void);

/* Events (fuzz/plugin_host_events.c). */
void op_event_create(void);
void op_event_use(void);
void op_event_native(void);
void op_event_export(void);
void op_event_import(void);
void op_event_release(void);

#endif /* HURRAY_FUZZ_PLUGIN_HOST_HARNESS_H */
