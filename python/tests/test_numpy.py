"""from_numpy: alignment measured, copies only when needed (PY-ALIGN-1..3)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hurray


def aligned_array(nbytes, offset, alignment=4096):
    """A uint8 array whose address is `offset` bytes past an `alignment` boundary."""
    raw = np.zeros(nbytes + offset + alignment, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment + offset
    return raw[start:start + nbytes]


@pytest.mark.parametrize("offset,declared", [(0, 4096), (64, 64), (128, 128), (2048, 2048)])
def test_shares_when_aligned_and_declares_the_measured_alignment(offset, declared):
    array = aligned_array(8192, offset)
    tensor = hurray.from_numpy(array, copy=False)
    assert tensor.data_ptr(0) == array.ctypes.data
    assert tensor.buffer_handles[0].alignment == declared


@pytest.mark.parametrize("offset", [1, 2, 4, 8, 16, 32])
def test_copies_when_under_aligned(offset):
    array = aligned_array(8192, offset)
    array[:] = np.arange(8192) % 251
    tensor = hurray.from_numpy(array)
    assert tensor.data_ptr(0) != array.ctypes.data
    assert tensor.buffer_handles[0].alignment >= 64
    assert bytes(tensor.buffer(0)) == array.tobytes()
    with pytest.raises(hurray.CopyRequiredError) as info:
        hurray.from_numpy(array, copy=False)
    assert str(info.value).startswith(f"array is {offset}-byte aligned, below the 64-byte minimum")
    assert (info.value.status, info.value.value, info.value.expected) == (
        "ALIGNMENT_BELOW_MINIMUM", offset, 64)


def test_copy_true_always_copies():
    array = aligned_array(4096, 0)
    tensor = hurray.from_numpy(array, copy=True)
    assert tensor.data_ptr(0) != array.ctypes.data
    assert tensor.buffer_handles[0].alignment == 4096


def test_shared_array_stays_alive_through_the_tensor():
    array = aligned_array(4096, 0)
    array[:] = 7
    tensor = hurray.from_numpy(array)
    del array
    assert bytes(tensor.buffer(0)) == bytes([7]) * 4096


def test_non_contiguous_is_copied_or_refused():
    array = np.arange(64, dtype=np.int32).reshape(8, 8)[:, ::2]
    tensor = hurray.from_numpy(array)
    assert np.array_equal(np.asarray(tensor), array)
    with pytest.raises(hurray.CopyRequiredError, match="not C-contiguous"):
        hurray.from_numpy(array, copy=False)


def test_read_only_array_is_shared():
    array = aligned_array(4096, 0)
    array.flags.writeable = False
    tensor = hurray.from_numpy(array, copy=False)
    assert tensor.data_ptr(0) == array.ctypes.data


@pytest.mark.parametrize("array", [np.array([object()]), np.zeros(4, dtype=">i4"),
                                   np.zeros(4, dtype=np.complex64),
                                   np.zeros(2, dtype="datetime64[s]")])
def test_unsupported_dtypes_raise_type_error(array):
    with pytest.raises(TypeError):
        hurray.from_numpy(array)


def test_not_an_array():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        hurray.from_numpy(b"abc")
    with pytest.raises(TypeError, match="copy must be"):
        hurray.from_numpy(np.zeros(4), copy="yes")


def test_zero_size_array_is_an_empty_buffer():
    tensor = hurray.from_numpy(np.zeros((5, 0, 10), dtype=np.float32))
    handle, = tensor.buffer_handles
    assert handle.is_empty and handle.alignment == 1 and tensor.shape == (5, 0, 10)
    assert bytes(tensor.buffer(0)) == b""


def test_array_view_is_read_only_and_zero_copy():
    array = aligned_array(4096, 0).view(np.float32).reshape(32, 32)
    tensor = hurray.from_numpy(array)
    out = np.asarray(tensor)
    assert out.ctypes.data == array.ctypes.data
    assert not out.flags.writeable and out.shape == (32, 32) and out.dtype == np.float32


SUPPORTED = st.sampled_from([np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                             np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                             np.float64])


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(SUPPORTED, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)),
       st.sampled_from([None, True]))
def test_round_trip_numpy_hurray_numpy(array, copy):
    tensor = hurray.from_numpy(array, copy=copy)
    back = np.asarray(tensor)
    assert back.shape == array.shape and back.dtype == array.dtype
    assert back.tobytes() == array.tobytes()
    assert tensor.buffer_handles[0].alignment >= (1 if array.nbytes == 0 else 64)


def test_asarray_dispatches_with_the_same_copy_meaning():
    import torch
    with hurray.aligned_allocator():
        array = np.arange(256, dtype=np.float32)
    assert hurray.asarray(array, copy=False).data_ptr(0) == array.ctypes.data
    source = torch.arange(64, dtype=torch.int64)
    assert hurray.asarray(source).data_ptr(0) == source.data_ptr()
    tensor = hurray.Tensor(bytes(64), hurray.uint8, [64])
    assert hurray.asarray(tensor) is tensor
    assert hurray.asarray(tensor, copy=True).data_ptr(0) != tensor.data_ptr(0)
    assert bytes(hurray.asarray(b"\x01\x02").buffer(0)) == b"\x01\x02"
    with pytest.raises(hurray.CopyRequiredError):
        hurray.asarray(array[1:], copy=False)
    with pytest.raises(TypeError):
        hurray.asarray(object())
