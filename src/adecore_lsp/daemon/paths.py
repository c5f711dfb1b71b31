"""Where the daemon lives: its runtime folder, a folder only its user can reach.

``$ADECORE_LSP_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/adecore-lsp``, else
``/tmp/adecore-lsp-$UID``. The folder is made with mode ``0700``; an existing folder of the
user's with looser permissions is set to ``0700``; a folder another user owns is refused (it
could hold a socket of theirs). It holds the socket ``daemon.sock`` (``0600``), the log
``daemon.log``, the lock ``daemon.lock``, and ``servers.json`` (the process groups of the
servers, for the command that finds a dead daemon's socket). Standard library only: the
caller's side imports it.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Mapping

# Internal to the library: nothing here is public API (adecore_lsp re-exports what is).
__all__: list[str] = []

SOCKET = "daemon.sock"
LOG = "daemon.log"
SERVERS = "servers.json"
LOCK = "daemon.lock"
"""Held (``flock``) by the running daemon from before it binds its socket until it exits:
one daemon a folder, and a socket is stale only while nobody holds it."""


def runtime_folder(env: Mapping[str, str] | None = None) -> str:
    """The runtime folder for this user (not made here)."""
    env = os.environ if env is None else env
    given = env.get("ADECORE_LSP_RUNTIME_DIR")
    if given:
        return given
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg:
        return os.path.join(xdg, "adecore-lsp")
    return f"/tmp/adecore-lsp-{os.getuid()}"


SOCKET_PATH_MAX = 107
"""The longest path a Unix domain socket can have, in bytes (``sun_path`` less its end)."""


def unusable(folder: str | os.PathLike[str]) -> str | None:
    """Why ``folder`` cannot be the runtime folder (after making it, or tightening its
    mode, where it is the user's own), or ``None`` when it can."""
    folder = os.fspath(folder)
    if len(os.fsencode(os.path.join(folder, SOCKET))) > SOCKET_PATH_MAX:
        return (
            f"the runtime folder {folder} is too deep for a socket (its path may have at "
            f"most {SOCKET_PATH_MAX - len(SOCKET) - 1} bytes); set ADECORE_LSP_RUNTIME_DIR "
            "to a shorter one"
        )
    try:
        os.makedirs(folder, mode=0o700)
    except FileExistsError:
        pass  # looked at below: it must be a folder of this user's, not a link to one
    except OSError as error:
        return f"the runtime folder {folder} cannot be made: {error.strerror or error}"
    try:
        status = os.lstat(folder)
    except OSError as error:  # pragma: no cover - removed between the two calls
        return f"the runtime folder {folder} cannot be read: {error.strerror or error}"
    if not stat.S_ISDIR(status.st_mode):
        return f"the runtime folder {folder} is not a folder (a link is not taken)"
    if status.st_uid != os.getuid():
        return (
            f"the runtime folder {folder} belongs to another user (uid {status.st_uid}); "
            "set ADECORE_LSP_RUNTIME_DIR to a folder of your own"
        )
    if stat.S_IMODE(status.st_mode) != 0o700:
        try:
            os.chmod(folder, 0o700)
        except OSError as error:
            return f"the runtime folder {folder} cannot be made private: {error.strerror}"
    return None


def hold_lock(folder: str | os.PathLike[str]) -> int | None:
    """The daemon's lock, taken: a descriptor to keep open for the daemon's life, or
    ``None`` when another process holds it."""
    descriptor = os.open(os.path.join(folder, LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def lock_is_held(folder: str | os.PathLike[str]) -> bool:
    """Whether a daemon (running or starting) holds the folder's lock."""
    try:
        descriptor = hold_lock(folder)
    except OSError:
        return False
    if descriptor is None:
        return True
    os.close(descriptor)
    return False
