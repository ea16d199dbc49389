"""Chosen against rejected: the paired tests and the primary inference over pairs and
annotators (crossed model, Satterthwaite df), margins, power, the analysis plan, human accuracy,
the pairs behind each figure."""
