"""A downstream condition's name: what one imported file stands for (no database).

The benchmark's files do not say which reward model or policy produced them (Personalized-
RewardBench `BoN/score.py` writes `BoN/data/{short}_k{k}.jsonl` whatever the model, and
`PPO/infer.py` writes `PPO/result/{short}{tag}_inference.jsonl`), so the importer is told:

- `bon:<reward model>:k<k>`: the best-of-k responses a reward model picked, e.g.
  `bon:skywork-3b:k16`; its baseline is `bon:<reward model>:k1`;
- `ppo:<policy>:<tag>`: a policy's responses, e.g. `ppo:qwen-0.5b:step300`; by convention
  `ppo:<policy>:base` is the policy before PPO training.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotate.errors import Invalid

BON, PPO = "bon", "ppo"
PPO_BASE_TAG = "base"
MAX_PART_CHARS = 100
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]*$")
_K = re.compile(r"^k([1-9][0-9]{0,5})$")
EXAMPLES = "e.g. 'bon:skywork-3b:k16' or 'ppo:qwen-0.5b:step300'"


@dataclass(frozen=True, order=True)
class Condition:
    kind: str
    model: str
    variant: str
    k: int | None = None

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.model}:{self.variant}"

    def baseline(self) -> Condition:
        """What this condition's gain is measured against: best-of-1 of the same reward model,
        or the same policy before training."""
        if self.kind == BON:
            return Condition(BON, self.model, "k1", 1)
        return Condition(PPO, self.model, PPO_BASE_TAG)


def parse_condition(text: str) -> Condition:
    """The condition named by `text`; Invalid saying what is expected."""
    parts = text.strip().split(":")
    if len(parts) != 3:
        raise Invalid(f"a condition is kind:model:variant ({EXAMPLES}), got {text!r}")
    kind, model, variant = parts
    if kind not in (BON, PPO):
        raise Invalid(f"a condition's kind is 'bon' or 'ppo' ({EXAMPLES}), got {kind!r}")
    for label, part in (("model", model), ("variant", variant)):
        if len(part) > MAX_PART_CHARS or not _PART.match(part):
            raise Invalid(
                f"a condition's {label} is 1 to {MAX_PART_CHARS} letters, digits and ._/+- "
                f"({EXAMPLES}), got {part!r}"
            )
    if kind == PPO:
        return Condition(PPO, model, variant)
    found = _K.match(variant)
    if found is None:
        raise Invalid(f"a best-of-n condition's variant is k<number> ({EXAMPLES}), got {variant!r}")
    return Condition(BON, model, variant, int(found.group(1)))
