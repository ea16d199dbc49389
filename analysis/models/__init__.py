"""Reward models against the human verdicts: majority votes, accuracy, kappa, McNemar, their report
tables."""
