/*
 * The buffer record table (plugin_buffer_table.c) as the files that make,
 * free and use plugin buffers see it: a record per buffer, reached through
 * the token the caller holds (PL-LIFE-3). Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_PLUGIN_BUFFER_TABLE_H
#define HURRAY_CORE_PLUGIN_BUFFER_TABLE_H

#include <stdbool.h>

#include "hurray/plugin.h"

/* A free record for a new buffer, its allocation zeroed with struct_size
 * set, and its token in *token; NULL (err filled, OUT_OF_MEMORY) when the
 * table is full or out of memory. */
hurray_plugin_buffer *hurray_buffer_record_take(hurray_plugin_buffer **token, hurray_error *err);

/* Makes the filled record live, visible to any thread the token reaches. */
void hurray_buffer_record_publish(hurray_plugin_buffer *body);

/* Puts a record that is not live (never published, or finished) back. */
void hurray_buffer_record_give_back(hurray_plugin_buffer *body);

/* The live record behind a token, or NULL (freed, reused, never made). */
const hurray_plugin_buffer *hurray_buffer_record_live(const hurray_plugin_buffer *buffer);

/* Like hurray_buffer_record_live, failing with the PL-LIFE-3 error (`who`
 * names the caller) when the token names no live buffer. */
hurray_status hurray_buffer_record_find(const hurray_plugin_buffer *buffer, const char *who,
                                        const hurray_plugin_buffer **body, hurray_error *err);

/* Ends the buffer's life: exactly one caller of all that race with the
 * same token gets the record (now retiring) and learns whether it was
 * orphaned; every other one gets NULL, *status set to the PL-LIFE-3 error. */
hurray_plugin_buffer *hurray_buffer_record_retire(const hurray_plugin_buffer *buffer,
                                                  const char *who, bool *orphan,
                                                  hurray_status *status, hurray_error *err);

/* The plugin's free of a retired record has returned: the record is free
 * again (an unload waiting on it sees the free complete) and goes back to
 * this thread's cache, as hurray_buffer_record_give_back. One call for
 * both: the free path pays for each call into this file. */
void hurray_buffer_record_finish(hurray_plugin_buffer *body);

#endif /* HURRAY_CORE_PLUGIN_BUFFER_TABLE_H */
