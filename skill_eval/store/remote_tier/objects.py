"""One object store behind one small API: get, create-only put, list, delete (obstore).

obstore (Rust's object_store) speaks S3, GCS, Azure and a local folder alike, reads each cloud's
standard environment variables for credentials and endpoints, retries transient errors with
backoff, and has the conditional put (If-None-Match: *) that makes entries write-once. It is an
optional dependency (``skill-eval[remote]``), imported only when a remote is used.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from skill_eval.errors import SkillEvalError

# Transient errors (timeouts, 5xx, refused connections) are retried this often with exponential
# backoff, then the remote counts as unreachable for the rest of the command.
RETRIES = 3
RETRY_TIMEOUT = timedelta(seconds=20)


class RemoteUnavailable(SkillEvalError):
    """The remote could not be used (unreachable, refused, misconfigured, obstore missing)."""


class ObjectClient:
    """Paths are relative to the URL's prefix; every failure but "not there" and "already
    there" is a RemoteUnavailable."""

    def __init__(self, url: str):
        try:
            import obstore
            from obstore.store import from_url
        except ImportError:
            raise RemoteUnavailable("the remote store needs obstore: "
                                    "pip install 'skill-eval[remote]'") from None
        self.url = url
        self._obstore = obstore
        self._errors = obstore.exceptions
        try:
            self._store = from_url(url, **_options(url))
        except Exception as exc:  # obstore raises its own kinds, and ValueError/TypeError for bad URLs
            raise RemoteUnavailable(f"cannot open remote {url}: {_first_line(exc)}") from None

    def get(self, path: str) -> bytes | None:
        try:
            return bytes(self._obstore.get(self._store, path).bytes())
        except FileNotFoundError:
            return None
        except Exception as exc:
            if isinstance(exc, self._errors.NotFoundError):
                return None
            raise self._unavailable("read", path, exc) from None

    def exists(self, path: str) -> bool:
        try:
            self._obstore.head(self._store, path)
            return True
        except FileNotFoundError:
            return False
        except Exception as exc:
            if isinstance(exc, self._errors.NotFoundError):
                return False
            raise self._unavailable("read", path, exc) from None

    def create(self, path: str, data: bytes) -> bool:
        """Write ``path`` only if nothing is there (If-None-Match: *); False when something is."""
        try:
            self._obstore.put(self._store, path, data, mode="create")
            return True
        except FileExistsError:
            return False
        except Exception as exc:
            if isinstance(exc, self._errors.AlreadyExistsError | self._errors.PreconditionError):
                return False
            raise self._unavailable("write", path, exc) from None

    def list(self, prefix: str) -> Iterator[str]:
        try:
            for batch in self._obstore.list(self._store, prefix=prefix, chunk_size=1000):
                for meta in batch:
                    yield str(meta["path"])
        except FileNotFoundError:
            return
        except Exception as exc:
            if isinstance(exc, self._errors.NotFoundError):
                return
            raise self._unavailable("list", prefix, exc) from None

    def delete(self, path: str) -> None:
        try:
            self._obstore.delete(self._store, path)
        except FileNotFoundError:
            return
        except Exception as exc:
            if isinstance(exc, self._errors.NotFoundError):
                return
            raise self._unavailable("delete", path, exc) from None

    def _unavailable(self, what: str, path: str, exc: Exception) -> RemoteUnavailable:
        return RemoteUnavailable(f"remote {self.url}: could not {what} {path}: {_first_line(exc)}")


def _options(url: str) -> dict[str, Any]:
    if url.startswith("file://"):
        return {"mkdir": True}
    options: dict[str, Any] = {"retry_config": {
        "max_retries": RETRIES, "retry_timeout": RETRY_TIMEOUT,
        "backoff": {"init_backoff": timedelta(milliseconds=100), "max_backoff": timedelta(seconds=5),
                    "base": 2.0}}}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if url.startswith("s3://") and endpoint and endpoint.startswith("http://"):
        # A local S3 API (MinIO, moto, ...) speaks plain HTTP; obstore refuses it unless told.
        options["client_options"] = {"allow_http": True}
    return options


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
