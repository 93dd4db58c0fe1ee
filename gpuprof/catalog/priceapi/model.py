"""What the price API's face and its providers share: the user's keys and one answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Credentials", "Quote", "QuoteFn"]


@dataclass(frozen=True)
class Credentials:
    key_id: str
    secret: str

    def __repr__(self) -> str:  # never print the secret
        return f"Credentials(key_id={self.key_id!r}, secret=***)"


@dataclass(frozen=True)
class Quote:
    """One instance type's price as the API answered: per hour (pay as you go) in ``currency``."""

    instance: str
    price_hr: float
    currency: str


#: ``quote(credentials, instance_type, region, options)`` → the API's price.
QuoteFn = Callable[[Credentials, str, str, "dict[str, str]"], Quote]
