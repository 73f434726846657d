/*
 * Host memory a receiver lands tensors in, kept for reuse (NET-RECV-9).
 *
 * Why: a receiver that allocates a fresh destination for every tensor pays
 * for the allocation and, above glibc's mmap threshold, for faulting in and
 * zeroing every page, on every tensor; at 64 MiB that costs as much as the
 * transfer itself. Memory released by the consumer goes back here, and the
 * next tensor with a buffer of the same size lands in pages already mapped.
 *
 * Buffers outlive the connection (a consumer may release after the close),
 * so the pool is counted: one reference for the connection and one for each
 * buffer handed out. Releases come from any thread (include/hurray/net.h),
 * hence the lock; a receive takes it once per buffer.
 * SPDX-License-Identifier: Apache-2.0
 */
#define _POSIX_C_SOURCE 200809L

#include "net_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Enough for every buffer of several tensors in flight; a kept buffer past
 * it evicts the oldest, so the bound costs reuse, never memory. */
#define LANDING_SLOTS 64u

typedef struct landing_slot {
  void *memory;
  uint64_t size;
} landing_slot;

struct hurray_internal_landing_pool {
  pthread_mutex_t lock;
  /* The connection's reference (until hurray_internal_landing_close) and one per buffer out. */
  uint64_t references;
  uint64_t max_bytes;
  uint64_t kept_bytes;
  uint64_t reused;
  uint32_t closed;
  uint32_t count;
  /* Oldest first. */
  landing_slot slots[LANDING_SLOTS];
};

hurray_internal_landing_pool *hurray_internal_landing_pool_new(uint64_t max_bytes) {
  hurray_internal_landing_pool *pool = calloc(1, sizeof *pool);
  if (pool == NULL) {
    return NULL;
  }
  if (pthread_mutex_init(&pool->lock, NULL) != 0) {
    free(pool);
    return NULL;
  }
  pool->references = 1;
  pool->max_bytes = max_bytes;
  return pool;
}

/* Frees kept buffers, oldest first, until at most `limit` bytes stay. Lock held. */
static void trim_locked(hurray_internal_landing_pool *pool, uint64_t limit) {
  uint32_t dropped = 0;
  while (dropped < pool->count && pool->kept_bytes > limit) {
    free(pool->slots[dropped].memory);
    pool->kept_bytes -= pool->slots[dropped].size;
    dropped++;
  }
  if (dropped > 0u) {
    memmove(pool->slots, pool->slots + dropped, (pool->count - dropped) * sizeof pool->slots[0]);
    pool->count -= dropped;
  }
}

/* Drops one reference; the last one frees the pool. Lock held, released here. */
static void unlock_and_drop(hurray_internal_landing_pool *pool) {
  uint64_t left = --pool->references;
  pthread_mutex_unlock(&pool->lock);
  if (left == 0u) {
    pthread_mutex_destroy(&pool->lock);
    free(pool);
  }
}

void *hurray_internal_landing_take(hurray_internal_landing_pool *pool, uint64_t size,
                                   size_t alignment) {
  if (size == 0u || size > SIZE_MAX) {
    return NULL;
  }
  pthread_mutex_lock(&pool->lock);
  /* Newest first: the buffer most recently released is the likeliest to be
   * in cache. Exact size only, since UCX's receive length is the declared
   * size (NET-RECV-4), and the declared alignment must hold for the address. */
  for (uint32_t i = pool->count; i-- > 0u;) {
    landing_slot s = pool->slots[i];
    if (s.size == size && ((uintptr_t)s.memory % alignment) == 0u) {
      memmove(pool->slots + i, pool->slots + i + 1u, (pool->count - i - 1u) * sizeof s);
      pool->count--;
      pool->kept_bytes -= size;
      pool->reused++;
      pthread_mutex_unlock(&pool->lock);
      return s.memory;
    }
  }
  pthread_mutex_unlock(&pool->lock);
  void *memory = NULL;
  if (posix_memalign(&memory, alignment, (size_t)size) != 0) {
    return NULL;
  }
  return memory;
}

void hurray_internal_landing_give(hurray_internal_landing_pool *pool, void *memory, uint64_t size) {
  if (memory == NULL) {
    return;
  }
  pthread_mutex_lock(&pool->lock);
  if (pool->closed || size > pool->max_bytes) {
    pthread_mutex_unlock(&pool->lock);
    free(memory);
    return;
  }
  trim_locked(pool, pool->max_bytes - size);
  if (pool->count == LANDING_SLOTS) {
    free(pool->slots[0].memory);
    pool->kept_bytes -= pool->slots[0].size;
    memmove(pool->slots, pool->slots + 1, (LANDING_SLOTS - 1u) * sizeof pool->slots[0]);
    pool->count--;
  }
  pool->slots[pool->count].memory = memory;
  pool->slots[pool->count].size = size;
  pool->count++;
  pool->kept_bytes += size;
  pthread_mutex_unlock(&pool->lock);
}

void hurray_internal_landing_hold(hurray_internal_landing_pool *pool) {
  pthread_mutex_lock(&pool->lock);
  pool->references++;
  pthread_mutex_unlock(&pool->lock);
}

void hurray_internal_landing_release(hurray_internal_landing_pool *pool, void *memory,
                                     uint64_t size) {
  hurray_internal_landing_give(pool, memory, size);
  pthread_mutex_lock(&pool->lock);
  unlock_and_drop(pool);
}

void hurray_internal_landing_set_max(hurray_internal_landing_pool *pool, uint64_t max_bytes) {
  pthread_mutex_lock(&pool->lock);
  pool->max_bytes = max_bytes;
  trim_locked(pool, max_bytes);
  pthread_mutex_unlock(&pool->lock);
}

uint64_t hurray_internal_landing_kept_bytes(hurray_internal_landing_pool *pool) {
  pthread_mutex_lock(&pool->lock);
  uint64_t kept = pool->kept_bytes;
  pthread_mutex_unlock(&pool->lock);
  return kept;
}

uint64_t hurray_internal_landing_reused(hurray_internal_landing_pool *pool) {
  pthread_mutex_lock(&pool->lock);
  uint64_t reused = pool->reused;
  pthread_mutex_unlock(&pool->lock);
  return reused;
}

void hurray_internal_landing_close(hurray_internal_landing_pool *pool) {
  if (pool == NULL) {
    return;
  }
  pthread_mutex_lock(&pool->lock);
  pool->closed = 1;
  trim_locked(pool, 0);
  unlock_and_drop(pool);
}
