"""Test and benchmark support that is not part of the shipped package: the app server as a
child process (`appserver`) and simulated annotators for load and crash runs (`loadtest`)."""
