"""HLO shapes and layouts: `f32[2,3]{1,0}`, `(f32[2], s32[])`, `bf16[8,128]{1,0:T(8,128)S(1)}`.

Grammar (trivia — whitespace and `/*...*/` comments — allowed between tokens)::

    shape      := tuple_shape | buffer | array_shape
    tuple_shape:= "(" [shape {"," shape}] ")"
    array_shape:= element_type "[" [dim {"," dim}] "]" [layout]
    dim        := int | "<=" int | "?"                 # "<=N": dynamic, bounded by N;
                                                       # "?": dynamic, unbounded
    buffer     := "b(" shape ")"                       # a buffer holding the shape
    layout     := "{" [int {"," int}] [":" {field}] "}"
    field      := "T" tile {tile}                      # tilings, outer first
                | "L(" int ")"                         # tail padding alignment (elements)
                | "E(" int ")"                         # element size in bits
                | "S(" int ")"                         # memory space
                | "SC" split {split}                   # split configs
                | FIELD_NAME "(" balanced ")" {"(" balanced ")"}   # kept as text
    tile       := "(" tile_dim {"," tile_dim} ")"
    tile_dim   := int | "*"                            # "*" combines with the next dim
    split      := "(" int ":" [int {"," int}] ")"      # dimension : split indices

>>> shape = parse_shape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}")
>>> shape.layout.tiles
(Tile(dimensions=(8, 128)), Tile(dimensions=(2, 1)))
>>> str(shape)
'bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}'
>>> str(parse_shape("(f32[2], s32[<=5])"))
'(f32[2], s32[<=5])'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from math import prod
from typing import TypeAlias

from verifier.hlo.lexer import Scanner

COMBINE_DIMENSION = -(2**63)
"""A tile dimension printed `*`: the tile combines this dim with the next minor one."""

TUPLE = "tuple"
"""The element type of a tuple shape."""

UNBOUNDED = -1
"""The size of an unbounded dynamic dimension `?` (its `dynamic` flag is set)."""

_MAX_TUPLE_DEPTH = 64

_SHAPE_AHEAD = re.compile(r"\(|b\(|[a-z][a-z0-9]*\[")
_PLAIN_ARRAY = re.compile(
    r"([a-z][a-z0-9]*)\[((?:[0-9]{1,18}(?:,[0-9]{1,18})*)?)\]"
    r"(?:\{((?:[0-9]{1,18}(?:,[0-9]{1,18})*)?)\}|(?![\s/]*\{))"
)

_BIT_WIDTHS: dict[str, int] = {
    "pred": 1,
    "s1": 1,
    "s2": 2,
    "s4": 4,
    "s8": 8,
    "s16": 16,
    "s32": 32,
    "s64": 64,
    "u1": 1,
    "u2": 2,
    "u4": 4,
    "u8": 8,
    "u16": 16,
    "u32": 32,
    "u64": 64,
    "f16": 16,
    "bf16": 16,
    "f32": 32,
    "f64": 64,
    "c64": 64,
    "c128": 128,
    "f4e2m1fn": 4,
    "f6e2m3fn": 6,
    "f6e3m2fn": 6,
    "f8e3m4": 8,
    "f8e4m3": 8,
    "f8e4m3fn": 8,
    "f8e4m3fnuz": 8,
    "f8e4m3b11fnuz": 8,
    "f8e5m2": 8,
    "f8e5m2fnuz": 8,
    "f8e8m0fnu": 8,
}


def element_bit_width(element_type: str) -> int | None:
    """Bits of one element as XLA's `primitive_util::BitWidth` counts them.

    `None` for types without a width (`token`, `opaque`, `tuple`) or unknown names.

    >>> element_bit_width("bf16"), element_bit_width("pred"), element_bit_width("token")
    (16, 1, None)
    """
    return _BIT_WIDTHS.get(element_type)


def integer_values(element_type: str) -> tuple[int, int] | None:
    """The least and greatest value of an integer element type; `None` for
    any other type.

    >>> integer_values("s8"), integer_values("u16"), integer_values("f32")
    ((-128, 127), (0, 65535), None)
    """
    bits = _BIT_WIDTHS.get(element_type)
    if bits is None or element_type[0] not in "su":
        return None
    if element_type[0] == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


@dataclass(frozen=True)
class Tile:
    """One tiling of a layout: `T(8,128)` is `Tile((8, 128))`.

    `COMBINE_DIMENSION` stands for `*`; `-1` is kept as is.

    >>> str(Tile((8, COMBINE_DIMENSION, -1)))
    '(8,*,-1)'
    """

    dimensions: tuple[int, ...]

    def __str__(self) -> str:
        parts = ("*" if d == COMBINE_DIMENSION else str(d) for d in self.dimensions)
        return "(" + ",".join(parts) + ")"


@dataclass(frozen=True)
class SplitConfig:
    """One split config of a layout: `SC(0:1024,2048)` splits dimension 0 at
    indices 1024 and 2048 (the buffer is split across memories).

    >>> str(SplitConfig(0, (1024, 2048)))
    '(0:1024,2048)'
    """

    dimension: int
    split_indices: tuple[int, ...]

    def __str__(self) -> str:
        return f"({self.dimension}:{','.join(map(str, self.split_indices))})"


@dataclass(frozen=True)
class Layout:
    """A layout: `{3,2,0,1:T(8,128)(2,1)L(1024)E(4)S(1)SC(0:8)}`.

    `tail_padding_alignment` is `L(n)` (the element count is rounded up to a
    multiple of n; 1 when absent), `element_size_in_bits` is `E(n)` (0 when
    absent: the element type's own size).  `extra` keeps every other layout
    field (`D(...)`, `#(...)`, `*(...)`, `P(...)`, `M(...)`, ...) as text, in
    source order.  Printed in XLA's field order (`Layout::Print`).

    >>> str(Layout((1, 0), (Tile((2, 2)),), 1, "", 1024, 4))
    '{1,0:T(2,2)L(1024)E(4)S(1)}'
    """

    minor_to_major: tuple[int, ...]
    tiles: tuple[Tile, ...] = ()
    memory_space: int | None = None
    extra: str = ""
    tail_padding_alignment: int = 1
    element_size_in_bits: int = 0
    split_configs: tuple[SplitConfig, ...] = ()

    def __str__(self) -> str:
        fields = _split_layout_fields(self.extra)
        before = "".join(f for f in fields if f.startswith("D("))
        before_size = "".join(f for f in fields if f.startswith(("#(", "*(")))
        after_tiles = "".join(f for f in fields if not f.startswith(("D(", "#(", "*(", "P(", "M(")))
        last = "".join(f for f in fields if f.startswith(("P(", "M(")))
        tiles = "T" + "".join(str(t) for t in self.tiles) if self.tiles else ""
        tail = f"L({self.tail_padding_alignment})" if self.tail_padding_alignment != 1 else ""
        size = f"E({self.element_size_in_bits})" if self.element_size_in_bits else ""
        space = f"S({self.memory_space})" if self.memory_space is not None else ""
        splits = "SC" + "".join(map(str, self.split_configs)) if self.split_configs else ""
        suffix = before + tiles + tail + before_size + size + after_tiles + space + splits + last
        body = ",".join(str(d) for d in self.minor_to_major)
        return "{" + body + (":" + suffix if suffix else "") + "}"

    @property
    def is_dense(self) -> bool:
        """Every dimension level type is dense (`D(D,D)`, or none written);
        `C` (compressed) and `S` (singleton) levels make a sparse layout.

        >>> parse_shape("f32[4,4]{1,0:D(D,C)}").layout.is_dense
        False
        """
        levels = (
            level.strip().rstrip("+~")
            for field in _split_layout_fields(self.extra)
            if field.startswith("D(")
            for level in field[2:-1].split(",")
        )
        return all(level == "D" for level in levels)

    @property
    def is_plain(self) -> bool:
        """No tiles, memory space or other fields: only a dimension order."""
        return self == Layout(self.minor_to_major)


def _split_layout_fields(extra: str) -> tuple[str, ...]:
    """Split `E(4)SC(0:1)` into `('E(4)', 'SC(0:1)')` (fields end at top-level `)`).

    `extra` was produced by the layout parser, so parentheses balance.
    """
    fields: list[str] = []
    start = depth = 0
    for index, char in enumerate(extra):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            next_char = extra[index + 1 : index + 2]
            if depth == 0 and next_char != "(":
                fields.append(extra[start : index + 1])
                start = index + 1
    if start < len(extra):
        fields.append(extra[start:])
    return tuple(fields)


def default_layout(rank: int) -> Layout:
    """The major-to-minor layout `{rank-1, ..., 0}`.

    >>> str(default_layout(3))
    '{2,1,0}'
    """
    return Layout(tuple(range(rank - 1, -1, -1)))


ShapeIndex: TypeAlias = tuple[int, ...]
"""The position of a sub-shape inside nested tuples: ``(1, 0)`` is element 0
of element 1; ``()`` is the whole shape."""


@dataclass(frozen=True)
class Shape:
    """An array shape (`f32[2,3]{1,0}`) or a tuple shape (`(f32[2], s32[])`).

    For a tuple, `element_type` is `"tuple"`, `dimensions` is empty and
    `tuple_shapes` holds the elements. A dynamic dim `<=5` keeps its bound 5
    in `dimensions` and is marked in `dynamic`; an unbounded one `?` is
    `UNBOUNDED` (no map can range over it).  `buffer` marks XLA's buffer
    shape `b(f32[16])`, a buffer holding an array of that shape.

    >>> s = Shape("f32", (2, 3))
    >>> s.rank, s.num_elements, str(s.layout_or_default)
    (2, 6, '{1,0}')
    """

    element_type: str
    dimensions: tuple[int, ...] = ()
    layout: Layout | None = None
    tuple_shapes: tuple[Shape, ...] | None = None
    dynamic: tuple[bool, ...] = ()
    buffer: bool = False

    def __post_init__(self) -> None:
        if not self.dynamic and self.dimensions:
            object.__setattr__(self, "dynamic", (False,) * len(self.dimensions))
        if len(self.dynamic) != len(self.dimensions):
            raise ValueError(
                f"Shape has {len(self.dimensions)} dimensions but {len(self.dynamic)} dynamic flags"
            )

    @staticmethod
    def tuple_of(*elements: Shape) -> Shape:
        """The tuple shape of `elements`.

        >>> str(Shape.tuple_of(Shape("f32", (2,)), Shape("s32")))
        '(f32[2], s32[])'
        """
        return Shape(TUPLE, tuple_shapes=tuple(elements))

    @cached_property
    def leaves(self) -> tuple[tuple[ShapeIndex, Shape], ...]:
        """Every array of this shape with its shape index, depth first (XLA's
        leaf order); an array is its own single leaf at ``()``, the empty
        tuple has none.  Computed once per shape: every output and operand
        of a tuple-shaped value is numbered by it.

        >>> [(i, str(s)) for i, s in parse_shape("((f32[2], s32[]), f32[3])").leaves]
        [((0, 0), 'f32[2]'), ((0, 1), 's32[]'), ((1,), 'f32[3]')]
        """
        if self.tuple_shapes is None:
            return (((), self),)
        return tuple(
            ((position, *index), leaf)
            for position, element in enumerate(self.tuple_shapes)
            for index, leaf in element.leaves
        )

    def subshape(self, index: ShapeIndex) -> Shape:
        """The shape at `index` (``()`` is the shape itself).

        >>> str(parse_shape("((f32[2], s32[]), f32[3])").subshape((0,)))
        '(f32[2], s32[])'
        """
        shape = self
        for position in index:
            if shape.tuple_shapes is None or not 0 <= position < len(shape.tuple_shapes):
                raise ValueError(f"shape index {list(index)} is not inside {self}")
            shape = shape.tuple_shapes[position]
        return shape

    @property
    def is_tuple(self) -> bool:
        """Whether this is a tuple shape."""
        return self.tuple_shapes is not None

    @property
    def rank(self) -> int:
        """Number of dimensions (0 for scalars and tuples)."""
        return len(self.dimensions)

    @property
    def num_elements(self) -> int:
        """Product of the dimensions (1 for a scalar); dynamic dims count their bound."""
        return prod(self.dimensions)

    @property
    def is_dynamic(self) -> bool:
        """Whether any dimension is dynamic (`<=N` or `?`)."""
        return any(self.dynamic)

    @cached_property
    def is_unbounded(self) -> bool:
        """Whether this shape, or one of its tuple elements, has a `?` dimension.

        >>> parse_shape("(f32[2], f32[?,3])").is_unbounded
        True
        """
        if self.tuple_shapes is not None:
            return any(element.is_unbounded for element in self.tuple_shapes)
        return UNBOUNDED in self.dimensions

    def compatible(self, other: Shape) -> bool:
        """Equal element types, dimension sizes and tuple structure; layouts,
        dynamic-ness and buffer-ness ignored (XLA's `ShapeUtil::Compatible`,
        what it requires of an operand written with its shape).

        >>> parse_shape("s32[5]{0:T(128)S(1)}").compatible(parse_shape("s32[<=5]{0:T(128)}"))
        True
        """
        if self.tuple_shapes is not None or other.tuple_shapes is not None:
            if self.tuple_shapes is None or other.tuple_shapes is None:
                return False
            return len(self.tuple_shapes) == len(other.tuple_shapes) and all(
                a.compatible(b) for a, b in zip(self.tuple_shapes, other.tuple_shapes, strict=True)
            )
        return (self.element_type, self.dimensions) == (other.element_type, other.dimensions)

    def default_layout(self) -> Layout:
        """The major-to-minor layout for this shape's rank."""
        return default_layout(self.rank)

    @property
    def layout_or_default(self) -> Layout:
        """The printed layout, or the default one when none was printed."""
        return self.layout if self.layout is not None else self.default_layout()

    def __str__(self) -> str:
        if self.tuple_shapes is not None:
            return "(" + ", ".join(str(s) for s in self.tuple_shapes) + ")"
        dims = ",".join(
            "?" if d == UNBOUNDED else f"<={d}" if dynamic else str(d)
            for d, dynamic in zip(self.dimensions, self.dynamic, strict=True)
        )
        text = f"{self.element_type}[{dims}]"
        if self.layout is not None and (self.dimensions or not self.layout.is_plain):
            text += str(self.layout)
        return f"b({text})" if self.buffer else text


def parse_shape(text: str, filename: str = "<input>") -> Shape:
    """Parse a whole string as one shape.

    >>> parse_shape("f32[]").rank
    0
    """
    scanner = Scanner(text, filename=filename)
    shape = read_shape(scanner)
    if not scanner.at_end():
        raise scanner.error(f"expected end of shape, found {scanner.describe_here()}")
    return shape


def at_shape(scanner: Scanner) -> bool:
    """Whether a shape starts here: `(` or an element type directly followed by `[`."""
    scanner.skip_trivia()
    return _SHAPE_AHEAD.match(scanner.text, scanner.pos, scanner.end) is not None


def read_shape(scanner: Scanner, depth: int = 0) -> Shape:
    """Read one shape at the scanner's position."""
    if scanner.accept("("):
        if depth >= _MAX_TUPLE_DEPTH:
            raise scanner.error(f"tuple shapes nested deeper than {_MAX_TUPLE_DEPTH} levels")
        elements: list[Shape] = []
        if not scanner.accept(")"):
            while True:
                elements.append(read_shape(scanner, depth + 1))
                if scanner.accept(")"):
                    break
                scanner.expect(",", "or ')' in a tuple shape")
        return Shape.tuple_of(*elements)
    if scanner.at("b("):
        scanner.pos += 2
        inner = _read_array_shape(scanner)
        scanner.expect(")", "to close the buffer shape 'b(...)'")
        return replace(inner, buffer=True)
    return _read_array_shape(scanner)


def _read_array_shape(scanner: Scanner) -> Shape:
    scanner.skip_trivia()
    plain = _PLAIN_ARRAY.match(scanner.text, scanner.pos, scanner.end)
    if plain is not None and plain.group(1) != TUPLE:
        # The common case `f32[2,3]{1,0}` in one match; anything else
        # (dynamic dims, tiles, errors) takes the general path below.
        element_type, dims_text, layout_text = plain.groups()
        sizes = tuple(int(d) for d in dims_text.split(",")) if dims_text else ()
        order = tuple(int(d) for d in layout_text.split(",")) if layout_text else ()
        if layout_text is None:
            scanner.pos = plain.end()
            return Shape(element_type, sizes)
        if sorted(order) == list(range(len(sizes))):
            scanner.pos = plain.end()
            return Shape(element_type, sizes, Layout(order))
    start = scanner.pos
    text = scanner.text
    index = start
    while index < scanner.end and text[index].isascii() and text[index].isalnum():
        index += 1
    element_type = text[start:index]
    if not element_type or not element_type[0].islower() or element_type != element_type.lower():
        raise scanner.error(f"expected a shape, found {scanner.describe_here()}", start)
    scanner.pos = index
    if element_type == TUPLE:
        raise scanner.error("'tuple' is not an element type; write tuples as '(...)'", start)
    scanner.expect("[", f"after element type '{element_type}'")
    dims: list[int] = []
    dynamic: list[bool] = []
    if not scanner.accept("]"):
        while True:
            if scanner.accept("?"):
                dims.append(UNBOUNDED)
                dynamic.append(True)
            else:
                dynamic.append(scanner.accept("<="))
                dims.append(scanner.natural("a dimension size"))
            if scanner.accept("]"):
                break
            scanner.expect(",", "or ']' in the dimensions")
    layout = _read_layout(scanner, len(dims)) if _at_layout(scanner) else None
    return Shape(element_type, tuple(dims), layout, None, tuple(dynamic))


def _at_layout(scanner: Scanner) -> bool:
    """Whether a layout follows: `{` then a digit, `:` or `}`.

    The lookahead tells `-> f32[10] {` (a signature's result, then the body)
    from `f32[10]{0}`.
    """
    if not scanner.at("{"):
        return False
    after = Scanner(scanner.text, filename=scanner.filename, pos=scanner.pos + 1, end=scanner.end)
    return after.peek() in set("0123456789:}")


def _read_layout(scanner: Scanner, rank: int) -> Layout:
    open_at = scanner.pos
    scanner.expect("{")
    minor_to_major: list[int] = []
    while scanner.at_integer():
        minor_to_major.append(scanner.natural("a dimension number"))
        if not scanner.accept(","):
            break
    if sorted(minor_to_major) != list(range(rank)) and minor_to_major:
        raise scanner.error(
            f"layout {{{','.join(map(str, minor_to_major))}}} is not a permutation "
            f"of the {rank} dimensions",
            open_at,
        )
    if not minor_to_major and rank:
        raise scanner.error(f"expected {rank} dimension numbers in the layout", open_at)
    tiles: list[Tile] = []
    numbers: dict[str, int] = {}
    split_configs: list[SplitConfig] = []
    extra: list[str] = []
    if scanner.accept(":"):
        while not scanner.at("}"):
            field_start = scanner.pos
            field = _read_field_name(scanner)
            if field == "T":
                if not scanner.at("("):
                    raise scanner.error("expected '(' after 'T' in a layout")
                while scanner.at("("):
                    tiles.append(_read_tile(scanner))
            elif field in ("L", "E", "S"):
                meaning = _NUMBER_FIELDS[field]
                scanner.expect("(", f"after '{field}' in a layout")
                number_start = scanner.pos
                numbers[field] = scanner.natural(meaning)
                if field == "L" and numbers[field] == 0:
                    raise scanner.error(f"{meaning} 0 is not positive", number_start)
                scanner.expect(")", f"after the {meaning}")
            elif field == "SC":
                if not scanner.at("("):
                    raise scanner.error("expected '(' after 'SC' in a layout")
                while scanner.at("("):
                    split_configs.append(_read_split_config(scanner))
            else:
                if not scanner.at("("):
                    raise scanner.error(f"expected '(' after layout field '{field}'")
                while scanner.at("("):
                    scanner.pos = scanner.skip_balanced(scanner.pos)
                extra.append(scanner.text[field_start : scanner.pos])
    scanner.expect("}", "to close the layout")
    return Layout(
        tuple(minor_to_major),
        tuple(tiles),
        numbers.get("S"),
        "".join(extra),
        numbers.get("L", 1),
        numbers.get("E", 0),
        tuple(split_configs),
    )


_NUMBER_FIELDS = {"L": "tail padding alignment", "E": "element size in bits", "S": "memory space"}


def _read_split_config(scanner: Scanner) -> SplitConfig:
    scanner.expect("(")
    dimension = scanner.natural("a split dimension")
    scanner.expect(":", "after the split dimension")
    indices: list[int] = []
    while not scanner.accept(")"):
        if indices:
            scanner.expect(",", "or ')' in a split config")
        indices.append(scanner.natural("a split index"))
    return SplitConfig(dimension, tuple(indices))


def _read_field_name(scanner: Scanner) -> str:
    scanner.skip_trivia()
    start = index = scanner.pos
    text = scanner.text
    if index < scanner.end and text[index] in "#*":
        index += 1
    else:
        while index < scanner.end and "A" <= text[index] <= "Z":
            index += 1
    if index == start:
        raise scanner.error(f"expected a layout field or '}}', found {scanner.describe_here()}")
    scanner.pos = index
    return text[start:index]


def _read_tile(scanner: Scanner) -> Tile:
    scanner.expect("(")
    dims: list[int] = []
    while True:
        if scanner.accept("*"):
            dims.append(COMBINE_DIMENSION)
        else:
            start = scanner.pos
            value = scanner.integer("a tile dimension")
            if value < -1 or value == 0:
                raise scanner.error(f"tile dimension {value} is not positive, '*' or -1", start)
            dims.append(value)
        if scanner.accept(")"):
            return Tile(tuple(dims))
        scanner.expect(",", "or ')' in a tile")
