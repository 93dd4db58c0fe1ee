#!/usr/bin/env bash
# CI smoke test: build the lite one-folder executable and run it.
#
#   packaging/smoke.sh [--no-build]
#
# Checks: --version; devices --json (real NVML or "library_not_found" without a driver: both
# must exit 0 with valid JSON); devices --json --demo is marked simulated; exporter --demo serves
# a scrape; --screenshot --demo renders a PNG offscreen; no torch inside the lite bundle.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
    if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
[[ "${1:-}" == --no-build ]] || packaging/build.sh lite onedir

EXE=dist/lite-onedir/gpuprof/gpuprof
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"; [[ -n "${EXPORTER_PID:-}" ]] && kill "$EXPORTER_PID" 2>/dev/null || true' EXIT
export GPUPROF_DATA_DIR="$OUT/data" GPUPROF_CONFIG_DIR="$OUT/config" QT_QPA_PLATFORM=offscreen
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
ok() { echo "smoke: ok: $*"; }

version=$("$EXE" --version) || fail "--version exited $?"
[[ "$version" == "gpuprof "* ]] || fail "--version printed '$version'"
ok "$version"

"$EXE" --lang zh_CN --help > "$OUT/help-zh.txt" || fail "--lang zh_CN --help exited $?"
"$PYTHON" -c 'import re, sys; t = open(sys.argv[1], encoding="utf-8").read(); assert re.search("[\u4e00-\u9fff]", t), t[:300]' \
    "$OUT/help-zh.txt" || fail "--lang zh_CN --help is not in Chinese (is the catalog in the bundle?)"
ok "--lang zh_CN --help: Chinese"

if ls dist/lite-onedir/gpuprof/_internal | grep -qiE '^(torch|libtorch)'; then
    fail "torch found in the lite bundle"
fi
ok "no torch in the lite bundle ($(du -sh dist/lite-onedir | cut -f1))"

"$EXE" devices --json > "$OUT/devices.json" || fail "devices --json exited $?"
state=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["source"], d["status"]["state"])' "$OUT/devices.json") \
    || fail "devices --json is not the expected JSON"
ok "devices --json: $state"

"$EXE" devices --json --demo > "$OUT/demo.json" || fail "devices --json --demo exited $?"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["simulated"] is True, d["source"]' "$OUT/demo.json" \
    || fail "devices --json --demo is not marked simulated"
ok "devices --json --demo: simulated"

"$EXE" exporter --demo --port 0 > "$OUT/exporter.log" 2>&1 &
EXPORTER_PID=$!
url=""
for _ in $(seq 1 100); do
    url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/metrics' "$OUT/exporter.log" || true)
    [[ -n "$url" ]] && break
    kill -0 "$EXPORTER_PID" 2>/dev/null || fail "exporter died: $(cat "$OUT/exporter.log")"
    sleep 0.1
done
[[ -n "$url" ]] || fail "exporter did not start: $(cat "$OUT/exporter.log")"
"$PYTHON" - "$url" <<'PY' || fail "exporter scrape"
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
assert 'gpuprof_source_info{source="simulated"' in text, text[:500]
assert text.count("\nDCGM_FI_DEV_GPU_UTIL{") == 8, "expected 8 GPUs"
PY
kill -TERM "$EXPORTER_PID"; wait "$EXPORTER_PID" || fail "exporter exit status $?"
EXPORTER_PID=""
ok "exporter --demo serves 8 simulated GPUs"

"$EXE" --demo --screenshot "$OUT/shot.png" --after 1 --size 1200x800 || fail "--screenshot exited $?"
"$PYTHON" - "$OUT/shot.png" <<'PY' || fail "screenshot is not a 1200x800 PNG"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1200, 800), (w, h)
assert len(data) > 20_000, f"suspiciously small PNG: {len(data)} bytes"
PY
ok "--screenshot --demo: 1200x800 PNG"
echo "smoke: all checks passed"
