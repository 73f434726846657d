"""Bad input never crashes: each case is a Python exception with a clear
message (PY-SHAPE-1, PY-SURF-1, PY-CAP-3)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hurray


@pytest.mark.parametrize("data,dtype,shape,error,match", [
    (bytes(10), hurray.float32, [4], ValueError, "holds 10 bytes; float32 of shape .* needs 16"),
    (bytes(16), hurray.float32, [-4], ValueError, r"shape\[0\] = -4 is negative"),
    (bytes(16), hurray.float32, [2**70], ValueError, "does not fit in 64 bits"),
    (bytes(16), hurray.float32, [2**32, 2**32], ValueError, "more than 2\\*\\*64 bytes"),
    (bytes(16), hurray.float32, [4.0], TypeError, r"shape\[0\] must be an int"),
    (bytes(16), hurray.float32, 4, TypeError, "sequence of ints"),
    (bytes(16), hurray.float32, [1] * 33, ValueError, "at most 32"),
    (bytes(16), "float33", [4], ValueError, "unknown element type"),
    (bytes(16), np.float32, [4], TypeError, "hurray element type"),
    ("text", hurray.uint8, [4], TypeError, "bytes-like"),
    (12, hurray.uint8, [4], TypeError, "bytes-like"),
])
def test_tensor_constructor(data, dtype, shape, error, match):
    with pytest.raises(error, match=match):
        hurray.Tensor(data, dtype, shape)


@pytest.mark.parametrize("args,kwargs,error,match", [
    ((256,), {}, ValueError, "not a byte"),
    ((-1,), {}, ValueError, "not a byte"),
    ((2**80,), {}, ValueError, "not a byte"),
    (("gpu",), {}, ValueError, "names no device"),
    (("private",), {}, ValueError, "names no device"),
    ((1.0,), {}, TypeError, "tag byte or a name"),
    ((0,), {"index": -1}, ValueError, "outside"),
    ((0,), {"index": "0"}, TypeError, "must be an int"),
    ((0,), {"memory_class": 300}, ValueError, "not a byte"),
    ((0,), {"memory_class": "fast"}, ValueError, "names no class"),
    ((0,), {"memory_class": 0xFF}, hurray.HandleError, "memory"),
])
def test_device_constructor(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        hurray.Device(*args, **kwargs)


def test_tensor_device_argument():
    with pytest.raises(hurray.HandleError):
        hurray.Tensor(bytes(64), hurray.uint8, [64], device=0x09)
    with pytest.raises(TypeError):
        hurray.Tensor(bytes(64), hurray.uint8, [64], device=[0])
    assert hurray.Tensor(bytes(64), hurray.uint8, [64], device="cuda").device.kind == "cuda"


def test_buffer_index():
    tensor = hurray.Tensor(bytes(64), hurray.uint8, [64])
    for bad in (1, -1, 2**70):
        with pytest.raises(IndexError):
            tensor.buffer(bad)
    with pytest.raises(TypeError):
        tensor.buffer("0")


def test_handle_decode_wrong_sizes():
    for data in (b"", bytes(15), bytes(17)):
        with pytest.raises(hurray.TableError, match="exactly 16 bytes"):
            hurray.BufferHandle.decode(data)
    with pytest.raises(TypeError):
        hurray.BufferHandle.decode("0" * 16)
    with pytest.raises(TypeError):
        hurray.decode_table(None)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=16, max_size=16))
def test_any_16_bytes_decode_or_raise(data):
    try:
        handle = hurray.BufferHandle.decode(data)
    except hurray.HandleError as e:
        assert e.status is not None and e.message
    else:
        assert handle.encode() == data


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-2**65, 2**65), max_size=5), st.binary(max_size=64),
       st.sampled_from(["uint8", "float32", "float64", "bool"]))
def test_arbitrary_shapes_and_data(shape, data, dtype):
    try:
        tensor = hurray.Tensor(data, dtype, shape)
    except (ValueError, TypeError):
        return
    assert bytes(tensor.buffer(0)) == data


def test_from_hurray_wrong_types():
    for bad in (None, 1, "capsule", np.zeros(3)):
        with pytest.raises(TypeError):
            hurray.from_hurray(bad)

    class Liar:
        def __hurray__(self):
            return 42
    with pytest.raises(TypeError):
        hurray.from_hurray(Liar())


def test_dlpack_kwargs():
    tensor = hurray.Tensor(bytes(64), hurray.uint8, [64])
    with pytest.raises(ValueError, match="stream must be None"):
        tensor.__dlpack__(stream=1)
    with pytest.raises(TypeError):
        tensor.__dlpack__(max_version=3)
    with pytest.raises(TypeError, match="dl_device must be"):
        tensor.__dlpack__(dl_device="cpu")
    with pytest.raises(BufferError, match=r"dl_device \(2, 0\) is not this tensor's device \(1, 0\)"):
        tensor.__dlpack__(dl_device=(2, 0))
