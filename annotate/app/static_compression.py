"""Streamlit's own scripts and styles sent gzipped by the app server itself (issue 26, item 1).

Streamlit sends its hashed bundle (`/static/js/*.js`, `/static/css/*.css`: 2.3 MB on a
participant's first open) uncompressed on purpose: its server would compress every request
anew. HAProxy's compressor in Debian's build (libslz, fast and stateless) only halves them
(2.33 -> 1.02 MB), where zlib at level 6 makes them a quarter (0.58 MB): 2 s less on a 1.6
Mbps phone connection. These files never change while a server runs, so each is compressed once
per process (in a worker thread, never on the event loop), kept in memory (about 1 MB for the
files a session asks for), and sent with Streamlit's own cache header (public, immutable, one
year) and `Vary: Accept-Encoding`. The balancer passes an answer that is already encoded through
as it is. Requests that are conditional, ranged or accepting neither gzip nor Brotli go to
Streamlit unchanged.

A browser that takes Brotli (Chromium and Firefox do over HTTPS and on loopback) gets each file
at Brotli's best level, 11: 16% fewer bytes than gzip (0.63 -> 0.53 MB for a first open of the
rating page; 0.5 s less at 1.6 Mbps, issue 36.2). That level takes about 6 s of CPU for those
files (2 s for the largest), too slow for a request to wait: the first request for a file is
answered gzipped and its Brotli bytes are made in one background thread (Brotli's compressor
releases the GIL), one file at a time; every later request gets them. They are kept on disk
(`annotate.config.cache_dir`, by the content's hash), so only the machine's first server makes
them.

Every HTML page also carries a `Link: rel=modulepreload` header naming the scripts Streamlit
would load only once the rating page's first elements arrive on the websocket: the browser
fetches them with the page, not one round trip after another once the pair is on its way.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import logging
import mimetypes
import os
import re
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import brotli

from annotate.config import cache_dir, rating_view

GZIP_LEVEL = 6  # level 9 saves 0.3% more on these files for twice the CPU
BROTLI_QUALITY = 11  # Brotli's best: 10 is 2% larger, 9 8% (and zopfli's gzip 12%)
CACHE_CONTROL = "public, immutable, max-age=31536000"  # Streamlit's own, for hashed files
# A hashed bundle file: `/static/js/<name>.js` or `/static/css/<name>.css`, a plain name.
BUNDLE_PATH = re.compile(r"/static/(?P<folder>js|css)/(?P<name>[A-Za-z0-9_.-]+\.(?:js|css))")
PASSED_THROUGH = (b"range", b"if-none-match", b"if-modified-since")
# The rating page's late scripts, by their file's stem (Vite's `stem.hash.js`): the widgets'
# code that Streamlit imports when their first element arrives. A stem a new Streamlit no longer
# has is left out (tests/annotate/app/test_static_compression.py checks that every stem is found).
RATING_PAGE_CHUNKS = (
    "Html", "purify.es", "Radio", "useFormValidation", "useField", "useFormReset", "useSlot",
    "WidgetLabel", "WidgetLabelHelpIconInline", "WidgetLabelHelpIcon", "useBasicWidgetState",
    "TextArea", "ErrorOutline.esm", "InputInstructions", "useTextInputAutoExpand", "inputUtils",
    "requiredField", "useUpdateUiValue", "TextInput", "Input", "TextField", "Autocomplete",
    "useTextField", "Cancel.esm", "useDebouncedCallback", "Button", "Selectbox", "useMenuTrigger",
    "useLoadMoreSentinel", "useCollator", "useSyncComboBoxEnterTargetFocus", "sortBy", "_baseMap",
    "useFilter", "styled-components",
)  # fmt: skip
# With the pair component (PRB_RATING_VIEW=component, issue 36): the chunk that mounts it and its
# imports, and the component's own files (`pair_component.PRELOADS`), which Streamlit would ask
# for only once the pair's element arrived (on a 150 ms phone connection: 1.2 s later). Arrow's
# `recordbatch`, which `serialization` imports only when the component's data arrive, was such a
# late fetch: 0.4 s before the first pair on the throttled link.
COMPONENT_CHUNKS = (
    "BidiComponent", "rolldown-runtime", "emotion-is-prop-valid.esm", "emotion-styled.browser.esm",
    "loglevel", "opacities", "types", "toString", "_arrayReduce", "useCrossOriginAttribute",
    "useEmotionTheme", "ErrorElement", "preload-helper", "serialization", "useRequiredContext",
    "recordbatch",
)  # fmt: skip
HASHED_NAME = re.compile(r"(?P<stem>.+)\.[A-Za-z0-9_-]{8}\.js")


def rating_page_preloads(static_dir: Path | None = None, *, component: bool = False) -> list[str]:
    """`/static/js/...` of the rating page's late scripts in Streamlit's static folder (the
    installed Streamlit's by default), sorted; with `component`, the pair component's chunks."""
    if static_dir is None:
        from streamlit import file_util

        static_dir = Path(file_util.get_static_dir())
    stems = set(RATING_PAGE_CHUNKS) | (set(COMPONENT_CHUNKS) if component else set())
    scripts = (static_dir / "static" / "js").glob("*.js")
    hashed = (HASHED_NAME.fullmatch(path.name) for path in scripts)
    return sorted(
        f"/static/js/{found.string}" for found in hashed if found and found["stem"] in stems
    )


def preload_links(static_dir: Path, prefix: str, component: bool) -> str:
    """The `Link` header of an HTML page: the late scripts, and with `component` the pair
    component's own files (`/_stcore/bidi-components/...`)."""
    links = [f"<{prefix}{path}>; rel=modulepreload" for path in rating_page_preloads(
        static_dir, component=component)]  # fmt: skip
    if component:
        from annotate.app.participant.pair_component import PRELOADS

        links += [f"<{prefix}/_stcore/bidi-components/{path}>; {kind}" for path, kind in PRELOADS]
    return ", ".join(links)


def _accepted(headers: list[tuple[bytes, bytes]]) -> set[str]:
    """The codings among gzip and br the request's Accept-Encoding takes (not with q=0)."""
    taken: set[str] = set()
    for name, value in headers:
        if name.lower() != b"accept-encoding":
            continue
        for part in value.decode("latin-1").lower().split(","):
            coding, *parameters = (piece.strip() for piece in part.split(";"))
            refused = any(p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00") for p in parameters)
            if coding in ("gzip", "br") and not refused:
                taken.add(coding)
    return taken


def _is_html(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(
        name.lower() == b"content-type" and value.lower().startswith(b"text/html")
        for name, value in headers
    )


class CompressedBundle:
    """The gzipped and the Brotli bytes of the bundle's files under `static_dir`, each made
    once (Brotli's in the background: `brotli_later`)."""

    def __init__(self, static_dir: Path) -> None:
        self.static_dir = static_dir.resolve()
        self._compressed: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._brotli: dict[str, bytes] = {}
        self.making: dict[str, Future[None]] = {}  # Brotli's, asked for (done or not)
        self._maker: ThreadPoolExecutor | None = None  # one thread, started on first use

    def file_for(self, path: str) -> Path | None:
        """The file `path` (a request's path, base URL removed) names, if it is one of the
        bundle's scripts or styles."""
        match = BUNDLE_PATH.fullmatch(path)
        if match is None or match["name"].startswith("."):
            return None
        found = self.static_dir / "static" / match["folder"] / match["name"]
        return found if found.is_file() else None

    def made(self, file: Path) -> bytes | None:
        """The compressed file if it was made already (no thread needed)."""
        return self._compressed.get(str(file))

    def gzipped(self, file: Path) -> bytes:
        key = str(file)
        with self._lock:  # two first requests for one file: compressed once
            if key not in self._compressed:
                self._compressed[key] = gzip.compress(file.read_bytes(), GZIP_LEVEL, mtime=0)
            return self._compressed[key]

    def brotli_made(self, file: Path) -> bytes | None:
        """The file's Brotli bytes if they were made already."""
        return self._brotli.get(str(file))

    def brotli_later(self, file: Path) -> None:
        """Have the file's Brotli bytes made in the background thread (once)."""
        key = str(file)
        with self._lock:
            if key in self.making:
                return
            if self._maker is None:
                self._maker = ThreadPoolExecutor(1, thread_name_prefix="prb-brotli")
            self.making[key] = self._maker.submit(self._make_brotli, file)

    def _make_brotli(self, file: Path) -> None:
        self._brotli[str(file)] = brotli_bytes(file.read_bytes())


def brotli_bytes(content: bytes) -> bytes:
    """The content at Brotli's best level, from the disk cache when a server made it before
    (keyed by the content's hash: a server start or a second server on the machine does not
    pay the ~6 CPU s again); a cache that cannot be written is only a lost saving."""
    digest = hashlib.sha256(content).hexdigest()
    cached = cache_dir() / "brotli" / f"{digest}.q{BROTLI_QUALITY}.br"
    try:
        return cached.read_bytes()
    except OSError:
        pass
    made = brotli.compress(content, quality=BROTLI_QUALITY)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.{threading.get_ident()}")
        partial.write_bytes(made)
        partial.replace(cached)  # whole or absent, also with two servers writing at once
    except OSError:
        logging.getLogger(__name__).info("Brotli cache not written: %s", cached.parent)
    return made


class GzippedBundle:
    """ASGI middleware: a GET for one of Streamlit's bundle files, from a browser that accepts
    Brotli or gzip, is answered with the compressed file (Brotli's once made, else gzip's);
    everything else goes to `app`, its HTML answers with the `Link` header that preloads the
    rating page's late scripts."""

    def __init__(self, app: Any, static_dir: str | Path | None = None, base_url: str = "") -> None:
        if static_dir is None:
            from streamlit import config, file_util

            static_dir = file_util.get_static_dir()
            base_url = str(config.get_option("server.baseUrlPath") or "")
        self.app = app
        self.bundle = CompressedBundle(Path(static_dir))
        self.prefix = "/" + base_url.strip("/") if base_url.strip("/") else ""
        self.link = preload_links(Path(static_dir), self.prefix, rating_view() == "component")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        file, coding = self._bundle_file(scope)
        if file is None:
            preloading = self.link and scope["type"] == "http"  # (not each websocket message)
            await self.app(scope, receive, self._with_preloads(send) if preloading else send)
            return
        body = self.bundle.brotli_made(file) if coding == "br" else self.bundle.made(file)
        if body is None:  # (gzip's, not made yet: in a worker thread)
            body = await asyncio.to_thread(self.bundle.gzipped, file)
        media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if media_type.startswith("text/"):
            media_type += "; charset=utf-8"
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", media_type.encode()),
                    (b"content-encoding", coding.encode()),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", CACHE_CONTROL.encode()),
                    (b"vary", b"Accept-Encoding"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _with_preloads(self, send: Any) -> Any:
        """`send`, adding the `Link` header to an HTML answer."""
        link = (b"link", self.link.encode())

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start" and _is_html(message.get("headers", [])):
                message = {**message, "headers": [*message.get("headers", []), link]}
            await send(message)

        return sending

    def _bundle_file(self, scope: Any) -> tuple[Path | None, str]:
        """The bundle file a request asks for and the coding it gets: "br" if it takes Brotli
        and the file's Brotli bytes are made or will be (the request that asks first is
        answered gzipped, if it takes gzip), else "gzip"; (None, "") for anything else."""
        if scope["type"] != "http" or scope.get("method") != "GET":
            return None, ""
        headers = scope.get("headers", [])
        if any(name.lower() in PASSED_THROUGH for name, _ in headers):
            return None, ""
        codings = _accepted(headers)
        path: str = scope.get("path", "")
        if self.prefix:
            if not path.startswith(self.prefix + "/"):
                return None, ""
            path = path[len(self.prefix) :]
        file = self.bundle.file_for(path) if codings else None
        if file is None:
            return None, ""
        if "br" in codings:
            if self.bundle.brotli_made(file) is not None:
                return file, "br"
            self.bundle.brotli_later(file)
        return (file, "gzip") if "gzip" in codings else (None, "")


def gzip_the_bundle() -> None:
    """Make this process's Streamlit server (Starlette) send its bundle gzipped: our
    middleware joins the stack Streamlit builds for its app (innermost, so the security
    headers' middleware still wraps its answers)."""
    from starlette.middleware import Middleware
    from streamlit.web.server.starlette import starlette_app

    built = starlette_app.create_streamlit_middleware

    def with_gzip() -> list[Middleware]:
        return [*built(), Middleware(GzippedBundle)]

    starlette_app.create_streamlit_middleware = with_gzip
