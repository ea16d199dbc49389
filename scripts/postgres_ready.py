"""Exit 0 if the PostgreSQL server in argv[1] (a SQLAlchemy URL) accepts a connection."""

import sys

from sqlalchemy import create_engine, text

try:
    with create_engine(sys.argv[1]).connect() as connection:
        connection.execute(text("SELECT 1"))
except Exception as error:  # any failure means: not usable for the test run
    print(f"PostgreSQL not reachable: {error}", file=sys.stderr)
    sys.exit(1)
