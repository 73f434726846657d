/*
 * A fake Metal operations table (plugins/metal/metal_ops.h) backed by host
 * memory: linked with plugins/metal/metal_plugin.c into a test build of the
 * metal plugin, it stands in for the Objective-C runtime and the Metal
 * framework, which exist only on macOS. It keeps the Metal semantics the
 * plugin relies on: private buffers have no contents, command buffers are
 * autoreleased (freed when their pool pops), work runs at commit, a shared
 * event's signaledValue rises when a signal is committed.
 * "Loading": HURRAY_METAL_LIBRARY, when set, must name a file dlopen can
 * open (the tests name this library itself), as the real framework path
 * must. Switches: fake_common.h (HURRAY_FAKE_DEVICES=0: no default device;
 * HURRAY_FAKE_NO_UNIFIED=1: a discrete GPU; HURRAY_FAKE_EVENT_HANG=1:
 * signals committed from then on never land).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE /* memfd_create and MAP_ANONYMOUS, in fake_common.h */
#include <dlfcn.h>
#include <stdio.h>

#include "fake_common.h"
#include "metal_ops.h"

enum { KIND_DEVICE = 1, KIND_QUEUE, KIND_BUFFER, KIND_COMMAND_BUFFER, KIND_EVENT };
enum { OP_COPY = 1, OP_SYNCHRONIZE, OP_SIGNAL, OP_WAIT };

typedef struct fake_object {
  int kind;
  uint64_t options;    /* buffers */
  uint64_t length;     /* buffers */
  unsigned char *data; /* buffers */
  uint64_t value;      /* events: signaledValue */
  struct fake_op {
    int op;
    struct fake_object *a;
    uint64_t a_offset;
    struct fake_object *b;
    uint64_t b_offset;
    uint64_t size;
  } ops[4]; /* command buffers */
  size_t op_count;
  struct fake_object *next_autoreleased;
} fake_object;

static fake_registry registry = FAKE_REGISTRY_INIT;
static _Thread_local fake_object *autoreleased;
static void *framework;

FAKE_EXPORT long hurray_fake_live_objects(void);
long hurray_fake_live_objects(void) { return fake_live_objects(&registry); }

static fake_object *new_object(int kind) {
  fake_object *o = calloc(1, sizeof *o);
  if (o != NULL) {
    o->kind = kind;
    fake_count_object(&registry, 1);
  }
  return o;
}

static void release(void *object) {
  fake_object *o = object;
  if (o == NULL) {
    return;
  }
  if (o->data != NULL) {
    (void)fake_release(&registry, o->data, -1);
  }
  free(o);
  fake_count_object(&registry, -1);
}

static void *pool_push(void) { return autoreleased; }

static void pool_pop(void *pool) {
  while (autoreleased != NULL && autoreleased != pool) {
    fake_object *o = autoreleased;
    autoreleased = o->next_autoreleased;
    release(o);
  }
}

static void *create_system_default_device(void) {
  return fake_device_count() > 0 ? new_object(KIND_DEVICE) : NULL;
}

static void device_name(void *device, char *buf, size_t cap) {
  (void)device;
  snprintf(buf, cap, "Stand-in Metal device");
}

static bool has_unified_memory(void *device) {
  (void)device;
  return !fake_env_flag("HURRAY_FAKE_NO_UNIFIED");
}

static uint64_t working_set(void *device) {
  (void)device;
  return (uint64_t)1 << 30;
}

static void *new_buffer(void *device, uint64_t length, uint64_t options) {
  (void)device;
  if (fake_env_flag("HURRAY_FAKE_OOM") || length == 0) {
    return NULL;
  }
  fake_object *b = new_object(KIND_BUFFER);
  b->options = options;
  b->length = length;
  b->data = fake_allocate(&registry, (size_t)length, KIND_BUFFER, 0);
  return b;
}

static void *buffer_contents(void *buffer) {
  fake_object *b = buffer;
  return b->options == METAL_STORAGE_PRIVATE ? NULL : b->data;
}

static uint64_t buffer_gpu_address(void *buffer) {
  return (uint64_t)(uintptr_t)((fake_object *)buffer)->data;
}

static void did_modify_range(void *buffer, uint64_t offset, uint64_t length) {
  fake_object *b = buffer;
  if (b->options != METAL_STORAGE_MANAGED || offset + length > b->length) {
    abort(); /* Metal raises an exception: a plugin bug */
  }
}

static void *new_command_queue(void *device) {
  (void)device;
  return new_object(KIND_QUEUE);
}

static void *command_buffer(void *queue) {
  (void)queue;
  fake_object *c = new_object(KIND_COMMAND_BUFFER);
  c->next_autoreleased = autoreleased;
  autoreleased = c;
  return c;
}

static void add_op(void *command_buffer_, int op, fake_object *a, uint64_t a_offset, fake_object *b,
                   uint64_t b_offset, uint64_t size) {
  fake_object *c = command_buffer_;
  if (c->op_count < 4) {
    struct fake_op o = {op, a, a_offset, b, b_offset, size};
    c->ops[c->op_count++] = o;
  }
}

static void blit_copy(void *cb, void *source, uint64_t source_offset, void *destination,
                      uint64_t destination_offset, uint64_t size) {
  add_op(cb, OP_COPY, source, source_offset, destination, destination_offset, size);
}

static void blit_synchronize(void *cb, void *buffer) {
  add_op(cb, OP_SYNCHRONIZE, buffer, 0, NULL, 0, 0);
}

static void encode_signal(void *cb, void *event, uint64_t value) {
  add_op(cb, OP_SIGNAL, event, value, NULL, 0, 0);
}

static void encode_wait(void *cb, void *event, uint64_t value) {
  add_op(cb, OP_WAIT, event, value, NULL, 0, 0);
}

/* Work runs at commit; a signal committed while the hang switch is on never
 * lands. */
static void commit(void *cb) {
  fake_object *c = cb;
  for (size_t i = 0; i < c->op_count; i++) {
    struct fake_op *o = &c->ops[i];
    if (o->op == OP_COPY) {
      if (o->a_offset + o->size > o->a->length || o->b_offset + o->size > o->b->length) {
        abort(); /* Metal validation would stop here: a plugin bug */
      }
      memcpy(o->b->data + o->b_offset, o->a->data + o->a_offset, (size_t)o->size);
    } else if (o->op == OP_SIGNAL && !fake_env_flag("HURRAY_FAKE_EVENT_HANG")) {
      o->a->value = o->a_offset;
    }
  }
}

static void wait_until_completed(void *cb) { (void)cb; }

static void *new_shared_event(void *device) {
  (void)device;
  return new_object(KIND_EVENT);
}

static uint64_t signaled_value(void *event) { return ((fake_object *)event)->value; }

bool metal_ops_open(metal_ops *ops, char *reason, size_t cap) {
  const char *library = getenv("HURRAY_METAL_LIBRARY");
  if (library != NULL && *library != '\0') {
    framework = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (framework == NULL) {
      const char *why = dlerror();
      snprintf(reason, cap, "dlopen %s: %s", library, why != NULL ? why : "unknown error");
      return false;
    }
  }
  metal_ops table = {pool_push,
                     pool_pop,
                     create_system_default_device,
                     release,
                     device_name,
                     has_unified_memory,
                     working_set,
                     new_buffer,
                     buffer_contents,
                     buffer_gpu_address,
                     did_modify_range,
                     new_command_queue,
                     command_buffer,
                     blit_copy,
                     blit_synchronize,
                     encode_signal,
                     encode_wait,
                     commit,
                     wait_until_completed,
                     new_shared_event,
                     signaled_value,
                     NULL};
  *ops = table;
  return true;
}

void metal_ops_close(metal_ops *ops) {
  if (framework != NULL) {
    dlclose(framework);
    framework = NULL;
  }
  memset(ops, 0, sizeof *ops);
}
