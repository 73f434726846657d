/*
 * The metal plugin's Metal operations (metal_ops.h) implemented with the
 * Objective-C runtime and the Metal framework, both loaded at run time:
 *   - "/usr/lib/libobjc.A.dylib" (objc_msgSend, sel_registerName,
 *     objc_autoreleasePoolPush/Pop);
 *   - "/System/Library/Frameworks/Metal.framework/Metal"
 *     (MTLCreateSystemDefaultDevice), or the file named by
 *     HURRAY_METAL_LIBRARY.
 * These are sections 2 and 3 of the plugin (vendor declarations and the
 * vendor symbol table); they live apart from metal_plugin.c so that the
 * plugin's logic can be linked against a fake table in the tests. Every
 * message is sent with objc_msgSend cast to the exact C type of the method,
 * as Apple documents for calling it from C. This file is only exercised on
 * macOS; on Linux the libraries are missing and metal_ops_open reports it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metal_ops.h"

/* ------------------------------------------------------------------------ */
/* 2. Vendor declarations (Objective-C runtime, Metal; from Apple's docs)   */
/* ------------------------------------------------------------------------ */

typedef void *objc_id;
typedef void *objc_sel;
/* NSRange, passed by value to didModifyRange:. */
typedef struct metal_ns_range {
  unsigned long location;
  unsigned long length;
} metal_ns_range;

#define METAL_OBJC_LIBRARY "/usr/lib/libobjc.A.dylib"
#define METAL_FRAMEWORK "/System/Library/Frameworks/Metal.framework/Metal"
#define METAL_LIBRARY_ENV "HURRAY_METAL_LIBRARY"

/* ------------------------------------------------------------------------ */
/* 3. The vendor symbol table                                               */
/* ------------------------------------------------------------------------ */
/* X(library, return type, name, (parameter types)); objc_msgSend is declared
 * with no parameters and cast to each method's type at the call. */
#define METAL_SYMBOLS(X)                              \
  X(objc, void, objc_msgSend, (void))                 \
  X(objc, objc_sel, sel_registerName, (const char *)) \
  X(objc, void *, objc_autoreleasePoolPush, (void))   \
  X(objc, void, objc_autoreleasePoolPop, (void *))    \
  X(metal, objc_id, MTLCreateSystemDefaultDevice, (void))

typedef struct metal_runtime {
  void *objc;
  void *metal;
#define METAL_SYMBOL_FIELD(library, ret, name, args) ret(*name) args;
  METAL_SYMBOLS(METAL_SYMBOL_FIELD)
#undef METAL_SYMBOL_FIELD
} metal_runtime;

/* One runtime per process: the table's functions have no context argument,
 * and the Objective-C runtime is process-wide anyway. */
static metal_runtime runtime;

static objc_sel sel(const char *name) { return runtime.sel_registerName(name); }

/* objc_msgSend as a function of the method's C type. */
#define MSG(type) ((type)(void (*)(void))runtime.objc_msgSend)

static void *objc_pool_push(void) { return runtime.objc_autoreleasePoolPush(); }
static void objc_pool_pop(void *pool) { runtime.objc_autoreleasePoolPop(pool); }
static void *objc_create_device(void) { return runtime.MTLCreateSystemDefaultDevice(); }

static void objc_release(void *object) { MSG(void (*)(objc_id, objc_sel))(object, sel("release")); }

static void objc_device_name(void *device, char *buf, size_t cap) {
  objc_id name = MSG(objc_id(*)(objc_id, objc_sel))(device, sel("name"));
  const char *utf8 = name != NULL ? MSG(const char *(*)(objc_id, objc_sel))(name, sel("UTF8String"))
                                  : NULL;
  snprintf(buf, cap, "%s", utf8 != NULL ? utf8 : "Metal device");
}

static bool objc_has_unified_memory(void *device) {
  return MSG(signed char (*)(objc_id, objc_sel))(device, sel("hasUnifiedMemory")) != 0;
}

static uint64_t objc_working_set(void *device) {
  return MSG(uint64_t(*)(objc_id, objc_sel))(device, sel("recommendedMaxWorkingSetSize"));
}

static void *objc_new_buffer(void *device, uint64_t length, uint64_t options) {
  return MSG(objc_id(*)(objc_id, objc_sel, unsigned long, unsigned long))(
      device, sel("newBufferWithLength:options:"), (unsigned long)length, (unsigned long)options);
}

static void *objc_buffer_contents(void *buffer) {
  return MSG(void *(*)(objc_id, objc_sel))(buffer, sel("contents"));
}

static uint64_t objc_buffer_gpu_address(void *buffer) {
  objc_sel selector = sel("gpuAddress");
  signed char responds = MSG(signed char (*)(objc_id, objc_sel, objc_sel))(
      buffer, sel("respondsToSelector:"), selector);
  return responds ? MSG(uint64_t(*)(objc_id, objc_sel))(buffer, selector) : 0u;
}

static void objc_did_modify_range(void *buffer, uint64_t offset, uint64_t length) {
  metal_ns_range range = {(unsigned long)offset, (unsigned long)length};
  MSG(void (*)(objc_id, objc_sel, metal_ns_range))(buffer, sel("didModifyRange:"), range);
}

static void *objc_new_command_queue(void *device) {
  return MSG(objc_id(*)(objc_id, objc_sel))(device, sel("newCommandQueue"));
}

static void *objc_command_buffer(void *queue) {
  return MSG(objc_id(*)(objc_id, objc_sel))(queue, sel("commandBuffer"));
}

static void objc_blit_copy(void *command_buffer, void *source, uint64_t source_offset,
                           void *destination, uint64_t destination_offset, uint64_t size) {
  objc_id blit = MSG(objc_id(*)(objc_id, objc_sel))(command_buffer, sel("blitCommandEncoder"));
  MSG(void (*)(objc_id, objc_sel, objc_id, unsigned long, objc_id, unsigned long, unsigned long))
  (blit, sel("copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:"), source,
   (unsigned long)source_offset, destination, (unsigned long)destination_offset,
   (unsigned long)size);
  MSG(void (*)(objc_id, objc_sel))(blit, sel("endEncoding"));
}

static void objc_blit_synchronize(void *command_buffer, void *buffer) {
  objc_id blit = MSG(objc_id(*)(objc_id, objc_sel))(command_buffer, sel("blitCommandEncoder"));
  MSG(void (*)(objc_id, objc_sel, objc_id))(blit, sel("synchronizeResource:"), buffer);
  MSG(void (*)(objc_id, objc_sel))(blit, sel("endEncoding"));
}

static void objc_encode_signal(void *command_buffer, void *event, uint64_t value) {
  MSG(void (*)(objc_id, objc_sel, objc_id, uint64_t))
  (command_buffer, sel("encodeSignalEvent:value:"), event, value);
}

static void objc_encode_wait(void *command_buffer, void *event, uint64_t value) {
  MSG(void (*)(objc_id, objc_sel, objc_id, uint64_t))
  (command_buffer, sel("encodeWaitForEvent:value:"), event, value);
}

static void objc_commit(void *command_buffer) {
  MSG(void (*)(objc_id, objc_sel))(command_buffer, sel("commit"));
}

static void objc_wait_until_completed(void *command_buffer) {
  MSG(void (*)(objc_id, objc_sel))(command_buffer, sel("waitUntilCompleted"));
}

static void *objc_new_shared_event(void *device) {
  return MSG(objc_id(*)(objc_id, objc_sel))(device, sel("newSharedEvent"));
}

static uint64_t objc_signaled_value(void *event) {
  return MSG(uint64_t(*)(objc_id, objc_sel))(event, sel("signaledValue"));
}

bool metal_ops_open(metal_ops *ops, char *reason, size_t cap) {
  const char *framework = getenv(METAL_LIBRARY_ENV);
  if (framework == NULL || *framework == '\0') {
    framework = METAL_FRAMEWORK;
  }
  memset(&runtime, 0, sizeof runtime);
  runtime.objc = dlopen(METAL_OBJC_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  const char *library = METAL_OBJC_LIBRARY;
  if (runtime.objc != NULL) {
    library = framework;
    runtime.metal = dlopen(framework, RTLD_NOW | RTLD_LOCAL);
  }
  if (runtime.objc == NULL || runtime.metal == NULL) {
    const char *why = dlerror();
    snprintf(reason, cap, "dlopen %s: %s (Metal is available on macOS only)", library,
             why != NULL ? why : "unknown error");
    metal_ops_close(ops);
    return false;
  }
#define METAL_SYMBOL_LOAD(library_field, ret, name, args)                               \
  {                                                                                     \
    void *address = dlsym(runtime.library_field, #name);                                \
    if (address == NULL) {                                                              \
      snprintf(reason, cap, "dlsym %s in %s: symbol not found", #name,                  \
               runtime.library_field == runtime.objc ? METAL_OBJC_LIBRARY : framework); \
      metal_ops_close(ops);                                                             \
      return false;                                                                     \
    }                                                                                   \
    memcpy(&runtime.name, &address, sizeof address);                                    \
  }
  METAL_SYMBOLS(METAL_SYMBOL_LOAD)
#undef METAL_SYMBOL_LOAD
  metal_ops table = {
      objc_pool_push,
      objc_pool_pop,
      objc_create_device,
      objc_release,
      objc_device_name,
      objc_has_unified_memory,
      objc_working_set,
      objc_new_buffer,
      objc_buffer_contents,
      objc_buffer_gpu_address,
      objc_did_modify_range,
      objc_new_command_queue,
      objc_command_buffer,
      objc_blit_copy,
      objc_blit_synchronize,
      objc_encode_signal,
      objc_encode_wait,
      objc_commit,
      objc_wait_until_completed,
      objc_new_shared_event,
      objc_signaled_value,
      &runtime,
  };
  *ops = table;
  return true;
}

void metal_ops_close(metal_ops *ops) {
  if (runtime.metal != NULL) {
    dlclose(runtime.metal);
  }
  if (runtime.objc != NULL) {
    dlclose(runtime.objc);
  }
  memset(&runtime, 0, sizeof runtime);
  memset(ops, 0, sizeof *ops);
}
