"""`verifier xla-tests` on an XLA tree: per test file, how many expectations
are equal, different and not comparable (against the issue's goals: at most
5 % not comparable for indexing_map_test.cc, 10 % for
indexing_analysis_test.cc and for the symbolic-tile tests), the tile files
together, every `different` with its witness, and what
checking costs beside the alternative a reader has — XLA's own matcher,
text equality after whitespace, which cannot tell a wrong map from a
rewritten one (it counts how many expectations of each file differ from
verifier's map as text though they are proved equal).

    python benchmarks/xla_tests.py --git /work/.mirror/tpopp+xla/repo [--rev HEAD]
    python benchmarks/xla_tests.py --tree path/to/xla            # a source tree

Runs through the command line's path (`verifier.cli.main`, JSON), in one process.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import tempfile
import time
from pathlib import Path

from verifier.cli import main as verifier_main

FILES = {
    "xla/hlo/analysis/indexing_map_test.cc": 0.05,
    "xla/hlo/analysis/indexing_analysis_test.cc": 0.10,
    "xla/codegen/tiling/symbolic_tile_test.cc": 0.10,
    "xla/codegen/tiling/symbolic_tile_analysis_test.cc": 0.10,
}


def _files(args: argparse.Namespace, into: Path) -> list[Path]:
    paths = []
    for name in FILES:
        target = into / Path(name).name
        if args.git:
            text = subprocess.run(
                ["git", "-C", args.git, "show", f"{args.rev}:{name}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        else:
            text = (Path(args.tree) / name).read_text()
        target.write_text(text)
        paths.append(target)
    return paths


def _textually_equal(expectation: dict[str, object]) -> bool:
    computed, expected = expectation.get("computed"), expectation.get("expected")
    if not isinstance(computed, str) or not isinstance(expected, str):
        return False
    return "".join(computed.split()) == "".join(expected.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--git", help="an XLA git directory")
    source.add_argument("--tree", help="an XLA source tree")
    parser.add_argument("--rev", default="HEAD", help="with --git: the revision (default HEAD)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        paths = _files(args, Path(scratch))
        out = io.StringIO()
        start = time.process_time()
        code = verifier_main(["xla-tests", *map(str, paths), "--format", "json"], out)
        seconds = time.process_time() - start
    document = json.loads(out.getvalue())
    print(
        f"{'file':<30}{'expect.':>8}{'equal':>7}{'diff.':>7}{'n/c':>5}{'n/c %':>7}{'goal':>6}"
        f"{'text=':>7}"
    )
    for path, (name, goal) in zip(paths, FILES.items(), strict=True):
        rows = [e for e in document["expectations"] if Path(e["file"]).name == path.name]
        counts = {
            v: sum(e["verdict"] == v for e in rows)
            for v in ("equal", "different", "not-comparable")
        }
        share = counts["not-comparable"] / max(1, len(rows))
        text_equal = sum(_textually_equal(e) for e in rows if e["verdict"] == "equal")
        print(
            f"{Path(name).name:<30}{len(rows):>8}{counts['equal']:>7}{counts['different']:>7}"
            f"{counts['not-comparable']:>5}{100 * share:>6.1f}%{100 * goal:>5.0f}%{text_equal:>7}"
        )
    tiles = [e for e in document["expectations"] if "symbolic_tile" in Path(e["file"]).name]
    tiles_nc = sum(e["verdict"] == "not-comparable" for e in tiles)
    print(
        f"{'symbolic-tile files':<30}{len(tiles):>8}"
        f"{sum(e['verdict'] == 'equal' for e in tiles):>7}"
        f"{sum(e['verdict'] == 'different' for e in tiles):>7}"
        f"{tiles_nc:>5}{100 * tiles_nc / max(1, len(tiles)):>6.1f}%{10:>5}%"
    )
    for e in document["expectations"]:
        if e["verdict"] == "different":
            print(f"  different  {Path(e['file']).name}:{e['line']} {e['test']}: {e['witness']}")
    for e in document["expectations"]:
        if e["verdict"] == "not-comparable":
            reason = (e["reason"] or "").splitlines()[0]
            print(f"  n/c        {Path(e['file']).name}:{e['line']} {e['test']}: {reason}")
    total = len(document["expectations"])
    print(
        f"{total} expectations in {seconds:.1f} CPU-s ({1000 * seconds / max(1, total):.0f} ms each), "
        f"exit {code}; 'text=': equal expectations whose text is verifier's map's"
    )


if __name__ == "__main__":
    main()
