"""The crowd participant's path: enrolment from a study link, consent and survey, training."""
