"""A fake of Prolific's API on 127.0.0.1 for the tests (issue 34.3; never the real service):
the endpoints and JSON shapes of its API reference (the `pyrolific` models), with state.

It keeps each study's submissions and their statuses, the bulk bonuses set up and how many
times each was paid (paying twice pays twice, as on Prolific), counts the calls per endpoint,
answers 401 without `Authorization: Token <token>`, and on demand fails the next calls to an
endpoint with a status (429 with Retry-After, or a 5xx), before or after carrying them out.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CATEGORIES = frozenset(
    {"BAD_CODE", "FAILED_CHECK", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "LOW_EFFORT",
     "MALINGERING", "NO_CODE", "NO_DATA", "OTHER", "TOO_QUICKLY", "TOO_SLOWLY", "UNSUPP_DEVICE"}
)  # fmt: skip
ROUTES = (
    ("GET", re.compile(r"^/api/v1/submissions/$"), "list"),
    ("POST", re.compile(r"^/api/v1/submissions/bonus-payments/$"), "create_bonus"),
    ("POST", re.compile(r"^/api/v1/submissions/([^/]+)/transition/$"), "transition"),
    ("POST", re.compile(r"^/api/v1/submissions/([^/]+)/request-return/$"), "request_return"),
    ("POST", re.compile(r"^/api/v1/bulk-bonus-payments/([^/]+)/pay/$"), "pay_bonus"),
)


@dataclass
class Fault:
    status: int
    retry_after: str | None = None
    after_processing: bool = False


@dataclass
class Bonus:
    study: str
    entries: list[tuple[str, int]]
    paid_times: int = 0

    @property
    def amount(self) -> int:
        return sum(a for _, a in self.entries)


@dataclass
class FakeState:
    token: str
    submissions: dict[str, dict[str, Any]] = field(default_factory=dict)
    bonuses: dict[str, Bonus] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    screenout_codes: set[str] = field(default_factory=set)
    page_size: int = 50
    seen_tokens: list[str] = field(default_factory=list)
    hooks: dict[str, Callable[[], None]] = field(default_factory=dict)
    """Run once before the next call to an endpoint (e.g. a second sync, to race the first)."""
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakeProlific:
    """The fake server; `with FakeProlific(token) as fake:` serves at `fake.url`."""

    def __init__(self, token: str) -> None:
        self.state = FakeState(token)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeProlific:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    # ---------------------------------------------------------------- set up and read back

    def add_submission(
        self, study: str, submission_id: str, participant_id: str, status: str
    ) -> None:
        self.state.submissions[submission_id] = {
            "id": submission_id,
            "participant_id": participant_id,
            "status": status,
            "study_id": study,
            "started_at": "2026-12-05T10:00:00Z",
            "return_requested": None,
        }

    def status(self, submission_id: str) -> str:
        return str(self.state.submissions[submission_id]["status"])

    def fail_next(
        self,
        endpoint: str,
        times: int = 1,
        *,
        status: int = 503,
        retry_after: str | None = None,
        after_processing: bool = False,
    ) -> None:
        """The next `times` calls to `endpoint` answer `status` (carried out first with
        `after_processing`: the call did its work, the answer is lost)."""
        fault = Fault(status, retry_after, after_processing)
        self.state.faults.setdefault(endpoint, []).extend([fault] * times)

    @property
    def calls(self) -> Counter[str]:
        return self.state.calls

    @property
    def paid_total(self) -> int:
        """Minor units paid in bonuses, counting a bulk bonus paid twice twice."""
        return sum(b.amount * b.paid_times for b in self.state.bonuses.values())

    def paid_to(self, participant_id: str) -> int:
        return sum(
            a * b.paid_times
            for b in self.state.bonuses.values()
            for p, a in b.entries
            if p == participant_id
        )


def _handler(state: FakeState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            return  # quiet

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def _route(self, method: str) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            header = self.headers.get("Authorization") or ""
            with state.lock:
                state.seen_tokens.append(header)
            if header != f"Token {state.token}":
                return self._answer(401, {"error": "Invalid token"})
            for verb, pattern, name in ROUTES:
                match = pattern.match(parts.path)
                if verb == method and match:
                    body = json.loads(raw or b"{}")
                    return self._run(name, match.groups(), parse_qs(parts.query), body)
            return self._answer(404, {"error": "not found"})

        def _run(
            self, name: str, args: tuple[str, ...], query: dict[str, list[str]], body: Any
        ) -> None:
            with state.lock:
                hook = state.hooks.pop(name, None)
            if hook is not None:
                hook()
            with state.lock:
                state.calls[name] += 1
                queued = state.faults.get(name) or []
                fault = queued.pop(0) if queued else None
                if fault is not None and not fault.after_processing:
                    return self._fault(fault)
                status, answer = getattr(self, f"_{name}")(args, query, body)
                if fault is not None:
                    return self._fault(fault)
            return self._answer(status, answer)

        def _fault(self, fault: Fault) -> None:
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            self._answer(fault.status, {"error": "fault"}, headers)

        def _answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        # ------------------------------------------------------------ endpoints

        def _list(self, _args: tuple[str, ...], query: dict[str, list[str]], _body: Any) -> Any:
            study = (query.get("study") or [""])[0]
            if not study:
                return 400, {"error": "study is required"}
            page = int((query.get("page") or ["1"])[0])
            mine = [
                {k: v for k, v in s.items() if k != "study_id"}
                for s in state.submissions.values()
                if s["study_id"] == study
            ]
            size = state.page_size
            chunk = mine[(page - 1) * size : page * size]
            more = page * size < len(mine)
            host = f"http://{self.headers.get('Host')}"
            nxt = {"href": f"{host}/api/v1/submissions/?study={study}&page={page + 1}"}
            return 200, {
                "results": chunk,
                "_links": {"next": nxt if more else {"href": None}},
                "meta": {"count": len(mine)},
            }

        def _transition(self, args: tuple[str, ...], _query: Any, body: Any) -> Any:
            found = state.submissions.get(args[0])
            if found is None:
                return 404, {"error": "no such submission"}
            action = body.get("action")
            target = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}.get(action)
            if action == "REJECT" and (
                body.get("rejection_category") not in CATEGORIES
                or len(body.get("message") or "") < 100
            ):
                return 400, {"error": "a rejection needs a category and a 100-character message"}
            if action == "COMPLETE":
                code = body.get("completion_code")
                target = "SCREENED OUT" if code in state.screenout_codes else None
            if target is None:
                return 400, {"error": "unknown action or code"}
            if found["status"] == target:
                return 200, found  # idempotent: the same request again is ignored
            if found["status"] != "AWAITING REVIEW":
                return 400, {"error": f"cannot transition from {found['status']}"}
            found["status"] = target
            return 200, found

        def _request_return(self, args: tuple[str, ...], _query: Any, body: Any) -> Any:
            found = state.submissions.get(args[0])
            if found is None:
                return 404, {"error": "no such submission"}
            if not body.get("request_return_reasons"):
                return 400, {"error": "request_return_reasons is required"}
            found["return_requested"] = "2026-12-05T12:00:00Z"
            return 200, {
                "id": found["id"],
                "status": found["status"],
                "participant": found["participant_id"],
            }

        def _create_bonus(self, _args: tuple[str, ...], _query: Any, body: Any) -> Any:
            study = body.get("study_id") or ""
            members = {
                s["participant_id"] for s in state.submissions.values() if s["study_id"] == study
            }
            entries = []
            for line in str(body.get("csv_bonuses") or "").splitlines():
                if not line.strip():
                    continue
                pid, _, amount = line.partition(",")
                if pid not in members:
                    return 400, {"error": f"{pid} did not take part in the study"}
                entries.append((pid, int(Decimal(amount) * 100)))
            if not entries:
                return 400, {"error": "no bonuses"}
            bonus_id = f"bonus{len(state.bonuses) + 1:04d}"
            state.bonuses[bonus_id] = Bonus(study, entries)
            total = sum(a for _, a in entries)
            return 201, {"id": bonus_id, "study": study, "amount": total, "fees": 0, "vat": 0,
                         "total_amount": total}  # fmt: skip

        def _pay_bonus(self, args: tuple[str, ...], _query: Any, _body: Any) -> Any:
            bonus = state.bonuses.get(args[0])
            if bonus is None:
                return 404, {"error": "no such bonus payment"}
            bonus.paid_times += 1  # not idempotent, as Prolific warns
            return 202, {}

    return Handler
