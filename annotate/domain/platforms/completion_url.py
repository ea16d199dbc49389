"""A crowd platform with no API (issue 34.3): participants come through the study link and
leave through the study's completion URL with their code. Nothing can be sent: the sync's
table of actions (approve, reject, bonus) is the admin's to apply on the platform by hand, as
a CSV (`annotate.services.admin.platform.actions_csv`)."""

from __future__ import annotations

from collections.abc import Sequence

from annotate.domain.platforms import BonusEntry, Submission
from annotate.errors import Invalid

BY_HAND = "this platform has no API: apply the table of actions on the platform by hand"


class CompletionUrl:
    name = "completion_url"
    sends = False

    def submissions(self, _study_id: str) -> list[Submission] | None:
        return None  # the sync reads the study's participants instead

    def approve(self, _submission_id: str) -> None:
        raise Invalid(BY_HAND)

    def reject(self, _submission_id: str, _category: str, _message: str) -> None:
        raise Invalid(BY_HAND)

    def complete(self, _submission_id: str, _code: str) -> None:
        raise Invalid(BY_HAND)

    def request_return(self, _submission_id: str, _reasons: Sequence[str]) -> None:
        raise Invalid(BY_HAND)

    def create_bonus(self, _study_id: str, _entries: Sequence[BonusEntry]) -> str:
        raise Invalid(BY_HAND)

    def pay_bonus(self, _bonus_id: str) -> None:
        raise Invalid(BY_HAND)
