"""Research runs over many modules (the ``research`` extra: Dask, pyarrow,
pandas, matplotlib), above the gate and the counting in the layers and
imported by none of the core:

* `rows` — one module as rows of the two corpus tables (plain values);
* `worker` and `supervisor` — the analysis process and its deadline;
* `run` — `verifier corpus`: every module a Dask task, ``--resume``;
* `tables` — the Parquet files, sorted, and their DataFrames;
* `plot` — `verifier plot`.
"""
