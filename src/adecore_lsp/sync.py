"""The workspace without ``await``, for scripts and notebooks.

``adecore_lsp.sync.Workspace`` has the constructor and the methods of
:class:`adecore_lsp.Workspace`; each call runs on an event loop in a thread of its own, so
it works in a plain script and inside Jupyter, whose loop is already running in the caller's
thread. An exception is raised in the caller's thread with its own type. ``close()``, or
leaving ``with``, shuts the servers down; so does the end of the program.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import os
import threading
import warnings
import weakref
from collections.abc import Coroutine, Sequence
from types import TracebackType
from typing import IO, Any, TypeVar

from .workspace import model
from .workspace.closing import closed_error
from .workspace.model import Target
from .workspace.servers.registry import Registry, ServerSpec
from .workspace.workspace import Workspace as AsyncWorkspace

__all__ = ["Workspace"]

T = TypeVar("T")

_OPEN: weakref.WeakSet[Workspace] = weakref.WeakSet()


def _close_all() -> None:
    for workspace in list(_OPEN):
        workspace.close()


atexit.register(_close_all)


class _LoopThread:
    """An event loop running forever in a daemon thread, until stopped; the calls waiting
    on it are known, so that closing can release them."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="adecore-lsp-workspace", daemon=True
        )
        self._thread.start()
        self._waiting: set[concurrent.futures.Future[Any]] = set()
        self._lock = threading.Lock()
        self.released = False

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("a sync Workspace cannot be called from its own loop's thread")
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        with self._lock:
            self._waiting.add(future)
        try:
            return future.result(timeout)
        except KeyboardInterrupt:
            future.cancel()
            raise
        except concurrent.futures.CancelledError:
            if self.released:
                raise closed_error() from None
            raise
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError("the workspace call did not finish in time") from None
        finally:
            with self._lock:
                self._waiting.discard(future)

    def release(self) -> None:
        """End every call waiting in another thread: each raises the closed error."""
        with self._lock:
            self.released = True
            waiting = list(self._waiting)
        for future in waiting:
            future.cancel()

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self.loop.close()


class Workspace:
    """:class:`adecore_lsp.Workspace` for code without an event loop (see the module)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        servers: Sequence[str | ServerSpec] | None = None,
        registry: Registry | None = None,
        timeout: float = 30.0,
        trace: str | os.PathLike[str] | IO[bytes] | None = None,
        max_restarts: int = 3,
        max_open_files: int = 2000,
        trust: bool | None = None,
        folders: Sequence[str | os.PathLike[str]] | None = None,
    ) -> None:
        self._runner = _LoopThread()

        async def make() -> AsyncWorkspace:
            return AsyncWorkspace(
                root,
                servers=servers,
                registry=registry,
                timeout=timeout,
                trace=trace,
                max_restarts=max_restarts,
                max_open_files=max_open_files,
                trust=trust,
                on_untrusted=notices.append,
                folders=folders,
            )

        notices: list[str] = []

        try:
            self._workspace = self._runner.run(make())
        except BaseException:
            self._runner.stop()
            raise
        for notice in notices:  # raised here, in the caller's thread, to be seen
            warnings.warn(notice, UserWarning, stacklevel=2)
        self._closed = False
        _OPEN.add(self)

    @property
    def root(self) -> Any:
        return self._workspace.root

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (a closed workspace starts nothing again)."""
        return self._closed

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._closed:
            coroutine.close()
            raise closed_error()
        return self._runner.run(coroutine)

    def close(self, path: str | os.PathLike[str] | None = None) -> None:
        """Close the file ``path`` in its servers; without one, shut every server down and
        stop the workspace's thread (idempotent).

        The asynchronous Workspace's ``close(path)`` and the facade's own end share the name,
        as the two uses never meet: a path always closes a file.
        """
        if path is not None:
            if not self._closed:
                self._run(self._workspace.close(path))
            return
        if self._closed:
            return
        self._closed = True
        self._runner.release()
        try:
            self._runner.run(self._workspace.aclose(), timeout=60)
        finally:
            self._runner.stop()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # The methods of the asynchronous Workspace, one line each.

    @property
    def running(self) -> list[model.ServerStatus]:
        async def running() -> list[model.ServerStatus]:
            return self._workspace.running

        return self._run(running())

    def session_for(self, path: str | os.PathLike[str]) -> Any:
        return self._run(self._workspace.session_for(path))

    def restart(self, server: str | None = None) -> list[model.ServerStatus]:
        return self._run(self._workspace.restart(server))

    def open(self, path: str | os.PathLike[str]) -> None:
        self._run(self._workspace.open(path))

    def update(self, path: str | os.PathLike[str], text: str) -> None:
        self._run(self._workspace.update(path, text))

    def ready(self, path_or_id: str | os.PathLike[str], *, timeout: float = 60) -> model.Readiness:
        return self._run(self._workspace.ready(path_or_id, timeout=timeout))

    def diagnostics(
        self, paths: Sequence[str | os.PathLike[str]] | None = None, *, timeout: float = 30
    ) -> model.DiagnosticsReport:
        return self._run(self._workspace.diagnostics(paths, timeout=timeout))

    def edit(
        self, path: str | os.PathLike[str], new_text: str, *, save: bool = True
    ) -> model.DiagnosticsDelta:
        return self._run(self._workspace.edit(path, new_text, save=save))

    def preview_edit(self, path: str | os.PathLike[str], new_text: str) -> model.DiagnosticsDelta:
        """What ``new_text`` in ``path`` would introduce and resolve, with nothing written."""
        return self._run(self._workspace.preview_edit(path, new_text))

    def new_since(
        self,
        rev: str,
        paths: Sequence[str | os.PathLike[str]] | None = None,
        *,
        timeout: float = 60,
    ) -> model.DiagnosticsReport:
        """The findings of the working tree that are not at git revision ``rev``."""
        return self._run(self._workspace.new_since(rev, paths, timeout=timeout))

    def resolve(self, target: Target) -> model.Symbol:
        return self._run(self._workspace.resolve(target))

    def definition(self, target: Target) -> model.Results[model.Location]:
        return self._run(self._workspace.definition(target))

    def type_definition(self, target: Target) -> model.Results[model.Location]:
        return self._run(self._workspace.type_definition(target))

    def implementation(self, target: Target) -> model.Results[model.Location]:
        return self._run(self._workspace.implementation(target))

    def references(
        self, target: Target, *, include_declaration: bool = False, context: int = 0
    ) -> model.Results[model.Reference]:
        return self._run(
            self._workspace.references(
                target, include_declaration=include_declaration, context=context
            )
        )

    def symbols(
        self, path: str | os.PathLike[str], *, depth: int | None = None
    ) -> model.Results[model.Symbol]:
        return self._run(self._workspace.symbols(path, depth=depth))

    def find(self, query: str, *, limit: int = 50) -> model.Results[model.Symbol]:
        return self._run(self._workspace.find(query, limit=limit))

    def callers(self, target: Target) -> model.Results[model.Symbol]:
        return self._run(self._workspace.callers(target))

    def callees(self, target: Target) -> model.Results[model.Symbol]:
        return self._run(self._workspace.callees(target))

    def hover(self, target: Target) -> str | None:
        return self._run(self._workspace.hover(target))

    def rename(self, target: Target, new_name: str) -> model.EditPlan:
        return self._run(self._workspace.rename(target, new_name))

    def format(
        self, paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
    ) -> model.EditPlan:
        return self._run(self._workspace.format(paths))

    def fix(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        only: str = "source.fixAll",
    ) -> model.EditPlan:
        return self._run(self._workspace.fix(paths, only=only))

    def apply(
        self, plan: model.EditPlan, *, allow_outside_workspace: bool = False
    ) -> model.AppliedPlan:
        return self._run(
            self._workspace.apply(plan, allow_outside_workspace=allow_outside_workspace)
        )
