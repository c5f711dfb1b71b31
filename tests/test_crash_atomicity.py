"""kill -9 during a wide apply: every file old or every file new, and no temporary file left.

A child process writes 50 files again and again through the write path, each set giving
every file the same new generation; it is killed with SIGKILL at a random moment, and the
next ``Workspace`` on the root (whose constructor recovers interrupted writes) must find
every file at one generation and nothing of the write path left in the project.

CI runs a short loop (``ADECORE_LSP_KILLS``, 30 by default); ``benchmarks/bench_crash.py``
runs the long one (200 kills) and counts how many kills landed inside a set.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from adecore_lsp import Workspace
from adecore_lsp.write_path import TEMP_SUFFIX, journal_folder

FILES = 50

WRITER = """
import sys
from pathlib import Path
from adecore_lsp.write_path import WriteSet

root, files = Path(sys.argv[1]), int(sys.argv[2])
generation = 0
while True:
    generation += 1
    writes = WriteSet(root)
    for index in range(files):
        body = f"generation = {generation}\\n" + "# padding\\n" * (index % 7)
        writes.write(root / f"m{index:02}.py", body.encode())
    writes.commit()
    if generation == 1:
        print("ready", flush=True)
"""


def generations(root: Path) -> set[str]:
    return {(root / f"m{index:02}.py").read_text().split("\n", 1)[0] for index in range(FILES)}


def kill_once(root: Path, rng: random.Random) -> bool:
    """Start a writer, kill it at a random moment, recover; whether the kill tore a set."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), str(FILES)],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline() == b"ready\n"
    time.sleep(rng.uniform(0.0, 0.25))
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    writer.stdout.close()
    folder = journal_folder(Path(os.path.realpath(root)))
    torn = folder.is_dir() and any(folder.iterdir())
    Workspace(root)  # the next workspace on the root recovers in its constructor
    return torn


def test_kill_9_never_leaves_a_torn_set_or_a_temporary_file(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    rng = random.Random(19)
    kills = int(os.environ.get("ADECORE_LSP_KILLS", "30"))
    interrupted = 0
    for _ in range(kills):
        interrupted += kill_once(root, rng)
        found = generations(root)
        assert len(found) == 1, f"a torn set: {sorted(found)}"
        assert list(root.rglob(f"*{TEMP_SUFFIX}")) == []
        assert sorted(p.name for p in root.iterdir()) == [f"m{i:02}.py" for i in range(FILES)]
    # The kills must land inside sets, or the test proves nothing.
    assert interrupted >= kills // 3, f"only {interrupted} of {kills} kills hit a set"
