"""gpuprof.tokenfile.read_token, the one reader of ``--token-file`` (the exporter, ``--connect``,
``--prometheus`` and ``gpuprof fleet``): every hostile file is one line naming it, exit 2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.tokenfile import MAX_TOKEN_BYTES, read_token
from tests.faults.hostile import assert_one_clear_error, hostile_files, run_gpuprof


def _token_files(folder: Path) -> dict[str, Path]:
    files = hostile_files(folder)
    fifo = folder / "a-fifo"
    os.mkfifo(fifo)
    files["a-fifo"] = fifo
    for name, content in [
        ("with-a-space", b"two words\n"),
        ("two-lines", b"first-line\nsecond-line\n"),
        ("just-over", b"a" * (MAX_TOKEN_BYTES + 1)),
        ("latin-1", "caf\xe9-token".encode("latin-1")),
        ("blank-lines", b"\n \n\t\n"),
    ]:
        (folder / name).write_bytes(content)
        files[name] = folder / name
    return files


def test_every_hostile_token_file_is_one_line_naming_it(tmp_path: Path) -> None:
    for name, path in _token_files(tmp_path / "tokens").items():
        with pytest.raises(InputError) as info:
            read_token(path)
        assert str(path) in str(info.value), name
        assert "\n" not in str(info.value), name
    with pytest.raises(InputError, match="is a folder"):
        read_token(tmp_path)


def test_a_good_token_is_stripped_and_a_readable_file_warned_of(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_bytes(b"  s3cret.Token-1~\r\n")
    path.chmod(0o600)
    assert read_token(path) == ("s3cret.Token-1~", [])
    path.chmod(0o644)
    token, warnings = read_token(path)
    assert token == "s3cret.Token-1~"
    assert len(warnings) == 1 and "chmod 600" in warnings[0] and str(path) in warnings[0]


@pytest.mark.slow
def test_fleet_refuses_hostile_token_files_before_asking(tmp_path: Path) -> None:
    files = _token_files(tmp_path / "tokens")
    for name in ("two-lines", "a-fifo", "latin-1", "a-folder"):
        ran = run_gpuprof(
            ["fleet", "--prometheus", "http://127.0.0.1:9", "--token-file", str(files[name])],
            tmp_path,
        )
        assert_one_clear_error(ran, str(files[name]))
        assert "Prometheus at" not in ran.stderr, name  # refused before any request
