"""The ``tiling`` check: the tile sizes XLA chose for a block-level (Triton)
fusion, judged.

XLA's GPU compiler writes its choice into the fusion's backend config
(``"block_level_fusion_config": {"output_tiles": [{"sizes": [...]}]}``,
`verifier.tiling.chosen`).  For such a fusion the check answers:

* ``tile sizes`` — the sizes satisfy the fusion's constraints (the
  conjunction over its operands and inner instructions, under which every
  tile is a strided box, `verifier.tiling.analysis`): ``proved``, or
  ``refuted`` with the sizes as the witness and the constraint they break;
* ``operand k (name)`` — each operand's tile at those sizes holds every
  element the output tile reads, at every tile position (isl): ``proved``,
  its message saying whether the tile is exact or only covers (then where:
  an element of the tile that this tile does not read); ``refuted`` with a
  witness (tile position ``p…``, element ``e…``) where a tile reads past
  its box; ``unsupported`` where no strided box describes what it reads.

A fusion of several outputs has one size vector per output, each judged
the same way (subjects ``output k tile sizes``, ``output k operand …``).
Other instructions have no finding.

>>> from verifier.analysis import ModuleMaps
>>> from verifier.hlo import parse_module
>>> module = parse_module('''
... HloModule m
... f {
...   p = f32[8,6] parameter(0)
...   ROOT r = f32[48] reshape(p)
... }
... ENTRY e {
...   x = f32[8,6] parameter(0)
...   ROOT t = f32[48] fusion(x), kind=kCustom, calls=f, backend_config={"fusion_backend_config":
...     {"kind":"__triton","block_level_fusion_config":{"output_tiles":[{"sizes":["4"]}]}}}
... }''')
>>> view = ModuleMaps(module).instruction(module.entry, module.entry.root)
>>> for subject, result in tiling_answers(view):
...     print(subject, result.outcome.value, result.witness)
...     print(" ", result.message)
tile sizes refuted (('d0', 4),)
  sizes [4] break the constraints of operand 0 (x): 6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]
operand 0 (x) refuted (('p0', 1), ('e0', 1), ('e1', 0))
  sizes (4), tile (1): element (1, 0) is read but lies outside the tile
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from verifier.analysis import InstructionMaps
from verifier.checks.result import CheckResult
from verifier.checks.verdict import Outcome
from verifier.tiling import sizes as sz
from verifier.tiling.analysis import InstructionTiling, OperandTiling, tile_instruction
from verifier.tiling.chosen import chosen_tiles

CHECK = "tiling"


def tiling_answers(view: InstructionMaps) -> Iterator[tuple[str, CheckResult]]:
    """The tiling check's answers at `view`'s instruction, each with its subject."""
    instruction = view.instruction
    if instruction.opcode != "fusion":
        return
    chosen = chosen_tiles(instruction)
    if chosen is None:
        return
    if isinstance(chosen, str):
        yield "output tiles", CheckResult(Outcome.UNSUPPORTED, chosen)
        return
    outputs = (
        [shape for _, shape in instruction.shape.leaves]
        if instruction.shape.is_tuple
        else [instruction.shape]
    )
    if len(chosen) != len(outputs):
        yield (
            "output tiles",
            CheckResult(
                Outcome.UNSUPPORTED,
                f"{len(chosen)} output tile(s) for a fusion of {len(outputs)} output(s): not judged",
            ),
        )
        return
    for number, (sizes, output) in enumerate(zip(chosen, outputs, strict=True)):
        # A fusion of several outputs: each output's findings say which.
        where = f"output {number} " if instruction.shape.is_tuple else ""
        wrong = _malformed(sizes, tuple(output.dimensions))
        if wrong is not None:
            yield f"{where}tile sizes", CheckResult(Outcome.REFUTED, wrong, _named(sizes))
            continue
        past = _past_edge(sizes, tuple(output.dimensions))
        if past is not None:
            yield f"{where}tile sizes", CheckResult(Outcome.UNSUPPORTED, past)
            continue
        result = tile_instruction(view, sizes, number)
        yield f"{where}tile sizes", _constraints(result, sizes)
        for operand in result.operands:
            yield f"{where}operand {operand.operand} ({operand.name})", _operand(operand)


def _malformed(sizes: tuple[int, ...], shape: tuple[int, ...]) -> str | None:
    """Why `sizes` cannot tile `shape` at all, if so."""
    if len(sizes) != len(shape):
        return f"{len(sizes)} tile size(s) {list(sizes)} for an output of rank {len(shape)}"
    for index, size in enumerate(sizes):
        if size < 1:
            return f"tile size d{index} = {size} is not positive"
    return None


def _past_edge(sizes: tuple[int, ...], shape: tuple[int, ...]) -> str | None:
    """Why sizes XLA accepts are not judged: a tile larger than its output
    dimension (XLA rounds sizes up to powers of two and masks what lies
    past the edge, e.g. 8 for a dimension of 7)."""
    for index, (size, extent) in enumerate(zip(sizes, shape, strict=True)):
        if size > extent:
            return (
                f"tile size d{index} = {size} exceeds the output's dimension {extent}: "
                "a tile past the output's edge is not judged"
            )
    return None


def _named(sizes: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((f"d{i}", size) for i, size in enumerate(sizes))


def _constraints(result: InstructionTiling, sizes: tuple[int, ...]) -> CheckResult:
    # Each tile's box condition: XLA's maps anchor a tile reading nothing
    # outside the operand, where ours may anchor it at an element.
    places = [
        (f"operand {operand.operand} ({operand.name})", operand.tile.box_condition)
        for operand in result.operands
        if operand.tile is not None
    ] + [
        (f"{inner.name} ({inner.opcode})", inner.tile.box_condition)
        for inner in result.inner
        if inner.tile is not None
    ]
    conjunction = sz.ALWAYS
    for _, condition in places:
        conjunction = sz.conjoin(conjunction, condition)
    conjunction = sz.restrict(conjunction, result.output_shape)
    if sz.holds(conjunction, sizes):
        text = sz.render_condition(conjunction)
        if not text:
            return CheckResult(
                Outcome.PROVED, f"sizes {list(sizes)}: the fusion's tiles have no constraints"
            )
        return CheckResult(Outcome.PROVED, f"sizes {list(sizes)} satisfy the constraints: {text}")
    # The first place whose own condition the sizes break.
    where, condition = next(
        ((name, c) for name, c in places if not sz.holds(c, sizes)),
        (result.instruction, conjunction),
    )
    return CheckResult(
        Outcome.REFUTED,
        f"sizes {list(sizes)} break the constraints of {where}: {sz.render_condition(condition)}",
        _named(sizes),
    )


def _operand(operand: OperandTiling) -> CheckResult:
    if operand.tile is None:
        covering = operand.covering_box
        cover = (
            ""
            if covering is None
            else f"; the smallest box covering tile 0: offsets {list(covering.offsets)}, "
            f"sizes {list(covering.sizes)}"
        )
        return CheckResult(Outcome.UNSUPPORTED, f"no tile: {operand.reason}{cover}")
    proof = operand.proof
    assert proof is not None
    tile = operand.tile
    box = f"sizes {tile.size_map()}, strides {tile.stride_map()}"
    verdict = proof.verdict
    match verdict:
        case "exact":
            return CheckResult(Outcome.PROVED, f"exact: every tile reads its box ({box})")
        case "covering":
            return CheckResult(
                Outcome.PROVED,
                f"covers, not exact ({box}): {proof.witness}",
            )
        case "refuted":
            return CheckResult(Outcome.REFUTED, proof.witness or "refuted", proof.point)
        case "unknown":
            return CheckResult(Outcome.UNKNOWN, proof.witness or "isl's budget ran out")
        case _:
            assert_never(verdict)
