"""hurray.aligned_allocator(): NEP 49, each property of the seed (PY-ALLOC-1..4)."""

import contextvars
import gc
import threading

import numpy as np
import pytest

import hurray

handler_name = np.core.multiarray.get_handler_name


def test_arrays_inside_are_aligned_and_shared():
    for alignment in (64, 4096):
        with hurray.aligned_allocator(alignment):
            arrays = [np.zeros(n, dtype=np.uint8) for n in (1, 100, 5000, 1 << 20)]
        for a in arrays:
            assert a.ctypes.data % alignment == 0
            assert handler_name(a) == f"hurray_aligned_{alignment}"
            assert hurray.from_numpy(a, copy=False).buffer_handles[0].alignment >= alignment


def test_freed_through_the_matching_deallocator_after_the_block():
    allocated0, freed0 = hurray.allocator_stats(128)
    with hurray.aligned_allocator(128):
        array = np.empty(10_000, dtype=np.float64)
    assert hurray.allocator_stats(128) == (allocated0 + 1, freed0)
    assert handler_name() != "hurray_aligned_128"      # the block is over
    array += 1                                         # still usable
    del array
    gc.collect()
    assert hurray.allocator_stats(128) == (allocated0 + 1, freed0 + 1)


def test_arrays_outside_are_untouched_including_existing_ones():
    before = np.zeros(100)
    with hurray.aligned_allocator():
        inside = np.zeros(100)
    after = np.zeros(100)
    assert handler_name(before) == handler_name(after) == "default_allocator"
    assert handler_name(inside) == "hurray_aligned_64"


def test_blocks_nest():
    with hurray.aligned_allocator(64):
        with hurray.aligned_allocator(4096):
            assert handler_name() == "hurray_aligned_4096"
        assert handler_name() == "hurray_aligned_64"
    assert handler_name() == "default_allocator"


def test_restored_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with hurray.aligned_allocator(256):
            raise RuntimeError("boom")
    assert handler_name() == "default_allocator"


def test_threads_started_inside_do_not_inherit():
    seen = []
    with hurray.aligned_allocator():
        worker = threading.Thread(target=lambda: seen.append(handler_name(np.zeros(10))))
        worker.start()
        worker.join()
        assert handler_name() == "hurray_aligned_64"
    assert seen == ["default_allocator"]


def test_context_local():
    def inside_other_context():
        with hurray.aligned_allocator(512):
            return handler_name()
    ctx = contextvars.copy_context()
    assert ctx.run(inside_other_context) == "hurray_aligned_512"
    assert handler_name() == "default_allocator"
    with hurray.aligned_allocator(1024):
        assert contextvars.copy_context().run(handler_name) == "hurray_aligned_1024"
        other = contextvars.Context()
        assert other.run(handler_name) == "default_allocator"


def test_realloc_keeps_alignment_and_contents():
    with hurray.aligned_allocator(4096):
        array = np.arange(10, dtype=np.int64)
        array.resize(100_000, refcheck=False)
    assert array.ctypes.data % 4096 == 0
    assert list(array[:10]) == list(range(10))


@pytest.mark.parametrize("bad", [0, 32, 63, 100, 1 << 31, -64])
def test_bad_alignment(bad):
    with pytest.raises(ValueError, match="power of two"):
        with hurray.aligned_allocator(bad):
            pass
    with pytest.raises(TypeError):
        with hurray.aligned_allocator("64"):
            pass
