"""A crowd platform with no API (issue 34.3): participants come through the study link and
leave through the study's completion URL with their code. Nothing can be sent: the sync's
table of actions (approve, reject, bonus) is the admin's to apply on the platform by hand, as
a CSV (`annotate.services.platform.actions_csv`)."""

from __future__ import annotations

from collections.abc import Sequence

from annotate.domain.platforms import BonusEntry, Submission
from annotate.errors import Invalid

BY_HAND = "this platform has no API: apply the table of actions on the platform by hand"


class CompletionUrl:
    name = "completion_url"
    sends = False

    def submissions(self, study_id: str) -> list[Submission] | None:
        return None

    def _refuse(self) -> None:
        raise Invalid(BY_HAND)

    def approve(self, submission_id: str) -> None:
        self._refuse()

    def reject(self, submission_id: str, category: str, message: str) -> None:
        self._refuse()

    def complete(self, submission_id: str, code: str) -> None:
        self._refuse()

    def request_return(self, submission_id: str, reasons: Sequence[str]) -> None:
        self._refuse()

    def create_bonus(self, study_id: str, entries: Sequence[BonusEntry]) -> str:
        self._refuse()
        return ""

    def pay_bonus(self, bonus_id: str) -> None:
        self._refuse()
