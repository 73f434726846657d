"""Every Python example of seed 000 (Layer 1: Buffer Protocol), verbatim, one
test per section, named after the section. Lines after a "# --- beyond the
seed" marker are additions that make an example's outcome observable; the
example's own lines are unchanged."""

import hurray


def test_creating_buffer_handles():
    import hurray

    # Python reads the buffer table rather than authoring it: the buffers a tensor
    # holds already settle every field, so there is nothing left for a caller to
    # supply. One handle per buffer, in descriptor order.
    tensor = hurray.Tensor(bytes(1024), hurray.uint8, [1024])
    handle, = tensor.buffer_handles

    assert handle.byte_size == 1024
    assert handle.alignment == hurray.MIN_BUFFER_ALIGNMENT
    assert handle.sync_mode == "producer_synced"  # PY-SYNC-1
    assert handle.device is tensor.device       # colocation: one device per descriptor


def test_empty_buffers():
    import hurray

    empty, = hurray.Tensor(b"", hurray.float32, [0]).buffer_handles

    assert empty.is_empty
    assert empty.byte_size == 0
    assert empty.alignment == 1     # no byte to load, so nothing to align


def test_memory_class():
    import hurray

    # A vendor memory class on a vendor device.
    device = hurray.Device(0xF0, 0, memory_class=0xF1)

    assert device.memory_class == "private"
    assert device.memory_class_tag == 0xF1

    tensor = hurray.Tensor(bytes(2048), hurray.float32, [512], device=device)
    assert tensor.buffer_handles[0].device is tensor.device


def test_private_device_tags():
    import hurray

    # A private tag for a custom accelerator (e.g. a TPU, an FPGA).
    custom = hurray.Device(0xF2)

    assert custom.is_private
    assert custom.tag == 0xF2
    assert custom.kind == "private"     # the spec gives these no name

    tensor = hurray.Tensor(bytes(4096), hurray.float32, [1024], device=custom)
    assert tensor.device.tag == 0xF2

    # --- beyond the seed: "repr carries it for the same reason"
    assert "0xF2" in repr(custom)


def test_alignment_is_measured_not_asserted(capsys):
    import numpy as np
    import hurray

    array = np.zeros(1 << 20, dtype=np.float32)          # 4 MiB

    # NumPy promises no alignment beyond the dtype's own, and a large allocation served
    # by a fresh mmap is 16 bytes past a page boundary — glibc puts its chunk header
    # there — so it never reaches 64. A recycled chunk may land anywhere, which is no
    # better: the address is not something a producer can arrange.
    tensor = hurray.from_numpy(array)                    # copied if it does not qualify
    assert tensor.buffer_handles[0].alignment >= hurray.MIN_BUFFER_ALIGNMENT

    under_aligned = array[1:]                            # 4-byte aligned, guaranteed

    try:
        hurray.from_numpy(under_aligned, copy=False)
    except hurray.CopyRequiredError as exc:
        print(exc)   # "array is 4-byte aligned, below the 64-byte minimum ..."

    # --- beyond the seed: the refusal happened and said what the seed says
    assert capsys.readouterr().out.startswith(
        "array is 4-byte aligned, below the 64-byte minimum")


def test_allocating_arrays_that_need_no_copy():
    import numpy as np
    import hurray

    with hurray.aligned_allocator():
        weights = np.zeros((512, 512), dtype=np.float32)

    tensor = hurray.from_numpy(weights, copy=False)     # accepted: no copy is needed
    assert tensor.buffer_handles[0].alignment >= hurray.MIN_BUFFER_ALIGNMENT

    # --- beyond the seed: "no copy" means the tensor's buffer is the array's
    assert tensor.data_ptr(0) == weights.ctypes.data


def test_sync_mode():
    tensor = hurray.Tensor(bytes(64), hurray.float32, [16])
    assert tensor.buffer_handles[0].sync_mode == "producer_synced"
