"""What a run cost when its CLI reports only tokens (Codex), so ``--max-cost`` means the same on both engines.

The table is versioned (:data:`PRICES_VERSION`, the date its prices were read from the providers' price pages)
and overridable: ``$EVALENS_PRICES`` names a JSON file ``{"<model>": {"input": USD, "cached_input": USD,
"output": USD}}`` (per million tokens) whose entries replace or extend the shipped ones. A model with no price
costs nothing known: :func:`price_of` answers None and the budget says so, rather than guessing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

PRICES_VERSION = "2025-10-01"
PRICES_ENV = "EVALENS_PRICES"


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cached_input: float | None = None


SHIPPED: dict[str, Price] = {
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-5-codex": Price(1.25, 10.0, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-4.1": Price(2.0, 8.0, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "o3": Price(2.0, 8.0, 0.50),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "codex-mini-latest": Price(1.50, 6.0, 0.375),
}


@lru_cache(maxsize=8)
def _table(override: str | None) -> dict[str, Price]:
    table = dict(SHIPPED)
    if not override:
        return table
    try:
        with open(override, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ValueError(f"${PRICES_ENV}={override}: not a readable JSON price table ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f'${PRICES_ENV}={override}: expected {{"<model>": {{"input": …, "output": …}}}}')
    for model, entry in data.items():
        try:
            table[str(model)] = Price(
                float(entry["input"]),
                float(entry["output"]),
                float(entry["cached_input"]) if entry.get("cached_input") is not None else None,
            )
        except (TypeError, KeyError, ValueError):
            raise ValueError(
                f"${PRICES_ENV}={override}: model {model!r} needs numeric `input` and `output` "
                "(USD per million tokens)"
            ) from None
    return table


def price_of(model: str | None) -> Price | None:
    """The price of ``model`` (an exact name, else the longest table name it starts with: ``gpt-5-2025-08-07``
    is ``gpt-5``); None when unknown."""
    if not model:
        return None
    table = _table(os.environ.get(PRICES_ENV) or None)
    if model in table:
        return table[model]
    prefixes = [name for name in table if model.startswith(name + "-")]
    return table[max(prefixes, key=len)] if prefixes else None


def cost_of(usage: Any, model: str | None) -> float | None:
    """USD of one run's token usage at ``model``'s price; None when the model has no price or nothing was
    counted. Cached input tokens (counted inside ``input_tokens`` by Codex) are charged at the cached rate."""
    price = price_of(model)
    if price is None or usage is None:
        return None
    given = getattr(usage, "input_tokens", None)
    out = getattr(usage, "output_tokens", None)
    if given is None and out is None:
        return None
    cached = min(getattr(usage, "cache_read_tokens", None) or 0, given or 0)
    fresh = (given or 0) - cached
    rate = price.cached_input if price.cached_input is not None else price.input
    return (fresh * price.input + cached * rate + (out or 0) * price.output) / 1_000_000
