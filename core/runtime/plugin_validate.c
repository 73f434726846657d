/*
 * Validation of what a plugin hands the host: its table (as raw bytes, so a
 * fuzzer can feed any content), the strings the table points to, and device
 * descriptions. Pure: no allocation, no I/O, no global state.
 * Rules: specs/plugin-abi.md PL-NEG-1..5, PL-TABLE-1..10, PL-IPC-5, PL-IPC-10, PL-DEV-1..4.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hurray/plugin.h"
#include "plugin_internal.h"

/* The table's fields the host requires non-NULL, with their names for the
 * error detail (PL-TABLE-5). Order: as in the struct, so the first NULL one
 * in memory is reported. */
typedef struct required_field {
  size_t offset;
  const char *name;
} required_field;

#define REQUIRED(field) \
  { offsetof(hurray_plugin_table, field), #field }
static const required_field required_fields[] = {
    REQUIRED(name),           REQUIRED(plugin_version),  REQUIRED(init),     REQUIRED(shutdown),
    REQUIRED(count_devices),  REQUIRED(describe_device), REQUIRED(allocate), REQUIRED(free),
    REQUIRED(copy_to_device), REQUIRED(copy_to_host),
};
static const required_field event_fields[] = {
    REQUIRED(create_event),
    REQUIRED(record_event),
    REQUIRED(wait_event),
    REQUIRED(release_event),
};
/* Every entry after the required ones (PL-TABLE-1, PL-TABLE-10, PL-IPC-5,
 * PL-IPC-10), in table order: the ones a struct_size may end before or
 * inside (PL-NEG-3 makes it cover every required entry). */
static const required_field optional_fields[] = {
    REQUIRED(unavailable_reason), REQUIRED(create_event),       REQUIRED(record_event),
    REQUIRED(wait_event),         REQUIRED(release_event),      REQUIRED(wait_stream),
    REQUIRED(stream_wait_event),  REQUIRED(native_event),       REQUIRED(export_memory),
    REQUIRED(import_memory),      REQUIRED(create_event_flags), REQUIRED(export_event),
    REQUIRED(import_event),
};
/* The size of one entry: every field past the required ones is a function
 * pointer. */
#define ENTRY_SIZE sizeof(void (*)(void))
/* The list above is the whole tail of the table: a field appended to the
 * struct without being listed here fails the build. */
_Static_assert(offsetof(hurray_plugin_table, unavailable_reason) == HURRAY_PLUGIN_TABLE_MIN_SIZE,
               "the optional entries start where the required ones end");
_Static_assert(sizeof optional_fields / sizeof optional_fields[0] ==
                       (sizeof(hurray_plugin_table) - HURRAY_PLUGIN_TABLE_MIN_SIZE) / ENTRY_SIZE &&
                   (sizeof(hurray_plugin_table) - HURRAY_PLUGIN_TABLE_MIN_SIZE) % ENTRY_SIZE == 0u,
               "optional_fields must list every entry past the required ones");
#undef REQUIRED

/* Whether the pointer-sized field at `offset` of the normalised table is
 * NULL, read as bytes so that no function pointer is formed from fuzz data. */
static bool field_is_null(const hurray_plugin_table *table, size_t offset) {
  const unsigned char *bytes = (const unsigned char *)table + offset;
  for (size_t i = 0; i < sizeof(void *); i++) {
    if (bytes[i] != 0u) {
      return false;
    }
  }
  return true;
}

hurray_status hurray_plugin_table_validate(const void *bytes, size_t len, uint32_t host_abi_version,
                                           hurray_plugin_table *out, hurray_error *err) {
  if (bytes == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "plugin table is NULL");
  }
  if (out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 3, "out is NULL");
  }
  /* PL-VER-5: the caller's view of the table may be smaller than ours. */
  hurray_status out_status =
      hurray_plugin_check_out_size(out, sizeof *out, 3, "hurray_plugin_table", err);
  if (out_status != HURRAY_OK) {
    return out_status;
  }
  /* PL-NEG-1: the two header words come first, whatever the version. */
  if (len < 2u * sizeof(uint32_t)) {
    return hurray_plugin_fail(err, HURRAY_ERR_TRUNCATED, len, 8, 0,
                              "plugin table shorter than struct_size and abi_version");
  }
  uint32_t struct_size;
  uint32_t abi_version;
  memcpy(&struct_size, bytes, sizeof struct_size);
  memcpy(&abi_version, (const unsigned char *)bytes + sizeof struct_size, sizeof abi_version);

  /* PL-NEG-2: majors must be equal; minors may differ either way. */
  if (HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(abi_version) !=
      HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(host_abi_version)) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_ABI_MISMATCH, abi_version, host_abi_version, 4,
                              "plugin ABI %u.%u, host speaks %u.%u: majors differ",
                              (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(abi_version),
                              (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(abi_version),
                              (unsigned)HURRAY_PLUGIN_ABI_VERSION_MAJOR_OF(host_abi_version),
                              (unsigned)HURRAY_PLUGIN_ABI_VERSION_MINOR_OF(host_abi_version));
  }
  /* PL-NEG-3: every required entry of the major must be covered. */
  if (struct_size < HURRAY_PLUGIN_TABLE_MIN_SIZE) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, struct_size,
                              HURRAY_PLUGIN_TABLE_MIN_SIZE, 0,
                              "struct_size %u smaller than the %u bytes of ABI 1.0's required "
                              "entries",
                              (unsigned)struct_size, (unsigned)HURRAY_PLUGIN_TABLE_MIN_SIZE);
  }
  /* PL-NEG-4: the host reads only what both sides know. */
  size_t known = struct_size < sizeof(hurray_plugin_table) ? struct_size
                                                           : sizeof(hurray_plugin_table);
  if (len < known) {
    return hurray_plugin_fail(err, HURRAY_ERR_TRUNCATED, len, known, 0,
                              "plugin table bytes end before its struct_size");
  }
  hurray_plugin_table table;
  memset(&table, 0, sizeof table);
  memcpy(&table, bytes, known);
  /* PL-NEG-4, PL-TABLE-8: an optional entry the struct_size covers only in
   * part is absent; a few of its bytes followed by zeros would be a pointer
   * the plugin never gave, and the host would call it. */
  for (size_t i = 0; i < sizeof optional_fields / sizeof optional_fields[0]; i++) {
    size_t offset = optional_fields[i].offset;
    if (offset + ENTRY_SIZE > known) {
      memset((unsigned char *)&table + offset, 0, ENTRY_SIZE);
    }
  }

  /* PL-TABLE-2: the tag a plugin serves is one a handle may carry. */
  uint8_t tag = table.device_tag;
  bool named = tag < HURRAY_DEVICE_RESERVED_FIRST;
  bool private_tag = tag >= HURRAY_DEVICE_PRIVATE_FIRST && tag <= HURRAY_DEVICE_PRIVATE_LAST;
  if (!named && !private_tag) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, tag, 0,
                              offsetof(hurray_plugin_table, device_tag),
                              "device_tag 0x%02X is %s: a plugin serves a named tag "
                              "(0x00..0x08) or a private one (0xF0..0xFE)",
                              (unsigned)tag, tag == HURRAY_DEVICE_INVALID ? "invalid" : "reserved");
  }
  /* PL-TABLE-3: reserved bytes are zero, so a later minor can use them. */
  for (size_t i = 0; i < sizeof table.reserved; i++) {
    if (table.reserved[i] != 0u) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, table.reserved[i], 0,
                                offsetof(hurray_plugin_table, reserved) + i,
                                "reserved byte %zu of the table is 0x%02X, not 0", i,
                                (unsigned)table.reserved[i]);
    }
  }
  /* PL-TABLE-5: required entries. */
  for (size_t i = 0; i < sizeof required_fields / sizeof required_fields[0]; i++) {
    if (field_is_null(&table, required_fields[i].offset)) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, 0, 0, required_fields[i].offset,
                                "required entry %s is NULL", required_fields[i].name);
    }
  }
  /* PL-TABLE-6: events are all or nothing. */
  size_t events_set = 0;
  size_t first_null = SIZE_MAX;
  size_t first_null_index = 0;
  for (size_t i = 0; i < sizeof event_fields / sizeof event_fields[0]; i++) {
    if (field_is_null(&table, event_fields[i].offset)) {
      if (first_null == SIZE_MAX) {
        first_null = event_fields[i].offset;
        first_null_index = i;
      }
    } else {
      events_set++;
    }
  }
  if (events_set != 0u && first_null != SIZE_MAX) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, events_set, 4, first_null,
                              "event entries are all or nothing: %s is NULL but %zu of the "
                              "four are set",
                              event_fields[first_null_index].name, events_set);
  }
  /* PL-TABLE-7: a device-side wait needs events to wait on. */
  if (events_set == 0u &&
      !field_is_null(&table, offsetof(hurray_plugin_table, stream_wait_event))) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, 0, 0,
                              offsetof(hurray_plugin_table, stream_wait_event),
                              "stream_wait_event is set but the event entries are not");
  }
  /* PL-TABLE-10: a native handle belongs to an event. */
  if (events_set == 0u && !field_is_null(&table, offsetof(hurray_plugin_table, native_event))) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, 0, 0,
                              offsetof(hurray_plugin_table, native_event),
                              "native_event is set but the event entries are not");
  }
  /* PL-IPC-5: what one process exports another must be able to import. */
  bool exports = !field_is_null(&table, offsetof(hurray_plugin_table, export_memory));
  bool imports = !field_is_null(&table, offsetof(hurray_plugin_table, import_memory));
  if (exports != imports) {
    size_t missing = exports ? offsetof(hurray_plugin_table, import_memory)
                             : offsetof(hurray_plugin_table, export_memory);
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, 0, 0, missing,
                              "export_memory and import_memory are both set or both NULL: %s is "
                              "NULL",
                              exports ? "import_memory" : "export_memory");
  }
  /* PL-IPC-10: an exportable event must be creatable, exportable and
   * openable, and it is an event: all three, and only with events. */
  static const required_field event_ipc_fields[] = {
      {offsetof(hurray_plugin_table, create_event_flags), "create_event_flags"},
      {offsetof(hurray_plugin_table, export_event), "export_event"},
      {offsetof(hurray_plugin_table, import_event), "import_event"},
  };
  size_t event_ipc_set = 0;
  size_t event_ipc_null = SIZE_MAX;
  for (size_t i = 0; i < sizeof event_ipc_fields / sizeof event_ipc_fields[0]; i++) {
    if (!field_is_null(&table, event_ipc_fields[i].offset)) {
      event_ipc_set++;
    } else if (event_ipc_null == SIZE_MAX) {
      event_ipc_null = i;
    }
  }
  if (event_ipc_set != 0u && event_ipc_null != SIZE_MAX) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, event_ipc_set, 3,
                              event_ipc_fields[event_ipc_null].offset,
                              "create_event_flags, export_event and import_event are all set or "
                              "all NULL: %s is NULL but %zu of the three are set",
                              event_ipc_fields[event_ipc_null].name, event_ipc_set);
  }
  if (event_ipc_set != 0u && events_set == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, 0, 0,
                              offsetof(hurray_plugin_table, create_event_flags),
                              "create_event_flags, export_event and import_event are set but the "
                              "event entries are not");
  }
  hurray_plugin_copy_out(out, &table, sizeof table); /* PL-VER-5 */
  return HURRAY_OK;
}

/* [a-z0-9_-]: names become file names and CLI words (PL-TABLE-4). */
static bool is_name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

hurray_status hurray_plugin_table_check_strings(const hurray_plugin_table *table,
                                                hurray_error *err) {
  if (table == NULL || table->name == NULL || table->plugin_version == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0,
                              "table or its name/plugin_version is NULL");
  }
  size_t n = 0;
  while (n <= HURRAY_PLUGIN_NAME_MAX && table->name[n] != '\0') {
    if (!is_name_byte(table->name[n])) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, (uint8_t)table->name[n], 0,
                                offsetof(hurray_plugin_table, name),
                                "plugin name has byte 0x%02X at %zu: only [a-z0-9_-] allowed",
                                (unsigned)(uint8_t)table->name[n], n);
    }
    n++;
  }
  if (n == 0u || n > HURRAY_PLUGIN_NAME_MAX) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, n, HURRAY_PLUGIN_NAME_MAX,
                              offsetof(hurray_plugin_table, name),
                              "plugin name must be 1..%u bytes", HURRAY_PLUGIN_NAME_MAX);
  }
  n = 0;
  while (n <= HURRAY_PLUGIN_VERSION_MAX && table->plugin_version[n] != '\0') {
    char c = table->plugin_version[n];
    if (c < 0x21 || c > 0x7E) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, (uint8_t)c, 0,
                                offsetof(hurray_plugin_table, plugin_version),
                                "plugin_version has byte 0x%02X at %zu: printable ASCII only",
                                (unsigned)(uint8_t)c, n);
    }
    n++;
  }
  if (n == 0u || n > HURRAY_PLUGIN_VERSION_MAX) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, n, HURRAY_PLUGIN_VERSION_MAX,
                              offsetof(hurray_plugin_table, plugin_version),
                              "plugin_version must be 1..%u bytes", HURRAY_PLUGIN_VERSION_MAX);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_device_info_validate(const hurray_plugin_device_info *info,
                                                 hurray_device_tag device_tag, hurray_error *err) {
  if (info == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "device info is NULL");
  }
  if (memchr(info->name, '\0', sizeof info->name) == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, 0, 0, 0,
                              "device name is not NUL-terminated within %u bytes",
                              HURRAY_PLUGIN_DEVICE_NAME_SIZE);
  }
  uint32_t known_ipc = HURRAY_IPC_EXPORTS_EVENTS | HURRAY_IPC_EXPORTS_STREAMS;
  if ((info->ipc_capabilities & ~known_ipc) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, info->ipc_capabilities, known_ipc, 0,
                              "device %s: unknown ipc_capabilities bits 0x%X", info->name,
                              (unsigned)(info->ipc_capabilities & ~known_ipc));
  }
  if (info->reserved != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, info->reserved, 0, 0,
                              "device %s: reserved field is not 0", info->name);
  }
  if (info->memory_class_count == 0u ||
      info->memory_class_count > HURRAY_PLUGIN_MAX_MEMORY_CLASSES) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, info->memory_class_count,
                              HURRAY_PLUGIN_MAX_MEMORY_CLASSES, 0,
                              "device %s: memory_class_count must be 1..%u", info->name,
                              HURRAY_PLUGIN_MAX_MEMORY_CLASSES);
  }
  for (uint32_t i = 0; i < info->memory_class_count; i++) {
    const hurray_plugin_memory_class_info *c = &info->memory_classes[i];
    if (!hurray_pair_is_valid(device_tag, c->memory_class)) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, c->memory_class, device_tag, i,
                                "device %s: memory class 0x%02X is not valid with tag 0x%02X "
                                "(BP-PAIR-1)",
                                info->name, (unsigned)c->memory_class, (unsigned)device_tag);
    }
    for (uint32_t j = 0; j < i; j++) {
      if (info->memory_classes[j].memory_class == c->memory_class) {
        return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, c->memory_class, 0, i,
                                  "device %s: memory class 0x%02X declared twice", info->name,
                                  (unsigned)c->memory_class);
      }
    }
    if (c->reserved[0] != 0u || c->reserved[1] != 0u || c->reserved[2] != 0u ||
        (c->flags & ~HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, c->flags, 0, i,
                                "device %s: memory class entry %u has unknown flags or "
                                "non-zero reserved bytes",
                                info->name, (unsigned)i);
    }
    /* PL-DEV-5: what the class says about the host, the flag must not deny. */
    bool host = (c->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u;
    bool must_be_host = device_tag == HURRAY_DEVICE_CPU ||
                        c->memory_class == HURRAY_MEMORY_HOST_PINNED ||
                        c->memory_class == HURRAY_MEMORY_UNIFIED;
    bool must_not_be_host = c->memory_class == HURRAY_MEMORY_PEER;
    if ((must_be_host && !host) || (must_not_be_host && host)) {
      char class_name[24];
      hurray_memory_class_display(c->memory_class, class_name, sizeof class_name);
      return hurray_plugin_fail(
          err, HURRAY_ERR_PLUGIN_INVALID, c->memory_class,
          must_be_host ? HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE : 0u, i,
          "device %s: memory class %s is declared %shost-accessible, which it %s (PL-DEV-5)",
          info->name, class_name, host ? "" : "not ",
          must_be_host ? "always is" : "never is without a copy");
    }
    uint32_t a = c->max_alignment;
    if (a < HURRAY_MIN_BUFFER_ALIGNMENT || (a & (a - 1u)) != 0u) {
      return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a, HURRAY_MIN_BUFFER_ALIGNMENT, i,
                                "device %s: max_alignment %u of class 0x%02X is not a power of "
                                "two >= 64",
                                info->name, (unsigned)a, (unsigned)c->memory_class);
    }
  }
  return HURRAY_OK;
}
