/*
 * The per-transport sync-mode rules (BP-XPORT-1..4): every mode byte on every
 * transport with every combination of IPC capabilities, and the default
 * capabilities of each device tag.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "hurray/hurray.h"
#include "test_support.h"

START_TEST(transport_every_mode_and_capability) {
  static const hurray_transport transports[] = {HURRAY_TRANSPORT_IN_PROCESS, HURRAY_TRANSPORT_IPC,
                                                HURRAY_TRANSPORT_NETWORK};
  for (size_t t = 0; t < 3; t++) {
    for (unsigned mode = 0; mode < 256; mode++) {
      for (uint32_t caps = 0; caps < 8; caps++) {
        uint32_t capabilities = caps == 7 ? 0xFFFFFFFFu : caps;
        hurray_error err = junk_error();
        hurray_status status =
            hurray_transport_check_sync_mode(transports[t], (uint8_t)mode, capabilities, &err);
        char what[80];
        snprintf(what, sizeof what, "transport %d, mode 0x%02X, capabilities 0x%X",
                 (int)transports[t], mode, capabilities);
        if (mode > 2) { /* BP-SYNC-1 */
          require_status_value(what, status, &err, HURRAY_ERR_INVALID_SYNC_MODE, mode, ANY_INDEX);
        } else if (spec_transport_allows(transports[t], (uint8_t)mode, capabilities)) {
          REQUIRE(status == HURRAY_OK, "%s: %s", what, hurray_status_name(status));
        } else { /* BP-XPORT-3, BP-XPORT-4 */
          require_error(what, status, &err, HURRAY_ERR_SYNC_MODE_NOT_ALLOWED, mode,
                        (uint64_t)transports[t], ANY_INDEX);
        }
      }
    }
  }
  /* The rules spelled out. */
  ck_assert_int_eq(hurray_transport_check_sync_mode(HURRAY_TRANSPORT_NETWORK, 1, 3, NULL),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_int_eq(hurray_transport_check_sync_mode(HURRAY_TRANSPORT_NETWORK, 0, 0, NULL),
                   HURRAY_OK);
  ck_assert_int_eq(
      hurray_transport_check_sync_mode(HURRAY_TRANSPORT_IPC, 1, HURRAY_IPC_EXPORTS_EVENTS, NULL),
      HURRAY_OK);
  ck_assert_int_eq(
      hurray_transport_check_sync_mode(HURRAY_TRANSPORT_IPC, 2, HURRAY_IPC_EXPORTS_EVENTS, NULL),
      HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
  ck_assert_int_eq(hurray_transport_check_sync_mode(HURRAY_TRANSPORT_IN_PROCESS, 2, 0, NULL),
                   HURRAY_OK);
}
END_TEST

START_TEST(transport_unknown) {
  hurray_error err = junk_error();
  hurray_status status = hurray_transport_check_sync_mode((hurray_transport)3, 0, 0, &err);
  require_status_value("transport 3", status, &err, HURRAY_ERR_INVALID_ARGUMENT, 3, ANY_INDEX);
}
END_TEST

START_TEST(transport_default_ipc_capabilities) {
  for (unsigned tag = 0; tag < 256; tag++) {
    /* BP-XPORT-3: CUDA and ROCm export events; no device exports streams. */
    uint32_t want = (tag == 0x01 || tag == 0x02) ? HURRAY_IPC_EXPORTS_EVENTS : 0u;
    REQUIRE(hurray_device_default_ipc_capabilities((uint8_t)tag) == want,
            "default IPC capabilities of 0x%02X", tag);
  }
  ck_assert_uint_eq(HURRAY_IPC_EXPORTS_EVENTS, 1);
  ck_assert_uint_eq(HURRAY_IPC_EXPORTS_STREAMS, 2);
  /* CUDA event over IPC with the defaults: allowed; Metal event: not. */
  ck_assert_int_eq(hurray_transport_check_sync_mode(
                       HURRAY_TRANSPORT_IPC, HURRAY_SYNC_EVENT,
                       hurray_device_default_ipc_capabilities(HURRAY_DEVICE_CUDA), NULL),
                   HURRAY_OK);
  ck_assert_int_eq(hurray_transport_check_sync_mode(
                       HURRAY_TRANSPORT_IPC, HURRAY_SYNC_EVENT,
                       hurray_device_default_ipc_capabilities(HURRAY_DEVICE_METAL), NULL),
                   HURRAY_ERR_SYNC_MODE_NOT_ALLOWED);
}
END_TEST

int main(void) {
  return HURRAY_CHECK_MAIN("transports", "transports", SWEEP_TIMEOUT_S,
                           transport_every_mode_and_capability, transport_unknown,
                           transport_default_ipc_capabilities);
}
