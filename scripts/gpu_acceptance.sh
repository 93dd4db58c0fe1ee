#!/usr/bin/env bash
# GPU acceptance: on a machine with an NVIDIA GPU, run the gpu-marked tests and the quick benchmark
# suite on cuda:0, write JSON and a short summary. Target: under 8 minutes on one H200.
# On an AMD machine (amd-smi on PATH, no nvidia-smi) the same with a ROCm build of torch
# ($TORCH_INDEX_URL, default PyTorch's ROCm 6.4 index) and ROCm's own amdsmi package
# (/opt/rocm/share/amd_smi, which matches the installed libamd_smi.so); the NVML-only test files
# are left out there, the real-amdsmi one (tests/test_telemetry_amd_gpu.py) is run instead.
#
#   scripts/gpu_acceptance.sh [OUT_DIR]        (default: perf/out/gpu-acceptance, or $OUT)
#
# Python: uses $PYTHON (default python3) when its torch already sees a GPU (a CUDA image), else
# makes .venv-gpu and installs torch from PyPI (a CUDA build on Linux x86-64) plus gpuprof and the
# test tools. The dev extra is not used there: it pins torch==2.13.0 for the CPU wheel of our dev
# machines. Offline machines: put wheels of anything missing (e.g. platformdirs) in $GPUPROF_WHEELS.
#
# Accuracy (perf/bench_fidelity.py --device cuda:0, JSON in fidelity.json): our GEMM against
# torch.utils.benchmark, BF16 against the spec sheet's peak, H2D pinned against a plain loop; and
# against the reference tools where given: NVBANDWIDTH=/path/to/nvbandwidth (default: nvbandwidth
# on PATH) and MAMF_FINDER="python mamf-finder.py --m_range 0 20480 256 --n 4096 --k 4096
# --dtype bfloat16" (mamf-finder's quick sweep: minutes, so it is opt-in).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="${1:-${OUT:-$REPO/perf/out/gpu-acceptance}}"
mkdir -p "$OUT_DIR"
cd "$REPO"
START=$(date +%s)
log() { echo "[gpu-acceptance $(($(date +%s) - START))s] $*" | tee -a "$OUT_DIR/acceptance.log"; }

PY="${PYTHON:-python3}"
VENDOR=nvidia
if ! command -v nvidia-smi >/dev/null 2>&1 && command -v amd-smi >/dev/null 2>&1; then
    VENDOR=amd
fi
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    log "no GPU torch in $PY: creating .venv-gpu and installing torch ($VENDOR) from PyPI"
    python3 -m venv .venv-gpu
    PY="$REPO/.venv-gpu/bin/python"
    "$PY" -m pip install -q --upgrade pip
    if [ "$VENDOR" = amd ]; then
        "$PY" -m pip install -q torch --index-url "${TORCH_INDEX_URL:-https://download.pytorch.org/whl/rocm6.4}"
    else
        "$PY" -m pip install -q torch
    fi
    "$PY" -m pip install -q -e . pytest pytest-timeout
fi
if [ "$VENDOR" = amd ] && ! "$PY" -c 'import amdsmi' >/dev/null 2>&1; then
    ROCM_DIR="${ROCM_PATH:-/opt/rocm}"
    log "installing ROCm's amdsmi package from $ROCM_DIR/share/amd_smi"
    "$PY" -m pip install -q "$ROCM_DIR/share/amd_smi" || log "amdsmi not installed: AMD telemetry tests will skip"
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

log "environment ($VENDOR)"
{ if [ "$VENDOR" = amd ]; then amd-smi static --asic --vram --limit --partition || true
  else nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv || true; fi
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", getattr(torch.version, "hip", None), "gpus", torch.cuda.device_count())'
} 2>&1 | tee -a "$OUT_DIR/acceptance.log"

log "pytest -m gpu (benchmarks; NVML telemetry incl. GPM tensor activity under a BF16 GEMM; no UI tests: they need PySide6)"
set +e
# -rP keeps the GPM test's printed idle/busy values in pytest-gpu.txt.
# tests/test_check_plan.py times a real `gpuprof check --level quick` on every GPU here (≤ 3 min,
# and within its printed plan); on an 8-GPU node the two quick checks take up to ~5 minutes.
if [ "$VENDOR" = amd ]; then
    # NVML's files (telemetry_nvml_gpu, devices' NVML mapping) have nothing to test on AMD GPUs.
    GPU_TESTS=(tests/test_telemetry_amd_gpu.py tests/test_bench.py tests/test_bench_collective.py
               tests/test_check_cli.py tests/test_check_plan.py tests/test_check_burnin.py
               tests/test_burnin.py tests/test_memtest.py)
else
    GPU_TESTS=(tests/test_bench.py tests/test_bench_collective.py tests/test_telemetry_nvml_gpu.py
               tests/test_check_cli.py tests/test_check_plan.py tests/test_check_burnin.py tests/test_burnin.py
               tests/test_memtest.py tests/test_devices.py tests/test_telemetry_amd_gpu.py)
fi
timeout 540 "$PY" -m pytest -m gpu "${GPU_TESTS[@]}" -q -rP \
    -p no:cacheprovider -W ignore::pytest.PytestConfigWarning 2>&1 | tee "$OUT_DIR/pytest-gpu.txt"
PYTEST_RC=${PIPESTATUS[0]}
log "pytest exit $PYTEST_RC"

log "quick suite on cuda:0"
timeout 240 "$PY" -m gpuprof bench --suite quick --device cuda:0 --json "$OUT_DIR/quick.json" 2>&1 \
    | tee "$OUT_DIR/quick.txt"
BENCH_RC=${PIPESTATUS[0]}
log "gpuprof check --level quick on cuda:0 (exit 0 pass, 1 FAIL, 3 WARN: a verdict, not an error)"
timeout 240 "$PY" -m gpuprof check --level quick --device cuda:0 --json "$OUT_DIR/check.json" \
    --html "$OUT_DIR/check.html" 2>&1 | tee "$OUT_DIR/check.txt"
CHECK_RC=${PIPESTATUS[0]}
set -e
log "bench exit $BENCH_RC, check exit $CHECK_RC"
case "$CHECK_RC" in 0|1|3) ;; *) BENCH_RC=$CHECK_RC ;; esac

log "accuracy: perf/bench_fidelity.py on cuda:0"
NVBANDWIDTH="${NVBANDWIDTH:-$(command -v nvbandwidth || true)}"
FIDELITY_ARGS=(--device cuda:0 --sizes 4096,8192)
[ -n "$NVBANDWIDTH" ] && FIDELITY_ARGS+=(--nvbandwidth "$NVBANDWIDTH")
[ -n "${MAMF_FINDER:-}" ] && FIDELITY_ARGS+=(--mamf-finder "$MAMF_FINDER")
set +e
timeout "${FIDELITY_TIMEOUT_S:-240}" "$PY" perf/bench_fidelity.py "${FIDELITY_ARGS[@]}" \
    > "$OUT_DIR/fidelity.json" 2> "$OUT_DIR/fidelity.err"
FIDELITY_RC=$?
set -e
log "fidelity exit $FIDELITY_RC (nvbandwidth: ${NVBANDWIDTH:-not given}; mamf-finder: ${MAMF_FINDER:-not given})"
tail -n 5 "$OUT_DIR/fidelity.err" | tee -a "$OUT_DIR/acceptance.log"

SUMMARY_ARGS=()
[ -f "$OUT_DIR/quick.json" ] && SUMMARY_ARGS+=(--run "$OUT_DIR/quick.json")
[ "$FIDELITY_RC" -eq 0 ] && SUMMARY_ARGS+=(--fidelity "$OUT_DIR/fidelity.json")
"$PY" scripts/acceptance_summary.py "${SUMMARY_ARGS[@]}" | tee "$OUT_DIR/summary.txt"
log "done in $(($(date +%s) - START)) s: pytest $PYTEST_RC, bench $BENCH_RC, fidelity $FIDELITY_RC; files in $OUT_DIR"
[ "$PYTEST_RC" -eq 0 ] && [ "$BENCH_RC" -eq 0 ] && [ "$FIDELITY_RC" -eq 0 ]
