"""Admin: accounts and their login links (create, deactivate, new link, role)."""

from __future__ import annotations

import streamlit as st

from annotate.app.admin.admin_common import (
    act,
    actor_id,
    done,
    draw_pending,
    fresh_for,
    link_base,
    show_notice,
)
from annotate.app.session import engine
from annotate.services.admin import people
from annotate.vocabulary import ROLES

NEW_LINKS = "admin_new_links"


def draw() -> None:
    st.title("Annotators")
    draw_pending()
    show_notice()
    _draw_new_links()
    _draw_create()
    rows = act(lambda: people.list_accounts(engine(), actor_id()))
    if rows is None:
        return
    st.subheader(f"Accounts ({len(rows)})")
    st.dataframe(
        [
            {
                "name": r.name,
                "role": r.role,
                "active": r.active,
                "crowd id": r.external_id or "",
            }
            for r in rows
        ],
        hide_index=True,
        width="stretch",
    )
    _draw_manage({r.name: r.role for r in rows})


def _draw_new_links() -> None:
    """Links created or renewed on the previous run: shown once, then gone for good."""
    links = st.session_state.pop(NEW_LINKS, None)
    if not links:
        return
    st.warning(
        "Copy these links now and send each to its person: they are shown only once "
        "(only a hash of each token is stored).",
        icon=":material/key:",
    )
    st.code("\n".join(f"{name}\t{link}" for name, link in links), language=None)


def _draw_create() -> None:
    with st.expander("Create accounts", icon=":material/person_add:"):
        with st.form("create_accounts"):
            names = st.text_area("Names, one per line", key="new_account_names")
            role = st.selectbox("Role", ROLES, key="new_account_role")
            created = st.form_submit_button("Create", type="primary")
        if created:
            wanted = [n.strip() for n in names.splitlines() if n.strip()]
            if not wanted:
                st.error("Give at least one name.")
                return
            links = act(
                lambda: people.create_accounts(engine(), actor_id(), wanted, role, link_base())
            )
            if links is not None:
                st.session_state[NEW_LINKS] = [(new.name, new.link) for new in links]
                st.rerun()


def _draw_manage(roles: dict[str, str]) -> None:
    """Change one account; `roles`: each account's name and its role now."""
    names = list(roles)
    if not names:
        return
    st.subheader("Change an account")
    st.caption(
        "An **adjudicator** gets only the pairs sent to them for adjudication (no training, no "
        "ordinary pairs). Give the role to an expert's own account: never a crowd participant, "
        "a simulated account, an admin or a researcher (they can see the labels)."
    )
    name = st.selectbox("Account", names, key="manage_account")
    deactivate, activate, rotate, role_col, apply = st.columns(
        [1, 1, 1, 1, 1], vertical_alignment="bottom"
    )
    if deactivate.button("Deactivate", icon=":material/block:", key="manage_deactivate"):
        done(
            lambda: people.set_accounts_active(engine(), actor_id(), [name], False),
            message=f"{name} can no longer log in.",
        )
    if activate.button("Activate", icon=":material/check:", key="manage_activate"):
        done(
            lambda: people.set_accounts_active(engine(), actor_id(), [name], True),
            message=f"{name} can log in again.",
        )
    if rotate.button("New link", icon=":material/autorenew:", key="manage_rotate"):
        link = act(lambda: people.rotate_account(engine(), actor_id(), name, link_base()))
        if link is not None:
            st.session_state[NEW_LINKS] = [(name, link)]
            st.rerun()
    current = roles.get(name, ROLES[0])
    fresh_for("account", (name, current), "manage_role")
    role = role_col.selectbox("Role", ROLES, index=ROLES.index(current), key="manage_role")
    if apply.button("Set role", key="manage_set_role"):
        done(
            lambda: people.set_account_role(engine(), actor_id(), name, role),
            message=f"{name} is now {role}.",
        )


if __name__ == "__main__":
    draw()
