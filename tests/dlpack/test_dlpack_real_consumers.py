#!/usr/bin/python3
"""The C API of include/hurray/dlpack.h against real DLPack consumers and
producers: NumPy 1.24 and PyTorch 1.13, reached through ctypes (this is a
check of the C ABI, BP-DLPACK-3; the Python package is tested elsewhere).

- export (BP-DLPACK-5, -6): a Hurray buffer exported as a DLManagedTensor
  and taken by numpy.from_dlpack and torch.utils.dlpack.from_dlpack without
  a copy (same data pointer, writes visible), the producer's release called
  exactly once, when the consumer's array is collected;
- import (BP-DLPACK-9..13): NumPy's and PyTorch's DLPack capsules imported
  into a handoff, the alignment measured from the address, accepted with the
  consumer's data pointer, and the producer's deleter called exactly once on
  release (NumPy's drops the reference it holds on the array: counted).

Usage: test_dlpack_real_consumers.py PATH/TO/libhurray.so
Exit 77 (meson: skipped) when NumPy or PyTorch is not installed.
"""
import ctypes
import gc
import sys

try:
    import numpy
    import torch
    import torch.utils.dlpack
except ImportError as missing:  # the interpreter lacks the consumers
    print(f"SKIP: {missing} (run with Debian's /usr/bin/python3 with python3-numpy, python3-torch)")
    sys.exit(77)

c = ctypes
lib = c.CDLL(sys.argv[1])

HURRAY_OK = 0
ALIGNMENT_BELOW_MINIMUM = 2


class DLDevice(c.Structure):
    _fields_ = [("device_type", c.c_int32), ("device_id", c.c_int32)]


class DLDataType(c.Structure):
    _fields_ = [("code", c.c_uint8), ("bits", c.c_uint8), ("lanes", c.c_uint16)]


class DLTensor(c.Structure):
    _fields_ = [("data", c.c_void_p), ("device", DLDevice), ("ndim", c.c_int32),
                ("dtype", DLDataType), ("shape", c.POINTER(c.c_int64)),
                ("strides", c.POINTER(c.c_int64)), ("byte_offset", c.c_uint64)]


class DLManagedTensor(c.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c.c_void_p), ("deleter", c.c_void_p)]


class BufferHandle(c.Structure):
    _fields_ = [("byte_size", c.c_uint64), ("alignment", c.c_uint32), ("device_tag", c.c_uint8),
                ("sync_mode", c.c_uint8), ("memory_class", c.c_uint8), ("reserved", c.c_uint8)]


class HurrayError(c.Structure):
    _fields_ = [("status", c.c_uint32), ("reserved", c.c_uint32), ("value", c.c_uint64), ("expected", c.c_uint64),
                ("index", c.c_size_t), ("detail", c.c_char * 192)]


class Layout(c.Structure):
    _fields_ = [("struct_size", c.c_uint32), ("dtype", DLDataType), ("ndim", c.c_int32),
                ("device_id", c.c_int32), ("shape", c.POINTER(c.c_int64)),
                ("strides", c.POINTER(c.c_int64))]


class AcceptedBuffer(c.Structure):
    _fields_ = [("struct_size", c.c_uint32), ("flags", c.c_uint32), ("handle", BufferHandle),
                ("data", c.c_void_p), ("event", c.c_void_p), ("stream", c.c_void_p),
                ("event_kind", c.c_uint32), ("reserved", c.c_uint32)]


Handoff = c.c_uint64 * 32  # HURRAY_HANDOFF_STORAGE_SIZE (256) bytes
RELEASE = c.CFUNCTYPE(None, c.c_void_p, c.c_void_p)

lib.hurray_buffer_handle_for_host_memory.argtypes = [c.c_void_p, c.c_uint64, c.c_uint32,
                                                      c.POINTER(BufferHandle),
                                                      c.POINTER(HurrayError)]
lib.hurray_dlpack_export_buffer.argtypes = [c.POINTER(BufferHandle), c.c_void_p, RELEASE,
                                            c.c_void_p, c.POINTER(Layout),
                                            c.POINTER(c.POINTER(DLManagedTensor)),
                                            c.POINTER(HurrayError)]
lib.hurray_dlpack_import.argtypes = [c.POINTER(Handoff), c.c_void_p, c.POINTER(HurrayError)]
lib.hurray_handoff_init.argtypes = [c.POINTER(Handoff)]
lib.hurray_handoff_init.restype = None
lib.hurray_handoff_accept.argtypes = [c.POINTER(Handoff), c.c_int, c.c_uint32,
                                      c.POINTER(AcceptedBuffer), c.POINTER(HurrayError)]
lib.hurray_handoff_release.argtypes = [c.POINTER(Handoff), c.POINTER(HurrayError)]
lib.hurray_handoff_destroy.argtypes = [c.POINTER(Handoff), c.POINTER(HurrayError)]
lib.hurray_error_format.argtypes = [c.POINTER(HurrayError), c.c_char_p, c.c_size_t]
lib.hurray_error_format.restype = c.c_size_t
lib.hurray_alignment_of.argtypes = [c.c_void_p]
lib.hurray_alignment_of.restype = c.c_uint32

capsule_new = c.pythonapi.PyCapsule_New
capsule_new.argtypes = [c.c_void_p, c.c_char_p, c.c_void_p]
capsule_new.restype = c.py_object
capsule_pointer = c.pythonapi.PyCapsule_GetPointer
capsule_pointer.argtypes = [c.py_object, c.c_char_p]
capsule_pointer.restype = c.c_void_p
capsule_set_name = c.pythonapi.PyCapsule_SetName
capsule_set_name.argtypes = [c.py_object, c.c_char_p]
capsule_set_name.restype = c.c_int

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def message(err):
    buf = c.create_string_buffer(512)
    lib.hurray_error_format(c.byref(err), buf, 512)
    return buf.value.decode()


# ------------------------------------------------------------------ export
raw = c.create_string_buffer(4096 * 3)
address = (c.addressof(raw) + 4095) // 4096 * 4096  # 4096-aligned, inside raw
releases = []


@RELEASE
def count_release(buffer, ctx):
    releases.append(buffer)


def export_floats(rows, cols):
    handle = BufferHandle()
    err = HurrayError()
    status = lib.hurray_buffer_handle_for_host_memory(address, rows * cols * 4, 4096,
                                                      c.byref(handle), c.byref(err))
    assert status == HURRAY_OK, message(err)
    shape = (c.c_int64 * 2)(rows, cols)
    layout = Layout(c.sizeof(Layout), DLDataType(2, 32, 1), 2, 0, shape, None)
    out = c.POINTER(DLManagedTensor)()
    status = lib.hurray_dlpack_export_buffer(c.byref(handle), address, count_release, None,
                                             c.byref(layout), c.byref(out), c.byref(err))
    assert status == HURRAY_OK, message(err)
    return capsule_new(c.cast(out, c.c_void_p), b"dltensor", None)


class Exported:
    """What numpy.from_dlpack needs: __dlpack__ and __dlpack_device__."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


c.memset(address, 0, 4096)
array = numpy.from_dlpack(Exported(export_floats(16, 64)))
check(array.shape == (16, 64) and array.dtype == numpy.float32, f"numpy array {array.shape}")
check(array.ctypes.data == address, "numpy: zero copy (same data pointer)")
# NumPy 1.24 marks DLPack imports read-only; the producer's writes show through.
c.c_float.from_address(address + (3 * 64 + 5) * 4).value = 2.5
check(array[3, 5] == 2.5, "numpy: the producer's bytes, not a copy")
check(releases == [], "numpy: no release while the array lives")
del array
gc.collect()
check(releases == [address], f"numpy: exactly one release after collection: {releases}")

releases.clear()
tensor = torch.utils.dlpack.from_dlpack(export_floats(8, 128))
check(tuple(tensor.shape) == (8, 128) and tensor.dtype == torch.float32, "torch tensor shape")
check(tensor.data_ptr() == address, "torch: zero copy (same data pointer)")
tensor[1, 2] = 7.0
check(c.c_float.from_address(address + (128 + 2) * 4).value == 7.0, "torch: writes visible")
view = tensor[2:]  # a second reference to the same storage
del tensor
gc.collect()
check(releases == [], "torch: no release while a view lives")
del view
gc.collect()
check(releases == [address], f"torch: exactly one release after the last view: {releases}")

# ------------------------------------------------------------------ import


def import_capsule(capsule, expect_data):
    """Imports a DLPack capsule into a handoff, accepts, releases; returns
    the accepted handle, or the error when the import refuses."""
    pointer = capsule_pointer(capsule, b"dltensor")
    handoff = Handoff()
    lib.hurray_handoff_init(c.byref(handoff))
    err = HurrayError()
    status = lib.hurray_dlpack_import(c.byref(handoff), pointer, c.byref(err))
    if status != HURRAY_OK:
        lib.hurray_handoff_destroy(c.byref(handoff), None)
        return None, err  # not taken: the capsule still deletes it
    capsule_set_name(capsule, b"used_dltensor")  # the handoff owns it now (DLPack's rule)
    accepted = AcceptedBuffer(struct_size=c.sizeof(AcceptedBuffer))  # HO-ABI-9
    status = lib.hurray_handoff_accept(c.byref(handoff), 0, 0, c.byref(accepted), c.byref(err))
    check(status == HURRAY_OK, f"accept: {message(err)}")
    check(accepted.data == expect_data, "import: the consumer sees the producer's pointer")
    check(lib.hurray_handoff_release(c.byref(handoff), None) == HURRAY_OK, "release")
    check(lib.hurray_handoff_release(c.byref(handoff), None) != HURRAY_OK, "second release")
    check(lib.hurray_handoff_destroy(c.byref(handoff), None) == HURRAY_OK, "destroy")
    return accepted.handle, None


backing = numpy.zeros(4096 + 64, dtype=numpy.uint8)
start = (-backing.ctypes.data) % 64
aligned = backing[start:start + 4096].view(numpy.float32)  # 1024 floats, 64-byte aligned
before = sys.getrefcount(aligned)
capsule = aligned.__dlpack__()
check(sys.getrefcount(aligned) == before + 1, "numpy's capsule holds one reference")
handle, err = import_capsule(capsule, aligned.ctypes.data)
check(err is None, f"numpy import: {err and message(err)}")
if handle is not None:
    check(handle.byte_size == 4096, f"numpy import: byte_size {handle.byte_size}")
    check(handle.alignment == lib.hurray_alignment_of(aligned.ctypes.data) and
          handle.alignment >= 64, f"numpy import: measured alignment {handle.alignment}")
    check(handle.device_tag == 0 and handle.memory_class == 0, "numpy import: cpu standard")
del capsule
gc.collect()
check(sys.getrefcount(aligned) == before, "numpy's deleter ran exactly once (reference dropped)")

under = backing[start + 4:start + 4 + 4000].view(numpy.float32)  # 4-byte aligned
before = sys.getrefcount(under)
capsule = under.__dlpack__()
handle, err = import_capsule(capsule, under.ctypes.data)
check(handle is None and err.status == ALIGNMENT_BELOW_MINIMUM and err.value == 4,
      f"under-aligned numpy import refused with the measured alignment: {err and message(err)}")
check(sys.getrefcount(under) == before + 1, "refused import: the deleter was not called")
del capsule  # the capsule's own destructor deletes it
gc.collect()
check(sys.getrefcount(under) == before, "refused import: the capsule deleted it, once")

source = torch.arange(4096, dtype=torch.float32)
capsule = torch.utils.dlpack.to_dlpack(source)
handle, err = import_capsule(capsule, source.data_ptr())
if source.data_ptr() % 64 == 0:
    check(err is None, f"torch import: {err and message(err)}")
    if handle is not None:
        check(handle.byte_size == 4096 * 4, "torch import: byte_size")
        check(handle.alignment == lib.hurray_alignment_of(source.data_ptr()),
              "torch import: measured alignment")
else:
    check(err is not None and err.status == ALIGNMENT_BELOW_MINIMUM, "torch: under-aligned")
del capsule
gc.collect()
check(float(source[4095]) == 4095.0, "torch tensor intact after the handoff's release")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("DLPack C ABI: NumPy", numpy.__version__, "and PyTorch", torch.__version__,
      "both directions, zero copy, releases counted")
