"""Benchmark the normalisation of feature answers against decoding the same answer.

A feature call costs a ``request()`` plus the normalisation of its answer. The baseline
here is the part of a raw ``request()`` that grows with the answer: ``orjson.loads`` of its
body, in the same run. Printed: the normalisation's time as a share of that (the target is
at most 10% for answers that need no rewriting; rewriting every item costs more).

Workloads: a completion list of 10,000 items with and without ``itemDefaults``, 100,000
semantic tokens, 5,000 document symbols as ``SymbolInformation[]``, and a rename touching
1,000 files as a ``changes`` map.

Run ``python benchmarks/bench_normalize.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from typing import Any

import orjson

from adecore_lsp.protocol import normalize
from adecore_lsp.protocol.completion import completion
from adecore_lsp.protocol.semantic_tokens import semantic_tokens
from adecore_lsp.protocol.symbols import document_symbols

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
    args = parser.parse_args(argv)
    print(f"{'workload':<44} {'decode':>10} {'normalise':>10} {'share':>7}")
    for name, body, normalise in workloads(20 if args.quick else 1000):
        decoded = orjson.loads(body)
        decode = best(lambda: orjson.loads(body), args.quick)  # noqa: B023
        shape = best(lambda: normalise(decoded), args.quick)  # noqa: B023
        print(f"{name:<44} {decode * 1e3:>8.2f}ms {shape * 1e3:>8.2f}ms {shape / decode:>6.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
