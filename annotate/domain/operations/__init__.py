"""Running a study: flags and skips, adjudication, pre-registered exclusion rules."""
