/*
 * An OFFER's body (specs/ipc.md, IPC-MSG-8..11): its size and count, its
 * buffer table and segment records, checked, then stored. The other half
 * of the proven IPC message decoder (ipc_message.c), which calls
 * hurray_ipc_check_offer in its check pass and hurray_ipc_store_offer_message
 * in its store pass. Internal to the core.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef HURRAY_CORE_IPC_OFFER_H
#define HURRAY_CORE_IPC_OFFER_H

#include <stddef.h>
#include <stdint.h>
#include "hurray/buffer.h"
#include "hurray/ipc_wire.h"

/* IPC-MSG-8..11: the body of an OFFER whose header every rule accepted,
 * against a reader with room for cap buffers; writes nothing but *err.
 * Contract above its definition, in ipc_offer.c. */
hurray_status hurray_ipc_check_offer(const uint8_t *in, uint32_t body_size, uint32_t fd_count,
                                     size_t cap, hurray_error *err);

/* IPC-MSG-9, -11: an OFFER of n buffers every rule accepted, into *out,
 * handles[] and segments[]. Cannot fail. Contract above its definition, in
 * ipc_offer.c. */
void hurray_ipc_store_offer_message(const uint8_t *in, uint32_t n, uint32_t body_size,
                                    uint32_t fd_count, hurray_ipc_message *out,
                                    hurray_buffer_handle *handles, hurray_ipc_segment *segments,
                                    hurray_error *err);

#endif /* HURRAY_CORE_IPC_OFFER_H */
