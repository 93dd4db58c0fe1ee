"""Model architectures (``resources/models.csv``): what ``--model NAME`` fills into a workload.

Each row is one published architecture — layers, hidden size, attention heads, KV heads
(grouped-query attention), head size, vocabulary, total and active parameters (mixture of
experts) — with its source. A mixture of experts also gives its routed experts (``experts``,
``top_k`` of them per token, ``shared_experts`` always on), the layers that have them
(``moe_layers``) and each expert's FFN width (``expert_ffn``): the routed experts' parameters,
``moe_layers × experts × 3 × hidden × expert_ffn`` (SwiGLU: gate, up, down), are what expert
parallelism shards in training (:mod:`gpuprof.recommend.parallel`). The KV cache an inference workload needs comes from the row's KV
heads (``2·kv_heads·head_dim`` elements per token per layer, or the row's own
``kv_per_token_layer`` for latent attention such as DeepSeek-V3's MLA); FLOPs use the active
parameters and memory the total.

A file given by the user (``--models-file``) is outside input: it is read with a size cap, as
UTF-8, and every row is checked; anything wrong is one :class:`InputError` naming the file and
the line.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = [
    "DEFAULT_MODELS_FILE",
    "KINDS",
    "MAX_FILE_BYTES",
    "ModelArch",
    "find_model",
    "load_models",
]

#: The shipped file (package data ``gpuprof.resources``; on disk in every install layout we ship).
DEFAULT_MODELS_FILE = Path(str(resources.files("gpuprof.resources").joinpath("models.csv")))
KINDS = ("llm", "moe", "vision", "diffusion")
#: A models file larger than this is not a models file (the shipped one is ~6 KB).
MAX_FILE_BYTES = 1 << 20
MAX_ROWS = 10_000
COLUMNS = (
    "name",
    "family",
    "kind",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "params_total",
    "params_active",
    "kv_per_token_layer",
    "source",
    "notes",
)
#: Mixture-of-experts columns, optional (a file without them, or an empty cell: dense).
MOE_COLUMNS = ("experts", "top_k", "shared_experts", "moe_layers", "expert_ffn")
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
#: Bounds of each integer column: beyond them a number is a typo, not an architecture.
_INT_LIMITS = {
    "layers": 10_000,
    "hidden": 1 << 20,
    "heads": 1 << 14,
    "kv_heads": 1 << 14,
    "head_dim": 1 << 14,
    "vocab": 1 << 24,
}
_PARAMS_LIMIT = 1e14


@dataclass(frozen=True)
class ModelArch:
    """One architecture. ``vocab`` 0 = not verified; ``params_active`` = total for dense models."""

    name: str
    family: str
    kind: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    params_total: float
    params_active: float
    kv_per_token_layer: float
    source: str
    notes: str = ""
    experts: int = 0
    top_k: int = 0
    shared_experts: int = 0
    moe_layers: int = 0
    expert_ffn: int = 0

    @property
    def expert_params(self) -> float:
        """Parameters of all routed experts (SwiGLU: three ``hidden × expert_ffn`` matrices)."""
        return 3.0 * self.moe_layers * self.experts * self.hidden * self.expert_ffn

    @property
    def has_kv_cache(self) -> bool:
        return self.kind in ("llm", "moe")

    @property
    def _kv_by_heads(self) -> bool:
        """The cache is ``2·kv_heads·head_dim`` per token per layer (not a latent of its own)."""
        return abs(self.kv_per_token_layer - 2.0 * self.kv_heads * self.head_dim) < 0.5

    def workload_fields(self) -> dict[str, object]:
        """The :class:`~gpuprof.recommend.workload.Workload` fields this architecture sets."""
        return {
            "params": self.params_total,
            "active_params": self.params_active if self.params_active < self.params_total else None,
            "layers": self.layers,
            "hidden": self.hidden,
            "kv_per_token_layer": self.kv_per_token_layer if self.has_kv_cache else 0.0,
            # A cache of its own width (MLA's latent) is one piece every GPU keeps whole.
            "kv_heads": self.kv_heads if self._kv_by_heads else 1,
            "attn_width": self.heads * self.head_dim,
            "vocab": self.vocab,
            "model": self.name,
            **(
                {"experts": self.experts, "top_k": self.top_k, "expert_params": self.expert_params}
                if self.experts > 1
                else {}
            ),
        }


def _norm(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def find_model(name: str, models: dict[str, ModelArch]) -> ModelArch:
    """The row named ``name`` (case, spaces and underscores ignored), or one clear error."""
    key = _norm(name)
    if key in models:
        return models[key]
    close = [n for n in models if key and (key in n or n in key)][:6] or list(models)[:6]
    raise InputError(
        tr(
            "unknown model {m!r}; known: {names} (gpuprof recommend --list-models)",
            m=name[:80],
            names=", ".join(close),
        )
    )


def _read_text(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except IsADirectoryError:
        raise InputError(tr("{p}: is a folder, not a models file", p=path)) from None
    except OSError as exc:
        raise InputError(tr("{p}: cannot read: {e}", p=path, e=exc.strerror or exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(tr("{p}: over {n} bytes, not a models file", p=path, n=MAX_FILE_BYTES))
    if b"\0" in data:
        raise InputError(tr("{p}: binary data, not a models CSV file", p=path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(tr("{p}: not UTF-8 text (byte {b})", p=path, b=exc.start)) from None


def _number(path: Path, line: int, col: str, text: str, *, integer: bool) -> float:
    try:
        value = float(text) if not integer else float(int(text))
    except ValueError:
        raise InputError(
            tr("{p}: line {n}: {c} {v!r} is not a number", p=path, n=line, c=col, v=text[:40])
        ) from None
    if not math.isfinite(value) or value < 0:
        raise InputError(
            tr("{p}: line {n}: {c} must be a finite number >= 0", p=path, n=line, c=col)
        )
    return value


def _row(path: Path, line: int, cells: dict[str, str]) -> ModelArch:
    name = _norm(cells["name"])
    if not _NAME.fullmatch(name):
        raise InputError(
            tr("{p}: line {n}: bad model name {v!r}", p=path, n=line, v=cells["name"][:40])
        )
    kind = cells["kind"].strip().lower()
    if kind not in KINDS:
        raise InputError(
            tr(
                "{p}: line {n}: kind {v!r} is not one of {k}",
                p=path,
                n=line,
                v=kind[:20],
                k=", ".join(KINDS),
            )
        )
    ints: dict[str, int] = {}
    for col, limit in _INT_LIMITS.items():
        text = cells[col].strip()
        if col == "vocab" and not text:
            ints[col] = 0
            continue
        value = _number(path, line, col, text, integer=True)
        if (col != "vocab" and value < 1) or value > limit:
            raise InputError(
                tr("{p}: line {n}: {c} {v:g} is out of range", p=path, n=line, c=col, v=value)
            )
        ints[col] = int(value)
    if ints["heads"] % ints["kv_heads"]:
        raise InputError(
            tr(
                "{p}: line {n}: {h} attention heads cannot share {k} KV heads",
                p=path,
                n=line,
                h=ints["heads"],
                k=ints["kv_heads"],
            )
        )
    total = _number(path, line, "params_total", cells["params_total"].strip(), integer=False)
    text = cells["params_active"].strip()
    active = _number(path, line, "params_active", text, integer=False) if text else total
    if not 0 < total <= _PARAMS_LIMIT or not 0 < active <= total:
        raise InputError(
            tr(
                "{p}: line {n}: parameters must be > 0, at most {lim:g}, active <= total",
                p=path,
                n=line,
                lim=_PARAMS_LIMIT,
            )
        )
    text = cells["kv_per_token_layer"].strip()
    kv = (
        _number(path, line, "kv_per_token_layer", text, integer=False)
        if text
        else 2.0 * ints["kv_heads"] * ints["head_dim"]
    )
    if kv > 2.0 * ints["heads"] * ints["head_dim"] * 4:
        raise InputError(tr("{p}: line {n}: kv_per_token_layer is out of range", p=path, n=line))
    source = cells["source"].strip()
    if not source:
        raise InputError(tr("{p}: line {n}: every model needs its source", p=path, n=line))
    moe = _moe(path, line, cells, ints, total)
    return ModelArch(
        name=name,
        family=cells["family"].strip()[:80],
        kind=kind,
        layers=ints["layers"],
        hidden=ints["hidden"],
        heads=ints["heads"],
        kv_heads=ints["kv_heads"],
        head_dim=ints["head_dim"],
        vocab=ints["vocab"],
        params_total=total,
        params_active=active,
        kv_per_token_layer=kv,
        source=source[:500],
        notes=cells.get("notes", "").strip()[:300],
        **moe,
    )


def _moe(
    path: Path, line: int, cells: dict[str, str], ints: dict[str, int], total: float
) -> dict[str, int]:
    """The optional mixture-of-experts cells, checked against the row's shape."""
    out = {}
    for col in MOE_COLUMNS:
        text = cells.get(col, "").strip()
        value = _number(path, line, col, text, integer=True) if text else 0.0
        if value > 1 << 20:
            raise InputError(
                tr("{p}: line {n}: {c} {v:g} is out of range", p=path, n=line, c=col, v=value)
            )
        out[col] = int(value)
    experts = out["experts"]
    if experts and (
        not 1 <= out["top_k"] <= experts
        or not 1 <= out["moe_layers"] <= ints["layers"]
        or out["expert_ffn"] < 1
        or 3.0 * out["moe_layers"] * experts * ints["hidden"] * out["expert_ffn"] >= total
    ):
        raise InputError(
            tr(
                "{p}: line {n}: experts need top_k (1 to experts), moe_layers (1 to layers) "
                "and expert_ffn, and their parameters must be under the total",
                p=path,
                n=line,
            )
        )
    return out


def load_models(path: Path | None = None) -> dict[str, ModelArch]:
    """Rows of ``path`` (default: the shipped file) by normalized name, in file order."""
    path = Path(path) if path is not None else DEFAULT_MODELS_FILE
    text = _read_text(path)
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if not ln.startswith("#")]
    lines = [(i, ln) for i, ln in lines if ln.strip()]
    if not lines:
        raise InputError(tr("{p}: empty, no models", p=path))
    if len(lines) > MAX_ROWS + 1:
        raise InputError(tr("{p}: over {n} rows, not a models file", p=path, n=MAX_ROWS))
    rows: list[list[str]] = []
    for line, text_line in lines:  # one row per line: a quoted cell never spans lines here
        try:
            rows.extend(csv.reader(io.StringIO(text_line), strict=True))
        except csv.Error as exc:
            raise InputError(tr("{p}: line {n}: not CSV: {e}", p=path, n=line, e=exc)) from None
    header = [c.strip().lower() for c in rows[0]]
    missing = [c for c in COLUMNS if c not in header and c != "notes"]
    if missing:
        raise InputError(
            tr("{p}: not a models file (missing columns: {c})", p=path, c=", ".join(missing))
        )
    out: dict[str, ModelArch] = {}
    for (line, _), cells in zip(lines[1:], rows[1:], strict=False):
        if len(cells) != len(header):
            raise InputError(
                tr(
                    "{p}: line {n}: {got} cells, the header has {want}",
                    p=path,
                    n=line,
                    got=len(cells),
                    want=len(header),
                )
            )
        arch = _row(path, line, dict(zip(header, cells, strict=True)))
        if arch.name in out:
            raise InputError(
                tr("{p}: line {n}: model {m!r} listed twice", p=path, n=line, m=arch.name)
            )
        out[arch.name] = arch
    if not out:
        raise InputError(tr("{p}: empty, no models", p=path))
    return out
