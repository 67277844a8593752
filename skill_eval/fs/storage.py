"""A full disk, a read-only file system or a missing permission, wherever skill-eval writes.

Such a fault is not a bug and not a failed run: it is reported in one line naming the path and
the cause, ``run`` exits 2 and what was already stored stays. Every writer of the store, the
state, the hash cache, doit's database, the workspaces and the results wraps its writes in
``writing(path)``, so the path is known even when the failing call (a ``write`` on a file
descriptor, say) does not carry it.
"""

from __future__ import annotations

import contextlib
import errno
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from skill_eval.errors import StoreError

_HINTS = {
    errno.ENOSPC: "free some space there and run again",
    errno.EDQUOT: "the disk quota is used up; free some space there and run again",
    errno.EROFS: "the file system is read-only; point store: or results: in the suite at a "
                 "writable folder",
    errno.EACCES: "make it writable for this user, or point store: or results: in the suite "
                  "elsewhere",
    errno.EPERM: "make it writable for this user, or point store: or results: in the suite "
                 "elsewhere",
    errno.EIO: "the disk reported an error; check it (a damaged store entry is re-run)",
}
FAULTS = frozenset(_HINTS)
F = TypeVar("F", bound=Callable[..., Any])


class StorageError(StoreError):
    """skill-eval could not write where it must (full disk, read-only, no permission)."""

    def __init__(self, path: Path | str, cause: OSError):
        self.path = str(path)
        self.errno = cause.errno
        name = errno.errorcode.get(cause.errno or 0, "?")
        reason = cause.strerror or str(cause)
        super().__init__(f"cannot write {self.path}: {reason} ({name}); {_HINTS.get(cause.errno or 0, '')}"
                         " (finished runs are kept in the store)")


def fault_of(exc: BaseException, path: Path | str) -> StorageError | None:
    """The StorageError an OSError stands for, or None when it is some other failure."""
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, OSError) and exc.errno in FAULTS:
        return StorageError(exc.filename if exc.filename else path, exc)
    return None


@contextlib.contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Turn a storage fault inside into a StorageError naming the file (or ``path``)."""
    try:
        yield
    except OSError as exc:
        fault = fault_of(exc, path)
        if fault is None or fault is exc:
            raise
        raise fault from None


def writes(where: Callable[..., Path | str]) -> Callable[[F], F]:
    """Decorator form of ``writing``: ``where`` gets the call's arguments and names the path."""
    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with writing(where(*args, **kwargs)):
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
    return decorate
