"""What the C++ of a test says, read off its expression trees
(`verifier.xla_tests.cpp`): the expected maps of a gmock matcher per
operand, the integers of an initializer, whether a node mentions a map.

>>> from verifier.xla_tests.cpp import read_tests
>>> (test,) = read_tests('''TEST(T, A) {
...   EXPECT_THAT(x, ElementsAre(ElementsAre(MatchOperandIndexing("(d0) -> (d0)")), IsEmpty()));
... }''')
>>> operand_blocks(test.statements[0].value.args[1])
[(0, ['(d0) -> (d0)']), (1, [])]
"""

from __future__ import annotations

from verifier.xla_tests.cpp import (
    BraceList,
    Call,
    Literal,
    Member,
    Node,
    Opaque,
    Unary,
    callee_name,
    literals,
)

_SEQUENCES = frozenset({"ElementsAre", "UnorderedElementsAre"})
_MAP_MATCHERS = frozenset({"MatchOperandIndexing", "MatchIndexingMap"})


def operand_blocks(matcher: Node) -> list[tuple[int, list[str]]] | None:
    """The expected maps per operand of a matcher on an instruction's
    indexing, or None when it is not one: ``MatchInstrIndexing(id, …maps…)``
    blocks, or ``ElementsAre(<operand 0's maps>, <operand 1's maps>, …)``
    where each operand's maps are an ``(Unordered)ElementsAre`` of
    ``MatchOperandIndexing(text)`` (``IsEmpty()``: none)."""
    blocks: list[tuple[int, list[str]]] = []

    def walk(node: Node) -> None:
        if isinstance(node, Call) and callee_name(node) == "MatchInstrIndexing" and node.args:
            first = node.args[0]
            if isinstance(first, Literal) and not first.is_string:
                blocks.append((int(first.value), [lit.value for lit in literals(node)]))
                return
        if isinstance(node, Call):
            for arg in node.args:
                walk(arg)

    walk(matcher)
    if blocks:
        return blocks
    if not (isinstance(matcher, Call) and callee_name(matcher) == "ElementsAre"):
        return None
    for operand, maps in enumerate(matcher.args):
        if callee_name(maps) == "IsEmpty":
            blocks.append((operand, []))
            continue
        if not isinstance(maps, Call) or callee_name(maps) not in _SEQUENCES:
            return None
        texts: list[str] = []
        for item in maps.args:
            if callee_name(item) not in _MAP_MATCHERS or not isinstance(item, Call):
                return None
            found = [lit.value for lit in literals(item)]
            if len(found) != 1:
                return None
            texts += found
        blocks.append((operand, texts))
    return blocks


def calls(node: Node, prefix: str) -> bool:
    match node:
        case Call(callee, args):
            name = callee_name(node) or ""
            return (
                name.startswith(prefix)
                or calls(callee, prefix)
                or any(calls(a, prefix) for a in args)
            )
        case Opaque(text):
            return prefix in text
        case Member(value) | Unary(_, value):
            return calls(value, prefix)
        case _:
            return False


def mentions_map_text(node: Node) -> bool:
    return any("->" in lit.value or "KNOWN EMPTY" in lit.value for lit in literals(node))


def unrecognised(node: Node) -> str:
    name = callee_name(node)
    if isinstance(node, Opaque):
        return "a statement this reader does not parse"
    return f"the matcher or call {name or 'here'}(…) is not one this reader follows"


def defined_by_hlo(variable: Node) -> bool:
    """Whether a variable's initializer names more than an interval and a
    name (``RTVar{Interval{0, 9}, instruction, map}``)."""
    if not isinstance(variable, Call | BraceList):
        return False
    items = variable.args if isinstance(variable, Call) else variable.items
    return any(not isinstance(item, Literal) for item in items[1:])


def integers(node: Node) -> list[int]:
    """The integer literals in `node`, in order, a unary minus applied."""
    match node:
        case Literal(value, _, False):
            try:
                return [int(value, 0)]
            except ValueError:
                return []
        case Unary("-", inner):
            return [-n for n in integers(inner)[:1]] + integers(inner)[1:]
        case Call(_, args) | BraceList(args):
            return [n for arg in args for n in integers(arg)]
        case _:
            return []
