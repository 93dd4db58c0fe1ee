"""``gpuprof recommend --model`` / ``--list-models``: the architecture an estimate assumed."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from gpuprof.commands.tables import folded_table
from gpuprof.i18n import N_, tr

__all__ = ["architecture_note", "list_models"]


def architecture_note(wl: Any) -> str:
    """The architecture the estimate assumed: the named model's, or the default from N."""
    from gpuprof.recommend.memory import kv_bytes_per_token, model_shape

    layers, hidden = model_shape(wl)
    kv_kib = kv_bytes_per_token(wl) / 1024.0
    if wl.model:
        return tr(
            "architecture: {m} ({l} layers, hidden {h}, {a:.3g} of {p:.3g} parameters active, "
            "KV cache {kv:.0f} KiB per token)",
            m=wl.model,
            l=layers,
            h=hidden,
            a=wl.params_per_token,
            p=wl.params,
            kv=kv_kib,
        )
    return tr(
        "architecture: default from --params ({l} layers, hidden {h}, full multi-head "
        "attention, KV cache {kv:.0f} KiB per token); --model NAME uses a real one",
        l=layers,
        h=hidden,
        kv=kv_kib,
    )


def list_models(args: argparse.Namespace) -> int:
    from gpuprof.recommend.models import load_models

    models = load_models(args.models_file)
    if args.json:
        from gpuprof.jsonout import print_json

        print_json([dataclasses.asdict(m) for m in models.values()])
        return 0

    from gpuprof.termtext import console

    table = folded_table(
        tr("model architectures"),
        (
            N_("name"),
            N_("kind"),
            N_("layers"),
            N_("hidden"),
            N_("heads"),
            N_("KV heads"),
            N_("params"),
            N_("active params"),
            N_("source"),
        ),
    )
    for m in models.values():
        table.add_row(
            m.name,
            m.kind,
            str(m.layers),
            str(m.hidden),
            str(m.heads),
            str(m.kv_heads),
            f"{m.params_total:.3g}",
            f"{m.params_active:.3g}",
            m.source,
        )
    console().print(table)
    return 0
