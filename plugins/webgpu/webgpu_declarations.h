/*
 * The few webgpu.h declarations the webgpu plugin uses, written from the
 * WebGPU C API documentation (webgpu-headers, the "callback info" generation
 * with WGPUStringView and WGPUFuture, as implemented by wgpu-native v24 and
 * later and by Dawn since late 2024). Debian ships no webgpu.h, so the
 * plugin and its stand-in (tests/fakes/fake_webgpu.c) share this one copy of
 * the types and constants (a second hand-written copy would only be a second
 * chance to get a layout wrong). The functions are in the plugin's symbol
 * table (webgpu_plugin.c).
 *
 * Enumerations are declared as uint32_t: webgpu.h's enums are 32-bit
 * (their Force32 member is 0x7FFFFFFF), so the layout is the same.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_PLUGINS_WEBGPU_DECLARATIONS_H
#define HURRAY_PLUGINS_WEBGPU_DECLARATIONS_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t WGPUBool;
typedef uint64_t WGPUFlags;

typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
/* Only ever passed as NULL (nextInChain, optional descriptors). */
typedef struct WGPUChainedStruct WGPUChainedStruct;
typedef struct WGPUInstanceDescriptor WGPUInstanceDescriptor;
typedef struct WGPURequestAdapterOptions WGPURequestAdapterOptions;
typedef struct WGPUDeviceDescriptor WGPUDeviceDescriptor;
typedef struct WGPUCommandEncoderDescriptor WGPUCommandEncoderDescriptor;
typedef struct WGPUCommandBufferDescriptor WGPUCommandBufferDescriptor;

/* A string with its length; WGPU_STRLEN as length means NUL-terminated. */
typedef struct WGPUStringView {
  const char *data;
  size_t length;
} WGPUStringView;
#define WGPU_STRLEN SIZE_MAX

typedef struct WGPUFuture {
  uint64_t id;
} WGPUFuture;

typedef uint32_t WGPUCallbackMode;
#define WGPUCallbackMode_WaitAnyOnly 0x00000001u
#define WGPUCallbackMode_AllowProcessEvents 0x00000002u
#define WGPUCallbackMode_AllowSpontaneous 0x00000003u

typedef uint32_t WGPURequestAdapterStatus; /* Success 1, then failures */
typedef uint32_t WGPURequestDeviceStatus;  /* Success 1, then failures */
typedef uint32_t WGPUMapAsyncStatus;       /* Success 1, then failures */
typedef uint32_t WGPUPopErrorScopeStatus;  /* Success 1, then failures */
#define WGPU_STATUS_SUCCESS 0x00000001u

typedef uint32_t WGPUErrorFilter;
#define WGPUErrorFilter_OutOfMemory 0x00000002u
typedef uint32_t WGPUErrorType;
#define WGPUErrorType_NoError 0x00000001u
#define WGPUErrorType_OutOfMemory 0x00000003u

typedef WGPUFlags WGPUBufferUsage;
#define WGPUBufferUsage_MapRead 0x0000000000000001u
#define WGPUBufferUsage_MapWrite 0x0000000000000002u
#define WGPUBufferUsage_CopySrc 0x0000000000000004u
#define WGPUBufferUsage_CopyDst 0x0000000000000008u
#define WGPUBufferUsage_Storage 0x0000000000000080u

typedef WGPUFlags WGPUMapMode;
#define WGPUMapMode_Read 0x0000000000000001u
#define WGPUMapMode_Write 0x0000000000000002u

typedef void (*WGPURequestAdapterCallback)(WGPURequestAdapterStatus status, WGPUAdapter adapter,
                                           WGPUStringView message, void *userdata1,
                                           void *userdata2);
typedef void (*WGPURequestDeviceCallback)(WGPURequestDeviceStatus status, WGPUDevice device,
                                          WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUBufferMapCallback)(WGPUMapAsyncStatus status, WGPUStringView message,
                                      void *userdata1, void *userdata2);
typedef void (*WGPUPopErrorScopeCallback)(WGPUPopErrorScopeStatus status, WGPUErrorType type,
                                          WGPUStringView message, void *userdata1, void *userdata2);

typedef struct WGPURequestAdapterCallbackInfo {
  const WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPURequestAdapterCallback callback;
  void *userdata1;
  void *userdata2;
} WGPURequestAdapterCallbackInfo;

typedef struct WGPURequestDeviceCallbackInfo {
  const WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPURequestDeviceCallback callback;
  void *userdata1;
  void *userdata2;
} WGPURequestDeviceCallbackInfo;

typedef struct WGPUBufferMapCallbackInfo {
  const WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUBufferMapCallback callback;
  void *userdata1;
  void *userdata2;
} WGPUBufferMapCallbackInfo;

typedef struct WGPUPopErrorScopeCallbackInfo {
  const WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUPopErrorScopeCallback callback;
  void *userdata1;
  void *userdata2;
} WGPUPopErrorScopeCallbackInfo;

typedef struct WGPUBufferDescriptor {
  const WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBufferUsage usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;

#endif /* HURRAY_PLUGINS_WEBGPU_DECLARATIONS_H */
