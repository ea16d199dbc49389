"""A study and its people: studies and their settings, accounts and login links, roles, the audit
log."""
