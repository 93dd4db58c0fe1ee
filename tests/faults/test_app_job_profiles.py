"""The app's job-profile readers under hostile input (issue 13): the profiler's summary file, the
recordings File → Job profiles… scans, the markers that become step ticks, and a profile whose
numbers and texts are damaged. Each answers with one line naming the file, or leaves the bad
part out; none raises into Qt or shows a traceback."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from gpuprof.errors import InputError
from gpuprof.profile.model import JobProfile, StepMarker
from gpuprof.telemetry.codec import to_jsonable
from tests.faults.hostile import hostile_files
from tests.helpers.profiles import job_profile
from tests.ui_fakes import FakeSource

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

GOOD = job_profile(1.7e9, 60.0, name="job")

#: Summary texts that are not a job profile, by what is wrong with them.
HOSTILE_SUMMARIES: dict[str, str] = {
    "a list": "[1, 2, 3]",
    "a string": '"job"',
    "an empty object": "{}",
    "a number for the name": json.dumps({**to_jsonable(GOOD), "name": 7}),
    "a string for a time": json.dumps({**to_jsonable(GOOD), "started_s": "yesterday"}),
    "infinite time": json.dumps(to_jsonable(GOOD)).replace("1700000060.0", "1e400"),
    "NaN time": json.dumps(to_jsonable(GOOD)).replace("1700000060.0", "NaN"),
    "ends before it starts": json.dumps({**to_jsonable(GOOD), "ended_s": 1.6e9}),
    "time before 1970": json.dumps({**to_jsonable(GOOD), "started_s": -5.0}),
    "a GPU of the wrong shape": json.dumps({**to_jsonable(GOOD), "gpus": [{"index": "zero"}]}),
    "gpus not a list": json.dumps({**to_jsonable(GOOD), "gpus": {"0": 1}}),
    "nested too deep": "[" * 100_000 + "]" * 100_000,
    "cut short": json.dumps(to_jsonable(GOOD))[:40],
    "a lone surrogate": '{"name": "\\ud800", "command": ["x"], "pid": 1}',
}


def _hostile_summaries(folder: Path) -> dict[str, Path]:
    out = dict(hostile_files(folder / "files"))
    for n, (name, text) in enumerate(HOSTILE_SUMMARIES.items()):
        path = folder / f"summary-{n}.json"
        path.write_text(text, encoding="utf-8")
        out[name] = path
    return out


def test_a_hostile_summary_is_one_line_naming_the_file(tmp_path):
    from gpuprof.ui.profile.status import read_summary

    cases = _hostile_summaries(tmp_path)
    assert len(cases) == 24
    handled = 0
    for name, path in cases.items():
        with pytest.raises(InputError) as err:
            read_summary(path)
        message = str(err.value)
        assert message.startswith(f"{path}: "), (name, message)
        assert "\n" not in message and len(message) < 400, (name, message)
        handled += 1
    assert handled == len(cases)


def _run_with_summary(make_window, tmp_path, qtbot, monkeypatch, text: str | None, *, rec=None):
    """A run whose stand-in profiler writes ``text`` as the summary (None: writes none)."""
    import gpuprof.ui.profile.status as status
    from gpuprof.ui.profile.dialog import ProfileRequest

    content = tmp_path / "content.txt"
    if text is not None:
        content.write_text(text, encoding="utf-8")
    script = (
        "import shutil, sys; a = sys.argv; s = a[a.index('--json') + 1]\n"
        f"if {text is not None}: shutil.copyfile({str(content)!r}, s)\n"
    )

    def argv(request, summary, *, demo=False):
        return [sys.executable, "-c", script, "--json", str(summary)]

    monkeypatch.setattr(status, "profiler_argv", argv)
    w = make_window()
    out = rec if rec is not None else tmp_path / "job.gpuprof"
    run = w.feature("jobs").start(ProfileRequest(argv=("x",), cwd=tmp_path, out=out))
    qtbot.waitUntil(lambda: not run.running, timeout=30_000)
    return w, run


@pytest.mark.parametrize("name", ["a list", "infinite time", "nested too deep", "cut short"])
@pytest.mark.slow
def test_a_run_whose_summary_is_hostile_says_so_in_one_line(
    make_window, tmp_path, qtbot, monkeypatch, name
):
    w, run = _run_with_summary(make_window, tmp_path, qtbot, monkeypatch, HOSTILE_SUMMARIES[name])
    assert run.outcome.profile is None and w.feature("jobs").summary is None
    assert "summary.json: not a job profile" in run.outcome.error
    assert "\n" not in run.outcome.error
    assert w.statusBar().currentMessage() == run.outcome.error


def test_a_hostile_summary_falls_back_on_the_profile_in_the_recording(
    make_window, tmp_path, qtbot, monkeypatch
):
    rec = _recording(tmp_path / "job.gpuprof", profile=replace(GOOD, name="from the recording"))
    _, run = _run_with_summary(make_window, tmp_path, qtbot, monkeypatch, "{}", rec=rec)
    assert run.outcome.profile is not None and run.outcome.profile.name == "from the recording"


def _recording(path: Path, *, profile: JobProfile | None, steps: int = 0) -> Path:
    from gpuprof.profile.storage import append_markers, write_job_profile
    from gpuprof.telemetry.store import SessionStore

    src = FakeSource(1)
    store = SessionStore.create(path, source=src)
    snaps = [src.poll() for _ in range(10)]
    for snap in snaps:
        store.append(snap)
    if steps:
        t0 = snaps[0].time_s
        append_markers(store, [StepMarker(time_s=t0 + k, step=k + 1) for k in range(steps)])
    if profile is not None:
        write_job_profile(store, profile)
    store.close()
    return path


def _poke(path: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


def test_the_list_skips_hostile_recordings_and_counts_the_unreadable(tmp_path):
    from gpuprof.ui.profile.profiles import find_job_profiles

    folder = tmp_path / "data"
    files = hostile_files(tmp_path / "src")
    folder.mkdir()
    unreadable = 0
    for name, path in files.items():
        if path.is_file():
            shutil.copyfile(path, folder / f"{name}.gpuprof")
            unreadable += 1
    (folder / "dir.gpuprof").mkdir()
    good = _recording(folder / "good.gpuprof", profile=GOOD)
    # Recordings whose stored profile is hostile: read as recordings without one.
    damaged = {
        "not JSON": "{not json",
        "a list": "[1]",
        "wrong shape": json.dumps({"name": 1}),
        "impossible times": json.dumps({**to_jsonable(GOOD), "ended_s": 1.0}),
    }
    for n, text in enumerate(damaged.values()):
        p = _recording(folder / f"damaged-{n}.gpuprof", profile=GOOD)
        _poke(p, "UPDATE meta SET value = ? WHERE key = 'job_profile'", text)
    recent = [folder / "random-bytes.gpuprof", tmp_path / "gone.gpuprof", tmp_path / "src"]
    entries, bad = find_job_profiles([folder], recent)
    assert [e.path for e in entries] == [good]
    assert bad == unreadable == 8  # every hostile file with a name (the folder, the missing: not)


def test_ticks_from_hostile_recordings_are_none_and_bad_markers_are_left_out(
    make_window, tmp_path, qtbot
):
    from gpuprof.ui.telemetry.plot.ticks import read_step_times

    for name, path in hostile_files(tmp_path / "h").items():
        with pytest.raises(InputError, match=r"^" + str(path).replace("\\", "\\\\")):
            read_step_times(path)
        assert name
    rec = _recording(tmp_path / "m.gpuprof", profile=None, steps=5)
    for data in ("garbage", "{}", '{"v":1,"kind":"step","t":1e999,"step":1}', "x" * 10_000):
        _poke(rec, "INSERT INTO job_markers(time_s, data) VALUES (?, ?)", 1.7e9, data)
    _poke(rec, "INSERT INTO job_markers(time_s, data) VALUES (?, ?)", 1.7e9, b"\xff\xfe")
    assert len(read_step_times(rec)) == 5
    # In the window: the replay of the damaged recording shows its 5 good steps.
    w = make_window(tab="telemetry")
    w.open_recording(rec)
    w.poll_now()
    qtbot.waitUntil(lambda: w.telemetry.step_ticks.count == 5, timeout=10_000)
    # A hostile file opened while following a job: no ticks, no error shown, nothing raised.
    w.feature("jobs").ticks.follow(tmp_path / "h" / "random-bytes")
    w.feature("jobs").ticks._read_live()
    qtbot.wait(300)
    assert w.telemetry.step_ticks.count == 0 and not w.feature("jobs").ticks._reading


def test_a_damaged_profile_still_shows(make_window):
    nan, inf = math.nan, math.inf
    text = "<script>alert(1)</script>\x1b[31m\u202e" + "x" * 5000
    profile = job_profile(
        1.7e9,
        60.0,
        name=text,
        command=(text, "\udcff", ""),
        exit_code=None,
        exit_signal=text[:50],
        gpu_seconds=inf,
        gpu_indices=(),
        gpus=(
            dict(name=text, util_gpu_mean_pct=nan, energy_j=-inf, mem_peak_bytes=-1,
                 power_mean_w=1e308, throttle_s=(("x", inf),)),
        ),
        host=dict(cpu_mean_pct=inf, rss_peak_bytes=10**30),
        phases=(("steady", -inf, inf), (text, nan, nan)),
        steps=dict(count=-3, p50_s=nan, p90_s=inf, p99_s=-1.0, trend_pct=nan, mfu_dtype=text,
                   peak_tflops=inf, note=text),
        breakdown=dict(device=text, steps=-1, total_s=nan, shares=((text, inf, nan),),
                       trace_file=text),
    )  # fmt: skip
    w = make_window()
    dialog = w.feature("jobs").show_summary(profile, None)
    assert dialog.facts["wall"].text() == "1m 0s"
    assert dialog.facts["gpu_seconds"].text() == "inf"
    html = dialog.details.toHtml()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "N/A" in dialog.details.toPlainText()
