"""Plugins: the tables a plugin hands the host (plugin_table) and the host
with a scripted plugin and its faults (plugin_host).
SPDX-License-Identifier: Apache-2.0
"""
import struct


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


# plugin_host: the table (struct_size pick, optional entries XOR all ones,
# faults, tag), then one stream read in turn by the harness (operations and
# their arguments) and by the plugin (each answer: 0 is a correct one). The
# seeds below give the plugin's answers explicitly where it reads them, so
# that each one loads and reaches the accept paths (fuzz/fuzz_plugin_host.c).
def host_header(tag, size_pick=0, optional_off=0, faults=0):
    return bytes([size_pick]) + struct.pack("<H", optional_off) + bytes([faults, tag])


def host_load(devices=(6,), how=2):
    """init answers OK (libm as its runtime), count_devices says len(devices),
    each description built from byte v (classes, max_alignment 64 << v % 15)."""
    out = bytes([0, how]) + bytes([0, len(devices) - 1])
    for v in devices:
        out += bytes([0, v, 0])
    return out


ALLOC_OK = bytes([0, 0, 0, 0])  # answer OK, heap or host choice, value byte, no mutation


def host_allocate(size=10, align_shift=6, mclass=0, flags=0, answer=ALLOC_OK):
    return bytes([0, 0, size, align_shift, mclass, flags]) + answer


def plugin_host_seeds():
    cpu_ops = (host_allocate()                                   # 131 bytes at 64
               + bytes([4, 0]) + struct.pack("<HH", 3, 100) + b"\0"  # write, plugin OK
               + bytes([5, 0]) + struct.pack("<HH", 0, 131) + b"\0"  # read
               + bytes([4, 0]) + struct.pack("<HH", 100, 100)       # write out of range
               + bytes([6, 0])                                       # export: not exportable
               + host_allocate(size=40, align_shift=12, flags=1)     # exportable, memfd
               + bytes([6, 1, 0, 0])                                 # export it: an FD
               + bytes([3, 0]) + bytes([3, 0])                       # release twice
               + bytes([13, 1, 0]) + bytes([13, 2])                  # describe, outstanding
               + bytes([17]) + bytes([14])                           # registry, load again
               + bytes([15]))                                        # unload
    seeds = {
        "cpu-allocate-copy-export-release": host_header(0) + host_load() + cpu_ops,
        "cpu-misaligned-address": host_header(0) + host_load()
        + host_allocate(answer=bytes([0, 0, 0, 16, 1])),
        "cpu-alignment-claim": host_header(0) + host_load()
        + host_allocate(answer=bytes([0, 0, 0, 11])),
        "allocate-fails-undefined-status": host_header(0) + host_load()
        + host_allocate(answer=bytes([3, 7])),
        "allocate-fails-silently": host_header(0) + host_load() + host_allocate(answer=bytes([2, 29])),
        "allocate-fails-unterminated": host_header(0) + host_load()
        + host_allocate(answer=bytes([2 | 8, 29])),
        "request-refused": host_header(0) + host_load()
        + bytes([0, 1, 10, 6, 0, 0]) + bytes([0, 0, 0xFE, 6, 0, 0]) + bytes([0, 0, 10, 3, 0, 0])
        + bytes([0, 0, 10, 0xF1, 0, 0]) + bytes([0, 0, 10, 20, 0, 0]) + bytes([0, 0, 10, 6, 2, 0])
        + bytes([0, 0, 10, 6, 0, 2]),
        "cuda-events": host_header(1) + host_load(devices=(0x86,))
        + bytes([7, 0, 0, 0])            # event, flags 0: create_event OK
        + bytes([8, 0, 0, 0]) + bytes([8, 0, 1, 0]) + bytes([8, 0, 2, 0])  # record, wait, stream wait
        + bytes([9, 0, 0, 0])            # native: OK
        + bytes([10, 0])                 # export: not exportable
        + bytes([7, 0, 1, 0])            # exportable event: create_event_flags
        + bytes([10, 1, 0, 5])           # export it
        + bytes([11, 0, 0, 0])           # import an event record
        + bytes([11, 0, 2]) + bytes([11, 0, 4])  # tag mismatch, handle size
        + bytes([12, 0]) + bytes([12, 1]) + bytes([12, 2]),
        "cuda-import": host_header(1) + host_load(devices=(0x86,))
        + bytes([2, 0, 0, 4, 0, 0]) + ALLOC_OK   # import kind FD (no descriptor): heap
        + bytes([2, 0, 1, 4, 0, 0]) + ALLOC_OK   # import kind HANDLE
        + bytes([2, 0, 0x40, 4, 0, 0]) + ALLOC_OK   # import kind FD: a memfd the plugin maps
        + bytes([2, 0, 0x40 | 0x20, 4, 0, 0])       # a memfd too small: IPC_BAD_SEGMENT
        + bytes([2, 0, 0x40 | 0x80, 4, 0, 0])       # no regular file
        + bytes([2, 0, 0x40 | 0x10, 4, 0, 0])       # offset not a page
        + bytes([2, 0, 2 * 2, 4, 0, 0])          # reserved byte
        + bytes([4, 0]) + struct.pack("<HH", 0, 64) + b"\0"
        + bytes([3, 0]) + bytes([3, 1]),
        "private-unload-with-live-buffer": host_header(0xF3) + host_load()
        + host_allocate() + bytes([7, 0, 0, 0]) + bytes([15]) + bytes([4, 0]) + struct.pack("<HH", 0, 8)
        + b"\0" + bytes([3, 0]) + bytes([12, 0]),
        "no-devices-reason": host_header(2) + bytes([0, 1, 0, 0xF0]) + bytes([13, 0, 1]) + b"\0" * 8
        + bytes([13, 0, 0]) + b"\0" * 8 + bytes([13, 0, 2]) + b"\0" * 8,
        "abi-1-0-table": host_header(0xF4, size_pick=1) + host_load() + bytes([9, 0]) + bytes([13, 3, 0]),
        "partial-entry-table": host_header(0xF4, size_pick=4 + 8 * 3) + host_load(),
        "declines": host_header(0, faults=1),
        "init-fails": host_header(0) + bytes([2 | 4, 30]),
        "count-257": host_header(0) + bytes([0, 2, 0, 0xFE]),
        "describe-invalid": host_header(0) + bytes([0, 2, 0, 0, 0, 6, 17]),
        "events-claim-without-export": host_header(1, optional_off=1 << 11) + bytes([0, 2, 0, 0, 0, 6, 23]),
        "careless-caller": host_header(0) + host_load() + host_allocate() + bytes([18, 0, 18, 1, 18, 2]),
        "careless-caller-events": host_header(1) + host_load(devices=(0x86,)) + host_allocate()
        + bytes([7, 0, 0, 0]) + bytes([18, 0, 18, 1]),
        "files-paths": host_header(0) + host_load() + bytes([16, 0, 0, 0, 16, 0, 1, 0, 16, 0, 3, 0,
                                                            16, 0, 6, 0, 16, 1, 7, 40, 16, 2, 0,
                                                            16, 2, 3, 16, 3]),
    }
    seeds.update(plugin_host_fault_seeds())
    return seeds


# The loader's files and faults (fuzz/hostile_loader.c), after a load: op 16
# (files) with a first byte from 0xE0: bits 0-1 the scenario (0, 1: a file;
# 2: a linked load; 3: a discovery), bits 2-3 the quiet plugin's table
# (well formed, declines, another major, too short), bit 4 well formed.
LOADER_FILES = ("self", "data", "borrowed", "foreign", "foreign-dir")
LOADER_FAULTS = ("none", "calloc", "stat", "dlopen", "dlsym", "dlinfo", "dladdr1")
# op_under_fault (op byte 0xF0 + 0 allocate, 1 import, 2 export, 3 create
# an event, 4 import one): the call that fails, from fuzz/fault_seam.h, and
# the errno (ENOMEM or EMFILE).
SHARED_FAULTS = ("mmap", "memfd_create", "ftruncate", "fcntl", "fstat", "calloc", "malloc")


def fault_byte(kinds, kind, skip, extra=0):
    """The first byte b with b % len(kinds) == kind, (b >> 4) % 4 == skip and
    the bits of `extra` set."""
    for b in range(256):
        if b % len(kinds) == kinds.index(kind) and (b >> 4) % 4 == skip and b & extra == extra:
            return b
    raise ValueError((kind, skip, extra))


def loader_op(scenario, variant=0, well_formed=True):
    return bytes([16, 0xE0 | scenario | variant << 2 | (0x10 if well_formed else 0)])


def plugin_host_fault_seeds():
    loaded = host_header(0) + host_load()
    seeds = {}
    for i, name in enumerate(LOADER_FILES):
        seeds["loader-file-" + name] = loaded + loader_op(0) + bytes([i, 0]) \
            + loader_op(1) + bytes([i | 0x80, 0])
    for variant in (1, 2, 3):
        seeds["loader-file-table-%d" % variant] = loaded + loader_op(0, variant, False) + bytes([0, 0])
    for fault in LOADER_FAULTS[1:]:
        ops = b""
        for skip in range(4):
            ops += loader_op(0) + bytes([0, fault_byte(LOADER_FAULTS, fault, skip)])
        seeds["loader-fault-" + fault] = loaded + ops
    seeds["loader-fault-stat-foreign-dir"] = loaded + b"".join(
        loader_op(0) + bytes([4, fault_byte(LOADER_FAULTS, "stat", skip)]) for skip in range(4))
    seeds["loader-linked-long-names"] = loaded + loader_op(2, 1, False) + bytes([0, 0, 10]) \
        + loader_op(2, 2, False) + bytes([0, 255, 199]) + loader_op(2, 3, False) + bytes([0, 200, 30]) \
        + loader_op(2) + bytes([0, 5, 5]) + loader_op(2) + bytes([0x10, 5, 5]) \
        + loader_op(2) + bytes([0x30, 250, 150]) + loader_op(2, 1, False) + bytes([0, 120, 100])
    seeds["loader-discover"] = loaded + loader_op(3) + bytes([0]) + loader_op(3, 1, False) + bytes([0]) \
        + loader_op(3) + bytes([4]) + loader_op(3) + bytes([6]) + loader_op(3) + bytes([4 | 8]) \
        + loader_op(3) + bytes([4 | 16]) + loader_op(3) + bytes([1]) + loader_op(3) + bytes([3]) \
        + loader_op(3) + bytes([1 | 30])
    shared = host_allocate(size=40, align_shift=12, flags=1)
    for fault in SHARED_FAULTS:
        memory = b""
        cuda = b""
        for skip in range(4):
            for extra in (0, 8):
                how = fault_byte(SHARED_FAULTS, fault, skip, extra)
                memory += bytes([0xF0, how]) + shared[1:]                     # allocate
                memory += shared + bytes([0xF2, how, 0, 0, 0])                # export
                memory += bytes([3, 0, 3, 1, 3, 2])
                # a CUDA device imports (a memfd the plugin maps) and has events
                cuda += bytes([0xF1, how, 0, 0x48, 4, 0, 0]) + ALLOC_OK + bytes([3, 0])
                cuda += bytes([0xF3, how, 0, 0, 0]) + bytes([0xF4, how, 0, 0, 0])
                cuda += bytes([12, 0, 12, 1])
        seeds["shared-fault-" + fault] = host_header(0) + host_load() + memory
        seeds["cuda-fault-" + fault] = host_header(1) + host_load(devices=(0x86,)) + cuda
    # Tokens no allocation made, and a thread whose record cache cannot be
    # allocated (fuzz/hostile_misuse.c, first byte from 0xF0).
    seeds["careless-caller-forged"] = loaded + host_allocate() + bytes([18, 0xF0, 18, 0xF5])
    # An export that says FD and gives none (fuzz/hostile_memory.c, mutation 9).
    seeds["export-fd-missing"] = host_header(1) + host_load(devices=(0x86,)) + shared \
        + bytes([6, 0, 0, 18])
    return seeds
