"""The solvers' deterministic budgets: isl operations (simplex pivots) and
z3 resource units (``rlimit``), never wall-clock time, so the same question
gets the same answer on any machine.

Plain numbers, in a module that imports no solver, so that the layers above
(`verifier.checks.budget`) can name the defaults without loading islpy or
z3.  Running out of one is the answer "can't tell" for that question only.
"""

# Operations isl may spend on one question.  On 300 XLA-style pairs
# (benchmarks/xla_pairs.py) 298 need at most 16,384; the inverse check of a
# fusion of the bundled examples/real_ops/random_bits.hlo needs between
# 50,000 and 100,000.  The cost of one operation grows with the size of
# isl's numbers, so a larger budget does not buy answers, only time: a
# relation question with 4 symbols and `mod 20000` spends 1.2 s on 50,000
# operations, 3.6 s on 100,000 and over 10 minutes on 2,000,000 (the old
# default), then still answers nothing.
ISL_OPERATIONS = 100_000

# Operations the minimisation of a witness may spend (beyond the question's
# budget): a refinement for the reader, never needed for the verdict.  On
# the 3,000 XLA-style pairs of benchmarks/equivalence.py, 5,000 reach the
# minimum on every different pair (as relations and pointwise) in the same
# CPU time; 2,000 fell back to isl's sample point on 113 of them.
ISL_MINIMISE_OPERATIONS = 5_000

# Counting scans isl's representation row by row (PyPI's islpy has no
# barvinok), so it is given more operations than a comparison: 10 million
# is about 3 s of a convolution chain's reads, and no count of the bundled
# examples needs more (200 million, the old budget, was a minute per
# question).  The operations are pivots, not the scan: callers check the
# size first (`verifier.counting.exact.SCAN_LIMIT`).
ISL_COUNT_OPERATIONS = 10_000_000

# z3 resource units one question may spend where z3 decides (the typed-text
# proof of `simplify --prove`).
Z3_RLIMIT = 5_000_000

# ... and where z3 is the second witness to isl: sized to keep a question in
# tens of milliseconds (on XLA-style pairs 200,000 units take 4–40 ms; the
# decider's 5,000,000 took up to 9 s, mostly to answer unknown).
Z3_WITNESS_RLIMIT = 200_000
