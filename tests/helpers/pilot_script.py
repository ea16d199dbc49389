"""The pilot crowd study of the end-to-end test (issue 22, item 10), as a script: the dataset,
the study's settings as an admin types them, the three participants and what each enters, and
the ledger of what was entered, pair by pair, as the test saw it on the page.

Values are scripted by response (chosen / rejected) so that the study's outcome is known in
advance (participant 1 puts chosen above rejected on rubric alignment, participant 2 below,
participant 3 level: every pair two of them rated is a disagreement); the test turns them into
the sides the page shows, reading which text it shows as Response A. The checks
(`pilot_checks`) compare the database and every export with the ledger.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotate.vocabulary import DIMENSIONS
from tests.helpers.browser_helpers import LAPTOP, PHONE
from tests.helpers.rating_entry import PairEntry

STUDY = "pilot"
SEED = 2026
OVERLAP = 3
QUOTA = 6  # pairs per person: 3 rated, a flag, a skip, and the one Finish gives back
FINISH_MINIMUM = 3
COMPLETION_CODE = "DONE-PILOT-7"
SCREENOUT_CODE = "OUT-PILOT-7"
CONSENT = (
    "**Pilot study on personalised answers.** You read a question and two answers and rate "
    "them for about ten minutes. You may stop at any time."
)
SURVEY = [
    {"id": "age", "text": "Your age band", "kind": "choice", "options": ["18-29", "30-49", "50+"]},
    {"id": "field", "text": "Your field of work", "kind": "text"},
]
PRACTICE = {
    "id": "basil",
    "question": "How do I keep basil alive indoors?",
    "rubric_aspects": [{"aspect": "Short steps", "evidence": "Asks for lists", "reason": "Busy"}],
    "response_a": "Water it when the soil is dry and give it six hours of light.",
    "response_b": "Basil is a herb of the mint family.",
    "expected": {"relevance": {"A": 5, "B": 2}},
    "expected_aspects": {"A": [2], "B": [0]},
    "expected_preference": -2,
    "explanations": {"relevance": "Response B does not answer the question."},
}
QUESTION = {
    "id": "sides",
    "text": "Is Response A always the better one?",
    "options": ["Yes", "No"],
    "correct": [1],
}
TRAINING = {
    "practice_pairs": [PRACTICE],
    "comprehension_questions": [QUESTION],
    "comprehension_attempts": 2,
}
MAX_STRAIGHTLINING = 0.5  # the pre-registered exclusion rule
ADJUDICATION_THRESHOLD = 2
FLAG_NOTE = "Checked with the source: the answer is whole."
EXPERT = "expert-1"

# ---------------------------------------------------------------- the dataset

TOPICS = ("sourdough", "bouldering", "jazz piano", "balcony tomatoes", "chess openings", "kites")
DOMAIN_FILES = {"Art_and_Entertainment": TOPICS[:3], "Society_and_Culture": TOPICS[3:]}


def records() -> list[dict[str, Any]]:
    """Six pairs with two rubric aspects each; every text says which pair it belongs to."""
    return [
        {
            "id": f"pilot_{n}",
            "question": f"How do I get better at {topic}? (question {n})",
            "profile": [{"id": f"p{n}", "category": "hobbies", "text": f"Weekends: {topic}."}],
            "rubric_aspects": [
                {"aspect": f"Short steps for {topic}", "evidence": "Lists", "reason": "Busy"},
                {"aspect": f"Cheap gear for {topic}", "evidence": "Student", "reason": "Money"},
            ],
            "narrative": f"I have tried {topic} for a year and feel stuck.",
            "category": "hobbies",
            "chosen": f"Answer kiwi {n}: three short, cheap steps to improve your {topic}.",
            "rejected": f"Answer plum {n}: a long history of {topic} and its famous masters.",
        }
        for n, topic in enumerate(TOPICS)
    ]


def domain_of(record_id: str) -> str:
    topic = TOPICS[int(record_id.rsplit("_", 1)[1])]
    return next(domain for domain, topics in DOMAIN_FILES.items() if topic in topics)


def write_dataset(folder: Path) -> list[Path]:
    """The dataset as the benchmark ships it: one JSONL file per domain, named after it."""
    by_topic = {r["question"].split("at ", 1)[1].split("?")[0]: r for r in records()}
    files = []
    for domain, topics in DOMAIN_FILES.items():
        path = folder / f"{domain}_test.jsonl"
        path.write_text("".join(json.dumps(by_topic[t]) + "\n" for t in topics), "utf-8")
        files.append(path)
    return files


# ---------------------------------------------------------------- what the participants do

Scores = tuple[int, int, int, int]  # factuality, relevance, helpfulness, rubric alignment


@dataclass(frozen=True)
class Rate:
    """Rate the pair shown. Values by response; `preference` +2 (chosen much better) .. -2;
    `submit`: how the keyboard participant sends it (a key, or 'Enter' on Submit)."""

    chosen: Scores
    rejected: Scores
    marks: dict[str, tuple[int, int]]  # response -> coverage of aspect 1, 2
    preference: int
    rationale: str = ""
    comment: str = ""
    submit: str = "Control+Enter"


@dataclass(frozen=True)
class Revise:
    """Go back to the pair of step `step` and change what is named (by response)."""

    step: int
    scores: dict[tuple[str, str], int] = field(default_factory=dict)
    marks: dict[tuple[str, int], int] = field(default_factory=dict)
    preference: int | None = None
    rationale: str | None = None


@dataclass(frozen=True)
class Flag:
    """Flag the pair shown with only a reason (no answers): set aside like a skip."""

    reason: str
    submit: str = "Control+s"


@dataclass(frozen=True)
class Skip:
    reason: str


Step = Rate | Revise | Flag | Skip


@dataclass(frozen=True)
class Person:
    name: str
    device: str  # mouse, keyboard or touch
    viewport: dict[str, int]
    pid: str  # Prolific's PROLIFIC_PID, STUDY_ID and SESSION_ID in the link
    session: str
    age: str
    field_of_work: str
    practice: tuple[int, int, int, int, int]  # A's scores, B's, A's mark, B's, preference 1-5
    check_answers: tuple[str, ...]  # the comprehension check's answers, attempt by attempt
    steps: tuple[Step, ...]

    def link(self, template: str) -> str:
        """The crowd link as Prolific fills it in for this participant."""
        return (
            template.replace("{{%PROLIFIC_PID%}}", self.pid)
            .replace("{{%STUDY_ID%}}", "65a0b1c2d3e4f5a6b7c8d9e0")
            .replace("{{%SESSION_ID%}}", self.session)
        )


MOUSE = Person(
    name="mouse",
    device="mouse",
    viewport=LAPTOP,
    pid="5f1a2b3c4d5e6f7a8b9c0d11",
    session="aa11bb22cc33dd44ee55ff66",
    age="30-49",
    field_of_work="nursing in a city hospital",
    practice=(5, 2, 2, 0, 1),
    check_answers=("No",),
    steps=(
        Rate((4, 5, 4, 5), (4, 4, 3, 2), {"chosen": (2, 2), "rejected": (0, 1)}, +2,
             rationale="Mouse on its first pair: steps and cheap gear"),
        Rate((3, 4, 4, 4), (5, 3, 2, 1), {"chosen": (2, 1), "rejected": (1, 0)}, +1,
             comment="Mouse note: both answers are polite"),
        Skip("Mouse skips: I know nothing of this topic"),
        Revise(0, scores={("chosen", "helpfulness"): 2, ("rejected", "factuality"): 3},
               marks={("rejected", 1): 2}, preference=+1,
               rationale="Mouse on its first pair, revised: steps, little on gear"),
        Rate((5, 5, 5, 4), (4, 5, 3, 1), {"chosen": (1, 2), "rejected": (0, 0)}, -1,
             rationale="Mouse: the other one reads better, oddly"),
        Flag("Mouse flags: the second answer is cut off"),
    ),
)  # fmt: skip
KEYBOARD = Person(
    name="keyboard",
    device="keyboard",
    viewport=LAPTOP,
    pid="6b2c3d4e5f6a7b8c9d0e1f22",
    session="bb22cc33dd44ee55ff66aa11",
    age="50+",
    field_of_work="teaching maths in Leeds",
    practice=(4, 1, 2, 1, 2),
    check_answers=("Yes", "No"),  # wrong once, then right
    steps=(
        Rate((2, 3, 2, 1), (4, 4, 5, 4), {"chosen": (0, 1), "rejected": (2, 2)}, -2,
             rationale="Keys: the other answer fits me far better"),
        Flag("Keys flag: offensive wording in both", submit="Control+s"),
        Rate((3, 2, 3, 2), (3, 5, 4, 5), {"chosen": (1, 0), "rejected": (2, 1)}, -1,
             comment="Keys comment, typed after Tab", submit="Control+s"),
        Revise(2, scores={("rejected", "relevance"): 2}, marks={("chosen", 0): 0}),
        Skip("Keys skip: the question is unclear"),
        Rate((1, 2, 1, 2), (2, 2, 3, 5), {"chosen": (1, 1), "rejected": (1, 2)}, 0,
             rationale="Keys: a tie for me", submit="Enter"),
    ),
)  # fmt: skip
PHONE_PERSON = Person(
    name="phone",
    device="touch",
    viewport=PHONE,
    pid="7c3d4e5f6a7b8c9d0e1f2a33",
    session="cc33dd44ee55ff66aa11bb22",
    age="18-29",
    field_of_work="",
    practice=(3, 3, 1, 1, 3),
    check_answers=("No",),
    steps=(
        Rate((3, 3, 3, 3), (3, 3, 3, 3), {"chosen": (1, 1), "rejected": (1, 1)}, 0,
             rationale="Phone: both look the same to me"),
        Rate((4, 4, 4, 4), (4, 4, 4, 4), {"chosen": (2, 1), "rejected": (0, 1)}, +1),
        Skip("Phone skips this one"),
        Revise(1, preference=-1, rationale="Phone changed its mind"),
        Flag("Phone flags: odd characters on the page"),
        Rate((5, 4, 4, 3), (4, 4, 3, 3), {"chosen": (2, 2), "rejected": (1, 1)}, +1,
             comment="Phone comment"),
    ),
)  # fmt: skip
PEOPLE = (MOUSE, KEYBOARD, PHONE_PERSON)
"""Each rates 3 pairs (the phone straight-lines 2 of them: the pre-registered rule excludes it),
flags one, skips one, revises one and finishes with the 6th pair open."""
ADJUDICATION = Rate((4, 4, 4, 5), (4, 4, 4, 2), {"chosen": (2, 2), "rejected": (1, 0)}, +2)


# ---------------------------------------------------------------- the ledger


@dataclass
class Given:
    """What one person left on one pair, as the page showed it, after every step."""

    person: str
    assignment_id: int
    record_id: str
    number: int  # its place in the person's queue, from 1
    chosen_side: str  # where the test saw the chosen response
    status: str = "pending"
    purpose: str = "rating"
    scores: dict[tuple[str, str], int] = field(default_factory=dict)  # (response, dim)
    score_history: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    marks: dict[tuple[str, int], int] = field(default_factory=dict)  # (response, aspect)
    mark_history: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    preference: int | None = None  # by response
    rationale: str = ""
    preference_history: list[tuple[int, str]] = field(default_factory=list)
    comment: str = ""
    flag_reason: str = ""
    skip_reason: str = ""
    flag_resolution: str = ""  # what the admin made of the flag or skip, and their note
    flag_note: str = ""

    def side_of(self, response: str) -> str:
        other = "B" if self.chosen_side == "A" else "A"
        return self.chosen_side if response == "chosen" else other

    def side_preference(self, preference: int) -> int:
        """A preference by response as the page's scale holds it (-2 A much better)."""
        return -preference if self.chosen_side == "A" else preference

    def rate(self, step: Rate) -> PairEntry:
        """Record a first rating; the page entry (by side) that gives it."""
        values = {"chosen": step.chosen, "rejected": step.rejected}
        self.scores = {(r, d): values[r][n] for r in values for n, d in enumerate(DIMENSIONS)}
        self.marks = {(r, i): m for r, pair in step.marks.items() for i, m in enumerate(pair)}
        self.preference, self.rationale, self.comment = (
            step.preference,
            step.rationale,
            step.comment,
        )
        self.status = "done"
        return PairEntry(
            scores={(self.side_of(r), d): v for (r, d), v in self.scores.items()},
            marks={(self.side_of(r), i): v for (r, i), v in self.marks.items()},
            preference=self.side_preference(step.preference) + 3,
            rationale=step.rationale or None,
            comment=step.comment or None,
        )

    def revise(self, step: Revise) -> PairEntry:
        """Record a revision; the page entry (only what changes)."""
        for key, value in step.scores.items():
            self.score_history.setdefault(key, []).append(self.scores[key])
            self.scores[key] = value
        for key, value in step.marks.items():
            self.mark_history.setdefault(key, []).append(self.marks[key])
            self.marks[key] = value
        said = (self.preference, self.rationale)
        preference = self.preference if step.preference is None else step.preference
        rationale = self.rationale if step.rationale is None else step.rationale
        if (preference, rationale) != said:
            assert self.preference is not None
            self.preference_history.append((self.preference, self.rationale))
            self.preference, self.rationale = preference, rationale
        return PairEntry(
            scores={(self.side_of(r), d): v for (r, d), v in step.scores.items()},
            marks={(self.side_of(r), i): v for (r, i), v in step.marks.items()},
            preference=None if step.preference is None else self.side_preference(preference) + 3,
            rationale=step.rationale,
        )


def which_pair(question: str, response_a: str) -> tuple[str, str]:
    """(record id, the side showing the chosen response) of a pair as the page shows it."""
    by_question = {r["question"]: r for r in records()}
    record = by_question[question.split("\n")[-1].strip()]
    shown = response_a.strip()
    assert shown in (record["chosen"], record["rejected"]), shown
    return record["id"], "A" if shown == record["chosen"] else "B"
