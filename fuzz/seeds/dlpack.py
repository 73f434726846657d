"""DLPack: the (tag, class) pairs and type codes of the dlpack target, the
tensors of dlpack_import and the round trips of dlpack_pair.
SPDX-License-Identifier: Apache-2.0
"""
import struct

from seeds.wire import CPU, CUDA, VULKAN


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


# dlpack_pair: mode, tag, class, byte_size (u16), data offset, dtype (code,
# bits, lanes), ndim, device_id, flags, then extent and stride per dimension
# (fuzz/fuzz_dlpack_pair.c). Bit 7 of the mode imports the tensor back.
def dlpack_pair(mode, tag, mclass, size, dims=(), dtype=(1, 8, 1), offset=0, device_id=0, flags=0,
                strides=None):
    out = bytes([mode, tag, mclass]) + struct.pack("<H", size) + bytes([offset]) + bytes(dtype)
    out += bytes([len(dims) & 0xFF, device_id, flags])
    for i, e in enumerate(dims):
        out += bytes([e, 0 if strides is None else strides[i]])
    return out


def dlpack_pair_seeds():
    back = 0x80
    return {
        "cpu-buffer-default-layout": dlpack_pair(0x04 | back, CPU, 0, 4096),
        "cpu-buffer-2d-f32": dlpack_pair(back, CPU, 0, 4096, dims=(32, 32), dtype=(2, 32, 1)),
        "cpu-buffer-versioned-read-only": dlpack_pair(0x01 | back, CPU, 0, 256, dims=(16, 16),
                                                      flags=1),
        "cpu-handoff-3d": dlpack_pair(0x02 | back, CPU, 0, 240, dims=(2, 3, 40)),
        "cpu-handoff-versioned": dlpack_pair(0x03 | back, CPU, 0, 64, dims=(64,), flags=2),
        "cuda-device": dlpack_pair(0x04 | back, CUDA, 0, 4096),
        "cuda-pinned": dlpack_pair(0x04 | back, CUDA, 1, 4096),
        "cuda-managed-versioned": dlpack_pair(0x05 | back, CUDA, 2, 4096),
        "cuda-event-waited": dlpack_pair(0x02 | 0x20 | 0x40 | 0x04 | back, CUDA, 0, 4096),
        "cuda-event-pending": dlpack_pair(0x02 | 0x20 | 0x04, CUDA, 0, 4096),
        "vulkan-object-handle": dlpack_pair(0x04 | back, VULKAN, 0, 4096),
        "cuda-peer-unmapped": dlpack_pair(0x04, CUDA, 3, 4096),
        "strided": dlpack_pair(0x08 | back, CPU, 0, 4096, dims=(4, 4), strides=(64, 1)),
        "strided-past-end": dlpack_pair(0x08, CPU, 0, 64, dims=(4, 4), strides=(64, 1)),
        "negative-stride": dlpack_pair(0x08, CPU, 0, 64, dims=(4,), strides=(0xFE,)),
        "empty-extent": dlpack_pair(back, CPU, 0, 0, dims=(0, 5)),
        "overflowing-extent": dlpack_pair(0, CPU, 0, 64, dims=(0xFF, 0xFF, 0xFF)),
        "size-mismatch": dlpack_pair(0, CPU, 0, 100, dims=(99,)),
        "bad-dtype": dlpack_pair(0, CPU, 0, 64, dims=(64,), dtype=(0, 3, 1)),
        "ndim-65": dlpack_pair(0, CPU, 0, 64, dims=(1,) * 65),
        "ndim-negative": bytes([0, 0, 0, 64, 0, 0, 1, 8, 1, 0xFF, 0, 0]),
        "small-struct-size": dlpack_pair(0x10, CPU, 0, 64, dims=(64,)),
        "bad-flags": dlpack_pair(0x01, CPU, 0, 64, dims=(64,), flags=0x80),
        "misaligned-data-back": dlpack_pair(0x04 | back, CPU, 0, 64, offset=1),
        "private-tag": dlpack_pair(0x04, 0xF3, 0, 4096),
    }
