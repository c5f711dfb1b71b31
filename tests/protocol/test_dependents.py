"""The import graph's reverse edges: the files an edit of one may break, nearest first, through
re-exports and packages' ``__init__`` files but not through a file that only uses another."""

from __future__ import annotations

from adecore_lsp.protocol.workspace.import_graph import ImportGraph, passes_on


def graph() -> ImportGraph:
    made = ImportGraph()
    made.set("/r/pkg/__init__.py", {"/r/pkg/utils.py": False, "/r/pkg/core.py": False})
    made.set("/r/pkg/core.py", {"/r/pkg/utils.py": False})
    made.set("/r/pkg/star.py", {"/r/pkg/utils.py": True})
    made.set("/r/app.py", {"/r/pkg/__init__.py": False})
    made.set("/r/uses_star.py", {"/r/pkg/star.py": False})
    made.set("/r/uses_core.py", {"/r/pkg/core.py": False})
    made.set("/r/loop_a.py", {"/r/loop_b.py": True, "/r/loop_a.py": True})
    made.set("/r/loop_b.py", {"/r/loop_a.py": True})
    return made


def test_dependents_come_nearest_first_through_what_passes_an_import_on() -> None:
    found = graph().dependents(["/r/pkg/utils.py"])
    # Direct importers first; then what imports the package's __init__ and the star module.
    assert found == [
        "/r/pkg/__init__.py",
        "/r/pkg/core.py",
        "/r/pkg/star.py",
        "/r/app.py",
        "/r/uses_star.py",
    ]
    # core.py only uses utils.py: what imports core.py is not reached through it.
    assert "/r/uses_core.py" not in found


def test_a_file_first_reached_plainly_is_followed_once_something_passes_it_on() -> None:
    made = ImportGraph()
    made.set("/r/a.py", {"/r/x.py": False, "/r/b.py": True})
    made.set("/r/b.py", {"/r/x.py": True})
    made.set("/r/c.py", {"/r/a.py": False})
    # a.py imports x.py plainly, but also re-exports b.py, which re-exports x.py.
    assert made.dependents(["/r/x.py"]) == ["/r/a.py", "/r/b.py", "/r/c.py"]


def test_cycles_end_and_the_edited_files_are_left_out() -> None:
    made = graph()
    assert made.dependents(["/r/loop_a.py"]) == ["/r/loop_b.py"]
    assert made.imports("/r/loop_a.py") == {"/r/loop_b.py": True}  # never itself
    assert made.dependents(["/r/loop_a.py", "/r/loop_b.py"]) == []


def test_files_set_again_or_dropped_change_their_edges() -> None:
    made = graph()
    assert "/r/app.py" in made
    assert len(made) == 8
    assert made.files()[0] == "/r/pkg/__init__.py"
    made.set("/r/app.py", {"/r/pkg/core.py": False})
    assert made.importers("/r/pkg/__init__.py") == {}
    assert made.importers("/r/pkg/core.py") == {
        "/r/pkg/__init__.py": False,
        "/r/uses_core.py": False,
        "/r/app.py": False,
    }
    made.drop("/r/uses_core.py")
    made.drop("/r/never.py")
    assert "/r/uses_core.py" not in made
    assert "/r/uses_core.py" not in made.importers("/r/pkg/core.py")
    # What imported a dropped file keeps its edge until it is set again.
    made.drop("/r/pkg/core.py")
    assert "/r/app.py" in made.importers("/r/pkg/core.py")


def test_importers_the_edges_do_not_hold_are_added() -> None:
    """A file created or deleted: the files that would import it."""
    found = graph().dependents(["/r/pkg/gone.py"], {"/r/pkg/gone.py": ["/r/app.py"]})
    assert found == ["/r/app.py"]


def test_packages_and_barrels_pass_on_every_import() -> None:
    assert passes_on("/r/pkg/__init__.py")
    assert passes_on("/r/pkg/__init__.pyi")
    assert passes_on("/r/src/index.ts")
    assert not passes_on("/r/src/app.ts")
    assert not passes_on("/r/pkg/init.py")
