"""Worker processes for the parallel parts of a run, started one way.

Both parallel parts — `verifier check --jobs` (`verifier.gate.files`) and
an equivalence batch (`verifier.checks.equivalence`) — start their workers
through `worker_pool`, under one policy:

* **fork where the platform has it** (Linux, macOS): a worker inherits the
  imported modules, the interned expression nodes and whatever the parent
  parsed before the pool started, so it pays no start-up imports (a spawned
  worker takes about a second to import the analysis) and parses nothing
  again.  The parent's objects are frozen for the fork (`gc.freeze`): a
  worker's collections then skip what it inherits instead of walking it,
  which would copy every inherited page.  The workers all start when the
  pool is made, inside the freeze, so what the parent allocates afterwards
  is collected as usual.
* **spawn elsewhere** (Windows), the one start method every platform has:
  each worker imports what it needs and parses its own input; the answers
  are the same, only the start-up costs more.

>>> with worker_pool(2) as pool:
...     list(pool.map(abs, [-1, 2, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
"""How workers start on this platform (the policy above)."""


@contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` processes, started now from this process as it
    is (forked where the platform can, spawned elsewhere), shut down when
    the block ends.  Functions and arguments sent to it must pickle."""
    gc.freeze()
    try:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(START_METHOD))
        try:
            pool.submit(os.getpid).result()  # forked workers all start at the first task
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    finally:
        gc.unfreeze()
    with pool:
        yield pool
