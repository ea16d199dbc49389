"""The check shared by the reproduce-script tests: lines printed by reproduce.R or reproduce.py
against the lines the card shows (`annotate.domain.exports.card_reproduce.reproduced_output`)."""

from __future__ import annotations


def last_digit_agrees(printed: list[str], expected: list[str]) -> None:
    """Line by line: the same words; each number with the same decimals and at most one unit
    of its last digit away (a value on a rounding boundary), never more digits."""
    assert len(printed) == len(expected), (printed, expected)
    for got, want in zip(printed, expected, strict=True):
        got_words, want_words = got.split(), want.split()
        assert len(got_words) == len(want_words), (got, want)
        for g, w in zip(got_words, want_words, strict=True):
            if g == w:
                continue
            decimals = len(w.partition(".")[2])
            assert len(g.partition(".")[2]) == decimals, (got, want)
            assert abs(float(g) - float(w)) <= 1.01 * 10**-decimals, (got, want)
