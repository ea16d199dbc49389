"""Reward models and LLM judges: their result files, stored results, made-up outputs, judge aspect
scores."""
