"""The CLI's plain output: text from users and files is printed as it is."""

from __future__ import annotations

import pytest

from annotate.cli.common import say


def test_say_prints_markup_and_emoji_codes_as_they_are(capsys: pytest.CaptureFixture[str]) -> None:
    text = "Imported 'bon:[bold]m[/]:k16' in study ':smile: 1/2': 3 outputs."
    say(text)
    assert capsys.readouterr().out == text + "\n"
