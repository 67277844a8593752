"""Loading an eval-set file: JSON or YAML into data, plus where each key path starts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.intake.jsonpos import json_positions
from skill_eval.intake.limits import MAX_DEPTH, MAX_NUMBER_DIGITS, NumberTooLong, bounded_int
from skill_eval.intake.textcheck import hostile_parts, path_text
from skill_eval.intake.yamlpos import Located, loads_yaml

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Document:
    """A loaded eval-set file. ``where`` maps a key path to (line, column) when known."""

    data: Any
    path: Path
    display: str
    located: Located = field(default_factory=lambda: Located(None, {}))

    def where(self, at: tuple[str | int, ...]) -> tuple[int | None, int | None]:
        return self.located.where(at)


def read_text(path: Path, display: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidInput([Problem(display, "file not found; check the path")]) from None
    except IsADirectoryError:
        raise InvalidInput([Problem(display, "is a folder, not an eval-set file; "
                                    "pass a .json or .yaml file")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput([Problem(display, f"cannot read: {exc}; save it as UTF-8 text")]) from None


def load_document(path: Path, display: str) -> Document:
    """Parse ``path``; raise InvalidInput with one Problem (line:column) when it is not valid."""
    if not path.exists():
        raise InvalidInput([Problem(display, "not found; check the path")])
    if path.suffix.lower() not in (".json", *YAML_SUFFIXES) and not path.is_dir():
        what = f"'{path.suffix}' files" if path.suffix else "files without a .json/.yaml suffix"
        raise InvalidInput([Problem(display, f"not an eval set: {what} are not read; "
                                    "eval sets are .json, .yaml or .yml files")])
    text = read_text(path, display)
    if path.suffix.lower() in YAML_SUFFIXES:
        located = loads_yaml(text, display)
        return _refuse_hostile(Document(located.data, path, display, located))
    duplicates: list[str] = []
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _no_duplicates(pairs, duplicates),
                          parse_int=bounded_int)
    except NumberTooLong as exc:
        raise InvalidInput([Problem(display, str(exc), *_first_long_number(text))]) from None
    except json.JSONDecodeError as exc:
        raise InvalidInput([Problem(display, f"invalid JSON: {exc.msg}; fix the syntax there",
                                    exc.lineno, exc.colno)]) from None
    except RecursionError:
        raise InvalidInput([Problem(display, f"nested more than {MAX_DEPTH} levels deep; flatten the "
                                    "document (no real eval set needs this)")]) from None
    if duplicates:
        raise InvalidInput([_duplicate(display, text, key) for key in dict.fromkeys(duplicates)])
    return _refuse_hostile(Document(data, path, display, _json_positions(path, text)))


def _first_long_number(text: str) -> tuple[int | None, int | None]:
    """(line, column) of the first run of digits longer than MAX_NUMBER_DIGITS."""
    found = re.search(rf"\d{{{MAX_NUMBER_DIGITS + 1},}}", text)
    if found is None:
        return None, None
    start = found.start()
    return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)


def _no_duplicates(pairs: list[tuple[str, Any]], duplicates: list[str]) -> dict[str, Any]:
    # JSON keeps the last of two equal keys without a word (two "evals": all but the last
    # one's cases gone); YAML refuses them, and so does this.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            duplicates.append(key)
        out[key] = value
    return out


def _duplicate(display: str, text: str, key: str) -> Problem:
    spots = [m.start() for m in re.finditer(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text)]
    line = text.count("\n", 0, spots[1]) + 1 if len(spots) > 1 else None
    return Problem(display, f"duplicate key {json.dumps(key, ensure_ascii=False)}: JSON would keep only the "
                   "last one and silently drop the other; merge them or rename one", line)


def _refuse_hostile(doc: Document) -> Document:
    """Lone surrogates and runaway nesting are refused here, once for every dialect."""
    found = hostile_parts(doc.data)
    if found:
        raise InvalidInput([Problem(doc.display, f"{path_text(at)}: {what}", *doc.where(at))
                            for at, what in found])
    return doc


def _json_positions(path: Path, text: str) -> Located:
    # The data always comes from the json module; jsonpos only says where each key is.
    try:
        stat = path.stat()
        return _cached_positions(str(path), stat.st_size, stat.st_mtime_ns, text)
    except Exception:  # noqa: BLE001 - line numbers are a nicety and must never stop a read
        return Located(None, {})


@lru_cache(maxsize=64)
def _cached_positions(_path: str, _size: int, _mtime: int, text: str) -> Located:
    return Located(None, json_positions(text))


def skill_root_for(evalset: Path) -> Path:
    """The folder an eval set's relative paths start from, when the caller does not say.

    A file inside ``evals/`` belongs to the folder that holds ``evals/`` (the skill root, or,
    in repositories that keep evals beside the skill, the repository root); any other file
    belongs to its own folder.
    """
    evalset = evalset.absolute()
    for parent in evalset.parents:
        if parent.name == "evals":
            return parent.parent
        if (parent / "SKILL.md").is_file():
            return parent
    return evalset.parent


def document_for(data: Any, path: Path, display: str) -> Document:
    """A Document for data already loaded, with positions when the file can be re-read."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return Document(data, path, display)
    if path.suffix.lower() in YAML_SUFFIXES:
        try:
            return Document(data, path, display, loads_yaml(text, display))
        except InvalidInput:
            return Document(data, path, display)
    return Document(data, path, display, _json_positions(path, text))
