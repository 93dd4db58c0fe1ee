"""GUI-thread cost of one ranking in the Recommend tab (form change → table, scatter, details).

Prints JSON with median milliseconds over ``--repeat`` runs of ``RecommendTab.run_now()`` for the
packaged catalog and for a synthetic 10,000-row catalog (perf/recommend.py's), offscreen at
1600×1000, plus the median time to paint the whole tab (``grab()``). The tab ranks in the GUI
thread because this stays near the 50 ms budget. Usage: ``python perf/recommend_tab.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median_ms, setup

setup(qt=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args()

    from gpuprof.ui.recommend.tab import ROW_LIMIT, RecommendTab
    from gpuprof.ui.shell.app import make_app
    from recommend import synthetic  # perf/recommend.py

    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.rank import LocalMachine

    app = make_app()
    out: dict[str, object] = {"row_limit": ROW_LIMIT, "repeat": args.repeat}
    for name, cat in (("packaged", load_catalog(overlays=False)), ("synthetic_10k", synthetic())):
        tab = RecommendTab(
            LocalMachine.from_names(["NVIDIA GeForce RTX 4090"]), catalog_loader=lambda cat=cat: cat
        )
        tab.resize(1600, 1000)
        tab.show()
        tab.compare.setChecked(True)
        for preset in ("llm-100b-train", "cv-train"):
            tab.select_preset(preset)
            tab.run_now()  # first run builds the catalog's arrays (once per catalog)
            app.processEvents()
            out[f"{name}_{preset}_run_ms"] = median_ms(tab.run_now, args.repeat)
            out[f"{name}_{preset}_paint_ms"] = median_ms(tab.grab, args.repeat)
        out[f"{name}_candidates"] = len(cat.instances)
        tab.close()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
