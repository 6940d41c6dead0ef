"""A shared-memory emitter's launch mapping: the threads and blocks of the
launch and the map from thread and block ids (dims `THREAD_DIMS` of
`verifier.coalescing.emitter`) to the element of its hero's input (a
reduce's, a transpose's) each load reads, over the hero input seen as
`input_shape` in row-major order; the map's last symbol is the vector lanes
of one load (`vector` of them).  `thread_to_output` is where the threads
write, over the emitter's normalised output shape (row-major), the
threads that write nothing excluded by its constraints."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.expr import IndexingMap


@dataclass(frozen=True)
class InputMapping:
    """One emitter's launch and thread→hero-input map (module docstring)."""

    kind: str
    threads_per_block: int
    blocks: int
    vector: int
    thread_to_input: IndexingMap
    input_shape: tuple[int, ...]
    thread_to_output: IndexingMap
