"""`verifier check` on the largest real module against SPEC §8 (≤ 20 s cold,
≤ 3 s with a warm proof cache, ≤ 2 GB peak memory).

Three runs of the command itself (a child process each, so imports count):

* cold: a fresh cache directory;
* warm: the same cache, the module unchanged (its findings come back whole);
* edited: the same cache, the module's name changed — its findings are
  recomputed, every solver question is answered by the per-question cache.

Then, in this process, the share of each phase of a cold and of an edited
run: import, parse, composing and simplifying maps (`ModuleMaps`), each check
(the time between findings, composition excluded), rendering each format.
Peak memory is the children's maximum resident set size.

    python benchmarks/check_gate.py [FILE.hlo]
"""

from __future__ import annotations

import functools
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1] / "examples" / "real"
TARGET_COLD, TARGET_WARM, TARGET_MEMORY = 20.0, 3.0, 2 * 1024**3


def _largest() -> Path:
    return max(ROOT.glob("*.hlo"), key=lambda p: p.stat().st_size)


def _command(path: Path, cache: Path) -> float:
    argv = [sys.executable, "-m", "verifier", "check", "--cache-dir", str(cache)]
    start = time.perf_counter()
    done = subprocess.run([*argv, "--format", "json", str(path)], capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1, 3, 4):
        raise SystemExit(f"verifier check failed ({done.returncode}):\n{done.stderr.decode()}")
    return seconds


class _Timer:
    """Seconds spent in the public methods of ModuleMaps (outermost calls only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.depth = 0

    def wrap(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.depth += 1
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.seconds += time.perf_counter() - start

        return timed


def _phases(path: Path, cache_dir: Path, text: str) -> dict[str, float]:
    from verifier.analysis.module_maps import ModuleMaps
    from verifier.gate.run import GateRun
    from verifier.gate.sqlite_cache import FILE_NAME, SqliteCache
    from verifier.gate.suite import INFORMATIONAL_CHECKS, run_checks
    from verifier.hlo.parser import parse_module
    from verifier.report.gate_json import gate_json
    from verifier.report.gate_text import gate_text
    from verifier.report.junit import junit_xml
    from verifier.report.sarif import sarif_log

    phases: dict[str, float] = defaultdict(float)
    timer = _Timer()
    originals = {name: getattr(ModuleMaps, name) for name in ("output_to_input", "input_to_output")}
    for name, method in originals.items():
        setattr(ModuleMaps, name, timer.wrap(method))
    try:
        start = time.perf_counter()
        module = parse_module(text, str(path))
        phases["parse"] = time.perf_counter() - start
        findings = []
        with SqliteCache(cache_dir / FILE_NAME) as cache:
            last = time.perf_counter()
            composed_before = 0.0
            for finding in run_checks(module, cache):
                now = time.perf_counter()
                composed = timer.seconds - composed_before
                phases[f"check {finding.check}"] += now - last - composed
                composed_before = timer.seconds
                findings.append(finding)
                last = now
            phases["maps (compose+simplify)"] = timer.seconds
    finally:
        for name, method in originals.items():
            setattr(ModuleMaps, name, method)

    run = GateRun((str(path),), tuple(findings), informational=INFORMATIONAL_CHECKS)
    renderers: dict[str, Callable[[], object]] = {
        "text": lambda: gate_text(run),
        "json": lambda: json.dumps(gate_json(run), indent=2),
        "junit": lambda: junit_xml(run),
        "sarif": lambda: json.dumps(sarif_log(run), indent=2),
    }
    for name, render in renderers.items():
        start = time.perf_counter()
        render()
        phases[f"render {name}"] = time.perf_counter() - start
    return dict(phases)


def _print_phases(title: str, phases: dict[str, float]) -> None:
    total = sum(phases.values())
    print(f"\n{title}: {total:.2f} s in this process")
    for name, seconds in sorted(phases.items(), key=lambda item: -item[1]):
        print(f"  {name:<28}{seconds:>8.3f} s{seconds / total:>8.1%}")


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else _largest()
    text = path.read_text()
    start = time.perf_counter()  # the import cost is a phase of its own
    from verifier.hlo.parser import parse_module

    imported = time.perf_counter() - start
    module = parse_module(text, str(path))
    fusions = sum(1 for i in module.entry.instructions if i.opcode == "fusion")
    print(f"{path.name}: {module.instruction_count} instructions, {fusions} fusions in the entry")

    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        cache, copy = directory / "cache", directory / path.name
        copy.write_text(text)
        cold = _command(copy, cache)
        warm = _command(copy, cache)
        copy.write_text(text.replace("HloModule ", "HloModule edited_", 1))
        edited = _command(copy, cache)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        print(f"{'run':<34}{'seconds':>9}{'target':>9}{'ratio':>8}")
        print(
            f"{'cold (fresh cache)':<34}{cold:>9.2f}{TARGET_COLD:>9.1f}{cold / TARGET_COLD:>8.2f}"
        )
        print(
            f"{'warm (unchanged module)':<34}{warm:>9.2f}{TARGET_WARM:>9.1f}{warm / TARGET_WARM:>8.2f}"
        )
        print(
            f"{'edited (questions cached)':<34}{edited:>9.2f}{TARGET_WARM:>9.1f}"
            f"{edited / TARGET_WARM:>8.2f}"
        )
        print(
            f"peak memory {peak / 1024**2:.0f} MiB, target {TARGET_MEMORY / 1024**2:.0f} MiB, "
            f"ratio {peak / TARGET_MEMORY:.3f}"
        )

        phase_cache = directory / "phases"
        cold_phases = {"import": imported, **_phases(copy, phase_cache, text)}
        _print_phases("cold phases", cold_phases)
        edited_phases = _phases(copy, phase_cache, text.replace("HloModule ", "HloModule e2_", 1))
        _print_phases("edited phases (every solver question cached)", edited_phases)


if __name__ == "__main__":
    main()
