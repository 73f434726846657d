/*
 * Shared inside libhurray-net: the landing pool.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_NET_INTERNAL_H
#define HURRAY_NET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/net.h"

/*
 * Host memory released by the consumer, kept for the connection's next
 * receives (NET-RECV-9; net/landing_pool.c). Thread-safe; counted: the
 * connection holds one reference, each buffer handed out another.
 */
typedef struct hurray_internal_landing_pool hurray_internal_landing_pool;

/* A pool keeping at most max_bytes, holding the caller's reference; NULL when out of memory. */
hurray_internal_landing_pool *hurray_internal_landing_pool_new(uint64_t max_bytes);
/* Memory of exactly `size` bytes at a multiple of `alignment` (a power of
 * two, at least sizeof(void *)): a kept buffer, or a new one; NULL when
 * none can be had. The caller owns it. */
void *hurray_internal_landing_take(hurray_internal_landing_pool *pool, uint64_t size,
                                   size_t alignment);
/* Keeps memory taken from the pool (its size as taken) or frees it: freed
 * after the close and when it alone exceeds the budget; the oldest kept
 * buffers are freed to make room. NULL is nothing. */
void hurray_internal_landing_give(hurray_internal_landing_pool *pool, void *memory, uint64_t size);
/* One more reference, for a buffer handed out. */
void hurray_internal_landing_hold(hurray_internal_landing_pool *pool);
/* A handed-out buffer's release: gives its memory, then drops its reference. */
void hurray_internal_landing_release(hurray_internal_landing_pool *pool, void *memory,
                                     uint64_t size);
/* A new budget; kept buffers over it are freed, oldest first. */
void hurray_internal_landing_set_max(hurray_internal_landing_pool *pool, uint64_t max_bytes);
uint64_t hurray_internal_landing_kept_bytes(hurray_internal_landing_pool *pool);
/* How many takes a kept buffer served. */
uint64_t hurray_internal_landing_reused(hurray_internal_landing_pool *pool);
/* The connection's end: frees every kept buffer, keeps none from now on,
 * drops the connection's reference. NULL is nothing. */
void hurray_internal_landing_close(hurray_internal_landing_pool *pool);

#endif /* HURRAY_NET_INTERNAL_H */
