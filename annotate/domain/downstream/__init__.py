"""Downstream outputs (issue 25): the benchmark's Best-of-N and PPO outputs with its LLM judge's
scores, imported by condition, and comparison studies built from two conditions."""
