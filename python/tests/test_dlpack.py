"""DLPack against the real consumers, NumPy 1.24 and PyTorch 1.13, both
directions: zero copy checked by data pointer, deleters counted
(PY-DLPACK-1..4, BP-DLPACK-5, BP-DLPACK-13)."""

import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import _hurray_test_producer as producer
import hurray


def releases():
    gc.collect()
    return producer.counts()["buffer_releases"]


def test_hurray_to_numpy_zero_copy():
    tensor = hurray.Tensor(bytes(range(64)), hurray.uint8, [8, 8])
    array = np.from_dlpack(tensor)
    assert array.ctypes.data == tensor.data_ptr(0)
    assert array.shape == (8, 8) and array[1, 0] == 8


@pytest.mark.parametrize("consume", [torch.from_dlpack, torch.utils.dlpack.from_dlpack])
def test_hurray_to_torch_zero_copy(consume):
    tensor = hurray.from_numpy(np.arange(1024, dtype=np.float32))
    out = consume(tensor)
    assert out.data_ptr() == tensor.data_ptr(0)
    assert out.dtype == torch.float32 and out[5].item() == 5.0


def test_numpy_to_hurray_zero_copy_when_aligned():
    with hurray.aligned_allocator():
        array = np.arange(4096, dtype=np.int64)
    tensor = hurray.from_dlpack(array, copy=False)
    assert tensor.data_ptr(0) == array.ctypes.data
    assert tensor.shape == (4096,) and tensor.dtype is hurray.int64


def test_numpy_to_hurray_copies_or_refuses_when_under_aligned():
    array = np.arange(100, dtype=np.float64)[1:]
    tensor = hurray.from_dlpack(array)
    assert tensor.data_ptr(0) != array.ctypes.data
    assert np.array_equal(np.asarray(tensor), array)
    with pytest.raises(hurray.CopyRequiredError, match="8-byte aligned"):
        hurray.from_dlpack(array, copy=False)


def test_torch_to_hurray_zero_copy():
    source = torch.arange(1000, dtype=torch.float32)
    tensor = hurray.from_torch(source)
    assert source.data_ptr() % 64 == 0   # PyTorch's CPU allocator aligns to 64
    assert tensor.data_ptr(0) == source.data_ptr()
    assert tensor.buffer_handles[0].alignment >= 64
    strided = torch.arange(100.0).reshape(10, 10).t()
    assert np.array_equal(np.asarray(hurray.from_torch(strided)), strided.numpy())
    with pytest.raises(hurray.CopyRequiredError, match="not contiguous"):
        hurray.from_torch(strided, copy=False)


def test_copy_true_always_copies():
    source = torch.arange(64, dtype=torch.int32)
    tensor = hurray.from_torch(source, copy=True)
    assert tensor.data_ptr(0) != source.data_ptr()
    assert np.array_equal(np.asarray(tensor), source.numpy())


def test_numpy_hurray_torch_round_trip_shares_one_buffer():
    with hurray.aligned_allocator():
        array = np.random.default_rng(1).random((64, 64), dtype=np.float32)
    out = hurray.from_numpy(array, copy=False).to_torch()
    assert out.data_ptr() == array.ctypes.data
    assert np.array_equal(out.numpy(), array)
    back = hurray.from_torch(out, copy=False)
    assert back.data_ptr(0) == array.ctypes.data


def test_versioned_capsule_round_trip():
    tensor = hurray.Tensor(bytes(256), hurray.float32, [64])
    capsule = tensor.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capsule)
    back = hurray.from_dlpack(capsule)
    assert back.data_ptr(0) == tensor.data_ptr(0)
    assert "used_dltensor_versioned" in repr(capsule)


def test_capsule_consumed_twice():
    capsule = hurray.Tensor(bytes(64), hurray.uint8, [64]).__dlpack__()
    hurray.from_dlpack(capsule)
    with pytest.raises(hurray.HandoffError, match="already consumed"):
        hurray.from_dlpack(capsule)


def test_deleter_runs_once_after_the_last_consumer():
    before = releases()
    tensor = hurray.from_hurray(producer.make("cpu", 4096))
    as_torch = torch.from_dlpack(tensor)
    as_numpy = np.from_dlpack(tensor)
    del tensor
    assert releases() == before           # both consumers still hold it
    del as_torch
    assert releases() == before
    assert as_numpy.sum() == sum(i & 0xFF for i in range(4096))
    del as_numpy
    assert releases() == before + 1       # exactly once


def test_unconsumed_dlpack_capsule_releases_once():
    before = releases()
    tensor = hurray.from_hurray(producer.make("cpu", 64))
    capsule = tensor.__dlpack__()
    del tensor, capsule
    assert releases() == before + 1


def test_imported_producer_deleter_runs_once():
    with hurray.aligned_allocator():
        array = np.zeros(1 << 16, dtype=np.uint8)
    alive = weakref.ref(array)
    tensor = hurray.from_dlpack(array)
    del array
    gc.collect()
    assert alive() is not None            # NumPy's deleter has not run
    relay = torch.from_dlpack(tensor)
    del tensor
    gc.collect()
    assert alive() is not None
    del relay
    gc.collect()
    assert alive() is None


def test_event_and_device_buffers_refuse_dlpack():
    event = hurray.from_hurray(producer.make("event", 64))
    for consume in (lambda t: t.__dlpack__(), np.from_dlpack, torch.from_dlpack, hurray.Tensor.to_torch):
        with pytest.raises(hurray.NotReadableError, match="sync_mode event"):
            consume(event)
    assert event.__dlpack_device__() == (3, 0)   # kDLCUDAHost: cuda + host_pinned


def test_dlpack_device():
    assert hurray.Tensor(bytes(64), hurray.uint8, [64]).__dlpack_device__() == (1, 0)
    unified = hurray.Tensor(bytes(64), hurray.uint8, [64],
                            device=hurray.Device("cuda", 2, memory_class="unified"))
    assert unified.__dlpack_device__() == (13, 2)
    private = hurray.Tensor(bytes(64), hurray.uint8, [64], device=hurray.Device(0xF5))
    with pytest.raises(hurray.UnsupportedError):
        private.__dlpack_device__()


def test_consumers_refusing_a_dtype_raise_not_crash():
    tensor = hurray.Tensor(bytes(8), hurray.bool, [8])
    with pytest.raises(Exception):
        np.from_dlpack(tensor)            # NumPy 1.24 has no kDLBool
    with pytest.raises(hurray.UnsupportedError, match="no Hurray element type"):
        hurray.from_dlpack(np.zeros(4, dtype=np.complex64))
    with pytest.raises(TypeError, match="__dlpack__"):
        hurray.from_dlpack(object())


def test_deleter_runs_once_at_interpreter_exit():
    script = textwrap.dedent("""
        import os, sys, torch, numpy
        import hurray, _hurray_test_producer as producer
        producer.set_report_fd(1)
        tensor = hurray.from_hurray(producer.make("cpu", 4096))
        kept_torch = torch.from_dlpack(tensor)
        kept_numpy = numpy.from_dlpack(tensor)
        del tensor
        print("exiting", flush=True)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=dict(os.environ), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n").count("buffer released") == 1
    assert result.stdout.index("exiting") < result.stdout.index("buffer released")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

DLPACK_DTYPES = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16,
                                 np.float32, np.float64])


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(DLPACK_DTYPES, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0,
                                                  max_side=5)))
def test_round_trip_numpy_hurray_torch_hurray_numpy(array):
    tensor = hurray.from_numpy(array)
    as_torch = torch.from_dlpack(tensor)
    assert as_torch.data_ptr() == tensor.data_ptr(0) or array.nbytes == 0
    back = hurray.from_torch(as_torch)
    out = np.from_dlpack(back)
    assert out.shape == array.shape and out.dtype == array.dtype
    assert out.tobytes() == array.tobytes()


class _Capsule:
    """Hands a ready capsule to a consumer that calls __dlpack__()."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def test_dlpack_dl_device_and_copy():
    """PY-DLPACK-1: dl_device names the tensor's own device; copy=True
    exports a copy, copy=False and None the tensor's own bytes."""
    tensor = hurray.Tensor(bytes(range(64)), hurray.uint8, [8, 8])
    device = tensor.__dlpack_device__()
    shared = torch.utils.dlpack.from_dlpack(tensor.__dlpack__(dl_device=device, copy=False))
    assert shared.data_ptr() == tensor.data_ptr(0)
    copied = np.from_dlpack(_Capsule(tensor.__dlpack__(copy=True), device))
    assert copied.ctypes.data != tensor.data_ptr(0)
    assert copied.ctypes.data % hurray.MIN_BUFFER_ALIGNMENT == 0
    assert copied.tobytes() == bytes(range(64)) and copied.shape == (8, 8)
    versioned = tensor.__dlpack__(copy=True, max_version=(1, 0))
    assert type(versioned).__name__ == "PyCapsule"
    del versioned
    gc.collect()
