"""User-visible text in English or Simplified Chinese, one catalog for the CLI and the desktop app.

The catalog is Qt Linguist's ``.ts`` file, ``resources/i18n/gpuprof_<lang>.ts``, so translators
can use Qt Linguist; it is read here with the standard library (the core never imports Qt). The
desktop app installs a translator that looks its ``tr()`` texts up in the same catalog (see
``gpuprof.ui.app``). Lookups go by the English text alone: the same words read the same
everywhere. A text with no finished translation shows in English.

The language is chosen once at start-up by :func:`set_language`: ``--lang``, else
``GPUPROF_LANG``, else the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``zh…`` → ``zh_CN``).
Update the catalog after changing texts with::

    pyside6-lupdate ui/*.py $(git ls-files 'gpuprof/*.py') -tr-function-alias tr+=_t,tr+=N_ \\
        -locations none -no-obsolete -ts resources/i18n/gpuprof_zh_CN.ts
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from gpuprof.errors import InputError

__all__ = [
    "LANGUAGES",
    "N_",
    "language",
    "load_catalog",
    "lookup",
    "requested_language",
    "set_language",
    "tr",
]

#: Languages with a catalog ("en" is the source language and needs none), and their names.
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}

_language = "en"
_catalog: dict[str, str] = {}
_loaded: dict[str, dict[str, str]] = {}


def load_catalog(text: str, *, where: str = "catalog") -> dict[str, str]:
    """``{English: translation}`` from the text of a ``.ts`` file; unfinished ones are left out."""
    import xml.etree.ElementTree as ET  # here, not at import: start-up stays quick in English

    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(f"{where}: not a valid Qt .ts file ({exc})") from None
    out: dict[str, str] = {}
    for message in root.iter("message"):
        source = message.findtext("source")
        node = message.find("translation")
        if not source or node is None or node.get("type") in ("unfinished", "obsolete", "vanished"):
            continue
        forms = [f.text or "" for f in node.findall("numerusform")]
        value = forms[0] if forms else (node.text or "")
        if value:
            out[source] = value
    return out


def _bundled(lang: str) -> dict[str, str]:
    if lang not in _loaded:
        from importlib import resources

        name = f"gpuprof_{lang}.ts"
        try:
            text = resources.files("gpuprof.resources").joinpath("i18n", name).read_text("utf-8")
        except (FileNotFoundError, ModuleNotFoundError):
            raise InputError(
                f"the {LANGUAGES[lang]} catalog {name} is missing from this build"
            ) from None
        _loaded[lang] = load_catalog(text, where=name)
    return _loaded[lang]


def requested_language(env: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for: ``GPUPROF_LANG``, else the locale; "en" or "zh_CN"."""
    env = os.environ if env is None else env
    explicit = env.get("GPUPROF_LANG", "").strip()
    if explicit and explicit.lower() != "auto":
        return _normalize(explicit, "GPUPROF_LANG")
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "").strip()
        if value:  # the first one set decides, as in gettext
            return "zh_CN" if value.lower().startswith("zh") else "en"
    return "en"


def _normalize(value: str, what: str) -> str:
    key = value.strip().replace("-", "_").split(".")[0].lower()
    if key in ("zh", "zh_hans", "zh_sg"):
        return "zh_CN"
    for lang in LANGUAGES:
        if key == lang.lower():
            return lang
    choices = ", ".join(["auto", *LANGUAGES])
    raise InputError(f"{what}: unknown language {value!r} (choose one of {choices})")


def set_language(value: str | None = None) -> str:
    """Use ``value`` ("en", "zh_CN", "auto"; ``None``: as the environment asks); returns it."""
    global _language, _catalog
    auto = value is None or value.strip().lower() == "auto"
    lang = requested_language() if auto else _normalize(value or "", "--lang")
    catalog = {} if lang == "en" else _bundled(lang)
    _language, _catalog = lang, catalog  # chosen at start-up, before any thread reads them
    return lang


def N_(text: str) -> str:
    """Mark ``text`` for the catalog where it is defined (a table of titles, say) and translate it
    where it is shown; returns it unchanged (gettext's ``N_``, Qt's ``QT_TR_NOOP``)."""
    return text


def language() -> str:
    """The language in use ("en" until :func:`set_language` chooses another)."""
    return _language


def lookup(text: str) -> str | None:
    """The translation of ``text`` in the language in use, or ``None`` where there is none."""
    return _catalog.get(text)


def tr(text: str, /, **kwargs: object) -> str:
    """Translate ``text`` and fill its ``{name}`` fields from ``kwargs``."""
    translated = _catalog.get(text, text)
    return translated.format(**kwargs) if kwargs else translated
