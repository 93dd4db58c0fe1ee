"""Offscreen screenshot of the Benchmarks tab after a real run (docs/screenshot-benchmarks.png).

``python -m gpuprof.ui.bench.screenshot OUT.png [--device cpu] [--suite quick] [--only LIST]
[--runs 2] [--size 1600x1000] [--theme light|dark]``

The runs are real measurements on this machine, kept in a temporary results database; with
``--runs 2`` the second run is compared with the first (the ratio column).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

__all__ = ["main", "render"]


def render(
    out: Path,
    *,
    device: str,
    suite: str,
    only: list[str] | None,
    runs: int,
    size: tuple[int, int],
    theme: str = "light",
) -> Path:
    from ..shell.app import offscreen_app, save_png
    from .tab import BenchTab

    app, th = offscreen_app(theme)
    with tempfile.TemporaryDirectory(prefix="gpuprof-shot-") as tmp:
        tab = BenchTab(db=Path(tmp) / "results.sqlite")
        tab.apply_theme(th)
        tab.resize(*size)
        tab.show()
        if only:
            for name, box in tab.case_checks.items():
                box.setChecked(name in only)
        tab.suite_combo.setCurrentIndex(tab.suite_combo.findData(suite))
        tab.device_combo.addItem(device, device)
        tab.device_combo.setCurrentIndex(tab.device_combo.count() - 1)
        first_id = None
        for _ in range(runs):
            if first_id is not None:
                time.sleep(1.1)  # run ids have one-second resolution
            if not tab.start_run():
                raise RuntimeError("the Benchmarks tab did not start a run (is torch installed?)")
            while tab.running:
                app.processEvents()
                time.sleep(0.02)
            if tab.shown_run is None:
                raise RuntimeError(tab.message.text() or "the run failed")
            first_id = first_id or tab.shown_run.run_id
        if runs > 1 and first_id is not None:
            tab.compare_with(first_id)
        for _ in range(10):
            app.processEvents()
            time.sleep(0.02)
        save_png(tab, out)
        tab.close()
    return out


def main(argv: list[str] | None = None) -> int:
    from ..shell.app import screenshot_parser

    p = screenshot_parser(__doc__)
    p.add_argument("--device", default="cpu")
    p.add_argument("--suite", default="quick", choices=("quick", "standard", "full"))
    p.add_argument("--only", help="comma-separated benchmarks (default: all)")
    p.add_argument("--runs", type=int, default=1)
    args = p.parse_args(argv)
    only = [s.strip() for s in args.only.split(",")] if args.only else None
    render(
        args.out,
        device=args.device,
        suite=args.suite,
        only=only,
        runs=max(1, args.runs),
        size=args.size,
        theme=args.theme,
    )
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
