"""The BufferHandle wire bytes (BP-WIRE-1) and tables: the device tags,
memory classes and sync modes by name, the user's documents' examples
and one handle per reader rule; the seeds of handle_decode and table_decode.
SPDX-License-Identifier: Apache-2.0
"""
import struct


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
