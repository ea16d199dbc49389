"""A pilot crowd study, run through the pages, stores exactly what people entered (issue 22,
item 10): the acceptance test, in headless Chromium against a real `streamlit run` server on a
SQLite file.

1. An admin sets the study up on the admin pages: uploads the dataset (two domain files) on the
   Data page, then on the Studies page the consent text, a two-question survey, the preference
   with an optional rationale, the aspect checklist, overlap 3, the open pool with crowd
   enrolment (6 pairs per person, Finish after 3, the completion code and URL), the training
   (a practice pair and a comprehension question, as YAML) and a pre-registered exclusion rule;
   the crowd link is read from the page.
2. Three participants follow the link, each in a browser context of its own with Prolific's
   ids in the URL: a mouse at 1366x768, the keyboard alone (digits, Tab, Enter, Ctrl+Enter,
   Ctrl+S, Alt+P/N), and a touch phone at 390x844. Each gives consent, answers the survey and
   the training, rates three pairs (scores, aspect marks, preference, rationale or comment),
   revises one, flags one with only a reason, skips one, and finishes with the completion code
   (`pilot_script`: the values, scripted by response; the page's sides are read from the texts
   it shows).
3. The database and every download (the ratings and aspect exports as CSV, JSONL and Parquet,
   the report, the assignments, the payments file, the published card) are compared value by
   value with what was entered (`pilot_checks`).
4. On the pages: a flag resolved, the adjudication threshold, an adjudicator's account, a
   disputed pair sent to them and adjudicated blind; the exclusion rule's effect; the card built
   and downloaded from the Publish page, holding no platform id and no free text but the
   rationale the admin disclosed.

Every wait is on the page's state. Screenshots go to `$PRB_SCREENSHOT_DIR` when set.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from annotate.db import make_engine, read_session, write_session
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from annotate.vocabulary import DIMENSIONS, Role
from tests.helpers import pilot_checks
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    UI_TIMEOUT_MS,
    Recorder,
    choose_option,
    click_until,
    screenshot_dir,
    settle,
    start_server,
    wait_for_pair,
)
from tests.helpers.component_entry import (
    PAIR,
    enter_by_keyboard,
    enter_by_pointer,
    filled_in,
    shown_pair,
    tab_to,
    wait_focus_in,
    wait_shows,
)
from tests.helpers.pilot_script import (
    ADJUDICATION,
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
    TRAINING,
    Flag,
    Given,
    Person,
    Rate,
    Revise,
    Skip,
    which_pair,
    write_dataset,
)
from tests.helpers.rating_entry import PairEntry

pytestmark = BROWSER_MARKS
SLOW_MS = 90_000  # the report's figures (Results page, card): seconds on a loaded machine


@dataclass
class Pilot:
    """The running study: the server, the admin's page, and what the test saw and fetched."""

    url: str
    engine: Any
    admin: Any  # the admin's page (one browser session throughout)
    shots: Path
    link: str = ""  # the crowd link as the Studies page shows it
    ledger: list[Given] = field(default_factory=list)
    practice: dict[str, PairEntry] = field(default_factory=dict)
    downloads: dict[str, bytes] = field(default_factory=dict)

    def shot(self, page: Any, name: str) -> None:
        page.screenshot(path=str(self.shots / f"pilot_{name}.png"))


@pytest.fixture
def pilot(tmp_path: Path, new_page: Any) -> Iterator[Pilot]:
    db = tmp_path / "pilot.db"
    engine = make_engine(str(db))
    with write_session(engine) as session:  # the first admin: made with the command line
        _, token = accounts.create_account(
            session, "boss", role=Role.ADMIN
        )  # (no page makes the first)
    server = start_server(db, tmp_path / "server.log")
    try:
        admin = new_page(LAPTOP)
        admin.goto(f"{server.url}/admin-data?token={token}")
        yield Pilot(server.url, engine, admin, screenshot_dir(tmp_path / "shots"))
    finally:
        server.stop()
        engine.dispose()


def test_a_pilot_crowd_study_stores_exactly_what_people_entered(pilot, new_page, tmp_path):
    """Set up on the pages, three participants, the admin's follow-up, then every value
    compared (on a failure, a screenshot of the page that stopped, to $PRB_SCREENSHOT_DIR)."""
    try:
        _set_up_the_study(pilot, write_dataset(tmp_path))
        for person in PEOPLE:
            _take_part(pilot, new_page, person)
        _resolve_a_flag(pilot)
        _adjudicate_a_disagreement(pilot, new_page)
        _download_everything(pilot)
    except Exception:
        pilot.shot(pilot.admin, "failed_admin")  # where the admin was
        raise
    pilot_checks.check_database(pilot.engine, pilot.ledger, pilot.practice)
    pilot_checks.check_downloads(pilot.engine, pilot.ledger, pilot.downloads)


# ---------------------------------------------------------------- 1. the admin sets it up


def _go_to(page: Any, title: str, heading: str | None = None, *, slow: bool = False) -> None:
    """Open an admin page from the sidebar; wait until it is drawn (`slow`: a page that
    computes the report)."""
    link = page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True)
    drawn = page.get_by_role("heading", name=heading or f"{title}: {STUDY}", exact=True)
    click_until(page, link, drawn, what=f"open {title}")
    settle(page, SLOW_MS if slow else UI_TIMEOUT_MS)


def _confirm(page: Any, saved: str) -> None:
    """The pending change's Confirm (issue 22.2), then its notice."""
    page.get_by_text("confirm to change these settings").wait_for()
    click_until(
        page, page.get_by_role("button", name="Confirm"), page.get_by_text(saved), what=saved
    )
    settle(page)


def _ask(page: Any, button: str) -> None:
    """A settings form's button: its change is held for confirmation (issue 22.2)."""
    held = page.get_by_text("confirm to change these settings")
    click_until(page, page.get_by_role("button", name=button), held, what=button)


def _set_up_the_study(pilot: Pilot, files: list[Path]) -> None:
    page = pilot.admin
    page.get_by_role("button", name="Import").wait_for()
    settle(page)
    into = page.locator(".st-key-upload_study [data-testid='stSelectbox']")
    choose_option(page, into, "(a new study)", what="into study")
    page.locator(".st-key-upload_new_study input").fill(STUDY)
    dropzone = page.locator(".st-key-upload_file [data-testid='stFileUploaderDropzoneInput']")
    dropzone.set_input_files([str(f) for f in files])
    page.wait_for_function(  # both files uploaded (their size shown, no progress bar)
        """() => { const chips = [...document.querySelectorAll(
                       ".st-key-upload_file [data-testid='stFileChip']")];
                   return chips.length === 2 && chips.every(c => /[0-9]\\s*[KM]?B/.test(c.innerText)
                       && !c.querySelector("[role=progressbar]")); }"""
    )
    imported = page.get_by_text(f"Imported into {STUDY}: 2 file(s), 6 new pair(s).")
    click_until(page, page.get_by_role("button", name="Import"), imported, what="import")
    settle(page)

    _go_to(page, "Studies")
    with read_session(pilot.engine) as session:
        key = f"study_{get_study(session, STUDY).id}"

    def box(name: str) -> Any:
        return page.locator(f".st-key-{key}_{name}").locator("textarea, input").first

    box("seed").fill(str(SEED))
    box("consent").fill(CONSENT)
    box("survey").fill(json.dumps(SURVEY))
    box("code").fill(COMPLETION_CODE)
    box("screenout").fill(SCREENOUT_CODE)
    box("completion_url").fill(f"{pilot.url}/?returned={{code}}")  # the "platform"
    box("k").fill(str(OVERLAP))
    box("quota").fill(str(QUOTA))
    box("finish_minimum").fill(str(FINISH_MINIMUM))
    for toggle in ("pool", "enrol", "preference", "aspect_checklist"):
        switch = page.locator(f".st-key-{key}_{toggle}")
        assert not switch.locator("input").is_checked()
        switch.locator("label").click()
    rationale = page.locator(f".st-key-{key}_rationale [data-testid='stSelectbox']")
    choose_option(page, rationale, "optional", what="rationale")
    _ask(page, "Save settings")
    _confirm(page, f"Settings of {STUDY} saved.")
    pilot.link = page.locator("[data-testid='stCode']", has_text="PROLIFIC_PID").inner_text()
    assert f"study={STUDY}" in pilot.link

    training = page.locator(f".st-key-{key}_training_yaml textarea")
    click_until(page, page.get_by_text("Training before real work"), training, what="training")
    training.fill(yaml.safe_dump(TRAINING, sort_keys=False))
    _ask(page, "Save training")
    _confirm(page, f"Settings of {STUDY} saved (from training (Studies page)).")

    rule = page.locator(f".st-key-rules_{STUDY}_max_straightlining_share input")
    rule.fill(str(MAX_STRAIGHTLINING))
    saved = page.get_by_text(f"Exclusion rules of {STUDY} saved.")
    click_until(page, page.get_by_role("button", name="Save rules"), saved, what="save rules")
    settle(page)
    pilot_checks.check_settings(pilot.engine, pilot.url)


# ---------------------------------------------------------------- 2. three participants


class Hands:
    """How one participant acts on the page: a mouse clicks, a finger taps, the keyboard
    reaches the element with Tab and presses Enter."""

    def __init__(self, page: Any, device: str) -> None:
        self.page, self.device = page, device
        self.aside = 0  # pairs flagged without scores or skipped: each replaced (issue 34.1)

    @property
    def total(self) -> int:
        """The M of "Pair N of M": the quota, and a new pair for each one set aside."""
        return QUOTA + self.aside

    def press(self, selector: str, *, what: str) -> None:
        target = self.page.locator(selector)
        if self.device == "keyboard":
            try:
                tab_to(self.page, selector)
            except AssertionError as missed:
                raise AssertionError(f"{what}: {missed}") from None
            self.page.keyboard.press("Enter")
        elif self.device == "touch":
            target.tap()
        else:
            target.click()

    def choose(self, question: str, options: list[str], answer: str) -> None:
        """Pick `answer` in the radio question inside `question` (a selector)."""
        if self.device == "keyboard":  # the first option gets the focus; arrows move and pick
            tab_to(self.page, f"{question} input[type=radio]")
            index = options.index(answer)
            self.page.keyboard.press("Space" if index == 0 else "ArrowDown")
            for _ in range(index - 1):
                self.page.keyboard.press("ArrowDown")
        else:
            option = self.page.locator(question).get_by_text(answer, exact=True)
            option.tap() if self.device == "touch" else option.click()
        self.page.wait_for_function(
            "([q, v]) => { const el = document.querySelector(`${q} input:checked`);"
            " return !!el && el.value === v; }",
            arg=[question, str(options.index(answer))],
        )

    def type_into(self, selector: str, text: str) -> None:
        if self.device == "keyboard":
            tab_to(self.page, selector)
        else:
            box = self.page.locator(selector)
            box.tap() if self.device == "touch" else box.click()
        self.page.keyboard.type(text)

    def enter(self, entry: PairEntry) -> None:
        """Enter `entry` in the pair component (a pair or a practice pair)."""
        if self.device == "keyboard":
            enter_by_keyboard(self.page, entry)
        else:
            enter_by_pointer(self.page, entry, touch=self.device == "touch")


def _take_part(pilot: Pilot, new_page: Any, person: Person) -> None:
    touch = person.device == "touch"
    page = new_page(person.viewport, has_touch=touch, is_mobile=touch)
    record = Recorder().attach(page)
    try:
        _onboard_and_rate(pilot, page, person)
    except Exception:
        pilot.shot(page, f"failed_{person.name}")  # where it stopped
        raise
    assert len(record.received) > 10, "the websocket frames were not recorded"
    assert record.label_leaks() == []
    page.context.close()


def _onboard_and_rate(pilot: Pilot, page: Any, person: Person) -> None:
    hands = Hands(page, person.device)
    page.goto(person.link(pilot.link))
    page.get_by_text("Pilot study on personalised answers.").wait_for()
    settle(page)
    hands.press(".st-key-consent_accept button", what="I agree")
    page.get_by_text("A few questions about you").wait_for()
    settle(page)
    hands.choose(".st-key-survey_age", SURVEY[0]["options"], person.age)
    if person.field_of_work:
        hands.type_into(".st-key-survey_field input", person.field_of_work)
    hands.press("[data-testid='stFormSubmitButton'] button", what="Continue")
    _practise(pilot, page, hands, person)
    for attempt, answer in enumerate(person.check_answers, 1):
        hands.choose(".st-key-check_sides", QUESTION["options"], answer)
        hands.press(".st-key-check_submit button", what="Check my answers")
        if attempt < len(person.check_answers):
            page.get_by_text("Not quite: question 1 was not answered correctly.").wait_for()
            settle(page)
    page.get_by_role("button", name="Start").wait_for()
    settle(page)
    hands.press(".st-key-crowd_start button", what="Start")
    wait_for_pair(page, 1, QUOTA)
    _rate_pairs(pilot, page, hands, person)


def _practise(pilot: Pilot, page: Any, hands: Hands, person: Person) -> None:
    a, b, mark_a, mark_b, preference = person.practice
    page.get_by_text("Practice pair 1 of 1").wait_for()
    settle(page)
    entry = PairEntry(
        scores={(side, dim): score for side, score in (("A", a), ("B", b)) for dim in DIMENSIONS},
        marks={("A", 0): mark_a, ("B", 0): mark_b},
        preference=preference,
        rationale=f"{person.name} practises",
    )
    page.locator(f"{PAIR}[data-pair]").wait_for()  # the practice pair, drawn by the component
    settle(page)
    hands.enter(entry)
    if person.device == "keyboard":
        page.keyboard.press("Control+Enter")
    else:
        hands.press(f"{PAIR} button.submit", what="practice submit")
    page.get_by_text("Practice pair 1: feedback").wait_for()
    settle(page)
    pilot.practice[person.name] = entry
    if person.device == "touch":
        pilot.shot(page, "practice_feedback_390x844")
    hands.press(".st-key-practice_continue button", what="Continue")
    page.get_by_text("A few questions about the task").wait_for()
    settle(page)


def _rate_pairs(pilot: Pilot, page: Any, hands: Hands, person: Person) -> None:
    """The person's steps, pair by pair; every pair they open is added to the ledger."""
    by_step: dict[int, Given] = {}
    newest = 1  # the newest pair the pool gave them
    for index, step in enumerate(person.steps):
        if isinstance(step, Revise):
            _revise(page, hands, person, by_step[step.step], step, newest)
            continue
        given = _open_pair(pilot, page, person.name, newest)
        by_step[index] = given
        if isinstance(step, Rate):
            hands.enter(given.rate(step))
            _submit(page, hands, step.submit)
            page.get_by_text(f"Pair {given.number} saved.").wait_for()
        elif isinstance(step, Flag):
            given.status, given.flag_reason = "skipped", step.reason
            hands.enter(PairEntry(flag=step.reason))
            _submit(page, hands, step.submit)
            page.get_by_text(f"Pair {given.number} flagged without scores").wait_for()
            hands.aside += 1
        else:
            given.status, given.skip_reason = "skipped", step.reason
            _skip(page, hands, step)
            page.get_by_text(f"Pair {given.number} skipped.").wait_for()
            hands.aside += 1
        newest += 1
        wait_for_pair(page, newest, hands.total)
    _finish(pilot, page, hands, person, newest)


def _open_pair(pilot: Pilot, page: Any, person: str, number: int) -> Given:
    """The pair the page shows, new to the person: it opens empty; which pair it is and on
    which side the chosen response is, read from the texts shown."""
    shown = shown_pair(page)
    assert shown.number == number
    assert filled_in(page) == {}, f"{person}'s pair {number} opened with values"
    record_id, chosen_side = which_pair(shown.question, shown.response_a)
    assert which_pair(shown.question, shown.response_b)[1] != chosen_side  # B: the other one
    given = Given(person, shown.assignment_id, record_id, number, chosen_side)
    pilot.ledger.append(given)
    return given


def _submit(page: Any, hands: Hands, how: str) -> None:
    if hands.device != "keyboard" or how == "Enter":  # (Enter on Submit, reached with Tab)
        hands.press(f"{PAIR} button.submit", what="Submit")
    else:
        page.keyboard.press(how)


def _skip(page: Any, hands: Hands, step: Skip) -> None:
    """ "Skip this pair", its reason, then Skip (Enter in the box, for the keyboard)."""
    wait_focus_in(page, "fieldset.q")  # the component has taken the new pair in
    box = page.locator(f"{PAIR} #prb-skip-reason")
    opener = f"{PAIR} button.skip-open"
    if hands.device == "keyboard":
        tab_to(page, opener)
        page.keyboard.press("Enter")
        box.wait_for()
        hands.type_into(f"{PAIR} #prb-skip-reason", step.reason)
        page.keyboard.press("Enter")
        return
    if hands.device == "touch":
        page.locator(opener).tap()
    else:
        page.locator(opener).click()
    box.wait_for()
    hands.type_into(f"{PAIR} #prb-skip-reason", step.reason)
    hands.press(f"{PAIR} button.skip", what="Skip")


def _revise(
    page: Any, hands: Hands, person: Person, given: Given, step: Revise, newest: int
) -> None:
    """Back to an earlier pair (the mouse by "Go to pair", the keyboard by Alt+P, with one
    pair too far and Alt+N back, the phone by "Previous pair"), change it, submit."""
    if hands.device == "mouse":
        jump = page.locator(".st-key-nav_jump [data-testid='stSelectbox']")
        choose_option(page, jump, f"Pair {given.number} (rated)", what="go to pair")
    else:
        for number in range(newest - 1, given.number - 1 - (hands.device == "keyboard"), -1):
            if hands.device == "keyboard":
                page.keyboard.press("Alt+p")
            else:
                page.locator(".st-key-nav_previous button").tap()
            wait_for_pair(page, number, hands.total)
        if hands.device == "keyboard":  # one pair too far: Alt+N comes back
            page.keyboard.press("Alt+n")
    wait_for_pair(page, given.number, hands.total)
    wait_shows(page, given.assignment_id)
    hands.enter(given.revise(step))
    _submit(page, hands, "Control+Enter")
    page.get_by_text(f"Pair {given.number} revised;").wait_for()
    wait_for_pair(page, newest, hands.total)


def _finish(pilot: Pilot, page: Any, hands: Hands, person: Person, newest: int) -> None:
    """The pair the pool gave last is open; Finish gives it back and shows the code."""
    released = _open_pair(pilot, page, person.name, newest)
    released.status = "released"
    box = page.locator(".st-key-finish_box_0")
    box.get_by_text(f"You have rated {FINISH_MINIMUM} pairs").wait_for()
    assert f"{FINISH_MINIMUM} were asked (at most {QUOTA})" in box.inner_text()
    hands.press(".st-key-finish_0 button", what="Finish")
    page.get_by_text("All done, thank you!").wait_for()
    settle(page)
    page.get_by_text("You rated 3 pairs and skipped 2.").wait_for()
    page.locator("[data-testid='stCode']").get_by_text(COMPLETION_CODE).wait_for()
    back = page.get_by_role("link", name="Return to the study platform")
    assert back.get_attribute("href").endswith(f"returned={COMPLETION_CODE}")
    pilot.shot(page, f"done_{person.name}")


# ---------------------------------------------------------------- 4. the admin's follow-up


def _resolve_a_flag(pilot: Pilot) -> None:
    """The mouse participant's flag, resolved with a note on the Flags page."""
    page = pilot.admin
    _go_to(page, "Flags and skips")
    (flag,) = [g for g in pilot.ledger if g.person == "mouse" and g.flag_reason]
    items = page.locator(".st-key-flags_item [data-testid='stSelectbox']")
    click_until(page, items, page.get_by_role("listbox"), what="flag item")
    page.get_by_role("option").filter(has_text=f"#{flag.assignment_id} ·").click()
    settle(page)
    page.locator("[data-testid='stText']", has_text=flag.flag_reason).wait_for()  # opened
    page.locator(".st-key-flag_note textarea").fill(FLAG_NOTE)
    resolved = page.get_by_text(f"Item #{flag.assignment_id}: resolved.")
    click_until(page, page.get_by_role("button", name="Save", exact=True), resolved, what="flag")
    settle(page)
    flag.flag_resolution, flag.flag_note = "resolved", FLAG_NOTE


def _adjudicate_a_disagreement(pilot: Pilot, new_page: Any) -> None:
    """The threshold on the Adjudication page; an adjudicator's account on the Annotators page;
    the first disputed pair sent to them; they rate it blind on the rating page."""
    page = pilot.admin
    _go_to(page, "Adjudication")
    page.locator(".st-key-adj_threshold_on label").click()
    page.locator(".st-key-adj_threshold input").fill(str(ADJUDICATION_THRESHOLD))
    saved = page.get_by_text(f"Adjudication threshold: {ADJUDICATION_THRESHOLD}.")
    click_until(page, page.get_by_role("button", name="Save threshold"), saved, what="threshold")
    settle(page)
    disputed = pilot_checks.disputed_pairs(pilot.ledger)
    page.get_by_text(f"Pairs to adjudicate ({len(disputed)})").wait_for()

    _go_to(page, "Annotators", heading="Annotators")
    names = page.locator(".st-key-new_account_names textarea")
    click_until(page, page.get_by_text("Create accounts"), names, what="create accounts")
    names.fill(EXPERT)
    role = page.locator(".st-key-new_account_role [data-testid='stSelectbox']")
    choose_option(page, role, str(Role.ADJUDICATOR), what="role")
    shown = page.locator("[data-testid='stCode']", has_text=EXPERT)
    create = page.get_by_role("button", name="Create", exact=True)
    click_until(page, create, shown, what="create the account")
    link = shown.inner_text().split()[-1]

    _go_to(page, "Adjudication")
    pair = page.locator(".st-key-adj_pair input").input_value()
    assert pair in disputed
    assert page.locator(".st-key-adj_who input").input_value() == EXPERT
    sent = page.get_by_text(f"Pair {pair} sent to {EXPERT}")
    click_until(page, page.get_by_role("button", name="Send to the adjudicator"), sent, what="send")
    settle(page)

    expert = new_page(LAPTOP)
    expert.goto(link)
    wait_for_pair(expert, 1, 1)
    given = _open_pair(pilot, expert, EXPERT, 1)
    assert given.record_id == pair
    given.purpose = "adjudication"
    enter_by_pointer(expert, given.rate(ADJUDICATION))
    expert.locator(f"{PAIR} button.submit").click()
    expert.get_by_text("All done, thank you!").wait_for()
    expert.context.close()


def _download(page: Any, button: Any) -> bytes:
    with page.expect_download(timeout=SLOW_MS) as caught:  # (built when clicked)
        button.click()
    return Path(caught.value.path()).read_bytes()


def _download_everything(pilot: Pilot) -> None:
    """Every file the admin can take away: the Results page's exports and report, the
    Assignments and Participants pages' tables, the Publish page's card (the rationale
    disclosed, nothing else)."""
    page = pilot.admin
    _go_to(page, "Results", slow=True)
    for table in ("ratings", "aspects"):
        for fmt in ("csv", "jsonl", "parquet"):
            button = page.locator(f".st-key-download_{table}_{fmt} button")
            pilot.downloads[f"{table}.{fmt}"] = _download(page, button)
    button = page.locator(".st-key-download_report_json button")
    pilot.downloads["report.json"] = _download(page, button)
    button = page.locator(".st-key-download_free_text button")  # apart, audited (issue 32)
    pilot.downloads["free_text.csv"] = _download(page, button)

    _go_to(page, "Assignments")
    rows = page.locator(".st-key-rows_download button")
    click_until(page, page.get_by_role("tab", name="The plan"), rows, what="the plan tab")
    pilot.downloads["assignments.csv"] = _download(
        page, page.locator(".st-key-rows_download button")
    )
    _go_to(page, "Participants")
    pilot.downloads["payments.csv"] = _download(
        page, page.locator(".st-key-payments_download button")
    )
    _go_to(page, "Publish", slow=True)
    page.locator(".st-key-disclose_rationale label").click()
    button = page.locator(".st-key-publish_download button")
    build = page.get_by_role("button", name="Build the card")
    build.click()
    button.wait_for(timeout=SLOW_MS)  # the report, the card and the zip
    settle(page, SLOW_MS)
    archive = zipfile.ZipFile(io.BytesIO(_download(page, button)))
    for name in archive.namelist():
        pilot.downloads["card/" + name.split("/", 1)[1]] = archive.read(name)
