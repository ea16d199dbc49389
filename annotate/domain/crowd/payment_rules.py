"""What a crowd study pays (issue 34.3 and 34.4), with no database: the study's reward per
completed participant, its bonus rule and its platform's fee, all in minor units (pence,
cents) as whole numbers so that no sum is off by a rounding.

The bonus rule (`study.bonus_rule`, read by `annotate.vocabulary.parse_bonus_rule`): '' (no
bonus) or 'per_extra_pair:N', N minor units for each rated pair beyond the pairs the study asks
before Finish (`finish_minimum`, else the pairs per person). A participant who completed
(or whose pool ran dry after working: paid pro rata) is paid the reward; nobody else is paid
a reward, and only a participant who is paid the reward earns a bonus. The platform's fee is
a percentage of everything paid, rounded half up to the minor unit, once per participant.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from annotate.db.tables import Study
from annotate.domain.crowd.outcomes import COMPLETED, PAID, PARTIAL
from annotate.vocabulary import parse_bonus_rule

PAID_STATUSES = PAID
"""Outcomes that earn the reward."""
MAX_AMOUNT = Decimal(1000)
"""The largest bonus one CSV line may give (in the currency's major unit): a typo guard."""


@dataclass(frozen=True)
class PaymentRules:
    """A study's money, in minor units of `currency`."""

    reward: int
    currency: str
    fee_percent: float
    bonus_per_extra_pair: int
    required_pairs: int | None
    """pairs rated before Finish (None: no finish step, so no bonus by the rule)"""


def payment_rules(study: Study) -> PaymentRules:
    """The study's payment rules from its settings (reward 0 when none is set)."""
    return PaymentRules(
        reward=study.reward or 0,
        currency=study.currency,
        fee_percent=float(study.platform_fee_percent),
        bonus_per_extra_pair=parse_bonus_rule(study.bonus_rule or ""),
        required_pairs=study.finish_minimum or study.pool_quota,
    )


def rule_bonus(rules: PaymentRules, status: str, pairs_rated: int) -> int:
    """The bonus the study's rule gives a participant with `status` who rated `pairs_rated`
    pairs, in minor units (0 for one who is not paid the reward)."""
    if status not in PAID_STATUSES or rules.required_pairs is None:
        return 0
    return max(0, pairs_rated - rules.required_pairs) * rules.bonus_per_extra_pair


def participant_cost(rules: PaymentRules, status: str, pro_rata: float, bonus: int) -> int:
    """What one participant costs the study, the platform's fee included, in minor units: the
    reward for `COMPLETED`, `pro_rata` (0..1) of it for `PARTIAL`, nothing for any other
    status; plus `bonus`; times (1 + fee)."""
    if status == COMPLETED:
        reward = Decimal(rules.reward)
    elif status == PARTIAL:
        reward = Decimal(rules.reward) * Decimal(str(min(max(pro_rata, 0.0), 1.0)))
    else:
        reward = Decimal(0)
    paid = (reward + Decimal(bonus)).quantize(Decimal(1), ROUND_HALF_UP)
    fee = (paid * Decimal(str(rules.fee_percent)) / 100).quantize(Decimal(1), ROUND_HALF_UP)
    return int(paid + fee)


def major_units(minor: int) -> str:
    """An amount as the platform takes it: '1.50' for 150 minor units."""
    return f"{Decimal(minor) / 100:.2f}"


def minor_units(text: str) -> int:
    """'1.50' -> 150; refuses more than two decimals, negative and oversized amounts."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{text!r} is not an amount such as 1.50") from None
    if not value.is_finite() or value <= 0 or value > MAX_AMOUNT:
        raise ValueError(f"{text!r}: expected an amount above 0 and at most {MAX_AMOUNT}")
    cents = value * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"{text!r}: at most two decimals")
    return int(cents)


def pay_words(rules: PaymentRules, platform: str | None) -> str:
    """The study's pay in words, for the card ('' when no reward is set)."""
    if not rules.reward:
        return ""
    where = f" (recruited on {platform.replace('_', ' ')})" if platform else ""
    words = f"{major_units(rules.reward)} {rules.currency} per completed participant{where}"
    if rules.bonus_per_extra_pair and rules.required_pairs is not None:
        words += (
            f", and a bonus of {major_units(rules.bonus_per_extra_pair)} {rules.currency} per "
            f"pair rated beyond the {rules.required_pairs} asked"
        )
    return words
