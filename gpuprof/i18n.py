"""User-visible text in English or Simplified Chinese, one catalog for the CLI and the desktop app.

The catalog is Qt Linguist's ``.ts`` file, ``resources/i18n/gpuprof_<lang>.ts``, so translators
can use Qt Linguist; it is read here with the standard library (the core never imports Qt). The
desktop app installs a translator that looks its ``tr()`` texts up in the same catalog (see
``gpuprof.ui.shell.app``). Lookups go by the English text alone: the same words read the same
everywhere. A text with no finished translation shows in English.

The language is chosen once at start-up by :func:`set_language`: ``--lang``, else
``GPUPROF_LANG``, else the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``zh…`` → ``zh_CN``).
Update the catalog after changing texts with ``python scripts/update_catalog.py [--tsv FILE]``:
it runs ``pyside6-lupdate`` over ``ui/`` and ``gpuprof/`` and keeps each text once, in one
context, with the translation it had (or the one the tab-separated file gives).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from gpuprof.errors import InputError

__all__ = [
    "LANGUAGES",
    "N_",
    "bilingual",
    "language",
    "load_catalog",
    "lookup",
    "requested_language",
    "set_language",
    "tr",
    "tr_text",
    "translate_argparse",
]

#: Languages with a catalog ("en" is the source language and needs none), and their names.
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}

_language = "en"
_catalog: dict[str, str] = {}
_loaded: dict[str, dict[str, str]] = {}
_patterns: list[tuple[re.Pattern[str], str]] | None = None  # tr_text's templates, made lazily


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
    global _language, _catalog, _patterns
    auto = value is None or value.strip().lower() == "auto"
    lang = requested_language() if auto else _normalize(value or "", "--lang")
    catalog = {} if lang == "en" else _bundled(lang)
    _language, _catalog = lang, catalog  # chosen at start-up, before any thread reads them
    _patterns = None
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


def bilingual(text: str, /, **kwargs: object) -> str:
    """``text`` in the language in use and in English, for the few messages that must be read
    even where the translation cannot be (the warning that no Chinese font is installed)."""
    english = text.format(**kwargs) if kwargs else text
    translated = tr(text, **kwargs)
    return english if translated == english else f"{translated} / {english}"


#: A template needs this many literal characters to be matched by :func:`tr_text`: "{a}: {b}"
#: alone would claim any text with a colon.
_MIN_LITERAL = 6
_FIELD = re.compile(r"\{(\w*)(?:![rsa])?(?::[^{}]*)?\}")


def _group(field: re.Match[str], n: int) -> str:
    """A regular-expression group name for the ``n``-th ``{field}`` of a template."""
    name = field.group(1)
    return name if name.isidentifier() else f"_{name or n}"


def _template_patterns() -> list[tuple[re.Pattern[str], str]]:
    global _patterns
    if _patterns is None:
        out: list[tuple[re.Pattern[str], str]] = []
        for source, translated in _catalog.items():
            fields = list(_FIELD.finditer(source))
            literal = _FIELD.sub("", source)
            if not fields or len(literal.strip()) < _MIN_LITERAL or "{{" in source:
                continue
            parts: list[str] = []
            seen: set[str] = set()
            pos = 0
            for n, field in enumerate(fields):
                name = _group(field, n)
                parts.append(re.escape(source[pos : field.start()]))
                parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
                seen.add(name)
                pos = field.end()
            parts.append(re.escape(source[pos:]))
            out.append((re.compile("".join(parts), re.DOTALL), translated))
        # Longest templates first: the most specific one wins.
        out.sort(key=lambda item: -len(item[0].pattern))
        _patterns = out
    return _patterns


def tr_text(text: str, /, *, _depth: int = 0) -> str:
    """The translation of an English text made earlier from a catalog text: a benchmark's note
    or skip reason kept in the results database, a source named in a recommendation.

    Stored texts stay English (they are data, read back by scripts); they are translated where
    they are shown. An exact catalog text is looked up; otherwise the first catalog text with
    ``{fields}`` that matches gives the translation, with the same field values (each of which
    is translated in turn: ``"skipped: {why}"``). A text that matches none is returned as is.
    """
    if not _catalog or not text:
        return text
    exact = _catalog.get(text)
    if exact is not None:
        return exact
    if _depth >= 3:
        return text
    for pattern, translated in _template_patterns():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        values = match.groupdict()
        fields = list(_FIELD.finditer(translated))
        out: list[str] = []
        pos = 0
        for n, field in enumerate(fields):
            value = values.get(_group(field, n))
            if value is None:  # the translation names a field the English does not
                break
            out.append(translated[pos : field.start()])
            out.append(tr_text(value, _depth=_depth + 1))
            pos = field.end()
        else:
            out.append(translated[pos:])
            return "".join(out)
    return text


#: argparse's own texts: the usage prefix, section titles, ``-h``'s help and its parse errors.
#: argparse looks them up through :mod:`gettext` (``argparse._``); :func:`translate_argparse`
#: points that lookup at this catalog.
_ARGPARSE_TEXTS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("expected %s argument"),
    N_("expected %s arguments"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)


def _argparse_gettext(text: str) -> str:
    return _catalog.get(text, text)


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    text = singular if n == 1 else plural
    return _catalog.get(text, text)


def translate_argparse() -> None:
    """Translate argparse's own texts (see ``_ARGPARSE_TEXTS``) in the language in use.

    argparse reads them through ``gettext``, bound in its module as ``_`` and ``ngettext`` when
    it is imported; those two are pointed at this catalog. In English they return the text
    unchanged, as gettext does without a catalog. Call before building a parser: the section
    titles are read when it is made.
    """
    import argparse

    vars(argparse).update(_=_argparse_gettext, ngettext=_argparse_ngettext)
