"""Study designs: the aspect checklist, the direct preference, annotator attributes, adjudication,
exclusion rules."""
