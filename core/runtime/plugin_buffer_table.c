/*
 * The buffer record table: where every buffer made through a plugin keeps
 * its record, the token the caller holds for it, and how a free, a second
 * free and an unload are told apart (PL-LIFE-1, PL-LIFE-3).
 * Uses, of the plugin files: plugin_call.c (errors) and plugin_lifetime.c
 * (the orphan count); plugin_buffer_table.h says what the others may use.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hurray/plugin.h"
#include "plugin_buffer_table.h"
#include "plugin_internal.h"

/*
 * A buffer record lives in a slot of one process-wide table whose chunks are
 * never returned to malloc, so a stale hurray_plugin_buffer * never points
 * at freed memory. The pointer the caller holds is a token, not an address:
 * the slot's index + 1 in the low TOKEN_INDEX_BITS, the low bits of the
 * slot's cycle above them. The slot's generation word holds the cycle (one
 * per buffer the slot has held), the state (free, live, retiring) and the
 * orphan mark. The free that wins the compare-and-swap live -> retiring is
 * the one legitimate free, so a second free, a free after the slot was
 * reused (another cycle), a free after the plugin was unloaded or the
 * registry destroyed, and two racing frees are all told apart without
 * reading anything but the table. Free slots are cached per thread and
 * moved to or from one locked list in batches.
 *
 * PL-LIFE-1 without a count on the allocation path: a live buffer holds no
 * reference to its plugin. When the registry lets go of a plugin, the
 * unload marks each of the plugin's live slots orphan (a compare-and-swap
 * on the same word as the free's, so each buffer is either freed before the
 * mark or marked before its free, never both or neither) and counts them;
 * the free of an orphan gives its count back, and the last one closes the
 * plugin. A free that is not an orphan's never touches the plugin after its
 * slot leaves the retiring state, which the unload waits out. Allocation
 * then costs no atomic read-modify-write and the free one (the CAS that
 * PL-LIFE-3 needs anyway); bench_plugin_alloc measures the rest.
 */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TOKEN_INDEX_BITS 32u
#else
#define TOKEN_INDEX_BITS 22u
#endif
#define TOKEN_INDEX_MASK (((uintptr_t)1 << TOKEN_INDEX_BITS) - 1u)
#define TOKEN_GENERATION_MASK ((uint32_t)(UINTPTR_MAX >> TOKEN_INDEX_BITS))
#define SLOT_CHUNK_BITS 10u
#define SLOT_CHUNK_SIZE (1u << SLOT_CHUNK_BITS)
#define SLOT_MAX_CHUNKS 4096u /* 4 Mi live buffers */
#define SLOT_CACHE_SIZE 64u
#define SLOT_BATCH (SLOT_CACHE_SIZE / 2u)

/* The generation word: state in bits 0-1, orphan mark in bit 2, cycle above. */
#define SLOT_STATE_MASK 3u
#define SLOT_FREE 0u     /* in a cache or the free list, or being filled */
#define SLOT_LIVE 1u     /* a buffer the caller holds */
#define SLOT_RETIRING 2u /* its winning free is calling the plugin's free */
#define SLOT_ORPHAN 4u   /* live when its plugin was unloaded: its free closes the plugin */
#define SLOT_CYCLE_SHIFT 3u

typedef struct buffer_slot {
  struct hurray_plugin_buffer body; /* first: a body pointer is a slot pointer */
  _Atomic(hurray_plugin *) owner;   /* body.plugin, readable by the unload scan */
  _Atomic(uint32_t) generation;
  uint32_t index;
  uint32_t next_free; /* index + 1 in the shared free list; 0 ends it */
} buffer_slot;

static uint32_t slot_cycle(uint32_t generation) {
  return (generation >> SLOT_CYCLE_SHIFT) & TOKEN_GENERATION_MASK;
}

static _Atomic(buffer_slot *) slot_chunks[SLOT_MAX_CHUNKS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t slot_free_head; /* index + 1; guarded by slot_lock */
static uint32_t slot_created;   /* slots in the table; guarded by slot_lock */

typedef struct slot_cache {
  uint32_t count;
  uint32_t index[SLOT_CACHE_SIZE];
} slot_cache;
/* Each thread's cache is reached through a pthread key, not _Thread_local:
 * a TLS block in libhurray shifts the static TLS of the vendor runtimes the
 * plugins dlopen, and LeakSanitizer then no longer finds their TLS-held
 * allocations (5 false leaks with every plugin loaded; the same with a bare
 * 264-byte _Thread_local array added to the library without this code). */
static pthread_key_t slot_cache_key;
static pthread_once_t slot_cache_once = PTHREAD_ONCE_INIT;
static bool slot_cache_key_made;
static _Atomic(bool) slot_cache_key_ready; /* slot_cache_key_made, seen by this thread */

static buffer_slot *slot_at(uint32_t index) {
  buffer_slot *chunk =
      atomic_load_explicit(&slot_chunks[index >> SLOT_CHUNK_BITS], memory_order_acquire);
  return &chunk[index & (SLOT_CHUNK_SIZE - 1u)];
}

/* Caller holds slot_lock. Moves up to `n` free slots into the cache,
 * growing the table by one chunk when the shared list is empty. */
static void slot_refill_locked(slot_cache *cache, uint32_t n) {
  if (slot_free_head == 0u) {
    uint32_t chunk_index = slot_created >> SLOT_CHUNK_BITS;
    if (chunk_index >= SLOT_MAX_CHUNKS) {
      return;
    }
    buffer_slot *chunk = calloc(SLOT_CHUNK_SIZE, sizeof *chunk);
    if (chunk == NULL) {
      return;
    }
    for (uint32_t i = 0; i < SLOT_CHUNK_SIZE; i++) {
      uint32_t index = slot_created + i;
      chunk[i].index = index;
      chunk[i].next_free = i + 1u < SLOT_CHUNK_SIZE ? index + 2u : 0u;
      atomic_init(&chunk[i].generation, 0u);
      atomic_init(&chunk[i].owner, NULL);
    }
    atomic_store_explicit(&slot_chunks[chunk_index], chunk, memory_order_release);
    slot_free_head = slot_created + 1u;
    slot_created += SLOT_CHUNK_SIZE;
  }
  while (n > 0u && slot_free_head != 0u) {
    buffer_slot *slot = slot_at(slot_free_head - 1u);
    cache->index[cache->count++] = slot->index;
    slot_free_head = slot->next_free;
    n--;
  }
}

static void slot_spill(slot_cache *cache, uint32_t n) {
  pthread_mutex_lock(&slot_lock);
  while (n > 0u && cache->count > 0u) {
    buffer_slot *slot = slot_at(cache->index[--cache->count]);
    slot->next_free = slot_free_head;
    slot_free_head = slot->index + 1u;
    n--;
  }
  pthread_mutex_unlock(&slot_lock);
}

/* A thread that ends gives its cached slots back. */
static void slot_cache_destructor(void *cache) {
  slot_spill(cache, SLOT_CACHE_SIZE);
  free(cache);
}

static void slot_cache_key_create(void) {
  slot_cache_key_made = pthread_key_create(&slot_cache_key, slot_cache_destructor) == 0;
}

/* The calling thread's cache, made on first use; NULL when out of memory
 * (the callers then use the shared list directly). */
static slot_cache *thread_cache(void) {
  /* The once-call only until the key exists: this runs twice per buffer. */
  if (!atomic_load_explicit(&slot_cache_key_ready, memory_order_acquire)) {
    (void)!pthread_once(&slot_cache_once, slot_cache_key_create);
    if (!slot_cache_key_made) {
      return NULL;
    }
    atomic_store_explicit(&slot_cache_key_ready, true, memory_order_release);
  }
  slot_cache *cache = pthread_getspecific(slot_cache_key);
  if (cache == NULL) {
    cache = calloc(1, sizeof *cache);
    if (cache != NULL && pthread_setspecific(slot_cache_key, cache) != 0) {
      free(cache);
      cache = NULL;
    }
  }
  return cache;
}

/* When the library is unloaded or the process exits: the table goes with
 * it, and no thread that ends later runs slot_cache_destructor from a
 * library no longer mapped. A buffer still live then is the caller's leak
 * (PL-LIFE-1) and its pointer is no longer usable. */
__attribute__((destructor)) static void slot_table_free(void) {
  pthread_mutex_lock(&slot_lock);
  for (uint32_t i = 0; i < SLOT_MAX_CHUNKS; i++) {
    free(atomic_exchange_explicit(&slot_chunks[i], NULL, memory_order_acq_rel));
  }
  slot_free_head = 0u;
  slot_created = 0u;
  pthread_mutex_unlock(&slot_lock);
  if (slot_cache_key_made) {
    free(pthread_getspecific(slot_cache_key));
    (void)!pthread_setspecific(slot_cache_key, NULL);
    (void)!pthread_key_delete(slot_cache_key);
    slot_cache_key_made = false;
    atomic_store_explicit(&slot_cache_key_ready, false, memory_order_relaxed);
  }
}

/* A free slot for a new buffer and its token; NULL when the table is full
 * or out of memory. */
static hurray_plugin_buffer *slot_take(hurray_plugin_buffer **token) {
  slot_cache *cache = thread_cache();
  if (cache == NULL) {
    return NULL;
  }
  if (cache->count == 0u) {
    pthread_mutex_lock(&slot_lock);
    slot_refill_locked(cache, SLOT_BATCH);
    pthread_mutex_unlock(&slot_lock);
    if (cache->count == 0u) {
      return NULL;
    }
  }
  buffer_slot *slot = slot_at(cache->index[--cache->count]);
  uint32_t cycle = slot_cycle(atomic_load_explicit(&slot->generation, memory_order_relaxed) +
                              (1u << SLOT_CYCLE_SHIFT));
  *token = (hurray_plugin_buffer *)(((uintptr_t)cycle << TOKEN_INDEX_BITS) |
                                    ((uintptr_t)slot->index + 1u));
  return &slot->body;
}

/* PL-LIFE-3: the record is a slot of the process-wide table, never
 * returned to malloc, and the caller's pointer is its token (index +
 * cycle). The plugin fills the slot's allocation in place: a copy of a
 * struct just written field by field stalls on store forwarding
 * (bench_plugin_alloc). NULL (err filled) when the table is full. */
hurray_plugin_buffer *hurray_buffer_record_take(hurray_plugin_buffer **token, hurray_error *err) {
  hurray_plugin_buffer *buffer = slot_take(token);
  if (buffer == NULL) {
    (void)hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, SLOT_CHUNK_SIZE * sizeof(buffer_slot),
                             0, 0, "buffer record table");
    return NULL;
  }
  memset(&buffer->allocation, 0, sizeof buffer->allocation);
  buffer->allocation.struct_size = sizeof buffer->allocation;
  return buffer;
}

/* Makes the filled body live in the next cycle, visible to any thread the
 * token reaches. */
void hurray_buffer_record_publish(hurray_plugin_buffer *body) {
  buffer_slot *slot = (buffer_slot *)body;
  atomic_store_explicit(&slot->owner, body->plugin, memory_order_relaxed);
  uint32_t generation = atomic_load_explicit(&slot->generation, memory_order_relaxed);
  uint32_t live = ((generation & ~(SLOT_STATE_MASK | SLOT_ORPHAN)) + (1u << SLOT_CYCLE_SHIFT)) |
                  SLOT_LIVE;
  atomic_store_explicit(&slot->generation, live, memory_order_release);
}

/* The slot a token names, or NULL when it names none of the table's. */
static buffer_slot *slot_of(const hurray_plugin_buffer *buffer) {
  uintptr_t index1 = (uintptr_t)buffer & TOKEN_INDEX_MASK;
  if (index1 == 0u || ((index1 - 1u) >> SLOT_CHUNK_BITS) >= SLOT_MAX_CHUNKS) {
    return NULL;
  }
  uint32_t index = (uint32_t)(index1 - 1u);
  if (atomic_load_explicit(&slot_chunks[index >> SLOT_CHUNK_BITS], memory_order_acquire) == NULL) {
    return NULL;
  }
  return slot_at(index);
}

static uint32_t token_generation(const hurray_plugin_buffer *buffer) {
  return (uint32_t)(((uintptr_t)buffer >> TOKEN_INDEX_BITS) & TOKEN_GENERATION_MASK);
}

static bool generation_is(uint32_t generation, const hurray_plugin_buffer *buffer) {
  return (generation & SLOT_STATE_MASK) == SLOT_LIVE &&
         slot_cycle(generation) == token_generation(buffer);
}

/* The live body behind a token, or NULL (freed, reused, never made). */
const hurray_plugin_buffer *hurray_buffer_record_live(const hurray_plugin_buffer *buffer) {
  buffer_slot *slot = slot_of(buffer);
  if (slot == NULL ||
      !generation_is(atomic_load_explicit(&slot->generation, memory_order_acquire), buffer)) {
    return NULL;
  }
  return &slot->body;
}

/* PL-LIFE-3: the error for a token that names no live buffer. */
static hurray_status slot_misuse(const hurray_plugin_buffer *buffer, const buffer_slot *slot,
                                 const char *who, hurray_error *err) {
  if (slot == NULL || atomic_load_explicit(&slot->generation, memory_order_relaxed) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)(uintptr_t)buffer, 0, 0,
                              "%s: buffer %p was not made by hurray_plugin_allocate (PL-LIFE-3)",
                              who, (const void *)buffer);
  }
  return hurray_plugin_fail(err, HURRAY_ERR_USE_AFTER_DESTROY, (uint64_t)(uintptr_t)buffer, 0, 0,
                            "%s: buffer %p was already freed (PL-LIFE-3)", who,
                            (const void *)buffer);
}

hurray_status hurray_buffer_record_find(const hurray_plugin_buffer *buffer, const char *who,
                                        const hurray_plugin_buffer **body, hurray_error *err) {
  *body = hurray_buffer_record_live(buffer);
  if (*body == NULL) { /* PL-LIFE-3 */
    return slot_misuse(buffer, slot_of(buffer), who, err);
  }
  return HURRAY_OK;
}

/* Ends the buffer's life: exactly one caller of all that race with the
 * same token gets the body (the slot now retiring) and learns whether it
 * was orphaned; every other one gets NULL, *status set to the PL-LIFE-3
 * error, and changes nothing. */
hurray_plugin_buffer *hurray_buffer_record_retire(const hurray_plugin_buffer *buffer,
                                                  const char *who, bool *orphan,
                                                  hurray_status *status, hurray_error *err) {
  buffer_slot *slot = slot_of(buffer);
  if (slot == NULL) {
    *status = slot_misuse(buffer, NULL, who, err);
    return NULL;
  }
  uint32_t generation = atomic_load_explicit(&slot->generation, memory_order_acquire);
  for (;;) {
    if (!generation_is(generation, buffer)) {
      *status = slot_misuse(buffer, slot, who, err);
      return NULL;
    }
    uint32_t retiring = (generation & ~SLOT_STATE_MASK) | SLOT_RETIRING;
    /* A failure reloads `generation`: another free won (the check above
     * then refuses), or the unload has just marked the slot orphan. */
    if (atomic_compare_exchange_weak_explicit(&slot->generation, &generation, retiring,
                                              memory_order_acq_rel, memory_order_acquire)) {
      break;
    }
  }
  *orphan = (generation & SLOT_ORPHAN) != 0u;
  *status = HURRAY_OK;
  return &slot->body;
}

/* The plugin's free has returned: the slot is free again (same cycle, no
 * mark). Release: an unload waiting on this slot sees the free complete. */
static void slot_finish(hurray_plugin_buffer *body) {
  buffer_slot *slot = (buffer_slot *)body;
  uint32_t generation = atomic_load_explicit(&slot->generation, memory_order_relaxed);
  atomic_store_explicit(&slot->generation,
                        (generation & ~(SLOT_STATE_MASK | SLOT_ORPHAN)) | SLOT_FREE,
                        memory_order_release);
}

/* The slots made so far; every one of them below this count is in a chunk. */
static uint32_t slot_count(void) {
  pthread_mutex_lock(&slot_lock);
  uint32_t count = slot_created;
  pthread_mutex_unlock(&slot_lock);
  return count;
}

void hurray_plugin_orphan_buffers(hurray_plugin *plugin) {
  /* The unload's own hold, so no orphan's free closes the plugin before
   * every live buffer has been counted. */
  atomic_store_explicit(&plugin->orphans, 1u, memory_order_relaxed);
  uint32_t count = slot_count();
  for (uint32_t i = 0; i < count; i++) {
    buffer_slot *slot = slot_at(i);
    for (;;) {
      uint32_t generation = atomic_load_explicit(&slot->generation, memory_order_acquire);
      uint32_t state = generation & SLOT_STATE_MASK;
      if (state == SLOT_FREE ||
          atomic_load_explicit(&slot->owner, memory_order_relaxed) != plugin) {
        break;
      }
      if (state == SLOT_RETIRING) {
        /* Its free is inside the plugin now and will not tell us when it
         * returns: wait until the slot is free. */
        sched_yield();
        continue;
      }
      atomic_fetch_add_explicit(&plugin->orphans, 1u, memory_order_relaxed);
      if (atomic_compare_exchange_strong_explicit(&slot->generation, &generation,
                                                  generation | SLOT_ORPHAN, memory_order_acq_rel,
                                                  memory_order_relaxed)) {
        break;
      }
      atomic_fetch_sub_explicit(&plugin->orphans, 1u, memory_order_relaxed);
    }
  }
  hurray_plugin_drop_orphan(plugin);
}

size_t hurray_plugin_live_buffers(const hurray_plugin *plugin) {
  size_t live = 0;
  uint32_t count = slot_count();
  for (uint32_t i = 0; i < count; i++) {
    buffer_slot *slot = slot_at(i);
    uint32_t state = atomic_load_explicit(&slot->generation, memory_order_acquire) &
                     SLOT_STATE_MASK;
    if (state != SLOT_FREE && atomic_load_explicit(&slot->owner, memory_order_relaxed) == plugin) {
      live++;
    }
  }
  return live;
}

/* Puts a retired slot back into this thread's cache. */
void hurray_buffer_record_give_back(hurray_plugin_buffer *body) {
  slot_cache *cache = thread_cache();
  if (cache == NULL) { /* no cache for this thread: straight to the shared list */
    buffer_slot *slot = (buffer_slot *)body;
    pthread_mutex_lock(&slot_lock);
    slot->next_free = slot_free_head;
    slot_free_head = slot->index + 1u;
    pthread_mutex_unlock(&slot_lock);
    return;
  }
  if (cache->count == SLOT_CACHE_SIZE) {
    slot_spill(cache, SLOT_BATCH);
  }
  cache->index[cache->count++] = ((buffer_slot *)body)->index;
}

void hurray_buffer_record_finish(hurray_plugin_buffer *body) {
  slot_finish(body);
  hurray_buffer_record_give_back(body);
}
