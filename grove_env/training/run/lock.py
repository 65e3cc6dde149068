"""The run lock: one process writes a run directory at a time.

No torch here (like :mod:`~grove_env.training.run.directory`).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from grove_env.training.run.directory import RunDirError

LOCK = "train.lock"


class RunLock:
    """``train.lock``: the pid of the one process that writes a run directory.

    Taken before anything in the directory is written and removed when the run ends
    (a context manager). A lock whose pid is alive refuses a second writer; one whose
    process is gone (a run killed with ``kill -9``, a crash) is stale and taken over
    with a warning. The lock file is made by ``os.link`` of a finished file, so no
    reader ever sees it half written.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.path = run_dir / LOCK

    def holder(self) -> int | None:
        """The pid in the lock file, or ``None`` (no lock, or no pid in it)."""
        try:
            text = self.path.read_bytes()[:32].decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isascii() and text.isdigit() else None

    def busy(self) -> bool:
        """Whether another live process holds the lock now."""
        holder = self.holder()
        return holder is not None and holder != os.getpid() and _alive(holder)

    def acquire(self) -> None:
        pid = os.getpid()
        try:
            fd, tmp = tempfile.mkstemp(dir=self.run_dir, prefix=f".{LOCK}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(f"{pid}\n")
            try:
                os.link(tmp, self.path)
                return
            except FileExistsError:
                self._take_over_stale(tmp, pid)
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError as e:
            why = e.strerror or str(e)
            raise RunDirError(f"cannot write the lock file {str(self.path)!r}: {why}") from None

    def _take_over_stale(self, tmp: str, pid: int) -> None:
        holder = self.holder()
        if holder is not None and holder != pid and _alive(holder):
            raise RunDirError(
                f"run directory {str(self.run_dir)!r} is in use by process {holder} "
                f"(lock file {str(self.path)!r}); wait for it to end or stop it"
            )
        gone = f"process {holder} has ended" if holder is not None else "it holds no pid"
        print(f"warning: taking over the stale lock {str(self.path)!r} ({gone})", file=sys.stderr)
        os.replace(tmp, self.path)
        if self.holder() != pid:  # another process took it over at the same moment
            raise RunDirError(f"run directory {str(self.run_dir)!r} was just taken by another run")

    def release(self) -> None:
        if self.holder() == os.getpid():
            self.path.unlink(missing_ok=True)

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (on this machine)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return False
    return True
