"""IPC (specs/ipc.md): one message per type and rule (ipc_message), and the
scripted endpoints, fault records and rounds of ipc_api.
SPDX-License-Identifier: Apache-2.0
"""
import struct

from seeds.wire import CONSUMER_STREAM, CPU, CUDA, EVENT, handle, table


# ipc_message: a descriptor count byte, then one IPC message (specs/ipc.md):
# one accepted message of every type, the largest OFFER (253 buffers, 8121
# bytes, past libFuzzer's default input limit), and one input per rule of
# IPC-MSG-5..14 a reader enforces, so that the replay reaches every check.
IPC_MAGIC = 0x31495248


def ipc(mtype, body, fds=0, nfd=None, magic=IPC_MAGIC, version=1, reserved=0, size=None):
    head = struct.pack("<IHHIHH", magic, version, mtype, len(body) if size is None else size,
                       fds if nfd is None else nfd, reserved)
    return bytes([fds]) + head + body


def ipc_offer(handles, kinds, offer_id=7, offsets=None, reserved=0):
    body = struct.pack("<Q", offer_id) + table(*handles)
    for i, kind in enumerate(kinds):
        body += struct.pack("<QII", 4096 * i if offsets is None else offsets[i], kind, reserved)
    return body


def ipc_device(kind=1, handle_size=0, index=0, segment=8192, reserved=0):
    return (struct.pack("<QIIQII", 7, index, kind, segment, handle_size, reserved)
            + bytes(range(16)) + bytes(range(16, 32)) + bytes([0xAB]) * 64)


def ipc_event(kind=2, handle_size=64, index=0, zero=0, reserved=0):
    return (struct.pack("<QIIQII", 7, index, kind, zero, handle_size, reserved)
            + b"\0" * 32 + bytes([0xCD]) * 64)


def ipc_message_seeds():
    cpu = handle(4096, 4096, CPU)
    cuda = handle(4096, 4096, CUDA)
    cuda_event = handle(4096, 4096, CUDA, EVENT)
    seeds = {
        "hello": ipc(1, struct.pack("<IIII", 1234, 0, 253, 0)),
        "hello-zero-buffers": ipc(1, struct.pack("<IIII", 1, 0, 0, 0)),
        "hello-254-buffers": ipc(1, struct.pack("<IIII", 1, 0, 254, 0)),
        "hello-reserved": ipc(1, struct.pack("<IIII", 1, 0, 8, 1)),
        "refuse": ipc(2, struct.pack("<IIQ", 1, 0, 1000)),
        "refuse-reason-0": ipc(2, struct.pack("<IIQ", 0, 0, 0)),
        "refuse-reserved": ipc(2, struct.pack("<IIQ", 2, 5, 0)),
        "release": ipc(4, struct.pack("<QII", 7, 0, 0)),
        "release-reserved": ipc(4, struct.pack("<QII", 7, 0, 1)),
        "reject": ipc(5, struct.pack("<QIIQQ", 7, 15, 0, 1, 2)),
        "reject-status-0": ipc(5, struct.pack("<QIIQQ", 7, 0, 0, 1, 2)),
        "offer-one-host": ipc(3, ipc_offer([cpu], [1]), fds=1),
        "offer-three-host": ipc(3, ipc_offer([cpu] * 3, [1] * 3), fds=3),
        "offer-device": ipc(3, ipc_offer([cuda, cuda], [2, 2])),
        "offer-event": ipc(3, ipc_offer([cuda_event], [2])),
        "offer-253": ipc(3, ipc_offer([cpu] * 253, [1] * 253), fds=253),
        "offer-254": ipc(3, ipc_offer([cpu] * 254, [1] * 254), fds=253),
        "offer-empty": ipc(3, struct.pack("<Q", 7) + b"\0"),
        "offer-short-body": ipc(3, b"\0" * 8),
        "offer-size-mismatch": ipc(3, ipc_offer([cpu], [1]) + b"\0", fds=1),
        "offer-kind-0": ipc(3, ipc_offer([cpu], [0])),
        "offer-kind-3": ipc(3, ipc_offer([cpu], [3])),
        "offer-segment-reserved": ipc(3, ipc_offer([cpu], [1], reserved=1), fds=1),
        "offer-fd-count": ipc(3, ipc_offer([cpu, cpu], [1, 1]), fds=1),
        "offer-colocation": ipc(3, ipc_offer([cpu, cuda], [1, 2]), fds=1),
        "offer-bad-handle": ipc(3, ipc_offer([handle(4096, 63, CPU)], [1]), fds=1),
        "device-fd": ipc(6, ipc_device(), fds=1),
        "device-handle": ipc(6, ipc_device(kind=2, handle_size=64)),
        "device-handle-1": ipc(6, ipc_device(kind=2, handle_size=1)),
        "device-index-253": ipc(6, ipc_device(index=253), fds=1),
        "device-kind-3": ipc(6, ipc_device(kind=3)),
        "device-segment-0": ipc(6, ipc_device(segment=0), fds=1),
        "device-fd-handle-size": ipc(6, ipc_device(handle_size=4), fds=1),
        "device-handle-65": ipc(6, ipc_device(kind=2, handle_size=65)),
        "device-handle-with-fd": ipc(6, ipc_device(kind=2, handle_size=8), fds=1),
        "device-reserved": ipc(6, ipc_device(reserved=1), fds=1),
        "event": ipc(7, ipc_event()),
        "event-kind-1": ipc(7, ipc_event(kind=1)),
        "event-value": ipc(7, ipc_event(zero=5)),
        "event-handle-0": ipc(7, ipc_event(handle_size=0)),
        "event-index-253": ipc(7, ipc_event(index=253)),
        "event-reserved": ipc(7, ipc_event(reserved=2)),
        "event-with-fd": ipc(7, ipc_event(), fds=1),
        "short-header": bytes([0]) + struct.pack("<IHH", IPC_MAGIC, 1, 1),
        "bad-magic": ipc(1, struct.pack("<IIII", 1, 0, 8, 0), magic=0x314E5248),
        "version-2": ipc(1, struct.pack("<IIII", 1, 0, 8, 0), version=2),
        "header-reserved": ipc(1, struct.pack("<IIII", 1, 0, 8, 0), reserved=1),
        "type-0": ipc(0, b""),
        "type-8": ipc(8, b""),
        "length-mismatch": ipc(1, struct.pack("<IIII", 1, 0, 8, 0), size=20),
        "fds-mismatch": ipc(1, struct.pack("<IIII", 1, 0, 8, 0), fds=1, nfd=0),
        "hello-with-fd": ipc(1, struct.pack("<IIII", 1, 0, 8, 0), fds=1),
        "hello-body-12": ipc(1, struct.pack("<III", 1, 0, 8)),
        "oversize": ipc(3, ipc_offer([cpu] * 253, [1] * 253) + b"\0" * 64, fds=253),
    }
    return seeds


# ipc_api: byte 0 sets the scene, then records [op][u16 length][bytes]
# (fuzz/fuzz_ipc_api.c): op 0/1 the scripted consumer sends to the real
# producer (with 0/1 descriptors), 2 the scripted producer sends to the real
# consumer (descriptors: (op >> 3) % 3), 3 offer again, 4 retire, 5 drain,
# 6 receive, 7 a device round between two real endpoints; 7 | 0x80 a fault
# record (fuzz/ipc_faults.h): [call, calls passed first, errno pick] for the
# next record's library calls, the same and a round (ipc_fault_round) of its
# own, or nothing: the misuse round.
def ipc_record(op, message=b""):
    return bytes([op]) + struct.pack("<H", len(message)) + message


# fuzz/ipc_faults.h's calls and errno picks, by name.
IPC_FAULT_CALLS = ("socket", "bind", "listen", "accept4", "connect", "poll", "getsockopt",
                   "sendmsg", "recvmsg", "mmap", "memfd_create", "ftruncate", "fcntl",
                   "mprotect", "fstat", "calloc")
IPC_FAULT_ERRNOS = ("EAGAIN", "EINTR", "EIO", "ENOMEM", "EMFILE", "EPIPE", "ECONNRESET",
                    "EINVAL", "EACCES", "ENOBUFS")


def ipc_fault(call, skip=0, errno="EIO", round_=None):
    body = bytes([IPC_FAULT_CALLS.index(call), skip, IPC_FAULT_ERRNOS.index(errno)])
    return ipc_record(7 | 0x80, body if round_ is None else body + bytes([round_]))


# A seed per call: the three rounds (segment, listen, transfer and its
# variants) with the fault at each of its first calls, and errnos the
# library tells apart (EINTR retried, EAGAIN a timeout, EPIPE a hang-up).
def ipc_fault_seeds():
    seeds = {}
    for call in IPC_FAULT_CALLS:
        records = b""
        for round_ in (0, 1, 1 | 4, 1 | 8, 2, 2 | 4, 2 | 8):
            for skip in range(8):
                records += ipc_fault(call, skip, "EIO", round_)
            for errno in ("EINTR", "EAGAIN", "EPIPE"):
                records += ipc_fault(call, 0, errno, round_)
        seeds["fault-" + call.replace("_", "-")] = b"\x00" + records
    return seeds


def ipc_api_seeds():
    def msg(mtype, body, nfd=0):
        return ipc(mtype, body, fds=nfd)[1:]
    cpu = handle(4096, 4096, CPU)
    cuda = handle(4096, 4096, CUDA)
    release_0 = msg(4, struct.pack("<QII", 1, 0, 0))
    release_1 = msg(4, struct.pack("<QII", 1, 1, 0))
    reject = msg(5, struct.pack("<QIIQQ", 1, 15, 0, 1, 2))
    host_offer = msg(3, ipc_offer([cpu], [1], offer_id=9), nfd=1)
    device_handle = msg(6, ipc_device(kind=2, handle_size=64))
    device_fd = msg(6, ipc_device(kind=1), nfd=1)
    device_offer = msg(3, ipc_offer([cuda], [2], offer_id=7))
    event = msg(7, ipc_event())
    event_offer = msg(3, ipc_offer([handle(4096, 4096, CUDA, EVENT)], [2], offer_id=7))
    return {
        "releases": b"\x00" + ipc_record(0, release_0) + ipc_record(0, release_1) + ipc_record(4)
        + ipc_record(5),
        "reject-and-offer-again": b"\x00" + ipc_record(0, reject) + ipc_record(3) + ipc_record(0, release_1),
        "consumer-hangs-up-holding": b"\x00" + ipc_record(3) + ipc_record(4),
        "host-offer-received": b"\x00" + ipc_record(2 | 8, host_offer) + ipc_record(2 | 0x80 | 8, host_offer),
        "device-rounds": b"\x08" + ipc_record(7, b"\x00") + ipc_record(7, b"\x01")
        + ipc_record(7, b"\x02") + ipc_record(7, b"\x04") + ipc_record(7, b"\x08"),
        "device-handle-import": b"\x08" + ipc_record(2, device_handle) + ipc_record(2, device_offer),
        "device-fd-import": b"\x08" + ipc_record(2 | 8, device_fd) + ipc_record(2, device_offer),
        "device-event-import": b"\x08" + ipc_record(2, device_handle) + ipc_record(2, event)
        + ipc_record(2, event_offer),
        "device-without-plugins": b"\x00" + ipc_record(2, device_handle) + ipc_record(2, device_offer),
        "device-offer-mismatch": b"\x08" + ipc_record(2, device_handle)
        + ipc_record(2, msg(3, ipc_offer([cuda], [2], offer_id=8))),
        "handshake-refuse": b"\x01" + ipc_record(0, msg(2, struct.pack("<IIQ", 1, 0, 1000))),
        "handshake-offer": b"\x01" + ipc_record(0, host_offer),
        "handshake-garbage": b"\x01" + ipc_record(0, b"HRI1garbage"),
        "handshake-nothing": b"\x01" + ipc_record(0),
        "consumer-refuses-uid": b"\x02",
        "producer-refuses-uid": b"\x04" + ipc_record(2, host_offer),
        "consumer-options-small": b"\x10",
        "unsealed-segment": b"\x20" + ipc_record(0, release_0),
        "oversize-to-producer": b"\x00" + ipc_record(0, b"HRI1" + b"\x01\x00\x03\x00" + b"\xff" * 9000),
        "oversize-to-consumer": b"\x00" + ipc_record(2, msg(3, ipc_offer([cpu] * 253, [1] * 253))
                                                     + b"\0" * 100),
        "endpoints-abstract": b"\x40",
        "endpoints-path-disconnect": b"\xc1",
        # The library calls of the next record fail (fuzz/ipc_faults.h):
        # offers the consumer's socket does not take (IPC-FLOW-1) and that
        # fail, receives and releases under failed calls.
        "fault-offer": b"\x00" + ipc_fault("sendmsg", 0, "EAGAIN") + ipc_record(3)
        + ipc_record(3) + ipc_fault("calloc") + ipc_record(3)
        + ipc_fault("sendmsg", 0, "EPIPE") + ipc_record(3),
        "fault-offer-io": b"\x00" + ipc_fault("sendmsg", 0, "EIO") + ipc_record(3) + ipc_record(3),
        "fault-receive": b"\x00" + ipc_fault("poll") + ipc_record(6)
        + ipc_fault("recvmsg", 0, "EINTR") + ipc_record(2 | 8, host_offer)
        + ipc_fault("recvmsg", 0, "EIO") + ipc_record(2 | 8, host_offer)
        + ipc_fault("calloc") + ipc_record(2 | 8, host_offer)
        + ipc_fault("fstat") + ipc_record(2 | 8, host_offer)
        + ipc_fault("mmap", 0, "ENOMEM") + ipc_record(2 | 8, host_offer)
        + ipc_fault("sendmsg", 0, "EPIPE") + ipc_record(2 | 8 | 0x80, host_offer)
        + ipc_record(2 | 8 | 0x80, host_offer),
        "fault-producer-poll": b"\x00" + ipc_fault("calloc") + ipc_record(0, release_0)
        + ipc_fault("poll", 0, "EINTR") + ipc_record(0, release_1)
        + ipc_fault("poll", 0, "ENOMEM") + ipc_record(0)
        + ipc_fault("recvmsg", 0, "EIO") + ipc_record(0),
        "fault-device-offer": b"\x08" + ipc_fault("sendmsg", 1, "EIO") + ipc_record(7, b"\x00")
        + ipc_fault("sendmsg", 2, "EAGAIN") + ipc_record(7, b"\x00")
        + ipc_fault("sendmsg", 0, "EPIPE") + ipc_record(7, b"\x01")
        + ipc_fault("calloc", 1) + ipc_record(7, b"\x00") + ipc_record(7, b"\x08"),
        "offer-stream": b"\x00" + ipc_record(2 | 8, msg(3, ipc_offer(
            [handle(4096, 4096, CPU, CONSUMER_STREAM)], [1], offer_id=9), nfd=1)),
        "misuse": b"\x00" + ipc_record(7 | 0x80),
        **ipc_fault_seeds(),
    }
