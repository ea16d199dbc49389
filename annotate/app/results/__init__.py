"""The results page and its sections."""
