"""Where each element of a shape sits in its buffer, for consumers above
`verifier.analysis` (the bitcast check, the `layout` report): the layout
maps of `verifier.indexing.layout` and `verifier.indexing.bitcast`,
exposed here so that analysis stays their one door to the floors below.

* `physical_offset` / `logical_index`: logical index → linear offset in the
  buffer, and back (undefined on tile padding);
* `buffer_elements`, `buffer_bytes`, `slot_bits`, `offset_extent`: the
  buffer's size in slots and bytes, one slot's bits, the offsets' extent;
* `COMBINED`: the tile sizes that combine a dimension with the next minor
  one (``*``) or mark such a combined sub-dimension (``-1``);
* `overlapping_slots`: the slots of another element type whose bits a
  slot overlaps (a bitcast between element types of other widths).

>>> from verifier.hlo import parse_shape
>>> shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
>>> buffer_elements(shape), buffer_bytes(shape)
(24, 96)
"""

from verifier.indexing.bitcast import overlapping_slots
from verifier.indexing.layout import (
    COMBINED,
    buffer_bytes,
    buffer_elements,
    logical_index,
    offset_extent,
    physical_offset,
    slot_bits,
)

__all__ = [
    "COMBINED",
    "buffer_bytes",
    "buffer_elements",
    "logical_index",
    "offset_extent",
    "overlapping_slots",
    "physical_offset",
    "slot_bits",
]
