"""The published folder's metadata (issue 35.3): the card's front matter (written with
huggingface_hub's dataset card data) lists every table as a config, each of which
`datasets.load_dataset(folder, config)` reads; `croissant.json` passes `mlcroissant`'s checks,
holds the responsible-AI fields, and each of its record sets reads as many records as its table
holds (message lists too: the conversational format); hostile response text stays data;
`--push` would send the folder that was written."""

from __future__ import annotations

import json

import datasets
import mlcroissant
import pandas as pd
import pytest
from huggingface_hub import DatasetCard
from sqlalchemy import update
from sqlmodel import col, select

from annotate.db import write_session
from annotate.db.tables import Assignment, Pair, Span
from annotate.domain.exports.croissant import croissant_document, croissant_json, rai_fields
from annotate.domain.exports.preference import PREFERENCE_COLUMNS, pair_of, preference_frame
from annotate.domain.exports.publish import Protocol
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, update_study
from annotate.errors import Invalid
from annotate.questionnaire import parse_questionnaire
from annotate.services.admin.data import import_files
from annotate.services.admin.publish import hub_upload, publish_study
from annotate.services.admin.simulated import store_simulated_ratings

HOSTILE = "<script>alert(1)</script>\n---\nconfigs: []\n| x | y | {{ z }} [a](javascript:x)"
TABLES = {"ratings": "ratings.parquet", "aspects": "aspects.parquet"}


@pytest.fixture
def folder(engine, demo_files, tmp_path):
    """Study `s` with the aspect checklist and a span label: the demo's 27 pairs, 3 simulated
    annotators (counted), spans on six ratings, one chosen response hostile text; published to
    `card/`."""
    with write_session(engine) as session:
        get_or_create_study(session, "s", seed=3)
        update_study(session, "s", aspect_checklist=True)
    import_files(engine, SYSTEM, demo_files, study="s")
    with write_session(engine) as session:
        first = session.exec(select(Pair).where(Pair.gold_preference == None).limit(1)).one()  # noqa: E711
        session.execute(update(Pair).where(Pair.id == first.id).values(chosen=HOSTILE))
    store_simulated_ratings(engine, "s", n_annotators=3, seed=1, count=True)
    with write_session(engine) as session:  # span labels, and spans on six ratings
        study = get_or_create_study(session, "s")
        labelled = {"template": "prb", "span_labels": [{"key": "error", "label": "Error"}]}
        study.questionnaire = parse_questionnaire(labelled).stored()
        for item in session.exec(select(Assignment).order_by(col(Assignment.id)).limit(6)):
            session.add(
                Span(assignment_id=item.id, response="chosen", label="error", start=0, end=8)
            )
    out = tmp_path / "card"
    publish_study(engine, SYSTEM, "s", out)
    return out


def test_every_table_is_a_config_that_datasets_loads(folder, tmp_path):
    card = DatasetCard.load(folder / "README.md")
    configs = card.data.to_dict()["configs"]
    assert [c["config_name"] for c in configs] == ["ratings", "aspects", "spans", "preference"]
    assert [c.get("default", False) for c in configs] == [True, False, False, False]
    for config in configs:
        (files,) = config["data_files"]
        table = pd.read_parquet(folder / files["path"])
        loaded = datasets.load_dataset(
            str(folder), config["config_name"], split="train", cache_dir=str(tmp_path / "cache")
        )
        assert loaded.num_rows == len(table) > 0, config
        assert loaded.column_names == list(table.columns), config
    preference = datasets.load_dataset(
        str(folder), "preference", split="train", cache_dir=str(tmp_path / "cache")
    )
    assert preference.column_names == list(PREFERENCE_COLUMNS)
    assert preference.num_rows == 27
    assert set(preference["verdict"]) <= {"chosen", "rejected", "tie"}
    assert HOSTILE in preference["chosen"]  # the text as imported, as data


def test_croissant_validates_and_reads_every_record_set(folder):
    document = json.loads((folder / "croissant.json").read_text("utf-8"))
    dataset = mlcroissant.Dataset(jsonld=folder / "croissant.json")  # raises on errors
    metadata = dataset.metadata
    assert not metadata.ctx.issues.warnings  # none recommended missing either
    assert metadata.data_collection
    assert metadata.annotations_per_item == "3"
    assert metadata.personal_sensitive_information
    assert metadata.data_use_cases
    names = [r["name"] for r in document["recordSet"]]
    assert names == ["ratings", "aspects", "spans", "preference"]
    for name in names:
        path = folder / f"{name}.parquet"
        records = list(dataset.records(record_set=name))
        assert len(records) == len(pd.read_parquet(path)), name
    first = next(iter(dataset.records(record_set="preference")))
    assert set(first) == {f"preference/{c}" for c in PREFERENCE_COLUMNS}
    assert isinstance(first["preference/n_annotators"], int)
    assert isinstance(first["preference/label_held"], bool)


def test_hostile_response_text_is_no_markup_in_the_card_or_the_metadata(folder):
    card = (folder / "README.md").read_text("utf-8")
    croissant = (folder / "croissant.json").read_text("utf-8")
    for text in (card, croissant):
        assert "<script>" not in text
        assert "javascript:" not in text
    head = card.split("\n---\n", 1)[0]
    assert "configs: []" not in head  # the front matter is the card data's, not the text's
    table = pd.read_parquet(folder / "preference.parquet")
    assert (table["chosen"] == HOSTILE).sum() == 1


def test_push_sends_the_folder_that_was_written(folder):
    upload = hub_upload(folder, "lab/prb-card")
    assert upload.folder_path == folder.resolve()
    assert upload.repo_id == "lab/prb-card"
    assert upload.repo_type == "dataset"
    assert (upload.folder_path / "README.md").is_file()
    for wrong in ("card", "a/b/c", "/x", "x/"):
        with pytest.raises(Invalid, match="owner/name"):
            hub_upload(folder, wrong)


def test_the_rai_fields_follow_the_protocol():
    protocol = Protocol("s", 1, 5, {}, 0.5, 4, 6, 2, 100)
    fields = rai_fields(protocol)
    assert fields["rai:annotationsPerItem"] == "4"
    assert "6 annotator accounts (4 people, 2 simulated" in fields["rai:annotatorDemographics"][0]


def test_conversational_pairs_are_message_lists_in_croissant(tmp_path):
    earlier = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    pair = pair_of(
        {"pair_id": "t", "domain": "Art", "question": "Q?", "chosen": "C", "rejected": "R",
         "conversation": earlier}
    )  # fmt: skip
    no_votes = pd.DataFrame(
        {"n_annotators": [], "n_chosen": [], "verdict": []}, index=pd.Index([], name="pair_id")
    )
    frame = preference_frame([pair], no_votes)
    data = frame.to_parquet(index=False)
    (tmp_path / "preference.parquet").write_bytes(data)
    protocol = Protocol("s", 1, 5, {}, 0.5, 3, 3, 0, 1)
    tables = {"preference": ("preference.parquet", frame)}
    document = croissant_document(protocol, tables, {"preference.parquet": data}, {}, "2026-01-01")
    (tmp_path / "croissant.json").write_text(croissant_json(document), encoding="utf-8")
    (record,) = mlcroissant.Dataset(jsonld=tmp_path / "croissant.json").records("preference")
    prompt = [
        (turn["preference/prompt/role"], turn["preference/prompt/content"])
        for turn in record["preference/prompt"]
    ]
    assert prompt == [(b"user", b"Hi"), (b"assistant", b"Hello"), (b"user", b"Q?")]
    assert record["preference/chosen"] == [
        {"preference/chosen/role": b"assistant", "preference/chosen/content": b"C"}
    ]
    assert record["preference/verdict"] is None
