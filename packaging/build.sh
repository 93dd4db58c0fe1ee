#!/usr/bin/env bash
# Build gpuprof executables with PyInstaller.
#
#   packaging/build.sh [lite|full|all] [onedir|onefile|both]     (default: lite onedir)
#
# Output: dist/<flavour>-<mode>/gpuprof/gpuprof (one-folder) or dist/<flavour>-<mode>/gpuprof
# (one-file). Needs pyinstaller in the environment (`pip install -e .[package]`); the full flavour
# also needs torch. PYTHON picks the interpreter (default: .venv/bin/python, then python3).
# Prints one line per build: variant, seconds, size.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
    if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
flavours="${1:-lite}"
modes="${2:-onedir}"
[[ "$flavours" == all ]] && flavours="lite full"
[[ "$modes" == both ]] && modes="onedir onefile"

"$PYTHON" -m PyInstaller --version >/dev/null 2>&1 || {
    echo "build.sh: PyInstaller is not installed for $PYTHON (pip install -e '.[package]')" >&2
    exit 2
}

for flavour in $flavours; do
    case "$flavour" in lite|full) ;; *) echo "build.sh: unknown flavour $flavour" >&2; exit 2 ;; esac
    if [[ "$flavour" == full ]] && ! "$PYTHON" -c "import torch" 2>/dev/null; then
        echo "build.sh: the full flavour needs torch in $PYTHON" >&2
        exit 2
    fi
    for mode in $modes; do
        case "$mode" in onedir|onefile) ;; *) echo "build.sh: unknown mode $mode" >&2; exit 2 ;; esac
        dist="dist/$flavour-$mode"
        work="build/pyinstaller/$flavour-$mode"
        rm -rf "$dist"
        start=$(date +%s)
        "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
            --distpath "$dist" --workpath "$work" \
            packaging/gpuprof.spec -- --flavour "$flavour" "--$mode"
        seconds=$(( $(date +%s) - start ))
        if [[ "$mode" == onedir ]]; then exe="$dist/gpuprof/gpuprof"; else exe="$dist/gpuprof"; fi
        [[ -x "$exe" || -x "$exe.exe" ]] || { echo "build.sh: $exe was not produced" >&2; exit 1; }
        size=$(du -sh "$dist" | cut -f1)
        echo "built $flavour-$mode: $exe in ${seconds}s, $size"
    done
done
