"""The bitcast check's cost does not grow with the tensor (a target of docs/ARCHITECTURE.md, issue 17).

The bitcast of every size: ``f32[n,m]{1,0:T(8,128)}`` to
``f32[1,n,m]{2,1,0:T(8,128)}`` (valid: the same buffer, every element in
place).  For each size, the CPU seconds of:

* ``verifier check`` — the command, shipped defaults (its proof cache in a
  fresh directory, so every answer is computed), in a child process, imports
  included, and the same run with the bitcast check alone;
* the bitcast check alone through the public API (``verifier.api.loads(…)
  .checks(["bitcast"])``, a fresh in-memory cache), in this process: the
  proof's own cost, without the interpreter's start-up;
* numpy brute force, what a user would write instead: lay both buffers out
  by the tiled-layout document's pad-reshape-transpose (each slot holding
  its element's number, -1 for padding) and compare them; run only where the
  two buffers fit comfortably in memory.

The ratios printed are each size's time over the 16x256 time (1.0 = no
growth) and the brute force's time over the API check's.

    python benchmarks/bitcast.py [--numpy-max-elements 2e7]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from verifier.api import loads

SIZES = [(16, 256), (128, 256), (256, 256), (1024, 1024), (4096, 4096), (8192, 8192)]
TILE = (8, 128)


def _module(rows: int, columns: int) -> str:
    return (
        f"HloModule bitcast_{rows}x{columns}\n\nENTRY main {{\n"
        f"  p0 = f32[{rows},{columns}]{{1,0:T(8,128)}} parameter(0)\n"
        f"  ROOT bitcast = f32[1,{rows},{columns}]{{2,1,0:T(8,128)}} bitcast(p0)\n}}\n"
    )


def _mixed_module(rows: int, columns: int) -> str:
    """Two bf16 packed by (2,1) read as one u32: widths differ."""
    return (
        f"HloModule mixed_{rows}x{columns}\n\nENTRY main {{\n"
        f"  p0 = bf16[{rows},{columns}]{{1,0:T(8,128)(2,1)}} parameter(0)\n"
        f"  ROOT bitcast = u32[{rows // 2},{columns}]{{1,0:T(8,128)}} bitcast(p0)\n}}\n"
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _check(path: Path, only_bitcast: bool) -> tuple[float, str]:
    """CPU seconds of one ``verifier check`` run, and its summary line."""
    with tempfile.TemporaryDirectory() as cache:
        argv = [sys.executable, "-m", "verifier", "check", "--cache-dir", cache, str(path)]
        if only_bitcast:
            argv[4:4] = ["--checks", "bitcast"]
        before = _children_cpu()
        done = subprocess.run(argv, capture_output=True, text=True)
        seconds = _children_cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"verifier check failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    bitcast_line = next(line for line in done.stdout.splitlines() if line.startswith("bitcast"))
    return seconds, " ".join(bitcast_line.split())


def _tiled_buffer(numbers: np.ndarray, tile: tuple[int, ...]) -> np.ndarray:
    """Pad, reshape, transpose: the buffer of `numbers` tiled by `tile`
    (minor dims), each slot its element's number or -1."""
    if len(tile) > numbers.ndim:
        numbers = numbers.reshape((1,) * (len(tile) - numbers.ndim) + numbers.shape)
    kept = numbers.ndim - len(tile)
    sizes = numbers.shape[kept:]
    padding = [(0, 0)] * kept + [(0, -n % t) for n, t in zip(sizes, tile, strict=True)]
    padded = np.pad(numbers, padding, constant_values=-1)
    split: list[int] = list(padded.shape[:kept])
    for n, t in zip(padded.shape[kept:], tile, strict=True):
        split += [n // t, t]
    order = [*range(kept), *(kept + 2 * j for j in range(len(tile)))]
    order += [kept + 2 * j + 1 for j in range(len(tile))]
    return padded.reshape(split).transpose(order).reshape(-1)


def _api_check(text: str) -> float:
    start = time.process_time()
    (finding,) = loads(text).checks(["bitcast"])
    seconds = time.process_time() - start
    assert finding.outcome.value == "proved", finding
    return seconds


def _numpy_bitcast(rows: int, columns: int) -> tuple[float, bool]:
    start = time.process_time()
    numbers = np.arange(rows * columns, dtype=np.int64)
    operand = _tiled_buffer(numbers.reshape(rows, columns), TILE)
    output = _tiled_buffer(numbers.reshape(1, rows, columns), TILE)
    valid = operand.shape == output.shape and bool(np.array_equal(operand, output))
    return time.process_time() - start, valid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy-max-elements", type=float, default=2e7)
    args = parser.parse_args()
    print(
        f"{'size':>11} {'check CPU s':>12} {'vs 16x256':>10} {'bitcast only':>13} "
        f"{'vs 16x256':>10} {'API CPU s':>10} {'vs 16x256':>10} {'numpy CPU s':>12} "
        f"{'numpy/API':>10}  verdict"
    )
    first: tuple[float, float, float] | None = None
    with tempfile.TemporaryDirectory() as directory:
        for rows, columns in SIZES:
            path = Path(directory) / f"bitcast_{rows}x{columns}.hlo"
            path.write_text(_module(rows, columns))
            whole, summary = _check(path, only_bitcast=False)
            alone, _ = _check(path, only_bitcast=True)
            api = _api_check(_module(rows, columns))
            first = first or (whole, alone, api)
            numpy_text, ratio_text = "-", "-"
            if rows * columns <= args.numpy_max_elements:
                seconds, valid = _numpy_bitcast(rows, columns)
                assert valid, f"numpy finds the {rows}x{columns} bitcast invalid"
                numpy_text, ratio_text = f"{seconds:.3f}", f"{seconds / api:.1f}"
            print(
                f"{rows:>5}x{columns:<5} {whole:>12.2f} {whole / first[0]:>10.2f} "
                f"{alone:>13.2f} {alone / first[1]:>10.2f} {api:>10.3f} {api / first[2]:>10.2f} "
                f"{numpy_text:>12} {ratio_text:>10}  {summary}"
            )
        print("\nbf16[n,m]{1,0:T(8,128)(2,1)} read as u32[n/2,m]{1,0:T(8,128)} (widths differ)")
        mixed_first: tuple[float, float, float] | None = None
        for rows, columns in SIZES:
            path = Path(directory) / f"mixed_{rows}x{columns}.hlo"
            path.write_text(_mixed_module(rows, columns))
            whole, summary = _check(path, only_bitcast=False)
            alone, _ = _check(path, only_bitcast=True)
            api = _api_check(_mixed_module(rows, columns))
            mixed_first = mixed_first or (whole, alone, api)
            print(
                f"{rows:>5}x{columns:<5} {whole:>12.2f} {whole / mixed_first[0]:>10.2f} "
                f"{alone:>13.2f} {alone / mixed_first[1]:>10.2f} {api:>10.3f} "
                f"{api / mixed_first[2]:>10.2f} {'-':>12} {'-':>10}  {summary}"
            )


if __name__ == "__main__":
    main()
