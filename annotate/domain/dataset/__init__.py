"""The dataset: the benchmark's records, reading and strictly decoding input files, located
problems, import, synthetic data."""
