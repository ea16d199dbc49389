"""The grants behind a personal download (annotate/app/private_downloads.py): a file is served
to the browser it was granted to, for 60 s, until its session runs again; the middleware gives
every browser its cookie with an HTML page and answers 404 to any other request for the file
(the real server and Chromium: `test_downloads_browser.py`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from annotate.app import private_downloads
from annotate.app.private_downloads import (
    BROWSER_COOKIE,
    LIFETIME_S,
    Grants,
    PrivateDownloads,
    digest,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_grant_answers_its_browser_for_60_seconds_until_its_session_runs_again():
    clock = Clock()
    grants = Grants(clock)
    name = digest(b"pair_id,comment\r\n")
    assert not grants.is_personal(name)
    grants.grant(name, "browser-a", "session-1")
    assert grants.is_personal(name)
    assert grants.allows(name, "browser-a")
    assert not grants.allows(name, "browser-b")
    assert not grants.allows(name, None)
    assert not grants.allows(name, "")
    clock.now += LIFETIME_S - 0.5
    assert grants.allows(name, "browser-a")
    clock.now += 1.0  # 60.5 s after the click
    assert not grants.allows(name, "browser-a")
    assert grants.is_personal(name)  # still known as personal: never served to anyone
    grants.grant(name, "browser-a", "session-1")
    grants.grant(name, "browser-c", "session-2")
    grants.end_session("session-1")  # its page moved on
    assert not grants.allows(name, "browser-a")
    assert grants.allows(name, "browser-c")


def test_a_grant_without_a_browser_serves_nobody():
    grants = Grants(Clock())
    grants.grant("x", "", "session-1")  # a page drawn without the cookie
    assert not grants.allows("x", "")
    assert not grants.allows("x", None)


STORED = {"abc123": b"secret,text\r\n", "def456": b"a chart"}


class _File:
    def __init__(self, content: bytes) -> None:
        self.content = content


async def _app(scope: Any, receive: Any, send: Any) -> None:
    """A stand-in for Streamlit's routes: /media/<id>.<ext> from `STORED`, else an HTML page."""
    path = scope["path"]
    if path.startswith("/media/"):
        body, kind = STORED[path.rsplit("/", 1)[1].split(".")[0]], b"application/octet-stream"
    else:
        body, kind = b"<html></html>", b"text/html; charset=utf-8"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]})
    await send({"type": "http.response.body", "body": body})


def _call(
    method: str, path: str, cookie: str | None = None
) -> tuple[int, dict[bytes, bytes], bytes]:
    """One request through the middleware: (status, headers, body)."""
    headers = [] if cookie is None else [(b"cookie", f"{BROWSER_COOKIE}={cookie}".encode())]
    scope = {"type": "http", "method": method, "path": path, "headers": headers, "scheme": "http"}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(PrivateDownloads(_app, base_url="")(scope, receive, send))
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start.get("headers", [])), body


@pytest.fixture
def grants(monkeypatch: pytest.MonkeyPatch) -> Grants:
    """The process's grants, new; Streamlit's media storage read as `STORED`."""

    def stored(file: str) -> _File | None:
        content = STORED.get(file.split(".")[0])
        return None if content is None else _File(content)

    monkeypatch.setattr(private_downloads, "_stored_file", stored)
    fresh = Grants(Clock())
    monkeypatch.setattr(private_downloads, "GRANTS", fresh)
    return fresh


def test_the_middleware_serves_a_personal_file_only_to_its_browser(grants):
    _status, headers, _ = _call("GET", "/")
    header = headers[b"set-cookie"].decode()
    assert header.startswith(f"{BROWSER_COOKIE}=")
    assert "HttpOnly" in header
    assert "SameSite=Lax" in header
    assert "Path=/" in header
    cookie = header.split(";")[0].split("=", 1)[1]
    assert len(cookie) >= 40
    assert b"set-cookie" not in _call("GET", "/", cookie)[1]  # a browser keeps its cookie
    assert b"set-cookie" not in _call("GET", "/media/def456.png")[1]  # only with a page
    grants.grant(digest(STORED["abc123"]), cookie, "session-1")
    assert _call("GET", "/media/abc123.csv", cookie)[::2] == (200, STORED["abc123"])
    assert _call("HEAD", "/media/abc123.csv", cookie)[0] == 404
    assert _call("GET", "/media/abc123.csv")[0] == 404  # no cookie: a logged address
    assert _call("GET", "/media/abc123.csv", "someone-else")[0] == 404
    assert _call("GET", "/media/def456.png")[::2] == (200, b"a chart")  # not personal
    grants.end_session("session-1")  # the page moved on
    assert _call("GET", "/media/abc123.csv", cookie)[0] == 404
