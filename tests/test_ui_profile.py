"""Profiling a job from the app (issue 13): the dialog's checks, a run through the profiler with
its status strip, Stop, the summary, the list of job profiles and the step ticks."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from gpuprof.profile.model import JobProfile, StepMarker
from gpuprof.telemetry.codec import to_jsonable
from gpuprof.telemetry.model import SourceKind
from tests.helpers.profiles import job_profile
from tests.ui_fakes import FakeSource
from tests.ui_fixtures import polls

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

REAL_PROFILER = importlib.util.find_spec("gpuprof.commands.profile") is not None
needs_profiler = pytest.mark.skipif(not REAL_PROFILER, reason="gpuprof profile not built yet")


def _profile(**changes: object) -> JobProfile:
    base = job_profile(
        1.7e9,
        125.0,
        name="train <b>big</b>",
        command=("python", "train.py", "--lr", "3e-4"),
        pid=4242,
        exit_code=3,
        source="simulated",
        gpus=(
            dict(name="NVIDIA H100", util_gpu_mean_pct=88.0, energy_j=36_000.0),
            dict(name="NVIDIA H100", util_gpu_mean_pct=71.0, energy_j=36_000.0),
        ),
        phases=(("startup", 0, 5), ("steady", 5, 120)),
        steps=dict(count=100, p50_s=1.1, p90_s=1.3, p99_s=1.5, tokens_per_s=12_000.0),
        breakdown=dict(
            device="cpu",
            steps=5,
            total_s=5.5,
            shares=(("matmul", 4.0, 72.7), ("idle", 1.5, 27.3)),
            top=(("aten::mm <script>", "matmul", 4.0, 50, 72.7),),
        ),
        findings=(("input-starved", "Input <pipeline>", "GPU idle", "More workers"),),
        notes=("a note",),
    )
    from dataclasses import replace

    return replace(base, **changes)  # type: ignore[arg-type]


def _recording(path: Path, *, profile: JobProfile | None, steps: int = 0, polls_n: int = 30):
    """A recording of FakeSource with ``steps`` step markers (one a second) and ``profile``."""
    from gpuprof.profile.storage import append_markers, write_job_profile
    from gpuprof.telemetry.store import SessionStore

    src = FakeSource(1)
    store = SessionStore.create(path, source=src)
    snaps = [src.poll() for _ in range(polls_n)]
    for snap in snaps:
        store.append(snap)
    t0 = snaps[0].time_s
    if steps:
        append_markers(
            store,
            [StepMarker(time_s=t0 + 0.5 + k, step=k + 1, duration_s=1.0) for k in range(steps)],
        )
    if profile is not None:
        write_job_profile(store, profile)
    store.close()
    return path


# -- the dialog -------------------------------------------------------------------------------------
def _dialog(make_window):
    w = make_window()
    dialog = w.feature("jobs").open_dialog()
    assert dialog is not None and dialog.isVisible()
    return w, dialog


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("command", "   ", "Enter the command to profile."),
        (
            "command",
            "python -c 'print(1)",
            "The command line cannot be split: No closing quotation.",
        ),
        ("command", "no-such-program-xyz --x", "no-such-program-xyz: no such program"),
        ("cwd", "/no/such/folder", "The working folder /no/such/folder does not exist."),
        ("env", "GOOD=1\nnot a pair", "Environment line 2 is not KEY=VALUE: not a pair"),
        ("env", "1BAD=x", "Environment line 1 is not KEY=VALUE: 1BAD=x"),
        ("env", "GPUPROF_MARKERS=/tmp/x", "Environment line 1: GPUPROF_MARKERS is set by the"),
        ("name", "two\nlines", "The name must be one line."),
    ],
)
@pytest.mark.slow
def test_the_dialog_refuses_bad_input_with_one_clear_line(
    make_window, tmp_path, field, value, message
):
    w, dialog = _dialog(make_window)
    dialog.command.setText(f"{sys.executable} -c pass")
    dialog.cwd.setText(str(tmp_path))
    widget = getattr(dialog, field)
    (widget.setPlainText if field == "env" else widget.setText)(value)
    dialog.accept()
    assert dialog.isVisible() and dialog.request() is None  # not started, still open
    assert dialog.error_label.isVisible()
    assert dialog.error_label.text().startswith(message), dialog.error_label.text()
    assert w.feature("jobs").run is None


def test_the_dialog_refuses_an_existing_or_folderless_recording(make_window, tmp_path):
    _, dialog = _dialog(make_window)
    dialog.command.setText(f"{sys.executable} -c pass")
    dialog.cwd.setText(str(tmp_path))
    (tmp_path / "old.gpuprof").write_bytes(b"x")
    dialog.out.setText("old.gpuprof")  # relative: in the working folder
    dialog.accept()
    assert dialog.error_label.text() == f"{tmp_path / 'old.gpuprof'} exists; choose another name."
    dialog.out.setText(str(tmp_path / "none" / "x.gpuprof"))
    dialog.accept()
    assert "does not exist" in dialog.error_label.text() and dialog.request() is None


def test_the_dialog_shows_argv_builds_the_request_and_remembers(make_window, tmp_path, settings):
    _, dialog = _dialog(make_window)
    dialog.command.setText("python train.py --name 'a b' \"c d\"")
    assert dialog.argv_label.text() == 'argv: ["python", "train.py", "--name", "a b", "c d"]'
    dialog.cwd.setText(str(tmp_path))
    dialog.env.setPlainText("# comment\n\nCUDA_VISIBLE_DEVICES=0\n  X=a=b \n")
    dialog.name.setText("run-1")
    dialog.torch.setChecked(True)
    dialog.interval.setCurrentIndex(dialog.interval.findData(0.5))
    dialog.out.setText(str(tmp_path / "run.gpuprof"))
    req = dialog.check()
    assert req.argv == ("python", "train.py", "--name", "a b", "c d")
    assert req.env == {"CUDA_VISIBLE_DEVICES": "0", "X": "a=b"}
    assert req.cwd == tmp_path.resolve() and req.out == tmp_path / "run.gpuprof"
    assert (req.torch, req.interval_s, req.name) == (True, 0.5, "run-1")

    from gpuprof.ui.profile.dialog import profiler_argv

    argv = profiler_argv(req, tmp_path / "s.json")
    assert argv[:4] == [sys.executable, "-m", "gpuprof", "profile"]
    assert argv[4:] == [
        "--out", str(tmp_path / "run.gpuprof"), "--json", str(tmp_path / "s.json"), "--torch",
        "--name", "run-1", "--interval", "0.5", "--", *req.argv,
    ]  # fmt: skip
    assert "--demo" in profiler_argv(req, tmp_path / "s.json", demo=True)

    # A recording left empty gets a new name in the profiles folder; the choices are remembered.
    dialog.out.setText("")
    dialog.command.setText(f"{sys.executable} -c pass")
    monkey_req = dialog.check()
    assert monkey_req.out.suffix == ".gpuprof" and "run-1" in monkey_req.out.name
    dialog.reject()
    from gpuprof.ui.profile.dialog import ProfileDialog, ProfileSettings

    dialog.accept()
    again = ProfileDialog(ProfileSettings(settings.path))
    assert again.command.text() == f"{sys.executable} -c pass"
    assert again.cwd.text() == str(tmp_path.resolve())
    assert "CUDA_VISIBLE_DEVICES=0" in again.env.toPlainText()
    assert again.torch.isChecked() and again.interval.currentData() == 0.5
    assert again.name.text() == "run-1"


def test_bad_remembered_values_fall_back_with_a_warning(tmp_path):
    from gpuprof.ui.profile.dialog import ProfileDialog, ProfileSettings
    from gpuprof.ui.shell.app import make_app
    from PySide6.QtCore import QSettings

    make_app()
    ini = tmp_path / "ui.ini"
    raw = QSettings(str(ini), QSettings.Format.IniFormat)
    raw.setValue("profile/interval_s", "fast")
    raw.setValue("profile/torch", "maybe")
    raw.setValue("profile/recent", "[1, 2")
    raw.sync()
    s = ProfileSettings(ini)
    dialog = ProfileDialog(s)
    assert dialog.interval.currentData() == 1.0 and not dialog.torch.isChecked()
    assert s.recent == []
    assert len(s.problems) == 3 and all(str(ini) in p for p in s.problems)
    s.add_recent(tmp_path / "a.gpuprof")
    s.add_recent(tmp_path / "b.gpuprof")
    s.add_recent(tmp_path / "a.gpuprof")
    assert s.recent == [tmp_path / "a.gpuprof", tmp_path / "b.gpuprof"]


# -- a run, with a stand-in profiler ----------------------------------------------------------------
FAKE_PROFILER = textwrap.dedent(
    """
    import json, signal, subprocess, sys, time
    args = sys.argv[1:]
    out, summary = args[args.index("--out") + 1], args[args.index("--json") + 1]
    cmd = args[args.index("--") + 1:]
    child = subprocess.Popen(cmd)
    signal.signal(signal.SIGINT, lambda *a: child.send_signal(signal.SIGINT))
    started = time.time()
    code = child.wait()
    data = json.loads(open(sys.argv[0] + ".json").read())
    data.update(started_s=started, ended_s=time.time(), command=cmd,
                exit_code=code if code >= 0 else None,
                exit_signal=None if code >= 0 else signal.Signals(-code).name)
    open(summary, "w").write(json.dumps(data))
    print("profiled", " ".join(cmd))
    sys.exit(code if code >= 0 else 128 - code)
    """
)


@pytest.fixture
def fake_profiler(tmp_path, monkeypatch):
    """``gpuprof profile`` replaced by a script that runs the command and writes a summary: the
    app's side of the protocol (flags, SIGINT, the summary file), without the real profiler."""
    script = tmp_path / "fake_profiler.py"
    script.write_text(FAKE_PROFILER)
    Path(str(script) + ".json").write_text(json.dumps(to_jsonable(_profile(name="fake"))))
    import gpuprof.ui.profile.status as status

    real = status.profiler_argv
    seen: list[list[str]] = []

    def argv(request, summary, *, demo=False):
        full = real(request, summary, demo=demo)
        seen.append(full)
        return [sys.executable, str(script), *full[4:]]

    monkeypatch.setattr(status, "profiler_argv", argv)
    return seen


def _start(w, tmp_path, command: list[str], **kwargs):
    from gpuprof.ui.profile.dialog import ProfileRequest

    req = ProfileRequest(argv=tuple(command), cwd=tmp_path, out=tmp_path / "job.gpuprof", **kwargs)
    return w.feature("jobs").start(req)


def test_a_run_shows_its_output_and_the_summary_with_the_exit_code(
    make_window, tmp_path, qtbot, fake_profiler
):
    w = make_window(FakeSource(2))
    code = "import os, sys; print('hello from', os.environ['MY_VAR']); sys.exit(3)"
    run = _start(w, tmp_path, [sys.executable, "-c", code], env={"MY_VAR": "job"})
    strip = w.feature("jobs").status
    assert strip.isVisible() and strip.stop_button.isVisible()
    assert "--demo" in fake_profiler[0]  # the window shows the simulator: so does the profiler
    assert w.feature("jobs").ticks.following == tmp_path / "job.gpuprof"
    qtbot.waitUntil(lambda: not run.running, timeout=30_000)
    assert run.outcome.exit_code == 3 and run.outcome.profile is not None
    assert any("hello from job" in line for line in run.outcome.log)
    assert "hello from job" in strip.log_view.toPlainText()
    assert strip.title.text() == "Ended (exit code 3):" and not strip.stop_button.isVisible()
    summary = w.feature("jobs").summary
    assert summary is not None and summary.isVisible()
    assert summary.facts["exit"].text() == "exit code 3"
    assert w.feature("jobs").ticks.following is None
    assert w.feature("jobs").settings.recent[0] == (tmp_path / "job.gpuprof").absolute()
    strip.close_button.click()
    assert not strip.isVisible()


@pytest.mark.slow
def test_stop_interrupts_a_sleeping_job_and_its_profile_is_kept(
    make_window, tmp_path, qtbot, fake_profiler
):
    w = make_window()
    code = (
        "import sys, time\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    sys.exit(130)"
    )
    run = _start(w, tmp_path, [sys.executable, "-c", code])
    qtbot.waitUntil(lambda: run.state == "running", timeout=10_000)
    qtbot.wait(1500)  # the job is asleep
    w.feature("jobs").status.stop_button.click()
    assert run.stop_presses == 1 and w.feature("jobs").status.stop_button.text() == "&Terminate"
    qtbot.waitUntil(lambda: not run.running, timeout=20_000)
    assert run.elapsed_s() < 30
    assert run.outcome.stopped and run.outcome.exit_code == 130
    assert w.feature("jobs").summary.facts["exit"].text() == "exit code 130"


def test_a_profiler_that_fails_is_one_clear_error(make_window, tmp_path, qtbot, monkeypatch):
    import gpuprof.ui.profile.status as status

    monkeypatch.setattr(
        status,
        "profiler_argv",
        lambda req, summary, demo=False: [
            sys.executable, "-c", "import sys; sys.exit('gpuprof: nope: cannot start CMD')",
        ],
    )  # fmt: skip
    w = make_window()
    run = _start(w, tmp_path, ["whatever"])
    qtbot.waitUntil(lambda: not run.running, timeout=20_000)
    assert run.outcome.profile is None
    assert run.outcome.error == (
        "the profiler exited with code 1 and wrote no job profile: gpuprof: nope: cannot start CMD"
    )
    assert w.statusBar().currentMessage() == run.outcome.error
    assert (
        w.feature("jobs").error_box.isVisible()
        and w.feature("jobs").error_box.text() == run.outcome.error
    )
    assert w.feature("jobs").summary is None


@pytest.mark.slow
def test_one_job_at_a_time_and_closing_the_window_stops_it(
    make_window, tmp_path, qtbot, fake_profiler
):
    w = make_window()
    run = _start(w, tmp_path, [sys.executable, "-c", "import time; time.sleep(60)"])
    qtbot.waitUntil(lambda: run.state == "running", timeout=10_000)
    assert w.feature("jobs").open_dialog() is None
    assert "stop it before starting another" in w.statusBar().currentMessage()
    qtbot.wait(1000)
    pid = run.process.processId()
    w.close()
    assert not run.running and run.outcome is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert w.feature("jobs").summary is None  # nothing pops up while the window closes


# -- summary ----------------------------------------------------------------------------------------
def test_the_summary_shows_the_profile_escaped_and_opens_in_replay(make_window, tmp_path, qtbot):
    w = make_window()
    rec = _recording(tmp_path / "job.gpuprof", profile=_profile(), steps=10)
    dialog = w.feature("jobs").show_summary(_profile(), rec)
    assert dialog.windowTitle() == "Job profile — train <b>big</b>"
    facts = {k: v.text() for k, v in dialog.facts.items()}
    assert facts["command"] == "python train.py --lr 3e-4"
    assert facts["wall"] == "2m 5s" and facts["exit"] == "exit code 3"
    assert facts["gpu_seconds"] == "250.0" and facts["energy"] == "72,000 J (0.020 kWh)"
    assert facts["source"] == "SIMULATED (the demo's GPUs)"
    assert dialog.gpu_table.rowCount() == 2 and dialog.gpu_table.item(1, 2).text() == "71%"
    html = dialog.details.toHtml()
    assert "&lt;script&gt;" in html and "<script>" not in html
    assert "Input &lt;pipeline&gt;" in html and "72.7%" in html
    text = dialog.details.toPlainText()
    assert "1.1 s / 1.3 s / 1.5 s" in text and "steady" in text and "a note" in text
    dialog.replay_button.click()
    assert w.source.kind is SourceKind.REPLAY and Path(w.source.path) == rec


@pytest.mark.slow
def test_export_report_writes_the_recordings_report_with_its_job(make_window, tmp_path, qtbot):
    w = make_window()
    rec = _recording(tmp_path / "job.gpuprof", profile=_profile(), steps=3)
    dialog = w.feature("jobs").show_summary(_profile(), rec)
    out = tmp_path / "report.json"
    proc = dialog.export_report(out)
    assert not dialog.export_button.isEnabled()  # one report at a time
    qtbot.waitUntil(lambda: dialog.export_button.isEnabled(), timeout=60_000)
    assert proc.exitCode() == 0 and dialog.message.text() == f"Saved {out}"
    report = json.loads(out.read_text())
    assert report["job"]["profile"]["exit_code"] == 3
    bad = tmp_path / "nowhere" / "report.json"
    dialog.export_report(bad)
    qtbot.waitUntil(lambda: dialog.export_button.isEnabled(), timeout=60_000)
    # The command's own one line, naming the place.
    assert dialog.message.text() == f"gpuprof: error: folder {bad.parent} does not exist"


def test_a_summary_without_its_recording_disables_replay_and_export(make_window):
    w = make_window()
    dialog = w.feature("jobs").show_summary(
        _profile(exit_code=None, exit_signal="SIGINT", steps=None), None
    )
    assert not dialog.replay_button.isEnabled() and not dialog.export_button.isEnabled()
    assert dialog.facts["exit"].text() == "ended by SIGINT"
    assert "No step markers" in dialog.details.toPlainText()


@pytest.mark.skipif(
    importlib.util.find_spec("gpuprof.profile.project") is None, reason="no projection yet"
)
def test_project_this_job_lists_instances(make_window, qtbot):
    w = make_window()
    dialog = w.feature("jobs").show_summary(_profile(), None)
    proj = dialog.project()
    assert proj is not None
    qtbot.waitUntil(lambda: proj.done_, timeout=60_000)
    assert proj.table.rowCount() > 0, proj.status.text()
    assert "instances" in proj.status.text()
    assert proj.table.item(0, 10).text()  # every row says how it was derived


def test_read_summary_refuses_what_is_not_a_profile(tmp_path):
    from gpuprof.ui.profile.status import read_summary

    from gpuprof.errors import InputError

    good = tmp_path / "good.json"
    good.write_text(json.dumps(to_jsonable(_profile())))
    assert read_summary(good) == _profile()
    for name, content in (("list.json", "[1, 2]"), ("text.json", "not json"), ("empty.json", "")):
        bad = tmp_path / name
        bad.write_text(content)
        with pytest.raises(InputError, match=rf"^{bad}: not a job profile"):
            read_summary(bad)
    with pytest.raises(InputError, match="cannot read the job summary"):
        read_summary(tmp_path / "missing.json")


# -- job profiles -----------------------------------------------------------------------------------
def test_the_list_shows_recordings_with_a_profile_and_not_the_others(make_window, tmp_path, qtbot):
    from gpuprof.ui.profile.profiles import ProfilesListDialog

    folder = tmp_path / "data"
    (folder / "profiles").mkdir(parents=True)
    job = _recording(folder / "profiles" / "job.gpuprof", profile=_profile(name="the job"))
    _recording(folder / "plain.gpuprof", profile=None)
    (folder / "junk.gpuprof").write_bytes(b"not a session")
    elsewhere = _recording(tmp_path / "recent.gpuprof", profile=_profile(name="recent one",
                                                                          started_s=1.8e9,
                                                                          ended_s=1.8e9 + 1))  # fmt: skip
    w = make_window()
    w.feature("jobs").settings.add_recent(elsewhere)
    dialog = ProfilesListDialog(w.feature("jobs"), w, folders=[folder])
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.scans == 1, timeout=20_000)
    names = [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]
    assert names == ["recent one", "the job"]  # newest first; the plain recording is not there
    assert dialog.table.item(1, 5).text() == str(job)
    assert "1 file(s) could not be read" in dialog.status.text()
    dialog.table.selectRow(1)
    dialog.summary_button.click()
    assert w.feature("jobs").summary.profile.name == "the job"
    dialog.open_selected()
    assert w.source.kind is SourceKind.REPLAY and Path(w.source.path) == job
    assert w.feature("jobs").settings.recent[0] == job


def test_the_list_action_opens_the_list(make_window, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUPROF_DATA_DIR", str(tmp_path))
    w = make_window()
    titles = [a.text() for a in w.menuBar().actions()[0].menu().actions()]
    assert "&Profile a command…" in titles and "&Job profiles…" in titles
    w.action("file.job_profiles").trigger()
    dialog = w.feature("jobs").profiles_list
    qtbot.waitUntil(lambda: dialog.scans == 1, timeout=20_000)
    assert dialog.table.rowCount() == 0 and not dialog.open_button.isEnabled()


# -- step ticks -------------------------------------------------------------------------------------
def test_ticks_show_the_steps_of_a_replayed_recording(make_window, tmp_path, qtbot):
    rec = _recording(tmp_path / "steps.gpuprof", profile=_profile(), steps=20, polls_n=40)
    w = make_window(tab="telemetry")
    ticks = w.telemetry.step_ticks
    assert ticks.count == 0
    w.open_recording(rec)
    w.source.seek(39.0)  # near the end: the 60 s window covers every step
    polls(w, 1)
    qtbot.waitUntil(lambda: ticks.count == 20, timeout=10_000)
    w.refresh_visible(force=True)
    assert ticks.visible_count == 20
    w.grab()  # paints
    assert ticks.painted == 20
    # A live source again: no ticks.
    w.set_source(FakeSource(1))
    polls(w, 1)
    assert ticks.count == 0


def test_ticks_merge_in_one_pixel_column_and_cost_nothing_without_markers(make_window, qtbot):
    import numpy as np

    w = make_window(tab="telemetry")
    polls(w, 5)
    ticks = w.telemetry.step_ticks
    w.refresh_visible(force=True)
    assert ticks.visible_count == 0 and ticks.painted == 0
    t1 = w.state.end_time()
    ticks.set_times(np.linspace(t1 - 50, t1, 100_000))  # far more than pixel columns
    w.refresh_visible(force=True)
    assert ticks.visible_count == 100_000
    w.grab()
    assert 0 < ticks.painted <= 1600


def test_ticks_follow_the_recording_of_a_job_being_profiled(make_window, tmp_path, qtbot):
    from gpuprof.ui.telemetry.plot.ticks import RecordingTicks

    w = make_window(tab="telemetry")
    feeder: RecordingTicks = w.feature("jobs").ticks
    rec = tmp_path / "live.gpuprof"
    feeder.follow(rec)  # not there yet: no error, no ticks
    feeder._read_live()
    _recording(rec, profile=None, steps=7)
    feeder._read_live()
    qtbot.waitUntil(lambda: w.telemetry.step_ticks.count == 7, timeout=10_000)
    polls(w, 1)  # a snapshot of the live source does not clear the job's ticks
    assert w.telemetry.step_ticks.count == 7
    feeder.stop_following()
    assert feeder.following is None


# -- the real profiler ------------------------------------------------------------------------------
@needs_profiler
@pytest.mark.slow
def test_a_real_profile_run_ends_with_the_summary(make_window, tmp_path, qtbot):
    w = make_window()
    code = "import time, sys; time.sleep(1.5); print('done'); sys.exit(3)"
    run = _start(w, tmp_path, [sys.executable, "-c", code], interval_s=0.25)
    qtbot.waitUntil(lambda: not run.running, timeout=90_000)
    assert run.outcome.exit_code == 3, run.outcome.log
    assert run.outcome.profile is not None, run.outcome.error
    assert run.outcome.profile.exit_code == 3
    assert run.outcome.recording == tmp_path / "job.gpuprof"
    assert w.feature("jobs").summary.facts["exit"].text() == "exit code 3"


@needs_profiler
@pytest.mark.slow
def test_stop_on_a_real_profile_run(make_window, tmp_path, qtbot):
    w = make_window()
    run = _start(w, tmp_path, [sys.executable, "-c", "import time; time.sleep(120)"])
    qtbot.waitUntil(lambda: run.state == "running", timeout=10_000)
    qtbot.wait(3000)
    w.feature("jobs").stop()
    qtbot.waitUntil(lambda: not run.running, timeout=60_000)
    assert run.outcome.profile is not None, run.outcome.error
    assert run.outcome.profile.exit_signal == signal.Signals.SIGINT.name or (
        run.outcome.profile.exit_code in (130, -2)
    )


@needs_profiler
@pytest.mark.slow
def test_a_real_training_job_shows_its_steps_as_ticks_and_in_the_summary(
    make_window, tmp_path, qtbot
):
    pytest.importorskip("torch")
    script = Path(__file__).parent / "data" / "train_small.py"
    w = make_window(tab="telemetry")
    argv = [sys.executable, str(script), "--steps", "6", "--sleep", "0.2", "--exit-code", "3"]
    run = _start(w, tmp_path, argv, interval_s=0.25, name="small")
    qtbot.waitUntil(lambda: not run.running, timeout=120_000)
    profile = run.outcome.profile
    assert profile is not None, run.outcome.error
    assert run.outcome.exit_code == 3 and profile.name == "small"
    assert profile.steps is not None and profile.steps.count == 6
    assert any("done 6 steps" in line for line in run.outcome.log)
    # The job's markers, read back from its recording, are ticks on the time axis.
    qtbot.waitUntil(lambda: w.telemetry.step_ticks.count == 6, timeout=10_000)
    qtbot.waitUntil(
        lambda: w.feature("jobs").status.elapsed.text().endswith(" · 6 steps"), timeout=5000
    )
    assert "6" in w.feature("jobs").summary.details.toPlainText()
