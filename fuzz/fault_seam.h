/*
 * The fault-injection seam of the plugin_host fuzz target: the system calls
 * the plugin host (core/runtime/plugin_*.c) and plugins/common's
 * plugin_support.c make, wrapped at link time (fuzz/targets.sh's
 * hurray_fuzz_extra_link_flags: -Wl,--wrap=NAME) in this target only, so the
 * production library is the one built from the same sources, unchanged.
 * A few bytes of the input arm one fault: the next calls of one kind fail,
 * with the errno a real failure gives; the harness then checks that the
 * error path leaves nothing half done (PL-LOAD-6: no registry entry, no
 * library left open; no descriptor or mapping leaked).
 *
 * Besides failures, the seam plays the parts of a file system and a dynamic
 * linker the fuzzer cannot build: plugin files whose dlopen gives the fuzz
 * process itself (its exported hurray_plugin_entry, fuzz/hostile_loader.c),
 * an entry symbol that a library the plugin pulled in defines, or that names
 * a data object, and files or folders that stat says another user owns.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_FUZZ_FAULT_SEAM_H
#define HURRAY_FUZZ_FAULT_SEAM_H

#include <stdbool.h>
#include <stdint.h>

#include "hurray/plugin.h"

typedef enum fault_call {
  FAULT_NONE,
  FAULT_MALLOC,
  FAULT_CALLOC,
  FAULT_REALLOC,
  FAULT_STRDUP,
  FAULT_MMAP,
  FAULT_MEMFD_CREATE,
  FAULT_FTRUNCATE,
  FAULT_FCNTL,
  FAULT_FSTAT,
  FAULT_STAT,
  FAULT_DLOPEN,
  FAULT_DLSYM,
  FAULT_DLINFO,
  FAULT_DLADDR1,
  FAULT_CALL_COUNT
} fault_call;

/* The call of kind `call` after `skip` more of them fails, with errno
 * `error` where the call sets one. One fault at a time; FAULT_NONE disarms. */
void fault_arm(fault_call call, uint32_t skip, int error);
/* Whether the fault armed last has happened; until fault_disarm. */
bool fault_fired(void);
void fault_disarm(void);
/* Between these, the harness's own calls (the oracle's descriptors, its
 * checks) pass and do not count towards the armed fault. */
void fault_hold(void);
void fault_release(void);

/* What the wrapped calls did since fault_watch_begin: bytes mapped minus
 * bytes unmapped, libraries opened minus closed. */
void fault_watch_begin(void);
long long fault_mapped_bytes(void);
int fault_open_libraries(void);

/* The file names (last path component) the dynamic linker stand-in knows:
 * dlopen of a file so named opens the fuzz process itself (SELF, DATA) or
 * libm (BORROWED); dlsym of the entry symbol in DATA answers a data object,
 * in BORROWED the process's entry, which libm does not define. */
#define FAULT_FILE_SELF "hurray-plugin-self.so"
#define FAULT_FILE_DATA "hurray-plugin-data.so"
#define FAULT_FILE_BORROWED "hurray-plugin-borrowed.so"
/* stat of a path whose last component holds this reports FAULT_FOREIGN_UID. */
#define FAULT_FOREIGN_MARK "foreign"
#define FAULT_FOREIGN_UID 4242u

/* The data object FAULT_FILE_DATA's entry symbol names (exported). */
extern const unsigned char hurray_fuzz_entry_data[64];
/* The fuzz process's own entry (exported; fuzz/hostile_loader.c): the
 * plugin every FAULT_FILE_SELF file holds. */
const hurray_plugin_table *hurray_plugin_entry(uint32_t host_abi_version);

#endif /* HURRAY_FUZZ_FAULT_SEAM_H */
