"""One remote entry: its objects' names, its manifest, its signature, and its verification.

An entry is ``v1/<kind>/<key[:2]>/<key>/manifest.json``, written last and create-only, plus, for
files too big to carry inline, ``.../blobs/<sha256>`` (content-addressed, so a second writer's
blob is the first one's byte for byte). Until the manifest exists the entry is invisible: a push
killed half-way leaves unreferenced blobs, which ``gc --remote`` removes. The manifest lists
each file's sha256 and who wrote it; with a key it carries an HMAC-SHA256 over all of that.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

FORMAT = 1
ROOT = "v1"
MANIFEST = "manifest.json"
INLINE_MAX = 64 * 1024  # smaller files travel inside the manifest: one request per entry


class Refused(Exception):
    """A remote entry that must not be adopted: damaged, unsigned or forged (the reason)."""


@dataclass(frozen=True)
class Packed:
    manifest: bytes
    blobs: dict[str, bytes]  # sha256 -> bytes, each uploaded before the manifest


def entry_prefix(kind: str, key: str) -> str:
    return f"{ROOT}/{kind}/{key[:2]}/{key}"


def manifest_path(kind: str, key: str) -> str:
    return f"{entry_prefix(kind, key)}/{MANIFEST}"


def blob_path(kind: str, key: str, sha: str) -> str:
    return f"{entry_prefix(kind, key)}/blobs/{sha}"


def parse_path(path: str) -> tuple[str, str, str] | None:
    """(kind, key, rest) of an object's path under ``v1/``, or None for anything else."""
    parts = path.split("/", 4)
    if len(parts) < 5 or parts[0] != ROOT or parts[2] != parts[3][:2]:
        return None
    return parts[1], parts[3], parts[4]


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _signature(body: dict[str, Any], sign_key: bytes) -> str:
    return hmac.new(sign_key, _canonical(body), hashlib.sha256).hexdigest()


def pack(kind: str, key: str, files: dict[str, bytes], provenance: dict[str, Any],
         sign_key: bytes | None) -> Packed:
    shas = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    inline = {rel: base64.b64encode(data).decode("ascii") for rel, data in files.items()
              if len(data) <= INLINE_MAX}
    blobs = {shas[rel]: data for rel, data in files.items() if rel not in inline}
    body: dict[str, Any] = {"format": FORMAT, "kind": kind, "key": key, "files": shas, "inline": inline,
                            "provenance": provenance}
    if sign_key is not None:
        body["signature"] = _signature(body, sign_key)
    return Packed(_canonical(body) + b"\n", blobs)


def unpack(kind: str, key: str, manifest: bytes, blob: Callable[[str], bytes | None],
           sign_key: bytes | None) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The entry's files, each verified against the manifest, and its provenance; Refused when
    anything does not verify (or, with ``sign_key``, when the signature is missing or wrong)."""
    try:
        body = json.loads(manifest)
        shas, inline = dict(body["files"]), dict(body.get("inline") or {})
        if body.get("format") != FORMAT or body.get("kind") != kind or body.get("key") != key:
            raise Refused("its manifest names another entry or format")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Refused(f"its manifest is not readable ({type(exc).__name__})") from None
    if sign_key is not None:
        given = body.pop("signature", None)
        if not isinstance(given, str):
            raise Refused("it is not signed, and this remote requires signatures")
        if not hmac.compare_digest(given, _signature(body, sign_key)):
            raise Refused("its signature does not match (forged, or signed with another key)")
    files: dict[str, bytes] = {}
    for rel, sha in shas.items():
        if not isinstance(rel, str) or not _safe(rel) or not isinstance(sha, str):
            raise Refused(f"its manifest names an unsafe file {rel!r}")
        if rel in inline:
            try:
                data: bytes | None = base64.b64decode(inline[rel], validate=True)
            except (ValueError, TypeError):
                data = None
        else:
            data = blob(blob_path(kind, key, sha))
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            raise Refused(f"{rel} does not match its sha256 in the manifest")
        files[rel] = data
    provenance = body.get("provenance")
    return files, provenance if isinstance(provenance, dict) else {}


def _safe(rel: str) -> bool:
    path = PurePosixPath(rel)
    return bool(rel) and not path.is_absolute() and ".." not in path.parts and "\\" not in rel \
        and "\0" not in rel and path.as_posix() == rel
