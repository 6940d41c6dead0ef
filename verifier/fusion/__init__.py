"""Fusion graphs: composition of indexing maps through computations; a
computation's dataflow as a networkx graph (`graph.computation_graph`)."""
