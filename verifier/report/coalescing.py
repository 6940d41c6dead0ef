"""The `coalescing` report: per fusion, XLA's launch mapping and per
operand the exact sectors per request beside XLA's two verdicts, as plain
data and as text.

JSON (issue #30's contract; one object per fusion, a list of them when a
module's every fusion is reported)::

    {"module": "m", "instruction": "fusion", "device": "rtx-a6000",
     "emitter": "loop", "xla_heuristic": true,
     "launch": {"threads_per_block": 128, "blocks": 157, "grid": [157, 1, 1],
                "unroll": 1, "thread_to_output": "(d0, …)[s0, s1] -> (…), domain: …"},
     "operands": [{"operand": 0, "name": "p0", "element_bytes": 4,
                   "xla_coalesced": true, "linearized": "…",
                   "sectors_per_request": {"min": 4, "mean": 4.0, "max": 4},
                   "ideal_sectors": 4, "coalesced": true,
                   "requests": 625, "requests_at_ideal": 625,
                   "worst_request": {"block": [0, 0], "warp": 0, "loop_ids": [0],
                                     "sectors": 4, "elements": 32, "ideal": 4},
                   "proof": {"period": 100, "breaks": 0, "requests_counted": 100}}]}

A shared-memory emitter's launch also has ``"thread_to_hero_input"`` (its
``thread_to_output`` is over the normalised output).  A fusion whose
emitter is not modelled has ``"launch": null``, no operands and
``"unsupported"`` saying why; an operand whose counts are not known has
``null`` counts and ``"coalesced"``, and ``"reason"``.  An operand read
at runtime offsets (a dynamic-slice's) has the counts of its worst runtime
alignment and ``"runtime_alignments"``: ``{"values": ["q1", …] (their
source instructions), "counted": int, "worst": [int, …], "best": [int, …],
"best_sectors_per_request": {"min", "mean", "max"}}``; its ``"coalesced"``
holds at every alignment.
"""

from __future__ import annotations

from typing import Any

from verifier.coalescing.analysis import FusionCoalescing, OperandCoalescing
from verifier.coalescing.emitter import Launch


def module_json(
    module: str, answers: list[FusionCoalescing], *, single: bool
) -> dict[str, Any] | list[dict[str, Any]]:
    """One object for a `single` named fusion, else a list of them."""
    reports = [fusion_json(module, answer) for answer in answers]
    return reports[0] if single else reports


def fusion_json(module: str, answer: FusionCoalescing) -> dict[str, Any]:
    """One fusion's report (module docstring)."""
    report: dict[str, Any] = {
        "module": module,
        "instruction": answer.instruction,
        "device": answer.device,
        "emitter": answer.emitter.kind,
        "xla_heuristic": answer.xla_heuristic,
    }
    launch = answer.launch
    if launch is None:
        return report | {"launch": None, "operands": [], "unsupported": answer.emitter.unsupported}
    report["launch"] = {
        "threads_per_block": launch.threads_per_block,
        "blocks": launch.blocks,
        "grid": list(launch.grid),
        "unroll": launch.unroll,
        "thread_to_output": str(launch.thread_to_output),
    }
    if answer.emitter.mapping is not None:
        report["launch"]["thread_to_hero_input"] = str(launch.thread_map)
    report["operands"] = [_operand(row, launch) for row in answer.operands]
    return report


def _operand(row: OperandCoalescing, launch: Launch) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operand": row.operand,
        "name": row.name,
        "element_bytes": -(-row.element_bits // 8),
        "element_bits": row.element_bits,
        "xla_coalesced": row.xla_coalesced,
        "linearized": str(row.linearized[0]) if row.linearized else None,
        "loads": len(row.linearized),
        "ideal_sectors": row.ideal_sectors,
        "coalesced": row.coalesced,
    }
    counts = row.sectors
    if counts is None:
        return out | {"sectors_per_request": None, "reason": row.reason}
    out["sectors_per_request"] = (
        {"min": counts.minimum, "mean": float(counts.mean), "max": counts.maximum}
        if counts.requests
        else None
    )
    out["requests"] = counts.requests
    out["requests_at_ideal"] = counts.at_ideal
    if counts.requests:
        out["worst_request"] = _witness(counts.worst.index, launch) | {
            "sectors": counts.worst.sectors,
            "elements": counts.worst.elements,
            "ideal": counts.worst.ideal,
        }
    out["proof"] = {
        "period": counts.period,
        "breaks": counts.breaks,
        "requests_counted": counts.counted,
    }
    runtime = row.runtime
    if runtime is not None:
        best = runtime.best_sectors
        out["runtime_alignments"] = {
            "values": list(runtime.values),
            "counted": runtime.counted,
            "worst": list(runtime.worst),
            "best": list(runtime.best),
            "best_sectors_per_request": {
                "min": best.minimum,
                "mean": float(best.mean),
                "max": best.maximum,
            }
            if best.requests
            else None,
        }
    return out


def with_coalescing(report: dict[str, Any], answers: list[FusionCoalescing]) -> dict[str, Any]:
    """`verifier utilization`'s report with a ``"coalescing"`` entry per
    operand: for an operand of a fusion, its exact sectors per request, the
    ideal, both verdicts and the emitter (or why it is not modelled);
    ``null`` for other instructions' operands."""
    by_name = {answer.instruction: answer for answer in answers}
    instructions = []
    for entry in report["instructions"]:
        answer = by_name.get(entry["name"])
        rows = {row.operand: row for row in answer.operands} if answer else {}
        operands = [
            operand | {"coalescing": _column(answer, rows.get(operand["operand"]))}
            for operand in entry["operands"]
        ]
        instructions.append(entry | {"operands": operands})
    return report | {"instructions": instructions}


def _column(answer: FusionCoalescing | None, row: OperandCoalescing | None) -> Any:
    if answer is None:
        return None
    if row is None:
        return {"emitter": answer.emitter.kind, "unsupported": answer.emitter.unsupported}
    counts = row.sectors
    spr = (
        {"min": counts.minimum, "mean": float(counts.mean), "max": counts.maximum}
        if counts is not None and counts.requests
        else None
    )
    return {
        "emitter": answer.emitter.kind,
        "sectors_per_request": spr,
        "ideal_sectors": row.ideal_sectors,
        "coalesced": row.coalesced,
        "xla_coalesced": row.xla_coalesced,
    }


def _witness(index: tuple[int, ...], launch: Launch) -> dict[str, Any]:
    """Request ``r`` back to its block and its warp within the block; the
    loop ids in the load's symbol order (the operand's own, then the
    emitter's, the vector id left out)."""
    request, loops = index[0], index[1:]
    per_block = -(-launch.threads_per_block // launch.warp_size)
    grid_x = launch.grid[0]
    return {
        "warp": request % per_block,
        "block": [request // per_block % grid_x, request // (per_block * grid_x)],
        "loop_ids": list(loops),
    }


def render_text(report: dict[str, Any] | list[dict[str, Any]]) -> str:
    """The report as text, one block per fusion."""
    reports = report if isinstance(report, list) else [report]
    return "\n\n".join(_fusion_text(r) for r in reports)


def _verdict(value: bool | None) -> str:
    return "unknown" if value is None else "coalesced" if value else "uncoalesced"


def _fusion_text(report: dict[str, Any]) -> str:
    lines = [
        f"{report['instruction']} ({report['module']}, {report['device']}): "
        f"{report['emitter']} emitter; XLA heuristic: "
        f"{_verdict(report['xla_heuristic'])}"
    ]
    launch = report["launch"]
    if launch is None:
        lines.append(f"  unsupported: {report['unsupported']}")
        return "\n".join(lines)
    lines.append(
        f"  launch: {launch['blocks']} blocks x {launch['threads_per_block']} threads, "
        f"unroll {launch['unroll']}"
    )
    for row in report["operands"]:
        head = (
            f"  operand {row['operand']} {row['name']} ({row['element_bytes']} B): "
            f"XLA {_verdict(row['xla_coalesced'])}"
        )
        spr = row["sectors_per_request"]
        if row["coalesced"] is None:
            lines.append(f"{head}; exact: unknown ({row['reason']})")
            continue
        if spr is None:
            lines.append(f"{head}; exact: no request reads it")
            continue
        verdict = _verdict(row["coalesced"])
        worst = row["worst_request"]
        lines.append(
            f"{head}; exact: {verdict}, sectors per request min {spr['min']} / mean "
            f"{spr['mean']:.3g} / max {spr['max']} (ideal {row['ideal_sectors']} for a full "
            f"warp), {row['requests_at_ideal']} of {row['requests']} requests at their ideal; "
            f"worst: block {worst['block']} warp {worst['warp']}"
            + (f" loop ids {worst['loop_ids']}" if worst["loop_ids"] else "")
            + f", {worst['sectors']} sectors for {worst['elements']} elements"
            + _alignments_text(row.get("runtime_alignments"))
        )
    return "\n".join(lines)


def _alignments_text(alignments: dict[str, Any] | None) -> str:
    if alignments is None:
        return ""
    names = ", ".join(alignments["values"])
    best = alignments["best_sectors_per_request"]
    text = (
        f"; at runtime offsets ({names}): worst of {alignments['counted']} alignments at "
        f"{alignments['worst']}"
    )
    if best is not None:
        text += f", best at {alignments['best']} (max {best['max']}, mean {best['mean']:.3g})"
    return text
