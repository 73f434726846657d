"""The seed's Python surface beyond the verbatim examples: element types,
Device, BufferHandle values (PY-SURF-1..3)."""

import gc
import weakref

import pytest

import hurray

ELEMENT_TYPES = {
    "bool": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
    "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8,
    "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8,
}


@pytest.mark.parametrize("name,itemsize", sorted(ELEMENT_TYPES.items()))
def test_element_type_sizes_and_tensor(name, itemsize):
    dtype = getattr(hurray, name)
    assert dtype.name == name
    assert dtype.itemsize == itemsize
    tensor = hurray.Tensor(bytes(3 * itemsize), dtype, [3])
    assert tensor.dtype is dtype
    assert tensor.shape == (3,)
    assert tensor.buffer_handles[0].byte_size == 3 * itemsize


def test_constants():
    assert hurray.MIN_BUFFER_ALIGNMENT == 64
    assert hurray.PAGE_ALIGNMENT == 4096


@pytest.mark.parametrize("tag,name", [(0, "cpu"), (1, "cuda"), (2, "rocm"), (3, "metal"),
                                      (4, "vulkan"), (5, "webgpu"), (6, "hexagon"),
                                      (7, "level_zero"), (8, "opencl")])
def test_named_devices_by_tag_and_name(tag, name):
    by_tag = hurray.Device(tag)
    by_name = hurray.Device(name)
    assert by_tag == by_name and hash(by_tag) == hash(by_name)
    assert by_tag.kind == name and by_tag.tag == tag and not by_tag.is_private
    assert by_tag.memory_class == "standard" and by_tag.memory_class_tag == 0
    assert f"0x{tag:02X}" in repr(by_tag)


@pytest.mark.parametrize("tag", range(0xF0, 0xFF))
def test_every_private_tag_is_kind_private(tag):
    device = hurray.Device(tag)
    assert device.kind == "private" and device.is_private and device.tag == tag
    assert f"0x{tag:02X}" in repr(device)


def test_device_equality_covers_index_and_class():
    assert hurray.Device("cuda", 0) != hurray.Device("cuda", 1)
    assert hurray.Device("cuda", memory_class="unified") != hurray.Device("cuda")
    assert hurray.Device("cuda", memory_class="unified") == hurray.Device(1, 0, memory_class=2)
    assert len({hurray.Device(0xF3), hurray.Device(0xF3), hurray.Device(0xF4)}) == 2


@pytest.mark.parametrize("tag,status", [(0x09, "RESERVED_DEVICE_TAG"),
                                        (0xEF, "RESERVED_DEVICE_TAG"),
                                        (0xFF, "INVALID_DEVICE_TAG")])
def test_device_rejects_reserved_and_invalid_tags(tag, status):
    with pytest.raises(hurray.HandleError) as info:
        hurray.Device(tag)
    assert info.value.status == status
    assert info.value.value == tag


def test_device_rejects_invalid_pairs_by_the_library_table():
    # BP-PAIR-1: cpu has no peer class; BP-PAIR-2: a named device never pairs
    # with a private class.
    with pytest.raises(hurray.HandleError) as info:
        hurray.Device("cpu", memory_class="peer")
    assert info.value.status == "INVALID_PAIR"
    assert (info.value.value, info.value.expected) == (3, 0)
    with pytest.raises(hurray.HandleError):
        hurray.Device("cuda", memory_class=0xF1)
    with pytest.raises(hurray.HandleError) as info:
        hurray.Device(0xF0, memory_class=0x04)
    assert info.value.status == "RESERVED_MEMORY_CLASS"


def test_handle_pins_nothing():
    tensor = hurray.Tensor(bytes(256), hurray.uint8, [256])
    alive = weakref.ref(tensor)
    handles = tensor.buffer_handles
    del tensor
    gc.collect()
    assert alive() is None
    assert handles[0].byte_size == 256  # still answers: it is a value


def test_handles_collected_across_tensors_pin_no_buffer():
    import numpy as np
    with hurray.aligned_allocator():
        arrays = [np.zeros(4096, dtype=np.uint8) for _ in range(8)]
    owners = [weakref.ref(a) for a in arrays]
    collected = [h for a in arrays for h in hurray.from_numpy(a, copy=False).buffer_handles]
    del arrays
    gc.collect()
    assert all(owner() is None for owner in owners)   # every shared array was freed
    assert [h.byte_size for h in collected] == [4096] * 8


def test_handle_is_a_value_with_equality_and_wire_form():
    a, = hurray.Tensor(bytes(64), hurray.uint8, [64]).buffer_handles
    b, = hurray.Tensor(bytes(64), hurray.uint8, [64]).buffer_handles
    assert a == b and hash(a) == hash(b)
    wire = a.encode()
    assert len(wire) == 16
    assert hurray.BufferHandle.decode(wire) == a
    with pytest.raises(TypeError):
        hurray.BufferHandle()


def test_no_sync_mode_keyword():
    with pytest.raises(TypeError):
        hurray.Tensor(bytes(64), hurray.uint8, [64], sync_mode="event")
    handle, = hurray.Tensor(bytes(64), hurray.uint8, [64]).buffer_handles
    with pytest.raises(AttributeError):
        handle.sync_mode = "event"


def test_buffer_is_a_read_only_view_of_the_bytes():
    tensor = hurray.Tensor(bytes(range(16)) * 4, hurray.uint8, [64])
    view = tensor.buffer(0)
    assert view.readonly and bytes(view) == bytes(range(16)) * 4
    with pytest.raises(TypeError):
        view[0] = 1
    del tensor
    gc.collect()
    assert bytes(view[:4]) == bytes([0, 1, 2, 3])  # the view keeps the bytes alive


def test_buffer_refuses_on_memory_the_host_cannot_read():
    tensor = hurray.Tensor(bytes(64), hurray.uint8, [64], device=hurray.Device("cuda"))
    with pytest.raises(hurray.NotReadableError, match="cannot read"):
        tensor.buffer(0)
    assert tensor.buffer_handles[0].device.kind == "cuda"   # metadata still answers
    pinned = hurray.Tensor(bytes(64), hurray.uint8, [64],
                           device=hurray.Device("cuda", memory_class="host_pinned"))
    assert len(pinned.buffer(0)) == 64


def test_buffer_is_a_read_only_view_that_keeps_the_tensor_alive():
    """PY-READ-3: buffer(i) is a read-only memoryview that keeps the tensor alive."""
    tensor = hurray.Tensor(bytes(range(64)), hurray.uint8, [64])
    view = tensor.buffer(0)
    assert isinstance(view, memoryview)
    assert view.readonly
    with pytest.raises(TypeError):
        view[0] = 1
    del tensor
    gc.collect()
    assert bytes(view) == bytes(range(64))
