"""The one error hierarchy: every refusal the product raises on purpose is a `PrbError`, of one
of five kinds. Each keeps the matching built-in base, so `except ValueError` still catches what it
caught before. The pages map a `PrbError` to a message in one place
(`annotate.app.admin.admin_common.act`); the CLI in `annotate.cli.common.fail`."""

from __future__ import annotations


class PrbError(Exception):
    """A refusal with a message meant for the person who asked."""


class NotFound(PrbError, LookupError):
    """What was named does not exist (a study, an account, a pair)."""


class Invalid(PrbError, ValueError):
    """The input breaks a rule: a bad file, a setting out of range, a missing score."""


class Conflict(PrbError, ValueError):
    """The request was valid but the state changed under it (a slot taken meanwhile)."""


class Forbidden(PrbError, PermissionError):
    """The caller's role does not allow it."""


class Unavailable(PrbError, ConnectionError):
    """The database did not answer or could not write (down, unreachable, disk full, too slow):
    the transaction was rolled back, nothing of it was saved, and trying again later may work."""


class Broken(PrbError, RuntimeError):
    """The environment cannot do it: a schema this version cannot upgrade, a failed backup."""
