"""Fusion graphs: composition of indexing maps through computations."""
