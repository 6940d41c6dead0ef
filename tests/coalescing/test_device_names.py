"""The GPU names the command line offers are the device table's: one list
(`verifier.device_names`, importing nothing) that `DEVICES` is built on
and every option naming a GPU takes its choices from."""

from __future__ import annotations

import argparse

from verifier.cli import build_parser
from verifier.coalescing.devices import DEVICES
from verifier.device_names import DEFAULT_DEVICE, DEVICE_NAMES


def _option(command: str, flag: str) -> argparse.Action:
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser = commands.choices[command]
    (action,) = (a for a in parser._actions if flag in a.option_strings)
    assert isinstance(action, argparse.Action)
    return action


def test_the_names_are_the_device_table() -> None:
    assert tuple(DEVICES) == DEVICE_NAMES
    assert all(DEVICES[name].name == name for name in DEVICE_NAMES)
    assert DEFAULT_DEVICE in DEVICES


def test_every_gpu_option_offers_the_table() -> None:
    device = _option("coalescing", "--device")
    assert tuple(device.choices or ()) == tuple(DEVICES) and device.default == DEFAULT_DEVICE
    coalescing = _option("utilization", "--coalescing")
    assert tuple(coalescing.choices or ()) == tuple(DEVICES) and coalescing.const == DEFAULT_DEVICE
    corpus = _option("corpus", "--coalescing")
    assert f"({', '.join(DEVICES)})" in (corpus.help or "")
