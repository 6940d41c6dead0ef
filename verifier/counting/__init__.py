"""Counting elements exactly: distinct elements read, reads with
multiplicity and utilization per operand, beside XLA's cost-model
heuristic."""
