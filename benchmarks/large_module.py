"""A large HLO module for the gate's benchmarks, written without jax: a chain
of `layers` blocks, each a normalisation fusion (its own computation, as
XLA prints every fusion) and the entry's reduce, dot, transpose, reshapes,
slice, pad and add around it — 19 instructions a block, so 5,000 blocks are
95,000 instructions, the size of a 24-layer GPT's training step.

    python benchmarks/large_module.py --layers 5000 --output /tmp/large.hlo

>>> text = module_text(2)
>>> text.count(" fusion("), text.count(" = ") - 8  # the region, parameters, root
(2, 38)
"""

from __future__ import annotations

import argparse
from pathlib import Path

_HEADER = """HloModule large_{layers}

%add_region (a: f32[], b: f32[]) -> f32[] {{
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}}
"""

_FUSION = """
%fused_norm.{i} (p0: f32[64,128], p1: f32[64], p2: f32[128]) -> f32[64,128] {{
  %p0.{i} = f32[64,128]{{1,0}} parameter(0)
  %p1.{i} = f32[64]{{0}} parameter(1)
  %p2.{i} = f32[128]{{0}} parameter(2)
  %c.{i} = f32[] constant(0.0078125)
  %bc.{i} = f32[64]{{0}} broadcast(%c.{i}), dimensions={{}}
  %mean.{i} = f32[64]{{0}} multiply(%p1.{i}, %bc.{i})
  %bm.{i} = f32[64,128]{{1,0}} broadcast(%mean.{i}), dimensions={{0}}
  %sub.{i} = f32[64,128]{{1,0}} subtract(%p0.{i}, %bm.{i})
  %bs.{i} = f32[64,128]{{1,0}} broadcast(%p2.{i}), dimensions={{1}}
  ROOT %mul.{i} = f32[64,128]{{1,0}} multiply(%sub.{i}, %bs.{i})
}}
"""

_BLOCK = """  %red.{i} = f32[64]{{0}} reduce(%x.{j}, %zero), dimensions={{1}}, to_apply=%add_region
  %norm.{i} = f32[64,128]{{1,0}} fusion(%x.{j}, %red.{i}, %scale), kind=kLoop, calls=%fused_norm.{i}
  %dot.{i} = f32[64,128]{{1,0}} dot(%norm.{i}, %w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  %t.{i} = f32[128,64]{{1,0}} transpose(%dot.{i}), dimensions={{1,0}}
  %r.{i} = f32[64,2,64]{{2,1,0}} reshape(%t.{i})
  %sl.{i} = f32[64,1,64]{{2,1,0}} slice(%r.{i}), slice={{[0:64], [0:1], [0:64]}}
  %rs.{i} = f32[64,64]{{1,0}} reshape(%sl.{i})
  %pad.{i} = f32[64,128]{{1,0}} pad(%rs.{i}, %zero), padding=0_0x0_64
  %x.{i} = f32[64,128]{{1,0}} add(%pad.{i}, %dot.{i})
"""


def module_text(layers: int) -> str:
    """The module of `layers` blocks."""
    parts = [_HEADER.format(layers=layers)]
    parts += [_FUSION.format(i=i) for i in range(1, layers + 1)]
    parts.append(
        "\nENTRY %main (x: f32[64,128], w: f32[128,128], scale: f32[128]) -> f32[64,128] {\n"
        "  %x.0 = f32[64,128]{1,0} parameter(0)\n"
        "  %w = f32[128,128]{1,0} parameter(1)\n"
        "  %scale = f32[128]{0} parameter(2)\n"
        "  %zero = f32[] constant(0)\n"
    )
    parts += [_BLOCK.format(i=i, j=i - 1) for i in range(1, layers + 1)]
    parts.append(f"  ROOT %out = f32[64,128]{{1,0}} copy(%x.{layers})\n}}\n")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=5000, help="blocks (default 5000)")
    parser.add_argument("--output", required=True, help="where to write the module")
    options = parser.parse_args()
    Path(options.output).write_text(module_text(options.layers))


if __name__ == "__main__":
    main()
