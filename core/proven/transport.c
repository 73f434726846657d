/*
 * Which sync modes each transport allows: BP-XPORT-1..4.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdbool.h>
#include "error_set.h"
#include "hurray/buffer.h"

/*@
  terminates \true;
  assigns \nothing;
  ensures \result == bp_default_ipc_capabilities(device_tag);  // BP-XPORT-3
*/
uint32_t hurray_device_default_ipc_capabilities(hurray_device_tag device_tag) {
  if (device_tag == HURRAY_DEVICE_CUDA || device_tag == HURRAY_DEVICE_ROCM) {
    return HURRAY_IPC_EXPORTS_EVENTS;
  }
  return 0u;
}

/*@
  requires err == \null || \valid(err);
  terminates \true;
  assigns err->status, err->value, err->expected, err->index, err->detail[0];
  behavior unknown_transport:  // BP-XPORT-1
    assumes transport != 0 && transport != 1 && transport != 2;
    ensures \result == HURRAY_ERR_INVALID_ARGUMENT;
    ensures bp_error_is(err, \result, (uint64_t)transport, 0, 0);
  behavior undefined_mode:  // BP-SYNC-1
    assumes transport == 0 || transport == 1 || transport == 2;
    assumes !bp_valid_sync_mode(mode);
    ensures \result == HURRAY_ERR_INVALID_SYNC_MODE && bp_error_is(err, \result, mode, 0, 0);
  behavior allowed:  // BP-XPORT-2..4
    assumes transport == 0 || transport == 1 || transport == 2;
    assumes bp_valid_sync_mode(mode);
    assumes mode == 0x00 || transport == 0 ||
            (transport == 1 && mode == 0x01 && (ipc_capabilities & 0x1) != 0) ||
            (transport == 1 && mode == 0x02 && (ipc_capabilities & 0x2) != 0);
    ensures \result == HURRAY_OK && bp_error_unchanged{Pre, Post}(err);
  behavior not_allowed:  // BP-XPORT-3, BP-XPORT-4
    assumes transport == 0 || transport == 1 || transport == 2;
    assumes bp_valid_sync_mode(mode);
    assumes !(mode == 0x00 || transport == 0 ||
              (transport == 1 && mode == 0x01 && (ipc_capabilities & 0x1) != 0) ||
              (transport == 1 && mode == 0x02 && (ipc_capabilities & 0x2) != 0));
    ensures \result == HURRAY_ERR_SYNC_MODE_NOT_ALLOWED;
    ensures bp_error_is(err, \result, mode, (uint64_t)transport, 0);
  complete behaviors;
  disjoint behaviors;
*/
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
    bool exported = mode == HURRAY_SYNC_EVENT
                        ? (ipc_capabilities & HURRAY_IPC_EXPORTS_EVENTS) != 0u
                        : (ipc_capabilities & HURRAY_IPC_EXPORTS_STREAMS) != 0u;
    if (exported) {
      return HURRAY_OK;
    }
  }
  return hurray_fail(err, HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, mode, (uint64_t)transport, 0);
}
