"""A Dask cluster of separate processes on 127.0.0.1 — ``dask scheduler``
and ``dask worker``, as a user starts one — for the corpus tests and the
benchmark; stopped on exit, and bounded in time while it starts."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

START_SECONDS = 60.0


@contextmanager
def dask_cluster(workers: int = 1, threads: int = 2) -> Iterator[str]:
    """The address (``tcp://127.0.0.1:PORT``) of a running scheduler with
    `workers` worker processes of `threads` threads each."""
    from distributed import Client

    with tempfile.TemporaryDirectory() as directory:
        scheduler_file = Path(directory) / "scheduler.json"
        dask = [sys.executable, "-m", "dask"]
        processes = [
            subprocess.Popen(
                [
                    *dask,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(scheduler_file),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        ]
        try:
            deadline = time.monotonic() + START_SECONDS
            while not scheduler_file.exists():
                if time.monotonic() > deadline or processes[0].poll() is not None:
                    raise RuntimeError("the dask scheduler did not start")
                time.sleep(0.1)
            address = json.loads(scheduler_file.read_text())["address"]
            processes += [
                subprocess.Popen(
                    [
                        *dask,
                        "worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        str(threads),
                        "--no-dashboard",
                        "--name",
                        f"worker-{number}",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for number in range(workers)
            ]
            with Client(address, timeout=START_SECONDS) as client:
                client.wait_for_workers(workers, timeout=START_SECONDS)
            yield address
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in reversed(processes):
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
