"""Erasing an account keeps the audit log honest (issue 32, deliverable 2; point 5 of the
attack pass, where erasing `on` rewrote 18 of 31 entries and erasing `adm` turned
`"role": "admin"` into `"role": "[erased]in"`).

The account's name (and platform id) is replaced only where a whole value equals it (the `who`
column, or a string of the JSON columns), by one alias of that account, the same in every entry;
every other entry stays byte for byte what it was (read as the database's own text). Runs on
SQLite and on PostgreSQL (`PRB_TEST_DATABASE_URL`).
"""

from __future__ import annotations

import json

from sqlalchemy import text
from sqlmodel import select

from annotate.db import write_session
from annotate.db.tables import Assignment
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts, audit
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin.erasure import erase_person, set_retention
from annotate.services.admin.people import create_accounts, set_accounts_active
from tests.helpers.admin_helpers import make_study, rate

RAW = text(
    "SELECT id, who, CAST(before AS TEXT) AS b, CAST(after AS TEXT) AS a FROM auditentry "
    "ORDER BY id"
)


def _raw(engine) -> dict[int, tuple[str, str, str]]:
    """Every audit entry as the database holds it: (who, before, after) as its own text."""
    with engine.connect() as connection:
        return {r.id: (r.who, r.b, r.a) for r in connection.execute(RAW)}


def _rates(engine, name: str) -> int:
    """`name` gets the study's pairs and rates one; returns the account's id."""
    with write_session(engine) as session:
        account = accounts.get_account(session, name)
        study = get_study(session, "s")
        assign_pairs(session, study, account, study_pairs(session, study))
        account_id = int(account.id)  # type: ignore[arg-type]
    with write_session(engine) as session:
        held = session.exec(select(Assignment.id).where(Assignment.annotator_id == account_id))
        first = held.first()
    assert first is not None
    rate(engine, account_id, first)
    return account_id


def _history(engine) -> dict[str, int]:
    """Audit entries naming `on` and `adm` as whole values and many holding them as parts of
    other values (`retention_days`, `dimension_labels`, `RT_test.jsonl`, `admin`); returns the
    ids of the entries that name them, by what they hold."""
    make_study(engine, "s", pairs=4)
    create_accounts(engine, SYSTEM, ["on"])
    create_accounts(engine, SYSTEM, ["adm", "boss"], role="admin")
    adm = _rates(engine, "adm")
    _rates(engine, "on")
    set_accounts_active(engine, adm, ["on"], True)  # who = adm, after names on
    set_retention(engine, SYSTEM, "s", 30)
    with write_session(engine) as session:
        study = get_study(session, "s")
        audit.record(
            session,
            None,
            study,
            "data.import",
            {"file": "RT_test.jsonl", "labels": "dimension_labels"},
            {"note": "on and adm", "role": "admin", "nested": {"who": ["one", "adm2", "on "]}},
        )
        audit.record(session, None, study, "study.update", {"done": "on"}, {"by": {"x": ["adm"]}})
    ids = sorted(_raw(engine))
    return {"create_on": ids[0], "create_adm": ids[1], "by_adm": ids[2], "nested": ids[-1]}


def test_erasing_on_and_adm_rewrites_only_whole_values_by_one_alias_each(engine):
    named = _history(engine)
    before = _raw(engine)
    assert len(before) >= 6
    erase_person(engine, SYSTEM, "on", "s")
    erase_person(engine, SYSTEM, "adm", "s")
    after = _raw(engine)
    changed = {i for i in before if after[i] != before[i]}
    assert changed == set(named.values())
    for i in set(before) - changed:  # every other entry, byte for byte
        assert after[i] == before[i]
    create_on = json.loads(after[named["create_on"]][2])
    (on_alias,) = create_on["accounts"]
    create_adm = json.loads(after[named["create_adm"]][2])
    adm_alias, boss = create_adm["accounts"]
    assert boss == "boss"
    assert create_adm["role"] == "admin"
    assert on_alias.startswith(audit.ERASED_PREFIX)
    assert adm_alias.startswith(audit.ERASED_PREFIX)
    assert on_alias != adm_alias
    who, _, by_adm = after[named["by_adm"]]
    assert who == adm_alias  # the same alias of adm in every entry
    assert json.loads(by_adm)["accounts"] == [on_alias]
    _, nested_before, nested_after = after[named["nested"]]
    assert json.loads(nested_before) == {"done": on_alias}
    assert json.loads(nested_after) == {"by": {"x": [adm_alias]}}
    new = [after[i] for i in set(after) - set(before)]  # the two erasures' own entries
    assert all("on" not in json.loads(a).values() for _, _, a in new)
