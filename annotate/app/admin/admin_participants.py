"""Admin: a study's participants (issue 24): paying and approving them (the one download that
holds platform ids), the crowd platform's actions (issue 34.3: read, shown, then sent once),
erasing a person's data, and the study's retention period."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import act, actor_id, choose_study, done, show_notice
from annotate.app.downloads import offer_download
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.services.admin import erasure, payments, platform


def draw() -> None:
    study = choose_study()
    page_title("Participants", study)
    show_notice()
    if study is None:
        return
    _draw_payments(study)
    _draw_platform(study)
    _draw_erase(study)
    _draw_retention(study)


def _draw_payments(study: str) -> None:
    st.subheader("Paying and approving")
    found = act(lambda: payments.participant_payments(engine(), actor_id(), study))
    if found is None:
        return
    if not found.rows:
        st.info("No crowd participant has taken part in this study yet.")
        return
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "participant id": r.participant_id,
                    "status": r.status,
                    "excluded by": r.excluded_by,
                    "code": r.completion_code,
                    "pairs": r.pairs_done,
                    "pro rata": r.pro_rata,
                    "reason": r.outcome_reason,
                    "minutes": r.minutes_taken,
                }
                for r in found.rows
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    if found.median_minutes is None:
        st.caption("Median time taken: nobody has completed yet.")
    else:
        rate = st.number_input("Pay per hour", min_value=0.0, value=12.0, step=0.5, key="pay_rate")
        st.caption(
            f"Median time taken: **{found.median_minutes} minutes**; at {rate:.2f} an hour, "
            f"pay **{found.pay_for(rate):.2f}** per participant."
        )
    st.warning(payments.HOLDS_PLATFORM_IDS, icon=":material/lock:")
    offer_download(
        st,
        "payments",
        "Download for bulk approval (CSV)",
        partial(payments.payments_csv, found),
        file_name=f"payments-{study}.csv",
        mime="text/csv",
        key="payments_download",
    )


PLATFORM_HELP = (
    "Reads the study's submissions on its platform and lists what to do with each: release "
    "the pairs of those who returned or timed out, approve those who completed, reject only "
    "those who failed the instructed-response checks, complete the screened-out with the "
    "screen-out code, ask those who withdrew to return, and pay bonuses (the study's rule, or "
    "a file of participant_id,amount lines). Nothing is sent until you press Send; each "
    "action is recorded before it is sent, so sending again never sends one twice."
)


def _draw_platform(study: str) -> None:
    st.subheader("Crowd platform")
    st.caption(PLATFORM_HELP)
    upload = st.file_uploader(
        "Bonuses from a file (optional: participant_id,amount)", type=["csv"], key="bonus_csv"
    )
    bonus_csv = upload.getvalue().decode("utf-8", "replace") if upload is not None else None
    key = f"platform_table_{study}"
    if st.button("Read the platform (nothing is sent)", key="platform_read"):
        st.session_state[key] = act(
            lambda: platform.sync(engine(), actor_id(), study, bonus_csv=bonus_csv)
        )
    result = st.session_state.get(key)
    if result is None:
        return
    _platform_table(result)
    if not result.to_send:
        st.caption("Nothing to send.")
        return
    offer_download(
        st,
        "platform_actions",
        "Download the table (CSV)",
        partial(platform.actions_csv, result),
        file_name=f"platform-actions-{study}.csv",
        mime="text/csv",
        key="platform_actions_download",
    )
    if not result.sends:
        st.info("This platform has no API: apply the table on the platform by hand.")
        return
    sure = st.checkbox(f"Send these {len(result.to_send)} action(s)", key="platform_sure")
    if st.button("Send", key="platform_send", disabled=not sure, type="primary"):
        sent = act(
            lambda: platform.sync(engine(), actor_id(), study, send=True, bonus_csv=bonus_csv)
        )
        st.session_state[key] = sent
        if sent is not None:
            for problem in sent.problems:
                st.error(f"Not sent: {problem}")
            st.success(f"Sent: {sum(1 for x in sent.to_send if x.state == 'sent')} action(s).")


def _platform_table(result: platform.SyncResult) -> None:
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "action": line.words,
                    "participant id": line.participant_id,
                    "amount": f"{line.amount / 100:.2f} {result.currency}" if line.amount else "",
                    "why": line.why,
                    "state": line.state,
                }
                for line in result.lines
            ]
        ),
        hide_index=True,
        width="stretch",
    )


def _draw_erase(study: str) -> None:
    st.subheader("Erase a person's data")
    names = act(lambda: erasure.study_people(engine(), actor_id(), study))
    if not names:
        st.caption("Nobody has data in this study.")
        return
    st.caption(
        "Removes their ratings and revisions, aspect marks, preferences, comments, flags, skips, "
        "survey answers, consent and training in this study, and the account when no other "
        "study holds anything of theirs. The report then counts them as erased. A card "
        "published before and existing backups are not recalled."
    )
    name = st.selectbox("Person", names, index=None, key="erase_person")
    sure = st.checkbox("I understand this cannot be undone", key="erase_sure")
    if st.button("Erase", key="erase_button", disabled=not (sure and name), type="primary"):
        chosen = str(name)
        done(
            lambda: _erase(study, chosen),
            message="Their data in this study were erased.",
        )


def _erase(study: str, name: str) -> None:
    erasure.erase_person(engine(), actor_id(), name, study)


def _draw_retention(study: str) -> None:
    st.subheader("Retention")
    due = act(lambda: erasure.retention(engine(), actor_id(), study))
    if due is None:
        return
    st.caption(
        "Platform ids and typed text of participants inactive for longer than the study's "
        "retention period (days; set it on the Studies page's settings file or with "
        "`prb-annotate retention --study S --set-days N`). The scores stay, under the pseudonym."
    )
    if not due:
        st.caption("Nothing is due.")
        return
    st.dataframe(
        pd.DataFrame([{"annotator": d.annotator, "last active": d.last_active} for d in due]),
        hide_index=True,
    )
    if st.button(f"Erase what is due ({len(due)})", key="retention_erase"):
        done(
            lambda: _forget(study),
            message=f"{len(due)} participant(s)' platform ids and typed text erased.",
        )


def _forget(study: str) -> None:
    erasure.retention(engine(), actor_id(), study, erase=True)


if __name__ == "__main__":
    draw()
