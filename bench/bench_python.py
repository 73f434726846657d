#!/usr/bin/python3
"""Python binding costs (issue 14), printed next to baselines measured in the
same run; never asserted.

  1. from_numpy of a 64 MiB array allocated inside aligned_allocator() (zero
     copy, so its time should not depend on the size: a 4 KiB array is timed
     too) next to the copy path for an under-aligned array of the same size
     and to NumPy's own copy of it.
  2. NumPy -> hurray -> PyTorch through DLPack (from_numpy + to_torch) next to
     NumPy -> PyTorch directly (torch.from_numpy) and torch.from_dlpack.

Each figure is the best of several repetitions (the machine may be shared:
interference only adds time).

Run: PYTHONPATH=<build>/python /usr/bin/python3 bench/bench_python.py [repetitions]
(or: meson compile -C <build> bench-python)
"""

import sys
import time

import numpy as np
import torch

import hurray

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 7


def best_ns(fn, calls):
    best = float("inf")
    for _ in range(REPS):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / calls)
    return best


def fmt(ns):
    return f"{ns / 1e3:10.3f} us" if ns < 1e6 else f"{ns / 1e6:10.3f} ms"


def main():
    size = 64 << 20
    with hurray.aligned_allocator(hurray.PAGE_ALIGNMENT):
        big = np.ones(size, dtype=np.uint8)
        small = np.ones(4096, dtype=np.uint8)
    raw = np.ones(size + 1, dtype=np.uint8)
    unaligned = raw[1:]
    assert hurray.from_numpy(big, copy=False).data_ptr(0) == big.ctypes.data

    zero_big = best_ns(lambda: hurray.from_numpy(big, copy=False), 20000)
    zero_small = best_ns(lambda: hurray.from_numpy(small, copy=False), 20000)
    copy_path = best_ns(lambda: hurray.from_numpy(unaligned), 3)
    numpy_copy = best_ns(lambda: unaligned.copy(), 3)

    print("from_numpy (64 MiB uint8)")
    print(f"  zero copy, 64 MiB, aligned_allocator()  {fmt(zero_big)}")
    print(f"  zero copy, 4 KiB                        {fmt(zero_small)}"
          f"   ratio 64 MiB / 4 KiB: {zero_big / zero_small:.2f}x")
    print(f"  copy path, 64 MiB, 1-byte aligned       {fmt(copy_path)}"
          f"   ratio copy / zero copy: {copy_path / zero_big:,.0f}x")
    print(f"  baseline: numpy .copy() of 64 MiB       {fmt(numpy_copy)}"
          f"   ratio copy path / numpy copy: {copy_path / numpy_copy:.2f}x")

    with hurray.aligned_allocator():
        array = np.ones((1024, 1024), dtype=np.float32)
    out = hurray.from_numpy(array, copy=False).to_torch()
    assert out.data_ptr() == array.ctypes.data
    via_hurray = best_ns(lambda: hurray.from_numpy(array, copy=False).to_torch(), 20000)
    direct = best_ns(lambda: torch.from_numpy(array), 20000)
    direct_dlpack = best_ns(lambda: torch.from_dlpack(array), 20000)
    print("NumPy -> PyTorch, 4 MiB float32, zero copy")
    print(f"  via hurray (from_numpy + DLPack)        {fmt(via_hurray)}"
          f"   ratio vs torch.from_numpy: {via_hurray / direct:.2f}x"
          f"   vs torch.from_dlpack: {via_hurray / direct_dlpack:.2f}x")
    print(f"  baseline: torch.from_numpy              {fmt(direct)}")
    print(f"  baseline: torch.from_dlpack(ndarray)    {fmt(direct_dlpack)}")


if __name__ == "__main__":
    main()
