/*
 * Fuzz target plugin_host: the plugin host (core/runtime/plugin_loader.c,
 * plugin_registry.c, plugin_lifetime.c, plugin_buffer*.c, plugin_events.c,
 * plugin_call.c) driven by a hostile plugin whose every answer comes from
 * the input (fuzz/hostile_plugin.c), loaded through the loader's seam for
 * linked plugins: load, describe, allocate, import, copies, export, events, unload.
 *
 * Input: byte 0 picks the table's struct_size (sizeof, the ABI 1.0 and
 * 1.1-memory sizes, the minimum, one that ends inside an entry, a newer
 * minor's, too small); bytes 1-2 XOR all ones say which optional entries
 * are set; byte 3 breaks the table (declines, NULL strings or entries, a
 * reserved byte, another major, a bad name); byte 4 is the tag (below 0x80:
 * a named tag, modulo 9). The rest is one stream read in turn by the
 * harness (the next operation and its arguments) and by the plugin (each
 * answer); a stream that ends answers correctly. An operation byte from
 * 0xF0 runs an allocate, import, export, event create or event import with
 * one of plugins/common's system calls or the host's record allocation
 * failing (fuzz/fault_seam.h); the loader's faults come with the file
 * operations (fuzz/hostile_loader.c).
 *
 * Oracle, from specs/plugin-abi.md:
 *  - every status is a defined one; a failure fills the error (status as
 *    returned, detail terminated); the caller's error is never read
 *    (poisoned before each call);
 *  - a plugin entry that fails is reported as PL-CALL-3 and PL-CALL-4 say:
 *    its status, DEVICE_ERROR with the raw value for one outside
 *    hurray_status, the host's "gave no reason" for an empty detail;
 *  - load (PL-LOAD-5, PL-LOAD-6, PL-DEV-1..5): the table's verdict is
 *    hurray_plugin_table_validate's; a refusal names the plugin, leaves the
 *    registry empty and shuts down what was initialised; an accepted plugin
 *    has the devices it counted, no invalid description;
 *  - an optional entry the table does not offer wholly is never called
 *    (PL-NEG-4, PL-TABLE-8; the plugin checks every call);
 *  - allocate (PL-ALLOC-1, PL-IPC-1): the request checks in order, before
 *    the plugin is called; the answer accepted exactly when PL-ALLOC-4
 *    holds, recomputed here (alignment, size, class, device, address, each
 *    address measured, the CPU address too, the basis, host access); the
 *    handle as PL-ALLOC-5 builds it; a refused answer freed through the
 *    plugin; import (PL-IPC-3) likewise, its pre-checks before the plugin;
 *  - copies (PL-COPY-2), export (PL-IPC-2, no descriptor left open on
 *    failure), events (PL-IPC-7..9, PL-EVENT-5) refused and accepted as
 *    the rules say;
 *  - PL-LIFE-1..3: a second release is USE_AFTER_DESTROY and calls nothing;
 *    outstanding counts what is live; after unload the plugin is shut down
 *    exactly when its last buffer and event are released; at the end every
 *    buffer and event was freed once, and no descriptor, mapping or
 *    library is left open (the seam counts mmap/munmap, dlopen/dlclose);
 *  - a failed system call of the plugin's shared memory (memfd_create,
 *    ftruncate, mmap, fstat, fcntl) is the plugin's failure, reported as
 *    PL-CALL-3 says, with nothing of the half-made block left.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault_seam.h"
#include "fuzz_check.h"
#include "hostile_plugin.h"
#include "hurray/plugin.h"
#include "plugin_host_harness.h"
#include "plugin_internal.h"

FUZZ_ORACLE_BEGIN

hostile_source host_input;
hurray_plugin_registry *host_registry;
hurray_plugin *host_plugin;
hurray_plugin_buffer *host_buffers[SLOTS];
bool host_buffer_live[SLOTS];
hurray_plugin_event *host_events[SLOTS];
uint32_t host_event_flags[SLOTS];
hurray_error host_err;

void host_poison(void) { memset(&host_err, 0xAA, sizeof host_err); }

hurray_status host_checked(hurray_status s) { return fuzz_checked_status(s, &host_err); }

void check_plugin_failure(hurray_status s, uint32_t answers_before) {
  if (hostile_seen.answers == answers_before || hostile_seen.last_status == HURRAY_OK) {
    return;
  }
  hurray_status raw = hostile_seen.last_status;
  FUZZ_CHECK(s == hostile_mapped(raw));
  if ((uint32_t)raw >= (uint32_t)HURRAY_STATUS_COUNT) {
    FUZZ_CHECK(host_err.value == (uint32_t)raw);
    FUZZ_CHECK(strstr(host_err.detail, "which is not a hurray_status") != NULL);
  } else if (!hostile_seen.last_detail_given) {
    FUZZ_CHECK(strstr(host_err.detail, "gave no reason") != NULL);
  }
}

/* The queries: the reason (PL-AVAIL-2), the descriptions (PL-DEV-4,
 * PL-VER-5), outstanding (PL-LIFE-2), stream waits. */
static void op_query(void) {
  if (host_plugin == NULL) {
    return;
  }
  uint8_t what = hostile_u8(&host_input);
  uint32_t count = hurray_plugin_device_count(host_plugin);
  if (what % 4u == 0u) {
    static char reason[4096 + 64];
    memset(reason, 0xAA, sizeof reason);
    size_t n = hurray_plugin_unavailable_reason(host_plugin, reason, sizeof reason);
    FUZZ_CHECK(n < 4096u && strlen(reason) == n); /* terminated in the host's 4096 (PL-AVAIL-2) */
    FUZZ_CHECK(count > 0u ? n == 0u : n > 0u);
    char tiny[4];
    size_t m = hurray_plugin_unavailable_reason(host_plugin, tiny, sizeof tiny);
    FUZZ_CHECK(strlen(tiny) == (m < 3u ? m : 3u)); /* snprintf-style */
  } else if (what % 4u == 1u) {
    hurray_plugin_device_info info;
    memset(&info, 0xAA, sizeof info);
    info.struct_size = 8u + what % 64u; /* an older caller's view (PL-VER-5) */
    uint32_t device = hostile_u8(&host_input) % (count + 1u);
    host_poison();
    hurray_status s =
        host_checked(hurray_plugin_describe_device(host_plugin, device, &info, &host_err));
    FUZZ_CHECK(s == (device < count ? HURRAY_OK : HURRAY_ERR_INVALID_ARGUMENT));
    FUZZ_CHECK(info.struct_size == 8u + what % 64u);
  } else if (what % 4u == 2u) {
    size_t b = 0;
    size_t e = 0;
    size_t total = hurray_plugin_outstanding(host_plugin, &b, &e);
    FUZZ_CHECK(b == hostile_seen.live_buffers && e == hostile_seen.live_events && total == b + e);
  } else {
    uint32_t device = hostile_u8(&host_input) % (count + 1u);
    uint32_t answers = hostile_seen.answers;
    host_poison();
    hurray_status s =
        host_checked(hurray_plugin_stream_wait(host_plugin, device, NULL, 0, &host_err));
    if (!hostile_offered(HOSTILE_WAIT_STREAM)) {
      FUZZ_CHECK(s == HURRAY_ERR_UNSUPPORTED);
    } else if (device >= count) {
      FUZZ_CHECK(s == HURRAY_ERR_INVALID_ARGUMENT && host_err.index == 1u);
    } else {
      check_plugin_failure(s, answers);
    }
  }
}

/* PL-LOAD-7, PL-LIFE-1: out of the registry at once; shut down when the
 * last buffer and event are gone. */
static void op_unload(void) {
  if (host_plugin == NULL) {
    return;
  }
  hurray_plugin_unload(host_plugin);
  host_plugin = NULL;
  FUZZ_CHECK(hurray_plugin_registry_count(host_registry) == 0u);
  FUZZ_CHECK(hurray_plugin_registry_find(host_registry, hostile_table_config.device_tag) == NULL);
  bool live = hostile_seen.live_buffers + hostile_seen.live_events > 0u;
  FUZZ_CHECK(hostile_seen.shutdowns == (live ? 0u : 1u));
}

/* PL-REG-1: a second plugin for a served tag is refused before init. */
static void op_load_again(void) {
  if (host_plugin == NULL) {
    return;
  }
  uint32_t inits = hostile_seen.inits;
  hurray_plugin *second = NULL;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_load_linked(
      host_registry, LINKED_NAME "-2", hostile_plugin_entry, 0, &second, &host_err));
  FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_DUPLICATE_TAG && second == NULL);
  FUZZ_CHECK(host_err.value == hostile_table_config.device_tag && hostile_seen.inits == inits);
  FUZZ_CHECK(hurray_plugin_registry_count(host_registry) == 1u);
}

/* PL-REG-1..3: what the registry says of its one plugin. */
static void op_registry(void) {
  size_t count = hurray_plugin_registry_count(host_registry);
  FUZZ_CHECK(count == (host_plugin != NULL ? 1u : 0u));
  FUZZ_CHECK(hurray_plugin_registry_at(host_registry, 0) == host_plugin);
  FUZZ_CHECK(hurray_plugin_registry_at(host_registry, 1) == NULL);
  FUZZ_CHECK(hurray_plugin_registry_find(host_registry, hostile_table_config.device_tag) ==
             host_plugin);
  if (host_plugin != NULL) {
    FUZZ_CHECK(strcmp(hurray_plugin_name(host_plugin), hostile_table_config.name) == 0);
    FUZZ_CHECK(strcmp(hurray_plugin_path(host_plugin), LINKED_NAME) == 0);
    FUZZ_CHECK(hurray_plugin_abi_version(host_plugin) == hostile_table_config.abi_version);
    FUZZ_CHECK(hurray_plugin_serves_tag(host_plugin) == HURRAY_TRUE);
    FUZZ_CHECK(strcmp(hurray_plugin_version(host_plugin), hostile_table_config.version) == 0);
  }
}

/* PL-IPC-1..4 as plugins/common's plugin_support does them, with one of
 * its system calls failing as the input says, and the host's event records
 * out of memory: the operation's own oracle holds (the plugin reports the
 * failure, fuzz/hostile_memory.c; the host's is OUT_OF_MEMORY), and the end
 * of the input finds no descriptor or mapping left. */
static void op_under_fault(uint8_t op) {
  static const fault_call calls[] = {FAULT_MMAP,  FAULT_MEMFD_CREATE, FAULT_FTRUNCATE, FAULT_FCNTL,
                                     FAULT_FSTAT, FAULT_CALLOC,       FAULT_MALLOC};
  uint8_t how = hostile_u8(&host_input);
  fault_arm(calls[how % (sizeof calls / sizeof calls[0])], (how >> 4) % 4u,
            (how & 0x08u) != 0u ? ENOMEM : EMFILE);
  switch (op % 5u) {
    case 0: op_allocate(); break;
    case 1: op_import(); break;
    case 2: op_export(); break;
    case 3: op_event_create(); break;
    default: op_event_import(); break;
  }
  fault_disarm();
}

/* The table from the header bytes. */
static void configure(void) {
  hostile_config *c = &hostile_table_config;
  uint8_t size_pick = hostile_u8(&host_input);
  uint16_t optional = hostile_u16(&host_input);
  uint8_t faults = hostile_u8(&host_input);
  uint8_t tag = hostile_u8(&host_input);
  hostile_config_default(c, tag < 0x80u ? (hurray_device_tag)(tag % 9u) : tag);
  switch (size_pick % 8u) {
    case 1: c->struct_size = HURRAY_PLUGIN_TABLE_SIZE_1_0; break;
    case 2: c->struct_size = HURRAY_PLUGIN_TABLE_SIZE_1_1_MEMORY; break;
    case 3: c->struct_size = HURRAY_PLUGIN_TABLE_MIN_SIZE; break;
    case 4: /* anywhere from the minimum to the whole table: inside entries too */
      c->struct_size = HURRAY_PLUGIN_TABLE_MIN_SIZE +
                       size_pick % (sizeof(hurray_plugin_table) - HURRAY_PLUGIN_TABLE_MIN_SIZE);
      break;
    case 5: c->struct_size = sizeof(hurray_plugin_table) + 16u; break;
    case 6: c->struct_size = size_pick % HURRAY_PLUGIN_TABLE_MIN_SIZE; break;
    default: break;
  }
  if (c->struct_size <= HURRAY_PLUGIN_TABLE_SIZE_1_0) {
    c->abi_version = HURRAY_PLUGIN_ABI_MAKE(1u, 0u);
  }
  c->optional = (optional ^ 0xFFFFu) & HOSTILE_ALL_OPTIONAL;
  c->decline = (faults & 0x01u) != 0u;
  c->name_null = (faults & 0x0Fu) == 0x02u;
  c->version_null = (faults & 0x0Fu) == 0x04u;
  if ((faults & 0x0Fu) == 0x06u) c->reserved_byte = 1u;
  if ((faults & 0x0Fu) == 0x08u) c->abi_version = HURRAY_PLUGIN_ABI_MAKE(2u, 0u);
  if ((faults & 0x0Fu) == 0x0Au) c->required_null = 1u << (faults >> 5);
  if ((faults & 0x0Fu) == 0x0Cu) snprintf(c->name, sizeof c->name, "Hostile Name");
  if ((faults & 0x0Fu) == 0x0Eu) {
    memset(c->version, 'v', 35);
    c->version[35] = '\0';
  }
}

/* PL-LOAD-5, PL-LOAD-6, PL-DEV-1..5: the load as the rules decide it. */
static void load(void) {
  uint32_t declared = hostile_table_config.struct_size;
  host_poison();
  hurray_status s = host_checked(hurray_plugin_load_linked(
      host_registry, LINKED_NAME, hostile_plugin_entry, 0, &host_plugin, &host_err));
  if (s == HURRAY_OK) {
    FUZZ_CHECK(host_plugin != NULL && hurray_plugin_registry_count(host_registry) == 1u);
    FUZZ_CHECK(hostile_seen.inits == 1u && hostile_seen.shutdowns == 0u);
    FUZZ_CHECK(!hostile_seen.invalid_description && hostile_seen.count_answered <= 256u);
    FUZZ_CHECK(hurray_plugin_device_count(host_plugin) == hostile_seen.count_answered);
    FUZZ_CHECK(hurray_plugin_device_tag(host_plugin) == hostile_table_config.device_tag);
    FUZZ_CHECK(hurray_plugin_supports_events(host_plugin) ==
               (hostile_offered(HOSTILE_CREATE_EVENT) ? HURRAY_TRUE : HURRAY_FALSE));
    return;
  }
  FUZZ_CHECK(host_plugin == NULL && hurray_plugin_registry_count(host_registry) == 0u);
  FUZZ_CHECK(strstr(host_err.detail, LINKED_NAME) != NULL); /* PL-LOAD-6: names the plugin */
  FUZZ_CHECK(hostile_seen.shutdowns == hostile_seen.inits); /* nothing left initialised */
  if (hostile_table_config.decline) {
    FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_ABI_MISMATCH);
    return;
  }
  if (hostile_seen.inits == 0u && hostile_seen.answers == 0u) {
    /* Refused on the table: the verdict of the pure validation. */
    hurray_plugin_table out;
    out.struct_size = sizeof out;
    size_t readable = declared < sizeof out ? (declared < 8u ? 8u : declared) : sizeof out;
    hurray_error v;
    const hurray_plugin_table *t = hostile_plugin_entry(HURRAY_PLUGIN_ABI_VERSION);
    hurray_status want =
        hurray_plugin_table_validate(t, readable, HURRAY_PLUGIN_ABI_VERSION, &out, &v);
    if (want == HURRAY_OK) {
      want = hurray_plugin_table_check_strings(&out, &v);
    }
    FUZZ_CHECK(want == s && want != HURRAY_OK);
    return;
  }
  if (hostile_seen.last_status != HURRAY_OK) {
    FUZZ_CHECK(s == hostile_mapped(hostile_seen.last_status));
    return;
  }
  FUZZ_CHECK(s == HURRAY_ERR_PLUGIN_INVALID);
  FUZZ_CHECK(hostile_seen.invalid_description || hostile_seen.count_answered > 256u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fds_before = fuzz_count_fds();
  fault_watch_begin();
  host_input.data = data;
  host_input.size = size;
  host_input.at = 0;
  hostile_reset();
  hostile_set_source(&host_input);
  memset(host_buffers, 0, sizeof host_buffers);
  memset(host_buffer_live, 0, sizeof host_buffer_live);
  memset(host_events, 0, sizeof host_events);
  host_plugin = NULL;
  configure();
  FUZZ_CHECK(hurray_plugin_registry_create(&host_registry, NULL) == HURRAY_OK);
  load();
  bool loaded = host_plugin != NULL;
  for (int ops = 0; loaded && ops < 96 && host_input.at < host_input.size; ops++) {
    uint8_t op = hostile_u8(&host_input);
    if (op >= 0xF0u) {
      op_under_fault(op);
      continue;
    }
    switch (op % 19u) {
      case 0:
      case 1: op_allocate(); break;
      case 2: op_import(); break;
      case 3: op_release(); break;
      case 4: op_copy(true); break;
      case 5: op_copy(false); break;
      case 6: op_export(); break;
      case 7: op_event_create(); break;
      case 8: op_event_use(); break;
      case 9: op_event_native(); break;
      case 10: op_event_export(); break;
      case 11: op_event_import(); break;
      case 12: op_event_release(); break;
      case 13: op_query(); break;
      case 14: op_load_again(); break;
      case 15: op_unload(); break;
      case 16: hostile_files_op(&host_input); break;
      case 17: op_registry(); break;
      default: /* a careless caller (fuzz/hostile_misuse.c) */
        hostile_misuse_op(&host_input, host_plugin, host_buffer_live[0] ? host_buffers[0] : NULL,
                          host_events[0]);
        break;
    }
  }
  /* Whatever is left: released after the registry has let go of the
   * plugin, so the last release shuts it down (PL-LIFE-1). */
  hurray_plugin_registry_destroy(host_registry);
  host_registry = NULL;
  host_plugin = NULL;
  for (int i = 0; i < SLOTS; i++) {
    if (host_buffer_live[i]) {
      FUZZ_CHECK(hostile_seen.shutdowns == 0u);
      hurray_plugin_buffer_free(host_buffers[i]);
    }
    if (host_events[i] != NULL) {
      FUZZ_CHECK(hostile_seen.shutdowns == 0u);
      hurray_plugin_event_release(host_events[i]);
    }
  }
  FUZZ_CHECK(hostile_seen.live_buffers == 0u && hostile_seen.live_events == 0u);
  FUZZ_CHECK(hostile_seen.shutdowns == hostile_seen.inits && hostile_seen.inits <= 1u);
  hostile_set_source(NULL);
  hostile_forget_table();
  FUZZ_CHECK(fuzz_count_fds() == fds_before);
  FUZZ_CHECK(fault_mapped_bytes() == 0 && fault_open_libraries() == 0);
  return 0;
}

FUZZ_ORACLE_END
