/*
 * Buffers and events made through a plugin: the host-side checks around each
 * plugin call, and the bookkeeping that lets unload release everything.
 * Rules: specs/plugin-abi.md PL-ALLOC-1..5, PL-COPY-1..2, PL-EVENT-1..4; every
 * plugin call goes through the host's own error (PL-CALL-3, PL-CALL-4).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hurray/plugin.h"
#include "plugin_internal.h"
#include "hurray/plugin_support.h"

/* ------------------------------------------------------------------------ */
/* Buffer records (PL-LIFE-3)                                               */
/* ------------------------------------------------------------------------ */
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
  uint32_t cycle = slot_cycle(
      atomic_load_explicit(&slot->generation, memory_order_relaxed) + (1u << SLOT_CYCLE_SHIFT));
  *token = (hurray_plugin_buffer *)(((uintptr_t)cycle << TOKEN_INDEX_BITS) |
                                    ((uintptr_t)slot->index + 1u));
  return &slot->body;
}

/* Makes the filled body live in the next cycle, visible to any thread the
 * token reaches. */
static void slot_publish(hurray_plugin_buffer *body) {
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
static const hurray_plugin_buffer *slot_live(const hurray_plugin_buffer *buffer) {
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
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)(uintptr_t)buffer, 0,
                              0, "%s: buffer %p was not made by hurray_plugin_allocate (PL-LIFE-3)",
                              who, (const void *)buffer);
  }
  return hurray_plugin_fail(err, HURRAY_ERR_USE_AFTER_DESTROY, (uint64_t)(uintptr_t)buffer, 0, 0,
                            "%s: buffer %p was already freed (PL-LIFE-3)", who,
                            (const void *)buffer);
}

/* Ends the buffer's life: exactly one caller of all that race with the
 * same token gets the body (the slot now retiring) and learns whether it
 * was orphaned; every other one gets NULL, *status set to the PL-LIFE-3
 * error, and changes nothing. */
static hurray_plugin_buffer *slot_retire(const hurray_plugin_buffer *buffer, const char *who,
                                         bool *orphan, hurray_status *status, hurray_error *err) {
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

void hurray_plugin_drop_orphan(hurray_plugin *plugin) {
  /* acq_rel: whoever closes the plugin sees every orphan's free done. */
  if (atomic_fetch_sub_explicit(&plugin->orphans, 1u, memory_order_acq_rel) == 1u) {
    hurray_plugin_drop_reference(plugin); /* the registry's, held for the orphans */
  }
}

size_t hurray_plugin_live_buffers(const hurray_plugin *plugin) {
  size_t live = 0;
  uint32_t count = slot_count();
  for (uint32_t i = 0; i < count; i++) {
    buffer_slot *slot = slot_at(i);
    uint32_t state = atomic_load_explicit(&slot->generation, memory_order_acquire) &
                     SLOT_STATE_MASK;
    if (state != SLOT_FREE &&
        atomic_load_explicit(&slot->owner, memory_order_relaxed) == plugin) {
      live++;
    }
  }
  return live;
}

/* Puts a retired slot back into this thread's cache. */
static void slot_give_back(hurray_plugin_buffer *body) {
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

/* ------------------------------------------------------------------------ */
/* Allocation                                                               */
/* ------------------------------------------------------------------------ */

/* The helpers every allocation runs, inlined into it: as calls they cost
 * the plugin path a measurable share of its overhead (bench_plugin_alloc). */
#define HOT_PATH inline __attribute__((always_inline))

static const hurray_plugin_memory_class_info *find_class(const hurray_plugin_device_info *device,
                                                         hurray_memory_class memory_class) {
  for (uint32_t i = 0; i < device->memory_class_count; i++) {
    if (device->memory_classes[i].memory_class == memory_class) {
      return &device->memory_classes[i];
    }
  }
  return NULL;
}

/* The alignment an address shows: its lowest set bit, capped at 2^31 (the
 * one lowest-set-bit function, plugins/common/support_core.c). */
static uint32_t measured_alignment(uint64_t address) {
  return hurray_support_alignment_capped(address, HURRAY_PLUGIN_MAX_ALIGNMENT);
}

/* PL-ALLOC-3, PL-ALLOC-4: what the plugin says it obtained must be what the
 * addresses it reports show; the host re-measures wherever it can. */
static hurray_status check_allocation(const hurray_plugin *plugin,
                                      const hurray_plugin_allocation *a,
                                      const hurray_plugin_memory_class_info *class_info,
                                      uint32_t device_index, uint64_t byte_size, uint32_t alignment,
                                      hurray_memory_class memory_class, hurray_error *err) {
  const char *name = plugin->table.name;
  if (a->alignment == 0u || (a->alignment & (a->alignment - 1u)) != 0u ||
      a->alignment < alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, alignment, 0,
                              "%s: allocate reported alignment %u for a request of %u", name,
                              (unsigned)a->alignment, (unsigned)alignment);
  }
  if (a->byte_size < byte_size || a->memory_class != memory_class ||
      a->device_index != device_index || a->address == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->byte_size, byte_size, 0,
                              "%s: allocate reported size %llu, class 0x%02X, device %u, "
                              "address %p for a request of %llu bytes, class 0x%02X, device %u",
                              name, (unsigned long long)a->byte_size, (unsigned)a->memory_class,
                              (unsigned)a->device_index, a->address, (unsigned long long)byte_size,
                              (unsigned)memory_class, (unsigned)device_index);
  }
  uint32_t host_measured = measured_alignment((uint64_t)(uintptr_t)a->host_address);
  if (a->host_address != NULL && host_measured < a->alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, host_measured, 0,
                              "%s: reported alignment %u but host address %p measures %u", name,
                              (unsigned)a->alignment, a->host_address, (unsigned)host_measured);
  }
  /* HO-CHECK-3, BP-ALIGN-5: a CPU buffer's address is the host pointer the
   * handoff carries and the consumer's accept measures; a handle declaring
   * more than it shows would be refused there, or trusted elsewhere. */
  uint32_t address_measured = measured_alignment((uint64_t)(uintptr_t)a->address);
  if (plugin->table.device_tag == HURRAY_DEVICE_CPU && address_measured < a->alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, address_measured, 0,
                              "%s: reported alignment %u but address %p measures %u", name,
                              (unsigned)a->alignment, a->address, (unsigned)address_measured);
  }
  if (a->device_address != 0u && measured_alignment(a->device_address) < a->alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment, a->device_address, 0,
                              "%s: reported alignment %u but device address 0x%llx has less", name,
                              (unsigned)a->alignment, (unsigned long long)a->device_address);
  }
  bool basis_ok =
      (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_HOST && a->host_address != NULL) ||
      (a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_MEASURED_DEVICE && a->device_address != 0u) ||
      a->alignment_basis == HURRAY_PLUGIN_ALIGNMENT_DEVICE_GUARANTEE;
  if (!basis_ok) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, a->alignment_basis, 0, 0,
                              "%s: alignment_basis %u without the address it was measured from",
                              name, (unsigned)a->alignment_basis);
  }
  if ((class_info->flags & HURRAY_PLUGIN_MEMORY_HOST_ACCESSIBLE) != 0u && a->host_address == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, memory_class, 0, 0,
                              "%s: class 0x%02X is declared host-accessible but the allocation "
                              "has no host address",
                              name, (unsigned)memory_class);
  }
  return HURRAY_OK;
}

/* PL-ALLOC-1 (and PL-IPC-3 for an import): the device, size, alignment and
 * class of a request, checked before the plugin sees it. `who` names the
 * caller in the detail. */
static HOT_PATH hurray_status check_request(const hurray_plugin *plugin, uint32_t device_index,
                                   uint64_t byte_size, uint32_t alignment,
                                   hurray_memory_class memory_class, bool import,
                                   const char *who,
                                   const hurray_plugin_memory_class_info **out_class,
                                   hurray_error *err) {
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  if (byte_size == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, 0, 1, 2,
                              "%s: byte_size 0: an empty buffer needs no allocation "
                              "(hurray_buffer_handle_empty, BP-ALIGN-3)",
                              who);
  }
  if (alignment == 0u || (alignment & (alignment - 1u)) != 0u) {
    /* buffer.h: the BP-ALIGN errors' index is a handle position; this is
     * the buffer's one handle, 0 (not the argument position 3). */
    return hurray_plugin_fail(err, HURRAY_ERR_ALIGNMENT_NOT_POWER_OF_TWO, alignment, 0, 0,
                              "%s: alignment %u requested", who, (unsigned)alignment);
  }
  if (alignment < HURRAY_MIN_BUFFER_ALIGNMENT) {
    return hurray_plugin_fail(err, HURRAY_ERR_ALIGNMENT_BELOW_MINIMUM, alignment,
                              HURRAY_MIN_BUFFER_ALIGNMENT, 0,
                              "%s: alignment %u requested, below 64 (BP-ALIGN-2)", who,
                              (unsigned)alignment);
  }
  const hurray_plugin_device_info *device = &plugin->devices[device_index];
  const hurray_plugin_memory_class_info *class_info = find_class(device, memory_class);
  if (class_info == NULL) {
    char name[24];
    hurray_memory_class_display(memory_class, name, sizeof name);
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, memory_class, plugin->table.device_tag,
                              4, "%s device %u (%s) does not offer memory class %s",
                              plugin->table.name, (unsigned)device_index, device->name, name);
  }
  /* An import is held to the alignment its memory already has (checked on
   * the mapping), not to what this device's allocator can obtain. */
  if (!import && alignment > class_info->max_alignment) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, alignment, class_info->max_alignment, 3,
                              "%s device %u gives at most alignment %u in class 0x%02X",
                              plugin->table.name, (unsigned)device_index,
                              (unsigned)class_info->max_alignment, (unsigned)memory_class);
  }
  *out_class = class_info;
  return HURRAY_OK;
}

/* PL-LIFE-3: the record is a slot of the process-wide table, never
 * returned to malloc, and the caller's pointer is its token (index +
 * cycle). The plugin fills the slot's allocation in place: a copy of a
 * struct just written field by field stalls on store forwarding
 * (bench_plugin_alloc). NULL (err filled) when the table is full. */
static HOT_PATH hurray_plugin_buffer *take_record(hurray_plugin_buffer **token,
                                                   hurray_error *err) {
  hurray_plugin_buffer *buffer = slot_take(token);
  if (buffer == NULL) {
    (void)hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY,
                             SLOT_CHUNK_SIZE * sizeof(buffer_slot), 0, 0, "buffer record table");
    return NULL;
  }
  memset(&buffer->allocation, 0, sizeof buffer->allocation);
  buffer->allocation.struct_size = sizeof buffer->allocation;
  return buffer;
}

/* After the plugin's allocate or import_memory returned `status`: checks
 * what it reported (PL-ALLOC-3, PL-ALLOC-4, PL-IPC-3) and, on any failure,
 * frees what the plugin made and returns the unpublished record. */
static HOT_PATH hurray_status keep_or_return(const hurray_plugin *plugin,
                                             hurray_plugin_buffer *buffer, hurray_status status,
                                    const hurray_plugin_memory_class_info *class_info,
                                    uint32_t device_index, uint64_t byte_size, uint32_t alignment,
                                    hurray_memory_class memory_class, hurray_error *err) {
  hurray_plugin_allocation *allocation = &buffer->allocation;
  if (status == HURRAY_OK) {
    allocation->struct_size = sizeof *allocation;
    status = check_allocation(plugin, allocation, class_info, device_index, byte_size, alignment,
                              memory_class, err);
    if (status != HURRAY_OK) {
      plugin->table.free(plugin->state, allocation);
    }
  }
  if (status != HURRAY_OK) {
    slot_give_back(buffer); /* never published: still free, same cycle */
  }
  return status;
}

/* PL-ALLOC-5, PL-IPC-4: a checked allocation becomes a live buffer. The
 * handle declares what the plugin obtained, checked by check_allocation:
 * the pair PL-DEV-1 (the class is one the device declared), the alignment a
 * power of two >= the requested one, itself >= 64, and producer_synced,
 * which suits every device (BP-SYNC-2). */
static HOT_PATH void publish_buffer(hurray_plugin *plugin, hurray_plugin_buffer *buffer,
                           uint64_t byte_size, uint32_t alignment,
                           hurray_memory_class memory_class, uint32_t flags) {
  /* PL-LIFE-1: no count here; an unload finds this buffer in the table. */
  buffer->plugin = plugin;
  buffer->flags = flags;
  buffer->handle.byte_size = byte_size;
  buffer->handle.alignment = alignment;
  buffer->handle.device_tag = plugin->table.device_tag;
  buffer->handle.sync_mode = HURRAY_SYNC_PRODUCER_SYNCED;
  buffer->handle.memory_class = memory_class;
  slot_publish(buffer);
}

/* Both public allocation entries, without a call between them (an exported
 * function called from the library goes through the PLT). `out_index`: the
 * position of `out` among the caller's arguments. */
static HOT_PATH hurray_status allocate_buffer(hurray_plugin *plugin, uint32_t device_index,
                                              uint64_t byte_size, uint32_t alignment,
                                              hurray_memory_class memory_class, uint32_t flags,
                                              hurray_plugin_buffer **out, size_t out_index,
                                              hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : out_index,
                              "hurray_plugin_allocate: NULL argument");
  }
  if ((flags & ~HURRAY_PLUGIN_ALLOCATE_KNOWN_FLAGS) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags,
                              HURRAY_PLUGIN_ALLOCATE_KNOWN_FLAGS, 5,
                              "hurray_plugin_allocate_flags: flags 0x%X has bits this version "
                              "does not define",
                              (unsigned)flags);
  }
  /* PL-IPC-1: a plugin that cannot export is never asked for exportable
   * memory (a 1.0 plugin would refuse any flag). */
  if ((flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u && plugin->table.export_memory == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, plugin->table.device_tag, 5,
                              "%s cannot export memory to another process (no export_memory "
                              "entry, PL-IPC-1)",
                              plugin->table.name);
  }
  const hurray_plugin_memory_class_info *class_info = NULL;
  hurray_status status = check_request(plugin, device_index, byte_size, alignment, memory_class,
                                       false, "hurray_plugin_allocate", &class_info, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_buffer *token = NULL;
  hurray_plugin_buffer *buffer = take_record(&token, err);
  if (buffer == NULL) {
    return HURRAY_ERR_OUT_OF_MEMORY;
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "allocate",
      plugin->table.allocate(plugin->state, device_index, byte_size, alignment, memory_class,
                             flags, &buffer->allocation, &call_err),
      &call_err, err);
  status = keep_or_return(plugin, buffer, status, class_info, device_index, byte_size, alignment,
                          memory_class, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* PL-IPC-1: exportable memory declares the alignment asked for (the plugin
   * measured at least that): another process maps it elsewhere, and its
   * mapping is held to the declaration, not to what this address shows. */
  uint32_t declared = (flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) != 0u
                          ? alignment
                          : buffer->allocation.alignment;
  publish_buffer(plugin, buffer, byte_size, declared, memory_class, flags);
  *out = token;
  return HURRAY_OK;
}

hurray_status hurray_plugin_allocate_flags(hurray_plugin *plugin, uint32_t device_index,
                                           uint64_t byte_size, uint32_t alignment,
                                           hurray_memory_class memory_class, uint32_t flags,
                                           hurray_plugin_buffer **out, hurray_error *err) {
  return allocate_buffer(plugin, device_index, byte_size, alignment, memory_class, flags, out, 6u,
                         err);
}

hurray_status hurray_plugin_allocate(hurray_plugin *plugin, uint32_t device_index,
                                     uint64_t byte_size, uint32_t alignment,
                                     hurray_memory_class memory_class, hurray_plugin_buffer **out,
                                     hurray_error *err) {
  return allocate_buffer(plugin, device_index, byte_size, alignment, memory_class, 0u, out, 5u,
                         err);
}

/* ------------------------------------------------------------------------ */
/* Memory shared with another process (PL-IPC-1..6)                         */
/* ------------------------------------------------------------------------ */

static bool ipc_kind_known(uint32_t kind) {
  return kind == HURRAY_PLUGIN_IPC_MEMORY_FD || kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE;
}

/* PL-IPC-2: what the plugin wrote must describe this buffer; a descriptor
 * it gave is closed when it does not. */
static hurray_status check_export(const hurray_plugin *plugin, const hurray_plugin_buffer *body,
                                  hurray_plugin_ipc_memory *memory, hurray_error *err) {
  const char *name = plugin->table.name;
  bool fd_ok = memory->kind == HURRAY_PLUGIN_IPC_MEMORY_FD ? memory->fd >= 0 : memory->fd == -1;
  bool handle_ok = memory->kind == HURRAY_PLUGIN_IPC_MEMORY_HANDLE
                       ? memory->handle_size > 0u &&
                             memory->handle_size <= HURRAY_PLUGIN_IPC_HANDLE_SIZE
                       : memory->handle_size == 0u;
  bool inside = memory->offset <= memory->segment_size &&
                body->handle.byte_size <= memory->segment_size - memory->offset;
  if (!ipc_kind_known(memory->kind) || !fd_ok || !handle_ok || !inside) {
    if (memory->kind == HURRAY_PLUGIN_IPC_MEMORY_FD && memory->fd >= 0) {
      close(memory->fd);
    }
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, memory->kind, 0, 0,
                              "%s: export_memory wrote kind %u, fd %d, handle_size %u, segment "
                              "of %llu bytes at offset %llu for a %llu-byte buffer",
                              name, (unsigned)memory->kind, (int)memory->fd,
                              (unsigned)memory->handle_size,
                              (unsigned long long)memory->segment_size,
                              (unsigned long long)memory->offset,
                              (unsigned long long)body->handle.byte_size);
  }
  /* What the host knows better than the plugin: the handle's own fields. */
  memory->struct_size = sizeof *memory;
  memory->byte_size = body->handle.byte_size;
  memory->alignment = body->handle.alignment;
  memory->device_tag = body->handle.device_tag;
  memory->memory_class = body->handle.memory_class;
  memset(memory->reserved, 0, sizeof memory->reserved);
  return HURRAY_OK;
}

hurray_status hurray_plugin_buffer_export(const hurray_plugin_buffer *buffer,
                                          hurray_plugin_ipc_memory *out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (buffer == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, buffer == NULL ? 0u : 1u,
                              "hurray_plugin_buffer_export: NULL argument");
  }
  hurray_status status =
      hurray_plugin_check_out_size(out, sizeof *out, 1, "hurray_plugin_ipc_memory", err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin_buffer *body = slot_live(buffer);
  if (body == NULL) { /* PL-LIFE-3 */
    return slot_misuse(buffer, slot_of(buffer), "hurray_plugin_buffer_export", err);
  }
  const hurray_plugin *plugin = body->plugin;
  if (plugin->table.export_memory == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot export memory to another process (PL-IPC-6)",
                              plugin->table.name);
  }
  /* PL-IPC-1, PL-IPC-2: only what was allocated exportable is exported;
   * some runtimes would hand out a handle to any allocation (cuIpcGetMemHandle
   * on any cuMemAlloc), so the host decides, not the plugin. An import is
   * not re-exported either. */
  if ((body->flags & HURRAY_PLUGIN_ALLOCATE_EXPORTABLE) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, body->flags, plugin->table.device_tag,
                              0,
                              "%s buffer was not allocated exportable: allocate it with "
                              "HURRAY_PLUGIN_ALLOCATE_EXPORTABLE (PL-IPC-1)",
                              plugin->table.name);
  }
  hurray_plugin_ipc_memory memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  memory.fd = -1;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "export_memory",
      plugin->table.export_memory(plugin->state, &body->allocation, &memory, &call_err), &call_err,
      err);
  if (status != HURRAY_OK) {
    if (memory.kind == HURRAY_PLUGIN_IPC_MEMORY_FD && memory.fd >= 0) {
      close(memory.fd); /* PL-IPC-2: no descriptor left open on failure */
    }
    return status;
  }
  status = check_export(plugin, body, &memory, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_copy_out(out, &memory, sizeof memory); /* PL-VER-5 */
  return HURRAY_OK;
}

/* PL-IPC-3: what the host can judge of an import before the plugin maps
 * anything. */
static hurray_status check_import(const hurray_plugin *plugin, const hurray_plugin_ipc_memory *in,
                                  hurray_error *err) {
  if (in->struct_size < sizeof *in) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->struct_size, sizeof *in, 2,
                              "hurray_plugin_import: memory->struct_size %u, the fields need %zu",
                              (unsigned)in->struct_size, sizeof *in);
  }
  if (in->device_tag != plugin->table.device_tag) {
    return hurray_plugin_fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, in->device_tag,
                              plugin->table.device_tag, 2,
                              "hurray_plugin_import: memory of device tag 0x%02X offered to %s "
                              "(tag 0x%02X)",
                              (unsigned)in->device_tag, plugin->table.name,
                              (unsigned)plugin->table.device_tag);
  }
  if (!ipc_kind_known(in->kind) || in->reserved[0] != 0u || in->reserved[1] != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->kind, 0, 2,
                              "hurray_plugin_import: memory kind %u (reserved 0x%02X 0x%02X): "
                              "not a kind this version defines, or reserved bytes set",
                              (unsigned)in->kind, (unsigned)in->reserved[0],
                              (unsigned)in->reserved[1]);
  }
  if (in->offset > in->segment_size || in->byte_size > in->segment_size - in->offset) {
    return hurray_plugin_fail(err, HURRAY_ERR_IPC_BAD_SEGMENT,
                              in->offset > UINT64_MAX - in->byte_size ? UINT64_MAX
                                                                      : in->offset + in->byte_size,
                              in->segment_size, 2,
                              "hurray_plugin_import: %llu bytes at offset %llu do not fit a "
                              "%llu-byte segment",
                              (unsigned long long)in->byte_size, (unsigned long long)in->offset,
                              (unsigned long long)in->segment_size);
  }
  if (plugin->table.import_memory == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot import memory from another process (PL-IPC-6)",
                              plugin->table.name);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_import(hurray_plugin *plugin, uint32_t device_index,
                                   const hurray_plugin_ipc_memory *memory,
                                   hurray_plugin_buffer **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || memory == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                              plugin == NULL ? 0u : (memory == NULL ? 2u : 3u),
                              "hurray_plugin_import: NULL argument");
  }
  hurray_status status = check_import(plugin, memory, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin_memory_class_info *class_info = NULL;
  status = check_request(plugin, device_index, memory->byte_size, memory->alignment,
                         memory->memory_class, true, "hurray_plugin_import", &class_info, err);
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_buffer *token = NULL;
  hurray_plugin_buffer *buffer = take_record(&token, err);
  if (buffer == NULL) {
    return HURRAY_ERR_OUT_OF_MEMORY;
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "import_memory",
      plugin->table.import_memory(plugin->state, device_index, memory, &buffer->allocation,
                                  &call_err),
      &call_err, err);
  /* PL-IPC-3: the importer's mapping must show the declared alignment. */
  status = keep_or_return(plugin, buffer, status, class_info, device_index, memory->byte_size,
                          memory->alignment, memory->memory_class, err);
  if (status != HURRAY_OK) {
    return status;
  }
  /* PL-IPC-4: the exporter's declaration, which the mapping was checked to meet. */
  publish_buffer(plugin, buffer, memory->byte_size, memory->alignment, memory->memory_class, 0u);
  *out = token;
  return HURRAY_OK;
}

hurray_status hurray_plugin_buffer_release(hurray_plugin_buffer *buffer, hurray_error *err) {
  if (buffer == NULL) {
    return HURRAY_OK;
  }
  hurray_status status = HURRAY_OK;
  bool orphan = false;
  hurray_plugin_buffer *body =
      slot_retire(buffer, "hurray_plugin_buffer_release", &orphan, &status, err);
  if (body == NULL) {
    return status; /* PL-LIFE-3: nothing is freed, no count changes */
  }
  hurray_plugin *plugin = body->plugin;
  plugin->table.free(plugin->state, &body->allocation);
  /* From here an unload may close the plugin, unless this buffer is one of
   * its orphans: only then is `plugin` touched again, last. */
  slot_finish(body);
  slot_give_back(body);
  if (orphan) {
    hurray_plugin_drop_orphan(plugin); /* may close the plugin (PL-LIFE-1) */
  }
  return HURRAY_OK;
}

void hurray_plugin_buffer_free(hurray_plugin_buffer *buffer) {
  /* PL-LIFE-3: a second free is refused without effect; this function has
   * no way to say so, hurray_plugin_buffer_release has. */
  (void)!hurray_plugin_buffer_release(buffer, NULL);
}

void hurray_plugin_buffer_release_callback(void *data, void *ctx) {
  (void)data; /* the offered address; the buffer token travels as ctx */
  hurray_plugin_buffer_free(ctx);
}

/* The accessors read a live slot; a freed or foreign token gives NULL. */
const hurray_buffer_handle *hurray_plugin_buffer_handle(const hurray_plugin_buffer *buffer) {
  const hurray_plugin_buffer *body = slot_live(buffer);
  return body == NULL ? NULL : &body->handle;
}

const hurray_plugin_allocation *hurray_plugin_buffer_allocation(
    const hurray_plugin_buffer *buffer) {
  const hurray_plugin_buffer *body = slot_live(buffer);
  return body == NULL ? NULL : &body->allocation;
}

hurray_plugin *hurray_plugin_buffer_plugin(const hurray_plugin_buffer *buffer) {
  const hurray_plugin_buffer *body = slot_live(buffer);
  return body == NULL ? NULL : body->plugin;
}

/* ------------------------------------------------------------------------ */
/* Copies (PL-COPY-1..2)                                                    */
/* ------------------------------------------------------------------------ */

static hurray_status check_range(const hurray_plugin_buffer *buffer, uint64_t offset,
                                 const void *host, uint64_t bytes, hurray_error *err) {
  (void)offset;
  if (buffer == NULL || (host == NULL && bytes > 0u)) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, buffer == NULL ? 0u : 2u,
                              "copy: NULL buffer or host pointer");
  }
  return HURRAY_OK;
}

static hurray_status check_body_range(const hurray_plugin_buffer *body, uint64_t offset,
                                      uint64_t bytes, hurray_error *err) {
  uint64_t size = body->handle.byte_size;
  if (offset > size || bytes > size - offset) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, offset + bytes, size, 1,
                              "copy of %llu bytes at offset %llu outside a %llu-byte buffer",
                              (unsigned long long)bytes, (unsigned long long)offset,
                              (unsigned long long)size);
  }
  if (bytes > SIZE_MAX) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, bytes, SIZE_MAX, 3,
                              "copy larger than this address space");
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_buffer_write(hurray_plugin_buffer *buffer, uint64_t offset,
                                         const void *src, uint64_t bytes, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = check_range(buffer, offset, src, bytes, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin_buffer *body = slot_live(buffer);
  if (body == NULL) { /* PL-LIFE-3 */
    return slot_misuse(buffer, slot_of(buffer), "hurray_plugin_buffer_write", err);
  }
  status = check_body_range(body, offset, bytes, err);
  if (status != HURRAY_OK || bytes == 0u) {
    return status;
  }
  hurray_plugin *plugin = body->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(plugin->table.name, "copy_to_device",
                                   plugin->table.copy_to_device(plugin->state, &body->allocation,
                                                                offset, src, bytes, &call_err),
                                   &call_err, err);
}

hurray_status hurray_plugin_buffer_read(const hurray_plugin_buffer *buffer, uint64_t offset,
                                        void *dst, uint64_t bytes, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  hurray_status status = check_range(buffer, offset, dst, bytes, err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin_buffer *body = slot_live(buffer);
  if (body == NULL) { /* PL-LIFE-3 */
    return slot_misuse(buffer, slot_of(buffer), "hurray_plugin_buffer_read", err);
  }
  status = check_body_range(body, offset, bytes, err);
  if (status != HURRAY_OK || bytes == 0u) {
    return status;
  }
  hurray_plugin *plugin = body->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(plugin->table.name, "copy_to_host",
                                   plugin->table.copy_to_host(plugin->state, dst,
                                                              &body->allocation, offset, bytes,
                                                              &call_err),
                                   &call_err, err);
}

/* ------------------------------------------------------------------------ */
/* Events and streams (PL-EVENT-1..4)                                       */
/* ------------------------------------------------------------------------ */

/* The host's record of an event the plugin has just made or opened
 * (`native`): it keeps its plugin loaded (PL-LIFE-1). */
static hurray_plugin_event *adopt_event(hurray_plugin *plugin, uint32_t device_index,
                                        uint32_t flags, hurray_plugin_event *event) {
  atomic_fetch_add_explicit(&plugin->references, 1u, memory_order_relaxed);
  atomic_fetch_add_explicit(&plugin->live_events, 1u, memory_order_relaxed);
  event->plugin = plugin;
  event->device_index = device_index;
  event->flags = flags;
  return event;
}

static hurray_status check_event_device(const hurray_plugin *plugin, uint32_t device_index,
                                        hurray_error *err) {
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_event_create_flags(hurray_plugin *plugin, uint32_t device_index,
                                               uint32_t flags, hurray_plugin_event **out,
                                               hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : 3u,
                              "hurray_plugin_event_create_flags: NULL argument");
  }
  /* PL-IPC-7: an unknown bit is refused before anything else is judged. */
  if ((flags & ~HURRAY_PLUGIN_EVENT_KNOWN_FLAGS) != 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, flags,
                              HURRAY_PLUGIN_EVENT_KNOWN_FLAGS, 2,
                              "event flags 0x%X: only HURRAY_PLUGIN_EVENT_EXPORTABLE (0x%X) exists",
                              (unsigned)flags, HURRAY_PLUGIN_EVENT_KNOWN_FLAGS);
  }
  if (plugin->table.create_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support events", plugin->table.name);
  }
  hurray_status status = check_event_device(plugin, device_index, err);
  if (status != HURRAY_OK) {
    return status;
  }
  bool exportable = (flags & HURRAY_PLUGIN_EVENT_EXPORTABLE) != 0u;
  if (exportable && plugin->table.create_event_flags == NULL) {
    bool old_table = plugin->declared_struct_size <= HURRAY_PLUGIN_TABLE_SIZE_1_1_MEMORY;
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, plugin->table.device_tag, 0,
                              "%s cannot export events to another process (PL-IPC-11)%s",
                              plugin->table.name,
                              old_table ? ": its table ends before create_event_flags" : "");
  }
  /* PL-IPC-7, PL-DEV-3: the device's own word on whether its events cross
   * processes (a CUDA device without CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED). */
  if (exportable &&
      (plugin->devices[device_index].ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, flags, plugin->table.device_tag, 1,
                              "%s device %u (%s) does not declare HURRAY_IPC_EXPORTS_EVENTS",
                              plugin->table.name, (unsigned)device_index,
                              plugin->devices[device_index].name);
  }
  hurray_plugin_event *event = malloc(sizeof *event);
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0, 0, "event record");
  }
  event->native = NULL;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  if (exportable) {
    status = hurray_plugin_call_result(
        plugin->table.name, "create_event_flags",
        plugin->table.create_event_flags(plugin->state, device_index, flags, &event->native,
                                         &call_err),
        &call_err, err);
  } else {
    status = hurray_plugin_call_result(
        plugin->table.name, "create_event",
        plugin->table.create_event(plugin->state, device_index, &event->native, &call_err),
        &call_err, err);
  }
  if (status != HURRAY_OK) {
    free(event);
    return status;
  }
  *out = adopt_event(plugin, device_index, flags, event);
  return HURRAY_OK;
}

hurray_status hurray_plugin_event_create(hurray_plugin *plugin, uint32_t device_index,
                                         hurray_plugin_event **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, plugin == NULL ? 0u : 2u,
                              "hurray_plugin_event_create: NULL argument");
  }
  return hurray_plugin_event_create_flags(plugin, device_index, 0u, out, err);
}

hurray_status hurray_plugin_event_record(hurray_plugin_event *event, void *stream,
                                         hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "record_event",
      plugin->table.record_event(plugin->state, event->native, stream, &call_err), &call_err, err);
}

hurray_status hurray_plugin_event_wait(hurray_plugin_event *event, uint64_t timeout_ns,
                                       hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "wait_event",
      plugin->table.wait_event(plugin->state, event->native, timeout_ns, &call_err), &call_err,
      err);
}

hurray_status hurray_plugin_event_stream_wait(hurray_plugin_event *event, void *stream,
                                              hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "event is NULL");
  }
  hurray_plugin *plugin = event->plugin;
  if (plugin->table.stream_wait_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support device-side event waits", plugin->table.name);
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "stream_wait_event",
      plugin->table.stream_wait_event(plugin->state, stream, event->native, &call_err), &call_err,
      err);
}

void hurray_plugin_event_release(hurray_plugin_event *event) {
  if (event == NULL) {
    return;
  }
  hurray_plugin *plugin = event->plugin;
  plugin->table.release_event(plugin->state, event->native);
  free(event);
  atomic_fetch_sub_explicit(&plugin->live_events, 1u, memory_order_relaxed);
  hurray_plugin_drop_reference(plugin); /* may unload the plugin (PL-LIFE-1) */
}

void hurray_plugin_event_release_callback(void *event, void *ctx) {
  (void)ctx;
  hurray_plugin_event_release(event);
}

hurray_plugin *hurray_plugin_event_plugin(const hurray_plugin_event *event) {
  return event->plugin;
}

/* PL-EVENT-5: the native types a device's runtime has; a plugin answering
 * another type would make the consumer misread the handle. */
static bool native_type_fits(hurray_device_tag tag, uint32_t type) {
  switch (tag) {
    case HURRAY_DEVICE_CUDA:
      return type == HURRAY_NATIVE_EVENT_CU_EVENT;
    case HURRAY_DEVICE_ROCM:
      return type == HURRAY_NATIVE_EVENT_HIP_EVENT;
    case HURRAY_DEVICE_METAL:
      return type == HURRAY_NATIVE_EVENT_MTL_SHARED_EVENT;
    case HURRAY_DEVICE_VULKAN:
      return type == HURRAY_NATIVE_EVENT_VK_TIMELINE_SEMAPHORE ||
             type == HURRAY_NATIVE_EVENT_VK_FENCE;
    case HURRAY_DEVICE_LEVEL_ZERO:
      return type == HURRAY_NATIVE_EVENT_ZE_EVENT;
    case HURRAY_DEVICE_OPENCL:
      return type == HURRAY_NATIVE_EVENT_CL_EVENT;
    default:
      return tag >= HURRAY_DEVICE_PRIVATE_FIRST && tag <= HURRAY_DEVICE_PRIVATE_LAST &&
             type >= HURRAY_NATIVE_EVENT_PRIVATE_FIRST;
  }
}

hurray_status hurray_plugin_event_native(const hurray_plugin_event *event,
                                         hurray_plugin_native_event *out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, event == NULL ? 0u : 1u,
                              "hurray_plugin_event_native: NULL argument");
  }
  hurray_status status =
      hurray_plugin_check_out_size(out, sizeof *out, 1, "hurray_plugin_native_event", err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin *plugin = event->plugin;
  hurray_device_tag tag = plugin->table.device_tag;
  if (plugin->table.native_event == NULL) { /* PL-TABLE-8: ABI 1.0, or none */
    bool table_1_0 = plugin->declared_struct_size <= HURRAY_PLUGIN_TABLE_SIZE_1_0;
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, tag, 0,
                              "%s gives no native event handle%s", plugin->table.name,
                              table_1_0 ? " (its table is plugin ABI 1.0)" : "");
  }
  hurray_plugin_native_event native;
  memset(&native, 0, sizeof native);
  native.struct_size = sizeof native;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "native_event",
      plugin->table.native_event(plugin->state, event->native, &native, &call_err), &call_err, err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (!native_type_fits(tag, native.native_type) || native.handle == 0u) {
    char name[24];
    hurray_device_tag_display(tag, name, sizeof name);
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, native.native_type, tag, 0,
                              "%s: native_event answered type %u, handle 0x%llx: not a native "
                              "event of device %s (PL-EVENT-5)",
                              plugin->table.name, (unsigned)native.native_type,
                              (unsigned long long)native.handle, name);
  }
  native.struct_size = sizeof native;
  native.device_index = event->device_index;
  native.reserved = 0u;
  hurray_plugin_copy_out(out, &native, sizeof native); /* PL-VER-5 */
  return HURRAY_OK;
}

/* ------------------------------------------------------------------------ */
/* Events shared with another process (PL-IPC-7..11)                        */
/* ------------------------------------------------------------------------ */

hurray_status hurray_plugin_event_export(const hurray_plugin_event *event,
                                         hurray_plugin_ipc_event *out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (event == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, event == NULL ? 0u : 1u,
                              "hurray_plugin_event_export: NULL argument");
  }
  hurray_status status =
      hurray_plugin_check_out_size(out, sizeof *out, 1, "hurray_plugin_ipc_event", err);
  if (status != HURRAY_OK) {
    return status;
  }
  const hurray_plugin *plugin = event->plugin;
  if (plugin->table.export_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot export events to another process (PL-IPC-11)",
                              plugin->table.name);
  }
  /* PL-IPC-8: the host decides what is exported, not the runtime; an
   * import is the exporter's event, not this process's to hand on. */
  if ((event->flags & HURRAY_PLUGIN_EVENT_EXPORTABLE) == 0u) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, event->flags, plugin->table.device_tag,
                              0,
                              "%s event was %s: create it with HURRAY_PLUGIN_EVENT_EXPORTABLE "
                              "(PL-IPC-7)",
                              plugin->table.name,
                              (event->flags & HURRAY_EVENT_IMPORTED) != 0u
                                  ? "imported from another process, not created exportable"
                                  : "not created exportable");
  }
  hurray_plugin_ipc_event record;
  memset(&record, 0, sizeof record);
  record.struct_size = sizeof record;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "export_event",
      plugin->table.export_event(plugin->state, event->native, &record, &call_err), &call_err,
      err);
  if (status != HURRAY_OK) {
    return status;
  }
  if (record.kind != HURRAY_PLUGIN_IPC_EVENT_HANDLE || record.handle_size == 0u ||
      record.handle_size > HURRAY_PLUGIN_IPC_HANDLE_SIZE) {
    return hurray_plugin_fail(err, HURRAY_ERR_PLUGIN_INVALID, record.kind,
                              HURRAY_PLUGIN_IPC_EVENT_HANDLE, 0,
                              "%s: export_event wrote kind %u with a %u-byte handle (PL-IPC-8)",
                              plugin->table.name, (unsigned)record.kind,
                              (unsigned)record.handle_size);
  }
  /* What the host knows better than the plugin. */
  record.struct_size = sizeof record;
  record.device_tag = plugin->table.device_tag;
  memset(record.reserved, 0, sizeof record.reserved);
  hurray_plugin_copy_out(out, &record, sizeof record); /* PL-VER-5 */
  return HURRAY_OK;
}

/* PL-IPC-9: what the host can judge of a record before the plugin opens it. */
static hurray_status check_event_record(const hurray_plugin *plugin,
                                        const hurray_plugin_ipc_event *in, hurray_error *err) {
  if (in->struct_size < sizeof *in) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->struct_size, sizeof *in, 2,
                              "hurray_plugin_event_import: record->struct_size %u, the fields "
                              "need %zu",
                              (unsigned)in->struct_size, sizeof *in);
  }
  if (in->device_tag != plugin->table.device_tag) {
    return hurray_plugin_fail(err, HURRAY_ERR_DEVICE_TAG_MISMATCH, in->device_tag,
                              plugin->table.device_tag, 2,
                              "hurray_plugin_event_import: event of device tag 0x%02X offered to "
                              "%s (tag 0x%02X)",
                              (unsigned)in->device_tag, plugin->table.name,
                              (unsigned)plugin->table.device_tag);
  }
  if (in->kind != HURRAY_PLUGIN_IPC_EVENT_HANDLE) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->kind,
                              HURRAY_PLUGIN_IPC_EVENT_HANDLE, 2,
                              "hurray_plugin_event_import: event kind %u is not one this version "
                              "defines",
                              (unsigned)in->kind);
  }
  if (in->handle_size == 0u || in->handle_size > HURRAY_PLUGIN_IPC_HANDLE_SIZE) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->handle_size,
                              HURRAY_PLUGIN_IPC_HANDLE_SIZE, 2,
                              "hurray_plugin_event_import: handle_size %u, not 1..%u",
                              (unsigned)in->handle_size, HURRAY_PLUGIN_IPC_HANDLE_SIZE);
  }
  for (size_t i = 0; i < sizeof in->reserved; i++) {
    if (in->reserved[i] != 0u) {
      return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, in->reserved[i], 0, 2,
                                "hurray_plugin_event_import: reserved byte %zu is 0x%02X, not 0",
                                i, (unsigned)in->reserved[i]);
    }
  }
  if (plugin->table.import_event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s cannot import events from another process (PL-IPC-11)",
                              plugin->table.name);
  }
  return HURRAY_OK;
}

hurray_status hurray_plugin_event_import(hurray_plugin *plugin, uint32_t device_index,
                                         const hurray_plugin_ipc_event *record,
                                         hurray_plugin_event **out, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL || record == NULL || out == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0,
                              plugin == NULL ? 0u : (record == NULL ? 2u : 3u),
                              "hurray_plugin_event_import: NULL argument");
  }
  hurray_status status = check_event_record(plugin, record, err);
  if (status == HURRAY_OK) {
    status = check_event_device(plugin, device_index, err);
  }
  if (status != HURRAY_OK) {
    return status;
  }
  hurray_plugin_event *event = malloc(sizeof *event);
  if (event == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_OUT_OF_MEMORY, sizeof *event, 0, 0, "event record");
  }
  event->native = NULL;
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  status = hurray_plugin_call_result(
      plugin->table.name, "import_event",
      plugin->table.import_event(plugin->state, device_index, record, &event->native, &call_err),
      &call_err, err);
  if (status != HURRAY_OK) {
    free(event);
    return status;
  }
  *out = adopt_event(plugin, device_index, HURRAY_EVENT_IMPORTED, event);
  return HURRAY_OK;
}

hurray_status hurray_plugin_stream_wait(hurray_plugin *plugin, uint32_t device_index, void *stream,
                                        uint64_t timeout_ns, hurray_error *err) {
  hurray_error local_error;
  if (err == NULL) {
    err = &local_error;
  }
  if (plugin == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_NULL_ARGUMENT, 0, 0, 0, "plugin is NULL");
  }
  if (plugin->table.wait_stream == NULL) {
    return hurray_plugin_fail(err, HURRAY_ERR_UNSUPPORTED, 0, plugin->table.device_tag, 0,
                              "%s does not support stream waits", plugin->table.name);
  }
  if (device_index >= plugin->device_count) {
    return hurray_plugin_fail(err, HURRAY_ERR_INVALID_ARGUMENT, device_index, plugin->device_count,
                              1, "%s has %u devices", plugin->table.name,
                              (unsigned)plugin->device_count);
  }
  hurray_error call_err;
  hurray_plugin_call_prepare(&call_err);
  return hurray_plugin_call_result(
      plugin->table.name, "wait_stream",
      plugin->table.wait_stream(plugin->state, device_index, stream, timeout_ns, &call_err),
      &call_err, err);
}
