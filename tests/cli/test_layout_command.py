"""`verifier layout SHAPE`: the offset map and the buffer size, judged by the
layout brute force (`oracle_layout`); bad layouts are bad input."""

from __future__ import annotations

import io
import json

import pytest

from tests.oracle_layout import buffer_bytes, buffer_elements, offsets
from verifier.cli import EXIT_BAD_INPUT, EXIT_OK, main
from verifier.expr.nodes import dim
from verifier.expr.parser import parse_map
from verifier.hlo.shape import parse_shape


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


@pytest.mark.parametrize(
    "text",
    [
        "f32[3,5]{1,0:T(2,2)}",
        "bf16[4,1,8,16]{3,2,0,1:T(2,4)(2,1)S(1)}",
        "s32[]{:T(128)}",
        "s4[5,3]{0,1:T(2)L(8)E(4)}",
        "f32[2,3,4]{2,1,0:T(*,2,3)}",
    ],
)
def test_json_map_and_sizes_equal_the_brute_force(text: str) -> None:
    code, output = run("layout", "--format", "json", text)
    assert code == EXIT_OK
    report = json.loads(output)
    shape = parse_shape(text)
    assert report["shape"] == str(shape)
    assert report["buffer_elements"] == buffer_elements(shape)
    assert report["buffer_bytes"] == buffer_bytes(shape)
    assert report["padding_elements"] == buffer_elements(shape) - shape.num_elements
    assert report["memory_space"] == (shape.layout_or_default.memory_space or 0)
    offset = parse_map(report["map"])
    for index, slot in offsets(shape).items():
        assert offset.evaluate({dim(k): v for k, v in enumerate(index)}) == (slot,)
    inverse = parse_map(report["inverse"])
    for index, slot in offsets(shape).items():
        assert inverse.evaluate({dim(0): slot}) == index


def test_text_names_the_buffer_and_warns_about_offsets_past_it() -> None:
    code, output = run("layout", "f32[3]{0:T(2)(4)}")
    assert code == EXIT_OK
    assert "buffer: 4 slots of 32 bits = 16 bytes (3 elements, 1 padding)" in output
    assert "offsets span 8 slots, past the buffer" in output


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("f32[3]{0:T(2,*)}", "SHAPE:1:7: tile (2,*)"),
        ("f32[3]{0:SC(0:1)}", "split configs"),
        ("f32[3]{0:E(4)}", "narrower"),
        ("f32[3", "SHAPE:1:6"),
    ],
)
def test_bad_layouts_are_bad_input(
    text: str, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("layout", text)
    assert code == EXIT_BAD_INPUT
    assert fragment in capsys.readouterr().err
