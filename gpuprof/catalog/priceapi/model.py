"""What the price API's face and its providers share: the user's keys and one answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gpuprof.catalog.update import _download
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["Credentials", "Quote", "QuoteFn", "api_error", "ask", "no_price"]

#: The most one price API answer may hold, and how long one request may take.
MAX_ANSWER_BYTES = 1 << 20
TIMEOUT_S = 30.0


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


def ask(
    url: str, provider: str, *, data: bytes | None = None, headers: Mapping[str, str] | None = None
) -> bytes:
    """The answer of one price request to ``url`` (a POST of ``data`` with ``headers`` when
    given), bounded by :data:`TIMEOUT_S` and :data:`MAX_ANSWER_BYTES`; one InputError naming the
    URL for anything else."""
    return _download(
        url,
        provider,
        timeout=TIMEOUT_S,
        max_bytes=MAX_ANSWER_BYTES,
        progress=None,
        cancel=None,
        data=data,
        headers=headers,
    )


def api_error(where: str, itype: str, code: object, message: object) -> InputError:
    """The API's own refusal of ``itype`` at ``where``: its error code and message (cut short)."""
    return InputError(
        tr("{u}: {i}: {c}: {m}", u=where, i=itype, c=str(code)[:80], m=str(message)[:300])
    )


def no_price(where: str, itype: str, expected: str) -> InputError:
    """An answer at ``where`` without ``itype``'s price where the API puts it (``expected``:
    the answer's field, e.g. ``Price.InstancePrice``)."""
    return InputError(
        tr("{u}: no price for {i} in the answer (expected {e})", u=where, i=itype, e=expected)
    )
