"""What a notebook user meets first: outcomes and verdicts compare with
their words, a loaded module prints as a summary (not megabytes), and
`maps --to-parameters` on a long module shows how far it is on stderr."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import verifier
from verifier.checks.equivalence import check_equivalence
from verifier.cli import EXIT_OK, main
from verifier.expr import parse_map


def chain(length: int) -> str:
    """p0, then `length` negates and transposes in a row."""
    lines = ["HloModule chain", "ENTRY main {", "  p0 = f32[8,8] parameter(0)"]
    for k in range(length):
        operand = "p0" if k == 0 else f"n{k - 1}"
        if k % 2:
            lines.append(f"  n{k} = f32[8,8] transpose({operand}), dimensions={{1,0}}")
        else:
            lines.append(f"  n{k} = f32[8,8] negate({operand})")
    lines += [f"  ROOT r = f32[8,8] negate(n{length - 1})", "}"]
    return "\n".join(lines) + "\n"


SLICE = """HloModule m
ENTRY e {
  p0 = f32[10,20] parameter(0)
  ROOT s = f32[5,20] slice(p0), slice={[0:10:2], [0:20]}
}
"""


def test_an_outcome_equals_its_word() -> None:
    findings = verifier.loads(SLICE).checks(only=["in-bounds"])
    assert findings
    assert all(finding.outcome == "proved" for finding in findings)
    assert [f"{finding.outcome}" for finding in findings] == ["proved"] * len(findings)
    assert not any(finding.outcome == "refuted" for finding in findings)


def test_a_verdict_equals_its_word() -> None:
    a = parse_map("(d0) -> (d0), domain: d0 in [0, 3]")
    b = parse_map("(d0) -> (d0 + 1), domain: d0 in [0, 3]")
    assert check_equivalence(a, a).verdict == "equal"
    assert check_equivalence(a, b).verdict == "different"


def test_a_loaded_module_prints_as_a_summary(tmp_path: Path) -> None:
    text = chain(3000)
    path = tmp_path / "chain.hlo"
    path.write_text(text)
    analysis = verifier.load(path)
    instructions = sum(1 for line in text.splitlines() if " = f32[" in line)
    assert repr(analysis) == (
        f"<Analysis of {path}: <Module 'chain': 1 computations, "
        f"{instructions:,} instructions, ENTRY 'main'>>"
    )
    assert str(analysis) == repr(analysis)
    assert (
        repr(analysis.module.entry)
        == f"<Computation 'main': {instructions:,} instructions, ROOT 'r'>"
    )


def test_to_parameters_shows_progress_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chain.hlo"
    path.write_text(chain(2000))
    out = io.StringIO()
    assert main(["maps", "--to-parameters", "--progress", str(path)], out) == EXIT_OK
    # Its answer: 2000 steps, 1000 transposes, composed to the identity.
    assert "(d0, d1) -> (d0, d1)" in out.getvalue()
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"[1/1] {path}: parsing" and err[-1] == f"[1/1] {path}: composed"
    done = [int(m.group(1)) for line in err if (m := re.search(r": (\d+)/2002 instructions", line))]
    assert len(done) >= 5 and done == sorted(done) and done[-1] > 1500


def test_no_progress_unless_asked_or_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chain.hlo"
    path.write_text(chain(10))
    assert main(["maps", "--to-parameters", str(path)], io.StringIO()) == EXIT_OK
    assert capsys.readouterr().err == ""
