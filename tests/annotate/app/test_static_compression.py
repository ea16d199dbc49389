"""The app server sends Streamlit's bundle gzipped (`annotate.app.static_compression`): the ASGI
middleware on its own, against a fake static folder and a fake Streamlit behind it."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path
from typing import Any

import brotli
import pytest
import streamlit

from annotate.app.participant.pair_component import PRELOADS
from annotate.app.static_compression import (
    BROTLI_QUALITY,
    CACHE_CONTROL,
    COMPONENT_CHUNKS,
    HASHED_NAME,
    RATING_PAGE_CHUNKS,
    GzippedBundle,
    brotli_bytes,
    rating_page_preloads,
)
from annotate.config import CACHE_DIR_ENV, RATING_VIEW_ENV

SCRIPT = b"export const answer = 42;\n" * 400


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own Brotli cache (the servers of the other tests share the machine's)."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def static_dir(tmp_path: Path) -> Path:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "css").mkdir()
    (tmp_path / "static" / "media").mkdir()
    (tmp_path / "static" / "js" / "index.AbCd1234.js").write_bytes(SCRIPT)
    (tmp_path / "static" / "js" / "Radio.Xy_9-abc.js").write_bytes(SCRIPT)  # a late script
    (tmp_path / "static" / "css" / "index.AbCd1234.css").write_bytes(b"a{color:red}" * 100)
    (tmp_path / "static" / "media" / "font.woff2").write_bytes(b"wOF2" * 100)
    (tmp_path / "secret.js").write_bytes(b"not part of the bundle")
    return tmp_path


def _call(
    middleware: GzippedBundle, path: str, headers: dict[str, str], method: str = "GET"
) -> dict[str, Any]:
    """One request: the answer's status, headers and body."""
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))
    start, *bodies = sent
    return {
        "status": start["status"],
        "headers": {k.decode(): v.decode() for k, v in start["headers"]},
        "body": b"".join(b.get("body", b"") for b in bodies),
    }


async def _streamlit(scope: Any, receive: Any, send: Any) -> None:
    """Streamlit's static files, as far as these tests need: the raw answer."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"x-from", b"app")]})
    await send({"type": "http.response.body", "body": b"raw"})


async def _streamlit_page(scope: Any, receive: Any, send: Any) -> None:
    """Streamlit's index.html."""
    headers = [(b"content-type", b"text/html; charset=UTF-8")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"<!doctype html>"})


GZIP = {"Accept-Encoding": "gzip, deflate, br, zstd"}


@pytest.mark.parametrize("path", ["/static/js/index.AbCd1234.js", "/static/css/index.AbCd1234.css"])
def test_a_bundle_file_is_sent_gzipped_and_cacheable_for_a_year(static_dir, path):
    answer = _call(GzippedBundle(_streamlit, static_dir), path, GZIP)
    assert answer["status"] == 200
    headers = answer["headers"]
    assert headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == CACHE_CONTROL
    assert headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(answer["body"])
    original = (static_dir / path.lstrip("/")).read_bytes()
    assert gzip.decompress(answer["body"]) == original
    assert len(answer["body"]) < len(original) / 4
    assert headers["content-type"].split(";")[0] in {
        "text/javascript",
        "application/javascript",
        "text/css",
    }


def test_the_same_file_is_compressed_once(static_dir, monkeypatch):
    calls: list[int] = []
    real = gzip.compress

    def counting(data: bytes, *args: Any, **kwargs: Any) -> bytes:
        calls.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(gzip, "compress", counting)
    middleware = GzippedBundle(_streamlit, static_dir)
    only_gzip = {"Accept-Encoding": "gzip"}  # (with br, the second could be Brotli's, made)
    first = _call(middleware, "/static/js/index.AbCd1234.js", only_gzip)
    second = _call(middleware, "/static/js/index.AbCd1234.js", only_gzip)
    assert first["body"] == second["body"]
    assert calls == [len(SCRIPT)]


def test_a_browser_taking_brotli_gets_gzip_until_the_brotli_bytes_are_made_then_brotli(
    static_dir,
):
    """Brotli's best level is too slow for a request to wait on (2 s for Streamlit's largest
    file): the first request is answered gzipped while the file's Brotli bytes are made in the
    background; once made, every request gets them (decoding to the file itself)."""
    middleware = GzippedBundle(_streamlit, static_dir)
    path = "/static/js/index.AbCd1234.js"
    first = _call(middleware, path, GZIP)
    assert first["headers"]["content-encoding"] == "gzip"
    (making,) = middleware.bundle.making.values()
    making.result(timeout=60)
    again = _call(middleware, path, GZIP)
    assert again["headers"]["content-encoding"] == "br"
    assert again["headers"]["vary"] == "Accept-Encoding"
    assert again["headers"]["cache-control"] == CACHE_CONTROL
    assert int(again["headers"]["content-length"]) == len(again["body"])
    assert brotli.decompress(again["body"]) == SCRIPT
    assert again["body"] == brotli.compress(SCRIPT, quality=BROTLI_QUALITY)
    assert len(middleware.bundle.making) == 1  # made once
    only_gzip = _call(middleware, path, {"Accept-Encoding": "gzip"})
    assert only_gzip["headers"]["content-encoding"] == "gzip"
    refused = _call(middleware, path, {"Accept-Encoding": "br;q=0, gzip"})
    assert refused["headers"]["content-encoding"] == "gzip"
    only_br = _call(middleware, path, {"Accept-Encoding": "br"})
    assert only_br["headers"]["content-encoding"] == "br"


def test_brotli_bytes_are_made_once_per_machine_and_kept_whole(own_cache, monkeypatch):
    """A second server (a new process: no bytes in memory) reads what the first made from the
    disk cache instead of spending Brotli's best level again; a cache that cannot be written
    only loses the saving."""
    made = brotli_bytes(SCRIPT)
    assert brotli.decompress(made) == SCRIPT
    (cached,) = (own_cache / "brotli").iterdir()  # no partial file left beside it
    assert cached.read_bytes() == made

    def no_compressing(*args: Any, **kwargs: Any) -> bytes:
        raise AssertionError("compressed again")

    monkeypatch.setattr(brotli, "compress", no_compressing)
    assert brotli_bytes(SCRIPT) == made
    monkeypatch.undo()
    blocked = own_cache / "a file, not a folder"
    blocked.write_bytes(b"")
    monkeypatch.setenv(CACHE_DIR_ENV, str(blocked))
    assert brotli.decompress(brotli_bytes(SCRIPT + b"//")) == SCRIPT + b"//"


@pytest.mark.parametrize(
    ("path", "headers", "method"),
    [
        ("/static/js/index.AbCd1234.js", {}, "GET"),  # no Accept-Encoding
        ("/static/js/index.AbCd1234.js", {"Accept-Encoding": "br"}, "GET"),
        ("/static/js/index.AbCd1234.js", {"Accept-Encoding": "gzip;q=0, br"}, "GET"),
        ("/static/js/index.AbCd1234.js", {**GZIP, "Range": "bytes=0-10"}, "GET"),
        ("/static/js/index.AbCd1234.js", {**GZIP, "If-None-Match": '"x"'}, "GET"),
        ("/static/js/index.AbCd1234.js", GZIP, "HEAD"),
        ("/static/js/missing.AbCd1234.js", GZIP, "GET"),  # Streamlit's own answer (index.html)
        ("/static/media/font.woff2", GZIP, "GET"),  # compressed already
        ("/static/js/../../secret.js", GZIP, "GET"),
        ("/static/js/..%2F..%2Fsecret.js", GZIP, "GET"),
        ("/secret.js", GZIP, "GET"),
        ("/", GZIP, "GET"),
    ],
)
def test_everything_else_goes_to_streamlit_unchanged(static_dir, path, headers, method):
    answer = _call(GzippedBundle(_streamlit, static_dir), path, headers, method)
    assert answer["headers"] == {"x-from": "app"}
    assert answer["body"] == b"raw"


def test_under_a_base_url_only_its_own_paths_are_served(static_dir):
    middleware = GzippedBundle(_streamlit, static_dir, base_url="/study/")
    served = _call(middleware, "/study/static/js/index.AbCd1234.js", GZIP)
    assert served["headers"]["content-encoding"] == "gzip"
    assert _call(middleware, "/static/js/index.AbCd1234.js", GZIP)["body"] == b"raw"


def test_the_installed_streamlit_bundle_is_found():
    """The path this module expects is where the installed Streamlit keeps its scripts."""
    static = Path(streamlit.__file__).parent / "static"
    middleware = GzippedBundle(_streamlit, static)
    index = next((static / "static" / "js").glob("index.*.js"))
    answer = _call(middleware, f"/static/js/{index.name}", GZIP)
    assert answer["headers"]["content-encoding"] == "gzip"
    assert gzip.decompress(answer["body"]) == index.read_bytes()


@pytest.mark.parametrize("base_url", ["", "/study/"])
def test_an_html_page_names_the_rating_page_late_scripts_for_preloading(
    static_dir, base_url, monkeypatch
):
    # the fallback view's header, exactly (the default view's: the test below)
    monkeypatch.setenv(RATING_VIEW_ENV, "streamlit")
    middleware = GzippedBundle(_streamlit_page, static_dir, base_url=base_url)
    answer = _call(middleware, base_url or "/", {})
    prefix = base_url.rstrip("/")
    assert answer["headers"]["link"] == f"<{prefix}/static/js/Radio.Xy_9-abc.js>; rel=modulepreload"
    assert answer["body"] == b"<!doctype html>"
    other = _call(GzippedBundle(_streamlit, static_dir, base_url=base_url), "/_stcore/health", {})
    assert "link" not in other["headers"]  # not an HTML page


def test_every_late_script_is_in_the_installed_streamlit():
    """A Streamlit upgrade that renames a widget's script shows here (its preload would be lost)."""
    found = {
        HASHED_NAME.fullmatch(Path(path).name)["stem"]  # type: ignore[index]
        for path in rating_page_preloads()
    }
    assert set(RATING_PAGE_CHUNKS) <= found
    with_component = {
        HASHED_NAME.fullmatch(Path(path).name)["stem"]  # type: ignore[index]
        for path in rating_page_preloads(component=True)
    }
    assert set(COMPONENT_CHUNKS) <= with_component
    assert "BidiComponent" not in found  # (the Streamlit view never mounts a component)


def test_with_the_pair_component_a_page_also_preloads_its_files(static_dir, monkeypatch):
    """Issue 36: the chunk that mounts the component and the component's own files come with
    the page, not after the pair's element (the Streamlit view names none of them)."""
    (static_dir / "static" / "js" / "BidiComponent.Qw_9-abc.js").write_bytes(SCRIPT)
    monkeypatch.setenv(RATING_VIEW_ENV, "component")
    link = _call(GzippedBundle(_streamlit_page, static_dir), "/", {})["headers"]["link"]
    assert "</static/js/BidiComponent.Qw_9-abc.js>; rel=modulepreload" in link
    for path, kind in PRELOADS:
        assert f"</_stcore/bidi-components/{path}>; {kind}" in link
    assert "pair.css>; rel=preload; as=style" in link
    monkeypatch.setenv(RATING_VIEW_ENV, "streamlit")
    link = _call(GzippedBundle(_streamlit_page, static_dir), "/", {})["headers"]["link"]
    assert "BidiComponent" not in link
    assert "bidi-components" not in link


def test_a_websocket_gets_the_server_s_own_send(static_dir):
    """The preload header is for HTML answers: a websocket's messages are not wrapped."""
    given: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        given.append(send)

    async def send(message: Any) -> None:
        raise AssertionError("not called")

    middleware = GzippedBundle(app, static_dir)
    asyncio.run(middleware({"type": "websocket", "path": "/_stcore/stream"}, None, send))
    assert given == [send]
