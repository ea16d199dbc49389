"""One revision per schema change, oldest first: `0001_first_schema`, `0002_...`, ..."""
