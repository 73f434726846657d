"""__hurray__ / from_hurray over libhurray's handoff ABI, with a producer and
a consumer written in C (producer/test_producer.c) (PY-CAP-1..5, PY-READ-1..2)."""

import gc

import numpy as np
import pytest

import _hurray_test_producer as producer
import hurray


def counts_after(fn):
    before = producer.counts()
    fn()
    gc.collect()
    after = producer.counts()
    return {k: after[k] - before[k] for k in after}


def test_round_trip_through_the_capsule_is_zero_copy():
    tensor = hurray.Tensor(bytes(range(64)), hurray.uint8, [8, 8])
    imported = hurray.from_hurray(tensor)
    assert imported.data_ptr(0) == tensor.data_ptr(0)
    assert imported.buffer_handles == tensor.buffer_handles
    assert imported.shape == (8, 8) and imported.dtype is hurray.uint8
    assert bytes(imported.buffer(0)) == bytes(range(64))


def test_capsule_is_renamed_and_cannot_be_consumed_twice():
    capsule = hurray.Tensor(bytes(64), hurray.uint8, [64]).__hurray__()
    first = hurray.from_hurray(capsule)
    assert "used_hurray_tensor" in repr(capsule)
    with pytest.raises(hurray.HandoffError, match="already consumed"):
        hurray.from_hurray(capsule)
    assert len(first.buffer(0)) == 64


def test_export_keeps_the_tensor_alive_until_released():
    tensor = hurray.Tensor(bytes(64), hurray.uint8, [64])
    import weakref
    alive = weakref.ref(tensor)
    capsule = tensor.__hurray__()
    del tensor
    gc.collect()
    assert alive() is not None           # the offer holds it
    del capsule                          # never consumed: the destructor withdraws
    gc.collect()
    assert alive() is None


def test_unconsumed_producer_capsule_is_withdrawn_by_its_destructor():
    def make_and_drop():
        producer.make("cpu", 64)
    delta = counts_after(make_and_drop)
    assert delta == {"buffer_releases": 0, "event_releases": 0, "destroys": 1, "withdrawn": 1}


def test_consumed_producer_capsule_is_released_once_when_the_tensor_goes():
    def consume():
        tensor = hurray.from_hurray(producer.make("cpu", 300))
        assert bytes(tensor.buffer(0))[:4] == bytes([0, 1, 2, 3])
    delta = counts_after(consume)
    assert delta == {"buffer_releases": 1, "event_releases": 0, "destroys": 1, "withdrawn": 0}


def test_event_buffer_reports_its_mode_and_refuses_every_byte_path():
    tensor = hurray.from_hurray(producer.make("event", 128))
    handle, = tensor.buffer_handles
    assert handle.sync_mode == "event"
    assert handle.device.kind == "cuda" and handle.memory_class == "host_pinned"
    for path in (lambda: tensor.buffer(0), lambda: np.asarray(tensor), tensor.numpy):
        with pytest.raises(hurray.NotReadableError, match="sync_mode event"):
            path()
    # Relaying a declaration is not reading a byte.
    assert hurray.decode_table(tensor.buffer_table()) == tensor.buffer_handles
    relayed = hurray.from_hurray(tensor)
    assert relayed.buffer_handles[0].sync_mode == "event"
    assert relayed.data_ptr(0) == tensor.data_ptr(0)


def test_event_buffer_released_once_with_its_event_after_relays():
    def relay_chain():
        tensor = hurray.from_hurray(producer.make("event", 64))
        relayed = hurray.from_hurray(hurray.from_hurray(tensor))
        del tensor
        gc.collect()
        assert relayed.buffer_handles[0].sync_mode == "event"
    delta = counts_after(relay_chain)
    assert delta == {"buffer_releases": 1, "event_releases": 1, "destroys": 1, "withdrawn": 0}


def test_c_consumer_receives_the_event_relay_and_waits():
    def run():
        tensor = hurray.from_hurray(producer.make("event", 64))
        accepted = producer.consume(tensor.__hurray__())
        assert accepted == [(64, 4096, "event", tensor.data_ptr(0))]
    delta = counts_after(run)
    assert delta == {"buffer_releases": 1, "event_releases": 1, "destroys": 1, "withdrawn": 0}


def test_c_consumer_of_a_binding_tensor():
    tensor = hurray.Tensor(bytes(4096), hurray.float32, [1024])
    accepted = producer.consume(tensor.__hurray__())
    assert accepted == [(4096, 4096, "producer_synced", tensor.data_ptr(0))]


def test_device_buffer_refuses_bytes_but_answers_metadata():
    tensor = hurray.from_hurray(producer.make("device", 64))
    assert tensor.buffer_handles[0].device.kind == "cuda"
    assert tensor.buffer_handles[0].byte_size == 64
    with pytest.raises(hurray.NotReadableError, match="host cannot read"):
        tensor.buffer(0)


@pytest.mark.parametrize("kind,error,match", [
    ("version", hurray.HurrayError, "version"),
    ("dtype", hurray.HurrayError, "dtype"),
    ("size", hurray.HurrayError, "dtype and shape"),
    ("cpu_event", hurray.HandleError, "sync_mode"),
])
def test_malformed_capsules_are_refused_and_left_to_their_destructor(kind, error, match):
    def refuse():
        capsule = producer.make(kind, 64)
        with pytest.raises(error, match=match):
            hurray.from_hurray(capsule)
        assert "used_" not in repr(capsule)
    delta = counts_after(refuse)
    # Nothing is leaked or released twice: either the offer was withdrawn, or
    # it was accepted and given back (released) before the error.
    assert delta["destroys"] == 1
    assert delta["withdrawn"] + delta["buffer_releases"] == 1


def test_wrong_objects():
    with pytest.raises(TypeError, match="__hurray__"):
        hurray.from_hurray(42)
    import ctypes
    other = ctypes.pythonapi.PyCapsule_New
    other.restype = ctypes.py_object
    other.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    with pytest.raises(TypeError, match="not 'hurray_tensor'"):
        hurray.from_hurray(other(1, b"dltensor", None))
