"""Exact sectors per warp request (`verifier coalescing`, through the
research API) against a brute-force simulation of the same launch, and how
both grow with the fusion's size.

The fusion adds a slice of ``f32[rows, 32003]`` (columns 3…32002: every row
starts off a sector) to an ``f32[rows, 32000]{0,1}`` (column-major: every
lane its own sector) into ``f32[rows, 32000]``; ``rows = 31250`` is 10^9
elements.  The brute force is what a user would write with numpy: every
element's offset for both operands, grouped into the loop emitter's requests
of 32 threads x 4 unrolled elements, distinct sectors per request
(vectorised; ``--brute-max`` bounds the sizes it is run on, its memory
grows with the size).  Both answers are printed side by side and must
agree; the ratio is brute-force time over verifier time, measured in this
run.

Then the reduction emitters on 10^9 elements (``f32[1000000,1000]``
reduced over its rows, row-major: a row reduction; column-major: a column
reduction), the verifier alone.

    python benchmarks/coalescing.py [--brute-max 20000000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import verifier

COLUMNS = 32000
ROWS = (4, 32, 320, 3125, 31250)


def _module(rows: int) -> str:
    return f"""HloModule bench
fc {{
  q0 = f32[{rows},32003] parameter(0)
  q1 = f32[{rows},32000]{{0,1}} parameter(1)
  s = f32[{rows},32000] slice(q0), slice={{[0:{rows}], [3:32003]}}
  ROOT o = f32[{rows},32000] add(s, q1)
}}
ENTRY main {{
  q0 = f32[{rows},32003] parameter(0)
  q1 = f32[{rows},32000]{{0,1}} parameter(1)
  ROOT fu = f32[{rows},32000] fusion(q0, q1), kind=kLoop, calls=fc
}}"""


def _summary(counts: np.ndarray, ideal: int) -> tuple[int, float, int, int]:
    at_ideal = int((counts == ideal).sum())
    return int(counts.min()), round(float(counts.mean()), 6), int(counts.max()), at_ideal


def _brute(rows: int, unroll: int) -> list[tuple[int, float, int, int]]:
    """Per operand: (min, mean, max, requests at the ideal) sectors; every
    request is full (the sizes are multiples of 128), its ideal 4 * unroll."""
    linear = np.arange(rows * COLUMNS, dtype=np.int64)
    row, column = linear // COLUMNS, linear % COLUMNS
    answers = []
    for offsets in (row * 32003 + column + 3, column * rows + row):
        sectors = np.sort((offsets * 4 // 32).reshape(-1, 32 * unroll), axis=1)
        counts = 1 + (np.diff(sectors, axis=1) != 0).sum(axis=1)
        answers.append(_summary(counts, 4 * unroll))
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--brute-max", type=int, default=20_000_000, help="largest brute-force size"
    )
    args = parser.parse_args()
    print(f"{'elements':>14}{'warps':>12}{'verifier s':>12}{'brute s':>10}{'ratio':>9}  agree")
    for rows in ROWS:
        elements = rows * COLUMNS
        start = time.process_time()
        report = verifier.loads(_module(rows)).coalescing("fu")
        ours = time.process_time() - start
        assert isinstance(report, dict)
        mine = [
            (
                row["sectors_per_request"]["min"],
                round(row["sectors_per_request"]["mean"], 6),
                row["sectors_per_request"]["max"],
                row["requests_at_ideal"],
            )
            for row in report["operands"]
        ]
        warps = report["operands"][0]["requests"]
        if elements > args.brute_max:
            print(f"{elements:>14,}{warps:>12,}{ours:>12.2f}{'-':>10}{'-':>9}  -   {mine}")
            continue
        start = time.process_time()
        brute = _brute(rows, report["launch"]["unroll"])
        theirs = time.process_time() - start
        print(
            f"{elements:>14,}{warps:>12,}{ours:>12.2f}{theirs:>10.2f}{theirs / ours:>9.2f}"
            f"  {'yes' if brute == mine else 'NO'}   {mine}"
        )


def _reduction(layout: str) -> str:
    return f"""HloModule reduction
sum {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}}
fc {{
  q0 = f32[1000000,1000]{layout} parameter(0)
  q1 = f32[] parameter(1)
  ROOT r = f32[1000000] reduce(q0, q1), dimensions={{1}}, to_apply=sum
}}
ENTRY main {{
  q0 = f32[1000000,1000]{layout} parameter(0)
  q1 = f32[] parameter(1)
  ROOT fu = f32[1000000] fusion(q0, q1), kind=kInput, calls=fc
}}"""


def reductions() -> None:
    print(f"\n{'emitter':<24}{'elements':>16}{'requests':>12}{'verifier s':>12}  sectors")
    for layout in ("{1,0}", "{0,1}"):
        start = time.process_time()
        report = verifier.loads(_reduction(layout)).coalescing("fu")
        ours = time.process_time() - start
        assert isinstance(report, dict)
        row = report["operands"][0]
        print(
            f"{report['emitter']:<24}{10**9:>16,}{row['requests']:>12,}{ours:>12.2f}"
            f"  {row['sectors_per_request']}"
        )


if __name__ == "__main__":
    main()
    reductions()
