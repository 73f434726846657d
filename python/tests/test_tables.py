"""Buffer tables from Python, and the error hierarchy (PY-ERR-1)."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hurray


def wire(byte_size, alignment, tag=0, sync=0, cls=0, reserved=0):
    return struct.pack("<QIBBBB", byte_size, alignment, tag, sync, cls, reserved)


def test_decode_and_encode():
    table = bytes([2]) + wire(1024, 64) + wire(16, 64)
    handles = hurray.decode_table(table)
    assert [h.byte_size for h in handles] == [1024, 16]
    assert handles[0].device is handles[1].device
    assert hurray.encode_table(handles) == table


@pytest.mark.parametrize("table,cls,status,value,expected,index", [
    (bytes([1]) + wire(512, 63), hurray.HandleError, "ALIGNMENT_NOT_POWER_OF_TWO", 63, 0, 0),
    (bytes([1]) + wire(512, 32), hurray.HandleError, "ALIGNMENT_BELOW_MINIMUM", 32, 64, 0),
    (bytes([1]) + wire(64, 64, tag=0x09), hurray.HandleError, "RESERVED_DEVICE_TAG", 9, 0, 0),
    (bytes([2]) + wire(1024, 64) + wire(256, 4096, tag=1), hurray.ColocationError,
     "DEVICE_TAG_MISMATCH", 1, 0, 1),
    (bytes([2]) + wire(4096, 4096, 1, 1) + wire(4096, 4096, 1, 1, 2), hurray.ColocationError,
     "MEMORY_CLASS_MISMATCH", 2, 0, 1),
    (bytes([2]) + wire(64, 64), hurray.TableError, "TRUNCATED", 17, 33, 0),
    (bytes([1]) + wire(64, 64) + b"x", hurray.TableError, "TRAILING_BYTES", 18, 17, 0),
    (bytes([0]), hurray.TableError, "EMPTY_BUFFER_LIST", 0, 1, 0),
])
def test_errors_carry_the_c_error(table, cls, status, value, expected, index):
    with pytest.raises(cls) as info:
        hurray.decode_table(table)
    e = info.value
    assert isinstance(e, hurray.HurrayError) and isinstance(e, ValueError)
    assert e.status == status
    assert (e.value, e.expected) == (value, expected)
    if status.endswith("MISMATCH"):
        assert e.index == index
    assert e.message and e.message in str(e)
    assert isinstance(e.status_code, int) and e.status_code > 0


def test_non_exact_decode_ignores_what_follows():
    table = bytes([1]) + wire(64, 64)
    assert len(hurray.decode_table(table + b"rest of descriptor", exact=False)) == 1


def test_encode_refuses_what_a_reader_would_reject():
    cpu, = hurray.decode_table(bytes([1]) + wire(64, 64))
    cuda, = hurray.decode_table(bytes([1]) + wire(64, 64, tag=1))
    with pytest.raises(hurray.ColocationError):
        hurray.encode_table([cpu, cuda])
    with pytest.raises(hurray.TableError):
        hurray.encode_table([])
    with pytest.raises(hurray.TableError):
        hurray.encode_table([cpu] * 256)
    with pytest.raises(TypeError, match="not a BufferHandle"):
        hurray.encode_table([cpu, "x"])


VALID_HANDLE = st.builds(
    lambda size, shift, tag_cls, sync: (size, 1 << shift if size else 1 << (shift - 6),
                                        tag_cls[0], sync if tag_cls[0] else 0, tag_cls[1]),
    st.integers(0, 2**64 - 1), st.integers(6, 31),
    st.sampled_from([(0, 0), (0, 1), (0, 2), (1, 0), (1, 3), (4, 2), (0xF0, 0xF5)]),
    st.integers(0, 2))


@settings(max_examples=200, deadline=None)
@given(st.lists(VALID_HANDLE, min_size=1, max_size=8).filter(
    lambda hs: len({(h[2], h[4]) for h in hs}) == 1))
def test_table_round_trip(handles):
    table = bytes([len(handles)]) + b"".join(wire(*h) for h in handles)
    decoded = hurray.decode_table(table)
    assert [(h.byte_size, h.alignment, h.device_tag, h.sync_mode_tag, h.memory_class_tag)
            for h in decoded] == handles
    assert hurray.encode_table(decoded) == table


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80))
def test_arbitrary_bytes_decode_or_raise_a_hurray_error(data):
    try:
        handles = hurray.decode_table(data)
    except hurray.HurrayError as e:
        assert e.status is not None
    else:
        assert hurray.encode_table(handles) == data
