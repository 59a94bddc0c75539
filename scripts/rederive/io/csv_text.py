"""A CSV table the workflow wrote, read as text: every cell exactly as printed.

The site shows these cells and the change report compares them; neither
re-parses a number, so what they show and compare is what the CSV holds.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

__all__ = ["INLINE_ROWS", "Table", "parse_table", "read_table"]

# Rows of one table written into its page. A leaderboard of 5,000 models has
# tables of 5,000 to 30,000 rows (accuracy, items); inlined whole, each page
# would carry tens of MB of JSON for the browser to parse. The page shows the
# first rows and says so; the linked CSV (copied beside it) has them all.
INLINE_ROWS = 1000


@dataclass(frozen=True)
class Table:
    """A CSV file's header and rows, every cell as its text.

    ``total_rows`` is the row count of the whole file when ``rows`` holds only
    its first rows (:meth:`head`); ``None`` when ``rows`` is the whole file.
    """

    columns: list[str]
    rows: list[list[str]]
    total_rows: int | None = None

    @property
    def truncated(self) -> bool:
        return self.total_rows is not None and self.total_rows > len(self.rows)

    def head(self, n: int = INLINE_ROWS) -> Table:
        """The first ``n`` rows, remembering how many the file has."""
        if len(self.rows) <= n:
            return self
        return Table(columns=self.columns, rows=self.rows[:n], total_rows=len(self.rows))

    def column(self, name: str) -> list[str]:
        k = self.columns.index(name)
        return [row[k] for row in self.rows]

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def _table(reader) -> Table:
    columns = next(reader, [])
    # Short rows are padded so that every row has one cell per column.
    rows = [row + [""] * (len(columns) - len(row)) for row in reader]
    return Table(columns=columns, rows=rows)


def read_table(path: str | Path) -> Table:
    """Read a CSV the workflow wrote."""
    with open(path, encoding="utf-8", newline="") as handle:
        return _table(csv.reader(handle))


def parse_table(data: bytes | str) -> Table:
    """A CSV's text (or UTF-8 bytes) as a :class:`Table`."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return _table(csv.reader(io.StringIO(text, newline="")))
