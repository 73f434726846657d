/*
 * The fuzz-driven plugin (fuzz/hostile_plugin.h): the byte stream its
 * answers come from, the status and error every entry answers with
 * (hostile_answer), and the table its entry point hands the host. The
 * entries are in fuzz/hostile_devices.c (lifetime and devices),
 * fuzz/hostile_memory.c and fuzz/hostile_events.c; each says how its
 * out-struct departs from a correct answer.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "hostile_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "hostile_entries.h"
#include "hurray/plugin_support.h"

FUZZ_ORACLE_BEGIN

hostile_config hostile_table_config;
hostile_record hostile_seen;

hostile_source *hostile_stream;
static hurray_plugin_table *table_block; /* the entry's table, exactly struct_size bytes */
static char *name_block;
static char *version_block;
int hostile_state_marker;

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

void hostile_set_source(hostile_source *s) { hostile_stream = s; }

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
    offsetof(hurray_plugin_table, unavailable_reason), offsetof(hurray_plugin_table, create_event),
    offsetof(hurray_plugin_table, record_event),       offsetof(hurray_plugin_table, wait_event),
    offsetof(hurray_plugin_table, release_event),      offsetof(hurray_plugin_table, wait_stream),
    offsetof(hurray_plugin_table, stream_wait_event),  offsetof(hurray_plugin_table, native_event),
    offsetof(hurray_plugin_table, export_memory),      offsetof(hurray_plugin_table, import_memory),
    offsetof(hurray_plugin_table, create_event_flags), offsetof(hurray_plugin_table, export_event),
    offsetof(hurray_plugin_table, import_event),
};

bool hostile_offered(unsigned which) {
  const hostile_config *c = &hostile_table_config;
  size_t known = c->struct_size < sizeof(hurray_plugin_table) ? c->struct_size
                                                              : sizeof(hurray_plugin_table);
  return (c->optional & (1u << which)) != 0u &&
         optional_offsets[which] + sizeof(void (*)(void)) <= known;
}

/* The status an entry returns and what it writes into the host's error:
 * byte bits 0-1: OK (0, 1), a defined failure (2), a value outside
 * hurray_status (3); bits 2-3: no reason, a reason, a detail without a
 * terminator, a reason with payload values. */
hurray_status hostile_answer(hurray_error *err, const char *entry) {
  uint8_t b = hostile_u8(hostile_stream);
  hurray_status status = HURRAY_OK;
  switch (b & 3u) {
    case 2:
      status =
          (hurray_status)(1u + hostile_u8(hostile_stream) % ((unsigned)HURRAY_STATUS_COUNT - 1u));
      break;
    case 3:
      status = (b & 0x80u) != 0u
                   ? (hurray_status)-1
                   : (hurray_status)((unsigned)HURRAY_STATUS_COUNT + hostile_u8(hostile_stream));
      break;
    default: break;
  }
  unsigned mode = (b >> 2) & 3u;
  if (status != HURRAY_OK) {
    switch (mode) {
      case 1:
        (void)hurray_support_entry_fail(err, status, hostile_u8(hostile_stream), 0,
                                        "hostile: %s: vendorCall: VENDOR_ERROR (%d)", entry,
                                        (int)status);
        break;
      case 2: memset(err->detail, 'u', sizeof err->detail); break;
      case 3:
        err->status = (hurray_status)hostile_u8(hostile_stream);
        err->value = hostile_u64(hostile_stream);
        err->expected = hostile_u64(hostile_stream);
        err->index = hostile_u8(hostile_stream);
        snprintf(err->detail, sizeof err->detail, "%s: reason with values", entry);
        break;
      default: break;
    }
  }
  hostile_seen.last_status = status;
  hostile_seen.last_detail_given = status != HURRAY_OK && mode != 0u;
  hostile_seen.answers++;
  return status;
}

hurray_status hostile_fail_now(hurray_status status, bool detail_given) {
  hostile_seen.last_status = status;
  hostile_seen.last_detail_given = detail_given;
  return status;
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
