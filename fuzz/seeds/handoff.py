"""Handoff programs (specs/handoff.md): the handoff target's operations on
offers, events and lists.
SPDX-License-Identifier: Apache-2.0
"""

from seeds.wire import CONSUMER_STREAM, CPU, CUDA, EVENT, PRODUCER_SYNCED, ROCM, handle


# handoff programs: (opcode, param) pairs; opcode low nibble the operation,
# high nibble the object; OFFER_ENCODED is followed by 16 wire bytes.
# I_NAMES: an odd parameter checks the names, an even one transfers the
# object's buffer into the list (HO-LIST-7).
(I_OFFER, I_OFFER_ENCODED, I_WITHDRAW, I_ACCEPT, I_EV_WAIT, I_REL_EV, I_ST_WAIT, I_ACCESS, I_RELEASE,
 I_DESTROY, I_INIT, I_TRANSITION, I_LIST_PUSH, I_LIST_BORROW, I_LIST_DESTROY, I_NAMES) = range(16)
DEV = {CPU: 0, CUDA: 1, ROCM: 2, 0xF3: 3}


def offer_param(mode, device, empty=False, fault=0):
    return mode | DEV[device] << 2 | (0x10 if empty else 0) | fault << 5


def program(*steps, obj=0):
    out = b""
    for st in steps:
        op, param = st[0], st[1]
        out += bytes([op | (st[2] if len(st) > 2 else obj) << 4, param]) + (st[3] if len(st) > 3 else b"")
    return out


def handoff_seeds():
    ps = offer_param(PRODUCER_SYNCED, CPU)
    ev = offer_param(EVENT, CUDA)
    cs = offer_param(CONSUMER_STREAM, ROCM)
    seeds = {
        "producer-synced-lifecycle": program((I_OFFER, ps), (I_ACCEPT, 0), (I_ACCESS, 0),
                                             (I_ACCESS, 2), (I_RELEASE, 0), (I_DESTROY, 0)),
        "event-lifecycle": program((I_OFFER, ev), (I_ACCEPT, 0), (I_ACCESS, 0), (I_EV_WAIT, 0),
                                   (I_EV_WAIT, 0), (I_ACCESS, 1), (I_RELEASE, 0), (I_REL_EV, 0),
                                   (I_REL_EV, 0), (I_RELEASE, 0), (I_DESTROY, 0)),
        "event-dropped-unread": program((I_OFFER, ev), (I_ACCEPT, 1 | 1 << 2), (I_REL_EV, 0),
                                        (I_ACCESS, 0), (I_RELEASE, 0), (I_RELEASE, 0)),
        "stream-lifecycle": program((I_OFFER, cs), (I_ACCEPT, 0), (I_ACCESS, 1), (I_ACCESS, 2),
                                    (I_ACCESS, 0), (I_ST_WAIT, 0), (I_ACCESS, 2), (I_RELEASE, 0),
                                    (I_ACCESS, 1), (I_DESTROY, 0), (I_ACCESS, 1), (I_INIT, 0),
                                    (I_OFFER, ps), (I_DESTROY, 0)),
        "rejected-then-withdrawn": program((I_OFFER, ev), (I_ACCEPT, 2), (I_ACCEPT, 1),
                                           (I_WITHDRAW, 0), (I_WITHDRAW, 0), (I_DESTROY, 0)),
        "ipc-stream-capability": program((I_OFFER, offer_param(CONSUMER_STREAM, CUDA)),
                                         (I_ACCEPT, 1 | 1 << 2), (I_ACCEPT, 1 | 2 << 2)),
        "three-objects": program((I_OFFER, ps, 0), (I_OFFER, ev, 1), (I_OFFER, cs, 2),
                                 (I_ACCEPT, 0, 1), (I_ACCEPT, 0, 2), (I_RELEASE, 0, 1),
                                 (I_DESTROY, 0, 0)),
        "offer-twice": program((I_OFFER, ps), (I_OFFER, ev)),
        "encoded-reserved-byte": program((I_OFFER_ENCODED, ps, 0, handle(4096, 4096, CPU, reserved=1)),
                                         (I_ACCEPT, 0)),
        "encoded-valid-private": program((I_OFFER_ENCODED, offer_param(PRODUCER_SYNCED, 0xF3), 0,
                                          handle(4096, 4096, 0xF3)), (I_ACCEPT, 0), (I_RELEASE, 0)),
        "encoded-undefined-sync": program((I_OFFER_ENCODED, ps, 0, handle(4096, 4096, CUDA, 7)),
                                          (I_ACCEPT, 0)),
        "null-release": program((I_OFFER, offer_param(PRODUCER_SYNCED, CUDA, True, 7)), (I_ACCEPT, 0)),
        "transitions": program(*[(I_TRANSITION, st | op << 4) for st in (0, 3, 7, 10, 11, 12, 15)
                                 for op in (0, 6, 10, 11, 12, 13, 15)]),
        "names": program(*[(I_NAMES, v) for v in (1, 5, 11, 13, 255)]),
        "transition-table-whole": program(*[(I_TRANSITION, st | op << 4) for st in range(16)
                                            for op in range(16)]),
        "transfer-to-list": program((I_OFFER, ps, 0), (I_ACCEPT, 0, 0), (I_NAMES, 0, 0),
                                    (I_OFFER, offer_param(EVENT, CPU), 1), (I_OFFER, ev, 2),
                                    (I_ACCEPT, 0, 2), (I_NAMES, 0, 2), (I_EV_WAIT, 0, 2),
                                    (I_REL_EV, 0, 2), (I_NAMES, 0, 2), (I_NAMES, 0, 2),
                                    (I_DESTROY, 0, 0), (I_INIT, 0, 0), (I_LIST_BORROW, 1),
                                    (I_LIST_DESTROY, 0), (I_INIT, 0, 0)),
        "transfer-stream-waited": program((I_OFFER, offer_param(CONSUMER_STREAM, CUDA)), (I_ACCEPT, 0),
                                          (I_NAMES, 0), (I_ST_WAIT, 0), (I_NAMES, 0), (I_RELEASE, 0)),
        "list": program((I_LIST_PUSH, offer_param(EVENT, CUDA)), (I_LIST_PUSH, offer_param(EVENT, CUDA, True)),
                        (I_LIST_PUSH, offer_param(EVENT, ROCM)), (I_LIST_PUSH, offer_param(EVENT, CUDA), 2),
                        (I_LIST_PUSH, offer_param(EVENT, CUDA, False, 6)),
                        (I_LIST_PUSH, offer_param(EVENT, CUDA, False, 7)),
                        (I_LIST_PUSH, offer_param(EVENT, CUDA), 1),
                        (I_LIST_BORROW, 0), (I_LIST_BORROW, 1), (I_LIST_BORROW, 9),
                        (I_LIST_DESTROY, 0), (I_LIST_BORROW, 0), (I_LIST_PUSH, offer_param(0, CPU))),
    }
    for mode, device in ((PRODUCER_SYNCED, CUDA), (EVENT, CUDA), (CONSUMER_STREAM, ROCM),
                         (PRODUCER_SYNCED, CPU), (EVENT, CPU), (EVENT, 0xF3)):
        for fault in range(8):
            seeds["fault-%d-mode-%d-dev-%02x" % (fault, mode, device)] = program(
                (I_OFFER, offer_param(mode, device, False, fault)), (I_ACCEPT, 0), (I_ACCEPT, 2))
    return seeds
