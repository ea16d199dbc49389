"""E-mail-like strings in free text (issue 32): found before a disclosure and masked on request
(annotate/domain/exports/published.py). Tricky inputs: sub-domains and tags, non-ASCII
addresses, the "(at)/(dot)" ways of writing one, addresses in brackets, lists and formulas; and
text that only looks like one (a version, a handle, prose with "at", a host without a domain)."""

from __future__ import annotations

import pandas as pd
import pytest

from annotate.domain.exports.published import EMAIL_MASK, emails_in, mask_emails, masked_frame

MASKED = [
    ("write to a.b+tag@sub.example.co.uk, thanks", "write to [e-mail], thanks"),
    ("jürgen.müller@beispiel.de.", "[e-mail]."),
    ("x (at) y (dot) org", "[e-mail]"),
    ("john [at] example dot com", "[e-mail]"),
    ("mail{at}host{dot}net now", "[e-mail] now"),
    ("<me@ex.com>", "<[e-mail]>"),
    ("a@b.com,c@d.org", "[e-mail],[e-mail]"),
    ('=HYPERLINK("mailto:x@y.io")', '=HYPERLINK("mailto:[e-mail]")'),
    ("O'Brien_1980@mail-server.example.ie!", "[e-mail]!"),
    ("UPPER@EXAMPLE.COM", "[e-mail]"),
]
KEPT = [
    "v1.2@3.4",
    "@handle said hi",
    "I looked at example.com",
    "user@localhost",
    "meet @ 5.30pm",
    "a@b.c",  # a one-letter top-level domain is no address
    "",
]


@pytest.mark.parametrize(("text", "expected"), MASKED)
def test_an_email_like_string_is_masked_and_the_rest_kept(text, expected):
    assert mask_emails(text) == expected


@pytest.mark.parametrize("text", KEPT)
def test_text_that_only_looks_like_an_address_is_kept(text):
    assert mask_emails(text) == text


def test_the_warning_counts_entries_per_field_and_the_mask_touches_only_those_fields():
    frame = pd.DataFrame(
        {
            "comment": ["ok", "mail me: a@b.org", None, "two: c@d.eu e@f.fr"],
            "flag_reason": ["x (at) y (dot) org", "", "", ""],
            "domain": ["a@b.org", "", "", ""],  # not free text: never counted or masked
        }
    )
    assert emails_in(frame, ["comment", "flag_reason", "skip_reason"]) == {
        "comment": 2,
        "flag_reason": 1,
    }
    masked = masked_frame(frame, ["comment", "flag_reason"])
    comments = list(masked["comment"])
    assert comments[:2] == ["ok", f"mail me: {EMAIL_MASK}"]
    assert pd.isna(comments[2])  # an empty entry stays empty
    assert comments[3] == "two: [e-mail] [e-mail]"
    assert masked["flag_reason"][0] == EMAIL_MASK
    assert masked["domain"][0] == "a@b.org"
    assert frame["comment"][1] == "mail me: a@b.org"  # the frame itself is left as it was
