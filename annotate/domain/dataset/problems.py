"""Problems found in an input file, and the error that carries them: located by file, line (or
row) and field, the first MAX_PROBLEMS_KEPT kept and every one counted."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annotate.errors import Invalid

MAX_PROBLEMS_SHOWN = 20
"""Problems written out in a DatasetError's message (the CLI prints it)."""
MAX_PROBLEMS_KEPT = 1000
"""Problems an import keeps (the page lists them); the rest are only counted."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as the format allows."""

    file: str
    location: str
    message: str
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}, {self.location}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"


class DatasetError(Invalid):
    """The input could not be imported; `problems` says exactly why (at most MAX_PROBLEMS_KEPT
    of them, the first ones), `total` how many there were in all."""

    def __init__(self, problems: Sequence[Problem], total: int | None = None):
        self.problems = list(problems)
        self.total = max(total or 0, len(self.problems))
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = self.total - len(shown)
        if more:
            shown.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(shown))


class ProblemLog:
    """The problems of one import: the first `limit` kept, every one counted, so that a file of
    a million bad lines never builds millions of messages."""

    def __init__(self, limit: int = MAX_PROBLEMS_KEPT):
        self.limit = limit
        self.kept: list[Problem] = []
        self.total = 0

    def add(self, problem: Problem) -> None:
        self.total += 1
        if len(self.kept) < self.limit:
            self.kept.append(problem)

    @property
    def full(self) -> bool:
        """No more problems are kept: count them (`count`) rather than describe them."""
        return len(self.kept) >= self.limit

    def count(self, more: int) -> None:
        self.total += more

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.add(problem)

    def absorb(self, error: DatasetError) -> None:
        """Take over another error's problems, counting those it did not keep."""
        self.extend(error.problems)
        self.total += error.total - len(error.problems)

    def __bool__(self) -> bool:
        return self.total > 0

    def error(self) -> DatasetError:
        return DatasetError(self.kept, self.total)
