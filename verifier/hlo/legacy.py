"""Opcodes XLA printed in the past under another name, read as the op they
are today.

Dumps from 2017–2019 (TensorFlow 1.x, early JAX) spell some ops as XLA's
printer then did; XLA has since renamed them without changing what they
compute:

* ``cross-replica-sum`` is ``all-reduce`` (renamed in December 2018); its
  attributes of that time (``replica_group_ids``, ``all_reduce_id``,
  ``barrier``) are kept as written;
* the comparisons ``equal-to``, ``not-equal-to``, ``greater-than``,
  ``greater-than-or-equal-to``, ``less-than``, ``less-than-or-equal-to`` are
  ``compare`` with ``direction=EQ`` (``NE``, ``GT``, ``GE``, ``LT``, ``LE``),
  the form XLA prints since 2019;
* gather's attributes before August 2018: ``output_window_dims``,
  ``elided_window_dims``, ``gather_dims_to_operand_dims`` and
  ``window_bounds`` are ``offset_dims``, ``collapsed_slice_dims``,
  ``start_index_map`` and ``slice_sizes`` (renamed, same meaning; no other op
  ever had attributes of those names).

``tuple-select`` (a whole tuple chosen by a ``pred[]`` scalar, removed in
2022) has no op of today to be read as: it keeps its name and has a rule of
its own (`verifier.indexing.tuple_select`).

>>> modern("greater-than-or-equal-to"), modern("cross-replica-sum"), modern("add")
(('compare', 'GE'), ('all-reduce', None), None)
>>> modern_attribute("window_bounds"), modern_attribute("slice_sizes")
('slice_sizes', 'slice_sizes')
"""

from __future__ import annotations

_RENAMED = {"cross-replica-sum": "all-reduce"}
_GATHER_ATTRIBUTES = {
    "output_window_dims": "offset_dims",
    "elided_window_dims": "collapsed_slice_dims",
    "gather_dims_to_operand_dims": "start_index_map",
    "window_bounds": "slice_sizes",
}
_COMPARISONS = {
    "equal-to": "EQ",
    "not-equal-to": "NE",
    "greater-than": "GT",
    "greater-than-or-equal-to": "GE",
    "less-than": "LT",
    "less-than-or-equal-to": "LE",
}


def modern(opcode: str) -> tuple[str, str | None] | None:
    """``(today's opcode, comparison direction or None)`` when `opcode` is a
    spelling XLA used to print, else None."""
    if opcode in _RENAMED:
        return _RENAMED[opcode], None
    if opcode in _COMPARISONS:
        return "compare", _COMPARISONS[opcode]
    return None


def modern_attribute(name: str) -> str:
    """Today's name of attribute `name` (itself unless XLA renamed it)."""
    return _GATHER_ATTRIBUTES.get(name, name)
