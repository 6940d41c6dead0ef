"""Fusions of 3 convolutions and 3 pools in the shapes real networks use
(issue #13: `verifier check` of such a fusion within 3 CPU-s, and its
utilization exact, on more than the one module of `examples/benchmarks/`).

Each stage is convolution → bias → ReLU → reduce-window max, as XLA's CPU
backend fuses `examples/benchmarks/convnet_source.py`; a bitcast flattens
the last pool for a dense layer.  `CONVNETS` varies what changes the maps:
strides, SAME and VALID padding, kernel dilation, overlapping and padded
pools, kernel sizes, odd sizes, NCHW, and an ImageNet-sized input.

>>> print(convnet_module(CONVNETS[0]).splitlines()[12])
  %conv0 = f32[2,32,32,8] convolution(%p0, %p3), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Convnet:
    """Three stages of a convolution (`kernel`, `stride`, SAME or VALID
    padding, `dilation` of the kernel) and a max-pool (`pool` window,
    `pool_stride`, `pool_padding` on each side) on a `size` x `size` image."""

    name: str
    size: int = 32
    batch: int = 2
    channels: tuple[int, int, int, int] = (3, 8, 16, 32)
    kernel: int = 3
    stride: int = 1
    same: bool = True
    dilation: int = 1
    pool: int = 2
    pool_stride: int = 2
    pool_padding: int = 0
    nchw: bool = False


CONVNETS = (
    Convnet("base"),
    Convnet("valid", size=38, same=False),
    Convnet("stride2", size=64, stride=2),
    Convnet("dilated", dilation=2),
    Convnet("pool3s2", size=36, pool=3),
    Convnet("poolpad", pool=3, pool_padding=1),
    Convnet("k5", kernel=5),
    Convnet("k1", kernel=1),
    Convnet("nchw", nchw=True),
    Convnet("odd", size=37, batch=3, channels=(3, 7, 11, 13)),
    Convnet("k7s2", size=112, kernel=7, stride=2, pool=3, pool_padding=1),
    Convnet("imagenet", size=224, batch=8, channels=(3, 64, 128, 256)),
)


def convnet_module(net: Convnet) -> str:
    """The HLO text of `net`: one fusion holding its three stages and the
    dense layer, called by the entry computation."""
    parameters: list[str] = []
    body: list[str] = []

    def parameter(shape: str) -> str:
        name = f"p{len(parameters)}"
        body.append(f"  %{name} = {shape} parameter({len(parameters)})")
        parameters.append(shape)
        return name

    def image(side: int, features: int) -> str:
        sides = (features, side, side) if net.nchw else (side, side, features)
        return _array(net.batch, *sides)

    side = net.size
    value = parameter(image(side, net.channels[0]))
    zero, lowest = parameter("f32[]"), parameter("f32[]")
    for stage in range(3):
        features = net.channels[stage + 1]
        kernel = (
            _array(features, net.channels[stage], net.kernel, net.kernel)
            if net.nchw
            else _array(net.kernel, net.kernel, net.channels[stage], features)
        )
        weights, bias = parameter(kernel), parameter(_array(features))
        side, window = _convolution(net, side)
        out = image(side, features)
        labels = "bf01_oi01->bf01" if net.nchw else "b01f_01io->b01f"
        body += [
            f"  %conv{stage} = {out} convolution(%{value}, %{weights}), "
            f"window={{{window}}}, dim_labels={labels}",
            f"  %bias{stage} = {out} broadcast(%{bias}), dimensions={{{1 if net.nchw else 3}}}",
            f"  %sum{stage} = {out} add(%conv{stage}, %bias{stage})",
            f"  %zeros{stage} = {out} broadcast(%{zero}), dimensions={{}}",
            f"  %relu{stage} = {out} maximum(%sum{stage}, %zeros{stage})",
        ]
        side, window = _pooling(net, side)
        body.append(
            f"  %pool{stage} = {image(side, features)} reduce-window(%relu{stage}, %{lowest}), "
            f"window={{{window}}}, to_apply=%max"
        )
        value = f"pool{stage}"
    flat = side * side * net.channels[3]
    dense = parameter(_array(flat, 10))
    result = _array(net.batch, 10)
    body += [
        f"  %flat = {_array(net.batch, flat)} bitcast(%{value})",
        f"  ROOT %dense = {result} dot(%flat, %{dense}), "
        "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
    ]
    signature = ", ".join(f"p{k}: {shape}" for k, shape in enumerate(parameters))
    entry = [f"  %e{k} = {shape} parameter({k})" for k, shape in enumerate(parameters)]
    operands = ", ".join(f"%e{k}" for k in range(len(parameters)))
    return "\n".join(
        [
            f"HloModule convnet_{net.name}",
            "%max (a: f32[], b: f32[]) -> f32[] {",
            "  %a = f32[] parameter(0)",
            "  %b = f32[] parameter(1)",
            "  ROOT %m = f32[] maximum(%a, %b)",
            "}",
            f"%stages ({signature}) -> {result} {{",
            *body,
            "}",
            f"ENTRY %main ({signature}) -> {result} {{",
            *entry,
            f"  ROOT %net = {result} fusion({operands}), kind=kCustom, calls=%stages",
            "}",
        ]
    )


def _array(*dimensions: int) -> str:
    return "f32[" + ",".join(map(str, dimensions)) + "]"


def _convolution(net: Convnet, side: int) -> tuple[int, str]:
    """The output side and the window attribute of a stage's convolution."""
    reach = (net.kernel - 1) * net.dilation + 1
    padding = reach - 1 if net.same else 0
    low, high = padding // 2, padding - padding // 2
    window = f"size={net.kernel}x{net.kernel}"
    if net.stride != 1:
        window += f" stride={net.stride}x{net.stride}"
    if padding:
        window += f" pad={low}_{high}x{low}_{high}"
    if net.dilation != 1:
        window += f" rhs_dilate={net.dilation}x{net.dilation}"
    return (side + padding - reach) // net.stride + 1, window


def _pooling(net: Convnet, side: int) -> tuple[int, str]:
    """The output side and the window attribute of a stage's pool."""
    spatial = [(net.pool, net.pool_stride, net.pool_padding)] * 2
    unit = (1, 1, 0)
    dimensions = [unit, unit, *spatial] if net.nchw else [unit, *spatial, unit]
    window = "size=" + "x".join(str(size) for size, _, _ in dimensions)
    window += " stride=" + "x".join(str(stride) for _, stride, _ in dimensions)
    if net.pool_padding:
        window += " pad=" + "x".join(f"{pad}_{pad}" for _, _, pad in dimensions)
    side = (side + 2 * net.pool_padding - net.pool) // net.pool_stride + 1
    return side, window
