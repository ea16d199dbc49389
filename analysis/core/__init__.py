"""The core statistics: reading a ratings export, paired tests, margins, power, the mixed model,
agreement, accuracy, annotators, the pairs behind each figure."""
