"""The crowd platform in the loop (issue 34.3): a study's Prolific submissions read, the
actions planned as a dry-run table, then sent once, against a local fake of Prolific's API."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, AuditEntry, PlatformAction
from annotate.domain.platforms import PlatformRefused
from annotate.domain.platforms.prolific import Prolific
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.platform import actions_csv, resolve_bonus, sync
from annotate.services.admin.studies import update_study
from annotate.services.participant.work import pull_for_annotator
from annotate.vocabulary import AssignmentStatus
from tests.helpers.platform_world import IDS, PER_EXTRA, TOKEN, prolific_world
from tests.security.participants_world import STUDY

BONUS = 2 * PER_EXTRA  # `full` rated two pairs beyond the three asked


def _table(result):
    return sorted((line.kind, line.participant_id) for line in result.to_send)


def _expected(world):
    return sorted(
        [
            ("release", world.pid("returner")),
            ("release", world.pid("late")),
            ("approve", world.pid("full")),
            ("approve", world.pid("three")),
            ("complete", world.pid("decliner")),
            ("request_return", world.pid("leaver")),
            ("bonus", "1 participant"),
        ]
    )


def _pending(engine, annotator_id):
    with read_session(engine) as session:
        rows = session.exec(
            select(Assignment).where(
                Assignment.annotator_id == annotator_id,
                Assignment.status == AssignmentStatus.PENDING,
            )
        ).all()
    return len(rows)


def test_the_dry_run_is_a_table_and_sends_nothing(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        result = sync(engine, SYSTEM, STUDY)
        assert _table(result) == _expected(world)
        assert not result.sent
        assert set(world.fake.calls) == {"list"}
        bonus = next(line for line in result.lines if line.kind == "bonus")
        assert bonus.amount == BONUS
        assert bonus.entries == ((world.pid("full"), BONUS),)
        assert _pending(engine, world.people["returner"]) == 1  # nothing released yet
    with read_session(engine) as session:
        assert session.exec(select(PlatformAction)).all() == []


def test_send_does_each_action_once_and_a_second_sync_sends_nothing(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        result = sync(engine, SYSTEM, STUDY, send=True)
        assert result.problems == []
        fake = world.fake
        assert fake.status(world.sub("full")) == "APPROVED"
        assert fake.status(world.sub("three")) == "APPROVED"
        assert fake.status(world.sub("decliner")) == "SCREENED OUT"
        assert fake.status(world.sub("leaver")) == "AWAITING REVIEW"
        assert fake.state.submissions[world.sub("leaver")]["return_requested"]
        assert fake.paid_total == BONUS == fake.paid_to(world.pid("full"))
        assert _pending(engine, world.people["returner"]) == 0
        assert _pending(engine, world.people["late"]) == 0
        for who in ("returner", "late"):  # the pool gives them nothing more
            assert pull_for_annotator(engine, world.people[who]) is None
        calls = dict(fake.calls)
        again = sync(engine, SYSTEM, STUDY, send=True)
        assert again.to_send == []
        assert dict(fake.calls) == calls | {"list": calls["list"] + 1}
        assert fake.paid_total == BONUS


def test_a_5xx_in_the_middle_of_the_bonus_is_retried_without_paying_twice(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        fake = world.fake
        client = Prolific(fake.url, TOKEN, sleep=lambda _: None)
        # the bulk bonus's set-up fails five times (every retry), then its payment goes
        # through on Prolific but the answer is lost (a 502 after the work)
        fake.fail_next("create_bonus", 5, status=502)
        first = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert fake.paid_total == 0
        assert first.problems
        assert fake.status(world.sub("full")) == "APPROVED"
        fake.fail_next("pay_bonus", 1, status=502, after_processing=True)
        second = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert fake.paid_total == BONUS
        assert fake.calls["pay_bonus"] == 1
        assert any("sent once" in p for p in second.problems)
        assert fake.calls["transition"] == 3  # two approvals and a screen-out, each once
        third = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert fake.calls["pay_bonus"] == 1
        assert fake.paid_total == BONUS
        (line,) = third.to_send
        assert (line.kind, line.state) == ("bonus", "unknown")
        resolve_bonus(engine, SYSTEM, STUDY, line.action_id, paid=True)
        assert sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client).to_send == []
        assert fake.paid_total == BONUS


def test_a_payment_refused_before_it_was_made_is_paid_on_the_next_sync(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        fake = world.fake
        client = Prolific(fake.url, TOKEN, sleep=lambda _: None)
        fake.fail_next("pay_bonus", 1, status=503)  # refused: not carried out
        sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert fake.paid_total == 0
        (line,) = sync(engine, SYSTEM, STUDY, platform=lambda _: client).to_send
        resolve_bonus(engine, SYSTEM, STUDY, line.action_id, paid=False)
        sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert fake.paid_total == BONUS
        assert fake.calls["create_bonus"] == 1


def test_429_waits_for_retry_after_and_sends_again(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        waits: list[float] = []
        client = Prolific(world.fake.url, TOKEN, sleep=waits.append)
        world.fake.fail_next("transition", 2, status=429, retry_after="3")
        result = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert result.problems == []
        assert waits[:2] == [3.0, 3.0]
        assert world.fake.status(world.sub("full")) == "APPROVED"


def test_a_server_error_on_an_approval_is_retried_with_backoff_a_bounded_number_of_times(
    engine, monkeypatch
):
    with prolific_world(engine, monkeypatch) as world:
        waits: list[float] = []
        client = Prolific(world.fake.url, TOKEN, sleep=waits.append)
        world.fake.fail_next("transition", 20, status=500)
        result = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert waits[:4] == [0.5, 1.0, 2.0, 4.0]
        assert len(result.problems) == 3  # two approvals and a screen-out, each tried 5 times
        assert world.fake.status(world.sub("full")) == "AWAITING REVIEW"
        world.fake.state.faults.clear()
        retried = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert retried.problems == []
        assert world.fake.status(world.sub("full")) == "APPROVED"


def test_the_token_is_in_no_log_message_or_audit_entry(engine, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    with prolific_world(engine, monkeypatch) as world:
        client = Prolific(world.fake.url, TOKEN, sleep=lambda _: None)
        world.fake.fail_next("transition", 6, status=500)
        world.fake.fail_next("list", 1, status=429, retry_after="0")
        result = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: client)
        assert world.fake.state.seen_tokens[0] == f"Token {TOKEN}"
        assert TOKEN not in repr(client)
        with pytest.raises(PlatformRefused, match="401") as refused:
            Prolific(world.fake.url, "wrong-" + TOKEN).submissions("x")
        assert TOKEN not in str(refused.value)
    assert caplog.records
    assert TOKEN not in caplog.text
    assert all(TOKEN not in p for p in result.problems)
    with read_session(engine) as session:
        audit = [repr((e.action, e.before, e.after)) for e in session.exec(select(AuditEntry))]
        ledger = [repr(r) for r in session.exec(select(PlatformAction))]
    assert any("platform." in line for line in audit)
    assert not any(TOKEN in line for line in audit + ledger)
    for pid, sub, _ in IDS.values():  # platform ids stay out of the audit log
        assert not any(pid in line or sub in line for line in audit)


def test_without_a_token_the_sync_says_how_to_give_one(engine, monkeypatch, tmp_path):
    with prolific_world(engine, monkeypatch):
        monkeypatch.delenv("PRB_PROLIFIC_TOKEN")
        with pytest.raises(Exception, match="PRB_PROLIFIC_TOKEN_FILE"):
            sync(engine, SYSTEM, STUDY)
        loose = tmp_path / "token"
        loose.write_text(TOKEN)
        loose.chmod(0o644)
        monkeypatch.setenv("PRB_PROLIFIC_TOKEN_FILE", str(loose))
        with pytest.raises(Exception, match="owner only") as refused:
            sync(engine, SYSTEM, STUDY)
        assert TOKEN not in str(refused.value)
        loose.chmod(0o600)
        assert sync(engine, SYSTEM, STUDY).to_send


def test_a_completion_url_platform_gives_the_same_table_as_csv(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        on_prolific = sync(engine, SYSTEM, STUDY)
        update_study(engine, SYSTEM, STUDY, platform="completion_url")
        by_hand = sync(engine, SYSTEM, STUDY)
        assert not by_hand.sends
        decisions = {(line.kind, line.participant_id) for line in on_prolific.to_send}
        decisions -= {(k, p) for k, p in decisions if k == "release"}
        assert decisions <= {(line.kind, line.participant_id) for line in by_hand.to_send}
        text = actions_csv(by_hand)
        assert text.splitlines()[0].startswith("action_id,action,participant_id")
        assert f"bonus,{world.pid('full')},,0.40,GBP" in text.replace('"', "")
        with pytest.raises(Exception, match="no API"):
            sync(engine, SYSTEM, STUDY, send=True)


def test_an_uploaded_bonus_csv_is_paid_once(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        lines = f"participant_id,amount\n{world.pid('three')},1.25\n"
        sync(engine, SYSTEM, STUDY, send=True, bonus_csv=lines)
        sync(engine, SYSTEM, STUDY, send=True, bonus_csv=lines)
        assert world.fake.paid_to(world.pid("three")) == 125
        with pytest.raises(Exception, match="line 2: not a participant"):
            sync(engine, SYSTEM, STUDY, bonus_csv="participant_id,amount\nnobody,1.00\n")


def test_erasing_a_participant_takes_their_platform_ids_out_of_the_ledger(engine, monkeypatch):
    from annotate.services.admin.erasure import erase_person

    with prolific_world(engine, monkeypatch) as world:
        world.fake.fail_next("create_bonus", 5, status=500)
        sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: _quick(world))
        erase_person(engine, SYSTEM, f"prolific:{world.pid('full')}", STUDY)
        with read_session(engine) as session:
            ledger = [repr(r) for r in session.exec(select(PlatformAction))]
        assert ledger
        assert not any(world.pid("full") in r or world.sub("full") in r for r in ledger)
        assert any(world.pid("three") in r for r in ledger)
        after = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: _quick(world))
        assert world.fake.paid_total == 0  # the bonus held only them: never paid now
        assert all(line.kind != "bonus" for line in after.lines)


def _quick(world):
    return Prolific(world.fake.url, TOKEN, sleep=lambda _: None)


def test_a_sync_that_stopped_while_paying_never_pays_again(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: _quick(world))
        assert world.fake.paid_total == BONUS
        with write_session(engine) as session:  # as if the process died during the payment
            row = session.exec(select(PlatformAction).where(PlatformAction.kind == "bonus")).one()
            row.state, row.updated_at = "paying", row.updated_at - timedelta(minutes=11)
            session.add(row)
        again = sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: _quick(world))
        assert world.fake.paid_total == BONUS
        assert world.fake.calls["pay_bonus"] == 1
        assert [(line.kind, line.state) for line in again.to_send] == [("bonus", "unknown")]


def test_two_syncs_at_once_set_up_and_pay_a_bonus_once(engine, monkeypatch):
    with prolific_world(engine, monkeypatch) as world:
        fake, second = world.fake, []

        def send():
            return sync(engine, SYSTEM, STUDY, send=True, platform=lambda _: _quick(world))

        def race() -> None:  # a second admin sends while the first waits for Prolific
            second.append(send())

        fake.state.hooks["create_bonus"] = race
        fake.fail_next("pay_bonus", 1, status=503)  # refused: set up, not paid
        send()
        assert fake.calls["create_bonus"] == 1
        assert fake.paid_total == 0
        (line,) = sync(engine, SYSTEM, STUDY).to_send
        resolve_bonus(engine, SYSTEM, STUDY, line.action_id, paid=False)
        fake.state.hooks["pay_bonus"] = race
        send()
        assert fake.calls["create_bonus"] == 1
        assert fake.calls["pay_bonus"] == 2  # the refused one, then the one that paid
        assert fake.paid_total == BONUS
        taken = [p for r in second for p in r.problems if "another sync is sending it" in p]
        assert len(taken) == 2
