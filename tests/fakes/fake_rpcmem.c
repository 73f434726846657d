/*
 * Stand-in for Qualcomm's FastRPC user library (libcdsprpc.so): the rpcmem
 * calls the hexagon plugin makes, declared as the Hexagon SDK's rpcmem.h
 * documents them, backed by host memory. Switches: fake_common.h
 * (HURRAY_FAKE_DEVICES=0: every allocation fails, as without a DSP).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create and MAP_ANONYMOUS, in fake_common.h */
#include "fake_common.h"

FAKE_EXPORT void rpcmem_init(void);
FAKE_EXPORT void rpcmem_deinit(void);
FAKE_EXPORT void *rpcmem_alloc(int heapid, uint32_t flags, int size);
FAKE_EXPORT void *rpcmem_alloc2(int heapid, uint32_t flags, size_t size);
FAKE_EXPORT void rpcmem_free(void *po);
FAKE_EXPORT int rpcmem_to_fd(void *po);
FAKE_EXPORT long hurray_fake_live_objects(void);

static fake_registry registry = FAKE_REGISTRY_INIT;
static int initialised;

long hurray_fake_live_objects(void) { return fake_live_objects(&registry); }

void rpcmem_init(void) { initialised++; }

void rpcmem_deinit(void) { initialised--; }

void *rpcmem_alloc2(int heapid, uint32_t flags, size_t size) {
  (void)flags;
  if (fake_device_count() <= 0 || fake_env_flag("HURRAY_FAKE_OOM") || heapid < -1 || size == 0) {
    return NULL;
  }
  return fake_allocate(&registry, size, heapid, 0);
}

void *rpcmem_alloc(int heapid, uint32_t flags, int size) {
  return size <= 0 ? NULL : rpcmem_alloc2(heapid, flags, (size_t)size);
}

void rpcmem_free(void *po) {
  /* The SDK: "Free a buffer and ignore invalid buffers." */
  (void)fake_release(&registry, po, -1);
}

int rpcmem_to_fd(void *po) {
  /* A dma-buf descriptor on a real device; any non-negative number here. */
  return fake_contains(&registry, po, 1) ? 100 : -1;
}
