"""Typed values of HLO instruction attributes, and their parsers.

An attribute is `name=value` after an instruction's operands. Attributes the
indexing rules (and the reports) need become typed, frozen values; any other
attribute is kept as `RawAttribute(text)`, so an attribute this module does
not know never makes parsing fail.

Value grammars (trivia allowed between tokens inside braces)::

    int_list    := "{" [int {"," int}] "}"                 dimensions={1,0}
    slice       := "{" ["[" int ":" int [":" int] "]" {"," ...}] "}"
                                                           slice={[5:10:1], [0:50]}
    padding     := [pad_dim {"x" pad_dim}]                 padding=1_4_1x-4_8_0
    pad_dim     := int "_" int ["_" int]                   low_high[_interior]
    window      := "{" {key "=" dims} "}"                  window={size=3x3 pad=0_1x1_1}
    dim_labels  := labels "_" labels "->" labels           dim_labels=b01f_01io->b01f
    names       := "{" [name {"," name}] "}"               control-predecessors={%a, %b}
    replica_groups := "{" [int_list {"," int_list}] "}"    replica_groups={{0,1},{2,3}}
                    | "[" ints "]<=[" ints "]" ["T(" ints ")"]   replica_groups=[2,2]<=[4]

>>> parse_attribute("slice", "{[5:10:1], [3:20:7], [0:50]}")
(SliceDim(start=5, limit=10, stride=1), SliceDim(start=3, limit=20, stride=7), SliceDim(start=0, limit=50, stride=1))
>>> parse_attribute("padding", "1_4_1x-4_8")
(PaddingDim(low=1, high=4, interior=1), PaddingDim(low=-4, high=8, interior=0))
>>> parse_attribute("some_new_flag", "{a=[1,2] b=\\"}\\"}")
RawAttribute(text='{a=[1,2] b="}"}')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from math import prod
from typing import TypeVar, cast, overload

from verifier.errors import ParseError
from verifier.hlo.lexer import Scanner


@dataclass(frozen=True)
class RawAttribute:
    """An attribute kept as its exact text: one this parser has no typed form
    for, or one whose typed parser failed (`problem` says where and why; a
    rule that needs the attribute reports it)."""

    text: str
    problem: ParseError | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SliceDim:
    """One dimension of `slice={[start:limit:stride], ...}`; `limit` is exclusive.

    >>> SliceDim(3, 20, 7).size
    3
    """

    start: int
    limit: int
    stride: int = 1

    @property
    def size(self) -> int:
        """Number of elements the slice keeps in this dimension."""
        return max(0, -(-(self.limit - self.start) // self.stride))

    def __str__(self) -> str:
        return f"[{self.start}:{self.limit}:{self.stride}]"


@dataclass(frozen=True)
class PaddingDim:
    """One dimension of `padding=low_high_interior`; low and high may be negative.

    >>> str(PaddingDim(-1, 2, 1))
    '-1_2_1'
    """

    low: int
    high: int
    interior: int = 0

    def __str__(self) -> str:
        return f"{self.low}_{self.high}_{self.interior}"


@dataclass(frozen=True)
class WindowDim:
    """One dimension of a `window={...}`.

    `window_dilation` is XLA's `rhs_dilate`, `base_dilation` its `lhs_dilate`,
    `window_reversal` its `rhs_reversal`.

    >>> parse_attribute("window", "{size=3 stride=2 pad=0_1 lhs_dilate=2}")
    (WindowDim(size=3, stride=2, padding_low=0, padding_high=1, window_dilation=1, base_dilation=2, window_reversal=False),)
    """

    size: int
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    window_reversal: bool = False


@dataclass(frozen=True)
class ConvolutionDimensionNumbers:
    """`dim_labels=b01f_01io->b01f`: which dimension of each array plays which role.

    Spatial tuples are ordered by spatial number (the digit), and hold the
    position of that digit in the label string.

    >>> d = parse_attribute("dim_labels", "f01b_i10o->01bf")
    >>> d.input_batch, d.input_spatial, d.kernel_spatial, d.output_feature
    (3, (1, 2), (2, 1), 3)
    >>> str(d)
    'f01b_i10o->01bf'
    """

    input_batch: int
    input_feature: int
    input_spatial: tuple[int, ...]
    kernel_input_feature: int
    kernel_output_feature: int
    kernel_spatial: tuple[int, ...]
    output_batch: int
    output_feature: int
    output_spatial: tuple[int, ...]

    def __str__(self) -> str:
        def labels(rank: int, named: dict[int, str], spatial: tuple[int, ...]) -> str:
            chars = [""] * rank
            for position, label in named.items():
                chars[position] = label
            for number, position in enumerate(spatial):
                chars[position] = str(number)
            return "".join(chars)

        rank = len(self.input_spatial) + 2
        lhs = labels(rank, {self.input_batch: "b", self.input_feature: "f"}, self.input_spatial)
        rhs = labels(
            rank,
            {self.kernel_input_feature: "i", self.kernel_output_feature: "o"},
            self.kernel_spatial,
        )
        out = labels(rank, {self.output_batch: "b", self.output_feature: "f"}, self.output_spatial)
        return f"{lhs}_{rhs}->{out}"


@dataclass(frozen=True)
class DotDimensionNumbers:
    """The batch and contracting dimensions of a `dot` (each may be empty).

    >>> DotDimensionNumbers(lhs_contracting=(1,), rhs_contracting=(0,)).lhs_batch
    ()
    """

    lhs_batch: tuple[int, ...] = ()
    rhs_batch: tuple[int, ...] = ()
    lhs_contracting: tuple[int, ...] = ()
    rhs_contracting: tuple[int, ...] = ()


@dataclass(frozen=True)
class GatherDimensionNumbers:
    """The dimension numbers of a `gather` (`slice_sizes` is a separate attribute)."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    index_vector_dim: int
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    """The dimension numbers of a `scatter`."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    index_vector_dim: int
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


@dataclass(frozen=True)
class Metadata:
    """`metadata={op_type="..." op_name="..." source_file="..." source_line=12 ...}`.

    Fields without a typed slot are kept in `other` as (key, text) pairs;
    a quoted value is kept unescaped, anything else as written.
    """

    op_type: str | None = None
    op_name: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    other: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class BackendConfig:
    """`backend_config={...}` (JSON, kept as text) or `backend_config="..."` (unescaped)."""

    text: str


@dataclass(frozen=True)
class FrontendAttributes:
    """`frontend_attributes={key="value", ...}` with values unescaped.

    >>> parse_attribute("frontend_attributes", '{a="v\\\\"x", b="2"}').get("a")
    'v"x'
    """

    entries: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        """The value of `key`, or None."""
        for name, value in self.entries:
            if name == key:
                return value
        return None


@dataclass(frozen=True)
class Sharding:
    """`sharding={replicated}`, `{devices=[2,1]0,1}`, `{maximal device=0}` or a tuple `{{...}, {...}}`.

    `kind` is the leading word of a leaf (`replicated`, `maximal`, `manual`,
    `unknown`, `tiled` for `devices=...`); a tuple sharding has kind `tuple`
    and its elements in `elements`. `text` is the leaf's content as written.
    """

    kind: str
    text: str
    elements: tuple[Sharding, ...] = ()


@dataclass(frozen=True)
class ReplicaGroups:
    """`replica_groups={{0,1},{2,3}}`, with the iota form `[2,2]<=[4]` expanded.

    >>> parse_attribute("replica_groups", "[2,2]<=[2,2]T(1,0)").groups
    ((0, 2), (1, 3))
    """

    groups: tuple[tuple[int, ...], ...]


_T = TypeVar("_T")

AttributeValue = (
    int
    | bool
    | str
    | tuple[int, ...]
    | tuple[str, ...]
    | tuple[tuple[int, int], ...]
    | tuple[SliceDim, ...]
    | tuple[PaddingDim, ...]
    | tuple[WindowDim, ...]
    | ConvolutionDimensionNumbers
    | Metadata
    | BackendConfig
    | FrontendAttributes
    | Sharding
    | ReplicaGroups
    | RawAttribute
)
"""What an attribute parses to; which member is fixed by the attribute's name."""


# -- parsers of one value ----------------------------------------------------------


def _int_list(scanner: Scanner) -> tuple[int, ...]:
    scanner.expect("{", "to open an integer list")
    values: list[int] = []
    if scanner.accept("}"):
        return ()
    while True:
        values.append(scanner.integer())
        if scanner.accept("}"):
            return tuple(values)
        scanner.expect(",", "or '}' in an integer list")


def _natural_list(scanner: Scanner) -> tuple[int, ...]:
    start = scanner.pos
    values = _int_list(scanner)
    if any(v < 0 for v in values):
        raise scanner.error("expected non-negative integers in this list", start)
    return values


def _integer(scanner: Scanner) -> int:
    return scanner.integer()


def _boolean(scanner: Scanner) -> bool:
    start = scanner.pos
    word = scanner.identifier("'true' or 'false'")
    if word not in ("true", "false"):
        raise scanner.error(f"expected 'true' or 'false', found '{word}'", start)
    return word == "true"


def _word(scanner: Scanner) -> str:
    return scanner.identifier()


def _computation_name(scanner: Scanner) -> str:
    return scanner.name("a computation name")


def _quoted(scanner: Scanner) -> str:
    return scanner.string()


def _names(scanner: Scanner) -> tuple[str, ...]:
    scanner.expect("{", "to open a list of names")
    names: list[str] = []
    if scanner.accept("}"):
        return ()
    while True:
        names.append(scanner.name())
        if scanner.accept("}"):
            return tuple(names)
        scanner.expect(",", "or '}' in a list of names")


def _comparison_direction(scanner: Scanner) -> str:
    start = scanner.pos
    word = scanner.identifier("a comparison direction")
    if word not in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        raise scanner.error(
            f"expected a comparison direction (EQ, NE, LT, LE, GT, GE), found '{word}'", start
        )
    return word


def _slice(scanner: Scanner) -> tuple[SliceDim, ...]:
    scanner.expect("{", "to open a slice")
    dims: list[SliceDim] = []
    if scanner.accept("}"):
        return ()
    while True:
        scanner.expect("[", "to open a slice dimension")
        start = scanner.integer("a slice start")
        scanner.expect(":", "after the slice start")
        limit = scanner.integer("a slice limit")
        stride = 1
        if scanner.accept(":"):
            stride_at = scanner.pos
            stride = scanner.integer("a slice stride")
            if stride <= 0:
                raise scanner.error(f"slice stride must be positive, found {stride}", stride_at)
        scanner.expect("]", "to close a slice dimension")
        dims.append(SliceDim(start, limit, stride))
        if scanner.accept("}"):
            return tuple(dims)
        scanner.expect(",", "or '}' in a slice")


def _padding(scanner: Scanner) -> tuple[PaddingDim, ...]:
    dims: list[PaddingDim] = []
    if scanner.at_end():
        return ()
    while True:
        low = scanner.integer("a low padding")
        scanner.expect("_", "between low and high padding")
        high = scanner.integer("a high padding")
        interior = 0
        if scanner.accept("_"):
            interior = scanner.natural("a non-negative interior padding")
        dims.append(PaddingDim(low, high, interior))
        if not scanner.accept("x"):
            return tuple(dims)


def _x_separated(scanner: Scanner, what: str) -> list[int]:
    values = [scanner.integer(what)]
    while scanner.accept("x"):
        values.append(scanner.integer(what))
    return values


_WINDOW_KEYS = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")


def _window(scanner: Scanner) -> tuple[WindowDim, ...]:
    open_at = scanner.pos
    scanner.expect("{", "to open a window")
    fields: dict[str, list[int] | list[tuple[int, int]]] = {}
    counts: dict[str, int] = {}
    while not scanner.accept("}"):
        key_at = scanner.pos
        key = scanner.identifier("a window field (size, stride, pad, lhs_dilate, ...)")
        if key not in _WINDOW_KEYS:
            raise scanner.error(
                f"unknown window field '{key}': expected one of {', '.join(_WINDOW_KEYS)}", key_at
            )
        if key in fields:
            raise scanner.error(f"window field '{key}' given twice", key_at)
        scanner.expect("=", f"after window field '{key}'")
        if key == "pad":
            pads: list[tuple[int, int]] = []
            while True:
                low = scanner.integer("a low padding")
                scanner.expect("_", "between low and high padding")
                pads.append((low, scanner.integer("a high padding")))
                if not scanner.accept("x"):
                    break
            fields[key] = pads
        else:
            values = _x_separated(scanner, f"a window {key}")
            minimum = 0 if key == "rhs_reversal" else 1
            if any(v < minimum for v in values) or (key == "rhs_reversal" and max(values) > 1):
                raise scanner.error(f"invalid window {key} {'x'.join(map(str, values))}", key_at)
            fields[key] = values
        counts[key] = len(fields[key])
    if not fields:
        return ()
    if "size" not in fields:
        raise scanner.error("window has no 'size' field", open_at)
    rank = counts["size"]
    for key, count in counts.items():
        if count != rank:
            raise scanner.error(
                f"window field '{key}' has {count} dimensions but 'size' has {rank}", open_at
            )

    def ints(key: str, default: int) -> list[int]:
        return cast(list[int], fields.get(key, [default] * rank))

    pad = cast(list[tuple[int, int]], fields.get("pad", [(0, 0)] * rank))
    return tuple(
        WindowDim(size, stride, low, high, window_dilation, base_dilation, bool(reversal))
        for size, stride, (low, high), window_dilation, base_dilation, reversal in zip(
            ints("size", 1),
            ints("stride", 1),
            pad,
            ints("rhs_dilate", 1),
            ints("lhs_dilate", 1),
            ints("rhs_reversal", 0),
            strict=True,
        )
    )


def _labels(
    scanner: Scanner, text: str, offset: int, named: str
) -> tuple[dict[str, int], tuple[int, ...]]:
    """Positions of the two named roles and of spatial dims 0..n-1 in one label group."""
    roles: dict[str, int] = {}
    spatial: dict[int, int] = {}
    for position, char in enumerate(text):
        if char in named and char not in roles:
            roles[char] = position
        elif char.isdigit() and int(char) not in spatial:
            spatial[int(char)] = position
        else:
            raise scanner.error(
                f"unexpected '{char}' in dimension labels '{text}': expected each of "
                f"'{named[0]}', '{named[1]}' once and spatial digits",
                offset + position,
            )
    if len(roles) != 2:
        raise scanner.error(
            f"dimension labels '{text}' need both '{named[0]}' and '{named[1]}'", offset
        )
    if sorted(spatial) != list(range(len(spatial))):
        raise scanner.error(
            f"spatial labels in '{text}' must be 0..{len(spatial) - 1} without gaps", offset
        )
    return roles, tuple(spatial[n] for n in range(len(spatial)))


def _dim_labels(scanner: Scanner) -> ConvolutionDimensionNumbers:
    scanner.skip_trivia()
    start = scanner.pos
    text = scanner.text[start : scanner.end].rstrip()
    lhs, _, rest = text.partition("_")
    rhs, arrow, out = rest.partition("->")
    if not arrow or not lhs or not rhs or not out:
        raise scanner.error(
            f"expected dimension labels like 'b01f_01io->b01f', found '{text}'", start
        )
    rhs_at = start + len(lhs) + 1
    input_roles, input_spatial = _labels(scanner, lhs, start, "bf")
    kernel_roles, kernel_spatial = _labels(scanner, rhs, rhs_at, "io")
    output_roles, output_spatial = _labels(scanner, out, rhs_at + len(rhs) + 2, "bf")
    if not len(input_spatial) == len(kernel_spatial) == len(output_spatial):
        raise scanner.error(
            f"dimension labels '{text}' have different numbers of spatial dimensions", start
        )
    scanner.pos = start + len(text)
    return ConvolutionDimensionNumbers(
        input_roles["b"],
        input_roles["f"],
        input_spatial,
        kernel_roles["i"],
        kernel_roles["o"],
        kernel_spatial,
        output_roles["b"],
        output_roles["f"],
        output_spatial,
    )


_METADATA_FIELD = re.compile(r'[\s,]*([A-Za-z_]\w*)=("[^"\\]*"|[^\s,"{}()\[\]\\]++)')
# Metadata whose every field is plain (no backslash), in one match; a bare
# value is read as far as it goes (`++`), as the general path reads it.
_PLAIN_METADATA = re.compile(
    r'\{((?:[\s,]*[A-Za-z_]\w*=(?:"[^"\\]*"|[^\s,"{}()\[\]\\]++))*)[\s,]*\}'
)


def _metadata(scanner: Scanner) -> Metadata:
    """Fields `key=value`, separated by spaces or commas; strings unescaped."""
    fast = _plain_metadata(scanner)
    if fast is not None:
        return fast
    scanner.expect("{", "to open metadata")
    strings: dict[str, str] = {}
    other: list[tuple[str, str]] = []
    source_line: int | None = None
    while not scanner.accept("}"):
        if other or strings or source_line is not None:
            scanner.accept(",")  # XLA also separates the fields with commas
        key = scanner.identifier("a metadata field")
        scanner.expect("=", f"after metadata field '{key}'")
        if key == "source_line":
            source_line = scanner.integer("a source line")
        elif scanner.peek() == '"':
            value = scanner.string()
            if key in ("op_type", "op_name", "source_file"):
                strings[key] = value
            else:
                other.append((key, value))
        else:
            value_start, value_end = scanner.value_extent()
            if value_start == value_end:
                raise scanner.error(f"expected a value for metadata field '{key}'")
            other.append((key, scanner.text[value_start:value_end]))
    return Metadata(
        strings.get("op_type"),
        strings.get("op_name"),
        strings.get("source_file"),
        source_line,
        tuple(other),
    )


def _plain_metadata(scanner: Scanner) -> Metadata | None:
    """The metadata in one regular-expression pass when every string is
    free of escapes and every value plain (what XLA prints); else None."""
    whole = _PLAIN_METADATA.match(scanner.text, scanner.pos, scanner.end)
    if whole is None:
        return None
    metadata = _plain_metadata_fields(whole.group(1))
    if metadata is not None:
        scanner.pos = whole.end()
    return metadata


def plain_metadata(text: str, pos: int, end: int) -> tuple[Metadata, int] | None:
    """The metadata at `text[pos:end]` and where it ends, when
    `read_attribute_value` reads it in one pass (`_plain_metadata`, and
    the value ends there); else None.

    >>> plain_metadata('metadata={op_name="a" source_line=3}, x=1', 9, 41)
    (Metadata(op_type=None, op_name='a', source_file=None, source_line=3, other=()), 36)
    """
    whole = _PLAIN_METADATA.match(text, pos, end)
    if whole is None:
        return None
    metadata = _plain_metadata_fields(whole.group(1))
    if metadata is None or _VALUE_END.match(text, whole.end(), end) is None:
        return None
    return metadata, whole.end()


@lru_cache(maxsize=4096)
def _plain_metadata_fields(text: str) -> Metadata | None:
    """The metadata of the fields `text` (between the braces), or None when
    the general path must read them; cached, as a dump repeats its metadata."""
    pairs = _METADATA_FIELD.findall(text)
    fields = dict(pairs)
    if len(fields) != len(pairs):
        return None  # a field given twice: the general path names it
    line = fields.pop("source_line", None)
    if line is not None and not (line.isdigit() and len(line) <= 18):
        return None
    typed = {k: v[1:-1] for k, v in fields.items() if k in _TYPED_METADATA and v[0] == '"'}
    other = tuple((k, v.strip('"')) for k, v in fields.items() if k not in typed)
    return Metadata(
        typed.get("op_type"),
        typed.get("op_name"),
        typed.get("source_file"),
        None if line is None else int(line),
        other,
    )


_TYPED_METADATA = frozenset({"op_type", "op_name", "source_file"})


def _backend_config(scanner: Scanner) -> BackendConfig:
    if scanner.peek() == '"':
        return BackendConfig(scanner.string())
    start, end = scanner.value_extent()
    return BackendConfig(scanner.text[start:end])


def _frontend_attributes(scanner: Scanner) -> FrontendAttributes:
    scanner.expect("{", "to open frontend attributes")
    entries: list[tuple[str, str]] = []
    if scanner.accept("}"):
        return FrontendAttributes(())
    while True:
        key = scanner.string() if scanner.peek() == '"' else scanner.identifier("a key")
        scanner.expect("=", f"after frontend attribute '{key}'")
        if scanner.peek() == '"':
            value = scanner.string()
        else:
            value_start, value_end = scanner.value_extent()
            value = scanner.text[value_start:value_end]
        entries.append((key, value))
        if scanner.accept("}"):
            return FrontendAttributes(tuple(entries))
        scanner.expect(",", "or '}' in frontend attributes")


def _sharding(scanner: Scanner, depth: int = 0) -> Sharding:
    scanner.skip_trivia()
    open_at = scanner.pos
    if not scanner.at("{"):
        raise scanner.error(f"expected '{{' to open a sharding, found {scanner.describe_here()}")
    if depth > 32:
        raise scanner.error("sharding nested too deeply")
    close = scanner.skip_balanced(open_at)
    scanner.expect("{")
    if scanner.at("{"):
        elements: list[Sharding] = []
        while True:
            elements.append(_sharding(scanner, depth + 1))
            if scanner.accept("}"):
                break
            scanner.expect(",", "or '}' in a tuple sharding")
        return Sharding("tuple", scanner.text[open_at + 1 : close - 1].strip(), tuple(elements))
    text = scanner.text[open_at + 1 : close - 1].strip()
    word = ""
    for char in text:
        if not (char.isalnum() or char == "_"):
            break
        word += char
    scanner.pos = close
    if not text:
        return Sharding("tuple", "", ())
    if not word:
        raise scanner.error("expected a sharding ('replicated', 'devices=...', ...)", open_at + 1)
    return Sharding("tiled" if word == "devices" else word, text)


def _bracket_ints(scanner: Scanner) -> tuple[int, ...]:
    scanner.expect("[")
    values = [scanner.natural()]
    while scanner.accept(","):
        values.append(scanner.natural())
    scanner.expect("]", "to close the list")
    return tuple(values)


def _mesh_replica_groups(scanner: Scanner) -> ReplicaGroups:
    """`mesh['x'=2,'y'=4] {'y'}`: devices 0..7 laid out row-major on a 2x4
    mesh; a group varies the named axes and fixes the others.

    >>> parse_attribute("replica_groups", "mesh['x'=2,'y'=4] {'x'}").groups
    ((0, 4), (1, 5), (2, 6), (3, 7))
    """
    start = scanner.pos
    scanner.expect("[", "after 'mesh'")
    axes: list[tuple[str, int]] = []
    while True:
        name = _quoted_axis(scanner)
        scanner.expect("=", f"after mesh axis '{name}'")
        axes.append((name, scanner.natural("a mesh axis size")))
        if scanner.accept("]"):
            break
        scanner.expect(",", "or ']' in a mesh")
    scanner.expect("{", "to open the grouped mesh axes")
    grouped: list[str] = []
    while not scanner.accept("}"):
        if grouped:
            scanner.expect(",", "or '}' in the grouped mesh axes")
        grouped.append(_quoted_axis(scanner))
    names = [name for name, _ in axes]
    if len(set(names)) != len(names) or not set(grouped) <= set(names):
        raise scanner.error("mesh axes must be distinct and the grouped ones among them", start)
    sizes = [size for _, size in axes]
    if prod(sizes) > 1 << 16:
        raise scanner.error("mesh has more than 65536 devices", start)
    # Group axes last: each row of the transposed iota is one group.
    order = [k for k, n in enumerate(names) if n not in grouped] + [names.index(n) for n in grouped]
    devices = _transposed_iota(tuple(sizes), tuple(order))
    size = prod(sizes[names.index(n)] for n in grouped)
    return ReplicaGroups(tuple(tuple(devices[i : i + size]) for i in range(0, len(devices), size)))


def _quoted_axis(scanner: Scanner) -> str:
    scanner.skip_trivia()
    start = scanner.pos
    end = scanner.text.find("'", start + 1, scanner.end)
    if not scanner.at("'") or end == -1:
        raise scanner.error(
            f"expected a quoted mesh axis name like 'x', found {scanner.describe_here()}"
        )
    scanner.pos = end + 1
    return scanner.text[start + 1 : end]


def _replica_groups(scanner: Scanner) -> ReplicaGroups:
    scanner.skip_trivia()
    start = scanner.pos
    if scanner.accept("mesh"):
        return _mesh_replica_groups(scanner)
    if scanner.at("["):
        group_dims = _bracket_ints(scanner)
        scanner.expect("<=", "in an iota replica list like '[2,2]<=[4]'")
        reshape = _bracket_ints(scanner)
        permutation = tuple(range(len(reshape)))
        if scanner.accept("T"):
            scanner.expect("(", "after 'T'")
            values = [scanner.natural()]
            while scanner.accept(","):
                values.append(scanner.natural())
            scanner.expect(")", "to close the transpose")
            permutation = tuple(values)
        if sorted(permutation) != list(range(len(reshape))) or len(group_dims) != 2:
            raise scanner.error("invalid iota replica groups", start)
        if prod(group_dims) != prod(reshape) or prod(reshape) > 1 << 16:
            raise scanner.error("iota replica groups: sizes do not match", start)
        devices = _transposed_iota(reshape, permutation)
        size = group_dims[1]
        return ReplicaGroups(
            tuple(tuple(devices[i : i + size]) for i in range(0, len(devices), size))
        )
    scanner.expect("{", "to open replica groups")
    groups: list[tuple[int, ...]] = []
    if scanner.accept("}"):
        return ReplicaGroups(())
    while True:
        groups.append(_natural_list(scanner))
        if scanner.accept("}"):
            return ReplicaGroups(tuple(groups))
        scanner.expect(",", "or '}' in replica groups")


def _transposed_iota(dims: tuple[int, ...], permutation: tuple[int, ...]) -> list[int]:
    """`iota(prod(dims)).reshape(dims).transpose(permutation).flatten()`."""
    strides = [prod(dims[i + 1 :]) for i in range(len(dims))]
    out_dims = [dims[p] for p in permutation]
    result: list[int] = []
    for linear in range(prod(dims)):
        rest, value = linear, 0
        for axis in range(len(out_dims) - 1, -1, -1):
            rest, index = divmod(rest, out_dims[axis])
            value += index * strides[permutation[axis]]
        result.append(value)
    return result


def _source_target_pairs(scanner: Scanner) -> tuple[tuple[int, int], ...]:
    scanner.expect("{", "to open source-target pairs")
    pairs: list[tuple[int, int]] = []
    if scanner.accept("}"):
        return ()
    while True:
        pair_at = scanner.pos
        pair = _natural_list(scanner)
        if len(pair) != 2:
            raise scanner.error("expected a pair {source,target}", pair_at)
        pairs.append((pair[0], pair[1]))
        if scanner.accept("}"):
            return tuple(pairs)
        scanner.expect(",", "or '}' in source-target pairs")


_INT_LISTS = (
    "dimensions",
    "dynamic_slice_sizes",
    "slice_sizes",
    "offset_dims",
    "collapsed_slice_dims",
    "start_index_map",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "update_window_dims",
    "inserted_window_dims",
    "scatter_dims_to_operand_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "lhs_batch_dims",
    "rhs_batch_dims",
    "lhs_contracting_dims",
    "rhs_contracting_dims",
    "lhs_ragged_dims",
    "rhs_group_dims",
    "fft_length",
)
_INTEGERS = (
    "index",
    "index_vector_dim",
    "feature_group_count",
    "batch_group_count",
    "channel_id",
    "iota_dimension",
    "exponent_bits",
    "mantissa_bits",
    "k",
    "feature_index",
    "num_carries",
)
_BOOLEANS = (
    "is_stable",
    "indices_are_sorted",
    "unique_indices",
    "largest",
    "constrain_layout",
    "use_global_device_ids",
    "is_reverse",
    "is_associative",
    "is_host_transfer",
    "left_side",
    "lower",
    "unit_diagonal",
)
_WORDS = ("kind", "distribution", "fft_type", "transpose_a")
COMPUTATION_ATTRIBUTES = (
    "to_apply",
    "calls",
    "body",
    "condition",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
)
"""Attributes whose value names one called computation."""
COMPUTATION_LIST_ATTRIBUTES = ("branch_computations", "called_computations")
"""Attributes whose value names several called computations."""

_PARSERS: dict[str, Callable[[Scanner], AttributeValue]] = {
    **{name: _natural_list for name in _INT_LISTS},
    **{name: _integer for name in _INTEGERS},
    **{name: _boolean for name in _BOOLEANS},
    **{name: _word for name in _WORDS},
    **{name: _computation_name for name in COMPUTATION_ATTRIBUTES},
    **{name: _names for name in COMPUTATION_LIST_ATTRIBUTES},
    "control-predecessors": _names,
    "custom_call_target": _quoted,
    "comparison_direction": _comparison_direction,
    "direction": _comparison_direction,
    "slice": _slice,
    "padding": _padding,
    "window": _window,
    "dim_labels": _dim_labels,
    "metadata": _metadata,
    "backend_config": _backend_config,
    "frontend_attributes": _frontend_attributes,
    "sharding": _sharding,
    "replica_groups": _replica_groups,
    "source_target_pairs": _source_target_pairs,
}


def is_known_attribute(name: str) -> bool:
    """Whether `name` parses to a typed value (otherwise it is kept raw)."""
    return name in _PARSERS


# Values read in one pass at the scanner when they are plain (what XLA
# prints), before the general path finds the value's extent and reads it
# again: metadata is on most instructions of a dump.
_PLAIN_NATURALS = re.compile(r"\{((?:[0-9]{1,18}(?:,[0-9]{1,18})*)?)\}")


_NATURAL_LISTS: dict[str, tuple[int, ...]] = {}
"""The lists read so far, by their digits: a module repeats a few (`{1,0}`), so
every instruction shares one tuple of each."""


def _plain_natural_list(scanner: Scanner) -> tuple[int, ...] | None:
    """``{1,0}`` with no space or sign in one match, else None."""
    match = _PLAIN_NATURALS.match(scanner.text, scanner.pos, scanner.end)
    if match is None:
        return None
    scanner.pos = match.end()
    digits = match.group(1)
    value = _NATURAL_LISTS.get(digits)
    if value is None:
        value = tuple(map(int, digits.split(","))) if digits else ()
        if len(_NATURAL_LISTS) < 65536:  # bounded: a module of distinct lists grows no cache
            _NATURAL_LISTS[digits] = value
    return value


_PLAIN_READERS: dict[str, Callable[[Scanner], AttributeValue | None]] = {
    "metadata": _plain_metadata,
    **{name: _plain_natural_list for name in _INT_LISTS},
}
# Where `Scanner.value_extent(spaces=True)` ends a value that closes here.
_VALUE_END = re.compile(r"[ \t]*(?:[,)\]}\n]|$)")


def read_attribute_value(name: str, scanner: Scanner) -> AttributeValue:
    """Read the value of attribute `name` at the scanner; the scanner moves past it."""
    plain = _PLAIN_READERS.get(name)
    if plain is not None:
        scanner.skip_trivia()
        start = scanner.pos
        value = plain(scanner)
        if value is not None and _VALUE_END.match(scanner.text, scanner.pos, scanner.end):
            return value
        scanner.pos = start
    start, end = scanner.value_extent(spaces=True)
    parser = _PARSERS.get(name)
    if parser is None:
        return RawAttribute(scanner.text[start:end])
    if start == end and name not in ("padding",):
        raise scanner.error(f"expected a value for attribute '{name}'", start)
    value_scanner = scanner.sub_scanner(start, end)
    value = parser(value_scanner)
    if not value_scanner.at_end():
        raise value_scanner.error(
            f"unexpected {value_scanner.describe_here()} in the value of '{name}'"
        )
    return value


def parse_attribute(name: str, text: str, filename: str = "<input>") -> AttributeValue:
    """Parse `text` as the value of attribute `name`.

    >>> parse_attribute("dimensions", "{1,0}")
    (1, 0)
    """
    scanner = Scanner(text, filename=filename)
    value = read_attribute_value(name, scanner)
    if not scanner.at_end():
        raise scanner.error(f"unexpected {scanner.describe_here()} after the value of '{name}'")
    return value


# -- the attributes of one instruction ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Attributes(Mapping[str, AttributeValue]):
    """The attributes of an instruction, in source order; an immutable mapping.

    >>> attrs = Attributes((("dimensions", (1, 0)), ("kind", "kLoop")))
    >>> attrs["kind"], attrs.ints("dimensions"), attrs.ints("kind")
    ('kLoop', (1, 0), None)
    """

    entries: tuple[tuple[str, AttributeValue], ...] = ()
    _index: dict[str, AttributeValue] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", dict(self.entries))  # private: never handed out

    def __getitem__(self, name: str) -> AttributeValue:
        return self._index[name]

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, name: object) -> bool:
        return name in self._index  # Mapping's raises and catches a KeyError per miss

    @overload
    def get(self, name: str, /) -> AttributeValue | None: ...

    @overload
    def get(self, name: str, /, default: AttributeValue | _T) -> AttributeValue | _T: ...

    def get(self, name: str, /, default: object = None) -> object:
        """The value of `name`, `default` when absent."""
        return self._index.get(name, default)

    def ints(self, name: str) -> tuple[int, ...] | None:
        """The integer list `name`, or None when absent or of another kind."""
        value = self._index.get(name)
        if isinstance(value, tuple) and all([type(v) is int for v in value]):
            return cast(tuple[int, ...], value)
        return None

    def integer(self, name: str) -> int | None:
        """The integer `name` (not a bool), or None."""
        value = self._index.get(name)
        return value if type(value) is int else None

    def boolean(self, name: str) -> bool | None:
        """The boolean `name`, or None."""
        value = self._index.get(name)
        return value if isinstance(value, bool) else None

    def word(self, name: str) -> str | None:
        """The string value of `name` (a name, an enum word, a quoted target), or None."""
        value = self._index.get(name)
        return value if isinstance(value, str) else None

    def names(self, name: str) -> tuple[str, ...] | None:
        """The list of names `name` (e.g. `control-predecessors`), or None."""
        value = self._index.get(name)
        if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            return cast(tuple[str, ...], value)
        return None

    def raw(self, name: str) -> str | None:
        """The text of an attribute kept raw, or None."""
        value = self._index.get(name)
        return value.text if isinstance(value, RawAttribute) else None
