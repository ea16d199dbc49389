"""The results' services: the report's inputs, the drill-down, reward models and downstream
comparisons (results roles), and the annotators' figures they read."""
