"""An independent brute force for `verifier tile` on generated fusions
(`tests.coalescing.simulator` at small shapes: chains of elementwise ops,
broadcast, transpose, reverse, strided slice, pad with interior padding,
concatenate, reshape, bitcast and reduce): for random tile sizes (any size
from 1 to the dim, not only XLA's powers of two), every tile position's
output elements are run through the ops' semantics to the parameter
elements they read (the footprint ``F``), and the tool's claims, read from
its JSON, are checked:

* ``exact: proved``: at every position, ``F`` is the strided box of the
  claimed sizes and strides at some offset (at position 0, the claimed
  offset), intersected with the elements the fusion reads at all;
* ``covering: proved``: ``F`` lies inside such a box;
* ``refuted``: its witness (tile position, element) is real — the element
  is read by that tile, or is read by the fusion and not by that tile —
  and, where the sizes satisfy the constraints, some tile is not exact;
* ``constraints_hold``: the printed constraints evaluated at the sizes.

Map texts (``(d0, d1) -> (d0 floordiv 2, 3)``) are evaluated here, with
Python's floor division and modulo, not by the tool's parser.

>>> evaluate("(d0, d1) -> ((d0 + 5) floordiv 6, (d0 - 1) mod 6 + 1, d1)", (12, 3))
(2, 6, 3)
>>> holds("6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]", (4, 3)), holds("", (4, 3))
(False, True)
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import defaultdict
from collections.abc import Sequence

from tests.coalescing.simulator import Fusion, Index, random_fusion, reads

_WORDS = (("floordiv", "//"), ("ceildiv", "CEIL"), ("mod", "%"))


def _python(expression: str) -> str:
    for word, symbol in _WORDS:
        expression = expression.replace(word, symbol)
    return expression


def _env(values: Sequence[int]) -> dict[str, object]:
    return {"min": min, "max": max} | {f"d{k}": v for k, v in enumerate(values)}


def evaluate(text: str, values: Sequence[int]) -> Index:
    """A map's results at dims `values` (its domain ignored)."""
    head = text.split(", domain:")[0]
    body = head.split("->", 1)[1].strip()
    assert body[0] == "(" and body[-1] == ")", text
    if not body[1:-1].strip():
        return ()
    result = eval(f"({_python(body[1:-1])},)", {"__builtins__": {}}, _env(values))
    return tuple(int(x) for x in result)


def holds(constraints: str, values: Sequence[int]) -> bool:
    """XLA's constraint text (a disjunction of conjunctions of ``e in [a,
    b]``) at `values`; empty: true."""
    if not constraints.strip():
        return True
    for conjunction in constraints.split("||"):
        ok = True
        for term in conjunction.split("&&"):
            found = re.fullmatch(r"\s*(.*) in \[(-?\d+), (-?\d+)\]\s*", term)
            assert found, term
            value = eval(_python(found.group(1)), {"__builtins__": {}}, _env(values))
            ok = ok and int(found.group(2)) <= value <= int(found.group(3))
        if ok:
            return True
    return False


def footprints(
    fusion: Fusion, sizes: Index
) -> tuple[dict[int, dict[Index, set[Index]]], dict[int, set[Index]]]:
    """Per parameter: the elements each tile position reads, and all it
    reads."""
    dims = fusion.root.dims
    per: dict[int, dict[Index, set[Index]]] = defaultdict(lambda: defaultdict(set))
    every: dict[int, set[Index]] = defaultdict(set)
    for index in itertools.product(*(range(n) for n in dims)):
        position = tuple(i // s for i, s in zip(index, sizes, strict=False))
        for number, _, _, element in reads(fusion.root, index):
            per[number][position].add(element)
            every[number].add(element)
    return per, every


def _box(offset: Index, sizes: Index, strides: Index) -> set[Index]:
    return {
        tuple(o + j * t for o, j, t in zip(offset, js, strides, strict=False))
        for js in itertools.product(*(range(n) for n in sizes))
    }


def _offsets(found: set[Index], sizes: Index, strides: Index) -> list[Index]:
    """Every offset whose box holds one element of `found`."""
    anchor = min(found)
    return [
        tuple(a - j * t for a, j, t in zip(anchor, js, strides, strict=False))
        for js in itertools.product(*(range(n) for n in sizes))
    ]


def judge_operand(
    tile: dict[str, object],
    sizes: Index,
    per_position: dict[Index, set[Index]],
    every: set[Index],
    admitted: bool = True,
) -> list[str]:
    """The tool's claims for one operand's tile against the footprints
    (`admitted`: the sizes satisfy the printed constraints; where they do
    not, a refutation may rest on the tool's box at a tile position, whose
    offset its JSON does not give, and is not judged against the best box
    brute force finds)."""
    problems: list[str] = []
    if any("rt" in str(tile[k]) for k in ("offset_map", "size_map", "stride_map")):
        return problems
    size = evaluate(str(tile["size_map"]), sizes)
    stride = evaluate(str(tile["stride_map"]), sizes)
    origin = evaluate(str(tile["offset_map"]), sizes)
    if any(n < 0 for n in size):
        return [f"negative tile size {size}"]
    exact_everywhere, covering_everywhere = True, True
    first_bad = None
    for position, found in sorted(per_position.items()):
        candidates = (
            [origin] if not any(position) else _offsets(found, size, stride) if found else []
        )
        exact = any(_box(o, size, stride) & every == found for o in candidates)
        covering = exact or any(found <= _box(o, size, stride) for o in candidates)
        if found and not exact and first_bad is None:
            first_bad = position
        exact_everywhere &= exact or not found
        covering_everywhere &= covering or not found
    claim = tile["exact"]
    if claim == "proved" and not exact_everywhere:
        problems.append(f"exact proved, but tile {first_bad} is not (size {size}, stride {stride})")
    if tile["covering"] == "proved" and not covering_everywhere:
        problems.append(f"covering proved, but tile {first_bad} is not covered")
    if claim == "refuted":
        witness = str(tile.get("witness"))
        parsed = re.search(
            r"tile \(([-\d, ]*)\): element \(([-\d, ]*)\) "
            r"(is read but lies outside|lies in the tile but this tile does not read)",
            witness,
        )
        if parsed is None:
            problems.append(f"exact refuted, witness not understood: {witness}")
        else:
            position = tuple(int(x) for x in parsed.group(1).split(",") if x.strip())
            element = tuple(int(x) for x in parsed.group(2).split(",") if x.strip())
            found = per_position.get(position, set())
            if parsed.group(3).startswith("is read") and element not in found:
                problems.append(f"witness {witness}: the tile does not read {element}")
            if parsed.group(3).startswith("lies in") and (element in found or element not in every):
                problems.append(f"witness {witness}: the tile reads it, or nothing does")
            if exact_everywhere and admitted and parsed.group(3).startswith("is read"):
                problems.append(f"exact refuted ({witness}), brute force finds every tile exact")
    return problems


def judge(fusion: Fusion, sizes: Index) -> tuple[str, list[str]]:
    """The tool's tile (public API, JSON) of `fusion` at `sizes` against
    the brute force."""
    import verifier

    answer = verifier.loads(fusion.text()).tile("fusion", sizes=list(sizes))
    problems: list[str] = []
    constraints = str(answer.get("constraints") or "")
    if "rt" not in constraints and holds(constraints, sizes) != answer["constraints_hold"]:
        problems.append(f"constraints_hold {answer['constraints_hold']} for {constraints!r}")
    tiles = math.prod(-(-n // s) for n, s in zip(fusion.root.dims, sizes, strict=False))
    if answer["tiles"] != tiles:
        problems.append(f"tiles {answer['tiles']} != {tiles}")
    per, every = footprints(fusion, sizes)
    kinds = []
    for row in answer["operands"]:
        tile = row["tile"]
        if tile is None:
            kinds.append("none")
            continue
        kinds.append(str(tile["exact"]))
        problems += [
            f"operand {row['operand']}: {p}"
            for p in judge_operand(
                tile, sizes, per[row["operand"]], every[row["operand"]], answer["constraints_hold"]
            )
        ]
    return ",".join(kinds), problems


def random_case(seed: int) -> tuple[Fusion, Index]:
    rng = random.Random(seed)
    fusion = random_fusion(rng, small=True)
    sizes = tuple(rng.randint(1, n) for n in fusion.root.dims)
    return fusion, sizes
