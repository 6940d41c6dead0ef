"""Fusion graphs: composition of indexing maps through computations
(`compose.Composer`, with `walks`, `map_sets`, `sampling`, `loops`,
`branches`, `pieces`; its answers in `composed`); a computation's dataflow
as a networkx graph (`graph.computation_graph`)."""
