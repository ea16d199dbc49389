"""The security headers of every answer, defined once: sent by the app server itself (the launch
wrapper, `annotate.app.launch`, adds them to every HTTP response of Streamlit's server) and by
the shipped HAProxy configuration (`support.cluster` renders it from these), so a server run
without the balancer (`docker run -p 8501:8501`, `prb-annotate serve`) sends them too (issue
24, item 7).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any

import streamlit

APP_SCRIPTS = Path(__file__).resolve().parent


def _sha256_source(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def inline_script_hashes() -> list[str]:
    """CSP hashes of the inline scripts: those of Streamlit's own index.html (they change with
    its version), and the app's own (`annotate/app/*.js`, put in the page as inline scripts).
    Why the configuration is rendered, not written by hand."""
    index = Path(streamlit.__file__).parent / "static" / "index.html"
    scripts = re.findall(r"<script>(.*?)</script>", index.read_text(encoding="utf-8"), re.S)
    scripts += [path.read_text(encoding="utf-8") for path in sorted(APP_SCRIPTS.glob("*.js"))]
    return [_sha256_source(script) for script in scripts]


def content_security_policy() -> str:
    """What the browser may load: the app's own origin only, no framing, no plugins.

    Streamlit's styles are injected at run time (emotion), so styles need 'unsafe-inline';
    scripts do not: Streamlit's one inline script and the rating page's keyboard script are
    allowed by hash. 'wasm-unsafe-eval' lets its
    bundled WebAssembly (Arrow tables) compile; it allows no JavaScript eval.
    """
    scripts = " ".join(["'self'", *inline_script_hashes(), "'wasm-unsafe-eval'"])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "frame-src 'self' blob: data:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # tokens travel in the URL: never pass them on
    "X-Content-Type-Options": "nosniff",
}


def all_headers() -> dict[str, str]:
    """Every security header with its value."""
    return {"Content-Security-Policy": content_security_policy(), **SECURITY_HEADERS}


class _SecurityHeaders:
    """ASGI middleware: every HTTP response carries the security headers (replacing any of the
    same name)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in all_headers().items()]
        self.names = {k for k, _ in self.headers}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                kept = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() not in self.names
                ]
                message = {**message, "headers": kept + self.headers}
            await send(message)

        await self.app(scope, receive, sending)


def send_from_the_app() -> None:
    """Make this process's Streamlit server (Starlette) add the security headers to every HTTP
    response: our middleware joins the stack Streamlit builds for its app."""
    from starlette.middleware import Middleware
    from streamlit.web.server.starlette import starlette_app

    built = starlette_app.create_streamlit_middleware

    def with_headers() -> list[Middleware]:
        return [*built(), Middleware(_SecurityHeaders)]

    starlette_app.create_streamlit_middleware = with_headers
