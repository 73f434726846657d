/*
 * Shared helpers of the stand-in vendor runtimes in tests/fakes/.
 *
 * Every stand-in is backed by host memory and reads its switches from the
 * environment on each call, so one test process can flip them between steps:
 *
 *   HURRAY_FAKE_DEVICES=N     devices the runtime reports (default 1; 0 = none)
 *   HURRAY_FAKE_OOM=1         every allocation fails with the vendor's
 *                             out-of-memory error
 *   HURRAY_FAKE_EVENT_HANG=1  events recorded from now on never complete
 *   HURRAY_FAKE_ALIGNMENT=N   allocations come back at an address whose
 *                             alignment is exactly N (a power of two, default
 *                             4096), so plugins must measure, not assume
 *   HURRAY_FAKE_NO_UNIFIED=1  devices report no managed/shared memory
 *   HURRAY_FAKE_NO_PEER=1     devices report no peer access
 *
 * Each stand-in also exports hurray_fake_live_objects(), the number of
 * allocations, events, streams and contexts the caller still holds, so the
 * tests can check that a plugin's shutdown released everything.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_FAKE_COMMON_H
#define HURRAY_TESTS_FAKE_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static inline long fake_env_long(const char *name, long fallback) {
  const char *value = getenv(name);
  if (value == NULL || *value == '\0') {
    return fallback;
  }
  return strtol(value, NULL, 0);
}

static inline bool fake_env_flag(const char *name) { return fake_env_long(name, 0) != 0; }

static inline int fake_device_count(void) { return (int)fake_env_long("HURRAY_FAKE_DEVICES", 1); }

/* One allocation handed out by a stand-in: the caller sees `address`, which
 * sits `alignment` bytes into a block aligned to 2 * alignment, so that its
 * alignment is exactly the one asked for through HURRAY_FAKE_ALIGNMENT (or
 * the caller's minimum, when larger). */
typedef struct fake_allocation {
  void *block;
  void *address;
  size_t size;
  int kind;
  struct fake_allocation *next;
} fake_allocation;

/* Everything a stand-in hands out, behind one lock: plugins may call from
 * several threads (a buffer release is callable from any thread). */
typedef struct fake_registry {
  pthread_mutex_t lock;
  fake_allocation *allocations;
  long other_objects;
} fake_registry;

#define FAKE_REGISTRY_INIT \
  { PTHREAD_MUTEX_INITIALIZER, NULL, 0 }

static inline void fake_count_object(fake_registry *registry, long delta) {
  pthread_mutex_lock(&registry->lock);
  registry->other_objects += delta;
  pthread_mutex_unlock(&registry->lock);
}

static inline void *fake_allocate(fake_registry *registry, size_t size, int kind,
                                  size_t min_alignment) {
  size_t alignment = (size_t)fake_env_long("HURRAY_FAKE_ALIGNMENT", 4096);
  if (alignment == 0 || (alignment & (alignment - 1u)) != 0) {
    alignment = 4096;
  }
  /* A runtime that takes an alignment argument (Level Zero) honours it. */
  while (alignment < min_alignment) {
    alignment <<= 1;
  }
  fake_allocation *record = calloc(1, sizeof *record);
  void *block = NULL;
  if (record == NULL || posix_memalign(&block, 2u * alignment, size + alignment) != 0) {
    free(record);
    return NULL;
  }
  record->block = block;
  record->address = (char *)block + alignment;
  record->size = size;
  record->kind = kind;
  pthread_mutex_lock(&registry->lock);
  record->next = registry->allocations;
  registry->allocations = record;
  pthread_mutex_unlock(&registry->lock);
  return record->address;
}

/* True when [address, address + size) lies inside one live allocation: a
 * stand-in refuses copies a real runtime would fault on. */
static inline bool fake_contains(fake_registry *registry, const void *address, size_t size) {
  bool inside = false;
  pthread_mutex_lock(&registry->lock);
  for (fake_allocation *a = registry->allocations; a != NULL && !inside; a = a->next) {
    const char *start = a->address;
    const char *p = address;
    inside = p >= start && size <= a->size && (size_t)(p - start) <= a->size - size;
  }
  pthread_mutex_unlock(&registry->lock);
  return inside;
}

/* Frees an allocation of `kind` (any kind when kind < 0); false when the
 * address is not the start of a live allocation, as a vendor would refuse. */
static inline bool fake_release(fake_registry *registry, const void *address, int kind) {
  fake_allocation *found = NULL;
  pthread_mutex_lock(&registry->lock);
  for (fake_allocation **link = &registry->allocations; *link != NULL; link = &(*link)->next) {
    fake_allocation *a = *link;
    if (a->address == address && (kind < 0 || a->kind == kind)) {
      *link = a->next;
      found = a;
      break;
    }
  }
  pthread_mutex_unlock(&registry->lock);
  if (found != NULL) {
    free(found->block);
    free(found);
  }
  return found != NULL;
}

static inline long fake_live_objects(fake_registry *registry) {
  pthread_mutex_lock(&registry->lock);
  long count = registry->other_objects;
  for (const fake_allocation *a = registry->allocations; a != NULL; a = a->next) {
    count++;
  }
  pthread_mutex_unlock(&registry->lock);
  return count;
}

/* A stand-in IPC memory handle (cuIpcGetMemHandle, hipIpcGetMemHandle):
 * a magic, the allocation's address and size, in the runtime's 64 bytes.
 * A stand-in has no memory shared between processes, so a handle opens in
 * the process that made it only: the open gives back the same address and
 * counts one object until it is closed, which is what the plugin tests
 * check (every open closed once). */
#define FAKE_IPC_MAGIC "hurray-fake-ipc"

static inline bool fake_ipc_get(fake_registry *registry, const void *address, char handle[64]) {
  size_t size = 0;
  bool found = false;
  pthread_mutex_lock(&registry->lock);
  for (const fake_allocation *a = registry->allocations; a != NULL && !found; a = a->next) {
    found = a->address == address;
    size = found ? a->size : 0u;
  }
  pthread_mutex_unlock(&registry->lock);
  if (!found) {
    return false;
  }
  memset(handle, 0, 64);
  memcpy(handle, FAKE_IPC_MAGIC, sizeof FAKE_IPC_MAGIC);
  memcpy(handle + 16, &address, sizeof address);
  memcpy(handle + 24, &size, sizeof size);
  return true;
}

static inline void *fake_ipc_open(fake_registry *registry, const char handle[64]) {
  if (memcmp(handle, FAKE_IPC_MAGIC, sizeof FAKE_IPC_MAGIC) != 0) {
    return NULL;
  }
  void *address = NULL;
  memcpy(&address, handle + 16, sizeof address);
  bool live = false;
  pthread_mutex_lock(&registry->lock);
  for (const fake_allocation *a = registry->allocations; a != NULL && !live; a = a->next) {
    live = a->address == address;
  }
  if (live) {
    registry->other_objects++;
  }
  pthread_mutex_unlock(&registry->lock);
  return live ? address : NULL;
}

static inline void fake_ipc_close(fake_registry *registry) { fake_count_object(registry, -1); }

/* Sleeps a millisecond: what a stand-in does while "the device" never
 * finishes, so a plugin that blocks without a timeout hangs as it would on
 * real hardware (and its test fails on the harness timeout). */
static inline void fake_pause(void) {
  struct timespec pause = {0, 1000000};
  nanosleep(&pause, NULL);
}

/* A stand-in event: complete once recorded unless HURRAY_FAKE_EVENT_HANG was
 * set when it was recorded. */
typedef struct fake_event {
  uint32_t magic;
  bool recorded;
  bool hangs;
} fake_event;

#define FAKE_EVENT_MAGIC 0x45564e54u

static inline void fake_event_record(fake_event *event) {
  event->recorded = true;
  event->hangs = fake_env_flag("HURRAY_FAKE_EVENT_HANG");
}

static inline bool fake_event_complete(const fake_event *event) {
  return !event->recorded || !event->hangs;
}

#endif /* HURRAY_TESTS_FAKE_COMMON_H */
