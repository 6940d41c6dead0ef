"""XLA's operations on maps that change their variables, applied to
verifier's maps with the correspondence between old and new variables
explicit: the unused dims that ``RemoveUnusedVars`` drops made existential
(the kept dims correspond in order), symbols made dims
(``ConvertSymbolsToDimensions``, ``ConvertRangeVariablesToDimensions``),
an affine text with separately given bounds (``FromTensorSizes``, the
constructor), and the maps between physical indices of a layout.

>>> from verifier.expr import parse_map
>>> m = parse_map("(d0, d1)[s0] -> (d1 + s0), domain: d0 in [0, 3], d1 in [0, 5], s0 in [0, 1]")
>>> str(unused_dims_existential(m)).replace("\\n", " ")
'(d0)[s0, s1] -> (d0 + s0), domain: d0 in [0, 5], s0 in [0, 1], s1 in [0, 3]'
>>> str(symbols_to_dims(m, [0])).splitlines()[0]
'(d0, d1, d2) -> (d1 + d2),'
"""

from __future__ import annotations

import re

from verifier.errors import ParseError, SourceSpan, VerifierError
from verifier.expr import (
    Expr,
    IndexingMap,
    Var,
    VarKind,
    dim,
    parse_map,
    range_var,
    rt_var,
    substitute,
    variables_of,
)
from verifier.hlo import Shape


def read_expr(text: str, reference: IndexingMap) -> Expr | None:
    """An affine expression (``d0``…, ``s0``… by position) over the map's variables."""
    names = [f"d{i}" for i in range(reference.num_dims)]
    symbols = [f"s{i}" for i in range(len(reference.symbols))]
    ranges, rts = symbols[: len(reference.range_vars)], symbols[len(reference.range_vars) :]
    header = f"({', '.join(names)})" + (f"[{', '.join(ranges)}]" if ranges else "")
    header += f"{{{', '.join(rts)}}}" if rts else ""
    domain = ", ".join(
        f"{n} in [{reference.bounds(v).lower}, {reference.bounds(v).upper}]"
        for n, v in zip(names + symbols, reference.all_variables, strict=True)
    )
    try:
        return parse_map(
            f"{header} -> ({text})" + (f", domain: {domain}" if domain else "")
        ).results[0]
    except VerifierError:
        return None


def unused_dims_existential(reference: IndexingMap) -> IndexingMap:
    """`reference` with the dims XLA's ``RemoveUnusedVars`` removes made
    existential: a dim is used when a result mentions it, or a constraint
    that mentions a used variable.  The kept dims stay in order, so they
    correspond to the new map's dims one for one."""
    used: set[Var] = set()
    for result in reference.results:
        used |= variables_of(result)
    changed = True
    while changed:
        changed = False
        for expr, _ in reference.constraints:
            mentioned = variables_of(expr)
            if mentioned & used and not mentioned <= used:
                used |= mentioned
                changed = True
    unused = [i for i in range(reference.num_dims) if dim(i) not in used]
    if not unused:
        return reference
    kept = [i for i in range(reference.num_dims) if i not in unused]
    n_range = len(reference.range_vars)
    moved: dict[Var, Expr] = {dim(i): dim(k) for k, i in enumerate(kept)}
    moved |= {dim(i): range_var(n_range + k) for k, i in enumerate(unused)}

    def move(v: Var) -> Expr:
        if v.kind is VarKind.DIM:
            return moved[v]
        return v

    return IndexingMap.create(
        [reference.dims[i] for i in kept],
        [substitute(r, move) for r in reference.results],
        range_vars=(*reference.range_vars, *(reference.dims[i] for i in unused)),
        rt_vars=reference.rt_vars,
        constraints=[(substitute(e, move), b) for e, b in reference.constraints],
    )


def symbols_to_dims(m: IndexingMap, indices: list[int]) -> IndexingMap | None:
    """The symbols at `indices` (range then runtime variables) made dims,
    appended in order after the dims; the others stay.  None when an index
    is not a symbol of `m`."""
    symbols = m.symbols
    if any(not 0 <= i < len(symbols) for i in indices):
        return None
    chosen = [symbols[i] for i in indices]
    rest_range = [v for v in symbols if v not in chosen and v.kind is VarKind.RANGE]
    rest_rt = [v for v in symbols if v not in chosen and v.kind is VarKind.RT]
    position: dict[Var, Expr] = {v: dim(m.num_dims + k) for k, v in enumerate(chosen)}
    position |= {v: range_var(k) for k, v in enumerate(rest_range)}
    position |= {v: rt_var(k) for k, v in enumerate(rest_rt)}

    def move(v: Var) -> Expr:
        return position.get(v, v)

    return IndexingMap.create(
        (*m.dims, *(m.bounds(v) for v in chosen)),
        [substitute(r, move) for r in m.results],
        range_vars=[m.bounds(v) for v in rest_range],
        rt_vars=[m.bounds(v) for v in rest_rt],
        constraints=[(substitute(e, move), b) for e, b in m.constraints],
    )


def affine_map(
    text: str,
    dims: list[tuple[int, int]],
    symbols: list[tuple[int, int]],
    rt_count: int,
    filename: str = "<map>",
) -> IndexingMap:
    """The map of an affine text (``(d0)[s0] -> (d0 + s0)``) with these
    bounds, its last `rt_count` symbols runtime variables; a `ParseError`
    when the text or the number of bounds is not right."""
    match = re.match(r"\s*\(([^()]*)\)\s*(?:\[([^\]]*)\])?\s*->(.*)$", text, re.S)
    if match is None:
        raise ParseError("an affine map text this reader does not read", SourceSpan(filename, 1, 1))
    dim_names = [n.strip() for n in match.group(1).split(",") if n.strip()]
    symbol_names = [n.strip() for n in (match.group(2) or "").split(",") if n.strip()]
    if len(dim_names) != len(dims) or len(symbol_names) != len(symbols):
        raise ParseError(
            "an affine map whose variables and bounds do not match in number",
            SourceSpan(filename, 1, 1),
        )
    first_rt = len(symbols) - rt_count
    ranges, rts = symbol_names[:first_rt], symbol_names[first_rt:]
    header = f"({', '.join(dim_names)})"
    header += f"[{', '.join(ranges)}]" if ranges else ""
    header += f"{{{', '.join(rts)}}}" if rts else ""
    domain = ", ".join(
        f"{n} in [{lo}, {hi}]"
        for n, (lo, hi) in zip(dim_names + symbol_names, dims + symbols, strict=True)
    )
    return parse_map(
        f"{header} ->{match.group(3)}" + (f", domain: {domain}" if domain else ""), filename
    )


def _order(shape: Shape) -> tuple[int, ...]:
    """The logical dims of `shape` in physical order, most major first."""
    return tuple(reversed(shape.layout_or_default.minor_to_major))


def logical_to_physical(shape: Shape) -> IndexingMap:
    """``(d0, …) -> (d_{order[0]}, …)``: a logical index's physical index."""
    sizes = [(0, n - 1) for n in shape.dimensions]
    return IndexingMap.create(sizes, [dim(k) for k in _order(shape)])


def physical_to_logical(shape: Shape) -> IndexingMap:
    """The inverse of `logical_to_physical`."""
    order = _order(shape)
    sizes = [(0, shape.dimensions[k] - 1) for k in order]
    return IndexingMap.create(sizes, [dim(order.index(k)) for k in range(len(order))])
