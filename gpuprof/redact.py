"""Make text that came from the system safe to show and to share.

- :func:`clean_text`: any string → valid Unicode without control characters, bounded length.
  Process names and command lines are bytes on Linux; psutil decodes them with
  ``surrogateescape``, which leaves lone surrogates that cannot be written as UTF-8.
- :func:`redact_secrets`: hides passwords, tokens, API keys and ``user:pass@`` in URLs.
- :func:`redact_cmdline`: what a report shows of a command line — by default only the program
  name; with ``keep=True`` the whole line, still with the secrets hidden.
- :func:`redact_text`: any text that leaves the machine (a process name, a hostname, a session
  label): cleaned and with the secrets hidden; :func:`redact_tree` applies
  :func:`redact_secrets` to every string of a record (a report, a JSON payload), and
  :func:`clean_tree` :func:`clean_text`.

The report model, the ``--json`` outputs, the UI's process table and the exporter's labels
share these, so a secret is hidden the same way everywhere.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "MASK",
    "REDACTED_ARGS",
    "clean_text",
    "clean_tree",
    "map_strings",
    "redact_cmdline",
    "redact_secrets",
    "redact_text",
    "redact_tree",
]

_T = TypeVar("_T")

#: What replaces a secret.
MASK = "***"
#: Appended to the program name when a command line's arguments are hidden.
REDACTED_ARGS = "[arguments hidden]"

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")

_SECRET_WORDS = (
    r"pass(?:word|wd|phrase)?|pwd|pw|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|client[_-]?secret|credentials?|auth(?:orization)?|session[_-]?key|"
    r"signature"
)
# The option or variable name must END in a secret word: --hf-token, DB_PASSWORD, SECRET_KEY;
# not --max-tokens or --tokenizer.
_NAME = rf"(?:{_SECRET_WORDS})(?:[-_.]?(?:key|value|id))?(?![\w])"
# --password=x, --api-key x, -token:x ; the option name may carry a prefix (--hf-token, --db-password).
_OPTION = re.compile(
    rf"(?P<opt>(?<![\w-])--?[\w.-]*?{_NAME})(?P<sep>[=:]|\s+)(?P<val>\"[^\"]*\"|'[^']*'|\S+)",
    re.IGNORECASE,
)
# HF_TOKEN=x, AWS_SECRET_ACCESS_KEY=x, db.password=x, "password": "x"
_ASSIGN = re.compile(
    rf"(?P<opt>(?<![\w-])[\w.]*?{_NAME}[\"']?)(?P<sep>\s*[=:]\s*)(?P<val>\"[^\"]*\"|'[^']*'|[^\s,;&]+)",
    re.IGNORECASE,
)
_VALUE = r"(?P<val>\"[^\"]*\"|'[^']*'|\S+)"
# Short or bare options that take a password: mysql/sshpass -p PW, --pw=PW, --key=KEY, --pass PW.
# A value after a space must not look like the next option (-p -v).
_SHORT_OPTION = re.compile(
    rf"(?P<opt>(?<![\w-])(?:-p|--?pw|--?key|--?pass))(?:(?P<sep>=)|(?P<sp>\s+)(?=[^\s-])){_VALUE}"
)
# mysql -pSECRET: the password glued to -p (only for the MySQL family: elsewhere -pXYZ is flags).
_MYSQL = re.compile(r"\b(?:mysql\w*|mariadb\w*)\b", re.IGNORECASE)
_GLUED_P = re.compile(r"(?P<opt>(?<![\w-])-p)(?P<val>[^\s=-]\S*)")
# curl -u user:pass, --user=user:pass, --proxy-user user:pass
_USER_PASS = re.compile(
    r"(?P<opt>(?<![\w-])(?:-u|-U|--user|--proxy-user)(?:=|\s+)[^\s:'\"]+):(?P<val>[^\s@]+)"
)
_URL_USERINFO = re.compile(
    r"(?P<scheme>\b[a-z][a-z0-9+.-]*://)(?P<info>[^/\s@:]*(?::[^/\s@]*)?)@", re.IGNORECASE
)
_BEARER = re.compile(
    r"\b(?P<opt>Bearer|Basic|token)(?P<sep>\s+)(?P<val>[A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE
)
_QUERY = re.compile(
    rf"(?P<opt>[?&](?:{_SECRET_WORDS}|key|x-amz-signature|x-amz-credential)=)(?P<val>[^&\s#]+)",
    re.IGNORECASE,
)
_KNOWN_TOKENS = re.compile(
    r"\b(?:"
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}"  # AWS access key ids
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"  # GitHub
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"  # OpenAI / Anthropic style
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API key
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWT
    r")"
)
# 40 base64 characters on their own: the shape of an AWS secret access key.
_AWS_SECRET = re.compile(
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[0-9])(?=[A-Za-z0-9/+]*[A-Z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
_PEM = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.DOTALL
)


def clean_text(text: object, max_len: int | None = None) -> str:
    """``text`` as printable, encodable Unicode: lone surrogates and invalid bytes become U+FFFD,
    control and bidi-override characters become U+FFFD, and the result is cut to ``max_len``
    characters with an ellipsis. ``None`` gives ``""``."""
    if text is None:
        return ""
    if isinstance(text, bytes):
        s = text.decode("utf-8", "replace")
    else:
        s = str(text)
        s = _SURROGATE.sub("\ufffd", s)
    s = _CONTROL.sub("\ufffd", s.replace("\r\n", "\n").replace("\t", " "))
    if max_len is not None and len(s) > max_len:
        s = s[: max(0, max_len - 1)] + "…"
    return s


def _mask_value(m: re.Match[str]) -> str:
    value = m.group("val")
    if value.strip("\"'") == MASK:  # already hidden (e.g. "Authorization: Bearer ***")
        return m.group(0)
    return f"{m.group('opt')}{m.group('sep')}{MASK}"


def _mask_short(m: re.Match[str]) -> str:
    if m.group("val").strip("\"'") == MASK:
        return m.group(0)
    return f"{m.group('opt')}{m.group('sep') or m.group('sp')}{MASK}"


def redact_secrets(text: str) -> str:
    """``text`` with passwords, tokens, keys and URL credentials replaced by :data:`MASK`.

    Covers ``--password=x`` / ``--token x`` / ``-p x`` / ``--pw=x`` / ``--key=x`` style options
    (and MySQL's ``-px``, curl's ``-u user:x``), ``API_KEY=x`` style assignments,
    ``scheme://user:pass@host``, ``Bearer x``, secret query parameters, and well-known token
    shapes (AWS, GitHub, GitLab, Slack, Hugging Face, OpenAI, Google, JWT, PEM private keys).
    """
    s = _PEM.sub(MASK, text)
    s = _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{MASK}@", s)
    s = _BEARER.sub(lambda m: f"{m.group('opt')}{m.group('sep')}{MASK}", s)
    s = _OPTION.sub(_mask_value, s)
    s = _SHORT_OPTION.sub(_mask_short, s)
    if _MYSQL.search(s):
        s = _GLUED_P.sub(lambda m: f"{m.group('opt')}{MASK}", s)
    s = _USER_PASS.sub(lambda m: f"{m.group('opt')}:{MASK}", s)
    s = _ASSIGN.sub(_mask_value, s)
    s = _QUERY.sub(lambda m: f"{m.group('opt')}{MASK}", s)
    s = _KNOWN_TOKENS.sub(MASK, s)
    s = _AWS_SECRET.sub(MASK, s)
    return s


def _program(cmdline: str) -> str:
    first = cmdline.strip().split(None, 1)[0] if cmdline.strip() else ""
    return first.rstrip("/").rsplit("/", 1)[-1].rsplit("\\", 1)[-1]


def redact_cmdline(cmdline: str | None, *, keep: bool = False, max_len: int = 2000) -> str | None:
    """What to show of a command line. ``keep=False`` (the default): the program's base name
    and :data:`REDACTED_ARGS`; ``keep=True``: the line with :func:`redact_secrets` applied.
    Always passed through :func:`clean_text`."""
    if cmdline is None:
        return None
    text = clean_text(cmdline)
    if not keep:
        program = _program(text)
        if not program:
            return ""
        rest = text.strip()[len(text.strip().split(None, 1)[0]) :].strip()
        return clean_text(program, 200) + (f" {REDACTED_ARGS}" if rest else "")
    return clean_text(redact_secrets(text), max_len)


def redact_text(text: object, max_len: int | None = None) -> str:
    """Text that leaves the machine (a process name, a hostname, a label): :func:`clean_text`
    with :func:`redact_secrets` applied, cut to ``max_len``."""
    return clean_text(redact_secrets(clean_text(text)), max_len)


def redact_tree(obj: _T) -> _T:
    """``obj`` with :func:`redact_secrets` applied to every string in it (see
    :func:`map_strings`)."""
    return map_strings(obj, redact_secrets)


def clean_tree(obj: _T, max_len: int | None = None) -> _T:
    """``obj`` with :func:`clean_text` (cut to ``max_len``) applied to every string in it (see
    :func:`map_strings`)."""
    return map_strings(obj, lambda s: clean_text(s, max_len))


def map_strings(obj: _T, fn: Callable[[str], str]) -> _T:
    """``obj`` with ``fn`` applied to every string in it but enum members: frozen dataclasses
    (copied with ``dataclasses.replace``), tuples, lists and dict values. Unchanged parts are
    returned as they are (the same objects)."""
    return _map_any(obj, fn)  # type: ignore[no-any-return]


def _map_any(obj: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(obj, str):
        if isinstance(obj, enum.Enum):
            return obj
        out = fn(obj)
        return obj if out == obj else out
    if isinstance(obj, (int, float, bool)) or obj is None:
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            value = getattr(obj, f.name)
            new = _map_any(value, fn)
            if new is not value:
                changes[f.name] = new
        return dataclasses.replace(obj, **changes) if changes else obj
    if isinstance(obj, (tuple, list)):
        items = [_map_any(v, fn) for v in obj]
        if all(a is b for a, b in zip(items, obj, strict=True)):
            return obj
        return type(obj)(items) if type(obj) in (tuple, list) else obj
    if isinstance(obj, dict):
        new_items = {k: _map_any(v, fn) for k, v in obj.items()}
        if all(new_items[k] is v for k, v in obj.items()):
            return obj
        return new_items
    return obj
