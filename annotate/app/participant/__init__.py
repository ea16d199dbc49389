"""The participant's pages and their pieces: rating, training, the crowd link, withdrawal, the
chat."""
