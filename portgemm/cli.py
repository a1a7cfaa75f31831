"""What every ``python -m portgemm.*`` command line does alike.

* A mistake on the command line is one line on stderr and exit status 2 (argparse's
  convention), never a traceback: :class:`Parser`, whose ``error`` every check calls.
* Every argument is checked before any work, outputs included: a file named on the
  command line is checked writable first (:func:`writable_output`) and written
  atomically at the end (:func:`write_atomically`), so a long run never ends by losing
  its results and a reader never sees half a file.
* Output piped into ``head`` and the like ends quietly (:func:`stdout_closed_quietly`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

from . import files


def one_line(message: str) -> str:
    """A possibly multi-line message as one line: 'first; second; third'."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] + (" " + "; ".join(lines[1:]) if len(lines) > 1 else "")


class Parser(argparse.ArgumentParser):
    """argparse, answering every mistake with one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def check_minimums(*checks: tuple[str, int | float | None, int]) -> None:
    """ValueError for the first (option, value, lowest) whose value is below its lowest
    (None: not given, nothing to check)."""
    for option, value, lowest in checks:
        if value is not None and value < lowest:
            raise ValueError(f"{option} must be >= {lowest}, got {value}")


def writable_output(text: str, *, create_folders: bool = False) -> Path:
    """``text`` as a path a file can be written to; ValueError saying why not (a missing
    folder, a folder in its place, no permission). ``create_folders``: missing folders
    will be made by the writer, so the nearest existing one must be writable."""
    if not text.strip():
        raise ValueError("an empty path names no file")
    path = Path(text).expanduser()
    if path.is_dir():
        raise ValueError(f"{text} is a folder, not a file")
    folder = path.parent
    if create_folders:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {text}: folder {folder} does not exist")
    try:  # the call write_atomically makes: proves it will work, not just that it may
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"cannot write {text}: {exc.strerror or exc}") from None
    return path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`portgemm.files.write_atomically`),
    with the permissions a plain ``open()`` would give it."""
    files.write_atomically(path, text, permissions=0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def flush_stdout() -> None:
    """Flush stdout, which a shell may have closed (``>&-``: Python's sys.stdout is then
    None, print writes nothing, and .flush() raised AttributeError after the work)."""
    if sys.stdout is not None:
        sys.stdout.flush()


def stdout_closed_quietly() -> None:
    """After a BrokenPipeError on stdout (the reader went away): send what is left to
    /dev/null, so the interpreter's last flush raises nothing either."""
    if sys.stdout is None:
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
