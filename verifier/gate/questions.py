"""Each distinct question of one gate run answered once.

A real module asks the same question thousands of times: every elementwise
op on ``f32[8,512]`` has the output→operand map ``(d0, d1) -> (d0, d1),
domain: d0 in [0, 7], d1 in [0, 511]`` and asks whether it lies inside
``[8, 512]``.  Maps are values in canonical form — variables are numbered
(``d0``, ``s0``), never named after instructions, and equality is
structural: the same results, variable bounds, constraints and runtime
sources — so a question is the check's name and the values it is about,
and equal questions have equal answers.

The memo lives for one run (one module, one budget) and is never
persisted: it is not the proof cache, which stores answers across runs
under their text and the tool's versions and never decides anything.

>>> from verifier.checks.result import CheckResult
>>> from verifier.checks.verdict import Outcome
>>> memo, asked = QuestionMemo(), []
>>> def ask(size):
...     asked.append(size)
...     return CheckResult(Outcome.PROVED if size >= 8 else Outcome.REFUTED, f"size {size}")
>>> memo.answer(("in-bounds", "(d0) -> (d0), domain: d0 in [0, 7]", (8,)), lambda: ask(8)).outcome
<Outcome.PROVED: 'proved'>
>>> memo.answer(("in-bounds", "(d0) -> (d0), domain: d0 in [0, 7]", (8,)), lambda: ask(8)).outcome
<Outcome.PROVED: 'proved'>
>>> memo.answer(("in-bounds", "(d0) -> (d0), domain: d0 in [0, 7]", (4,)), lambda: ask(4)).outcome
<Outcome.REFUTED: 'refuted'>
>>> asked, memo.asked, memo.answered
([8, 4], 3, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from verifier.checks.result import CheckResult

# The check's name, then every value its answer depends on (maps, shapes,
# ranks, bit widths), each hashable with structural equality.
Question = tuple[Hashable, ...]


class QuestionMemo:
    """Answers by question, for one run; counts questions `asked` and
    `answered` (computed: the distinct ones)."""

    def __init__(self) -> None:
        self._answers: dict[Question, CheckResult] = {}
        self.asked = 0

    @property
    def answered(self) -> int:
        return len(self._answers)

    def answer(self, question: Question, compute: Callable[[], CheckResult]) -> CheckResult:
        """The answer to `question`: the one computed before, or `compute()`.

        `question` must hold everything `compute`'s answer depends on, but
        the run's budget and proof cache (the same for the whole run)."""
        self.asked += 1
        known = self._answers.get(question)
        if known is None:
            known = self._answers[question] = compute()
        return known
