"""Fixtures for the security tests: a production server on a world with secrets to keep.

`secure_world` is one `streamlit run` server for the whole session, started with the exact
production command (`annotate.cli.server.streamlit_command` + `server_environment`, nothing added),
on a SQLite file holding:

- the demo study: annotator A (`demo-annotator`), the admin (`demo-admin`), a researcher, and
  annotator B (`bob`) who has rated A's first three pairs with a comment and a flag, one of them a
  gold pair with a known preference; annotator C (`carol`), whom the log test has rate a pair;
- a `hostile` study whose one pair carries every kind of active content in every field, rated
  and flagged (with active content too) by an annotator whose name is active content as well.

Tests in Chromium (`new_page`) each get a fresh browser context.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from security_helpers import (
    BOB_COMMENT,
    BOB_FLAG,
    HOSTILE_ID,
    HOSTILE_NAME,
    all_hostile_record,
    payloads,
    write_jsonl,
)
from sqlalchemy.engine import Engine

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Pair
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.rating.quality import mark_gold
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, get_study
from annotate.services.admin.data import import_files
from annotate.services.admin.demo import set_up_demo
from annotate.services.participant.rating import submit_rating
from support.appserver import AppServer
from tests.helpers.apptest_helpers import SCORES, annotator_id, pair_of, queue_ids
from tests.helpers.browser_helpers import start_server


@dataclass
class SecureWorld:
    db: Path
    engine: Engine
    server: AppServer
    tokens: dict[str, str]
    # A's first pairs, the ones B rated: A's assignment ids and B's assignment ids for them.
    a_assignments: list[int] = field(default_factory=list)
    b_assignments: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    def link(self, who: str, path: str = "") -> str:
        return f"{self.url}/{path}?token={self.tokens[who]}"

    def log_text(self) -> str:
        return self.server.log_path.read_text(errors="replace")


def _add_annotator(engine: Engine, study_name: str, name: str, role: str = "annotator") -> str:
    with write_session(engine) as session:
        account, token = accounts.create_account(session, name, role=role)
        if role == "annotator":
            study = get_study(session, study_name)
            assign_pairs(session, study, account, study_pairs(session, study))
    return token


def _build(engine: Engine, folder: Path) -> tuple[dict[str, str], list[int], list[int]]:
    demo = set_up_demo(engine)
    tokens = {"A": demo.token, "admin": demo.admin_token}
    tokens["B"] = _add_annotator(engine, "demo", "bob")
    tokens["C"] = _add_annotator(engine, "demo", "carol")  # rates in the log test
    tokens["researcher"] = _add_annotator(engine, "demo", "rita", role="researcher")
    a_ids = queue_ids(engine, "demo-annotator")[:3]
    pairs = [pair_of(engine, a).id for a in a_ids]
    b_by_pair = {pair_of(engine, b).id: b for b in queue_ids(engine, "bob")}
    b_ids = [b_by_pair[p] for p in pairs]
    bob = annotator_id(engine, "bob")
    for b in b_ids:
        submit_rating(
            engine,
            annotator_id=bob,
            assignment_id=b,
            scores=SCORES,
            seconds=4.0,
            comment=f"{BOB_COMMENT} {b}",
            flag_reason=f"{BOB_FLAG} {b}",
        )
    with write_session(engine) as session:
        gold = session.get(Pair, pairs[0])
        assert gold is not None
        mark_gold(session, get_study(session, "demo"), [gold.record_id], "rejected")

    with write_session(engine) as session:
        get_or_create_study(session, "hostile", seed=3)
    path = write_jsonl(folder / "Society_and_Culture_test.jsonl", [all_hostile_record(HOSTILE_ID)])
    import_files(engine, SYSTEM, [path], study="hostile")
    tokens["hostile"] = _add_annotator(engine, "hostile", HOSTILE_NAME)
    (hostile_assignment,) = queue_ids(engine, HOSTILE_NAME)
    submit_rating(
        engine,
        annotator_id=annotator_id(engine, HOSTILE_NAME),
        assignment_id=hostile_assignment,
        scores=SCORES,
        seconds=4.0,
        comment=payloads("comment"),
        flag_reason=payloads("flag"),
    )
    with write_session(engine) as session:
        mark_gold(session, get_study(session, "hostile"), [HOSTILE_ID], "equal")
    return tokens, a_ids, b_ids


@pytest.fixture(scope="session")
def secure_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureWorld]:
    folder = tmp_path_factory.mktemp("security")
    db = folder / "secure.db"
    engine = make_engine(str(db))
    tokens, a_ids, b_ids = _build(engine, folder / "data")
    with read_session(engine) as session:  # the world is what the tests think it is
        assert get_study(session, "hostile").name == "hostile"
    server = start_server(db, folder / "server.log")
    try:
        yield SecureWorld(db, engine, server, tokens, a_ids, b_ids)
    finally:
        server.stop()
        engine.dispose()
