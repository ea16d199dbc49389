"""What leaves the database: the ratings and aspect exports with provenance, spreadsheet-safe CSV,
the published card, backups."""
