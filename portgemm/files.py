"""portgemm's files: the folder they go in, and writing one so that a reader sees the old
one or the whole new one, never a part."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


# A path setting's words (PORTGEMM_PROGRAM_CACHE, PORTGEMM_TUNING_DB), case and spaces
# aside: these turn the thing off, those keep its default place; anything else is a path
# (a "yes" or an "Off" made a folder or a file of that name in the working folder)
OFF_WORDS = ("off", "0", "none", "false", "no", "disabled")
ON_WORDS = ("", "on", "1", "yes", "true", "default")


def path_setting(value: str | None) -> str | None:
    """A path setting's meaning: None for off, "" for the default place, else the path."""
    word = (value or "").strip()
    if word.lower() in OFF_WORDS:
        return None
    return "" if word.lower() in ON_WORDS else word


def user_cache_folder() -> Path:
    """The user's cache folder of portgemm (``platformdirs.user_cache_dir("portgemm")``:
    ``$XDG_CACHE_HOME/portgemm`` or ``~/.cache/portgemm`` on Linux), where everything it
    keeps goes unless a setting names another place."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("portgemm"))


def check_private_folder(path: Path) -> None:
    """OSError unless ``path`` is a folder owned by this user and writable by nobody else:
    files others can put there (an OpenCL driver's .icd, a program binary) would be loaded
    and run as this user's."""
    info = os.stat(path)  # a link is judged by its folder: a cache moved elsewhere still works
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{path} is not a folder")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise PermissionError(f"{path} is owned by another user")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PermissionError(f"{path} is writable by group or others")


def write_atomically(path: Path, data: str | bytes, *, permissions: int | None = None) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file in the same
    folder and a rename; ``permissions`` for the file (mkstemp makes it 0600). Where
    anything fails (a full disk, say) the temporary file is removed and the error raised:
    no half-written file is left behind."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        if permissions is not None:
            os.chmod(tmp, permissions)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
