#!/usr/bin/env python3
"""Writes the hand-made seed inputs of every fuzz target, fuzz/corpus/<target>/seed-*.

Every example of the user's documents (/work/shared/seeds: the BufferHandle
guide, its API reference and the Python examples) appears here as bytes, next
to one input per rule of specs/buffer-protocol.md that a reader enforces.
Campaigns (fuzz/run) add coverage-increasing inputs beside these and never
remove a seed-* file. Run again after editing: output is deterministic.
SPDX-License-Identifier: Apache-2.0
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

CPU, CUDA, ROCM, METAL, VULKAN, WEBGPU, HEXAGON, LEVEL_ZERO, OPENCL = range(9)
STANDARD, HOST_PINNED, UNIFIED, PEER = range(4)
PRODUCER_SYNCED, EVENT, CONSUMER_STREAM = range(3)


def handle(size, align, tag, sync=PRODUCER_SYNCED, mclass=STANDARD, reserved=0):
    """The 16 wire bytes of BP-WIRE-1."""
    return struct.pack("<QIBBBB", size, align, tag, sync, mclass, reserved)


def table(*handles, count=None):
    return bytes([len(handles) if count is None else count]) + b"".join(handles)


# The examples of the user's documents, as (name, handle bytes).
DOC_HANDLES = [
    # 000 (the guide)
    ("guide-cpu-1k-simd", handle(1024, 64, CPU)),
    ("guide-cuda-8k-page-event", handle(8192, 4096, CUDA, EVENT)),
    ("guide-empty-cpu", handle(0, 1, CPU)),
    ("guide-cuda-unified-8k", handle(8192, 4096, CUDA, PRODUCER_SYNCED, UNIFIED)),
    ("guide-cuda-pinned-4k-event", handle(4096, 4096, CUDA, EVENT, HOST_PINNED)),
    ("guide-private-f0-class-f1", handle(2048, 64, 0xF0, PRODUCER_SYNCED, 0xF1)),
    ("guide-private-f2", handle(4096, 64, 0xF2)),
    ("guide-align-63-not-power-of-two", handle(512, 63, CPU)),
    ("guide-align-32-below-minimum", handle(512, 32, CPU)),
    ("guide-empty-align-1", handle(0, 1, CPU)),
    ("guide-data-buffer", handle(1024, 64, CPU)),
    ("guide-scale-buffer", handle(16, 64, CPU)),
    ("guide-gpu-buf", handle(256, 4096, CUDA)),
    ("guide-cuda-standard-event", handle(4096, 4096, CUDA, EVENT)),
    ("guide-cuda-unified-event", handle(4096, 4096, CUDA, EVENT, UNIFIED)),
    ("guide-reserved-tag-09", handle(1024, 64, 0x09)),
    ("guide-invalid-tag-ff", handle(1024, 64, 0xFF)),
    ("guide-python-tensor-64", handle(64, 64, CPU)),
    # 003 (the API reference)
    ("api-cuda-unified-4k", handle(4096, 4096, CUDA, PRODUCER_SYNCED, UNIFIED)),
    ("api-empty-cuda", handle(0, 1, CUDA)),
    ("api-cpu-512", handle(512, 64, CPU)),
    ("api-cuda-512-event", handle(512, 64, CUDA, EVENT)),
    ("api-align-3", handle(512, 3, CPU)),
    ("api-cpu-event-invalid-sync", handle(512, 64, CPU, EVENT)),
    ("api-cpu-pinned-512", handle(512, 64, CPU, PRODUCER_SYNCED, HOST_PINNED)),
    ("api-cuda-4k-4k-event", handle(4096, 4096, CUDA, EVENT)),
    ("api-metal-256-event", handle(256, 64, METAL, EVENT)),
    ("api-cuda-consumer-stream", handle(1024, 64, CUDA, CONSUMER_STREAM)),
    ("api-cuda-1k", handle(1024, 64, CUDA)),
    ("api-cuda-unified-1k", handle(1024, 64, CUDA, PRODUCER_SYNCED, UNIFIED)),
    ("api-cpu-1-byte", handle(1, 64, CPU)),
]

# One input per reader rule (BP-ORDER-1 steps 1..8) and per corner of each.
RULE_HANDLES = [
    ("rule-reserved-byte", handle(64, 64, CPU, reserved=0x01)),
    ("rule-reserved-byte-ff-and-everything-wrong", handle(1, 3, 0xFF, 0xFF, 0xFF, 0xFF)),
    ("rule-tag-ef-reserved", handle(64, 64, 0xEF)),
    ("rule-tag-fe-private", handle(64, 64, 0xFE)),
    ("rule-sync-03", handle(64, 64, CUDA, 3)),
    ("rule-sync-ff", handle(64, 64, CUDA, 0xFF)),
    ("rule-class-04-reserved", handle(64, 64, CUDA, 0, 0x04)),
    ("rule-class-ef-reserved", handle(64, 64, CUDA, 0, 0xEF)),
    ("rule-class-ff-invalid", handle(64, 64, CUDA, 0, 0xFF)),
    ("rule-align-0", handle(0, 0, CPU)),
    ("rule-align-2-31", handle(1, 0x80000000, CUDA)),
    ("rule-align-max-u32", handle(1, 0xFFFFFFFF, CUDA)),
    ("rule-empty-align-2", handle(0, 2, ROCM)),
    ("rule-size-max-u64", handle(0xFFFFFFFFFFFFFFFF, 65536, VULKAN)),
    ("rule-cpu-consumer-stream", handle(64, 64, CPU, CONSUMER_STREAM)),
    ("rule-pair-cpu-peer", handle(64, 64, CPU, 0, PEER)),
    ("rule-pair-webgpu-pinned", handle(64, 64, WEBGPU, 0, HOST_PINNED)),
    ("rule-pair-cuda-private-class", handle(64, 64, CUDA, 0, 0xF0)),
    ("rule-pair-private-pinned", handle(64, 64, 0xF5, 0, HOST_PINNED)),
    ("rule-pair-private-private", handle(64, 64, 0xFE, EVENT, 0xFE)),
] + [
    ("pair-%s-class-%d" % (name, c), handle(4096, 4096, tag, EVENT if tag else 0, c))
    for tag, name in enumerate(
        ["cpu", "cuda", "rocm", "metal", "vulkan", "webgpu", "hexagon", "level_zero", "opencl"])
    for c in range(4)
]


def handle_decode_seeds():
    seeds = {}
    for name, h in DOC_HANDLES + RULE_HANDLES:
        seeds[name] = h
    # The trailing bytes: transport, IPC capabilities, host address, max alignment.
    extra = [
        ("xport-network-event", handle(8192, 4096, CUDA, EVENT) + bytes([2, 0])),
        ("xport-ipc-event-capable", handle(8192, 4096, CUDA, EVENT) + bytes([1, 1])),
        ("xport-ipc-stream-incapable", handle(1024, 64, CUDA, CONSUMER_STREAM) + bytes([1, 1])),
        ("xport-ipc-stream-capable", handle(1024, 64, CUDA, CONSUMER_STREAM) + bytes([1, 2])),
        ("xport-in-process-stream", handle(1024, 64, ROCM, CONSUMER_STREAM) + bytes([0, 0])),
        ("xport-unknown-transport", handle(1024, 64, CPU) + bytes([7, 0])),
        ("xport-undefined-mode", handle(1024, 64, CUDA, 9) + bytes([2, 0])),
        ("host-aligned-4096", handle(1024, 64, CPU) + bytes([0, 0])
         + struct.pack("<QI", 0x7F0000001000, 65536)),
        ("host-under-aligned-16", handle(1024, 64, CPU) + bytes([0, 0])
         + struct.pack("<QI", 0x7F0000000010, 4096)),
        ("host-null-empty", handle(0, 1, CPU) + bytes([0, 0]) + struct.pack("<QI", 0, 64)),
        ("host-max-not-power", handle(64, 64, CPU) + bytes([0, 0]) + struct.pack("<QI", 4096, 96)),
        ("short-input-7-bytes", handle(1024, 64, CPU)[:7]),
    ]
    seeds.update(extra)
    return seeds


def table_decode_seeds():
    d = dict(DOC_HANDLES)
    seeds = {
        "doc-colocated-data-and-scale": table(d["guide-data-buffer"], d["guide-scale-buffer"]),
        "doc-device-tag-mismatch": table(d["guide-data-buffer"], d["guide-gpu-buf"]),
        "doc-memory-class-mismatch": table(d["guide-cuda-standard-event"],
                                           d["guide-cuda-unified-event"]),
        "doc-private-tensor": table(d["guide-private-f0-class-f1"]),
        "doc-empty-tensor": table(d["guide-empty-cpu"]),
        "doc-cuda-quantized": table(handle(8192, 4096, CUDA, EVENT), handle(64, 4096, CUDA, EVENT),
                                    handle(0, 1, CUDA, PRODUCER_SYNCED)),
        "empty-input": b"",
        "count-zero": bytes([0]),
        "count-zero-then-bytes": bytes([0]) + handle(64, 64, CPU),
        "truncated-count-2-one-handle": table(handle(64, 64, CPU), count=2),
        "truncated-mid-handle": table(handle(64, 64, CPU))[:9],
        "trailing-bytes": table(handle(64, 64, CPU)) + b"\x00\x01",
        "second-handle-reserved-byte": table(handle(64, 64, CUDA), handle(64, 64, CUDA, reserved=7)),
        "second-handle-invalid-pair": table(handle(64, 64, WEBGPU), handle(64, 64, WEBGPU, 0, PEER)),
        "second-handle-cpu-event": table(handle(64, 64, CPU), handle(64, 64, CPU, EVENT)),
        "second-handle-bad-alignment": table(handle(64, 64, CUDA), handle(64, 48, CUDA)),
        "second-handle-below-minimum": table(handle(64, 64, CUDA), handle(64, 32, CUDA)),
        "mismatch-then-invalid": table(handle(64, 64, CUDA), handle(64, 64, ROCM),
                                       handle(64, 3, CUDA)),
        "class-mismatch-at-2": table(handle(64, 64, VULKAN), handle(0, 1, VULKAN),
                                     handle(64, 64, VULKAN, 0, UNIFIED)),
        "second-handle-undefined-sync": table(handle(64, 64, CUDA), handle(64, 64, CUDA, 3)),
        "second-handle-align-0": table(handle(64, 64, CUDA), handle(0, 0, CUDA)),
        "tag-mismatch-twice": table(handle(64, 64, CUDA), handle(64, 64, ROCM), handle(64, 64, ROCM)),
        "class-then-tag-mismatch": table(handle(64, 64, CUDA), handle(64, 64, CUDA, 0, UNIFIED),
                                         handle(64, 64, ROCM)),
        "max-255-handles": table(*[handle(64 * (i + 1), 64, LEVEL_ZERO, EVENT) for i in range(255)]),
        "max-255-last-mismatch": table(*([handle(64, 64, OPENCL)] * 254 + [handle(64, 64, METAL)])),
    }
    for name, h in DOC_HANDLES + RULE_HANDLES[:20]:
        seeds["single-" + name] = table(h)
    return seeds


def dlpack_seeds():
    seeds = {}
    for tag in list(range(9)) + [0xF0, 0x09, 0xFF]:
        for mclass in (0, 1, 2, 3, 0xF1):
            seeds["pair-%02x-%02x" % (tag, mclass)] = bytes([tag, mclass]) + struct.pack("<i", 0)
    for t in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, -1, 0x7FFFFFFF):
        seeds["type-%d" % t] = bytes([0, 0]) + struct.pack("<i", t)
    return seeds


def dlpack_import_tensor(mode=0, device=1, ndim=1, code=1, bits=8, lanes=1, misalign=0,
                         offset=0, big_offset=0, major=1, minor=0, flags=0, dims=(), strides=()):
    """One input of fuzz_dlpack_import.c (its header comment gives the layout)."""
    head = struct.pack("<BbbBBHHB", mode, device, ndim, code, bits, lanes, misalign, offset)
    head += struct.pack("<QBBQ", big_offset, major, minor, flags)
    body = b"".join(struct.pack("<H", d) for d in dims)
    body += b"".join(struct.pack("<H", st) for st in strides)
    return head + body


COMPACT = 0x4000  # a stride pair with bit 6 of its second byte: the compact stride
SPECIAL = 0x8000  # a pair with bit 7: special value (low byte % 6)


def dlpack_import_seeds():
    t = dlpack_import_tensor
    seeds = {
        "cpu-1d-4096": t(dims=(4096,)),
        "cpu-2d-float32": t(ndim=2, code=2, bits=32, dims=(16, 16)),
        "cpu-2d-strided-compact": t(mode=2, ndim=2, code=2, bits=32, dims=(16, 16),
                                    strides=(COMPACT, COMPACT)),
        "cpu-2d-strided-transposed": t(mode=2, ndim=2, bits=8, dims=(8, 8), strides=(1, 8)),
        "cpu-extent-one-any-stride": t(mode=2, ndim=2, dims=(1, 64), strides=(999, COMPACT)),
        "cpu-empty-null-data": t(mode=4, dims=(0,)),
        "cpu-scalar": t(ndim=0, code=2, bits=64),
        "cpu-misaligned": t(misalign=8, dims=(64,)),
        "cpu-offset-64": t(offset=64, dims=(64,)),
        "cpu-offset-huge": t(offset=255, big_offset=0xFFFFFFFFFFFFFFF0, dims=(64,)),
        "cpu-null-data": t(mode=4, dims=(64,)),
        "cpu-no-deleter": t(mode=8, dims=(64,)),
        "cpu-bits-4": t(bits=4, dims=(64,)),
        "cpu-bits-4-lanes-2": t(bits=4, lanes=2, dims=(64,)),
        "cpu-lanes-0": t(lanes=0, dims=(64,)),
        "cpu-ndim-64": t(ndim=64, dims=(1,) * 64),
        "cpu-ndim-65": t(ndim=65, dims=(1,) * 65),
        "cpu-ndim-negative": t(ndim=-1),
        "cpu-extent-negative": t(dims=(SPECIAL | 2,)),
        "cpu-count-overflow": t(ndim=3, dims=(SPECIAL | 4, SPECIAL | 4, 16)),
        "cpu-size-overflow": t(code=2, bits=64, dims=(SPECIAL | 4,)),
        "cuda": t(device=2, dims=(256,)),
        "cuda-host": t(device=3, dims=(256,)),
        "cuda-managed": t(device=13, dims=(256,)),
        "rocm": t(device=10, dims=(256,)),
        "opencl-object-handle": t(device=4, dims=(256,)),
        "vulkan-object-handle": t(device=7, dims=(256,)),
        "unknown-device": t(device=99, dims=(256,)),
        "versioned-1-0": t(mode=1, dims=(128,), flags=1),
        "versioned-1-3-all-flags": t(mode=1, minor=3, dims=(128,), flags=0xFFFFFFFFFFFFFFFF),
        "versioned-major-2": t(mode=1, major=2, dims=(128,)),
        "versioned-major-0": t(mode=1, major=0, dims=(128,)),
    }
    return seeds


def error_format_seeds():
    seeds = {}
    for status in range(35):
        for value, expected in ((0x09, 0x01), (0xF2, 0x00), (4081, 17)):
            seeds["status-%02d-%x" % (status, value)] = (
                bytes([status, 64]) + struct.pack("<QQQ", value, expected, 3))
    seeds["detail-dlerror"] = (bytes([23, 255]) + struct.pack("<QQQ", 0, 0, 0)
                               + b"/usr/lib/hurray/hurray-plugin-cuda.so: cannot open shared object")
    seeds["detail-cap-0"] = bytes([28, 0]) + struct.pack("<QQQ", 0, 0, 0) + b"libcuda.so.1"
    seeds["detail-cap-1"] = bytes([13, 1]) + struct.pack("<QQQ", 5, 17, 0)
    seeds["detail-long"] = bytes([30, 200]) + struct.pack("<QQQ", 2**64 - 1, 0, 0) + b"x" * 300
    return seeds


def hex_text(data, per_line=16, comment=None):
    lines = [] if comment is None else ["# " + comment]
    for i in range(0, len(data), per_line):
        lines.append(" ".join("%02x" % b for b in data[i:i + per_line]))
    return ("\n".join(lines) + "\n").encode()


# cli_input flags byte: bit 0 hex text, bit 1 --handle, bits 2..7 a capacity.
RAW_TABLE, HEX_TABLE, RAW_HANDLE, HEX_HANDLE = 0x00 | 63 << 2, 0x01 | 40 << 2, 0x02 | 8 << 2, 0x03


def cli_input_seeds():
    seeds = {}
    for name, data in table_decode_seeds().items():
        if len(data) > 600:
            continue
        seeds["raw-table-" + name] = bytes([RAW_TABLE]) + data
        seeds["hex-table-" + name] = bytes([HEX_TABLE]) + hex_text(data, comment=name)
    for name, h in DOC_HANDLES:
        seeds["raw-handle-" + name] = bytes([RAW_HANDLE]) + h
        seeds["hex-handle-" + name] = bytes([HEX_HANDLE]) + hex_text(h, per_line=4)
    d = dict(DOC_HANDLES)
    seeds.update({
        "hex-handle-upper-case": bytes([HEX_HANDLE]) + d["guide-cpu-1k-simd"].hex().upper().encode(),
        "hex-handle-split-digits": bytes([HEX_HANDLE]) + b" ".join(
            bytes([c]) for c in d["api-cuda-1k"].hex().encode()),
        "hex-handle-short": bytes([HEX_HANDLE]) + b"0004000000000000",
        "hex-handle-trailing": bytes([HEX_HANDLE]) + (d["api-cpu-512"] + b"\x00").hex().encode(),
        "hex-bad-0x-prefix": bytes([HEX_TABLE]) + b"0x01",
        "hex-bad-character-line-3": bytes([HEX_TABLE]) + b"01\n# ok\n  zz\n",
        "hex-odd-digits": bytes([HEX_TABLE]) + b"01 0",
        "hex-only-comment": bytes([HEX_TABLE]) + b"# nothing here\n",
        "hex-empty": bytes([HEX_TABLE]),
        "hex-crlf-tabs-vt-ff": bytes([HEX_TABLE]) + b"01\r\n\t0004\v00\f000000000040000000000000\r\n",
        "hex-comment-without-newline": bytes([HEX_TABLE]) + b"00 # the end",
        "hex-cr-only-lines": bytes([HEX_TABLE]) + b"01\r0004\r0000\r zz",
        "hex-cr-ends-comment": bytes([HEX_TABLE]) + b"# count\r01 # one handle\r00" + b"0" * 29,
        "hex-mixed-line-ends": bytes([HEX_TABLE]) + b"0\n1\r0\r\n4\r\r0",
        "raw-name-bidi-and-c1": bytes([RAW_TABLE]) + "a\u202eb\u0085c\u200bd\\e\x1b[0m".encode(),
        "raw-empty-table": bytes([RAW_TABLE]),
        "raw-empty-handle": bytes([RAW_HANDLE]),
        "raw-json-escapes-private": bytes([RAW_TABLE]) + table(handle(64, 64, 0xF2, 0, 0xF3)),
        "raw-cap-0": bytes([0]) + table(handle(64, 64, 0x09)),
        "raw-cap-1": bytes([4]) + table(handle(64, 64, 0xFF)),
        "utf8-mixed": bytes([RAW_TABLE]) + "é€😀".encode() + b"\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82",
        "control-characters": bytes([RAW_TABLE]) + bytes(range(0, 0x21)) + b'"\\/\x7f',
    })
    return seeds


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


# plugin_table: host-version XOR (4 bytes), mode, tag, name length, version
# length, name, version, then the table as a 64-bit plugin holds it.
ABI_1_0 = 1 << 16


def plugin_table(struct_size=152, abi=ABI_1_0, name=0x1000, version=0x2000, tag=0xF0, reserved=b"\0" * 7,
                 required=(0x3000,) * 8, optional=(0,) * 7):
    body = struct.pack("<IIQQB", struct_size, abi, name, version, tag) + reserved
    body += b"".join(struct.pack("<Q", p) for p in tuple(required) + tuple(optional))
    return body


def plugin_input(table_bytes, name=b"example-private", version=b"1.0.0", host_xor=0, device=False, tag=0):
    return (struct.pack("<I", host_xor) + bytes([1 if device else 0, tag, len(name), len(version)])
            + name + version + table_bytes)


def device_info(ipc=0, name=b"pthread-skylake", reserved=0, classes=((0, 1, 4096),), count=None):
    out = struct.pack("<II", 0, ipc) + name.ljust(64, b"\0")[:64] + struct.pack("<QII", 1 << 30,
                      len(classes) if count is None else count, reserved)
    for mclass, flags, align in list(classes) + [(0, 0, 0)] * (8 - len(classes)):
        out += struct.pack("<B3sII", mclass, b"\0\0\0", flags, align)
    return struct.pack("<I", len(out)) + out[4:]


def plugin_table_seeds():
    events = (0x4000,) * 4
    seeds = {
        "valid-1-0": plugin_input(plugin_table()),
        "valid-with-events": plugin_input(plugin_table(optional=(0x5000,) + events + (0, 0x6000))),
        "valid-minimum-size": plugin_input(plugin_table(struct_size=96)[:96]),
        "valid-larger-than-host": plugin_input(plugin_table(struct_size=240) + b"\0" * 88),
        # ABI 1.1 event IPC (PL-IPC-10): the 1.1 table of 200 bytes, with all
        # three entries; one missing; all three without events.
        "valid-event-ipc": plugin_input(plugin_table(struct_size=200, abi=ABI_1_0 | 1,
                                                     optional=(0x5000,) + events + (0, 0x6000, 0x7000)
                                                     + (0x8000,) * 2 + (0x9000,) * 3)),
        "event-ipc-partial": plugin_input(plugin_table(struct_size=200, abi=ABI_1_0 | 1,
                                                       optional=(0x5000,) + events + (0,) * 5
                                                       + (0x9000, 0, 0x9000))),
        "event-ipc-without-events": plugin_input(plugin_table(struct_size=200, abi=ABI_1_0 | 1,
                                                              optional=(0,) * 10 + (0x9000,) * 3)),
        # PL-NEG-4, PL-TABLE-8: struct_size ending 4 bytes into
        # unavailable_reason (at 96) and into native_event (at 152).
        "partial-optional-entry": plugin_input(plugin_table(struct_size=100,
                                                            optional=(0x5000,) + events + (0, 0x6000))),
        "partial-native-event": plugin_input(plugin_table(struct_size=156, abi=ABI_1_0 | 1,
                                                          optional=(0x5000,) + events + (0, 0x6000, 0x7000)
                                                          + (0x8000,) * 2 + (0x9000,) * 3)),
        "valid-newer-minor": plugin_input(plugin_table(abi=ABI_1_0 | 7)),
        "host-2-0": plugin_input(plugin_table(), host_xor=(2 << 16) ^ ABI_1_0),
        "truncated-header": plugin_input(b"\x98\0\0\0\0\0"),
        "abi-major-2": plugin_input(plugin_table(abi=2 << 16)),
        "struct-size-too-small": plugin_input(plugin_table(struct_size=95)),
        "truncated-table": plugin_input(plugin_table()[:120]),
        "tag-reserved": plugin_input(plugin_table(tag=0x09)),
        "tag-invalid": plugin_input(plugin_table(tag=0xFF)),
        "tag-cuda": plugin_input(plugin_table(tag=0x01), name=b"cuda"),
        "reserved-byte-3": plugin_input(plugin_table(reserved=b"\0\0\0\x01\0\0\0")),
        "name-null": plugin_input(plugin_table(name=0)),
        "version-null": plugin_input(plugin_table(version=0)),
        "copy-to-host-null": plugin_input(plugin_table(required=(0x3000,) * 7 + (0,))),
        "init-null": plugin_input(plugin_table(required=(0,) + (0x3000,) * 7)),
        "events-partial": plugin_input(plugin_table(optional=(0, 0x4000, 0x4000, 0, 0x4000, 0, 0))),
        "stream-wait-without-events": plugin_input(plugin_table(optional=(0,) * 6 + (0x6000,))),
        "name-upper-case": plugin_input(plugin_table(), name=b"Example"),
        "name-empty": plugin_input(plugin_table(), name=b""),
        "name-32-bytes": plugin_input(plugin_table(), name=b"a" * 32),
        "version-with-space": plugin_input(plugin_table(), version=b"1.0 beta"),
        "version-31-bytes": plugin_input(plugin_table(), version=b"9" * 31),
        "device-cpu-classes": plugin_input(device_info(classes=((0, 1, 4096), (1, 1, 4096), (2, 1, 64))),
                                           device=True, tag=0),
        "device-cuda-peer-ipc": plugin_input(device_info(ipc=1, classes=((0, 0, 65536), (3, 0, 4096))),
                                             device=True, tag=1),
        "device-bad-pair": plugin_input(device_info(classes=((3, 1, 4096),)), device=True, tag=0),
        "device-duplicate-class": plugin_input(device_info(classes=((0, 1, 4096), (0, 1, 4096))),
                                               device=True, tag=0),
        "device-no-classes": plugin_input(device_info(classes=(), count=0), device=True, tag=0),
        "device-nine-classes": plugin_input(device_info(count=9), device=True, tag=0),
        "device-align-32": plugin_input(device_info(classes=((0, 1, 32),)), device=True, tag=0),
        "device-unknown-flag": plugin_input(device_info(classes=((0, 2, 4096),)), device=True, tag=0),
        "device-unknown-ipc": plugin_input(device_info(ipc=4), device=True, tag=0),
        "device-name-unterminated": plugin_input(device_info(name=b"x" * 64), device=True, tag=0),
        "device-private-class": plugin_input(device_info(classes=((0xF1, 0, 4096),)), device=True, tag=0xF0),
    }
    return seeds


def net_message_seeds():
    """Control messages of the network transport (specs/network.md NET-MSG-*)."""
    def header(mtype, body, magic=0x314E5248, version=1, fds=0, reserved=0):
        return struct.pack("<IHHIHH", magic, version, mtype, len(body), fds, reserved) + body

    def tensor(tensor_id, tbl):
        return header(1, struct.pack("<Q", tensor_id) + tbl)

    seeds = {}
    seeds["tensor-1"] = tensor(1, table(handle(4096, 64, CPU)))
    seeds["tensor-3"] = tensor(7, table(handle(1 << 20, 64, CPU), handle(4096, 4096, CPU),
                                        handle(0, 1, CPU)))
    seeds["tensor-event"] = tensor(2, table(handle(4096, 64, CUDA, EVENT)))
    seeds["tensor-empty-table"] = tensor(3, table())
    seeds["tensor-trailing"] = tensor(4, table(handle(4096, 64, CPU)) + b"\0")
    seeds["refuse"] = header(2, struct.pack("<IIQQQ", 15, 1, 2 << 20, 3 << 19, 9))
    seeds["refuse-status-0"] = header(2, struct.pack("<IIQQQ", 0, 0, 0, 0, 9))
    seeds["bad-magic"] = tensor(1, table(handle(4096, 64, CPU)))[:3] + b"X" + \
        tensor(1, table(handle(4096, 64, CPU)))[4:]
    seeds["ipc-magic"] = header(1, struct.pack("<Q", 1) + table(handle(4096, 64, CPU)),
                                magic=0x31495248)
    seeds["unknown-type"] = header(9, b"")
    seeds["fd-count"] = header(1, struct.pack("<Q", 1) + table(handle(4096, 64, CPU)), fds=1)
    seeds["short"] = tensor(1, table(handle(4096, 64, CPU)))[:10]
    return seeds


GENERATORS = {
    "handle_decode": handle_decode_seeds,
    "table_decode": table_decode_seeds,
    "dlpack": dlpack_seeds,
    "dlpack_import": dlpack_import_seeds,
    "error_format": error_format_seeds,
    "cli_input": cli_input_seeds,
    "handoff": handoff_seeds,
    "plugin_table": plugin_table_seeds,
    "net_message": net_message_seeds,
}


def write(target, seeds):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.startswith("seed-"):
            os.remove(os.path.join(folder, old))
    for name, data in seeds.items():
        with open(os.path.join(folder, "seed-" + name), "wb") as f:
            f.write(data)


def main():
    for target, generate in GENERATORS.items():
        write(target, generate())
        os.makedirs(os.path.join(HERE, "regressions", target), exist_ok=True)


if __name__ == "__main__":
    main()
