"""``python -m analysis report RATINGS_FILE ...``"""

from analysis.cli import app

app(prog_name="python -m analysis")
