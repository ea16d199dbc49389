"""Alembic migration scripts of the database schema (run them through `annotate.db.schema`)."""
