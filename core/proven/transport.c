/*
 * Which sync modes each transport allows: BP-XPORT-1..4.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "error_set.h"
#include "hurray/buffer.h"

uint32_t hurray_device_default_ipc_capabilities(hurray_device_tag device_tag) {
  if (device_tag == HURRAY_DEVICE_CUDA || device_tag == HURRAY_DEVICE_ROCM) {
    return HURRAY_IPC_EXPORTS_EVENTS;
  }
  return 0u;
}

hurray_status hurray_transport_check_sync_mode(hurray_transport transport, hurray_sync_mode mode,
                                               uint32_t ipc_capabilities, hurray_error *err) {
  if (transport != HURRAY_TRANSPORT_IN_PROCESS && transport != HURRAY_TRANSPORT_IPC &&
      transport != HURRAY_TRANSPORT_NETWORK) {
    return hurray_fail(err, HURRAY_ERR_INVALID_ARGUMENT, (uint64_t)transport, 0, 0);
  }
  if (mode > HURRAY_SYNC_CONSUMER_STREAM) {
    return hurray_fail(err, HURRAY_ERR_INVALID_SYNC_MODE, mode, 0, 0);
  }
  if (mode == HURRAY_SYNC_PRODUCER_SYNCED || transport == HURRAY_TRANSPORT_IN_PROCESS) {
    return HURRAY_OK;
  }
  if (transport == HURRAY_TRANSPORT_IPC) {
    uint32_t needed =
        mode == HURRAY_SYNC_EVENT ? HURRAY_IPC_EXPORTS_EVENTS : HURRAY_IPC_EXPORTS_STREAMS;
    if ((ipc_capabilities & needed) != 0u) {
      return HURRAY_OK;
    }
  }
  return hurray_fail(err, HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, mode, (uint64_t)transport, 0);
}
