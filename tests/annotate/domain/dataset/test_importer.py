"""Import: three formats, domains, re-import, and every kind of bad input (all or nothing)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Pair, Study
from annotate.domain.dataset.importer import DatasetError, Problem, domain_from_path
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from tests.helpers.foundation_helpers import make_record

DOMAIN = "Art_and_Entertainment"
GOOD_FILE = f"{DOMAIN}_test.jsonl"


def pairs(engine, study: str = "s") -> list[Pair]:
    with read_session(engine) as session:
        query = select(Pair).join(Study).where(Study.name == study).order_by(Pair.record_id)
        return list(session.exec(query).all())


def pair_content(pair: Pair) -> dict[str, Any]:
    """A pair's row without the columns that differ by database or time."""
    return pair.model_dump(exclude={"id", "study_id", "created_at"})


def study_names(engine) -> list[str]:
    with read_session(engine) as session:
        return list(session.exec(select(Study.name).order_by(Study.name)).all())


# ---------------------------------------------------------------- good input


def test_jsonl_import_stores_every_field(engine, tmp_path, make_record, write_records):
    raw = make_record("0_1_0", source="lamp-qa")
    raw["profile"][0]["date"] = "2020-01-02"
    path = write_records(tmp_path / GOOD_FILE, [raw, make_record("0_2_0")])

    summary = import_files(engine, SYSTEM, [path], study="s")

    assert (summary.added, summary.unchanged) == (2, 0)
    assert [(f.file, f.domain, f.records, f.added) for f in summary.files] == [
        (str(path), DOMAIN, 2, 2)
    ]
    first, second = pairs(engine)
    assert first.record_id == "0_1_0"
    assert second.record_id == "0_2_0"
    assert first.domain == DOMAIN
    assert first.category == raw["category"]
    assert first.question == raw["question"]
    assert first.narrative == raw["narrative"]
    assert first.chosen == raw["chosen"]
    assert first.rejected == raw["rejected"]
    assert first.profile == raw["profile"]  # profile-item extras ("date") kept in place
    assert first.rubric_aspects == raw["rubric_aspects"]
    assert first.extra == {"source": "lamp-qa"}
    assert second.extra == {}
    assert len(first.content_hash) == 64
    assert first.content_hash != second.content_hash


def test_jsonl_json_array_and_parquet_give_the_same_rows(
    engine, tmp_path, make_record, write_records
):
    records = [make_record(f"0_{i}_0", origin="hub") for i in range(5)]
    records[2]["question"] = "Unicode: 日本語, emoji 🎧, <b>html</b> & **markdown**"
    imported = {}
    for suffix in ("jsonl", "json", "parquet"):
        path = write_records(tmp_path / suffix / f"{DOMAIN}_test.{suffix}", records)
        summary = import_files(engine, SYSTEM, [path], study=suffix)
        assert summary.added == 5
        imported[suffix] = [pair_content(p) for p in pairs(engine, suffix)]
    assert imported["jsonl"] == imported["json"] == imported["parquet"]
    assert imported["parquet"][2]["question"] == records[2]["question"]
    assert imported["parquet"][0]["profile"] == records[0]["profile"]
    assert imported["parquet"][0]["rubric_aspects"] == records[0]["rubric_aspects"]
    assert imported["parquet"][0]["extra"] == {"origin": "hub"}


def test_same_records_in_another_format_are_recognised_as_unchanged(
    engine, tmp_path, make_record, write_records
):
    records = [make_record(f"0_{i}_0") for i in range(3)]
    import_files(
        engine, SYSTEM, [write_records(tmp_path / f"{DOMAIN}_test.jsonl", records)], study="s"
    )
    parquet = write_records(tmp_path / "hub" / f"{DOMAIN}_test.parquet", records)
    summary = import_files(engine, SYSTEM, [parquet], study="s")
    assert (summary.added, summary.unchanged) == (0, 3)


def test_field_order_does_not_make_content_different(engine, tmp_path, make_record):
    record = make_record("0_1_0", b_extra=1, a_extra=2)
    reordered = dict(reversed(list(record.items())))
    reordered["profile"] = [dict(reversed(list(p.items()))) for p in record["profile"]]
    first = tmp_path / "one" / GOOD_FILE
    second = tmp_path / "two" / GOOD_FILE
    for path, value in ((first, record), (second, reordered)):
        path.parent.mkdir()
        path.write_text(json.dumps(value) + "\n", encoding="utf-8")
    import_files(engine, SYSTEM, [first], study="s")
    summary = import_files(engine, SYSTEM, [second], study="s")
    assert (summary.added, summary.unchanged) == (0, 1)


def test_reimport_changes_nothing_and_reports_unchanged(
    engine, tmp_path, make_record, write_records, snapshot
):
    path = write_records(tmp_path / GOOD_FILE, [make_record(f"0_{i}_0") for i in range(4)])
    first = import_files(engine, SYSTEM, [path], study="s")
    before = snapshot(engine)
    again = import_files(engine, SYSTEM, [path], study="s")
    assert (first.added, first.unchanged) == (4, 0)
    assert (again.added, again.unchanged) == (0, 4)
    assert [(f.records, f.added, f.unchanged) for f in again.files] == [(4, 0, 4)]
    assert snapshot(engine) == before


def test_new_records_are_added_next_to_unchanged_ones(engine, tmp_path, make_record, write_records):
    path = write_records(tmp_path / GOOD_FILE, [make_record("0_1_0")])
    import_files(engine, SYSTEM, [path], study="s")
    write_records(path, [make_record("0_1_0"), make_record("0_2_0")])
    summary = import_files(engine, SYSTEM, [path], study="s")
    assert (summary.added, summary.unchanged) == (1, 1)
    assert [p.record_id for p in pairs(engine)] == ["0_1_0", "0_2_0"]


def test_same_id_in_two_studies_is_two_pairs(engine, tmp_path, make_record, write_records):
    path = write_records(tmp_path / GOOD_FILE, [make_record("0_1_0")])
    import_files(engine, SYSTEM, [path], study="one")
    import_files(engine, SYSTEM, [path], study="two")
    assert len(pairs(engine, "one")) == len(pairs(engine, "two")) == 1
    assert study_names(engine) == ["one", "two"]


def test_utf8_bom_and_blank_lines_are_accepted(engine, tmp_path, make_record):
    path = tmp_path / GOOD_FILE
    lines = [json.dumps(make_record("0_1_0")), "", json.dumps(make_record("0_2_0")), "  "]
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode("utf-8"))
    assert import_files(engine, SYSTEM, [path], study="s").added == 2
    array = tmp_path / "array" / GOOD_FILE.replace(".jsonl", ".json")
    array.parent.mkdir()
    array.write_bytes(b"\xef\xbb\xbf" + json.dumps([make_record("0_3_0")]).encode("utf-8"))
    assert import_files(engine, SYSTEM, [array], study="s").added == 1


def test_empty_files_import_nothing_but_succeed(engine, tmp_path):
    (tmp_path / GOOD_FILE).write_text("")
    (tmp_path / f"{DOMAIN}_test.json").write_text("[ ]\n")
    summary = import_files(
        engine, SYSTEM, [tmp_path / GOOD_FILE, tmp_path / f"{DOMAIN}_test.json"], study="s"
    )
    assert summary.added == 0
    assert [f.records for f in summary.files] == [0, 0]


def test_progress_callback_sees_every_byte_of_jsonl_and_parquet(
    engine, tmp_path, make_record, write_records
):
    records = [make_record(f"0_{i}_0") for i in range(3)]
    jsonl = write_records(tmp_path / GOOD_FILE, records)
    parquet = write_records(tmp_path / "pq" / f"{DOMAIN}_test.parquet", records)
    seen: list[int] = []
    import_files(engine, SYSTEM, [jsonl], study="a", on_progress=seen.append)
    assert sum(seen) == jsonl.stat().st_size
    seen.clear()
    import_files(engine, SYSTEM, [parquet], study="b", on_progress=seen.append)
    assert sum(seen) == parquet.stat().st_size


# ---------------------------------------------------------------- domains


@pytest.mark.parametrize(
    ("relative", "domain"),
    [
        ("Art_and_Entertainment_test.jsonl", "Art_and_Entertainment"),
        ("Lifestyle_and_Personal_Development_test.json", "Lifestyle_and_Personal_Development"),
        ("Society_and_Culture-validation.parquet", "Society_and_Culture"),
        ("Society_and_Culture.jsonl", "Society_and_Culture"),
        ("Society_and_Culture/test-00000-of-00001.parquet", "Society_and_Culture"),
        ("Art_and_Entertainment/train-00003-of-00010.parquet", "Art_and_Entertainment"),
        ("Society_and_Culture/test/0000.parquet", "Society_and_Culture"),
        ("data/Art_and_Entertainment_test-00000-of-00001.parquet", "Art_and_Entertainment"),
    ],
)
def test_domain_from_path(tmp_path, relative, domain):
    assert domain_from_path(tmp_path / relative) == domain


def test_domain_from_file_name_and_hub_shard_folder(engine, tmp_path, make_record, write_records):
    jsonl = write_records(tmp_path / GOOD_FILE, [make_record("0_1_0")])
    shard = write_records(
        tmp_path / "Society_and_Culture" / "test-00000-of-00001.parquet", [make_record("2_1_0")]
    )
    summary = import_files(engine, SYSTEM, [jsonl, shard], study="s")
    assert [f.domain for f in summary.files] == [DOMAIN, "Society_and_Culture"]
    assert [(p.record_id, p.domain) for p in pairs(engine)] == [
        ("0_1_0", DOMAIN),
        ("2_1_0", "Society_and_Culture"),
    ]


def test_domain_option_overrides_every_file_name(engine, tmp_path, make_record, write_records):
    one = write_records(tmp_path / GOOD_FILE, [make_record("0_1_0")])
    two = write_records(tmp_path / "whatever.json", [make_record("0_2_0")])
    summary = import_files(engine, SYSTEM, [one, two], study="s", domain="Custom_Domain")
    assert [f.domain for f in summary.files] == ["Custom_Domain", "Custom_Domain"]
    assert {p.domain for p in pairs(engine)} == {"Custom_Domain"}


# ---------------------------------------------------------------- bad input


@dataclass
class BadCase:
    """Files to import (name -> bytes) and the exact problems expected."""

    files: dict[str, bytes]
    # (file name, location regex, field, message regex)
    problems: list[tuple[str, str, str | None, str]]
    study: str = "s"
    existing: list[dict[str, Any]] = field(default_factory=list)


def _lines(*values: Any) -> bytes:
    return "".join(
        (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) + "\n" for v in values
    ).encode("utf-8")


def _parquet(records: list[dict[str, Any]]) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(records), sink)
    return sink.getvalue().to_pybytes()


def _bad_cases() -> dict[str, BadCase]:
    r = make_record
    wrong_text = r("1_2_0")
    wrong_text["profile"][1]["text"] = 5
    wrong_reason = r("1_5_0")
    wrong_reason["rubric_aspects"][0]["reason"] = None
    no_narrative = r("1_3_0")
    del no_narrative["narrative"]
    pretty = json.dumps([r("1_1_0"), r("1_2_0")], indent=2)
    # the third element of the array starts on the line after the second one ends
    bad_array = pretty[:-2] + ',\n  {"id": "1_3_0",\n   "question": oops}\n]'
    bad_array_line = bad_array.count("\n", 0, bad_array.index("oops")) + 1
    typed_array = json.dumps([r("1_1_0"), wrong_text], indent=2)
    element_start = typed_array.rindex("{", 0, typed_array.index('"id": "1_2_0"'))
    element_line = typed_array.count("\n", 0, element_start) + 1
    good = _lines(r("1_1_0"))
    garbage = b"PAR1 this is not really a parquet file PAR1"
    parquet = bytearray(_parquet([r(f"1_{i}_0") for i in range(50)]))
    parquet[200:1200] = b"\xab" * 1000  # data pages destroyed, footer intact
    return {
        "invalid JSON (jsonl)": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0"), r("1_2_0"), '{"id": "1_3_0", oops}')},
            [("A_test.jsonl", r"line 3, column 17", None, "invalid JSON: Expecting property")],
        ),
        "invalid JSON (json array)": BadCase(
            {"A_test.json": bad_array.encode()},
            [("A_test.json", rf"line {bad_array_line}, column 16", None, "invalid JSON")],
        ),
        "not an array (json)": BadCase(
            {"A_test.json": json.dumps(r("1_1_0")).encode()},
            [("A_test.json", "line 1, column 1", None, "expected a JSON array of records")],
        ),
        "trailing data after the array": BadCase(
            {"A_test.json": b"[\n" + json.dumps(r("1_1_0")).encode() + b"\n]\n ]\n"},
            [("A_test.json", "line 4, column 2", None, "invalid JSON: extra data after the array")],
        ),
        "invalid UTF-8 (jsonl)": BadCase(
            {"A_test.jsonl": good + b'{"id": "caf\xe9"}\n'},
            [("A_test.jsonl", "line 2", None, r"invalid UTF-8 .*must be UTF-8 encoded")],
        ),
        "invalid UTF-8 (json array)": BadCase(
            # the array is streamed: a valid first record, then the bad bytes on line 3
            {"A_test.json": b"[\n" + json.dumps(r("a")).encode() + b',\n{"id": "caf\xe9"}\n]'},
            [("A_test.json", "line 3", None, "invalid UTF-8")],
        ),
        "missing field": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0"), no_narrative)},
            [("A_test.jsonl", "line 2", "narrative", "missing; this field is required")],
        ),
        "profile item text a number": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0"), wrong_text)},
            [("A_test.jsonl", "line 2", r"profile[1].text", "expected a valid string, got a num")],
        ),
        "rubric aspect reason null": BadCase(
            {"A_test.jsonl": _lines(wrong_reason)},
            [("A_test.jsonl", "line 1", "rubric_aspects[0].reason", "string, got null")],
        ),
        "rubric_aspects not a list": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0", rubric_aspects="be concise"))},
            [("A_test.jsonl", "line 1", "rubric_aspects", "expected a valid list, got a string")],
        ),
        "several wrong fields in one record": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0", id=11, chosen=None, profile={}))},
            [
                ("A_test.jsonl", "line 1", "id", "expected a valid string, got a number"),
                ("A_test.jsonl", "line 1", "profile", "expected a valid list, got an object"),
                ("A_test.jsonl", "line 1", "chosen", "expected a valid string, got null"),
            ],
        ),
        "wrongly typed field in a json array": BadCase(
            {"A_test.json": typed_array.encode()},
            [("A_test.json", f"line {element_line}", "profile[1].text", "valid string")],
        ),
        "non-object line": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0"), '["1_2_0", "a list"]', '"a string"')},
            [
                ("A_test.jsonl", "line 2", None, "expected a JSON object"),
                ("A_test.jsonl", "line 3", None, "expected a JSON object"),
            ],
        ),
        "duplicate id within a file": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0"), r("1_2_0"), r("1_1_0", chosen="Other."))},
            [("A_test.jsonl", "line 3", "id", r"duplicate id '1_1_0' \(first at .*, line 1\)")],
        ),
        "duplicate id across two files": BadCase(
            {"A_test.jsonl": _lines(r("1_1_0")), "B_test.jsonl": _lines(r("9_9_0"), r("1_1_0"))},
            [("B_test.jsonl", "line 2", "id", r"duplicate id '1_1_0' \(first at .*A_test")],
        ),
        "id already in the study with different content": BadCase(
            {"A_test.jsonl": _lines(r("1_5_0"), r("0_1_0", chosen="A different answer."))},
            [("A_test.jsonl", "line 2", "id", "'0_1_0' is already in study 's' with different")],
            existing=[r("0_1_0")],
        ),
        "id already in the study in another domain": BadCase(
            {"B_test.jsonl": _lines(r("0_1_0"))},
            [("B_test.jsonl", "line 1", "id", "already in study 's' in domain 'A', not 'B'")],
            existing=[r("0_1_0")],
        ),
        "unsupported extension": BadCase(
            {"A_test.csv": b"id,question\n1,2\n"},
            [("A_test.csv", "file", None, r"unsupported file type '\.csv'; expected \.jsonl")],
        ),
        "missing file": BadCase(
            {},
            [("Nope_test.jsonl", "file", None, "no such file")],
        ),
        "broken parquet": BadCase(
            {"A_test.parquet": garbage},
            [("A_test.parquet", "file", None, "not a readable Parquet file")],
        ),
        "truncated parquet": BadCase(
            {"A_test.parquet": _parquet([r("1_1_0")])[:-100]},
            [("A_test.parquet", "file", None, "not a readable Parquet file")],
        ),
        "corrupt parquet pages": BadCase(
            {"A_test.parquet": bytes(parquet)},
            [("A_test.parquet", "row 1", None, "unreadable Parquet data")],
        ),
        "parquet column of the wrong type": BadCase(
            {"A_test.parquet": _parquet([r("1", id=1), r("2", id=2)])},
            [
                ("A_test.parquet", "row 1", "id", "expected a valid string, got a number"),
                ("A_test.parquet", "row 2", "id", "expected a valid string, got a number"),
            ],
        ),
        "parquet without a column": BadCase(
            {"A_test.parquet": _parquet([{k: v for k, v in r("1").items() if k != "chosen"}])},
            [("A_test.parquet", "row 1", "chosen", "missing")],
        ),
        "a good file, then a bad one": BadCase(
            {
                "A_test.jsonl": _lines(*(r(f"1_{i}_0") for i in range(5))),
                "B_test.jsonl": _lines(r("2_1_0"), "{not json"),
            },
            [("B_test.jsonl", "line 2, column 2", None, "invalid JSON")],
        ),
    }


BAD_CASES = _bad_cases()


@pytest.mark.parametrize("name", list(BAD_CASES))
def test_bad_input_names_file_line_field_and_leaves_the_database_as_it_was(
    engine, tmp_path, snapshot, write_records, name
):
    case = BAD_CASES[name]
    existing = case.existing or [make_record("0_1_0"), make_record("0_2_0")]
    import_files(
        engine, SYSTEM, [write_records(tmp_path / "existing" / "A_test.jsonl", existing)], study="s"
    )
    paths = [tmp_path / file for file in case.files] or [tmp_path / "Nope_test.jsonl"]
    for path, content in zip(paths, case.files.values(), strict=False):
        path.write_bytes(content)
    before = snapshot(engine)

    with pytest.raises(DatasetError) as caught:
        import_files(engine, SYSTEM, paths, study=case.study)

    _assert_problems(caught.value, case.problems, tmp_path)
    assert snapshot(engine) == before

    # The same input into a study that does not exist yet must not create it.
    if not case.existing:
        with pytest.raises(DatasetError):
            import_files(engine, SYSTEM, paths, study="brand-new")
        assert snapshot(engine) == before
        assert study_names(engine) == ["s"]


def _assert_problems(error: DatasetError, expected, folder: Path) -> None:
    got = error.problems
    described = "\n".join(map(str, got))
    assert len(got) == len(expected), described
    for problem, (file, location, field_name, message) in zip(got, expected, strict=True):
        assert isinstance(problem, Problem)
        assert problem.file == str(folder / file), described
        assert re.fullmatch(location, problem.location), described
        assert problem.field == field_name, described
        assert re.search(message, problem.message), described
        # The printed form carries all four parts.
        text = str(problem)
        assert text.startswith(f"{folder / file}, {problem.location}")
        if field_name:
            assert f"field '{field_name}'" in text
    assert str(error).splitlines() == [str(p) for p in got]


def test_all_problems_are_listed_up_to_a_limit(engine, tmp_path):
    path = tmp_path / GOOD_FILE
    path.write_text("".join(json.dumps({"id": str(i)}) + "\n" for i in range(30)))
    with pytest.raises(DatasetError) as caught:
        import_files(engine, SYSTEM, [path], study="s")
    assert len(caught.value.problems) == 30 * 7  # seven missing fields per record
    lines = str(caught.value).splitlines()
    assert len(lines) == 21
    assert lines[-1] == "... and 190 more problem(s)"


def test_file_without_a_domain_in_its_name_needs_the_option(engine, tmp_path, make_record):
    path = tmp_path / "_test.jsonl"
    path.write_text(json.dumps(make_record()) + "\n")
    with pytest.raises(DatasetError) as caught:
        import_files(engine, SYSTEM, [path], study="s")
    assert [(p.location, p.message) for p in caught.value.problems] == [
        ("file", "cannot tell the domain from the file name; pass --domain")
    ]
    assert import_files(engine, SYSTEM, [path], study="s", domain="Named").added == 1
