/*
 * Fuzz target plugin_table: what the plugin loader accepts from a plugin
 * (include/hurray/plugin.h, specs/plugin-abi.md), as pure bytes.
 *
 * Input: bytes 0..3 XOR HURRAY_PLUGIN_ABI_VERSION give the host's ABI
 * version (zeros: this host); byte 4 selects the check (bit 0: a device
 * description, else a plugin table) and byte 5 is the device tag for a
 * description; bytes 6 and 7 are the lengths of a name and a version string
 * that follow; the rest is the table (or description) as the plugin's memory
 * would hold it: sizes, versions, tag, reserved bytes, pointers, NULLs.
 *
 * Oracle: the checks of PL-NEG-1..5, PL-TABLE-1..7, PL-TABLE-10, PL-IPC-5 and
 * PL-IPC-10, transcribed here in the spec's order, decide the status and payload of
 * hurray_plugin_table_validate; an accepted table is normalised exactly
 * (the fields wholly inside min(struct_size, sizeof) bytes, the rest zero:
 * PL-NEG-4, a partly covered entry is NULL, PL-TABLE-8) and a refused one leaves
 * *out untouched. Every pointer in the bytes is garbage that must never be
 * followed (ASan would see it). Accepted tables then get the input's strings
 * for hurray_plugin_table_check_strings (PL-TABLE-4), held in heap blocks of
 * their exact size. Device descriptions are accepted exactly when PL-DEV-1..3
 * hold.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "hurray/buffer.h"
#include "hurray/plugin.h"
#include "reference_decoder.h"

FUZZ_ORACLE_BEGIN

#define OFFSET(field) offsetof(hurray_plugin_table, field)

/* PL-TABLE-1: the required entries, in order. */
static const size_t required_entries[] = {
    OFFSET(init),     OFFSET(shutdown), OFFSET(count_devices),  OFFSET(describe_device),
    OFFSET(allocate), OFFSET(free),     OFFSET(copy_to_device), OFFSET(copy_to_host),
};
/* PL-TABLE-6: the event entries. */
static const size_t event_entries[] = {OFFSET(create_event), OFFSET(record_event),
                                       OFFSET(wait_event), OFFSET(release_event)};

static bool pointer_is_null(const hurray_plugin_table *t, size_t offset) {
  void *p;
  memcpy(&p, (const unsigned char *)t + offset, sizeof p);
  return p == NULL;
}

enum { MATCH_VALUE = 1, MATCH_EXPECTED = 2, MATCH_INDEX = 4 };

typedef struct table_verdict {
  ref_verdict v;
  unsigned match;
} table_verdict;

static table_verdict verdict(hurray_status status, uint64_t value, uint64_t expected, size_t index,
                             unsigned match) {
  table_verdict t = {ref_fail(status, value, expected, index), match};
  return t;
}

/* PL-NEG-1..3, then PL-TABLE-2, 3, 5, 6, 7: the first failure. */
static table_verdict ref_validate(const uint8_t *bytes, size_t len, uint32_t host,
                                  hurray_plugin_table *normalised) {
  if (len < 8) {
    return verdict(HURRAY_ERR_TRUNCATED, len, 8, 0, MATCH_VALUE | MATCH_EXPECTED);
  }
  uint32_t struct_size;
  uint32_t abi;
  memcpy(&struct_size, bytes, 4);
  memcpy(&abi, bytes + 4, 4);
  if ((abi >> 16) != (host >> 16)) {
    return verdict(HURRAY_ERR_PLUGIN_ABI_MISMATCH, abi, host, 0, MATCH_VALUE | MATCH_EXPECTED);
  }
  if (struct_size < HURRAY_PLUGIN_TABLE_MIN_SIZE) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, struct_size, HURRAY_PLUGIN_TABLE_MIN_SIZE, 0,
                   MATCH_VALUE | MATCH_EXPECTED);
  }
  size_t used = struct_size < sizeof *normalised ? struct_size : sizeof *normalised;
  if (len < used) {
    return verdict(HURRAY_ERR_TRUNCATED, len, used, 0, MATCH_VALUE | MATCH_EXPECTED);
  }
  memset(normalised, 0, sizeof *normalised);
  memcpy(normalised, bytes, used);
  /* PL-NEG-4, PL-TABLE-8: past the required part every field is one
   * pointer; one that `used` does not cover whole is NULL. */
  for (size_t at = HURRAY_PLUGIN_TABLE_MIN_SIZE; at < sizeof *normalised; at += sizeof(void *)) {
    if (at + sizeof(void *) > used) {
      memset((unsigned char *)normalised + at, 0, sizeof(void *));
    }
  }
  ref_kind tag = ref_device_kind(normalised->device_tag);
  if (tag == REF_RESERVED || tag == REF_INVALID) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, normalised->device_tag, 0, OFFSET(device_tag),
                   MATCH_VALUE | MATCH_INDEX);
  }
  for (size_t i = 0; i < sizeof normalised->reserved; i++) {
    if (normalised->reserved[i] != 0) {
      return verdict(HURRAY_ERR_PLUGIN_INVALID, normalised->reserved[i], 0, OFFSET(reserved) + i,
                     MATCH_VALUE | MATCH_INDEX);
    }
  }
  if (normalised->name == NULL) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, OFFSET(name), MATCH_INDEX);
  }
  if (normalised->plugin_version == NULL) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, OFFSET(plugin_version), MATCH_INDEX);
  }
  for (size_t i = 0; i < sizeof required_entries / sizeof required_entries[0]; i++) {
    if (pointer_is_null(normalised, required_entries[i])) {
      return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, required_entries[i], MATCH_INDEX);
    }
  }
  size_t events_set = 0;
  size_t first_null = 0;
  for (size_t i = 4; i-- > 0;) {
    if (pointer_is_null(normalised, event_entries[i])) {
      first_null = event_entries[i];
    } else {
      events_set++;
    }
  }
  if (events_set != 0 && events_set != 4) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, first_null, MATCH_INDEX);
  }
  if (events_set == 0 && normalised->stream_wait_event != NULL) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, 0, 0);
  }
  /* PL-TABLE-10 (ABI 1.1): a native handle belongs to an event. */
  if (events_set == 0 && normalised->native_event != NULL) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, OFFSET(native_event), MATCH_INDEX);
  }
  /* PL-IPC-5: export and import together. */
  if ((normalised->export_memory == NULL) != (normalised->import_memory == NULL)) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0,
                   normalised->export_memory == NULL ? OFFSET(export_memory)
                                                     : OFFSET(import_memory),
                   MATCH_INDEX);
  }
  /* PL-IPC-10: the three event IPC entries together, and only with events. */
  static const size_t event_ipc_entries[] = {OFFSET(create_event_flags), OFFSET(export_event),
                                             OFFSET(import_event)};
  size_t ipc_set = 0;
  size_t ipc_first_null = 0;
  for (size_t i = 3; i-- > 0;) {
    if (pointer_is_null(normalised, event_ipc_entries[i])) {
      ipc_first_null = event_ipc_entries[i];
    } else {
      ipc_set++;
    }
  }
  if (ipc_set != 0 && ipc_set != 3) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, ipc_set, 3, ipc_first_null,
                   MATCH_VALUE | MATCH_EXPECTED | MATCH_INDEX);
  }
  if (ipc_set == 3 && events_set == 0) {
    return verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, OFFSET(create_event_flags), MATCH_INDEX);
  }
  return verdict(HURRAY_OK, 0, 0, 0, 0);
}

static bool table_matches(table_verdict want, hurray_status got, const hurray_error *err) {
  if (got != want.v.status) {
    return false;
  }
  if (got == HURRAY_OK) {
    return true;
  }
  return ((want.match & MATCH_VALUE) == 0 || err->value == want.v.value) &&
         ((want.match & MATCH_EXPECTED) == 0 || err->expected == want.v.expected) &&
         ((want.match & MATCH_INDEX) == 0 || err->index == want.v.index) &&
         (got != HURRAY_ERR_PLUGIN_INVALID || err->detail[0] != '\0') &&
         memchr(err->detail, '\0', sizeof err->detail) != NULL;
}

/* PL-TABLE-4 for one string of `len` bytes. */
static bool name_ok(const char *s, size_t len) {
  if (len < 1 || len > HURRAY_PLUGIN_NAME_MAX) {
    return false;
  }
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

static bool version_ok(const char *s, size_t len) {
  if (len < 1 || len > HURRAY_PLUGIN_VERSION_MAX) {
    return false;
  }
  for (size_t i = 0; i < len; i++) {
    if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7E) {
      return false;
    }
  }
  return true;
}

/* A NUL-terminated heap copy of exactly len + 1 bytes, cut at an inner NUL. */
static char *string_of(const uint8_t *bytes, size_t len, size_t *out_len) {
  char *s = malloc(len + 1);
  FUZZ_CHECK(s != NULL);
  memcpy(s, bytes, len);
  s[len] = '\0';
  *out_len = strlen(s);
  return s;
}

static void check_table(const uint8_t *bytes, size_t len, uint32_t host, const uint8_t *name_bytes,
                        size_t name_len, const uint8_t *version_bytes, size_t version_len) {
  static hurray_plugin_table want_table;
  static hurray_plugin_table out;
  memset(&out, 0xA5, sizeof out);
  out.struct_size = sizeof out; /* the harness's view: all of it (PL-VER-5) */
  hurray_plugin_table untouched;
  memcpy(&untouched, &out, sizeof out);
  table_verdict want = ref_validate(bytes, len, host, &want_table);
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_status got = hurray_plugin_table_validate(bytes, len, host, &out, &err);
  FUZZ_CHECK(table_matches(want, got, &err));
  if (got != HURRAY_OK) {
    FUZZ_CHECK(memcmp(&out, &untouched, sizeof out) == 0);
    return;
  }
  /* PL-VER-5: struct_size stays the caller's; the rest is the reference's. */
  FUZZ_CHECK(out.struct_size == sizeof out);
  want_table.struct_size = out.struct_size;
  FUZZ_CHECK(memcmp(&out, &want_table, sizeof out) == 0);

  /* The strings, now pointing at real memory. */
  size_t n_len = 0;
  size_t v_len = 0;
  char *name = string_of(name_bytes, name_len, &n_len);
  char *version = string_of(version_bytes, version_len, &v_len);
  out.name = name;
  out.plugin_version = version;
  table_verdict want_strings = verdict(HURRAY_OK, 0, 0, 0, 0);
  if (!name_ok(name, n_len)) {
    want_strings = verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, OFFSET(name), MATCH_INDEX);
  } else if (!version_ok(version, v_len)) {
    want_strings = verdict(HURRAY_ERR_PLUGIN_INVALID, 0, 0, OFFSET(plugin_version), MATCH_INDEX);
  }
  memset(&err, 0, sizeof err);
  FUZZ_CHECK(table_matches(want_strings, hurray_plugin_table_check_strings(&out, &err), &err));
  free(name);
  free(version);
}

/* PL-DEV-1..3, PL-DEV-5: accepted exactly when every rule holds. */
static void check_device_info(const uint8_t *bytes, size_t len, uint8_t tag) {
  static hurray_plugin_device_info info;
  memset(&info, 0, sizeof info);
  memcpy(&info, bytes, len < sizeof info ? len : sizeof info);
  bool ok = memchr(info.name, '\0', sizeof info.name) != NULL &&
            (info.ipc_capabilities &
             ~(uint32_t)(HURRAY_IPC_EXPORTS_EVENTS | HURRAY_IPC_EXPORTS_STREAMS)) == 0 &&
            info.reserved == 0 && info.memory_class_count >= 1 &&
            info.memory_class_count <= HURRAY_PLUGIN_MAX_MEMORY_CLASSES;
  for (uint32_t i = 0; ok && i < info.memory_class_count; i++) {
    const hurray_plugin_memory_class_info *c = &info.memory_classes[i];
    ok = ref_pair_valid(tag, c->memory_class) && c->reserved[0] == 0 && c->reserved[1] == 0 &&
         c->reserved[2] == 0 && (c->flags & ~(uint32_t)HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) == 0 &&
         c->max_alignment >= 64 && __builtin_popcount(c->max_alignment) == 1;
    /* PL-DEV-5, restated from facts §3. */
    bool host = (c->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0;
    if (tag == 0x00 || c->memory_class == 0x01 || c->memory_class == 0x02) {
      ok = ok && host;
    } else if (c->memory_class == 0x03) {
      ok = ok && !host;
    }
    for (uint32_t j = 0; ok && j < i; j++) {
      ok = info.memory_classes[j].memory_class != c->memory_class;
    }
  }
  hurray_error err;
  memset(&err, 0, sizeof err);
  hurray_status got = hurray_plugin_device_info_validate(&info, tag, &err);
  FUZZ_CHECK(ok ? got == HURRAY_OK : got == HURRAY_ERR_PLUGIN_INVALID);
  FUZZ_CHECK(ok || (err.detail[0] != '\0' && memchr(err.detail, '\0', sizeof err.detail) != NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t header[8] = {0};
  memcpy(header, data, size < sizeof header ? size : sizeof header);
  size_t pos = size < sizeof header ? size : sizeof header;
  uint32_t host = fuzz_read_u32(header) ^ HURRAY_PLUGIN_ABI_VERSION;
  size_t name_len = header[6] % 64u;
  size_t version_len = header[7] % 64u;
  if (size - pos < name_len + version_len) {
    name_len = version_len = 0;
  }
  const uint8_t *name = data + pos;
  const uint8_t *version = name + name_len;
  pos += name_len + version_len;
  /* An exact-size copy of the rest: reading past it is reading past a block. */
  size_t len = size - pos;
  uint8_t *bytes = malloc(len > 0 ? len : 1);
  FUZZ_CHECK(bytes != NULL);
  memcpy(bytes, data + pos, len);
  if ((header[4] & 1u) != 0) {
    check_device_info(bytes, len, header[5]);
  } else {
    check_table(bytes, len, host, name, name_len, version, version_len);
  }
  free(bytes);
  return 0;
}

FUZZ_ORACLE_END
