"""The database tables.

Why 758 lines: every table in one module: the schema reads at a glance beside its migrations.

A study owns pairs; an assignment gives one pair to one annotator, with the side the chosen
response is shown on and the pair's place in that annotator's queue; a rating is one score of
one response on one dimension, and its earlier values are kept as revisions.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from annotate.vocabulary import (
    DEFAULT_EQUIVALENCE_MARGIN,
    AssignmentStatus,
    PoolOrder,
    PredictionStatus,
    Purpose,
    Role,
)


class _Row(Protocol):
    id: int | None


def stored_id(row: _Row) -> int:
    """The id of a row read from (or flushed to) the database; the tables type it optional
    only because a new row has none until it is flushed."""
    if row.id is None:
        raise ValueError(f"{type(row).__name__} is not stored yet")
    return row.id


def utcnow() -> datetime:
    return datetime.now(UTC)


def _json(**kwargs: Any) -> Any:
    return Field(sa_column=Column(JSON, nullable=False), **kwargs)


def _no_turns() -> list[dict[str, str]]:
    """A pair's conversation when a row is inserted without one (a single-turn pair)."""
    return []


class Study(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    seed: int
    guidelines: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    equivalence_margin: float = DEFAULT_EQUIVALENCE_MARGIN
    margin_unit: str = Field(default="points", description="'points' or 'sd' (of the differences)")
    margin_set_at: datetime | None = Field(
        default_factory=utcnow,
        description="when the analysis plan (margin, its unit, smallest effect, alpha, planned "
        "size) was last set",
    )
    margin_history: list[dict[str, Any]] = _json(
        default_factory=list,
        description="earlier analysis plans: {margin, unit, smallest_effect, alpha, "
        "planned_pairs, stopping_rule, sequential, internal_pilot, set_at, changed_at, forced, "
        "after_data}, "
        "oldest first "
        "(annotate.domain.study.plan)",
    )
    smallest_effect: float | None = Field(
        default=None,
        description="pre-registered smallest effect of interest, in the margin's unit "
        "(None: the margin)",
    )
    alpha: float = Field(default=0.05, description="pre-registered significance level")
    planned_pairs: int | None = Field(
        default=None, description="pre-registered sample size: pairs to analyse (None: not set)"
    )
    stopping_rule: str = Field(
        default="",
        sa_column=Column(Text, nullable=False, default=""),
        description="pre-registered stopping rule, in words (empty: none)",
    )
    sequential: dict[str, Any] | None = Field(
        default=None,
        sa_column=Column(JSON, nullable=True),
        description="pre-registered group-sequential plan: {looks, unit, alpha_spending, "
        "futility, beta, binding} (annotate.vocabulary.check_sequential_plan; None: none)",
    )
    internal_pilot: dict[str, Any] | None = Field(
        default=None,
        sa_column=Column(JSON, nullable=True),
        description="pre-registered internal pilot: {first_stage_pairs, tie_alpha} "
        "(annotate.vocabulary.check_internal_pilot; None: none)",
    )
    count_simulated: bool = Field(
        default=False,
        description="simulated annotators' ratings count in the verdict and the card (demo)",
    )
    completion_code: str | None = None
    overlap: int = Field(default=3, description="k: distinct annotators wanted per pair")
    reservation_minutes: int = Field(
        default=60, description="open pool: how long a pulled pair stays reserved for its annotator"
    )
    gold_rate: float = Field(default=0.0, description="share of gold pairs mixed into queues")
    pool_open: bool = Field(
        default=False, description="open pool: annotators of the study pull pairs still needing k"
    )
    pool_quota: int | None = Field(
        default=None, description="open pool: most pairs one annotator may pull (None: no limit)"
    )
    finish_minimum: int | None = Field(
        default=None,
        description="crowd: pairs a participant rates before they may finish early with the "
        "completion code (None: at the pool quota)",
    )
    finish_counts_flags: bool = Field(
        default=False,
        description="crowd: a pair flagged without scores counts towards the finish rule",
    )
    finish_counts_skips: bool = Field(
        default=False, description="crowd: a skipped pair counts towards the finish rule"
    )
    skip_limit: int | None = Field(
        default=None,
        description="crowd: pairs a participant may set aside (skip or flag without scores, "
        "when they do not count) before the pool stops; short of the finish rule then: screened "
        "out (None: the pool quota)",
    )
    pool_order: str = Field(
        default=PoolOrder.DEPTH,
        description="open pool: 'depth' (partly rated pairs first, to k) or 'breadth' (fewest "
        "slots first); studies from before 0014 keep 'breadth'",
    )
    enrolment_open: bool = Field(
        default=False, description="crowd links (?study=...&PROLIFIC_PID=...) may create accounts"
    )
    close_at_stop: bool = Field(
        default=False,
        description="crowd enrolment closes itself when the group-sequential plan says stop "
        "(annotate.services.admin.monitor)",
    )
    enrolment_closed: dict[str, Any] | None = Field(
        default=None,
        sa_column=Column(JSON, nullable=True),
        description="when and why the plan closed enrolment: {at, look, n_looks, n_observed, "
        "reason} (None: it never did)",
    )
    enrolment_key: str | None = Field(
        default=None, description="the secret in the study's crowd link (set when enrolment opens)"
    )
    consent_text: str = Field(
        default="",
        sa_column=Column(Text, nullable=False, default=""),
        description="crowd: the consent page's text (Markdown); empty: no consent page",
    )
    survey_questions: list[dict[str, Any]] = _json(
        default_factory=list,
        description="crowd: survey after consent: {id, text, kind: choice|text, options}",
    )
    screenout_code: str | None = Field(
        default=None, description="crowd: the platform's code for people screened out"
    )
    completion_url: str | None = Field(
        default=None, description="crowd: where the done page sends people; {code} is replaced"
    )
    ask_preference: bool = Field(
        default=False, description="ask which response fits the user better, after the scores"
    )
    rationale: str = Field(
        default="off", description="a rationale with the preference: off, optional or required"
    )
    aspect_checklist: bool = Field(
        default=False, description="mark each rubric aspect's coverage (0/1/2) per response"
    )
    exclusion_rules: dict[str, Any] = _json(
        default_factory=dict,
        description="pre-registered annotator exclusion rules (domain.operations.exclusion_rules)",
    )
    rules_set_at: datetime | None = Field(
        default=None, description="when the exclusion rules were last set (None: never)"
    )
    rules_history: list[dict[str, Any]] = _json(
        default_factory=list, description="earlier exclusion rules: {rules, set_at}, oldest first"
    )
    practice_pairs: list[dict[str, Any]] = _json(
        default_factory=list,
        description="training: practice pairs with expected scores and explanations "
        "(annotate.domain.crowd.training.PracticePair)",
    )
    comprehension_questions: list[dict[str, Any]] = _json(
        default_factory=list,
        description="training: questions about the task, {id, text, options, correct}",
    )
    comprehension_attempts: int = Field(
        default=2, description="training: attempts at the comprehension check before screen-out"
    )
    adjudication_threshold: float | None = Field(
        default=None,
        description="a pair goes to adjudication when the spread (max - min) of its annotators' "
        "chosen - rejected rubric-alignment differences is at least this; None: flags only",
    )
    retention_days: int | None = Field(
        default=None,
        description="participants' platform ids and free text older than this many days are "
        "listed and erased by `prb-annotate retention` (None: kept until erased)",
    )
    platform: str | None = Field(
        default=None,
        description="crowd: the platform the participants come from ('prolific', "
        "'completion_url'; None: none) (annotate.domain.platforms)",
    )
    platform_study_id: str | None = Field(
        default=None, description="crowd: the study's id on its platform (None: not set)"
    )
    reward: int | None = Field(
        default=None,
        description="crowd: pay per completed participant, in minor units of `currency` "
        "(pence, cents) (None: not set)",
    )
    currency: str = Field(default="GBP", description="crowd: the currency of reward and bonuses")
    platform_fee_percent: float = Field(
        default=0.0, description="crowd: the platform's fee on rewards and bonuses, in percent"
    )
    bonus_rule: str = Field(
        default="",
        description="crowd: the bonus rule (annotate.domain.crowd.payment_rules): '' none, "
        "'per_extra_pair:N' N minor units per rated pair beyond the finish minimum",
    )
    instructed_checks: list[dict[str, Any]] = _json(
        default_factory=list,
        description="crowd: instructed-response checks in the rating flow: {text, options, "
        "expected, after} (annotate.domain.study.instructed_checks)",
    )
    comparison: dict[str, Any] = _json(
        default_factory=dict,
        description="a comparison study of two downstream conditions (annotate.domain."
        "downstream.comparison): {source_study, expected, baseline, identical, n_questions}; "
        "'chosen' is the expected condition's output (never sent to the browser); empty: not one",
    )
    questionnaire: dict[str, Any] = _json(
        default_factory=DEFAULT_QUESTIONNAIRE.stored,
        description="the study's questions, scales, roles in the verdict and span labels "
        "(annotate.questionnaire; read it with annotate.domain.study.questionnaire)",
    )
    created_at: datetime = Field(default_factory=utcnow)


class Pair(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("study_id", "record_id", name="uq_pair_study_record"),)

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    record_id: str = Field(description="the benchmark record's own `id`")
    domain: str = Field(index=True)
    category: str
    question: str = Field(sa_column=Column(Text, nullable=False))
    narrative: str = Field(sa_column=Column(Text, nullable=False))
    profile: list[dict[str, Any]] = _json(default_factory=list)
    rubric_aspects: list[dict[str, Any]] = _json(default_factory=list)
    chosen: str = Field(sa_column=Column(Text, nullable=False))
    rejected: str = Field(sa_column=Column(Text, nullable=False))
    conversation: list[dict[str, str]] = Field(
        default_factory=list,
        sa_column=Column(JSON, nullable=False, default=_no_turns),
        description="the turns before the compared responses, each {role: 'user' | "
        "'assistant' | 'system', content}; empty for a single-turn pair (its question)",
    )
    extra: dict[str, Any] = _json(default_factory=dict)
    content_hash: str
    gold_preference: str | None = Field(
        default=None,
        description="for a gold pair, the expected rubric preference: 'chosen', "
        "'rejected' or 'equal'; None for an ordinary pair",
    )
    created_at: datetime = Field(default_factory=utcnow)


class Annotator(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    role: str = Role.ANNOTATOR
    token_hash: str = Field(index=True, unique=True)
    active: bool = True
    external_id: str | None = Field(
        default=None,
        unique=True,
        description="crowd platform participant id, e.g. 'prolific:5f1a...'",
    )
    enrolment_session_hash: str | None = Field(
        default=None, description="hash of the crowd session id the participant enrolled with"
    )
    simulated: bool = Field(
        default=False, description="a simulated annotator (made-up ratings, not a person)"
    )
    session_epoch: int = Field(
        default=0, description="raised at each logout: the session values issued before stop"
    )
    created_at: datetime = Field(default_factory=utcnow)


LIVE_ADJUDICATION = "purpose = 'adjudication' AND status <> 'released'"
"""A pair's live adjudication: at most one per pair (one adjudication per round)."""


class Assignment(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("annotator_id", "pair_id", name="uq_assignment_annotator_pair"),
        Index("ix_assignment_queue", "annotator_id", "study_id", "position"),
        Index(
            "uq_assignment_live_adjudication",
            "pair_id",
            unique=True,
            sqlite_where=text(LIVE_ADJUDICATION),
            postgresql_where=text(LIVE_ADJUDICATION),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    annotator_id: int = Field(foreign_key="annotator.id")
    pair_id: int = Field(foreign_key="pair.id", index=True)
    position: int = Field(description="place in the annotator's shuffled queue, from 0")
    chosen_side: str = Field(description="'A' or 'B': where the chosen response is shown")
    status: str = AssignmentStatus.PENDING
    reserved_until: datetime | None = Field(
        default=None, description="open pool: the reservation lapses at this time if not done"
    )
    skip_reason: str | None = None
    flagged: bool = False
    flag_reason: str | None = None
    comment: str | None = None
    completed_at: datetime | None = None
    side_preference: int | None = Field(
        default=None,
        description="the direct preference by side: -2 A much better .. 0 tie .. +2 B much "
        "better (mapped to chosen/rejected only on the server); None: not asked",
    )
    rationale: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    preference_history: list[dict[str, Any]] = _json(
        default_factory=list,
        description="earlier preferences of a revised pair: {side_preference, rationale, "
        "replaced_at}, oldest first",
    )
    purpose: str = Field(
        default=Purpose.RATING,
        description="'rating' (one of the pair's k) or 'adjudication' (of a disputed pair)",
    )
    focus_losses: int | None = Field(
        default=None,
        description="times the page lost focus (tab hidden, window left) while the pair was "
        "shown, counted in the browser, summed over the submits of the pair (None: not sent)",
    )
    pastes: int | None = Field(
        default=None,
        description="paste events into the rationale while the pair was shown, summed over "
        "its submits (the count only, never the text; None: not sent)",
    )
    released_at: datetime | None = Field(
        default=None,
        description="when its slot went back to the pool (annotate.domain.assignment.release); "
        "a skipped or flagged row keeps its status as data but holds no slot",
    )
    release_reason: str | None = Field(
        default=None, description="why: skipped, flagged, lapsed, or the participant's outcome"
    )
    created_at: datetime = Field(default_factory=utcnow)


class Participation(SQLModel, table=True):
    """A crowd participant in a study: their consent (with its time) and survey answers."""

    __table_args__ = (
        UniqueConstraint("annotator_id", "study_id", name="uq_participation_annotator_study"),
    )

    id: int | None = Field(default=None, primary_key=True)
    annotator_id: int = Field(foreign_key="annotator.id")
    study_id: int = Field(foreign_key="study.id", index=True)
    consent: str = Field(description="'accepted' or 'declined'")
    consent_at: datetime = Field(default_factory=utcnow)
    survey: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON, nullable=True), description="question id -> answer"
    )
    survey_at: datetime | None = None
    withdrawn_at: datetime | None = Field(
        default=None, description="when the participant withdrew from the study (None: did not)"
    )
    finished_at: datetime | None = Field(
        default=None, description="when the participant chose Finish (no further pairs)"
    )
    outcome: str | None = Field(
        default=None,
        description="how the participation ended (annotate.domain.crowd.outcomes; None: not "
        "ended): completed, completed pool empty, screened out, failed checks, withdrawn, "
        "returned, timed out",
    )
    outcome_code: str = Field(
        default="", description="the code the participant was given with the outcome (or none)"
    )
    outcome_reason: str = Field(
        default="",
        sa_column=Column(Text, nullable=False, default=""),
        description="the outcome's reason, as the participant was shown it",
    )
    outcome_at: datetime | None = Field(default=None, description="when the outcome was settled")


class Training(SQLModel, table=True):
    """An annotator's training in a study: practice answers, comprehension attempts, outcome
    (annotate.domain.crowd.training). One row per annotator and study, made at the first answer."""

    __table_args__ = (
        UniqueConstraint("annotator_id", "study_id", name="uq_training_annotator_study"),
    )

    id: int | None = Field(default=None, primary_key=True)
    annotator_id: int = Field(foreign_key="annotator.id")
    study_id: int = Field(foreign_key="study.id", index=True)
    status: str = Field(default="practice", description="practice, check, passed or failed")
    practice: dict[str, Any] = _json(
        default_factory=dict, description="practice pair id -> {scores: side -> dim -> score, at}"
    )
    attempts: list[dict[str, Any]] = _json(
        default_factory=list, description="comprehension attempts: {answers, wrong, at}"
    )
    ended_at: datetime | None = Field(default=None, description="when it was passed or failed")
    created_at: datetime = Field(default_factory=utcnow)


class CheckAnswer(SQLModel, table=True):
    """A participant's answer to one of the study's instructed-response checks (an item that
    tells them which option to pick): one per annotator, study and check, with whether it was
    the option asked for (annotate.domain.crowd.checks)."""

    __table_args__ = (
        UniqueConstraint("study_id", "annotator_id", "check_index", name="uq_checkanswer_check"),
    )

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    annotator_id: int = Field(foreign_key="annotator.id")
    check_index: int = Field(description="the check's place in `study.instructed_checks`, from 0")
    answer: str
    passed: bool
    at: datetime = Field(default_factory=utcnow)


class Rating(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("assignment_id", "response", "dimension", name="uq_rating_score"),
    )

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    response: str = Field(description="'chosen' or 'rejected'")
    dimension: str
    score: int
    seconds: float = Field(description="time spent on the pair, display to submit")
    revision: int = 1
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class EntryKey(SQLModel, table=True):
    """An entry's idempotency key (issue 36.4): made in the annotator's browser for one send of
    a pair's entries (a submit or a skip), stored in the transaction of the write it made. A
    resend of the same key (its answer lost in an outage) is recognised and stores nothing
    again; the unique constraint refuses a second row even if two sends race. Random: it says
    nothing of the sides or the person; it goes with its assignment (cascade)."""

    __table_args__ = (UniqueConstraint("assignment_id", "key", name="uq_entrykey_key"),)

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True, ondelete="CASCADE")
    key: str = Field(max_length=64, description="made by the browser, e.g. a random UUID")
    action: str = Field(description="'submit' or 'skip'")
    outcome: str = Field(description="what the write did: saved, revised, unchanged, skipped")
    at: datetime = Field(default_factory=utcnow)


class RatingRevision(SQLModel, table=True):
    """An earlier value of a rating, kept when the annotator revises it."""

    id: int | None = Field(default=None, primary_key=True)
    rating_id: int = Field(foreign_key="rating.id", index=True)
    revision: int
    score: int
    seconds: float
    created_at: datetime
    replaced_at: datetime = Field(default_factory=utcnow)


class AspectMark(SQLModel, table=True):
    """How well one response covers one rubric aspect of the pair, as one annotator marked it:
    0 not covered, 1 partly, 2 well (stored by response; the page knows only sides)."""

    __table_args__ = (
        UniqueConstraint(
            "assignment_id", "response", "aspect_index", name="uq_aspectmark_assignment_aspect"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    response: str = Field(description="'chosen' or 'rejected'")
    aspect_index: int = Field(description="the aspect's place in the pair's rubric, from 0")
    coverage: int
    revision: int = Field(default=1, description="1, then one more each time it is changed")
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class AspectMarkRevision(SQLModel, table=True):
    """An earlier value of an aspect mark, kept when the annotator changes it."""

    id: int | None = Field(default=None, primary_key=True)
    mark_id: int = Field(foreign_key="aspectmark.id", index=True)
    revision: int
    coverage: int
    created_at: datetime
    replaced_at: datetime = Field(default_factory=utcnow)


class Span(SQLModel, table=True):
    """A stretch of one response marked with one of the study's span labels by one annotator
    (issue 36.3): `start` and `end` are Unicode code points of the STORED text (`text[start:end]`
    in Python), stored by response (the page knows only sides). History in the same table: a
    span removed when the annotator revised the pair keeps its row with `removed_at` set; the
    spans of a pair at a time t are those added before t and not removed by t."""

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    response: str = Field(description="'chosen' or 'rejected'")
    label: str = Field(description="the span label's key (the study's questionnaire)")
    start: int = Field(description="first code point of the span in the stored text, from 0")
    end: int = Field(description="one past its last code point")
    created_at: datetime = Field(default_factory=utcnow)
    removed_at: datetime | None = Field(
        default=None, description="when a revision of the pair removed it (None: current)"
    )


class AspectJudge(SQLModel, table=True):
    """An LLM judge's aspect scores imported for a study (never shown to annotators)."""

    __table_args__ = (UniqueConstraint("study_id", "name", name="uq_aspectjudge_study_name"),)

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    name: str
    source_file: str
    content_hash: str = Field(description="hash of the imported scores (idempotent import)")
    n_pairs: int = 0
    unparsed: list[dict[str, Any]] = _json(
        default_factory=list,
        description="answers the judge did not give properly (the eval shape): {pair_id, "
        "response, scores, problem}; stored and counted, never scored",
    )
    imported_at: datetime = Field(default_factory=utcnow)


class AspectJudgeScore(SQLModel, table=True):
    """A judge's coverage score (0/1/2) of one response on one rubric aspect of a pair."""

    __table_args__ = (
        UniqueConstraint(
            "judge_id", "pair_id", "response", "aspect_index", name="uq_aspectjudgescore_aspect"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    judge_id: int = Field(foreign_key="aspectjudge.id", index=True)
    pair_id: int = Field(foreign_key="pair.id")
    response: str
    aspect_index: int
    coverage: int


class RewardModel(SQLModel, table=True):
    """One reward model's imported results on a study's pairs (never shown to annotators)."""

    __table_args__ = (UniqueConstraint("study_id", "name", name="uq_rewardmodel_study_name"),)

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    name: str
    kind: str = Field(description="'pointwise' (scores) or 'pairwise' (a judge's A/B choice)")
    source_files: list[str] = _json(default_factory=list)
    content_hash: str = Field(description="hash of the imported predictions (idempotent import)")
    n_records: int = Field(default=0, description="records read from the files")
    n_unknown: int = Field(default=0, description="ids not in the study, skipped (allow-unknown)")
    n_missing_score: int = 0
    n_non_finite: int = 0
    n_parse_failed: int = 0
    imported_at: datetime = Field(default_factory=utcnow)


class ModelPrediction(SQLModel, table=True):
    """A reward model's result on one pair: two scores (pointwise) or a judge's choice
    (pairwise); `status` says whether it is usable (vocabulary.PredictionStatus)."""

    __table_args__ = (
        UniqueConstraint("model_id", "pair_id", name="uq_modelprediction_model_pair"),
    )

    id: int | None = Field(default=None, primary_key=True)
    model_id: int = Field(foreign_key="rewardmodel.id", index=True)
    pair_id: int = Field(foreign_key="pair.id", index=True)
    score_chosen: float | None = None
    score_rejected: float | None = None
    prediction: str | None = Field(default=None, description="pairwise: 'A' or 'B'")
    pos_in_a: bool | None = Field(default=None, description="pairwise: chosen was shown as A")
    correct: bool | None = Field(default=None, description="pairwise: the judge chose chosen")
    parse_failed: bool = False
    raw_output: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    status: str = PredictionStatus.OK


class DownstreamCondition(SQLModel, table=True):
    """One downstream condition's outputs imported for a benchmark study: best-of-k responses
    picked by a reward model (`bon:<model>:k<k>`) or a policy's responses (`ppo:<policy>:<tag>`),
    with the LLM judge's scores when its eval file was given (never shown to annotators)."""

    __table_args__ = (
        UniqueConstraint("study_id", "name", name="uq_downstreamcondition_study_name"),
    )

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    name: str = Field(description="e.g. 'bon:skywork-3b:k16', 'ppo:qwen-0.5b:step300'")
    kind: str = Field(description="'bon' or 'ppo'")
    model: str = Field(description="the reward model (bon) or the policy (ppo)")
    variant: str = Field(description="'k<k>' (bon) or the policy's tag (ppo)")
    k: int | None = Field(default=None, description="bon: best of how many samples")
    source_files: list[str] = _json(default_factory=list)
    content_hash: str = Field(description="hash of the imported content (idempotent import)")
    n_records: int = 0
    n_unknown: int = Field(default=0, description="ids not in the study, skipped when told")
    n_judged: int = Field(default=0, description="outputs with the judge's scores")
    n_unparsed: int = Field(default=0, description="judge answers not given properly")
    imported_at: datetime = Field(default_factory=utcnow)


class DownstreamOutput(SQLModel, table=True):
    """One condition's output for one question (a benchmark pair of the study), the reward
    model's score of it (bon) and the judge's per-aspect scores as written (`judge_scores`),
    their mean as written, and whether they are usable (`judge_status`)."""

    __table_args__ = (
        UniqueConstraint("condition_id", "pair_id", name="uq_downstreamoutput_condition_pair"),
    )

    id: int | None = Field(default=None, primary_key=True)
    condition_id: int = Field(foreign_key="downstreamcondition.id", index=True)
    pair_id: int = Field(foreign_key="pair.id", index=True)
    output: str = Field(sa_column=Column(Text, nullable=False))
    rm_score: float | None = None
    judge_scores: list[float] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    judge_average: float | None = None
    judge_status: str | None = Field(
        default=None,
        description="'ok', 'empty', 'out_of_scale', 'wrong_count'; None: no eval file",
    )


class AuditEntry(SQLModel, table=True):
    """One admin action: who did it, when, on which study, and the values before and after."""

    id: int | None = Field(default=None, primary_key=True)
    study_id: int | None = Field(default=None, foreign_key="study.id", index=True)
    who: str = Field(description="the admin account's name, or 'system' (the command line)")
    at: datetime = Field(default_factory=utcnow)
    action: str = Field(description="what was done, e.g. 'study.update', 'pair.exclude'")
    before: dict[str, Any] = _json(default_factory=dict)
    after: dict[str, Any] = _json(default_factory=dict)


class PairExclusion(SQLModel, table=True):
    """A pair left out of the analysis by an admin, with the reason; reversed, not deleted."""

    id: int | None = Field(default=None, primary_key=True)
    pair_id: int = Field(foreign_key="pair.id", index=True)
    reason: str = Field(sa_column=Column(Text, nullable=False))
    by: str
    at: datetime = Field(default_factory=utcnow)
    reversed_at: datetime | None = None
    reversed_by: str | None = None


class FlagResolution(SQLModel, table=True):
    """What an admin did with a flagged or skipped assignment: resolved with a note, or sent to
    adjudication (vocabulary.FlagAction). One per assignment; a later action replaces it."""

    __table_args__ = (UniqueConstraint("assignment_id", name="uq_flagresolution_assignment"),)

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id")
    action: str
    note: str = Field(sa_column=Column(Text, nullable=False))
    by: str
    at: datetime = Field(default_factory=utcnow)


class SiteSecret(SQLModel, table=True):
    """A secret of this database (made by the schema's creation or migration 0016), e.g. the key
    of the annotators' pseudonyms: never exported, never shown."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    value: str


class Erasure(SQLModel, table=True):
    """A participant's data erased from a study (on request, on withdrawal or by retention),
    recorded without anything about the person: the report and the card read this log."""

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    at: datetime = Field(default_factory=utcnow)
    reason: str = Field(description="'request' (an admin), 'withdrawal' (the participant)")
    n_scores: int = Field(default=0, description="scores removed with the person's data")
    after_ratings: bool = Field(
        default=False, description="the study had other people's ratings then (a verdict)"
    )


class PlatformAction(SQLModel, table=True):
    """One action on a study's crowd platform (annotate.domain.platforms.ledger), recorded before
    it is sent so that a retry never sends it twice: an approval, a rejection, a completion
    with a code, a return requested, a released returned or timed-out submission, or a bulk
    bonus payment. `state`: planned, sending, sent, failed; a bonus also creating, created,
    paying and unknown (paid or not: the platform must be checked)."""

    __table_args__ = (UniqueConstraint("study_id", "key", name="uq_platformaction_key"),)

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    key: str = Field(description="what makes it one action: e.g. 'approve:<submission id>'")
    kind: str = Field(description="approve, reject, complete, request_return, release, bonus")
    annotator_id: int | None = Field(default=None, foreign_key="annotator.id", index=True)
    submission_id: str | None = Field(default=None, description="the platform's submission id")
    payload: dict[str, Any] = _json(
        default_factory=dict, description="what is sent (a bonus: its entries and their total)"
    )
    amount: int = Field(default=0, description="a bonus: its total, in minor units")
    state: str = Field(default="planned")
    platform_ref: str | None = Field(
        default=None, description="the platform's id of what was created (a bulk bonus)"
    )
    attempts: int = Field(default=0)
    error: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
