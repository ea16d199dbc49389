"""Prolific's API (issue 34.3), from its API reference (the OpenAPI schema that the `pyrolific`
package is generated from): the one HTTP client of the product, used only through the
`Platform` interface (`annotate.domain.platforms`), never by a page.

Endpoints: `GET /api/v1/submissions/?study=ID` (a study's submissions, page by page),
`POST /api/v1/submissions/{id}/transition/` (APPROVE; REJECT with a rejection category and a
message of 100 characters or more; COMPLETE with a completion code, e.g. the screen-out code),
`POST /api/v1/submissions/{id}/request-return/` (with reasons),
`POST /api/v1/submissions/bonus-payments/` (a bulk bonus set up from `participant_id,amount`
lines, amounts in the study's currency) and `POST /api/v1/bulk-bonus-payments/{id}/pay/`.

Retries, bounded: a 429 waits for its Retry-After (at most `MAX_WAIT` seconds) and is sent
again (Prolific refused it: nothing happened); a 5xx or a broken connection is sent again
with exponential back-off, except where the call is not idempotent (paying a bulk bonus pays
it again): that one is sent once, and a 5xx then leaves its outcome unknown
(`PlatformUnavailable.maybe_done`).

The token is sent only in the `Authorization: Token ...` header, only to the configured API
address (a `next` page link elsewhere is not followed); no message, log line or repr holds it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, urlencode

from annotate.config import PlatformTokenError, prolific_api_url, prolific_token
from annotate.domain.crowd.payment_rules import major_units
from annotate.domain.platforms import BonusEntry, PlatformRefused, PlatformUnavailable, Submission
from annotate.errors import Invalid, Unavailable

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
BACKOFF_SECONDS = 0.5
MAX_WAIT = 60.0
TIMEOUT_SECONDS = 30.0
MAX_PAGES = 1000
MIN_REJECTION_MESSAGE = 100
"""Prolific refuses a rejection whose message is shorter."""


class Prolific:
    """Prolific's API at `base_url` with `token`."""

    name = "prolific"
    sends = True

    def __init__(
        self, base_url: str, token: str, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self._base = base_url.rstrip("/")
        self._token = token
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"Prolific({self._base!r})"

    # ------------------------------------------------------------------ the Platform interface

    def submissions(self, study_id: str) -> list[Submission] | None:
        found: list[Submission] = []
        url: str | None = self._url("/api/v1/submissions/", {"study": study_id})
        for _ in range(MAX_PAGES):
            if url is None:
                break
            page = self._call("GET", "submissions/?study=...", url)
            for item in page.get("results", []):
                found.append(
                    Submission(str(item["id"]), str(item["participant_id"]), str(item["status"]))
                )
            url = self._next_page(page)
        return found

    def approve(self, submission_id: str) -> None:
        self._transition(submission_id, {"action": "APPROVE"})

    def reject(self, submission_id: str, category: str, message: str) -> None:
        if len(message) < MIN_REJECTION_MESSAGE:
            raise Invalid(f"a rejection's message has at least {MIN_REJECTION_MESSAGE} characters")
        body = {"action": "REJECT", "rejection_category": category, "message": message}
        self._transition(submission_id, body)

    def complete(self, submission_id: str, code: str) -> None:
        self._transition(submission_id, {"action": "COMPLETE", "completion_code": code})

    def request_return(self, submission_id: str, reasons: Sequence[str]) -> None:
        url = self._url(f"/api/v1/submissions/{quote(submission_id, safe='')}/request-return/")
        self._call(
            "POST", "submissions/{id}/request-return/", url, {"request_return_reasons": [*reasons]}
        )

    def create_bonus(self, study_id: str, entries: Sequence[BonusEntry]) -> str:
        """Set up a bulk bonus (nothing is paid yet; setting it up again makes another)."""
        lines = "".join(f"{e.participant_id},{major_units(e.amount)}\n" for e in entries)
        url = self._url("/api/v1/submissions/bonus-payments/")
        answer = self._call(
            "POST", "submissions/bonus-payments/", url, {"study_id": study_id, "csv_bonuses": lines}
        )
        return str(answer["id"])

    def pay_bonus(self, bonus_id: str) -> None:
        """Pay a bulk bonus: sent once, never again on a 5xx (it is not idempotent)."""
        url = self._url(f"/api/v1/bulk-bonus-payments/{quote(bonus_id, safe='')}/pay/")
        self._call("POST", "bulk-bonus-payments/{id}/pay/", url, {}, idempotent=False)

    # ------------------------------------------------------------------ HTTP

    def _transition(self, submission_id: str, body: dict[str, Any]) -> None:
        url = self._url(f"/api/v1/submissions/{quote(submission_id, safe='')}/transition/")
        self._call("POST", "submissions/{id}/transition/", url, body)

    def _url(self, path: str, query: dict[str, str] | None = None) -> str:
        return self._base + path + (f"?{urlencode(query)}" if query else "")

    def _next_page(self, page: dict[str, Any]) -> str | None:
        link = (page.get("_links") or {}).get("next") or {}
        href = link.get("href") if isinstance(link, dict) else None
        if isinstance(href, str) and href.startswith(self._base + "/"):
            return href
        return None  # none, or elsewhere: the token goes to the API's address only

    def _call(
        self,
        method: str,
        what: str,
        url: str,
        body: dict[str, Any] | None = None,
        *,
        idempotent: bool = True,
    ) -> dict[str, Any]:
        """One request with the retries above; `what` names it in messages (no ids)."""
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            request = urllib.request.Request(url, data=data, method=method)
            request.add_header("Authorization", f"Token {self._token}")
            request.add_header("Accept", "application/json")
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
                    text = answer.read().decode("utf-8") or "{}"
                    parsed = json.loads(text)
                    return parsed if isinstance(parsed, dict) else {"results": parsed}
            except urllib.error.HTTPError as error:
                status, wait = error.code, self._wait(error, attempt)
                error.close()
                if status == 429 and attempt < MAX_ATTEMPTS:
                    log.info("Prolific: 429 on %s %s, waiting %.1f s", method, what, wait)
                    self._sleep(wait)
                    continue
                if status == 429:
                    raise PlatformUnavailable(
                        f"Prolific is rate-limiting {method} {what}: tried {MAX_ATTEMPTS} times",
                        status,
                        maybe_done=False,
                    ) from None
                if status < 500:
                    raise PlatformRefused(
                        f"Prolific refused {method} {what} ({status}){self._detail(error)}",
                        status,
                    ) from None
                self._server_error(method, what, status, attempt, idempotent)
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                reason = type(getattr(error, "reason", error)).__name__
                self._server_error(method, what, None, attempt, idempotent, reason)
        raise AssertionError("unreachable")  # pragma: no cover

    def _server_error(
        self,
        method: str,
        what: str,
        status: int | None,
        attempt: int,
        idempotent: bool,
        reason: str = "",
    ) -> None:
        shown = f"answered {status}" if status is not None else f"did not answer ({reason})"
        if idempotent and attempt < MAX_ATTEMPTS:
            wait = BACKOFF_SECONDS * 2 ** (attempt - 1)
            log.info("Prolific %s to %s %s, again in %.1f s", shown, method, what, wait)
            self._sleep(wait)
            return
        tried = f" after {attempt} tries" if idempotent else " (sent once: not repeatable)"
        raise PlatformUnavailable(f"Prolific {shown} to {method} {what}{tried}", status, True)

    @staticmethod
    def _wait(error: urllib.error.HTTPError, attempt: int) -> float:
        """Retry-After in seconds (a number or an HTTP date), else the back-off."""
        value = str(error.headers.get("Retry-After") or "").strip()
        seconds = BACKOFF_SECONDS * 2 ** (attempt - 1)
        if value.isdigit():
            seconds = float(value)
        elif value:
            with contextlib.suppress(TypeError, ValueError):
                seconds = parsedate_to_datetime(value).timestamp() - time.time()
        return float(min(max(seconds, 0.0), MAX_WAIT))

    def _detail(self, error: urllib.error.HTTPError) -> str:
        try:
            text = error.read(600).decode("utf-8", "replace")
        except OSError:
            return ""
        text = " ".join(text.replace(self._token, "***").split())[:300]
        return f": {text}" if text else ""


def from_environment() -> Prolific:
    """Prolific at $PRB_PROLIFIC_API_URL with the token of $PRB_PROLIFIC_TOKEN(_FILE)."""
    try:
        token = prolific_token()
    except PlatformTokenError as error:
        raise Unavailable(str(error)) from None
    return Prolific(prolific_api_url(), token)
