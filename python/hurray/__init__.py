"""hurray: the Hurray buffer protocol (Layer 1) from Python, over libhurray.

Every rule about handles, devices, memory classes, tables and handoffs is
libhurray's (specs/buffer-protocol.md, specs/handoff.md); the rules of this
binding are in specs/python.md (PY-...). Guide: docs/python.md.
"""

import contextlib as _contextlib

from hurray import _native
from hurray._native import (  # noqa: F401  (re-exported)
    C_ABI_VERSION,
    MIN_BUFFER_ALIGNMENT,
    PAGE_ALIGNMENT,
    BufferHandle,
    ColocationError,
    CopyRequiredError,
    Device,
    DType,
    HandleError,
    HandoffError,
    HurrayError,
    NotReadableError,
    TableError,
    UnsupportedError,
    decode_table,
    encode_table,
    from_hurray,
    alignment_of,
)
from hurray._native import (  # noqa: F401  element types
    bfloat16,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

bool = getattr(_native, "bool")  # noqa: A001  (the element type, as the seed spells it)

#: Largest alignment from_numpy declares for memory it shares (PY-ALIGN-1):
#: a page. Beyond it no consumer gains anything, and a declaration stays
#: honest about what the producer meant rather than what the allocator gave.
MAX_DECLARED_ALIGNMENT = PAGE_ALIGNMENT

_DTYPES = {d.name: d for d in (bool, int8, int16, int32, int64, uint8, uint16, uint32,
                               uint64, float16, bfloat16, float32, float64)}


class Tensor(_native.TensorBase):
    """Tensor(data, dtype, shape, *, device=None): a tensor of one buffer.

    data is any C-contiguous bytes-like object holding exactly
    prod(shape) * dtype.itemsize bytes; it is copied into aligned memory
    (64 bytes, or a page from 4096 bytes on) and the alignment declared is
    measured from that address (PY-ALIGN-1). device (a Device, tag or name)
    declares where the bytes belong; the binding never moves bytes between
    devices. Every tensor the binding constructs is producer_synced (there
    is no sync_mode= keyword: PY-SYNC-1).
    """

    __slots__ = ()

    def __repr__(self):
        return (f"hurray.Tensor(dtype={self.dtype.name}, shape={list(self.shape)}, "
                f"device={self.device!r}, buffers={len(self.buffer_handles)})")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def numpy(self):
        """A read-only NumPy array over buffer 0 (zero copy). Refuses as buffer(0) does."""
        import numpy as np
        view = self.buffer(0)
        return np.frombuffer(view, dtype=_numpy_dtype(self.dtype)).reshape(self.shape)

    def __array__(self, dtype=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def to_torch(self):
        """A torch.Tensor sharing buffer 0 through DLPack (PY-DLPACK-1)."""
        from_dlpack = _TORCH_FROM_DLPACK or _torch_from_dlpack()
        if self.device.kind == "cpu":
            # No stream to agree on for host memory: the capsule itself, so
            # PyTorch skips its device and stream exchange with the object.
            return from_dlpack(self.__dlpack__())
        return from_dlpack(self)


_native._set_tensor_class(Tensor)


def _numpy_dtype(dtype):
    import numpy as np
    if dtype is bfloat16:
        raise UnsupportedError("NumPy has no bfloat16; use to_torch() or buffer(0)")
    return np.dtype(dtype.name)


_NUMPY_TO_HURRAY = {}   # numpy.dtype -> element type, filled on first use

# numpy.ndarray and torch.utils.dlpack.from_dlpack, imported on first use:
# importing the package imports neither NumPy nor PyTorch, and an import
# statement on every call cost more than the zero-copy path itself (about
# 1.5 us for `import torch.utils.dlpack` in to_torch(), issue 40).
_NDARRAY = None
_TORCH_FROM_DLPACK = None


def _ndarray():
    global _NDARRAY
    if _NDARRAY is None:
        import numpy
        _NDARRAY = numpy.ndarray
    return _NDARRAY


def _torch_from_dlpack():
    global _TORCH_FROM_DLPACK
    if _TORCH_FROM_DLPACK is None:
        import torch.utils.dlpack
        _TORCH_FROM_DLPACK = torch.utils.dlpack.from_dlpack
    return _TORCH_FROM_DLPACK


def _from_numpy_dtype(np_dtype):
    dtype = _NUMPY_TO_HURRAY.get(np_dtype)
    if dtype is not None:
        return dtype
    if np_dtype.hasobject:
        raise TypeError(f"array of dtype {np_dtype} holds Python objects, not bytes; "
                        "Hurray carries numbers only")
    name = "bool" if np_dtype.kind == "b" else np_dtype.name
    if not np_dtype.isnative or name not in _DTYPES:
        raise TypeError(f"array dtype {np_dtype} has no Hurray element type "
                        "(native-endian bool, int8..int64, uint8..uint64, float16, "
                        "float32, float64)")
    _NUMPY_TO_HURRAY[np_dtype] = _DTYPES[name]
    return _DTYPES[name]


def from_numpy(array, copy=None):
    """A CPU tensor over a NumPy array's bytes (PY-ALIGN-1..3).

    copy=None: shared when the address is at least 64-byte aligned, with the
    alignment measured from it (capped at MAX_DECLARED_ALIGNMENT), copied
    into aligned memory otherwise. copy=False: shared or CopyRequiredError
    naming the measured alignment. copy=True: always copied. A non-contiguous
    array is copied (CopyRequiredError under copy=False); a read-only one is
    shared like any other (the binding's views are read-only anyway); object
    and non-native dtypes raise TypeError.
    """
    if not isinstance(array, _NDARRAY or _ndarray()):
        raise TypeError(f"from_numpy needs a numpy.ndarray, not {type(array).__name__}")
    if copy not in (None, True, False):
        raise TypeError(f"copy must be None, True or False, not {copy!r}")
    dtype = _from_numpy_dtype(array.dtype)
    if not array.flags.c_contiguous:
        if copy is False:
            raise CopyRequiredError(
                f"array of shape {array.shape} with strides {array.strides} is not "
                "C-contiguous; copy=False forbids the copy that would make it so")
        import numpy as np
        array = np.ascontiguousarray(array)
        copy = True
    return _native._from_host(array, dtype, array.shape, copy, MAX_DECLARED_ALIGNMENT)


def from_dlpack(obj, copy=None):
    """A tensor over a DLPack producer's buffer (PY-DLPACK-2).

    obj: anything with __dlpack__ (a NumPy array, a torch.Tensor, a hurray
    Tensor) or a 'dltensor' / 'dltensor_versioned' capsule. copy as in
    from_numpy: None shares when libhurray accepts the tensor as it is
    (compact row-major, address at least 64-byte aligned) and copies a host
    tensor otherwise; False refuses the copy (CopyRequiredError); True always
    copies. The producer's deleter runs exactly once, when the last tensor
    sharing the bytes is gone.
    """
    if copy not in (None, True, False):
        raise TypeError(f"copy must be None, True or False, not {copy!r}")
    if type(obj).__name__ == "PyCapsule":
        capsule = obj
    elif hasattr(obj, "__dlpack__"):
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))
        except TypeError:       # a DLPack 0.x producer (NumPy 1.24, PyTorch 1.13)
            capsule = obj.__dlpack__()
    else:
        raise TypeError(f"from_dlpack needs an object with __dlpack__() or a DLPack capsule, "
                        f"not {type(obj).__name__}")
    return _native._from_dlpack_capsule(capsule, copy, MAX_DECLARED_ALIGNMENT)


def from_torch(tensor, copy=None):
    """A tensor over a torch.Tensor's storage through DLPack (PY-DLPACK-3).

    A non-contiguous tensor is made contiguous first (a copy; refused with
    CopyRequiredError under copy=False); a tensor that requires grad is
    detached (the bytes are the same).
    """
    import torch
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"from_torch needs a torch.Tensor, not {type(tensor).__name__}")
    if tensor.requires_grad:
        tensor = tensor.detach()
    if not tensor.is_contiguous():
        if copy is False:
            raise CopyRequiredError(
                f"tensor of shape {tuple(tensor.shape)} with strides {tensor.stride()} is not "
                "contiguous; copy=False forbids the copy that would make it so")
        tensor = tensor.contiguous()
    return from_dlpack(tensor, copy)


def asarray(obj, copy=None):
    """A hurray Tensor from whatever `obj` is: a Tensor (itself, or a copy for
    copy=True), an object with __hurray__, a NumPy array, a torch.Tensor, an
    object with __dlpack__, or a bytes-like object (1-D uint8). `copy` as in
    from_numpy."""
    if isinstance(obj, Tensor):
        if copy is True:
            return Tensor(obj.buffer(0), obj.dtype, obj.shape, device=obj.device)
        return obj
    if hasattr(obj, "__hurray__"):
        if copy is True:
            return asarray(from_hurray(obj), copy=True)
        return from_hurray(obj)
    import numpy as np
    if isinstance(obj, np.ndarray):
        return from_numpy(obj, copy)
    torch = __import__("sys").modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return from_torch(obj, copy)
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj, copy)
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError(f"asarray cannot make a tensor of {type(obj).__name__}") from None
    return from_numpy(np.frombuffer(view.cast("B"), dtype=np.uint8), copy)


@_contextlib.contextmanager
def aligned_allocator(alignment=MIN_BUFFER_ALIGNMENT):
    """Inside the block, NumPy allocates array data on `alignment` (NEP 49).

    The handler is stored in each array, so arrays outlive the block and are
    freed through the matching deallocator; the policy is NumPy's context
    variable, so it is local to this thread and context, nests, is restored
    on the way out even when the block raises, and is not inherited by
    threads started inside (PY-ALLOC-1..4).
    """
    from hurray import _allocator
    previous = _allocator.install(alignment)
    try:
        yield
    finally:
        _allocator.restore(previous)


def allocator_stats(alignment=MIN_BUFFER_ALIGNMENT):
    """(allocations, frees) made through aligned_allocator(alignment) so far."""
    from hurray import _allocator
    return _allocator.stats(alignment)


__all__ = [
    "MIN_BUFFER_ALIGNMENT", "PAGE_ALIGNMENT", "MAX_DECLARED_ALIGNMENT", "C_ABI_VERSION",
    "BufferHandle", "Device", "DType", "Tensor",
    "HurrayError", "HandleError", "ColocationError", "TableError", "HandoffError",
    "CopyRequiredError", "NotReadableError", "UnsupportedError",
    "decode_table", "encode_table", "from_hurray", "from_numpy", "from_dlpack", "from_torch", "asarray", "alignment_of",
    "aligned_allocator", "allocator_stats",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
]
