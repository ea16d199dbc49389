"""Downloads of personal data that only the browser which asked for them can fetch (issue 32).

Streamlit serves a download button's file at `/media/<hash>.<ext>` to any client while the
session keeps it (and for about a minute after the tab closed), and a balancer's log records
that path. For a personal download (`annotate.app.downloads` says which) the app does this:

1. Every browser gets a random, HttpOnly, SameSite=Lax cookie (`BROWSER_COOKIE`) with its
   first HTML page; the websocket carries it, so a page knows which browser it is drawn for.
   (Lax, not Strict: a login link opened from a mail is a cross-site navigation, which would
   not carry a Strict cookie and would be handed a new one, leaving the browser's other tabs
   with a cookie it no longer sends.)
2. The button's data are built when it is clicked (a deferred download). The builder then
   grants the file, by the digest of its bytes, to that browser and that Streamlit session, for
   `LIFETIME_S` seconds (`GRANTS`).
3. This middleware answers a `/media/` request for a granted file only to a request carrying
   that browser's cookie, within the lifetime and before the session's next script run (the
   page moved on, or any click that reruns it). Anything else gets 404, as does a HEAD.
   (Not once only: Streamlit's button fetches the address to check it, then downloads it.)

A file never granted (an image, a report) is served by Streamlit as before. The grants live in
the server process, like the file itself; the balancer's sticky cookie sends the fetch to the
server that made the file.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

BROWSER_COOKIE = "prb_browser"
LIFETIME_S = 60.0
_MEDIA_FILE = re.compile(r"/media/(?P<file>[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)?)")
_KNOWN_LIMIT = 100_000  # digests remembered as personal (32 bytes each)


def digest(data: bytes) -> str:
    """The name a personal file's grants are kept under."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class _Grant:
    browser: str
    session_id: str
    expires: float


class Grants:
    """Which browser may fetch which personal file, until when (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._grants: dict[str, list[_Grant]] = {}
        self._personal: dict[str, None] = {}  # every digest ever granted (insertion order)

    def grant(self, name: str, browser: str, session_id: str) -> None:
        """Let `browser` fetch the file `name` (a `digest`) for the next `LIFETIME_S`."""
        with self._lock:
            self._personal[name] = None
            while len(self._personal) > _KNOWN_LIMIT:
                del self._personal[next(iter(self._personal))]
            expires = self._clock() + LIFETIME_S
            self._grants.setdefault(name, []).append(_Grant(browser, session_id, expires))

    def is_personal(self, name: str) -> bool:
        with self._lock:
            return name in self._personal

    def allows(self, name: str, browser: str | None) -> bool:
        """Whether `browser` may fetch `name` now (expired grants are dropped)."""
        with self._lock:
            now = self._clock()
            live = [g for g in self._grants.pop(name, []) if g.expires > now]
            if live:
                self._grants[name] = live
            return bool(browser) and any(g.browser == browser for g in live)

    def end_session(self, session_id: str) -> None:
        """The session drew another page (or ran again): its grants end."""
        with self._lock:
            for name in list(self._grants):
                kept = [g for g in self._grants[name] if g.session_id != session_id]
                if kept:
                    self._grants[name] = kept
                else:
                    del self._grants[name]


GRANTS = Grants()


def granted(build: Callable[[], bytes], browser: str, session_id: str) -> Callable[[], bytes]:
    """A deferred download's data: `build`'s bytes, granted to `browser` when built."""

    def run() -> bytes:
        data = build()
        GRANTS.grant(digest(data), browser, session_id)
        return data

    return run


def script_session() -> str | None:
    """This script run's Streamlit session id (None outside a script run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    return None if context is None else context.session_id


def end_grants_of_this_session() -> None:
    """The session runs its script again (the page moved on, or a click): the personal files
    it was granted can no longer be fetched (the entry script calls this on every run)."""
    session = script_session()
    if session is not None:
        GRANTS.end_session(session)


def _cookies(scope: Any) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name.lower() == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:
                return {}
    return {key: morsel.value for key, morsel in jar.items()}


def _is_https(scope: Any) -> bool:
    forwarded = dict(scope.get("headers", [])).get(b"x-forwarded-proto", b"")
    return scope.get("scheme") == "https" or forwarded.lower() == b"https"


def browser_cookie_header(scope: Any) -> tuple[bytes, bytes]:
    """A new browser cookie for the request's answer."""
    value = f"{BROWSER_COOKIE}={secrets.token_urlsafe(32)}; Path=/; HttpOnly; SameSite=Lax"
    return b"set-cookie", (value + ("; Secure" if _is_https(scope) else "")).encode()


def _stored_file(file: str) -> Any:
    """Streamlit's stored media file of that name, if any."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    manager = runtime.get_instance().media_file_mgr
    return manager.read_file(file) if manager.can_read_files else None


class PrivateDownloads:
    """ASGI middleware: hands each browser its cookie (with an HTML page) and refuses a
    personal file to any request but its browser's, while the grant lasts."""

    def __init__(self, app: Any, base_url: str | None = None) -> None:
        if base_url is None:
            from streamlit import config

            base_url = str(config.get_option("server.baseUrlPath") or "")
        self.app = app
        self.prefix = "/" + base_url.strip("/") if base_url.strip("/") else ""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookies = _cookies(scope)
        if self._refused(scope, cookies.get(BROWSER_COOKIE)):
            await _not_found(send)
            return
        if BROWSER_COOKIE in cookies:
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _with_cookie(send, browser_cookie_header(scope)))

    def _refused(self, scope: Any, browser: str | None) -> bool:
        path: str = scope.get("path", "")
        if self.prefix:
            if not path.startswith(self.prefix + "/"):
                return False
            path = path[len(self.prefix) :]
        match = _MEDIA_FILE.fullmatch(path)
        if match is None:
            return False
        stored = _stored_file(match["file"])
        if stored is None:
            return False  # Streamlit answers 404 itself
        name = digest(stored.content)
        if not GRANTS.is_personal(name):
            return False
        return scope.get("method") != "GET" or not GRANTS.allows(name, browser)


def _with_cookie(send: Any, header: tuple[bytes, bytes]) -> Any:
    """`send`, adding the browser cookie to an HTML answer."""

    async def sending(message: Any) -> None:
        if message["type"] == "http.response.start":
            headers = message.get("headers", [])
            html = any(
                k.lower() == b"content-type" and v.lower().startswith(b"text/html")
                for k, v in headers
            )
            if html:
                message = {**message, "headers": [*headers, header]}
        await send(message)

    return sending


async def _not_found(send: Any) -> None:
    body = b"Not found"
    await send(
        {
            "type": "http.response.start",
            "status": 404,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def protect_personal_downloads() -> None:
    """Make this process's Streamlit server (Starlette) run `PrivateDownloads`: our middleware
    joins the stack Streamlit builds for its app (inside the security headers' one)."""
    from starlette.middleware import Middleware
    from streamlit.web.server.starlette import starlette_app

    built = starlette_app.create_streamlit_middleware

    def with_private_downloads() -> list[Middleware]:
        return [*built(), Middleware(PrivateDownloads)]

    starlette_app.create_streamlit_middleware = with_private_downloads
