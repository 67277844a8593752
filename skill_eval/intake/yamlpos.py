"""YAML (safe loader only) with the line and column of every key path, for error messages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from skill_eval.errors import InvalidInput, Problem
from skill_eval.intake.limits import MAX_DEPTH, MAX_NUMBER_DIGITS, MAX_YAML_NODES, NumberTooLong

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


class _Loader(yaml.SafeLoader):
    """The safe loader, refusing documents nested deeper than MAX_DEPTH while composing (PyYAML
    composes recursively: a deep document would end in a RecursionError)."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise yaml.constructor.ConstructorError(
                    None, None, f"nested more than {MAX_DEPTH} levels deep; flatten the document "
                    "(no real suite or eval set needs this)", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _expanded(node: yaml.Node, sizes: dict[int, int], busy: set[int]) -> int:
    """How many nodes ``node`` becomes once every alias is written out (capped past the budget).

    Linear in the distinct nodes: an alias to an anchor reuses the anchor's count, so a
    "billion laughs" document is measured without being expanded."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in busy:
        return 1  # an alias loop: _convert refuses it with its own message
    total = 1
    if isinstance(node, yaml.MappingNode | yaml.SequenceNode):
        busy.add(key)
        for item in node.value:
            for child in item if isinstance(node, yaml.MappingNode) else (item,):
                total += _expanded(child, sizes, busy)
                if total > MAX_YAML_NODES:
                    break
        busy.discard(key)
    sizes[key] = total = min(total, MAX_YAML_NODES + 1)
    return total


def _blowup(node: yaml.Node, sizes: dict[int, int]) -> yaml.Node:
    """The innermost collection whose expansion is over the budget: where the aliases multiply."""
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode):
        children = [c for item in node.value
                    for c in (item if isinstance(node, yaml.MappingNode) else (item,))]
        over = [c for c in children if sizes.get(id(c), 0) > MAX_YAML_NODES]
        if not over:
            return node
        node = over[0]
    return node


def _convert(node: yaml.Node, path: Path_, pos: dict[Path_, tuple[int, int]], loader: yaml.SafeLoader,
             active: frozenset[int] = frozenset()) -> Any:
    pos[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and node.tag not in _PLAIN_TAGS:
        # Let the safe constructor refuse the tag, so the error names it.
        return loader.construct_object(node, deep=True)
    if isinstance(node, yaml.MappingNode | yaml.SequenceNode):
        if id(node) in active:
            raise yaml.constructor.ConstructorError(
                None, None, "an alias refers to a collection that contains it (a loop); "
                "write the values out instead of the alias", node.start_mark)
        active = active | {id(node)}
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        # The mapping's own keys, before merge keys (<<) pull others in; remembered per node, as an
        # aliased mapping is flattened on its first visit and may be visited again.
        owned: dict[int, set[int]] = loader.__dict__.setdefault("_own_keys", {})
        own = owned.setdefault(id(node), {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"})
        loader.flatten_mapping(node)
        first: dict[Any, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = _scalar(key_node, loader)
            if not isinstance(key, str):
                key = str(key)
            earlier = first.get(key)
            if earlier is not None and id(earlier) in own and id(key_node) in own:
                # PyYAML keeps the last value silently; a repeated key is almost always a mistake.
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}' (first at line {earlier.start_mark.line + 1}); "
                    "remove one of them", key_node.start_mark)
            first[key] = key_node
            child = (*path, key)
            out[key] = _convert(value_node, child, pos, loader, active)
            pos[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, (*path, i), pos, loader, active) for i, item in enumerate(node.value)]
    return _scalar(node, loader)


def _scalar(node: yaml.Node, loader: yaml.SafeLoader) -> Any:
    """The node's value; a whole number too long to convert is refused at its place (Python's
    int() would raise a ValueError past 4,300 digits)."""
    if node.tag == "tag:yaml.org,2002:int" and isinstance(node.value, str):
        digits = sum(ch.isdigit() for ch in node.value)
        if digits > MAX_NUMBER_DIGITS:
            raise yaml.constructor.ConstructorError(None, None, str(NumberTooLong(digits)), node.start_mark)
    return loader.construct_object(node, deep=True)


def _hint(problem: str, context: str) -> str:
    """What to do about a YAML error, from PyYAML's wording of it."""
    if "mapping values are not allowed" in problem:
        return "a value contains ': '; put the whole value in quotes"
    if "'\\t'" in problem:
        return "indent with spaces, not tabs"
    if "cannot start any token" in problem:
        return "a value starts with a reserved character; put the whole value in quotes"
    if "undefined alias" in problem:
        return "define the anchor (&name) before using it, or quote the value starting with '*'"
    if "quoted scalar" in context:
        return "close the quote"
    if "flow" in context and "expected" in problem:
        return "close the bracket or brace"
    if "expected <block end>" in problem:
        if any(f"'{c}'" in problem for c in "[{\"'") or "<scalar>" in problem:
            return ("text follows a [list], {mapping} or quoted value on the same line; "
                    "put the whole value in quotes")
        return "check the indentation of this line and the one before it"
    return "fix the YAML syntax there"


def load_yaml(path: Path, display: str | None = None, text: str | None = None) -> Located:
    """Load one YAML document safely; raise InvalidInput with file:line:column on any error."""
    display = display or str(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InvalidInput([Problem(display, "file not found; check the path")]) from None
        except IsADirectoryError:
            raise InvalidInput([Problem(display, "is a folder; give a YAML file")]) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput([Problem(display, f"cannot read: {exc}; save it as UTF-8 text")]) from None
    return loads_yaml(text, display)


def loads_yaml(text: str, display: str, line_offset: int = 0) -> Located:
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:
        raise InvalidInput([_reader_problem(exc, text, display, line_offset)]) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return Located(None, {})
        sizes: dict[int, int] = {}
        if _expanded(node, sizes, set()) > MAX_YAML_NODES:
            raise yaml.constructor.ConstructorError(
                None, None, f"aliases expand this document past {MAX_YAML_NODES:,} values (an alias "
                "bomb?); write the values out, or use fewer nested aliases",
                _blowup(node, sizes).start_mark)
        pos: dict[Path_, tuple[int, int]] = {}
        data = _convert(node, (), pos, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + line_offset if mark else None
        col = mark.column + 1 if mark else None
        problem = (exc.problem or "").strip()
        context = (exc.context or "").strip()
        if "could not determine a constructor" in problem:
            found = re.search(r"'([^']+)'", problem)
            tag = (found.group(1) if found else "?").replace("tag:yaml.org,2002:", "!!")
            what = f"YAML error: tag {tag} is not allowed (only plain YAML is loaded; remove the tag)"
        elif isinstance(exc, yaml.constructor.ConstructorError):
            what = f"YAML error: {problem or context or 'invalid value'}"
        elif "another document" in problem:
            what = ("YAML syntax error: a second YAML document starts here; keep one document per file "
                    "(remove this '---' line and what follows it, or merge the two)")
        else:
            what = f"YAML syntax error: {problem or context or 'invalid YAML'}"
            cmark = exc.context_mark
            if context and cmark is not None and exc.problem_mark is not None \
                    and cmark.line != exc.problem_mark.line:
                what += f" ({context} started at line {cmark.line + 1 + line_offset})"
            what += f"; {_hint(problem, context)}"
        raise InvalidInput([Problem(display, what, line, col)]) from None
    except yaml.reader.ReaderError as exc:
        raise InvalidInput([_reader_problem(exc, text, display, line_offset)]) from None
    except yaml.YAMLError as exc:
        raise InvalidInput([Problem(display, "YAML error: " + " ".join(str(exc).split()))]) from None
    finally:
        loader.dispose()
    if line_offset:
        pos = {k: (v[0] + line_offset, v[1]) for k, v in pos.items()}
    return Located(data, pos)


def _reader_problem(exc: yaml.reader.ReaderError, text: str, display: str, line_offset: int) -> Problem:
    """A character YAML does not allow (NUL, most control characters, a lone surrogate)."""
    at = max(0, min(exc.position, len(text)))
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    char = exc.character if isinstance(exc.character, int) else 0
    return Problem(display, f"YAML error: character U+{char:04X} is not allowed in YAML; remove it "
                   "(write it as an escape such as \\x01 inside a double-quoted string if you need it)",
                   line + line_offset, col)
