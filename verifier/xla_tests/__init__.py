"""XLA's own indexing tests, checked as Alive2 checks LLVM's: every map
expectation of XLA's C++ test files against the maps `verifier` computes
for the test's input — ``equal``, ``different`` with a witness re-evaluated
in Python, or ``not-comparable`` with the reason.

The C++ is read (`cpp`), its maps and HLO followed (`interpret`, with
`transforms`, `grouped` and `matchers`), the expected text of any era read
(`map_text`) and compared (`compare`); `files` reads files and directories,
`history` a git history of them.

>>> from verifier.xla_tests.files import check_text
>>> [e.verdict.value for e in check_text('''TEST_F(T, DivBy2) {
...   auto m = Parse("(d0) -> ((d0 * 2) floordiv 2), domain: d0 in [0, 9]");
...   EXPECT_TRUE(m.Simplify());
...   EXPECT_THAT(m, MatchIndexingMap("(d0) -> (d0), domain: d0 in [0, 9]"));
... }''', "t.cc")]
['equal']
"""
