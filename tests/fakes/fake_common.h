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
 *   HURRAY_FAKE_NO_IPC_EVENTS=1  devices cannot share events across
 *                             processes (CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED
 *                             0; hipEventInterprocess refused, as HIP 5 does)
 *
 * Device memory (cuMemAlloc, hipMalloc, zeMemAllocDevice) is a memfd mapped
 * shared, so that its IPC handles open in another process of the same user
 * onto the same pages, as the real runtimes' do (fake_ipc_get below). An
 * interprocess event (CU_EVENT_INTERPROCESS, hipEventInterprocess) keeps its
 * state in a memfd page the same way (fake_event_object below), so that a
 * record in one process is what a query in another sees.
 *
 * Each stand-in also exports hurray_fake_live_objects(), the number of
 * allocations, events, streams and contexts the caller still holds, so the
 * tests can check that a plugin's shutdown released everything.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_TESTS_FAKE_COMMON_H
#define HURRAY_TESTS_FAKE_COMMON_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include: fake_common.h needs memfd_create"
#endif

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* One allocation handed out by a stand-in, or one IPC handle opened from
 * another allocation (`imported`). The caller sees `address`, which sits
 * `alignment` bytes into a block aligned to 2 * alignment, so that its
 * alignment is exactly the one asked for through HURRAY_FAKE_ALIGNMENT (or
 * the caller's minimum, when larger).
 *
 * Heap blocks (fd < 0, mapped 0) are freed; shareable ones are `mapped`
 * bytes of a memfd mapped shared at `block`, the memfd kept open (fd) so
 * that another process can reach it through /proc/<pid>/fd/<fd> while the
 * allocation lives, as a real runtime's device memory can be. */
typedef struct fake_allocation {
  void *block;
  void *address;
  size_t size;
  size_t mapped;
  int kind;
  int fd;
  bool imported;
  uint64_t serial;
  struct fake_allocation *next;
} fake_allocation;

/* Everything a stand-in hands out, behind one lock: plugins may call from
 * several threads (a buffer release is callable from any thread). `name`
 * (the runtime's) goes into its memfds' names, so that a handle of one
 * stand-in is refused by another; `next_serial` numbers its shareable
 * allocations, so that a handle naming a descriptor the exporter has since
 * closed and reused is refused rather than opened onto other memory. */
typedef struct fake_registry {
  pthread_mutex_t lock;
  fake_allocation *allocations;
  long other_objects;
  const char *name;
  uint64_t next_serial;
} fake_registry;

#define FAKE_REGISTRY_INIT \
  { .lock = PTHREAD_MUTEX_INITIALIZER, .name = "fake" }
#define FAKE_REGISTRY_INIT_NAMED(runtime) \
  { .lock = PTHREAD_MUTEX_INITIALIZER, .name = (runtime) }

static inline void fake_count_object(fake_registry *registry, long delta) {
  pthread_mutex_lock(&registry->lock);
  registry->other_objects += delta;
  pthread_mutex_unlock(&registry->lock);
}

/* A zeroed runtime object (a context, a list, an adapter...) counted live;
 * NULL when out of memory. */
static inline void *fake_new_object(fake_registry *registry, size_t size) {
  void *object = calloc(1, size);
  if (object != NULL) {
    fake_count_object(registry, 1);
  }
  return object;
}

/* The end of an object fake_new_object made; NULL is none. */
static inline void fake_free_object(fake_registry *registry, void *object) {
  if (object != NULL) {
    free(object);
    fake_count_object(registry, -1);
  }
}

static inline void fake_link(fake_registry *registry, fake_allocation *record) {
  pthread_mutex_lock(&registry->lock);
  record->next = registry->allocations;
  registry->allocations = record;
  pthread_mutex_unlock(&registry->lock);
}

/* The alignment an allocation gets: HURRAY_FAKE_ALIGNMENT, raised to the
 * caller's minimum (a runtime that takes an alignment argument, Level Zero,
 * honours it). */
static inline size_t fake_alignment(size_t min_alignment) {
  size_t alignment = (size_t)fake_env_long("HURRAY_FAKE_ALIGNMENT", 4096);
  if (alignment == 0 || (alignment & (alignment - 1u)) != 0) {
    alignment = 4096;
  }
  while (alignment < min_alignment) {
    alignment <<= 1;
  }
  return alignment;
}

/* Records `block` in `record` and links it: the allocation starts
 * `alignment` bytes into the block; `fd` and `mapped` are the memfd and the
 * bytes to unmap of a shareable one (-1 and 0 otherwise). The address the
 * runtime answers. */
static inline void *fake_link_block(fake_registry *registry, fake_allocation *record, void *block,
                                    size_t alignment, size_t size, int kind, int fd,
                                    size_t mapped) {
  record->block = block;
  record->address = (char *)block + alignment;
  record->size = size;
  record->mapped = mapped;
  record->kind = kind;
  record->fd = fd;
  fake_link(registry, record);
  return record->address;
}

static inline void *fake_allocate(fake_registry *registry, size_t size, int kind,
                                  size_t min_alignment) {
  size_t alignment = fake_alignment(min_alignment);
  fake_allocation *record = calloc(1, sizeof *record);
  void *block = NULL;
  if (record == NULL || size > SIZE_MAX - alignment ||
      posix_memalign(&block, 2u * alignment, size + alignment) != 0) {
    free(record);
    return NULL;
  }
  return fake_link_block(registry, record, block, alignment, size, kind, -1, 0);
}

/* Maps the first `length` bytes of `fd` shared at an address that is a
 * multiple of `block_alignment` (and of the page size); *mapped is what to
 * unmap. mmap alone only promises a page: the exact alignment comes from
 * reserving enough address space and mapping the file over an aligned point
 * of it. NULL when the kernel refuses. */
static inline void *fake_map_shared(int fd, size_t length, size_t block_alignment, size_t *mapped) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (block_alignment < page) {
    block_alignment = page;
  }
  if (length == 0 || length > SIZE_MAX - block_alignment - page) {
    return NULL;
  }
  size_t span = (length + page - 1u) / page * page;
  size_t reserve = span + block_alignment;
  char *area = mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED) {
    return NULL;
  }
  uintptr_t at = ((uintptr_t)area + block_alignment - 1u) & ~(uintptr_t)(block_alignment - 1u);
  char *start = (char *)at;
  if (mmap(start, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    munmap(area, reserve);
    return NULL;
  }
  /* Give back the reservation on either side of the mapping. */
  if (start > area) {
    munmap(area, (size_t)(start - area));
  }
  if (area + reserve > start + span) {
    munmap(start + span, (size_t)(area + reserve - (start + span)));
  }
  *mapped = span;
  return start;
}

/* The memfd name of a shareable allocation: what an importer reads back
 * through /proc to tell the exporter's memfd from any other descriptor. */
static inline void fake_memfd_name(char *out, size_t cap, const char *runtime, long pid,
                                   uint64_t serial) {
  snprintf(out, cap, "hurray-fake-%s-%ld-%llu", runtime, pid, (unsigned long long)serial);
}

/* Device memory: the same layout as fake_allocate, in a memfd mapped shared
 * (the block at the memfd's offset 0, the address at offset `alignment`),
 * so that an IPC handle (fake_ipc_get) lets another process map the same
 * pages, as a real runtime's device memory can be shared. */
static inline void *fake_allocate_shareable(fake_registry *registry, size_t size, int kind,
                                            size_t min_alignment) {
  size_t alignment = fake_alignment(min_alignment);
  if (size > SIZE_MAX / 2u - 2u * alignment) {
    return NULL;
  }
  fake_allocation *record = calloc(1, sizeof *record);
  if (record == NULL) {
    return NULL;
  }
  pthread_mutex_lock(&registry->lock);
  record->serial = ++registry->next_serial;
  pthread_mutex_unlock(&registry->lock);
  char name[128];
  fake_memfd_name(name, sizeof name, registry->name, (long)getpid(), record->serial);
  /* Close-on-exec: a child reaches the memory through its handle, never
   * through an inherited descriptor. */
  int fd = memfd_create(name, MFD_CLOEXEC);
  size_t mapped = 0;
  void *block = NULL;
  if (fd >= 0 && ftruncate(fd, (off_t)(alignment + size)) == 0) {
    block = fake_map_shared(fd, alignment + size, 2u * alignment, &mapped);
  }
  if (block == NULL) {
    if (fd >= 0) {
      close(fd);
    }
    free(record);
    return NULL;
  }
  return fake_link_block(registry, record, block, alignment, size, kind, fd, mapped);
}

/* True when [address, address + size) lies inside one live allocation or
 * opened handle: a stand-in refuses copies a real runtime would fault on. */
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

static inline void fake_dispose(fake_allocation *a) {
  if (a->mapped != 0) {
    munmap(a->block, a->mapped);
  } else {
    free(a->block);
  }
  if (a->fd >= 0) {
    close(a->fd);
  }
  free(a);
}

/* Unlinks the record at `address`: an opened handle when `imported`, else
 * an allocation of `kind` (any kind when kind < 0). */
static inline fake_allocation *fake_unlink(fake_registry *registry, const void *address, int kind,
                                           bool imported) {
  fake_allocation *found = NULL;
  pthread_mutex_lock(&registry->lock);
  for (fake_allocation **link = &registry->allocations; *link != NULL; link = &(*link)->next) {
    fake_allocation *a = *link;
    if (a->address == address && a->imported == imported &&
        (imported || kind < 0 || a->kind == kind)) {
      *link = a->next;
      found = a;
      break;
    }
  }
  pthread_mutex_unlock(&registry->lock);
  return found;
}

/* Frees an allocation of `kind` (any kind when kind < 0); false when the
 * address is not the start of a live allocation, as a vendor would refuse.
 * An opened IPC handle is not an allocation: only fake_ipc_close ends it,
 * as a runtime's free refuses memory it did not allocate. */
static inline bool fake_release(fake_registry *registry, const void *address, int kind) {
  fake_allocation *found = fake_unlink(registry, address, kind, false);
  if (found != NULL) {
    fake_dispose(found);
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

/* A stand-in IPC memory handle (cuIpcGetMemHandle, hipIpcGetMemHandle,
 * zeMemGetIpcHandle), in the runtime's 64 bytes: what another process of
 * the same user needs to map the allocation's memfd. The importer opens
 * /proc/<pid>/fd/<fd> (allowed for the same uid without ptrace rights,
 * unlike pidfd_getfd), checks that it is the memfd the handle names (its
 * name carries runtime, pid and serial; its size offset + size) and maps it
 * shared. Opening in the exporting process works the same way, onto a
 * second mapping of the same pages. Every field is checked before it is
 * used: a handle that was not made by fake_ipc_get, or whose allocation
 * has been freed, opens nothing. */
#define FAKE_IPC_MAGIC "hurray-fake-ipc"

typedef struct fake_ipc_handle {
  char magic[16];       /* FAKE_IPC_MAGIC, NUL included */
  int32_t pid;          /* the exporting process */
  int32_t fd;           /* the memfd's number in that process */
  uint64_t serial;      /* the allocation's number there (in the memfd's name) */
  uint64_t offset;      /* where the allocation's address lies in the memfd:
                           its alignment, a power of two */
  uint64_t size;        /* the allocation's bytes */
  uint64_t reserved[2]; /* zero */
} fake_ipc_handle;

_Static_assert(sizeof(fake_ipc_handle) == 64, "an IPC handle is the runtimes' 64 bytes");
_Static_assert(sizeof FAKE_IPC_MAGIC == 16, "the magic fills its field");

/* Fills `handle` for the allocation that starts at `address`; false when
 * there is none or it is not shareable (host, managed or imported memory:
 * the runtimes export device allocations only, by their base address). */
static inline bool fake_ipc_get(fake_registry *registry, const void *address, char handle[64]) {
  fake_ipc_handle h;
  memset(&h, 0, sizeof h);
  bool found = false;
  pthread_mutex_lock(&registry->lock);
  for (const fake_allocation *a = registry->allocations; a != NULL && !found; a = a->next) {
    if (a->address == address && a->fd >= 0) {
      found = true;
      h.fd = a->fd;
      h.serial = a->serial;
      h.offset = (uint64_t)((const char *)a->address - (const char *)a->block);
      h.size = a->size;
    }
  }
  pthread_mutex_unlock(&registry->lock);
  if (!found) {
    return false;
  }
  memcpy(h.magic, FAKE_IPC_MAGIC, sizeof h.magic);
  h.pid = (int32_t)getpid();
  memcpy(handle, &h, sizeof h);
  return true;
}

/* Opens the memfd a handle names; -1 unless it is that memfd, whole. */
static inline int fake_ipc_open_memfd(const char *runtime, const fake_ipc_handle *h) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/fd/%ld", (long)h->pid, (long)h->fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return -1;
  }
  /* What was opened, read from this process's own descriptor: no window
   * in which the exporter's number could come to name something else. */
  char name[128];
  char expected[160];
  char link[192];
  fake_memfd_name(name, sizeof name, runtime, (long)h->pid, h->serial);
  snprintf(expected, sizeof expected, "/memfd:%s (deleted)", name);
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(path, link, sizeof link - 1u);
  struct stat st;
  bool same = n > 0 && (size_t)n < sizeof link - 1u;
  if (same) {
    link[n] = '\0';
    same = strcmp(link, expected) == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
           (uint64_t)st.st_size == h->offset + h->size;
  }
  if (!same) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Maps the memory a handle names and counts the opening as one object until
 * fake_ipc_close; the address has the exporter's alignment (the same layout:
 * a block aligned to twice the offset). NULL for any handle that does not
 * open. */
static inline void *fake_ipc_open(fake_registry *registry, const char handle[64]) {
  fake_ipc_handle h;
  memcpy(&h, handle, sizeof h);
  if (memcmp(h.magic, FAKE_IPC_MAGIC, sizeof h.magic) != 0 || h.reserved[0] != 0 ||
      h.reserved[1] != 0 || h.pid <= 0 || h.fd < 0 || h.size == 0 || h.offset == 0 ||
      (h.offset & (h.offset - 1u)) != 0 || h.offset > ((uint64_t)1 << 40) ||
      h.size > SIZE_MAX / 2u - 2u * h.offset) {
    return NULL;
  }
  fake_allocation *record = calloc(1, sizeof *record);
  if (record == NULL) {
    return NULL;
  }
  int fd = fake_ipc_open_memfd(registry->name, &h);
  size_t mapped = 0;
  void *block = NULL;
  if (fd >= 0) {
    block = fake_map_shared(fd, (size_t)(h.offset + h.size), 2u * (size_t)h.offset, &mapped);
    close(fd); /* the mapping keeps the memory */
  }
  if (block == NULL) {
    free(record);
    return NULL;
  }
  record->block = block;
  record->address = (char *)block + h.offset;
  record->size = (size_t)h.size;
  record->mapped = mapped;
  record->fd = -1;
  record->imported = true;
  fake_link(registry, record);
  return record->address;
}

/* Unmaps what fake_ipc_open returned at `address`; false when nothing was
 * opened there (the runtime's invalid-argument error). */
static inline bool fake_ipc_close(fake_registry *registry, const void *address) {
  fake_allocation *found = fake_unlink(registry, address, -1, true);
  if (found != NULL) {
    fake_dispose(found);
  }
  return found != NULL;
}

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

/* Atomic stores and loads: an interprocess event's state is read by other
 * processes (and threads) while it is recorded. `hangs` is stored first, so
 * a record never shows a moment of "complete" that was not meant. */
static inline void fake_event_record(fake_event *event) {
  __atomic_store_n(&event->hangs, fake_env_flag("HURRAY_FAKE_EVENT_HANG"), __ATOMIC_SEQ_CST);
  __atomic_store_n(&event->recorded, true, __ATOMIC_SEQ_CST);
}

static inline bool fake_event_complete(const fake_event *event) {
  return !__atomic_load_n(&event->recorded, __ATOMIC_SEQ_CST) ||
         !__atomic_load_n(&event->hangs, __ATOMIC_SEQ_CST);
}

/* A stand-in runtime event (CUevent, hipEvent_t): its fake_event either in
 * the object (`local`) or, for an interprocess event and for one opened from
 * an IPC handle, in one shared page of a memfd, as fake_ipc_handle describes
 * memory: the exporter keeps the memfd open (fd) so that another process of
 * the same user opens /proc/<pid>/fd/<fd>, checks that it is the memfd the
 * handle names (hurray-fake-<runtime>-event-<pid>-<serial>, one page) and
 * maps the same page. An opened event holds only its mapping (fd -1). */
#define FAKE_IPC_EVENT_MAGIC "hurray-fake-evt"

typedef struct fake_event_object {
  fake_event local;
  fake_event *state; /* &local, or the shared page */
  void *page;        /* the shared page, or NULL */
  size_t page_size;
  int fd; /* the exporter's memfd, else -1 */
  uint64_t serial;
  bool interprocess; /* made interprocess here: its handle can be taken */
  bool imported;     /* opened from a handle */
} fake_event_object;

_Static_assert(sizeof FAKE_IPC_EVENT_MAGIC == 16, "the event magic fills its field");

static inline void fake_event_memfd_runtime(char *out, size_t cap, const fake_registry *registry) {
  snprintf(out, cap, "%s-event", registry->name);
}

/* A new event, counted as one object; NULL when out of memory or the memfd
 * cannot be made. */
static inline fake_event_object *fake_event_object_new(fake_registry *registry, bool interprocess) {
  fake_event_object *e = calloc(1, sizeof *e);
  if (e == NULL) {
    return NULL;
  }
  e->fd = -1;
  e->state = &e->local;
  if (interprocess) {
    char runtime[64];
    char name[128];
    fake_event_memfd_runtime(runtime, sizeof runtime, registry);
    pthread_mutex_lock(&registry->lock);
    e->serial = ++registry->next_serial;
    pthread_mutex_unlock(&registry->lock);
    fake_memfd_name(name, sizeof name, runtime, (long)getpid(), e->serial);
    e->page_size = (size_t)sysconf(_SC_PAGESIZE);
    /* Close-on-exec, as for memory: a child reaches the event by its handle. */
    e->fd = memfd_create(name, MFD_CLOEXEC);
    if (e->fd >= 0 && ftruncate(e->fd, (off_t)e->page_size) == 0) {
      e->page = mmap(NULL, e->page_size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
    }
    if (e->page == NULL || e->page == MAP_FAILED) {
      if (e->fd >= 0) {
        close(e->fd);
      }
      free(e);
      return NULL;
    }
    e->state = e->page; /* a fresh memfd page is zeros: never recorded */
    e->interprocess = true;
  }
  e->state->magic = FAKE_EVENT_MAGIC;
  fake_count_object(registry, 1);
  return e;
}

static inline bool fake_event_object_valid(const fake_event_object *e) {
  return e != NULL && e->state != NULL && e->state->magic == FAKE_EVENT_MAGIC;
}

/* The IPC handle of an interprocess event made here; false for any other
 * (a local event, or one that was itself opened from a handle). */
static inline bool fake_event_object_handle(const fake_event_object *e, char handle[64]) {
  if (!fake_event_object_valid(e) || !e->interprocess) {
    return false;
  }
  fake_ipc_handle h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, FAKE_IPC_EVENT_MAGIC, sizeof h.magic);
  h.pid = (int32_t)getpid();
  h.fd = e->fd;
  h.serial = e->serial;
  h.offset = 0;
  h.size = e->page_size;
  memcpy(handle, &h, sizeof h);
  return true;
}

/* Opens the event a handle names onto its page, counted as one object;
 * NULL for any handle that does not open (not an event handle, its
 * exporter gone, its event destroyed). */
static inline fake_event_object *fake_event_object_open(fake_registry *registry,
                                                        const char handle[64]) {
  fake_ipc_handle h;
  memcpy(&h, handle, sizeof h);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (memcmp(h.magic, FAKE_IPC_EVENT_MAGIC, sizeof h.magic) != 0 || h.reserved[0] != 0 ||
      h.reserved[1] != 0 || h.pid <= 0 || h.fd < 0 || h.offset != 0 || h.size != page) {
    return NULL;
  }
  char runtime[64];
  fake_event_memfd_runtime(runtime, sizeof runtime, registry);
  int fd = fake_ipc_open_memfd(runtime, &h);
  if (fd < 0) {
    return NULL;
  }
  void *mapped = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd); /* the mapping keeps the page */
  if (mapped == MAP_FAILED) {
    return NULL;
  }
  fake_event_object *e = calloc(1, sizeof *e);
  if (e == NULL || ((fake_event *)mapped)->magic != FAKE_EVENT_MAGIC) {
    munmap(mapped, page);
    free(e);
    return NULL;
  }
  e->fd = -1;
  e->page = mapped;
  e->page_size = page;
  e->state = mapped;
  e->serial = h.serial;
  e->imported = true;
  fake_count_object(registry, 1);
  return e;
}

/* Destroys an event, or closes an opened one: the exporter's event (and its
 * page, while the exporter holds it) is untouched by an importer's close. */
static inline void fake_event_object_free(fake_registry *registry, fake_event_object *e) {
  if (e->page != NULL) {
    if (!e->imported) {
      e->state->magic = 0; /* the exporter's event is gone for every opener */
    }
    munmap(e->page, e->page_size);
  } else {
    e->local.magic = 0;
  }
  if (e->fd >= 0) {
    close(e->fd);
  }
  free(e);
  fake_count_object(registry, -1);
}

#endif /* HURRAY_TESTS_FAKE_COMMON_H */
