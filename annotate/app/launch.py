"""The app server's process: `python -m annotate.app.launch run main.py --flags...`.

Streamlit's own command line, after importing what every session's first page needs (SQLModel,
the tables, the queue and rating services: about a second) while the server starts, instead of
during the first visitor's page. The app's Streamlit modules are left to the first session (they
belong to a running app). Every response carries the security headers
(`annotate.app.security_headers`), Streamlit's scripts and styles are sent gzipped
(`annotate.app.static_compression`), a personal download answers only the browser that
asked for it (`annotate.app.private_downloads`), and the pair component's files are served from
the server's start (`register_component_files`: the page's preload header names them, so a
first visitor would otherwise get 404s and fetch them again once the component is drawn).
Without a good session secret it does not start (issue 32.1).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

WARM_MODULES = (
    "annotate.db",
    "annotate.domain.study.accounts",
    "annotate.domain.crowd.enrolment",
    "annotate.domain.rating.queue",
    "annotate.domain.rating.ratings",
    "annotate.services.participant.rating",
    "annotate.services.participant.work",
)


def main() -> None:
    from annotate.config import SessionSecretError, session_secret

    try:
        session_secret()
    except SessionSecretError as error:
        sys.exit(f"prb-annotate: the app server did not start: {error}")
    for name in WARM_MODULES:
        importlib.import_module(name)
    from annotate.app.private_downloads import protect_personal_downloads
    from annotate.app.security_headers import send_from_the_app
    from annotate.app.static_compression import gzip_the_bundle

    send_from_the_app()  # the headers come from the app itself, with or without the balancer
    gzip_the_bundle()  # (inside the headers' middleware: its answers carry them too)
    protect_personal_downloads()  # (innermost: its 404s carry the headers too)
    register_component_files()
    from streamlit.web.cli import main as streamlit_main

    streamlit_main(prog_name="streamlit")


def register_component_files() -> None:
    """Register the pair component's files with the runtime as soon as the server has started
    (Streamlit's `bootstrap._on_server_start` hook), not at the first session's draw."""
    from streamlit.web import bootstrap

    started = bootstrap._on_server_start

    def on_server_start(server: Any) -> None:
        started(server)
        from annotate.app.participant.pair_component import register

        register()

    bootstrap._on_server_start = on_server_start


if __name__ == "__main__":
    main()
