"""The pilot's checks: the settings the admin saved, the database rows and every download
compared value by value with the ledger of what the participants entered (`pilot_script`).

Each file is read on its own terms (the CSV as text, the JSONL line by line, Parquet with
pandas) and every row is turned into the same plain tuple; the rows expected are built from
the ledger alone, the chosen response placed on the side the test saw it on. A row lost, one
too many (counted twice) or a value on another pair, person or response fails the check.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from sqlmodel import col, select

from annotate.db import read_session
from annotate.db.tables import (
    Annotator,
    Assignment,
    FlagResolution,
    Pair,
    Participation,
    Training,
)
from annotate.domain.exports.pseudonyms import pseudonym, secret_key
from annotate.domain.exports.spreadsheet import inert_cell
from annotate.domain.rating.aspects import MARKS
from annotate.domain.rating.ratings import SCORES
from annotate.domain.rating.revisions import AnswerTable
from annotate.domain.study.studies import get_study
from annotate.vocabulary import DIMENSIONS, SIDES
from tests.helpers.pilot_script import (
    ADJUDICATION_THRESHOLD,
    COMPLETION_CODE,
    CONSENT,
    EXPERT,
    FINISH_MINIMUM,
    FLAG_NOTE,
    MAX_STRAIGHTLINING,
    OVERLAP,
    PEOPLE,
    QUESTION,
    QUOTA,
    SCREENOUT_CODE,
    SEED,
    STUDY,
    SURVEY,
    Given,
    Person,
    domain_of,
    records,
)
from tests.helpers.rating_entry import PairEntry

RUBRIC = "rubric_alignment"
FREE_TEXT = ("comment", "flag_reason", "flag_note", "skip_reason", "survey_field")
"""The export's free-text columns the card leaves out unless disclosed (the rationale is)."""
RATING_FIELDS = (
    "study", "pair_id", "domain", "annotator", "response", "side", "dimension", "score",
    "preference", "preference_side", "rationale", "preference_history", "survey_age",
    "survey_field", "purpose", "status", "revision", "revision_history", "comment", "flagged",
    "flag_reason", "flag_resolution", "flag_note", "skip_reason", "queue_position",
    "pair_excluded", "exclusion_reason", "annotator_excluded",
)  # fmt: skip
ASPECT_FIELDS = (
    "study", "pair_id", "domain", "annotator", "response", "side", "aspect_index", "aspect",
    "coverage", "purpose",
)  # fmt: skip
NUMBERS = {"score", "preference", "preference_side", "revision", "queue_position"}
NUMBERS |= {"aspect_index", "coverage", "pairs_done", "position"}
FLAGS = {"flagged", "pair_excluded", "excluded"}


# ---------------------------------------------------------------- who is who


def people() -> dict[str, Person]:
    return {p.name: p for p in PEOPLE}


def account_names() -> dict[str, str]:
    """The account each name of the ledger stands for (a crowd account by its platform id)."""
    return {p.name: f"prolific:{p.pid}" for p in PEOPLE} | {EXPERT: EXPERT}


def pseudonyms(engine: Any) -> dict[str, str]:
    """The ledger's names -> the pseudonyms the exports must use, from the database's key."""
    with read_session(engine) as session:
        study_id = get_study(session, STUDY).id
        key = secret_key(session)
        found = {}
        for name, account in account_names().items():
            row = session.exec(select(Annotator).where(Annotator.name == account)).one()
            assert row.id is not None
            assert study_id is not None
            found[name] = pseudonym(key, study_id, row.id)
    return found


def rated(ledger: list[Given], *, purpose: str = "rating") -> list[Given]:
    return [g for g in ledger if g.status == "done" and g.purpose == purpose]


def rubric_diff(given: Given) -> int:
    return given.scores[("chosen", RUBRIC)] - given.scores[("rejected", RUBRIC)]


def disputed_pairs(ledger: list[Given]) -> set[str]:
    """The pairs whose raters' rubric differences (chosen - rejected) spread to the threshold."""
    diffs: dict[str, list[int]] = defaultdict(list)
    for given in rated(ledger):
        diffs[given.record_id].append(rubric_diff(given))
    return {
        pair
        for pair, found in diffs.items()
        if len(found) > 1 and max(found) - min(found) >= ADJUDICATION_THRESHOLD
    }


def straightlined_share(ledger: list[Given], person: str) -> float:
    mine = [g for g in rated(ledger) if g.person == person]
    flat = [g for g in mine if len(set(g.scores.values())) == 1]
    return len(flat) / len(mine)


def excluded_by_rule(ledger: list[Given]) -> dict[str, str]:
    """The people the pre-registered rule excludes, with the export's words for why."""
    shares = {p.name: straightlined_share(ledger, p.name) for p in PEOPLE}
    return {
        name: f"max_straightlining_share: {share:.1%} > {MAX_STRAIGHTLINING:.1%}"
        for name, share in shares.items()
        if share > MAX_STRAIGHTLINING
    }


# ---------------------------------------------------------------- the settings


def check_settings(engine: Any, url: str) -> None:
    """What the Studies page saved is what the admin typed."""
    with read_session(engine) as session:
        study = get_study(session, STUDY)
        pairs = session.exec(select(Pair).where(Pair.study_id == study.id)).all()
    assert sorted((p.record_id, p.domain, p.chosen) for p in pairs) == sorted(
        (r["id"], domain_of(r["id"]), r["chosen"]) for r in records()
    )
    assert (study.seed, study.consent_text, study.survey_questions) == (SEED, CONSENT, SURVEY)
    assert (study.completion_code, study.screenout_code) == (COMPLETION_CODE, SCREENOUT_CODE)
    assert study.completion_url == f"{url}/?returned={{code}}"
    assert (study.overlap, study.pool_quota, study.finish_minimum) == (
        OVERLAP,
        QUOTA,
        FINISH_MINIMUM,
    )
    assert (study.pool_open, study.enrolment_open, study.pool_order) == (True, True, "depth")
    assert (study.ask_preference, study.rationale, study.aspect_checklist) == (
        True,
        "optional",
        True,
    )
    assert [p["id"] for p in study.practice_pairs] == ["basil"]
    assert study.comprehension_questions[0]["correct"] == QUESTION["correct"]
    assert study.comprehension_attempts == 2
    assert study.exclusion_rules == {"max_straightlining_share": MAX_STRAIGHTLINING}


# ---------------------------------------------------------------- the database


def check_database(engine: Any, ledger: list[Given], practice: Mapping[str, PairEntry]) -> None:
    """Every assignment, score, mark, preference and text in the database is the ledger's."""
    ids = _account_ids(engine)
    with read_session(engine) as session:
        study = get_study(session, STUDY)
        assignments = session.exec(select(Assignment).where(Assignment.study_id == study.id)).all()
        pairs = {p.id: p.record_id for p in session.exec(select(Pair))}
        by_id = {a.id: a for a in assignments}
        assert sorted(by_id) == sorted(g.assignment_id for g in ledger), "assignments"
        for given in ledger:
            _check_assignment(by_id[given.assignment_id], given, ids, pairs)
            _check_answers(session, given, SCORES, given.scores, given.score_history)
            _check_answers(session, given, MARKS, given.marks, given.mark_history)
        resolutions = session.exec(select(FlagResolution)).all()
        flagged = {g.assignment_id: g for g in ledger if g.flag_resolution}
        assert sorted((r.assignment_id, r.action, r.note) for r in resolutions) == sorted(
            (a, g.flag_resolution, g.flag_note) for a, g in flagged.items()
        )
        for person in PEOPLE:
            _check_participant(session, study.id, ids[person.name], person, practice)


def _account_ids(engine: Any) -> dict[str, int]:
    with read_session(engine) as session:
        rows = session.exec(select(Annotator.name, Annotator.id)).all()
    by_account = {name: int(i) for name, i in rows if i is not None}
    return {name: by_account[account] for name, account in account_names().items()}


def _check_assignment(row: Assignment, given: Given, ids: dict[str, int], pairs: dict) -> None:
    where = f"{given.person}'s pair {given.number} (#{given.assignment_id})"
    preference = None if given.preference is None else given.side_preference(given.preference)
    history = [
        {"side_preference": given.side_preference(p), "rationale": r or None}
        for p, r in given.preference_history
    ]
    assert (
        row.annotator_id,
        pairs[row.pair_id],
        row.position,
        row.chosen_side,
        row.status,
        row.purpose,
        row.side_preference,
        row.rationale or "",
        [{k: e[k] for k in ("side_preference", "rationale")} for e in row.preference_history],
        row.comment or "",
        row.flagged,
        row.flag_reason or "",
        row.skip_reason or "",
    ) == (
        ids[given.person],
        given.record_id,
        given.number - 1,
        given.chosen_side,
        given.status,
        given.purpose,
        preference if given.status == "done" else None,
        given.rationale,
        history,
        given.comment,
        bool(given.flag_reason),
        given.flag_reason,
        given.skip_reason,
    ), where


def _check_answers(
    session: Any,
    given: Given,
    table: AnswerTable,
    entered: Mapping[Any, int],
    history: Mapping[Any, list[int]],
) -> None:
    """The pair's stored answers of one kind (scores or aspect marks): each entered value with
    its revision number, and its earlier values in order in the revision table."""
    rows = session.exec(
        select(table.row).where(table.row.assignment_id == given.assignment_id)
    ).all()

    def key(row: Any) -> tuple[Any, ...]:
        return tuple(getattr(row, field) for field in table.key)

    found = {key(r): (getattr(r, table.compared), r.revision) for r in rows}
    expected = {k: (v, 1 + len(history.get(k, []))) for k, v in entered.items()}
    assert found == (expected if given.status == "done" else {}), given
    link = getattr(table.revision, table.revision_of)
    for row in rows:
        earlier = session.exec(
            select(table.revision).where(link == row.id).order_by(col(table.revision.revision))
        ).all()
        values = [getattr(r, table.compared) for r in earlier]
        assert values == history.get(key(row), []), (given, key(row))


def _check_participant(
    session: Any, study_id: int, annotator_id: int, person: Person, practice: Mapping
) -> None:
    took_part = session.exec(
        select(Participation).where(
            Participation.annotator_id == annotator_id, Participation.study_id == study_id
        )
    ).one()
    assert took_part.consent == "accepted"
    assert took_part.survey == {"age": person.age, "field": person.field_of_work}
    assert took_part.finished_at is not None
    assert took_part.withdrawn_at is None
    trained = session.exec(select(Training).where(Training.annotator_id == annotator_id)).one()
    assert trained.status == "passed"
    answered = trained.practice["basil"]
    entry = practice[person.name]
    assert answered["scores"] == {
        side: {dim: entry.scores[(side, dim)] for dim in DIMENSIONS} for side in SIDES
    }
    assert answered["aspects"] == {side: [entry.marks[(side, 0)]] for side in SIDES}
    assert entry.preference is not None
    assert (answered["preference"], answered["rationale"]) == (
        entry.preference - 3,
        entry.rationale,
    )
    options = QUESTION["options"]
    tried = [attempt["answers"]["sides"] for attempt in trained.attempts]
    assert tried == [[options.index(a)] for a in person.check_answers], person.name


# ---------------------------------------------------------------- the downloads


PAGE_LEAVES_OUT = (*FREE_TEXT, "rationale", "preference_history")
"""What the Results page's ratings download leaves out (issue 32): the free text, the earlier
rationales inside the preference history included (its own download has the free text)."""


def check_downloads(engine: Any, ledger: list[Given], downloads: Mapping[str, bytes]) -> None:
    names = pseudonyms(engine)
    fields = tuple(f for f in RATING_FIELDS if f not in PAGE_LEAVES_OUT)
    expected = [{f: row[f] for f in fields} for row in expected_ratings(ledger, names)]
    for fmt in ("csv", "jsonl", "parquet"):
        rows = read_rows(downloads[f"ratings.{fmt}"], fmt)
        assert not {*FREE_TEXT, "rationale"} & set(rows[0]), f"free text in ratings.{fmt}"
        _same_rows(f"ratings.{fmt}", rows, expected)
    _check_free_text(ledger, names, downloads["free_text.csv"])
    aspects = expected_aspects(ledger, names)
    for fmt in ("csv", "jsonl", "parquet"):
        _same_rows(f"aspects.{fmt}", read_rows(downloads[f"aspects.{fmt}"], fmt), aspects)
    _check_report(json.loads(downloads["report.json"]), ledger, names)
    _check_admin_tables(ledger, names, downloads)
    _check_card(ledger, names, downloads)
    _nothing_personal(engine, downloads, ledger)


def _check_free_text(ledger: list[Given], names: Mapping[str, str], data: bytes) -> None:
    """The Results page's free text download: each comment typed, with its pair and pseudonym,
    written inert for a spreadsheet."""
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
    found = {(r["pair_id"], r["annotator"], r["comment"]) for r in rows if r["comment"]}
    wanted = {
        (g.record_id, names[g.person], str(inert_cell(g.comment)))
        for g in ledger
        if g.comment and g.status != "released"
    }
    assert found == wanted, f"free_text.csv: {found ^ wanted}"


def read_rows(data: bytes, fmt: str) -> list[dict[str, Any]]:
    """A download's rows as dicts, each format read as a user would read it."""
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
    if fmt == "jsonl":
        return [json.loads(line) for line in data.decode("utf-8").splitlines() if line]
    return pd.read_parquet(io.BytesIO(data)).to_dict("records")


def plain(field: str, value: Any) -> Any:
    """One cell as a plain comparable value: empty (None, NaN, NA, '') as '', numbers as
    int, true/false as bool, the JSON histories as tuples."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if value == "" or isinstance(value, tuple):  # (a history of the rows expected: a tuple)
        return value
    if field in FLAGS:
        return value if isinstance(value, bool) else str(value).upper() == "TRUE"
    if field in NUMBERS:
        return int(float(value))
    if field == "revision_history":
        return tuple((e["revision"], e["score"]) for e in json.loads(value))
    if field == "preference_history":
        return tuple(
            (e["preference"], e["preference_side"], e.get("rationale") or "")
            for e in json.loads(value)
        )
    return value.item() if hasattr(value, "item") else value


def canonical(rows: Iterable[Mapping[str, Any]], fields: tuple[str, ...]) -> Counter:
    return Counter(tuple(plain(f, row.get(f)) for f in fields) for row in rows)


def _same_rows(what: str, rows: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    fields = tuple(expected[0])
    missing_columns = [f for f in fields if rows and f not in rows[0]]
    assert missing_columns == [], f"{what}: no column {missing_columns}"
    found, wanted = canonical(rows, fields), canonical(expected, fields)
    lost, extra = wanted - found, found - wanted
    assert (lost, extra) == (Counter(), Counter()), (
        f"{what}: {sum(lost.values())} row(s) expected and not found, {sum(extra.values())} "
        f"found and not expected\nfields: {fields}\nexpected, not found: {list(lost)}\n"
        f"found, not expected: {list(extra)}"
    )


def _survey(person: str) -> tuple[str, str]:
    found = people().get(person)
    return ("", "") if found is None else (found.age, found.field_of_work)


def expected_ratings(ledger: list[Given], names: Mapping[str, str]) -> list[dict[str, Any]]:
    """The ratings export's rows as the ledger says they must be: 8 per rated pair (one per
    response and dimension), 1 per pair set aside (skipped or flagged), none for a pair given
    back at Finish."""
    excluded = excluded_by_rule(ledger)
    rows = []
    for given in ledger:
        if given.status == "released":
            continue
        age, field = _survey(given.person)
        common = {
            "study": STUDY,
            "pair_id": given.record_id,
            "domain": domain_of(given.record_id),
            "annotator": names[given.person],
            "survey_age": age,
            "survey_field": field,
            "purpose": given.purpose,
            "status": given.status,
            "comment": given.comment,
            "flagged": bool(given.flag_reason),
            "flag_reason": given.flag_reason,
            "flag_resolution": given.flag_resolution,
            "flag_note": given.flag_note,
            "skip_reason": given.skip_reason,
            "queue_position": given.number - 1,
            "pair_excluded": False,
            "exclusion_reason": "",
            "annotator_excluded": excluded.get(given.person, ""),
        }
        if given.status == "skipped":
            empty = ("response", "side", "dimension", "score", "preference", "preference_side")
            empty += ("rationale", "preference_history", "revision", "revision_history")
            rows.append({f: common.get(f, "") for f in RATING_FIELDS} | dict.fromkeys(empty, ""))
            continue
        assert given.preference is not None
        said = {
            "preference": given.preference,
            "preference_side": given.side_preference(given.preference),
            "rationale": given.rationale,
            "preference_history": tuple(
                (p, given.side_preference(p), r) for p, r in given.preference_history
            ),
        }
        for (response, dim), score in given.scores.items():
            earlier = given.score_history.get((response, dim), [])
            row = common | said
            row |= {"response": response, "side": given.side_of(response), "dimension": dim}
            row |= {"score": score, "revision": 1 + len(earlier)}
            row["revision_history"] = tuple(enumerate(earlier, 1))
            rows.append({f: row[f] for f in RATING_FIELDS})
    return rows


def expected_aspects(ledger: list[Given], names: Mapping[str, str]) -> list[dict[str, Any]]:
    aspects = {r["id"]: [a["aspect"] for a in r["rubric_aspects"]] for r in records()}
    return [
        {
            "study": STUDY,
            "pair_id": given.record_id,
            "domain": domain_of(given.record_id),
            "annotator": names[given.person],
            "response": response,
            "side": given.side_of(response),
            "aspect_index": index,
            "aspect": aspects[given.record_id][index],
            "coverage": coverage,
            "purpose": given.purpose,
        }
        for given in ledger
        if given.status == "done"
        for (response, index), coverage in given.marks.items()
    ]


def _check_report(report: Mapping[str, Any], ledger: list[Given], names: Mapping) -> None:
    """The report's counts, recounted from the ledger: the rule's exclusion, the primary
    analysis without the excluded person, the preference and the adjudication."""
    excluded = excluded_by_rule(ledger)
    assert report["exclusion_rules"]["excluded"] == [names[p] for p in excluded]
    kept = [g for g in rated(ledger) if g.person not in excluded]
    assert report["n_pair_ratings"] == len(kept)
    assert report["n_scores"] == 8 * len(kept)
    assert report["n_pairs"] == len({g.record_id for g in kept})
    assert report["n_annotators"] == len({g.person for g in kept})
    accuracy = report["human_accuracy"]["ties_as_half"]  # the mean of annotator means
    per_person = defaultdict(list)
    for given in kept:
        per_person[given.person].append((rubric_diff(given) > 0) + (rubric_diff(given) == 0) / 2)
    means = [sum(v) / len(v) for v in per_person.values()]
    assert accuracy["n"] == len(kept)
    assert math.isclose(accuracy["value"], sum(means) / len(means))
    choices = report["preference"]["forced_choice"]
    signs = Counter(
        (g.preference > 0) - (g.preference < 0) for g in kept if g.preference is not None
    )
    assert (choices["n_chosen"], choices["n_ties"], choices["n_rejected"]) == (
        signs[1],
        signs[0],
        signs[-1],
    )
    (adjudicated,) = rated(ledger, purpose="adjudication")
    section = report["adjudication"]
    assert (section["n_adjudicated_pairs"], section["n_adjudicators"]) == (1, 1)
    changed = {c["pair_id"]: c for c in section["changed"]}
    if adjudicated.record_id in changed:
        assert changed[adjudicated.record_id]["rubric_diff_after"] == rubric_diff(adjudicated)


def _check_admin_tables(
    ledger: list[Given], names: Mapping[str, str], downloads: Mapping[str, bytes]
) -> None:
    """The Assignments page's table (every assignment, released ones too) and the payments
    file (each participant with their platform id, status, code and pairs)."""
    accounts = account_names()
    found = canonical(
        read_rows(downloads["assignments.csv"], "csv"),
        ("annotator", "pair_id", "position", "chosen_side", "status"),
    )
    assert found == Counter(
        (accounts[g.person], g.record_id, g.number - 1, g.chosen_side, g.status) for g in ledger
    )
    excluded = excluded_by_rule(ledger)
    fields = ("participant_id", "status", "excluded_by", "completion_code", "pairs_done")
    found = canonical(read_rows(downloads["payments.csv"], "csv"), (*fields, "pseudonym"))
    assert found == Counter(
        (
            p.pid,
            "excluded" if p.name in excluded else "completed",
            excluded.get(p.name, ":").split(":")[0],
            COMPLETION_CODE,
            sum(g.person == p.name for g in rated(ledger)),
            names[p.name],
        )
        for p in PEOPLE
    )


def _check_card(ledger: list[Given], names: Mapping[str, str], downloads: Mapping) -> None:
    """The published card: the ratings and aspects as exported, less the free text not
    disclosed (the rationale is), times to the minute; no platform id or typed text."""
    ratings = read_rows(downloads["card/ratings.parquet"], "parquet")
    assert ratings, "the card has no ratings"
    assert not set(FREE_TEXT) & set(ratings[0]), "undisclosed free text in the card"
    assert all(str(r["created_at"]).endswith(":00Z") for r in ratings if r["created_at"])
    published = tuple(f for f in RATING_FIELDS if f not in FREE_TEXT)
    expected = [{f: row[f] for f in published} for row in expected_ratings(ledger, names)]
    _same_rows("card/ratings.parquet", ratings, expected)
    assert not any(r["excluded"] for r in ratings)  # no pair left out by an admin
    aspects = read_rows(downloads["card/aspects.parquet"], "parquet")
    _same_rows("card/aspects.parquet", aspects, expected_aspects(ledger, names))
    card = json.loads(downloads["card/report.json"])
    assert card["exclusion_rules"]["excluded"] == [names[p] for p in excluded_by_rule(ledger)]
    assert card["n_pair_ratings"] == json.loads(downloads["report.json"])["n_pair_ratings"]


def _nothing_personal(engine: Any, downloads: Mapping[str, bytes], ledger: list[Given]) -> None:
    """No platform id, session id or link secret in any file meant to leave the database (the
    card and the Results page's exports); no typed free text but the rationales in the card."""
    with read_session(engine) as session:
        key = get_study(session, STUDY).enrolment_key
    assert key
    ids = [p.pid for p in PEOPLE] + [p.session for p in PEOPLE] + [key]
    typed = [g.comment for g in ledger] + [g.flag_reason for g in ledger]
    typed += [g.skip_reason for g in ledger] + [FLAG_NOTE]
    typed += [p.field_of_work for p in PEOPLE]
    typed = [t for t in typed if t]
    for name, data in downloads.items():
        if name in ("payments.csv", "assignments.csv"):
            continue  # the admin's files for paying and planning: they hold the platform ids
        text = (
            data.decode("utf-8", "replace")
            if not name.endswith(".parquet")
            else repr(pd.read_parquet(io.BytesIO(data)).to_dict("records"))
        )
        for secret in ids:
            assert secret not in text, f"{name} holds a platform id or session id"
        if name.startswith("card/"):
            for words in typed:
                assert words not in text, f"{name} holds undisclosed free text: {words!r}"
