"""Offscreen screenshot of the Recommend tab alone (docs/screenshot-recommend.png).

``python -m gpuprof.ui.recommend.screenshot OUT.png [--preset KEY] [--size 1600x1000]
[--local "NVIDIA GeForce RTX 4090"] [--theme light|dark]``
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["main", "render"]


def render(
    out: Path,
    *,
    preset: str,
    size: tuple[int, int],
    local: list[str],
    theme: str = "light",
    select_row: int = 0,
) -> Path:
    from ..shell.app import offscreen_app, save_png
    from .tab import RecommendTab

    app, th = offscreen_app(theme)
    tab = RecommendTab()
    tab.apply_theme(th)
    tab.resize(*size)
    tab.show()
    tab.select_preset(preset)
    if local:
        tab.set_local(local)
        tab.compare.setChecked(True)
    tab.run_now()
    tab.select_source_row(select_row)
    for _ in range(5):
        app.processEvents()
    save_png(tab, out)
    tab.close()
    return out


def main(argv: list[str] | None = None) -> int:
    from ..shell.app import screenshot_parser

    p = screenshot_parser(__doc__)
    p.add_argument("--preset", default="llm-100b-train")
    p.add_argument("--local", action="append", default=[])
    p.add_argument("--row", type=int, default=0, help="model row to select")
    args = p.parse_args(argv)
    render(
        args.out,
        preset=args.preset,
        size=args.size,
        local=args.local,
        theme=args.theme,
        select_row=args.row,
    )
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
