"""Input shapes other than the benchmark's own records: Hugging Face preference sets (texts and
message lists), RM-Bench, RewardBench 2 and a field mapping; conversations stored as turns.

Fixtures are written here in each dataset's published shape; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import to_json
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Pair, Study
from annotate.domain.dataset.importer import DatasetError
from annotate.domain.dataset.records import BenchmarkRecord, content_hash
from annotate.domain.dataset.shapes import (
    Rb2Pairs,
    Shape,
    ShapeOptionError,
    ShapeOptions,
    detect,
    drawn,
    parse_field_map,
    parse_pairing,
    shape_options,
)
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from annotate.services.admin.preference import export_preference


def pairs(engine, study: str = "s") -> list[Pair]:
    with read_session(engine) as session:
        query = select(Pair).join(Study).where(Study.name == study).order_by(Pair.record_id)
        return list(session.exec(query).all())


def study_seed(engine, study: str = "s") -> int:
    with read_session(engine) as session:
        return session.exec(select(Study.seed).where(Study.name == study)).one()


def run_import(engine, paths: list[Path], **options: Any) -> Any:
    domain = options.pop("domain", None)
    return import_files(
        engine, SYSTEM, paths, study="s", domain=domain, shape=ShapeOptions(**options)
    )


def problems_of(engine, paths: list[Path], **options: Any) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        run_import(engine, paths, **options)
    assert pairs(engine) == []  # all or nothing
    return [str(p) for p in caught.value.problems]


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


# ---------------------------------------------------------------- Hugging Face


def test_hf_text_records_with_and_without_id(engine, tmp_path, write_records):
    path = write_records(
        tmp_path / "ultra" / "train.jsonl",
        [
            {"id": "u1", "prompt": "Name a prime.", "chosen": "7", "rejected": "8", "score": 9},
            {"prompt": "Capital of France?", "chosen": "Paris", "rejected": "Lyon"},
        ],
    )
    summary = run_import(engine, [path])  # detected: prompt / chosen / rejected texts
    assert summary.added == 2
    by_id = {p.record_id: p for p in pairs(engine)}
    first = by_id["u1"]
    assert (first.question, first.chosen, first.rejected) == ("Name a prime.", "7", "8")
    assert first.conversation == []
    assert (first.profile, first.rubric_aspects, first.narrative, first.category) == (
        [],
        [],
        "",
        "",
    )
    assert first.extra == {"score": 9}
    assert first.domain == "ultra"  # a split file takes its folder's name
    turns = [user("Capital of France?")]
    expected_id = "sha256-" + hashlib.sha256(to_json([turns, "Paris", "Lyon"])).hexdigest()[:16]
    assert expected_id in by_id
    # the same content gets the same id: importing again changes nothing
    assert run_import(engine, [path]).unchanged == 2


def test_hf_conversational_parquet_keeps_the_earlier_turns(engine, tmp_path, write_records):
    history = [user("I need a name for my cat."), assistant("How about Miso?"), user("Shorter?")]
    path = write_records(
        tmp_path / "chats_test.parquet",
        [
            {
                "id": "c1",
                "chosen": [*history, assistant("Mo.")],
                "rejected": [*history, assistant("Mississippi.")],
            }
        ],
    )
    run_import(engine, [path])
    (pair,) = pairs(engine)
    assert pair.conversation == history
    assert pair.question == "Shorter?"  # the last user turn: old code keeps working
    assert (pair.chosen, pair.rejected) == ("Mo.", "Mississippi.")
    assert pair.domain == "chats"
    data = {"id": "c1", "question": "Shorter?", "profile": [], "rubric_aspects": []}
    data |= {"narrative": "", "category": "", "chosen": "Mo.", "rejected": "Mississippi."}
    assert pair.content_hash == content_hash(data, history)
    assert pair.content_hash != content_hash(data)


def test_hf_prompt_as_message_list_with_a_system_turn(engine, tmp_path, write_records):
    prompt = [{"role": "system", "content": "Be brief."}, user("Hi?")]
    path = write_records(
        tmp_path / "trl.jsonl",
        [{"prompt": prompt, "chosen": [assistant("Hello.")], "rejected": [assistant("Yo.")]}],
    )
    run_import(engine, [path], shape=Shape.HF)
    (pair,) = pairs(engine)
    assert pair.conversation == prompt  # a system turn makes it more than the question
    assert (pair.question, pair.chosen, pair.rejected) == ("Hi?", "Hello.", "Yo.")


def test_hf_prompt_repeated_as_the_first_turn_is_not_doubled(engine, tmp_path, write_records):
    record = {  # as HuggingFaceH4/ultrafeedback_binarized writes it
        "prompt": "Name a prime.",
        "prompt_id": "abc",
        "chosen": [user("Name a prime."), assistant("7")],
        "rejected": [user("Name a prime."), assistant("8")],
        "score_chosen": 9.0,
    }
    run_import(engine, [write_records(tmp_path / "train_prefs.parquet", [record])])
    (pair,) = pairs(engine)
    assert (pair.question, pair.conversation, pair.chosen) == ("Name a prime.", [], "7")
    assert pair.extra == {"prompt_id": "abc", "score_chosen": 9.0}


def test_hf_problems_are_located(engine, tmp_path, write_records):
    history = [user("Hi")]
    path = write_records(
        tmp_path / "bad.jsonl",
        [
            {"prompt": "fine", "chosen": "a", "rejected": "b"},
            {"chosen": [*history, user("no answer")], "rejected": [*history, assistant("b")]},
            {"chosen": [user("one"), assistant("a")], "rejected": [user("two"), assistant("b")]},
            {"chosen": [{"role": "tool", "content": 3}], "rejected": [assistant("b")]},
            {"prompt": "p", "chosen": "a", "rejected": [assistant("b")]},
            {"chosen": "a", "rejected": "b"},
            {"id": "", "prompt": "p", "chosen": "a", "rejected": "b"},
        ],
    )
    found = problems_of(engine, [path], shape=Shape.HF)
    file = str(path)
    assert found == [
        f"{file}, line 2, field 'chosen': expected the last message to be the assistant's response",
        f"{file}, line 3, field 'rejected': its turns before the last assistant response differ "
        "from chosen's; expected the same conversation",
        f"{file}, line 4, field 'chosen[0].role': expected one of user, assistant, system, "
        "got 'tool'",
        f"{file}, line 4, field 'chosen[0].content': expected a string, got a number",
        f"{file}, line 5, field 'rejected': expected the same kind as chosen (both texts or "
        "both message lists)",
        f"{file}, line 6, field 'prompt': missing; this field is required (text or messages)",
        f"{file}, line 7, field 'id': the id is empty; expected a non-empty string",
    ]


# ---------------------------------------------------------------- RM-Bench


def rmbench_record(record_id: int, domain: str = "chat") -> dict[str, Any]:
    return {
        "id": record_id,
        "prompt": f"Explain superposition ({record_id}).",
        "chosen": [f"c{i} of {record_id}" for i in range(3)],
        "rejected": [f"r{i} of {record_id}" for i in range(3)],
        "domain": domain,
    }


def test_rmbench_default_pairing_and_record_domain(engine, tmp_path, write_records):
    path = write_records(
        tmp_path / "total_dataset.json", [rmbench_record(1), rmbench_record(2, "math")]
    )
    summary = run_import(engine, [path])  # detected
    assert summary.files[0].domain == "chat, math"
    first, second = pairs(engine)
    assert (first.record_id, first.domain, second.domain) == ("1:1-1", "chat", "math")
    assert (first.chosen, first.rejected) == ("c1 of 1", "r1 of 1")
    assert first.extra == {"source_id": 1, "pairing": "1-1"}


def test_rmbench_pairing_option_and_domain_override(engine, tmp_path, write_records):
    path = write_records(tmp_path / "rm.jsonl", [rmbench_record(7)])
    run_import(
        engine, [path], shape=Shape.RMBENCH, rmbench_pairing=parse_pairing("0-2"), domain="RM"
    )
    (pair,) = pairs(engine)
    assert (pair.record_id, pair.chosen, pair.rejected, pair.domain) == (
        "7:0-2",
        "c0 of 7",
        "r2 of 7",
        "RM",
    )


def test_rmbench_problems_are_located(engine, tmp_path, write_records):
    short = {**rmbench_record(1), "chosen": ["a", "b"]}
    wrong = {**rmbench_record(2), "rejected": ["a", 2, "c"], "domain": 5}
    missing = {k: v for k, v in rmbench_record(3).items() if k != "prompt"}
    path = write_records(tmp_path / "rm.jsonl", [short, wrong, missing])
    found = problems_of(engine, [path], shape=Shape.RMBENCH)
    assert found == [
        f"{path}, line 1, field 'chosen': expected a list of 3 texts, got 2 item(s)",
        f"{path}, line 2, field 'domain': expected a string, got a number",
        f"{path}, line 3, field 'prompt': missing; this field is required",
    ]


# ---------------------------------------------------------------- RewardBench 2


def rb2_record(record_id: str, subset: str = "Focus", rejected: int = 3) -> dict[str, Any]:
    return {
        "id": record_id,
        "prompt": f"Prompt {record_id}",
        "chosen": [f"good {record_id}"],
        "rejected": [f"bad{k} {record_id}" for k in range(rejected)],
        "num_correct": 1,
        "subset": subset,
    }


def test_rb2_all_gives_a_pair_per_rejected_response(engine, tmp_path, write_records):
    path = write_records(tmp_path / "rb2.jsonl", [rb2_record("a"), rb2_record("b", "Safety", 4)])
    assert run_import(engine, [path]).added == 7  # detected
    found = pairs(engine)
    assert [p.record_id for p in found] == [
        *(f"a:r{k}" for k in range(3)),
        *(f"b:r{k}" for k in range(4)),
    ]
    assert {p.domain for p in found} == {"Focus", "Safety"}
    assert found[1].rejected == "bad1 a"
    assert found[1].extra == {"source_id": "a", "rejected_index": 1, "num_correct": 1}


def test_rb2_one_draws_one_pair_a_record_with_the_study_seed(engine, tmp_path, write_records):
    records = [rb2_record(f"id{n}", rejected=3) for n in range(12)]
    path = write_records(tmp_path / "rb2.jsonl", records)
    summary = run_import(engine, [path], rb2_pairs=Rb2Pairs.ONE)
    assert (summary.added, summary.files[0].records) == (12, 12)
    seed = study_seed(engine)
    expected = sorted(f"id{n}:r{drawn(seed, f'id{n}', 3)}" for n in range(12))
    assert [p.record_id for p in pairs(engine)] == expected
    assert len({r.rsplit(":", 1)[1] for r in expected}) > 1  # not always the same response
    assert run_import(engine, [path], rb2_pairs=Rb2Pairs.ONE).unchanged == 12


def test_drawn_is_reproducible_and_uniform_enough():
    picks = [drawn(42, f"r{n}", 3) for n in range(3000)]
    assert picks == [drawn(42, f"r{n}", 3) for n in range(3000)]
    assert all(900 < picks.count(k) < 1100 for k in range(3))


def test_rb2_needs_its_fields(engine, tmp_path, write_records):
    bad = {**rb2_record("a"), "rejected": []}
    path = write_records(tmp_path / "rb2.jsonl", [bad, {**rb2_record("b"), "subset": None}])
    assert problems_of(engine, [path], shape=Shape.REWARDBENCH2) == [
        f"{path}, line 1, field 'rejected': expected a list of at least 1 texts, got 0 item(s)",
        f"{path}, line 2, field 'subset': expected a string, got null",
    ]


# ---------------------------------------------------------------- field mapping


def test_field_map_with_dotted_paths(engine, tmp_path, write_records):
    record = {
        "uid": 5,
        "task": {"input": "Sum 2 and 2.", "area": "arith"},
        "better": "4",
        "worse": "5",
        "meta": "kept",
    }
    path = write_records(tmp_path / "mine.jsonl", [record])
    mapping = parse_field_map(
        "id=uid, question=task.input, chosen=better, rejected=worse, domain=task.area"
    )
    run_import(engine, [path], field_map=mapping)
    (pair,) = pairs(engine)
    assert (pair.record_id, pair.question, pair.chosen, pair.rejected, pair.domain) == (
        "5",
        "Sum 2 and 2.",
        "4",
        "5",
        "arith",
    )
    assert pair.extra == {"meta": "kept"}


def test_field_map_problems_name_the_source_fields(engine, tmp_path, write_records):
    path = write_records(
        tmp_path / "mine.jsonl",
        [{"q": "x", "better": "a"}, {"q": 3, "better": "a", "worse": "b"}],
    )
    mapping = parse_field_map("question=q,chosen=better,rejected=worse")
    assert problems_of(engine, [path], field_map=mapping) == [
        f"{path}, line 1, field 'worse': missing; this field is required (mapped to rejected)",
        f"{path}, line 2, field 'q': expected a list of messages, got a number",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("question=prompt", "chosen, rejected must be mapped"),
        ("chosen=a,rejected=b,answer=c", "unknown target 'answer'"),
        ("chosen=a,chosen=b,rejected=c", "'chosen' is mapped twice"),
        ("chosen=a..b,rejected=c", "expected a dotted path"),
        ("chosen,rejected=c", "expected TARGET=SOURCE"),
    ],
)
def test_field_map_refuses_bad_mappings(text, message):
    with pytest.raises(ShapeOptionError, match=message):
        parse_field_map(text)


def test_shape_options_refuse_a_map_with_another_shape_or_a_map_shape_without_one():
    with pytest.raises(ShapeOptionError, match="goes with the map shape, not hf"):
        shape_options("hf", field_map="chosen=a,rejected=b")
    with pytest.raises(ShapeOptionError, match="needs a field map"):
        shape_options("map")
    with pytest.raises(ShapeOptionError, match="unknown shape 'csv'"):
        shape_options("csv")
    assert shape_options(field_map="chosen=a,rejected=b").fixed is Shape.MAP


@pytest.mark.parametrize("text", ["1", "3-1", "1-1-1", "a-b", ""])
def test_pairing_refuses_bad_values(text):
    with pytest.raises(ShapeOptionError, match="expected CHOSEN-REJECTED"):
        parse_pairing(text)


# ---------------------------------------------------------------- detection and hashes


def test_an_unrecognised_shape_is_read_as_the_default(engine, tmp_path, write_records):
    path = write_records(tmp_path / "odd.jsonl", [{"id": "x", "good": "a", "bad": "b"}])
    found = problems_of(engine, [path])
    assert f"{path}, line 1, field 'question': missing; this field is required" in found
    assert f"{path}, line 1, field 'chosen': missing; this field is required" in found


def test_detection_of_each_shape():
    assert detect({"question": "q", "chosen": "a"}) is Shape.PRB
    assert detect({"prompt": "p", "chosen": "a", "rejected": "b"}) is Shape.HF
    assert detect({"chosen": [assistant("a")], "rejected": [assistant("b")]}) is Shape.HF
    assert detect(rmbench_record(1)) is Shape.RMBENCH
    assert detect(rb2_record("a")) is Shape.REWARDBENCH2
    assert detect({**rb2_record("a"), "domain": "x"}) is Shape.PRB  # ambiguous: the default
    assert detect({"chosen": "a", "rejected": "b"}) is Shape.PRB  # no prompt: not a pair set
    assert detect([1]) is Shape.PRB


def test_prb_records_are_still_detected_and_keep_their_hash(
    engine, tmp_path, write_records, make_record
):
    path = write_records(tmp_path / "Art_test.jsonl", [make_record("a")])
    run_import(engine, [path])
    (pair,) = pairs(engine)
    assert pair.conversation == []
    record = BenchmarkRecord.model_validate(make_record("a"))
    assert pair.content_hash == content_hash(record.model_dump(mode="json"))


def test_a_changed_conversation_is_different_content(engine, tmp_path, write_records):
    def chat(first: str) -> dict[str, Any]:
        history = [user(first), assistant("ok"), user("and?")]
        return {
            "id": "c",
            "chosen": [*history, assistant("a")],
            "rejected": [*history, assistant("b")],
        }

    run_import(engine, [write_records(tmp_path / "one.jsonl", [chat("hello")])], domain="d")
    changed = write_records(tmp_path / "two.jsonl", [chat("goodbye")])
    with pytest.raises(DatasetError, match="already in study 's' with different content"):
        run_import(engine, [changed], domain="d")


# ---------------------------------------------------------------- the backup keeps it


@pytest.mark.sqlite_only
def test_the_backup_keeps_the_conversation(engine, tmp_path, write_records):
    from annotate.db import make_engine
    from annotate.domain.exports.backup import backup_database

    history = [user("A"), assistant("B"), user("C")]
    record = {
        "id": "c",
        "chosen": [*history, assistant("x")],
        "rejected": [*history, assistant("y")],
    }
    run_import(engine, [write_records(tmp_path / "d.jsonl", [record])])
    copy = make_engine(str(backup_database(engine, tmp_path / "backup.db")))
    try:
        (pair,) = pairs(copy)
        assert pair.conversation == history
        assert pair.content_hash == pairs(engine)[0].content_hash
    finally:
        copy.dispose()


def test_an_imported_conversation_goes_out_as_trls_conversational_rows(
    engine, tmp_path, write_records
):
    """Issue 35.2 and 35.3 joined: the turns read from a message list come back as the
    preference export's prompt, the compared responses as one assistant message each."""
    history = [user("Plan a trip."), assistant("Where to?"), user("Lisbon, two days.")]
    path = write_records(
        tmp_path / "trips.jsonl",
        [
            {
                "id": "t1",
                "chosen": [*history, assistant("Day 1: Alfama.")],
                "rejected": [*history, assistant("Go to Paris.")],
            }
        ],
    )
    run_import(engine, [path])
    (row,) = export_preference(engine, SYSTEM, "s").to_dict("records")
    assert list(row["prompt"]) == history
    assert list(row["chosen"]) == [assistant("Day 1: Alfama.")]
    assert list(row["rejected"]) == [assistant("Go to Paris.")]
    assert row["n_annotators"] == 0
