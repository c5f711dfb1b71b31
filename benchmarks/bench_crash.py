"""kill -9 during wide writes: the long form of ``tests/test_crash_atomicity.py``.

A child process writes 50 files again and again through the write path (each set gives every
file the same new generation) and is killed with SIGKILL at a random moment; the next
``Workspace`` on the root recovers. Counts the kills, how many landed inside a set (a
journal was left), torn sets seen after recovery (must be 0) and temporary files left (must
be 0), and the time recovery took. With ``--rename`` each set also renames its last file (to
``r_a.py`` and back to ``r_b.py``), every other set before editing it under its new name,
as a ``WorkspaceEdit``'s ``documentChanges`` may.

Run ``python benchmarks/bench_crash.py [--kills N] [--files N] [--rename] [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adecore_lsp import Workspace
from adecore_lsp.write_path import TEMP_SUFFIX, journal_folder

WRITER = """
import sys
from pathlib import Path
from adecore_lsp.write_path import WriteSet

root, files, rename = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "rename"
generation = 0
while True:
    generation += 1
    writes = WriteSet(root)
    edited = files - 1 if rename else files
    for index in range(edited):
        body = f"generation = {generation}\\n" + "# padding\\n" * (index % 7)
        writes.write(root / f"m{index:03}.py", body.encode())
    if rename:
        now = "r_a.py" if (root / "r_a.py").exists() else "r_b.py"
        then = "r_b.py" if now == "r_a.py" else "r_a.py"
        body = f"generation = {generation}\\n".encode()
        if generation % 2:
            writes.rename(root / now, root / then, overwrite=False)
            writes.write(root / then, body)
        else:
            writes.write(root / now, body)
            writes.rename(root / now, root / then, overwrite=False)
    writes.commit()
    if generation == 1:
        print("ready", flush=True)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--rename", action="store_true", help="each set renames a file too")
    parser.add_argument("--quick", action="store_true", help="10 kills, for a smoke test")
    arguments = parser.parse_args()
    kills = 10 if arguments.quick else arguments.kills
    rng = random.Random(2026)
    interrupted = torn = leftovers = 0
    recoveries: list[float] = []
    with tempfile.TemporaryDirectory() as name:
        root = Path(name) / "proj"
        root.mkdir()
        folder = journal_folder(Path(os.path.realpath(root)))
        mode = "rename" if arguments.rename else "edit"
        if arguments.rename:
            (root / "r_a.py").write_text("generation = 0\n")
        for _ in range(kills):
            writer = subprocess.Popen(
                [sys.executable, "-c", WRITER, str(root), str(arguments.files), mode],
                stdout=subprocess.PIPE,
            )
            assert writer.stdout is not None
            if writer.stdout.readline() != b"ready\n":
                raise SystemExit("the writer did not start")
            time.sleep(rng.uniform(0.0, 0.25))
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait()
            writer.stdout.close()
            interrupted += folder.is_dir() and any(folder.iterdir())
            began = time.perf_counter()
            Workspace(root)
            recoveries.append(time.perf_counter() - began)
            files = [*root.glob("m*.py"), *root.glob("r_*.py")]
            first_lines = {path.read_text().split("\n", 1)[0] for path in files}
            renamed = len(list(root.glob("r_*.py")))
            torn += len(first_lines) != 1 or renamed != arguments.rename
            leftovers += len(list(root.rglob(f"*{TEMP_SUFFIX}")))
    what = " that renames a file" if arguments.rename else ""
    print(f"{kills} kills of a {arguments.files}-file write{what}")
    print(f"  kills that landed inside a set   {interrupted}")
    print(f"  torn sets after recovery          {torn}   (must be 0)")
    print(f"  temporary files left              {leftovers}   (must be 0)")
    print(f"  Workspace() with recovery, median {statistics.median(recoveries) * 1e3:.1f} ms")
    return 1 if torn or leftovers else 0


if __name__ == "__main__":
    sys.exit(main())
