#!/usr/bin/env bash
# GPU acceptance: on a machine with an NVIDIA GPU, run the gpu-marked tests and the quick benchmark
# suite on cuda:0, write JSON and a short summary. Target: under 8 minutes on one H200.
#
#   scripts/gpu_acceptance.sh [OUT_DIR]        (default: perf/out/gpu-acceptance, or $OUT)
#
# Python: uses $PYTHON (default python3) when its torch already sees a GPU (a CUDA image), else
# makes .venv-gpu and installs torch from PyPI (a CUDA build on Linux x86-64) plus gpuprof and the
# test tools. The dev extra is not used there: it pins torch==2.13.0 for the CPU wheel of our dev
# machines. Offline machines: put wheels of anything missing (e.g. platformdirs) in $GPUPROF_WHEELS.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="${1:-${OUT:-$REPO/perf/out/gpu-acceptance}}"
mkdir -p "$OUT_DIR"
cd "$REPO"
START=$(date +%s)
log() { echo "[gpu-acceptance $(($(date +%s) - START))s] $*" | tee -a "$OUT_DIR/acceptance.log"; }

PY="${PYTHON:-python3}"
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    log "no CUDA torch in $PY: creating .venv-gpu and installing torch (CUDA) from PyPI"
    python3 -m venv .venv-gpu
    PY="$REPO/.venv-gpu/bin/python"
    "$PY" -m pip install -q --upgrade pip
    "$PY" -m pip install -q torch
    "$PY" -m pip install -q -e . pytest pytest-timeout
fi
# Whatever gpuprof needs and this Python lacks: from a wheelhouse if given, else from the index.
MISSING=$("$PY" - <<'EOF'
import importlib.util
mods = {"platformdirs": "platformdirs", "psutil": "psutil", "rich": "rich", "pynvml": "nvidia-ml-py",
        "numpy": "numpy", "pytest": "pytest", "pytest_timeout": "pytest-timeout"}
print(" ".join(dist for mod, dist in mods.items() if importlib.util.find_spec(mod) is None))
EOF
)
if [ -n "$MISSING" ]; then
    log "installing missing packages: $MISSING"
    if [ -n "${GPUPROF_WHEELS:-}" ]; then
        "$PY" -m pip install -q --no-index --no-deps --target "$REPO/.gpu-site" "$GPUPROF_WHEELS"/*.whl
        export PYTHONPATH="$REPO/.gpu-site${PYTHONPATH:+:$PYTHONPATH}"
    else
        # shellcheck disable=SC2086
        "$PY" -m pip install -q $MISSING
    fi
fi
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export GPUPROF_DATA_DIR="$OUT_DIR/data"
export PYTHONUNBUFFERED=1

log "environment"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv || true
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count())'
} 2>&1 | tee -a "$OUT_DIR/acceptance.log"

log "pytest -m gpu (benchmark tests; the UI tests need PySide6 and are not run here)"
set +e
timeout 300 "$PY" -m pytest -m gpu tests/test_bench.py tests/test_bench_collective.py tests/test_telemetry_nvml_gpu.py -q \
    -p no:cacheprovider -W ignore::pytest.PytestConfigWarning 2>&1 | tee "$OUT_DIR/pytest-gpu.txt"
PYTEST_RC=${PIPESTATUS[0]}
log "pytest exit $PYTEST_RC"

log "quick suite on cuda:0"
timeout 240 "$PY" -m gpuprof bench --suite quick --device cuda:0 --json "$OUT_DIR/quick.json" 2>&1 \
    | tee "$OUT_DIR/quick.txt"
BENCH_RC=${PIPESTATUS[0]}
set -e
log "bench exit $BENCH_RC"

if [ -f "$OUT_DIR/quick.json" ]; then
    "$PY" - "$OUT_DIR/quick.json" <<'EOF' | tee "$OUT_DIR/summary.txt"
import json, sys
doc = json.load(open(sys.argv[1]))
env = doc["environment"]
results = [r for c in doc["cases"] for r in c["results"]]
ok = [r for r in results if r["status"] == "ok"]
print(f"run {doc['run_id']} state {doc['state']} {doc['ended_s'] - doc['started_s']:.0f} s on "
      f"{env.get('gpu_name')} driver {env.get('driver_version')} torch {env.get('torch_version')} "
      f"CUDA {env.get('cuda_runtime_version')} cuBLAS {env.get('cublas_version')}")
for dtype in ("fp32", "tf32", "fp16", "bf16", "fp8"):
    rows = [r for r in ok if r["type"] == "GemmResult" and r["dtype"] == dtype]
    if rows:
        best = max(rows, key=lambda r: r["tflops_median"])
        pct = f"{best['pct_of_peak']:.0f}% of {best['peak_tflops']:g}" if best["pct_of_peak"] else "peak unknown"
        print(f"GEMM {dtype:5s} best median {best['tflops_median']:8.1f} TFLOPS at {best['case']} ({pct})")
for r in ok:
    if r["type"] == "MemoryResult" and r["size_bytes"] >= 2**30:
        print(f"memory {r['case']:22s} {r['bandwidth_bytes_s'] / 1e9:8.1f} GB/s verified={r['verified']}")
    if r["type"] == "WorkloadResult":
        print(f"workload {r['case']}: {r['throughput_per_s']:,.0f} {r['unit']}/s")
throttled = [r["case"] for r in results if r.get("throttle_reasons")]
print(f"results {len(ok)}/{len(results)} ok; measured while throttled: {len(throttled)}")
for c in doc["cases"]:
    if c["state"] != "success" or c["error"]:
        print(f"case {c['name']}: {c['state']} {c['error'] or ''}")
EOF
fi
log "done in $(($(date +%s) - START)) s: pytest $PYTEST_RC, bench $BENCH_RC; files in $OUT_DIR"
[ "$PYTEST_RC" -eq 0 ] && [ "$BENCH_RC" -eq 0 ]
