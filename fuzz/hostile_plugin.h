/*
 * A device plugin whose every answer comes from the fuzzer: the hostile
 * plugin of fuzz/fuzz_plugin_host.c, and the device side of the harnesses
 * that place or import buffers through a plugin registry (net_receive,
 * ipc_api). It is linked into the harness and loaded through the loader's
 * seam for linked plugins (hurray_plugin_load_linked,
 * core/runtime/plugin_internal.h): everything after the entry call runs as
 * for a file (specs/plugin-abi.md PL-LOAD-5).
 *
 * Each call reads its answer from a byte stream (hostile_source): the
 * status it returns (HURRAY_OK, a defined failure, or a value outside
 * hurray_status), what it writes into the host's error (nothing, a reason,
 * an unterminated detail) and how its out-struct departs from a correct
 * answer. An exhausted stream answers correctly, so a harness that gives it
 * no bytes gets a well-behaved device.
 *
 * What the plugin can tell on its own is checked where it sees it (an
 * entry the table does not offer is never called, PL-TABLE-8; free gets
 * only what allocate or import gave and only once; a copy stays inside the
 * buffer, PL-COPY-2; record/wait/release only live events); the counts and
 * the last answers are kept for the harness's oracle.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_HOSTILE_PLUGIN_H
#define HURRAY_FUZZ_HOSTILE_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hurray/plugin.h"

/* The bytes the answers come from. */
typedef struct hostile_source {
  const uint8_t *data;
  size_t size;
  size_t at;
} hostile_source;

uint8_t hostile_u8(hostile_source *s);   /* 0 once exhausted */
uint16_t hostile_u16(hostile_source *s); /* little-endian */
uint32_t hostile_u32(hostile_source *s);
uint64_t hostile_u64(hostile_source *s);

/* The optional entries, in table order (PL-TABLE-1, PL-IPC-5, PL-IPC-10). */
enum {
  HOSTILE_UNAVAILABLE_REASON,
  HOSTILE_CREATE_EVENT,
  HOSTILE_RECORD_EVENT,
  HOSTILE_WAIT_EVENT,
  HOSTILE_RELEASE_EVENT,
  HOSTILE_WAIT_STREAM,
  HOSTILE_STREAM_WAIT_EVENT,
  HOSTILE_NATIVE_EVENT,
  HOSTILE_EXPORT_MEMORY,
  HOSTILE_IMPORT_MEMORY,
  HOSTILE_CREATE_EVENT_FLAGS,
  HOSTILE_EXPORT_EVENT,
  HOSTILE_IMPORT_EVENT,
  HOSTILE_OPTIONAL_COUNT
};
#define HOSTILE_ALL_OPTIONAL ((1u << HOSTILE_OPTIONAL_COUNT) - 1u)

/* What the table says, set before hostile_plugin_entry is called. */
typedef struct hostile_config {
  uint32_t struct_size;
  uint32_t abi_version;
  hurray_device_tag device_tag;
  uint8_t reserved_byte;  /* written into the table's first reserved byte */
  bool decline;           /* the entry returns NULL (PL-ENTRY-2) */
  uint32_t optional;      /* bit HOSTILE_*: the entry is set */
  uint32_t required_null; /* bit i: required entry i (init .. copy_to_host) is NULL */
  bool name_null;
  bool version_null;
  char name[40]; /* NUL-terminated; the plugin keeps it in an exact-size block */
  char version[40];
} hostile_config;

/* What the plugin answered and how often it was called. */
typedef struct hostile_record {
  uint32_t inits; /* successful init calls */
  uint32_t shutdowns;
  uint32_t live_buffers; /* allocate/import answers OK, minus frees */
  uint32_t live_events;
  uint32_t allocate_calls;
  uint32_t import_calls;
  uint32_t copy_calls;
  uint32_t event_calls;      /* create, create_flags, import */
  uint32_t answers;          /* entries that returned a status */
  bool invalid_description;  /* a description it wrote breaks PL-DEV-1..5 or PL-DEV-3 */
  uint32_t count_answered;   /* what count_devices said */
  hurray_status last_status; /* what the last entry returned */
  bool last_detail_given;    /* ... and whether it wrote a (non-empty) reason */
  hurray_plugin_allocation last_allocation; /* the last OK allocate/import answer */
  int last_exported_fd;                     /* the descriptor export_memory handed out, or -1 */
} hostile_record;

/* One plugin, one process: the harnesses are single-threaded. */
extern hostile_config hostile_table_config;
extern hostile_record hostile_seen;

/* Where the answers come from (NULL: every answer is correct). */
void hostile_set_source(hostile_source *source);
/* A correct table for `tag` with every entry, name "hostile". */
void hostile_config_default(hostile_config *config, hurray_device_tag tag);
/* Forgets the counts (between inputs). */
void hostile_reset(void);
/* Frees the table made by the last entry call (after its plugin is gone). */
void hostile_forget_table(void);

/* The entry point, as a plugin file exports it (PL-ENTRY-1). */
const hurray_plugin_table *hostile_plugin_entry(uint32_t host_abi_version);

/* Whether the host may call optional entry `which` (PL-NEG-4, PL-TABLE-8):
 * set in the table and wholly inside struct_size and the host's sizeof. */
bool hostile_offered(unsigned which);

/* The status the host reports for an entry that returned `returned`
 * (PL-CALL-3, PL-CALL-4). */
hurray_status hostile_mapped(hurray_status returned);

/* One operation on the loader's file side, from the input
 * (fuzz/hostile_files.c): a path, a search path or a name; or, for a
 * first byte from 0xE0, one of hostile_loader_op's. */
void hostile_files_op(hostile_source *in);

/* What a discovery reports of each candidate (PL-SEARCH-3): a status,
 * the plugin exactly on success, the error (filled, terminated) otherwise. */
void hostile_check_candidate(const char *path, hurray_status status, const hurray_error *err,
                             const hurray_plugin *plugin);

/* A load from a plugin file of `folder` (the one fuzz/hostile_files.c
 * makes) under an injected fault, a linked load with a long name, or a
 * discovery, as `what` (the operation's first byte) says
 * (fuzz/hostile_loader.c). */
void hostile_loader_op(hostile_source *in, uint8_t what, const char *folder);

/* NULL arguments, small out-structs and a thread's allocations against a
 * loaded plugin (fuzz/hostile_misuse.c); plugin, buffer, event may be NULL. */
void hostile_misuse_op(hostile_source *in, hurray_plugin *plugin, hurray_plugin_buffer *buffer,
                       hurray_plugin_event *event);

#endif /* HURRAY_FUZZ_HOSTILE_PLUGIN_H */
