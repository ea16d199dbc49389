"""The benchmark's second claim checked by humans (issue 25): gains of comparison studies,
the LLM judge against the humans, the scaling curve, the correlation claim. No database code:
the inputs are the exports (ratings, aspect table, downstream outputs table)."""
