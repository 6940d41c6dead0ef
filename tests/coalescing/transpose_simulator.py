"""An independent brute force for the loads of XLA's tiled transpose
emitter (32-bit and wider elements), from XLA's ``TransposeFusion``: the
transpose is normalised (1-dims dropped, runs of output dims consecutive
in the operand merged); 128 threads a block; where the minor dim moves,
the block tile is 32 along the operand's minor dim and along the operand
dim that becomes the output's minor one (1 elsewhere), where it stays, 32
along the second-most-minor dim and its image, the whole minor dim as a
vector; blocks numbered row-major over the tile counts; thread ``t`` at
loop id ``s`` (8 of them) and vector id ``v`` reads tile element ``s *
128 * V + t * V + v`` (row-major in the tile), where it falls inside the
operand.  The normalised index is the operand's by their common row-major
order (both layouts row-major), and the operand's reads reach the
fusion's parameters through `tests.coalescing.simulator.reads`.

>>> normalize((16, 1, 32), (2, 0, 1))  # the 1-dim dropped: a 2-d transpose
((16, 32), (1, 0))
>>> normalize((4, 5, 6), (2, 0, 1))  # dims 0 and 1 stay together
((20, 6), (1, 0))
"""

from __future__ import annotations

import math
import random
from collections import defaultdict

from tests.coalescing.simulator import (
    Counts,
    Fusion,
    Index,
    Launch,
    Node,
    _Builder,
    _count,
    _row_major_index,
    _row_major_linear,
    reads,
    reported,
)


def normalize(dims: Index, permutation: Index) -> tuple[Index, Index]:
    """(normalised operand dims, permutation: output dim ``i`` is
    normalised operand dim ``permutation[i]``)."""
    kept = [d for d in range(len(dims)) if dims[d] != 1]
    position = {d: k for k, d in enumerate(kept)}
    groups: list[list[int]] = []
    for p in permutation:
        if dims[p] == 1:
            continue
        if groups and position[p] == position[groups[-1][-1]] + 1:
            groups[-1].append(p)
        else:
            groups.append([p])
    order = sorted(range(len(groups)), key=lambda g: position[groups[g][0]])
    operand = tuple(math.prod(dims[d] for d in groups[g]) for g in order)
    return operand, tuple(order.index(i) for i in range(len(groups)))


def simulate(fusion: Fusion, hero: Node) -> tuple[Launch, dict[int, Counts]]:
    """Every thread of the transpose launch: the counts per parameter."""
    (operand,) = hero.operands
    dims = operand.dims
    normal, permutation = normalize(dims, hero.attrs[0])
    rank = len(normal)
    sizes = [1] * rank
    if permutation[-1] == rank - 1:
        vector = normal[-1]
        sizes[-1] = vector
        sizes[-2] = 32
        sizes[permutation[-2]] = 32
    else:
        vector = 1
        sizes[-1] = 32
        sizes[permutation[-1]] = 32
    counts = tuple(-(-n // s) for n, s in zip(normal, sizes, strict=True))
    blocks = math.prod(counts)
    points: dict[int, dict[tuple[int, ...], dict[tuple[tuple[int, ...], Index], Index]]] = (
        defaultdict(lambda: defaultdict(dict))
    )
    for block in range(blocks):
        origin = _row_major_index(block, counts)
        for thread in range(128):
            for loop in range(8):
                for v in range(vector):
                    offset = _row_major_index(
                        loop * 128 * vector + thread * vector + v, tuple(sizes)
                    )
                    index = tuple(b * s + o for b, s, o in zip(origin, sizes, offset, strict=True))
                    if any(i >= n for i, n in zip(index, normal, strict=True)):
                        continue
                    source = _row_major_index(_row_major_linear(index, normal), dims)
                    for number, path, ids, element in reads(operand, source):
                        points[number][(block, thread, v)][(path, (loop, *ids))] = element
    go = Launch(128, blocks, vector)
    return go, {p.number: _count(p, points.get(p.number, {}), go) for p in fusion.params}


def random_transpose_fusion(rng: random.Random) -> tuple[Fusion, Node]:
    """A fusion whose root is a transpose of 32- or 64-bit elements (or a
    unary op of one) over a chain of loop ops; the transpose node."""
    rank = rng.choice((2, 2, 3))
    choices = (1, 16, 17, 32, 33, 48, 64, 100, 129)
    dims = tuple(rng.choice(choices) for _ in range(rank))
    while math.prod(dims) > 40_000:
        dims = tuple(max(1, n // 2) for n in dims)
    permutation = list(range(rank))
    while permutation == sorted(permutation):
        rng.shuffle(permutation)
    element = rng.choice(("f32", "s32", "f64"))
    builder = _Builder(rng, element)
    body = builder.build(dims, rng.choice((0, 1, 2)))
    out = tuple(dims[p] for p in permutation)
    hero = Node("transpose", out, element, (body,), (tuple(permutation),))
    root = hero if rng.random() < 0.5 else Node("negate", out, element, (hero,))
    order = tuple(range(rank - 1, -1, -1))
    return Fusion(root, tuple(builder.params), order), hero


def judge(fusion: Fusion, hero: Node, device: str) -> tuple[str, list[str]]:
    """The tool's answer (public API) against the brute force, where the
    tool runs the transpose emitter."""
    import verifier

    answer = verifier.loads(fusion.text()).coalescing("fusion", device)
    if answer["emitter"] != "transpose" or any(row.get("reason") for row in answer["operands"]):
        return f"skipped: {answer['emitter']}", []
    go, counts = simulate(fusion, hero)
    problems = []
    got = answer["launch"]
    if (got["threads_per_block"], got["blocks"]) != (go.threads, go.blocks):
        problems.append(f"launch {got['threads_per_block'], got['blocks']} != {go}")
    for row in answer["operands"]:
        expected = counts[row["operand"]]
        if row["sectors_per_request"] is None:
            continue
        theirs, mine = reported(row), expected.row()
        if theirs != mine:
            problems.append(f"operand {row['operand']}: {theirs} != brute {mine}")
    return "transpose", problems
