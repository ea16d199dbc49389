"""The dataset card's front matter, made with `huggingface_hub`'s `DatasetCardData` (issue
35.3): license, name, task, size and one config per published table (the ratings the default,
then the aspect checklist's marks, the spans and the preference table when the folder holds
them), so that `datasets.load_dataset(folder, config)` reads each table."""

from __future__ import annotations

from collections.abc import Sequence

from huggingface_hub import DatasetCard, DatasetCardData

CONFIGS = {
    "ratings": "ratings.parquet",
    "aspects": "aspects.parquet",
    "spans": "spans.parquet",
    "preference": "preference.parquet",
}
"""Config name -> the published file it reads, in the card's order (ratings first: default)."""


def size_category(n_rows: int) -> str:
    """The hub's size category of a table of `n_rows` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n_rows < limit:
            return name
    return "100K<n<1M" if n_rows < 1_000_000 else "n>1M"


def card_data(*, study: str, license: str, n_rows: int, files: Sequence[str]) -> DatasetCardData:
    """The card's metadata: a config for each table of `CONFIGS` among `files`."""
    configs = [
        {
            "config_name": name,
            **({"default": True} if name == "ratings" else {}),
            "data_files": [{"split": "train", "path": path}],
        }
        for name, path in CONFIGS.items()
        if path in files
    ]
    return DatasetCardData(
        license=license,
        pretty_name=f"Human validation of {study}",
        language=["en"],
        task_categories=["text-classification"],
        size_categories=[size_category(n_rows)],
        tags=["human-evaluation", "reward-modeling", "personalization", "preference"],
        configs=configs,
    )


def card_text(data: DatasetCardData, body: str) -> str:
    """The README: the front matter (YAML written by huggingface_hub), then `body`."""
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}")
    return str(card)
