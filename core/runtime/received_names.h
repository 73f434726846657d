/*
 * The transports' own names of the received tensor (specs/inbound.md
 * RX-OBJ-1): hurray_ipc_received and hurray_net_received are the neutral
 * hurray_received under ABI 1.0 names, and each of their accessors is the
 * neutral accessor. Written once here, expanded once by each transport
 * (ipc/ipc_consumer.c in libhurray, net/net.c in libhurray-net, whose
 * exports they are), so that the wrappers are one piece of code.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_RECEIVED_NAMES_H
#define HURRAY_RECEIVED_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "hurray/received.h"

/*
 * Defines PREFIX_tensor, PREFIX_plugin_buffer, PREFIX_##ID, PREFIX_count,
 * PREFIX_buffer, PREFIX_handoff, PREFIX_release and PREFIX_free for the
 * opaque TYPE (declared by the transport's public header), each the
 * hurray_received_* call of the same meaning on the same object.
 */
#define HURRAY_RECEIVED_DEFINE_NAMES(PREFIX, TYPE, ID)                                             \
  hurray_received *PREFIX##_tensor(TYPE *received) { return (hurray_received *)(void *)received; } \
  hurray_plugin_buffer *PREFIX##_plugin_buffer(const TYPE *received, size_t index) {               \
    return hurray_received_plugin_buffer((const hurray_received *)(const void *)received, index);  \
  }                                                                                                \
  uint64_t PREFIX##_##ID(const TYPE *received) {                                                   \
    return hurray_received_id((const hurray_received *)(const void *)received);                    \
  }                                                                                                \
  size_t PREFIX##_count(const TYPE *received) {                                                    \
    return hurray_received_count((const hurray_received *)(const void *)received);                 \
  }                                                                                                \
  const hurray_accepted_buffer *PREFIX##_buffer(const TYPE *received, size_t index) {              \
    return hurray_received_buffer((const hurray_received *)(const void *)received, index);         \
  }                                                                                                \
  hurray_handoff *PREFIX##_handoff(TYPE *received, size_t index) {                                 \
    return hurray_received_handoff(PREFIX##_tensor(received), index);                              \
  }                                                                                                \
  hurray_status PREFIX##_release(TYPE *received, size_t index, hurray_error *err) {                \
    return hurray_received_release(PREFIX##_tensor(received), index, err);                         \
  }                                                                                                \
  void PREFIX##_free(TYPE **received) {                                                            \
    if (received != NULL) {                                                                        \
      hurray_received *r = PREFIX##_tensor(*received);                                             \
      *received = NULL;                                                                            \
      hurray_received_free(&r);                                                                    \
    }                                                                                              \
  }

#endif /* HURRAY_RECEIVED_NAMES_H */
