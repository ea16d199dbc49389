"""Studies: the unit that owns pairs, assignments and settings."""

from __future__ import annotations

import secrets

from sqlmodel import Session, select

from annotate.models import Study

DEFAULT_STUDY = "default"


class StudyNotFound(LookupError):
    pass


def get_study(session: Session, name: str) -> Study:
    study = session.exec(select(Study).where(Study.name == name)).first()
    if study is None:
        raise StudyNotFound(f"no study named {name!r}")
    return study


def get_or_create_study(session: Session, name: str, *, seed: int | None = None) -> Study:
    """Return the study called `name`, creating it (with a fresh random seed) if needed."""
    study = session.exec(select(Study).where(Study.name == name)).first()
    if study is None:
        study = Study(name=name, seed=secrets.randbelow(2**31) if seed is None else seed)
        session.add(study)
        session.flush()
    return study
