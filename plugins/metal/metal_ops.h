/*
 * The metal plugin's table of Metal operations: every Objective-C message the
 * plugin sends goes through one of these function pointers. metal_objc.c
 * fills the table from the Objective-C runtime and the Metal framework at run
 * time (macOS only); tests/fakes/fake_metal_ops.c fills it with host-memory
 * stand-ins, so metal_plugin.c's logic is tested on Linux unchanged.
 * Objects (MTLDevice, MTLBuffer, MTLCommandQueue, MTLSharedEvent) travel as
 * opaque pointers; each table entry names the message it stands for.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_METAL_OPS_H
#define HURRAY_PLUGINS_METAL_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MTLResourceOptions storage modes (MTLStorageMode << 4). */
#define METAL_STORAGE_SHARED 0x00u
#define METAL_STORAGE_MANAGED 0x10u
#define METAL_STORAGE_PRIVATE 0x20u

typedef struct metal_ops {
  /* Runtime bookkeeping: objc_autoreleasePoolPush/Pop around each entry, so
   * autoreleased objects (command buffers) do not pile up on plugin threads. */
  void *(*pool_push)(void);
  void (*pool_pop)(void *pool);
  /* MTLCreateSystemDefaultDevice(); NULL without a Metal device. */
  void *(*create_system_default_device)(void);
  /* [object release] */
  void (*release)(void *object);
  /* [[device name] UTF8String] copied into buf (NUL-terminated). */
  void (*device_name)(void *device, char *buf, size_t cap);
  /* [device hasUnifiedMemory] */
  bool (*has_unified_memory)(void *device);
  /* [device recommendedMaxWorkingSetSize] */
  uint64_t (*recommended_max_working_set_size)(void *device);
  /* [device newBufferWithLength:options:]; NULL when out of memory. */
  void *(*new_buffer)(void *device, uint64_t length, uint64_t options);
  /* [buffer contents]; NULL for private storage. */
  void *(*buffer_contents)(void *buffer);
  /* [buffer gpuAddress] (macOS 13+); 0 where the OS lacks it. */
  uint64_t (*buffer_gpu_address)(void *buffer);
  /* [buffer didModifyRange:NSMakeRange(offset, length)] (managed storage). */
  void (*buffer_did_modify_range)(void *buffer, uint64_t offset, uint64_t length);
  /* [device newCommandQueue] */
  void *(*new_command_queue)(void *device);
  /* [queue commandBuffer] (autoreleased: valid until the pool pops). */
  void *(*command_buffer)(void *queue);
  /* A blit encoder on the command buffer with one
   * copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:, then endEncoding. */
  void (*blit_copy)(void *command_buffer, void *source, uint64_t source_offset, void *destination,
                    uint64_t destination_offset, uint64_t size);
  /* A blit encoder with synchronizeResource: (managed storage), then endEncoding. */
  void (*blit_synchronize)(void *command_buffer, void *buffer);
  /* [command_buffer encodeSignalEvent:value:] */
  void (*encode_signal_event)(void *command_buffer, void *event, uint64_t value);
  /* [command_buffer encodeWaitForEvent:value:] */
  void (*encode_wait_for_event)(void *command_buffer, void *event, uint64_t value);
  /* [command_buffer commit] */
  void (*commit)(void *command_buffer);
  /* [command_buffer waitUntilCompleted] */
  void (*wait_until_completed)(void *command_buffer);
  /* [device newSharedEvent] */
  void *(*new_shared_event)(void *device);
  /* [event signaledValue] */
  uint64_t (*signaled_value)(void *event);
  /* Private to the table's provider (library handles). */
  void *provider_data;
} metal_ops;

/**
 * Fills *ops (loading whatever it needs). false when Metal is unavailable,
 * with the reason in reason[0..cap) (which library or call failed).
 */
bool metal_ops_open(metal_ops *ops, char *reason, size_t cap);

/** Releases what metal_ops_open loaded. */
void metal_ops_close(metal_ops *ops);

#endif /* HURRAY_PLUGINS_METAL_OPS_H */
