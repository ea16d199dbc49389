"""The participant's services: enrolment, consent, training, the pull of a pair, rating, instructed
checks (each checks that the work is the caller's)."""
