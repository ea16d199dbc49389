"""Input shapes: how a record of another preference dataset becomes this tool's pairs.

- `prb`: Personalized RewardBench's records (`records.BenchmarkRecord`), the default;
- `hf`: Hugging Face preference sets, `prompt` / `chosen` / `rejected` as texts or message lists
  (TRL's standard and conversational formats), an optional `id`;
- `rmbench`: RM-Bench, `{id, prompt, chosen: [3], rejected: [3], domain}` (index 0/1/2: concise,
  detailed plain, detailed Markdown), one pairing of style levels per import;
- `rewardbench2`: `{id, prompt, chosen: [>=1], rejected: [>=1], subset}`, a pair per rejected
  response, or one drawn with the study's seed;
- `map`: any other, through a field mapping (`question=prompt,chosen=better,...`, dotted paths).

Each converter turns one decoded record into `conversation.Canonical` pairs or raises
`ShapeProblems`; the importer validates the result as a benchmark record and locates every
problem. `detect` names the shape of a record when only one fits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeGuard

from annotate.domain.dataset.conversation import (
    Canonical,
    ShapeProblems,
    canonical_record,
    exchange,
    stable_id,
    stored_conversation,
)
from annotate.domain.dataset.strict_json import describe_type


class Shape(StrEnum):
    PRB = "prb"
    HF = "hf"
    RMBENCH = "rmbench"
    REWARDBENCH2 = "rewardbench2"
    MAP = "map"


class Rb2Pairs(StrEnum):
    ALL = "all"
    ONE = "one"


RMBENCH_STYLES = ("concise", "detailed plain", "detailed Markdown")
DEFAULT_RMBENCH_PAIRING = (1, 1)
"""Detailed plain against detailed plain: the same style on both sides, so only substance
differs (what the `rmbench` questionnaire expects), and no Markdown for the page to render."""
MAP_TARGETS = ("id", "question", "chosen", "rejected", "domain", "category", "narrative")
MAP_REQUIRED = ("chosen", "rejected")


class ShapeOptionError(ValueError):
    """An option of the shapes (a pairing, a mapping) is not usable; says what is expected."""


@dataclass(frozen=True)
class ShapeOptions:
    """How to read the input: `shape` None detects it from each file's first record (or is
    `map` when `field_map` is given); `domain`, when given, is every pair's domain (else the
    record's own, for the shapes that have one, else the file name's)."""

    shape: Shape | None = None
    domain: str | None = None
    rmbench_pairing: tuple[int, int] = DEFAULT_RMBENCH_PAIRING
    rb2_pairs: Rb2Pairs = Rb2Pairs.ALL
    field_map: dict[str, str] = field(default_factory=dict)

    @property
    def fixed(self) -> Shape | None:
        return Shape.MAP if self.field_map and self.shape is None else self.shape


def parse_pairing(text: str) -> tuple[int, int]:
    """`"1-1"` -> (1, 1): the chosen and the rejected response's style level (0, 1 or 2)."""
    parts = text.strip().split("-")
    if len(parts) != 2 or not all(p.strip() in ("0", "1", "2") for p in parts):
        raise ShapeOptionError(
            f"RM-Bench pairing {text!r}: expected CHOSEN-REJECTED with each 0 (concise), "
            "1 (detailed plain) or 2 (detailed Markdown), e.g. 1-1"
        )
    return int(parts[0]), int(parts[1])


def parse_field_map(text: str) -> dict[str, str]:
    """`"question=prompt,chosen=better,rejected=worse"` -> {target: source path}."""
    mapping: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        target, equals, source = (piece.strip() for piece in item.partition("="))
        if not equals or not target or not source:
            raise ShapeOptionError(f"field map item {item!r}: expected TARGET=SOURCE")
        if target not in MAP_TARGETS:
            raise ShapeOptionError(
                f"field map item {item!r}: unknown target {target!r}; expected one of "
                + ", ".join(MAP_TARGETS)
            )
        if target in mapping:
            raise ShapeOptionError(f"field map: {target!r} is mapped twice")
        if any(not part for part in source.split(".")):
            raise ShapeOptionError(f"field map item {item!r}: expected a dotted path like a.b")
        mapping[target] = source
    missing = [t for t in MAP_REQUIRED if t not in mapping]
    if missing:
        raise ShapeOptionError(f"field map: {', '.join(missing)} must be mapped")
    return mapping


def shape_options(
    shape: str | None = None,
    *,
    pairing: str = "1-1",
    rb2_pairs: str = Rb2Pairs.ALL,
    field_map: str | None = None,
) -> ShapeOptions:
    """The options as the CLI and the Data page take them (texts); ShapeOptionError saying
    what is expected when one is not usable."""
    if shape is not None and shape not in Shape.__members__.values():
        expected = ", ".join(Shape)
        raise ShapeOptionError(f"unknown shape {shape!r}; expected one of {expected}")
    if rb2_pairs not in Rb2Pairs.__members__.values():
        raise ShapeOptionError(f"RewardBench 2 pairs {rb2_pairs!r}: expected all or one")
    mapping = parse_field_map(field_map) if field_map and field_map.strip() else {}
    if shape == Shape.MAP and not mapping:
        raise ShapeOptionError("the map shape needs a field map (--map)")
    if mapping and shape not in (None, Shape.MAP):
        raise ShapeOptionError(f"a field map goes with the map shape, not {shape}")
    return ShapeOptions(
        shape=Shape(shape) if shape is not None else None,
        rmbench_pairing=parse_pairing(pairing),
        rb2_pairs=Rb2Pairs(rb2_pairs),
        field_map=mapping,
    )


def detect(value: Any) -> Shape:
    """The shape of a record when it is recognisably another dataset's; else `prb`, the
    default, whose validation then says what is missing."""
    keys = set(value) if isinstance(value, dict) else set()
    chosen = value.get("chosen") if keys else None
    rejected = value.get("rejected") if keys else None
    if "question" in keys or "narrative" in keys or "profile" in keys:
        return Shape.PRB
    if _texts(chosen) and _texts(rejected):
        if "subset" in keys and "domain" not in keys:
            return Shape.REWARDBENCH2
        if "domain" in keys and "subset" not in keys and len(chosen) == len(rejected) == 3:
            return Shape.RMBENCH
    elif (isinstance(chosen, str) and isinstance(rejected, str) and "prompt" in keys) or (
        _messages(chosen) and _messages(rejected)
    ):
        return Shape.HF
    return Shape.PRB


def _texts(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


# ---------------------------------------------------------------- converters


def _record_id(value: dict[str, Any], name: str = "id") -> str | None:
    """The record's own id (a string, or an integer as RM-Bench and RewardBench write them)."""
    found = value.get(name)
    if found is None:
        return None
    if isinstance(found, bool) or not isinstance(found, str | int):
        expected = f"expected a string or an integer, got {describe_type(found)}"
        raise ShapeProblems([(name, expected)])
    return str(found)


def _rest(value: dict[str, Any], used: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in used}


def _require(value: dict[str, Any], names: tuple[str, ...]) -> None:
    missing = [(name, "missing; this field is required") for name in names if name not in value]
    if missing:
        raise ShapeProblems(missing)


def _text(value: dict[str, Any], name: str) -> str:
    found = value.get(name)
    if not isinstance(found, str):
        raise ShapeProblems([(name, f"expected a string, got {describe_type(found)}")])
    return found


def from_hf(value: dict[str, Any], options: ShapeOptions) -> list[Canonical]:  # noqa: ARG001
    _require(value, ("chosen", "rejected"))
    record_id = _record_id(value)
    found = exchange(value.get("prompt"), value["chosen"], value["rejected"])
    if record_id is None:
        record_id = stable_id(found.turns, found.chosen, found.rejected)
    extra = _rest(value, ("id", "prompt", "chosen", "rejected"))
    record = canonical_record(record_id, found, extra)
    return [Canonical(record, stored_conversation(found.turns))]


def _text_list(value: dict[str, Any], name: str, least: int, *, exact: bool = False) -> list[str]:
    """The texts of a list field: at least `least` of them (exactly, if `exact`)."""
    found = value.get(name)
    if not isinstance(found, list) or len(found) < least or (exact and len(found) != least):
        got = f"{len(found)} item(s)" if isinstance(found, list) else describe_type(found)
        many = f"{least}" if exact else f"at least {least}"
        raise ShapeProblems([(name, f"expected a list of {many} texts, got {got}")])
    wrong = [
        (f"{name}[{i}]", f"expected a string, got {describe_type(v)}")
        for i, v in enumerate(found)
        if not isinstance(v, str)
    ]
    if wrong:
        raise ShapeProblems(wrong)
    return found


def from_rmbench(value: dict[str, Any], options: ShapeOptions) -> list[Canonical]:
    _require(value, ("id", "prompt", "chosen", "rejected", "domain"))
    record_id, prompt, domain = _record_id(value), _text(value, "prompt"), _text(value, "domain")
    chosen = _text_list(value, "chosen", len(RMBENCH_STYLES), exact=True)
    rejected = _text_list(value, "rejected", len(RMBENCH_STYLES), exact=True)
    i, j = options.rmbench_pairing
    found = exchange(prompt, chosen[i], rejected[j])
    extra = {
        "source_id": value["id"],
        "pairing": f"{i}-{j}",
        **_rest(value, ("id", "prompt", "chosen", "rejected", "domain")),
    }
    record = canonical_record(f"{record_id}:{i}-{j}", found, extra)
    return [Canonical(record, stored_conversation(found.turns), domain=domain)]


def from_rewardbench2(value: dict[str, Any], options: ShapeOptions) -> list[Canonical]:
    _require(value, ("id", "prompt", "chosen", "rejected", "subset"))
    record_id, prompt, subset = _record_id(value), _text(value, "prompt"), _text(value, "subset")
    chosen, rejected = _text_list(value, "chosen", 1), _text_list(value, "rejected", 1)
    assert record_id is not None
    rest = _rest(value, ("id", "prompt", "chosen", "rejected", "subset"))
    pairs = []
    for index, text in enumerate(rejected):
        found = exchange(prompt, chosen[0], text)
        extra = {"source_id": value["id"], "rejected_index": index, **rest}
        record = canonical_record(f"{record_id}:r{index}", found, extra)
        draw = (record_id, index, len(rejected)) if options.rb2_pairs == Rb2Pairs.ONE else None
        pairs.append(Canonical(record, stored_conversation(found.turns), subset, draw))
    return pairs


_MISSING = object()


def _at_path(value: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def from_map(value: dict[str, Any], options: ShapeOptions) -> list[Canonical]:
    mapping = options.field_map
    got = {target: _at_path(value, source) for target, source in mapping.items()}
    missing = [
        (mapping[t], f"missing; this field is required (mapped to {t})")
        for t in MAP_REQUIRED
        if got[t] is _MISSING
    ]
    if missing:
        raise ShapeProblems(missing)
    texts = {
        t: got[t]
        for t in ("domain", "category", "narrative")
        if got.get(t, _MISSING) is not _MISSING
    }
    wrong = [
        (mapping[t], f"expected a string, got {describe_type(v)}")
        for t, v in texts.items()
        if not isinstance(v, str)
    ]
    if wrong:
        raise ShapeProblems(wrong)
    prompt = got.get("question", _MISSING)
    names = {"prompt": mapping.get("question", "question"), **{t: mapping[t] for t in MAP_REQUIRED}}
    found = exchange(None if prompt is _MISSING else prompt, got["chosen"], got["rejected"], names)
    record_id = None
    if got.get("id", _MISSING) is not _MISSING:
        record_id = _record_id({mapping["id"]: got["id"]}, mapping["id"])
    if record_id is None:
        record_id = stable_id(found.turns, found.chosen, found.rejected)
    used = {source.split(".")[0] for source in mapping.values()}
    extra = {k: v for k, v in value.items() if k not in used}
    fields = {t: texts[t] for t in ("category", "narrative") if t in texts}
    record = canonical_record(record_id, found, extra, **fields)
    return [Canonical(record, stored_conversation(found.turns), texts.get("domain"))]


CONVERTERS: dict[Shape, Callable[[dict[str, Any], ShapeOptions], list[Canonical]]] = {
    Shape.HF: from_hf,
    Shape.RMBENCH: from_rmbench,
    Shape.REWARDBENCH2: from_rewardbench2,
    Shape.MAP: from_map,
}


def drawn(seed: int, group: str, count: int) -> int:
    """Which of a record's `count` pairs a study with `seed` keeps: the same every import."""
    digest = hashlib.sha256(f"{seed}:{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count
