"""Benchmark ``supports()`` with many registrations of other methods.

pyright and its kin register file watchers by the thousand. A lookup must cost what the
asked method's own registrations cost, not what all of them cost. The baseline is the same
call on a registry with no registrations, in the same run; the target is under 10 µs a call
with 100,000 registrations of ``workspace/didChangeWatchedFiles``.

Run ``python benchmarks/bench_capabilities.py [--registrations N]``.
"""

from __future__ import annotations

import argparse
import sys
import timeit

from adecore_lsp.protocol.capabilities.capabilities import CapabilityRegistry

TARGET_SECONDS = 10e-6
CAPABILITIES = {"hoverProvider": True, "textDocumentSync": 2}
DOCUMENT = {"uri": "file:///project/src/module.py", "languageId": "python"}


def registry(count: int) -> CapabilityRegistry:
    """A registry with ``count`` file-watcher registrations and one hover registration."""
    made = CapabilityRegistry()
    made.set_server_capabilities(CAPABILITIES)
    made.register(
        {
            "registrations": [
                {
                    "id": f"watch-{index}",
                    "method": "workspace/didChangeWatchedFiles",
                    "registerOptions": {"watchers": [{"globPattern": f"**/dir{index}/*.py"}]},
                }
                for index in range(count)
            ]
            + [
                {
                    "id": "hover",
                    "method": "textDocument/hover",
                    "registerOptions": {"documentSelector": [{"language": "python"}]},
                }
            ]
        }
    )
    return made


def per_call(target: CapabilityRegistry, method: str, document: object) -> float:
    """The best of 7 timings of one ``supports`` call, in seconds."""
    timer = timeit.Timer(lambda: target.supports(method, document))  # type: ignore[arg-type]
    number, _ = timer.autorange()
    return min(timer.repeat(7, number)) / number


def main(argv: list[str] | None = None) -> int:
    """Print the per-call cost with and without the registrations, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--registrations", type=int, default=100_000)
    args = parser.parse_args(argv)
    empty, full = registry(0), registry(args.registrations)
    print(f"{args.registrations:,} registrations of workspace/didChangeWatchedFiles")
    met = True
    for method, document in (
        ("textDocument/hover", DOCUMENT),
        ("textDocument/hover", None),
        ("textDocument/definition", DOCUMENT),
    ):
        base = per_call(empty, method, document)
        ours = per_call(full, method, document)
        met = met and ours < TARGET_SECONDS
        where = "with a document" if document else "without a document"
        print(
            f"  supports({method!r}, {where}): {ours * 1e6:.2f} µs "
            f"(no registrations: {base * 1e6:.2f} µs, ratio {ours / base:.2f}x)"
        )
    print("target met (< 10 µs)" if met else "target missed (< 10 µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
