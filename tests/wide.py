"""Modules as wide as real training steps: a ROOT tuple of every parameter
and optimizer state, a loop carrying hundreds of arrays (issue #13: the
gate must not grow with the square or the cube of their width).

`wide_tuple_module(n)` returns the negation of `n` parameters of varied
shapes as one tuple; `wide_loop_module(width, trips)` runs a body over a
state of `width` arrays `trips` times.
"""

from __future__ import annotations


def wide_tuple_module(n: int) -> str:
    """``ROOT t = (…) tuple(n0, …)``, each ``nk = negate(pk)``."""
    shapes = [f"f32[{k % 7 + 1},4]" for k in range(n)]
    lines = ["HloModule wide_tuple", "ENTRY e {"]
    lines += [f"  p{k} = {shape} parameter({k})" for k, shape in enumerate(shapes)]
    lines += [f"  n{k} = {shape} negate(p{k})" for k, shape in enumerate(shapes)]
    names = ", ".join(f"n{k}" for k in range(n))
    lines += [f"  ROOT t = ({', '.join(shapes)}) tuple({names})", "}"]
    return "\n".join(lines) + "\n"


def wide_loop_module(width: int, trips: int) -> str:
    """A loop carrying `width` arrays; each iteration sets array k to array
    k plus array k + 1 reversed (the last one to its negation): after `trips`
    iterations array k reads arrays k .. k + trips, some along several
    paths — unions of maps whose order and multiplicities the sparse
    iteration must keep."""
    state = "(s32[], " + ", ".join("f32[5]" for _ in range(width)) + ")"
    body = [f"  s = {state} parameter(0)", "  i = s32[] get-tuple-element(s), index=0"]
    body += ["  one = s32[] constant(1)", "  j = s32[] add(i, one)"]
    body += [f"  g{k} = f32[5] get-tuple-element(s), index={k + 1}" for k in range(width)]
    for k in range(width - 1):
        body.append(f"  r{k} = f32[5] reverse(g{k + 1}), dimensions={{0}}")
        body.append(f"  n{k} = f32[5] add(g{k}, r{k})")
    body.append(f"  n{width - 1} = f32[5] negate(g{width - 1})")
    news = ", ".join(f"n{k}" for k in range(width))
    entry = [f"  p{k} = f32[5] parameter({k})" for k in range(width)]
    starts = ", ".join(f"p{k}" for k in range(width))
    return "\n".join(
        [
            "HloModule wide",
            "cond {",
            f"  s = {state} parameter(0)",
            "  i = s32[] get-tuple-element(s), index=0",
            f"  n = s32[] constant({trips})",
            "  ROOT lt = pred[] compare(i, n), direction=LT",
            "}",
            "body {",
            *body,
            f"  ROOT r = {state} tuple(j, {news})",
            "}",
            "ENTRY e {",
            "  zero = s32[] constant(0)",
            *entry,
            f"  t = {state} tuple(zero, {starts})",
            f"  ROOT w = {state} while(t), condition=cond, body=body",
            "}",
        ]
    )
