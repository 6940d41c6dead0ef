"""How much of the corpus verifier reads and checks, by category (issue #12).

Every HLO module under examples/ (the real dumps, the corpus families of
examples/corpus/, the --xla_dump_to directory, the hand-written syntax forms,
the indexing document's cases) is read and checked as `verifier check` does (every check,
the shipped budget, one instruction never sinking its module).  Per
category:

* analysed: read, and every instruction checked;
* partly: read, some instruction an error of its own (its line is listed);
* rejected: not read (invalid HLO or syntax we do not read; the error);
* crashed: an exception escaped (a bug; module or instruction named).

Also prints the CPU seconds spent.  Modules broken on purpose
(examples/checks/) are their own category: rejected or refuted is right there.

    python benchmarks/corpus_health.py            # every category
    python benchmarks/corpus_health.py spmd conv  # only these
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from verifier.checks.cache import MemoryCache
from verifier.errors import InternalError, ParseError, VerifierError
from verifier.gate.suite import run_checks
from verifier.hlo.files import hlo_files_under
from verifier.hlo.parser import parse_module_file

EXAMPLES = Path(__file__).parents[1] / "examples"


def categories() -> dict[str, list[Path]]:
    """Category name → its modules (sorted)."""
    found: dict[str, list[Path]] = {}
    for family in sorted(p for p in (EXAMPLES / "corpus").iterdir() if p.is_dir()):
        found[f"corpus/{family.name}"] = hlo_files_under(family)
    for name in ("real", "syntax", "spec", "fusion", "checks"):
        found[name] = hlo_files_under(EXAMPLES / name)
    found["indexing_doc"] = [EXAMPLES / "indexing_doc.hlo"]
    return found


def health(path: Path) -> tuple[str, str]:
    """The module's outcome and, unless analysed, why."""
    try:
        module = parse_module_file(path)
    except VerifierError as error:
        return "rejected", str(error).splitlines()[0]
    except Exception as error:  # a bug: that is what this script counts
        return "crashed", f"{path}: {type(error).__name__}: {error}"
    errors: list[ParseError | InternalError] = []
    try:
        list(run_checks(module, MemoryCache(), on_error=errors.append))
    except Exception as error:  # the suite itself must not raise
        return "crashed", f"{path}: {type(error).__name__}: {error}"
    internal = [e for e in errors if isinstance(e, InternalError)]
    if internal:
        return "crashed", str(internal[0])
    if errors:
        return "partly", str(errors[0]).splitlines()[0]
    return "analysed", ""


def main(only: list[str]) -> None:
    outcomes = ("analysed", "partly", "rejected", "crashed")
    header = f"{'category':<26}{'modules':>8}" + "".join(f"{o:>10}" for o in outcomes)
    print(header + f"{'cpu s':>8}")
    total: Counter[str] = Counter()
    notes: list[str] = []
    for name, paths in categories().items():
        if only and not any(word in name for word in only):
            continue
        start = time.process_time()
        counts: Counter[str] = Counter()
        for path in paths:
            outcome, why = health(path)
            counts[outcome] += 1
            if why:
                notes.append(f"{outcome}: {why}")
        total += counts
        cells = "".join(f"{counts[o]:>10}" for o in outcomes)
        seconds = time.process_time() - start
        print(f"{name:<26}{len(paths):>8}{cells}{seconds:>8.1f}")
    cells = "".join(f"{total[o]:>10}" for o in outcomes)
    print(f"{'total':<26}{sum(total.values()):>8}{cells}")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main(sys.argv[1:])
