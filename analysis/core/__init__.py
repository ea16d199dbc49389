"""The ratings and their agreement: reading and checking a ratings export, integer-coded ratings
and per-pair means, Krippendorff's alpha and agreement, annotators' behaviour, position bias,
the majority verdicts per pair."""
