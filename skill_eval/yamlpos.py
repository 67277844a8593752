"""YAML (safe loader only) with the line and column of every key path, for error messages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import InvalidInput, Problem

Path_ = tuple[str | int, ...]
_PLAIN_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:omap"}


@dataclass
class Located:
    """A loaded document plus where each key path starts (1-based line, column)."""

    data: Any
    positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def where(self, path: Path_) -> tuple[int | None, int | None]:
        # Fall back to the nearest enclosing node that has a position.
        path = tuple(path)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (None, None))


def _convert(node: yaml.Node, path: Path_, pos: dict[Path_, tuple[int, int]], loader: yaml.SafeLoader) -> Any:
    pos[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and node.tag not in _PLAIN_TAGS:
        # Let the safe constructor refuse the tag, so the error names it.
        return loader.construct_object(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        loader.flatten_mapping(node)
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                key = str(key)
            child = (*path, key)
            out[key] = _convert(value_node, child, pos, loader)
            pos[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, (*path, i), pos, loader) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def load_yaml(path: Path, display: str | None = None, text: str | None = None) -> Located:
    """Load one YAML document safely; raise InvalidInput with file:line:column on any error."""
    display = display or str(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InvalidInput([Problem(display, "file not found; check the path")]) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput([Problem(display, f"cannot read: {exc}")]) from None
    return loads_yaml(text, display)


def loads_yaml(text: str, display: str, line_offset: int = 0) -> Located:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Located(None, {})
        pos: dict[Path_, tuple[int, int]] = {}
        data = _convert(node, (), pos, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + line_offset if mark else None
        col = mark.column + 1 if mark else None
        what = (exc.problem or exc.context or "invalid YAML").strip()
        if "could not determine a constructor" in str(exc):
            found = re.search(r"'([^']+)'", exc.problem or "")
            tag = (found.group(1) if found else "?").replace("tag:yaml.org,2002:", "!!")
            what = f"tag {tag} is not allowed (only plain YAML is loaded; remove the tag)"
        raise InvalidInput([Problem(display, f"YAML syntax error: {what}", line, col)]) from None
    except yaml.YAMLError as exc:
        raise InvalidInput([Problem(display, f"YAML error: {exc}")]) from None
    finally:
        loader.dispose()
    if line_offset:
        pos = {k: (v[0] + line_offset, v[1]) for k, v in pos.items()}
    return Located(data, pos)
