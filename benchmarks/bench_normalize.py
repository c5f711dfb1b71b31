"""Benchmark the normalisation of feature answers against decoding the same answer.

A feature call costs a ``request()`` plus the normalisation of its answer. The baseline
here is the part of a raw ``request()`` that grows with the answer: ``orjson.loads`` of its
body, in the same run. Printed: the normalisation's time as a share of that (the target is
at most 10% for answers that need no rewriting; rewriting every item costs more).

Workloads: a completion list of 10,000 items with and without ``itemDefaults``, 100,000
semantic tokens, 5,000 document symbols as ``SymbolInformation[]``, and a rename touching
1,000 files as a ``changes`` map.

With ``--lsprotocol``, the same answers are also structured with lsprotocol's converter
(pygls's typed path), in an environment of the benchmark's own (``build/bench-lsprotocol``,
made with pip on first use, so that the project itself never depends on it), and the
ratio of the two is printed: the target is ours at least 10x faster.

Run ``python benchmarks/bench_normalize.py [--quick] [--lsprotocol]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import timeit
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from adecore_lsp.protocol.shapes import normalize
from adecore_lsp.protocol.shapes.completion import completion
from adecore_lsp.protocol.shapes.semantic_tokens import semantic_tokens
from adecore_lsp.protocol.shapes.symbols import document_symbols

R = {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 9}}
LEGEND = {"tokenTypes": ["namespace", "class", "function", "variable"], "tokenModifiers": ["a"]}


def rng(start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}


def workloads(scale: int) -> list[tuple[str, bytes, Callable[[Any], object]]]:
    """(name, the answer's JSON body, the normalisation) for each workload."""
    items = [{"label": f"name_{i}", "kind": 6, "sortText": f"{i:05}"} for i in range(10 * scale)]
    with_defaults = {
        "isIncomplete": False,
        "itemDefaults": {"editRange": R, "commitCharacters": ["."]},
        "items": items,
    }
    data = [0, 4, 5, 2, 0] * (100 * scale)
    symbols = []
    for c in range(scale // 2):
        symbols.append(
            {
                "name": f"C{c}",
                "kind": 5,
                "location": {"uri": "file:///a.py", "range": rng(c * 20, c * 20 + 19)},
            }
        )
        symbols += [
            {
                "name": f"m{m}",
                "kind": 6,
                "containerName": f"C{c}",
                "location": {
                    "uri": "file:///a.py",
                    "range": rng(c * 20 + 1 + 2 * m, c * 20 + 2 + 2 * m),
                },
            }
            for m in range(9)
        ]
    changes = {
        "changes": {
            f"file:///w/m{i}.py": [{"range": R, "newText": "renamed"}] for i in range(scale)
        }
    }
    return [
        (f"completion, {10 * scale:,} items, no defaults", orjson.dumps(items), completion),
        (
            f"completion, {10 * scale:,} items, itemDefaults",
            orjson.dumps(with_defaults),
            completion,
        ),
        (
            f"semantic tokens, {100 * scale:,}",
            orjson.dumps({"data": data}),
            lambda answer: semantic_tokens(answer, LEGEND),
        ),
        (
            f"document symbols, {len(symbols):,} SymbolInformation",
            orjson.dumps(symbols),
            document_symbols,
        ),
        (
            f"rename, {scale:,} files as changes",
            orjson.dumps(changes),
            lambda answer: normalize.workspace_edit(answer, lambda uri: None),
        ),
    ]


ROOT = Path(__file__).resolve().parent.parent
LSPROTOCOL_ENV = ROOT / "build" / "bench-lsprotocol"
# What lsprotocol structures each workload's answer as, by the workload's first word.
LSPROTOCOL_TYPES = {
    "completion": "List[types.CompletionItem]",
    "completion+": "types.CompletionList",
    "semantic": "types.SemanticTokens",
    "document": "List[types.SymbolInformation]",
    "rename": "types.WorkspaceEdit",
}
LSPROTOCOL_TIMER = """
import json, sys, timeit
from typing import List
from lsprotocol import converters, types
converter = converters.get_converter()
quick = sys.argv[2] == "1"
out = {}
for name, (path, kind) in json.load(open(sys.argv[1])).items():
    decoded = json.load(open(path))
    target = eval(kind)
    timer = timeit.Timer(lambda: converter.structure(decoded, target))
    if quick:
        out[name] = timer.timeit(1)
    else:
        number, _ = timer.autorange()
        out[name] = min(timer.repeat(7, number)) / number
print(json.dumps(out))
"""


def lsprotocol_python() -> Path:
    """The Python of the benchmark's own environment with lsprotocol, made on first use."""
    python = LSPROTOCOL_ENV / "bin" / "python"
    if not python.exists():
        venv.create(LSPROTOCOL_ENV, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "lsprotocol"], check=True)
    return python


def lsprotocol_times(bodies: dict[str, tuple[bytes, str]], quick: bool) -> dict[str, float]:
    """Seconds lsprotocol's converter takes to structure each decoded answer."""
    python = lsprotocol_python()
    with tempfile.TemporaryDirectory() as folder:
        index = {}
        for number, (name, (body, kind)) in enumerate(bodies.items()):
            path = Path(folder) / f"{number}.json"
            path.write_bytes(body)
            index[name] = (str(path), kind)
        listing = Path(folder) / "index.json"
        listing.write_text(json.dumps(index))
        done = subprocess.run(
            [str(python), "-c", LSPROTOCOL_TIMER, str(listing), "1" if quick else "0"],
            capture_output=True,
            text=True,
            check=True,
        )
    times: dict[str, float] = json.loads(done.stdout)
    return times


def best(call: Callable[[], object], quick: bool = False) -> float:
    """The best of 7 timings of ``call`` (of one, quick), in seconds."""
    timer = timeit.Timer(call)
    if quick:
        return timer.timeit(1)
    number, _ = timer.autorange()
    return min(timer.repeat(7, number)) / number


def main(argv: list[str] | None = None) -> int:
    """Print each workload's decoding and normalisation times and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--lsprotocol", action="store_true", help="also time lsprotocol's converter"
    )
    args = parser.parse_args(argv)
    rows = []
    for name, body, normalise in workloads(20 if args.quick else 1000):
        decoded = orjson.loads(body)
        decode = best(lambda: orjson.loads(body), args.quick)  # noqa: B023
        shape = best(lambda: normalise(decoded), args.quick)  # noqa: B023
        rows.append((name, body, decode, shape))
    theirs: dict[str, float] = {}
    if args.lsprotocol:
        kinds = {name: (body, LSPROTOCOL_TYPES[_kind_key(name)]) for name, body, _, _ in rows}
        theirs = lsprotocol_times(kinds, args.quick)
    print(f"{'workload':<44} {'decode':>9} {'ours':>9} {'share':>6}", end="")
    print(f" {'lsprotocol':>11} {'ratio':>7}" if theirs else "")
    for name, _, decode, shape in rows:
        line = f"{name:<44} {decode * 1e3:>7.2f}ms {shape * 1e3:>7.2f}ms {shape / decode:>6.0%}"
        if theirs:
            line += f" {theirs[name] * 1e3:>9.2f}ms {theirs[name] / shape:>6.1f}x"
        print(line)
    if theirs:
        print("ratio: lsprotocol's time / ours (the target is at least 10x)")
    return 0


def _kind_key(name: str) -> str:
    """The key of :data:`LSPROTOCOL_TYPES` for a workload's name."""
    first = name.split(",")[0].split()[0]
    return "completion+" if first == "completion" and "itemDefaults" in name else first


if __name__ == "__main__":
    sys.exit(main())
