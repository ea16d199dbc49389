"""Rating a pair: the queue and the blinded view, the seeded draw, scores, aspect marks, the direct
preference, quality checks, progress."""
