"""``--ca-file`` of ``--connect https://…`` (and the exporter's ``--tls-cert``) that is not one:
one line naming it, exit 2,
and never a hang. ``ssl`` read the file itself: a FIFO given as the CA file held ``monitor``,
``record`` and the app (its Connect dialog builds the source in the GUI thread) for ever.
The CA file is read before anything is sent, so nothing needs to listen at the URL."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.faults.hostile import Ran, assert_one_clear_error, run_gpuprof

URL = "https://127.0.0.1:9"  # the discard port: nothing is asked of it


def _monitor(ca_file: Path, home: Path) -> Ran:
    return run_gpuprof(["monitor", "--connect", URL, "--ca-file", str(ca_file), "--once"], home)


def test_a_fifo_as_the_ca_file_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    ran = _monitor(fifo, tmp_path)
    assert_one_clear_error(ran, str(fifo))
    assert "not a regular file (a FIFO), not a CA file" in ran.stderr


def test_a_fifo_as_the_ca_file_does_not_hang_the_app(tmp_path: Path) -> None:
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    shot = tmp_path / "x.png"
    args = ["--connect", URL, "--ca-file", str(fifo), "--screenshot", str(shot), "--after", "0"]
    ran = run_gpuprof(args, tmp_path)
    assert_one_clear_error(ran, str(fifo))
    assert not shot.exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read: No such file or directory"),
        ("folder", "is a folder, not a CA file"),
        (b"not a certificate\n", "cannot use this CA file"),
        (b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "cannot use this CA"),
        (b"\xff" * (5 << 20), "larger than 4 MiB, not a CA file"),
    ],
    ids=["missing", "folder", "no-certificate", "bad-pem", "huge"],
)
def test_a_ca_file_that_is_not_one_is_one_line(
    content: bytes | str | None, says: str, tmp_path: Path
) -> None:
    ca = tmp_path / "ca.pem"
    if content == "folder":
        ca.mkdir()
    elif isinstance(content, bytes):
        ca.write_bytes(content)
    ran = _monitor(ca, tmp_path)
    assert_one_clear_error(ran, str(ca))
    assert says in ran.stderr
    assert "_ssl.c" not in ran.stderr


def test_a_good_ca_file_is_used(tmp_path: Path) -> None:
    """A real PEM certificate is accepted: the command goes on to the URL (refused there)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs openssl to make a certificate")
    crt, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(crt)],
        capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    ran = _monitor(crt, tmp_path)
    assert ran.returncode == 2
    assert "CA file" not in ran.stderr and URL in ran.stderr


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_the_exporters_certificate_that_is_not_a_file_is_named_as_such(
    kind: str, tmp_path: Path
) -> None:
    """``exporter --tls-cert FIFO`` said "no such file" of a file that is there."""
    cert = tmp_path / "cert.pem"
    if kind == "fifo":
        os.mkfifo(cert)
    else:
        cert.mkdir()
    ran = run_gpuprof(["exporter", "--demo", "--port", "0", "--tls-cert", str(cert)], tmp_path)
    assert_one_clear_error(ran, str(cert))
    assert "not a regular file, not a certificate or key" in ran.stderr
    missing = tmp_path / "none.pem"
    ran = run_gpuprof(["exporter", "--demo", "--port", "0", "--tls-cert", str(missing)], tmp_path)
    assert_one_clear_error(ran, f"{missing}: no such file")
