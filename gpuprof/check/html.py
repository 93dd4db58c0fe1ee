"""The acceptance check's HTML report: its first section is the verdict, the machine identity
(hostname, serial numbers, UUIDs, driver) and the scorecard, ready to hand to a customer.

Shared by ``gpuprof check --html`` and the app's Check tab (which must not import the CLI).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuprof.i18n import tr, tr_text

if TYPE_CHECKING:
    from gpuprof.check.model import CheckResult

__all__ = ["render_html"]

_HTML = """<!doctype html>
<html lang="{{ lang }}"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;width:100%;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
.PASS{color:#070}.WARN{color:#a60}.FAIL{color:#b00;font-weight:bold}.SKIP{color:#888}
.verdict{font-size:2em;margin:.3em 0}
</style></head><body>
<section id="verdict">
<h1>{{ title }}</h1>
<p class="verdict {{ verdict }}">{{ verdict_label }}</p>
<h2>{{ identity_title }}</h2>
<table>
<tr><th>{{ labels.host }}</th><td>{{ identity.hostname }}</td></tr>
<tr><th>{{ labels.driver }}</th><td>{{ identity.driver_version or "" }} / CUDA {{ identity.cuda_driver_version or "" }}</td></tr>
{% for g in identity.gpus %}<tr><th>GPU {{ g.index }}</th><td>{{ g.name }} · UUID {{ g.uuid or "" }} · S/N {{ g.serial or "" }} · {{ g.pci_bus_id or "" }}</td></tr>
{% endfor %}</table>
<h2>{{ labels.scorecard }}</h2>
<table><tr>{% for h in headers %}<th>{{ h }}</th>{% endfor %}</tr>
{% for i in items %}<tr><td>{{ i.item_id }}</td><td>{{ "" if i.gpu_index is none else i.gpu_index }}</td>
<td class="{{ i.status }}">{{ i.status }}</td><td>{{ i.measured if i.measured is not none else "" }} {{ i.unit }}</td>
<td>{{ i.expected if i.expected is not none else "" }}</td><td>{{ "%.0f%%"|format(100 * i.ratio) if i.ratio is not none else "" }}</td>
<td>{{ i.reason }}{% if i.hint %} — {{ i.hint }}{% endif %}</td><td>{{ i.source }}</td></tr>
{% endfor %}</table>
</section></body></html>
"""


def render_html(result: CheckResult, data: dict[str, Any]) -> str:
    """The report's first section: verdict, machine identity, scorecard. ``data`` is the
    redacted JSON form; everything from the system is escaped (jinja2 autoescape)."""
    import jinja2

    from gpuprof.i18n import language

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    items = [
        {**i, "reason": tr_text(i["reason"]), "hint": tr_text(i["hint"])} for i in data["items"]
    ]
    return env.from_string(_HTML).render(
        lang=language(),
        title=tr("GPU acceptance check ({level})", level=result.level),
        verdict=result.verdict.value,
        verdict_label=tr(
            "verdict: {v} (exit code {c})", v=result.verdict.value, c=result.exit_code
        ),
        identity_title=tr("machine"),
        identity=data["identity"],
        labels={"host": tr("host"), "driver": tr("driver"), "scorecard": tr("scorecard")},
        headers=[
            tr("item"),
            tr("GPU"),
            tr("status"),
            tr("measured"),
            tr("expected"),
            tr("ratio"),
            tr("why / hint"),
            tr("reference"),
        ],
        items=items,
    )
