"""Cells of the Markdown tables (and the console's and the page's figures): numbers,
percentages, intervals, money and escaped author text, each "n/a" when missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def md_text(text: object) -> str:
    """Author or run text inside a Markdown table or line: no raw HTML, no column breaks."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("|", "\\|").replace("\r", " ").replace("\n", " "))


def tokens(value: float | None) -> str:
    return "n/a" if value is None else f"{round(value):,}"


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def pvalue(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def ci(bounds: Sequence[float] | None) -> str:
    return "n/a" if not bounds else f"[{bounds[0] * 100:+.1f}, {bounds[1] * 100:+.1f}] pp"


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    # Imported at the first table: tabulate loads importlib.metadata, most of what listing the
    # report formats (`report --help`) would cost.
    from tabulate import tabulate

    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _clip(text: str, limit: int = 70) -> str:
    text = " ".join(str(text).split())
    return md_text(text if len(text) <= limit else text[: limit - 1] + "…")


def usd(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.2f}" if abs(value) >= 1 else f"${value:.4f}"


def _secs(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _num(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4f}"
