"""The benchmark record model: the documented fields, strictly typed; anything else kept."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from annotate.domain.dataset.records import RECORD_FIELDS, BenchmarkRecord


def test_record_fields_are_the_documented_format():
    assert RECORD_FIELDS == (
        "id",
        "question",
        "profile",
        "rubric_aspects",
        "narrative",
        "category",
        "chosen",
        "rejected",
    )
    assert set(BenchmarkRecord.model_fields) == set(RECORD_FIELDS)


def test_valid_record_parses_with_nested_items(make_record):
    record = BenchmarkRecord.model_validate(make_record("0_2_0"))
    assert record.id == "0_2_0"
    assert [p.id for p in record.profile] == ["0_2_0_p0", "0_2_0_p1"]
    assert record.profile[0].text == "Loved Dune — all of it."
    assert record.rubric_aspects[0].aspect == "Recommends finished series"
    assert record.extra_fields == {}


def test_extra_fields_are_kept_as_metadata_at_every_level(make_record):
    raw = make_record(source="lamp-qa", score_gap=0.25, tags=["a", "b"])
    raw["profile"][0]["date"] = "2019-04-01"
    raw["rubric_aspects"][1]["weight"] = 2
    record = BenchmarkRecord.model_validate(raw)
    assert record.extra_fields == {"source": "lamp-qa", "score_gap": 0.25, "tags": ["a", "b"]}
    dumped = record.model_dump(mode="json")
    assert dumped["profile"][0]["date"] == "2019-04-01"
    assert dumped["rubric_aspects"][1]["weight"] == 2
    assert dumped == raw


@pytest.mark.parametrize(
    ("path", "value", "loc"),
    [
        (("id",), 7, ("id",)),
        (("question",), None, ("question",)),
        (("chosen",), ["a"], ("chosen",)),
        (("profile",), "not a list", ("profile",)),
        (("profile", 1, "text"), 42, ("profile", 1, "text")),
        (("profile", 0), "a post", ("profile", 0)),
        (("rubric_aspects",), {"aspect": "x"}, ("rubric_aspects",)),
        (("rubric_aspects", 0, "reason"), True, ("rubric_aspects", 0, "reason")),
    ],
)
def test_wrong_types_are_rejected_not_coerced(make_record, path, value, loc):
    raw = make_record()
    target = raw
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValidationError) as caught:
        BenchmarkRecord.model_validate(raw)
    assert [e["loc"] for e in caught.value.errors()] == [loc]


@pytest.mark.parametrize("field", RECORD_FIELDS)
def test_every_documented_field_is_required(make_record, field):
    raw = make_record()
    del raw[field]
    with pytest.raises(ValidationError) as caught:
        BenchmarkRecord.model_validate(raw)
    assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [("missing", (field,))]


def test_content_hash_tells_equal_content_from_changed_content(make_record):
    one = BenchmarkRecord.model_validate(make_record())
    same = BenchmarkRecord.model_validate(dict(reversed(list(make_record().items()))))
    changed = BenchmarkRecord.model_validate(make_record(chosen="Something else."))
    assert one.content_hash() == same.content_hash()
    assert len(one.content_hash()) == 64
    assert one.content_hash() != changed.content_hash()
