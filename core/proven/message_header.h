/*
 * The 16-byte header that starts every message of both transports: the IPC
 * channel's (specs/ipc.md IPC-MSG-1) and the network's control messages,
 * which NET-MSG-1 defines as that same header under their own magic.
 * Internal to the core.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_MESSAGE_HEADER_H
#define HURRAY_CORE_MESSAGE_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include "hurray/buffer.h"

/* The header of a message of len bytes that arrived with fds descriptors,
 * checked in the order of IPC-MSG-5 steps 1..7 and NET-MSG-4 (the same
 * order): length, magic (the transport's), version 1, reserved bytes,
 * type (1..type_max), exact length, descriptor count. Writes nothing but
 * *err. Contract above its definition, in message_header.c. */
hurray_status hurray_message_header_check(const uint8_t *in, size_t len, uint32_t magic,
                                          uint32_t type_max, size_t fds, hurray_error *err);

#endif /* HURRAY_CORE_MESSAGE_HEADER_H */
