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

# PyInstaller warns about libraries that are expected to be missing on a build machine. They
# are shown only with GPUPROF_BUILD_VERBOSE=1; one line says how many and why. Any other
# warning is printed as it is.
#  - libxcb-icccm/keysyms/cursor, libgtk-3, libgdk-3: needed only by Qt's X11 platform and GTK
#    theme plugins; on a desktop they come from the system (the README's apt-get line), and a
#    headless run (CLI, --screenshot) never loads those plugins.
#  - ole32, shell32: Windows DLLs that platformdirs and pyqtgraph name for Windows only.
#  - pyqtgraph.opengl: its 3-D plots need PyOpenGL, which gpuprof does not use (the spec
#    excludes it; pyqtgraph's hook still tries to list it).
# PyInstaller's four start-up INFO lines (its version, Python's, the platform) go too.
EXPECTED_WARNINGS="could not resolve '(libxcb-[a-z0-9-]+|libgtk-3|libgdk-3)\.so|Library (ole32|shell32) required via ctypes not found|submodules for 'pyqtgraph\.opengl'"
report_warnings() {
    local log="$1" known
    if [[ -n "${GPUPROF_BUILD_VERBOSE:-}" ]]; then cat "$log" >&2; return; fi
    grep -vE "$EXPECTED_WARNINGS|^[0-9]+ INFO: " "$log" >&2 || true
    known=$(grep -cE "$EXPECTED_WARNINGS" "$log" || true)
    if [[ "$known" -gt 0 ]]; then
        echo "note: $known expected PyInstaller warnings hidden: X11/GTK libraries this machine" \
            "lacks (the desktop supplies them at run time), Windows-only DLLs, 3-D plots;" \
            "GPUPROF_BUILD_VERBOSE=1 shows them (full log: $log)"
    fi
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
        mkdir -p "$work"
        log="$work/warnings.log"
        if ! "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
            --distpath "$dist" --workpath "$work" \
            packaging/gpuprof.spec -- --flavour "$flavour" "--$mode" 2>"$log"; then
            cat "$log" >&2
            exit 1
        fi
        report_warnings "$log"
        seconds=$(( $(date +%s) - start ))
        if [[ "$mode" == onedir ]]; then exe="$dist/gpuprof/gpuprof"; else exe="$dist/gpuprof"; fi
        [[ -x "$exe" || -x "$exe.exe" ]] || { echo "build.sh: $exe was not produced" >&2; exit 1; }
        size=$(du -sh "$dist" | cut -f1)
        echo "built $flavour-$mode: $exe in ${seconds}s, $size"
    done
done
