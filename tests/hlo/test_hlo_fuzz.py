"""Malformed input never raises anything but ParseError.

Valid modules (hand-written and a real XLA dump) are mutated — truncated,
characters deleted, duplicated or replaced, spans swapped — and parsing must
either succeed or raise ParseError.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.errors import ParseError
from verifier.hlo import parse_module

REAL = Path(__file__).resolve().parents[2] / "examples" / "real"

HAND_WRITTEN = """HloModule m, entry_computation_layout={(f32[4,4]{1,0})->f32[12,16]{1,0}}
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e (p0: f32[4,4], p1: f32[]) -> (f32[12,16], f32[4]) {
  p0 = f32[4,4]{1,0} parameter(0)
  p1 = f32[] parameter(1)
  pad = f32[12,16]{1,0:T(2,*)(-1,1)S(1)} pad(f32[4,4]{1,0} p0, p1), padding=1_4_1x4_8_0
  r = f32[4] reduce(p0, p1), dimensions={1}, to_apply=add, metadata={op_name="r{"}
  w = f32[4,4] reduce-window(p0, p1), window={size=1x2 stride=1x1 pad=0_0x0_1}, to_apply=add
  c = f32[4,4] convolution(p0, w), dim_labels=bf_io->bf
  s = f32[2,2] slice(c), slice={[0:4:2], [1:3]}, sharding={{replicated}, {devices=[2]0,1}}
  g = f32[2,2] gather(s, p1), offset_dims={0,1}, collapsed_slice_dims={}, start_index_map={0},
      index_vector_dim=0, slice_sizes={2,2}, backend_config={"a":[1,{"b":"}"}]}
  ROOT t = (f32[12,16], f32[4]) tuple(pad, r), frontend_attributes={k="v\\"x"}
}
"""

XLA_STYLE = (Path(__file__).parent / "xla_style.hlo").read_text(encoding="utf-8")
SEEDS = [HAND_WRITTEN, XLA_STYLE, (REAL / "concat_pad.hlo").read_text(encoding="utf-8")]


def parse_or_parse_error(text: str) -> None:
    try:
        parse_module(text, "fuzz.hlo")
    except ParseError as error:
        assert error.span.line >= 1 and error.span.column >= 1


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        kind = draw(st.sampled_from(["truncate", "delete", "duplicate", "replace", "swap"]))
        if kind == "truncate":
            text = text[:at]
        elif kind == "delete":
            length = draw(st.integers(1, 8))
            text = text[:at] + text[at + length :]
        elif kind == "duplicate":
            length = draw(st.integers(1, 8))
            text = text[:at] + text[at : at + length] + text[at:]
        elif kind == "replace":
            char = draw(st.sampled_from(list('{}[]()<>=,:;"\\%/*-_x0123456789 \nabfT')))
            text = text[:at] + char + text[at + 1 :]
        else:
            other = draw(st.integers(0, len(text) - 1))
            low, high = sorted((at, other))
            text = (
                text[:low]
                + text[high : high + 5]
                + text[low + 5 : high]
                + text[low : low + 5]
                + text[high + 5 :]
            )
    return text


def test_seeds_are_valid() -> None:
    for seed in SEEDS:
        assert parse_module(seed).instruction_count > 0


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_modules_raise_only_parse_error(text: str) -> None:
    parse_or_parse_error(text)


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list('HloModule ENTRY ROOT{}[]()=,:"%f32s1-><x_ \n')), max_size=80
    )
)
def test_random_text_raises_only_parse_error(text: str) -> None:
    parse_or_parse_error("HloModule m\n" + text)
