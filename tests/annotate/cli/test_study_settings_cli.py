"""Study settings files (issue 14, item 6): `prb-annotate studies export-settings` and
`import-settings` (YAML and JSON), `studies create/edit --settings`, and bad files refused with
the file, the field's path and what was expected, changing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from sqlmodel import select

from annotate.db import make_engine, read_session
from annotate.db.tables import AuditEntry
from annotate.domain.study.studies import get_study, settings_of
from annotate.domain.study.study_settings import SETTINGS
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, TEMPLATES, parse_questionnaire, prb_with
from tests.annotate.domain.crowd.test_training import PRACTICE_PAIRS, QUESTIONS

PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"


def _study(db_url: str, name: str):
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            return get_study(session, name)
    finally:
        engine.dispose()


def _audit(db_url: str) -> list[AuditEntry]:
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            return list(session.exec(select(AuditEntry).order_by(AuditEntry.id)))
    finally:
        engine.dispose()


def _designed(run, tmp_path: Path) -> None:
    """Study `src` with a non-default value in every setting a file carries."""
    source = {
        "questionnaire": prb_with(
            {"factuality": "Facts"},
            {"relevance": "On the question."},
            tuple(range(7)),
            {0: "None", 6: "Perfect"},
        ).stored(),
        "guidelines": "Read *twice*.",
        "equivalence_margin": 0.4,
        "margin_unit": "sd",
        "smallest_effect": 0.2,
        "alpha": 0.01,
        "planned_pairs": 120,
        "stopping_rule": "Stop at 120 pairs rated by 3 people, or on 31 March.",
        "sequential": {
            "looks": [40, 80, 120],
            "unit": "pairs",
            "alpha_spending": "pocock",
            "futility": "obrien-fleming",
            "beta": 0.1,
            "binding": False,
        },
        "internal_pilot": {"first_stage_pairs": 40, "tie_alpha": 0.008},  # at most alpha
        "count_simulated": True,
        "overlap": 5,
        "reservation_minutes": 30,
        "gold_rate": 0.1,
        "pool_quota": 40,
        "finish_minimum": 20,
        "pool_order": "breadth",
        "completion_code": "DONE-9",
        "close_at_stop": True,
        "consent_text": "Agree?",
        "survey_questions": [{"id": "age", "text": "Age", "kind": "choice", "options": ["a", "b"]}],
        "screenout_code": "OUT-9",
        "completion_url": PROLIFIC,
        "ask_preference": True,
        "rationale": "optional",
        "practice_pairs": PRACTICE_PAIRS,
        "comprehension_questions": QUESTIONS,
        "comprehension_attempts": 3,
        "aspect_checklist": True,
        "adjudication_threshold": 2.0,
        "retention_days": 90,
        "platform": "prolific",
        "platform_study_id": "65a1b2c3d4e5f60718293a4b",
        "reward": 150,
        "currency": "USD",
        "platform_fee_percent": 42.8,
        "bonus_rule": "per_extra_pair:20",
        "finish_counts_flags": True,
        "finish_counts_skips": True,
        "skip_limit": 2,
        "instructed_checks": [
            {
                "text": "Pick Somewhat.",
                "options": ["No", "Somewhat"],
                "expected": "Somewhat",
                "after": 1,
            }
        ],
        "exclusion_rules": {"max_gold_failures": 1, "min_median_seconds": 5.0},
    }
    assert set(source) == set(SETTINGS)  # every setting of the file is exercised
    path = tmp_path / "source.json"
    path.write_text(json.dumps(source), encoding="utf-8")
    run("studies", "create", "src", "--settings", str(path))


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_export_then_import_gives_the_same_settings(run, db_url, tmp_path: Path, suffix):
    _designed(run, tmp_path)
    exported = tmp_path / f"settings{suffix}"
    assert "written to" in run("studies", "export-settings", "--study", "src", str(exported))
    text = exported.read_text(encoding="utf-8")
    loaded = yaml.safe_load(text) if suffix == ".yaml" else json.loads(text)
    assert loaded["prb_annotate_settings"] == 1
    assert loaded["practice_pairs"][0]["expected"] == PRACTICE_PAIRS[0]["expected"]
    assert "seed" not in loaded
    assert "pool_open" not in loaded
    assert "name" not in loaded
    run("studies", "create", "copy")
    refused = run("studies", "import-settings", "--study", "copy", str(exported), code=1)
    assert "pass --yes to confirm it; nothing was changed" in refused  # overlap and plan
    run("studies", "import-settings", "--study", "copy", str(exported), "--yes")
    source, copy = _study(db_url, "src"), _study(db_url, "copy")
    assert (
        copy.exclusion_rules
        == source.exclusion_rules
        == {
            "max_gold_failures": 1,
            "min_median_seconds": 5.0,
        }
    )
    assert copy.rules_set_at is not None  # set through the rules' own record
    source, copy = settings_of(source), settings_of(copy)
    wanted = {k: v for k, v in source.items() if k in SETTINGS}
    assert {k: v for k, v in copy.items() if k in SETTINGS} == wanted
    assert copy["comprehension_attempts"] == 3
    assert len(copy["practice_pairs"]) == 2
    entry = _audit(db_url)[-1]
    assert entry.action == "study.settings_import"
    assert entry.after["settings_file"] == str(exported)
    assert entry.before["overlap"] == 3
    assert entry.after["overlap"] == 5


def test_a_partial_yaml_file_changes_only_what_it_gives(run, db_url, tmp_path: Path):
    run("studies", "create", "s", "--overlap", "4", "--completion-code", "KEEP")
    path = tmp_path / "training.yml"
    path.write_text(
        "comprehension_attempts: 1\n"
        "questionnaire: rmbench\n"
        "comprehension_questions:\n"
        '  - id: sides\n    text: Same response twice?\n    options: [Yes please, "No"]\n'
        "    correct: [1]\n",
        encoding="utf-8",
    )
    run("studies", "import-settings", "--study", "s", str(path), "--yes")
    study = _study(db_url, "s")
    assert (study.overlap, study.completion_code, study.comprehension_attempts) == (4, "KEEP", 1)
    assert study.questionnaire == TEMPLATES["rmbench"].stored()
    assert study.comprehension_questions[0]["options"] == ["Yes please", "No"]
    shown = " ".join(run("studies", "show", "s").split())  # (the console expands tabs)
    assert "training 0 practice pair(s), 1 comprehension question(s), 1 attempt(s)" in shown


def test_a_questionnaire_that_cannot_be_read_is_located_and_nothing_changes(
    run, db_url, tmp_path: Path
):
    run("studies", "create", "s")
    path = tmp_path / "q.yaml"
    path.write_text(
        "overlap: 2\nquestionnaire:\n  questions:\n"
        "    - {key: style, label: Style, text: Style?, role: tie}\n"
        "    - {key: fit, label: Fit, text: Fit?, points: [1, 3], role: diverge}\n",
        encoding="utf-8",
    )
    refused = " ".join(run("studies", "import-settings", "--study", "s", str(path), code=1).split())
    assert f"{path}, questionnaire.questions[1]: points: expected 2 to 11 consecutive" in refused
    study = _study(db_url, "s")
    assert (study.overlap, study.questionnaire) == (3, DEFAULT_QUESTIONNAIRE.stored())


def test_the_cli_sets_a_template_or_a_questionnaire_file_and_shows_it(run, db_url, tmp_path):
    run("studies", "create", "s", "--questionnaire", "pairwise")
    assert _study(db_url, "s").questionnaire == TEMPLATES["pairwise"].stored()
    path = tmp_path / "asked.yaml"
    path.write_text(
        "questions:\n  - {key: tone, label: Tone, text: Which tone?, choices: [Warm, Cold]}\n"
        "  - {key: fit, label: Fit, text: Does it fit?, role: diverge}\n",
        encoding="utf-8",
    )
    run("studies", "edit", "s", "--questionnaire", str(path), "--yes")
    asked = parse_questionnaire(_study(db_url, "s").questionnaire)
    entry = _audit(db_url)[-1]  # recorded like any setting: before and after
    assert entry.before["questionnaire"] == TEMPLATES["pairwise"].stored()
    assert entry.after["questionnaire"] == asked.stored()
    assert (asked.keys, asked.target, asked.question("tone").choices) == (
        ("tone", "fit"),
        "fit",
        ("Warm", "Cold"),
    )
    shown = " ".join(run("studies", "show", "s").split())
    assert "question tone (describe) Tone: 1=Warm, 2=Cold" in shown
    wrong = run("studies", "edit", "s", "--questionnaire", "likert", "--yes", code=1)
    assert "expected a template (prb, rmbench, pairwise) or a YAML or JSON file" in wrong


def test_edit_takes_a_settings_file_and_its_own_options_win(run, db_url, tmp_path: Path):
    run("studies", "create", "s")
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"overlap": 2, "practice_pairs": PRACTICE_PAIRS}), encoding="utf-8")
    run("studies", "edit", "s", "--settings", str(path), "--overlap", "6", "--yes")
    study = _study(db_url, "s")
    assert (study.overlap, [p["id"] for p in study.practice_pairs]) == (6, ["p1", "p2"])


BAD_FILES = [
    ("bad.json", '{"overlap": 3,\n "guidelines": }', "bad.json, line 2, column 16: not valid JSON"),
    ("bad.yaml", "overlap: [3\nguidelines: x\n", "bad.yaml, line 2, column 11: not valid YAML"),
    ("bad.json", '{"overlap": 3, "overlap": 4}', "the key 'overlap' appears twice"),
    ("bad.yaml", "- overlap\n", "bad.yaml: expected a mapping of setting names to values"),
    ("bad.toml", "overlap = 3", "bad.toml: expected a .yaml, .yml or .json file"),
    ("bad.yaml", "overlap: three\n", "bad.yaml, field 'overlap': expected a valid integer, got"),
    ("bad.yaml", "seed: 4\n", "bad.yaml, field 'seed': unknown field"),
    ("bad.yaml", "guidelines: &g x\nconsent_text: *g\n", "bad.yaml, line 2, column 15: YAML"),
    (  # YAML reads an unquoted No as false: refused, not stored as "False"
        "bad.yaml",
        "comprehension_questions:\n- {id: q, text: Same, options: [Yes, No], correct: [1]}\n",
        "field 'comprehension_questions[0].options[0]': expected a valid string, got True",
    ),
    (
        "bad.json",
        json.dumps(
            {"practice_pairs": [{**PRACTICE_PAIRS[0], "expected": {"relevance": {"A": "5"}}}]}
        ),
        "bad.json, field 'practice_pairs[0].expected.relevance.A': expected a valid integer",
    ),
    (
        "bad.json",
        json.dumps({"comprehension_questions": [{**QUESTIONS[0], "correct": [5]}]}),
        "bad.json: comprehension question 1 ('sides'), field 'correct': expected indices",
    ),
    ("bad.yaml", "overlap: 0\n", "bad.yaml: overlap (annotators per pair) must be at least 1"),
    (
        "bad.yaml",
        "exclusion_rules: {min_gold_accuracy: 2}\n",
        "bad.yaml: exclusion rules: min_gold_accuracy: input should be less than or equal to 1",
    ),
    (  # issue 33.6: at 0 any positive difference would diverge
        "sesoi.yaml",
        "smallest_effect: 0\n",
        "sesoi.yaml, field 'smallest_effect': expected a number above 0 (or empty: the margin)",
    ),
]


@pytest.mark.parametrize(("name", "content", "expected"), BAD_FILES)
def test_a_bad_file_is_refused_located_and_changes_nothing(
    run, db_url, tmp_path: Path, name, content, expected
):
    run("studies", "create", "s", "--overlap", "3")
    before = settings_of(_study(db_url, "s"))
    audited = len(_audit(db_url))
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    output = run("studies", "import-settings", "--study", "s", str(path), code=1)
    assert expected in " ".join(output.split()), output
    assert settings_of(_study(db_url, "s")) == before
    assert len(_audit(db_url)) == audited


def test_every_problem_of_a_file_is_listed(run, tmp_path: Path):
    run("studies", "create", "s")
    path = tmp_path / "many.yaml"
    path.write_text("overlap: x\ngold_rate: y\nunknown: 1\n", encoding="utf-8")
    output = run("studies", "import-settings", "--study", "s", str(path), code=1)
    for field in ("overlap", "gold_rate", "unknown"):
        assert f"many.yaml, field '{field}'" in output


def test_studies_training_lists_where_each_annotator_stands(run, db_url, tmp_path: Path):
    from annotate.db import write_session
    from annotate.domain.study import accounts
    from annotate.services.participant.training import answer_check

    path = tmp_path / "t.json"
    path.write_text(
        json.dumps({"comprehension_questions": QUESTIONS, "comprehension_attempts": 1}),
        encoding="utf-8",
    )
    run("studies", "create", "s", "--settings", str(path))
    engine = make_engine(db_url)
    try:
        with write_session(engine) as session:
            ids = [int(accounts.create_account(session, n)[0].id) for n in ("ana", "bob", "cy")]
        answer_check(engine, ids[0], study="s", answers={"sides": [1], "dims": [0, 2]})
        answer_check(engine, ids[1], study="s", answers={"sides": [0], "dims": [0, 2]})
    finally:
        engine.dispose()
    lines = [
        " ".join(line.split()) for line in run("studies", "training", "--study", "s").splitlines()
    ]
    assert lines[0].startswith("ana passed practice 0 attempts 1 20")
    assert lines[1].startswith("bob failed practice 0 attempts 1 20")
    assert lines[2] == "2 started: 1 passed, 1 failed (screened out), 0 in training"


def test_exclusion_rules_in_a_file_are_refused_once_the_study_has_ratings(
    run, db_url, tmp_path: Path
):
    from annotate.services.admin.demo import set_up_demo

    engine = make_engine(db_url)
    try:
        set_up_demo(engine, simulated_annotators=2)
    finally:
        engine.dispose()
    path = tmp_path / "rules.yaml"
    path.write_text("overlap: 2\nexclusion_rules: {max_gold_failures: 1}\n", encoding="utf-8")
    output = run("studies", "import-settings", "--study", "demo", str(path), "--yes", code=1)
    assert "rules.yaml: study 'demo' has ratings since" in " ".join(output.split())
    demo = _study(db_url, "demo")
    assert (demo.exclusion_rules, demo.overlap) == ({}, 3)  # all or nothing
