"""The two corpus tables as Parquet files (pyarrow, the ``research`` extra).

``DIR/modules.parquet`` has one row per module file, ``DIR/operands.parquet``
one per (file, instruction, operand); the columns are `rows.MODULE_COLUMNS`
and `rows.OPERAND_COLUMNS` with the types of `MODULE_SCHEMA` and
`OPERAND_SCHEMA`.  Rows are written sorted — modules by file, operands by
file, instruction and operand number — whatever order they were computed
in, so two runs over the same files give the same tables; only the
`TIMING_COLUMNS` (``seconds``, wall time, and ``cpu_seconds``) differ
between them.

The two tables are committed together: both are written whole beside their
places (``NAME.partial``, flushed to disk), then a commit record
(``commit.json``) is renamed into place — the instant the new pair counts —
then both tables are renamed over the old ones and the record removed.  A
run killed at any instant leaves the old pair or the new one: `recover`
(which every reader and writer calls first) finishes a recorded commit and
drops tables staged by one that never was.

>>> import tempfile
>>> directory = Path(tempfile.mkdtemp())
>>> write_tables(directory, [{"file": "b.hlo"}, {"file": "a.hlo"}], [])
>>> [row["file"] for row in read_rows(directory)[0]]
['a.hlo', 'b.hlo']
>>> (directory / "modules.parquet.partial").write_bytes(b"PAR1 half a table")  # a killed write
17
>>> len(read_rows(directory)[0]), sorted(p.name for p in directory.iterdir())
(2, ['modules.parquet', 'operands.parquet'])
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from verifier.corpus.rows import MODULE_COLUMNS, OPERAND_COLUMNS, OUTCOME_COLUMNS, Row
from verifier.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

MODULES_FILE = "modules.parquet"
OPERANDS_FILE = "operands.parquet"
COMMIT_FILE = "commit.json"
PARTIAL = ".partial"

# The columns that change between two runs over the same files.
TIMING_COLUMNS = ("seconds", "cpu_seconds")

MODULE_SCHEMA = pa.schema(
    [
        ("file", pa.string()),
        ("sha256", pa.string()),
        ("verifier_version", pa.string()),
        ("module", pa.string()),
        ("status", pa.string()),
        ("seconds", pa.float64()),
        ("cpu_seconds", pa.float64()),
        ("coalescing_device", pa.string()),
        ("instructions", pa.int64()),
        *[(outcome, pa.int64()) for outcome in OUTCOME_COLUMNS],
        ("error", pa.string()),
    ]
)

OPERAND_SCHEMA = pa.schema(
    [
        ("file", pa.string()),
        ("instruction", pa.string()),
        ("opcode", pa.string()),
        ("operand", pa.int64()),
        ("operand_name", pa.string()),
        ("elements", pa.int64()),
        ("distinct_read", pa.int64()),
        ("distinct_read_min", pa.int64()),
        ("distinct_read_max", pa.int64()),
        ("reads", pa.int64()),
        ("utilization", pa.float64()),
        ("utilization_exact", pa.string()),
        ("xla_heuristic_elements", pa.float64()),
        ("undefined_reason", pa.string()),
        ("coalescing_emitter", pa.string()),
        ("sectors_per_request_min", pa.int64()),
        ("sectors_per_request_mean", pa.float64()),
        ("sectors_per_request_max", pa.int64()),
        ("ideal_sectors", pa.int64()),
        ("coalesced", pa.bool_()),
        ("xla_coalesced", pa.bool_()),
        ("xla_heuristic_coalesced", pa.bool_()),
        ("coalescing_reason", pa.string()),
    ]
)

assert tuple(MODULE_SCHEMA.names) == MODULE_COLUMNS
assert tuple(OPERAND_SCHEMA.names) == OPERAND_COLUMNS


def module_sort_key(row: Row) -> tuple[str]:
    return (row["file"],)


def operand_sort_key(row: Row) -> tuple[str, str, int]:
    return (row["file"], row["instruction"], row["operand"])


def write_tables(directory: Path, modules: Sequence[Row], operands: Sequence[Row]) -> None:
    """Commit both tables into `directory` (created if needed), rows sorted."""
    directory.mkdir(parents=True, exist_ok=True)
    recover(directory)
    _stage(directory / MODULES_FILE, sorted(modules, key=module_sort_key), MODULE_SCHEMA)
    _stage(directory / OPERANDS_FILE, sorted(operands, key=operand_sort_key), OPERAND_SCHEMA)
    record = directory / COMMIT_FILE
    staged = record.with_name(record.name + PARTIAL)
    staged.write_text(json.dumps([MODULES_FILE, OPERANDS_FILE]))
    _sync(staged)
    os.replace(staged, record)  # committed
    _sync(directory)
    _finish(directory)


def recover(directory: Path) -> None:
    """Finish the commit recorded in `directory`, if any; drop what a write
    that never committed staged."""
    if (directory / COMMIT_FILE).exists():
        _finish(directory)
    for name in (MODULES_FILE, OPERANDS_FILE, COMMIT_FILE):
        (directory / (name + PARTIAL)).unlink(missing_ok=True)


def check_output(directory: Path) -> None:
    """Make sure the tables can be written into `directory` before any work
    (created if needed; a file written and removed there), and finish what a
    killed run left.  Raises `UsageError` saying why not."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--output {directory}: not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".probe-{os.getpid()}{PARTIAL}"
        probe.write_bytes(b"")
        probe.unlink()
        recover(directory)
    except OSError as error:
        raise UsageError(f"--output {directory}: cannot write the tables there ({error})") from None


def read_rows(directory: Path) -> tuple[list[Row], list[Row]]:
    """The module and operand rows of the tables in `directory` (after
    `recover`); none when the tables are not there."""
    recover(directory)
    modules, operands = directory / MODULES_FILE, directory / OPERANDS_FILE
    if not (modules.exists() and operands.exists()):
        return [], []
    return pq.read_table(modules).to_pylist(), pq.read_table(operands).to_pylist()


def frame(rows: Sequence[Row], schema: pa.Schema) -> pd.DataFrame:
    """`rows` as a DataFrame with the table's columns and pandas' nullable
    dtypes: integers stay ``Int64`` (null where there is no exact count),
    never floats."""
    table = pa.Table.from_pylist(list(rows), schema=schema)
    return table.to_pandas(types_mapper=_nullable())


def read_frames(directory: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The module and operand tables of `directory` as DataFrames (`frame`)."""
    if directory.is_dir():
        recover(directory)
    modules, operands = directory / MODULES_FILE, directory / OPERANDS_FILE
    for path in (modules, operands):
        if not path.exists():
            raise UsageError(f"{path}: no such table (run verifier corpus first)")
    return (
        pq.read_table(modules).to_pandas(types_mapper=_nullable()),
        pq.read_table(operands).to_pandas(types_mapper=_nullable()),
    )


def _nullable() -> Callable[[pa.DataType], Any]:
    """pandas' nullable dtype of each column type (pandas is imported only
    by the readers that make DataFrames, not by a corpus run)."""
    import pandas as pd

    dtypes = {
        pa.int64(): pd.Int64Dtype(),
        pa.float64(): pd.Float64Dtype(),
        pa.string(): pd.StringDtype(),
        pa.bool_(): pd.BooleanDtype(),
    }
    return dtypes.get


def _stage(path: Path, rows: Sequence[Row], schema: pa.Schema) -> None:
    """The table of `rows`, whole and on disk, beside `path`."""
    partial = path.with_name(path.name + PARTIAL)
    pq.write_table(pa.Table.from_pylist(list(rows), schema=schema), partial)
    _sync(partial)


def _finish(directory: Path) -> None:
    """Rename the committed tables into place (those not renamed yet), then
    remove the commit record."""
    for name in (MODULES_FILE, OPERANDS_FILE):
        partial = directory / (name + PARTIAL)
        if partial.exists():
            os.replace(partial, directory / name)
    _sync(directory)
    os.unlink(directory / COMMIT_FILE)


def _sync(path: Path) -> None:
    """Flush `path` (a file, or a directory's entries) to the disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
