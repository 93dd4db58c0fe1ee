"""The models file (``gpuprof recommend --models-file CSV``, issue 16) against hostile input.

Every fault is one line naming the file (and the line where there is one), exit 2, no traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.recommend.models import DEFAULT_MODELS_FILE, load_models
from tests.faults.hostile import TEXT_FAULTS, assert_one_clear_error, hostile_files, run_gpuprof

GOOD_ROW = "llama-x,Llama,llm,80,8192,64,8,128,32000,70e9,,,a paper,"
HEADER = (
    "name,family,kind,layers,hidden,heads,kv_heads,head_dim,vocab,params_total,params_active,"
    "kv_per_token_layer,source,notes"
)

#: name -> (a data row, the words the error must contain)
BAD_ROWS: dict[str, tuple[str, str]] = {
    "nan-layers": ("llama-x,Llama,llm,nan,8192,64,8,128,32000,70e9,,,a paper,", "layers"),
    "negative-hidden": ("llama-x,Llama,llm,80,-8192,64,8,128,32000,70e9,,,a paper,", "hidden"),
    "zero-heads": ("llama-x,Llama,llm,80,8192,0,8,128,32000,70e9,,,a paper,", "heads"),
    "float-layers": ("llama-x,Llama,llm,80.5,8192,64,8,128,32000,70e9,,,a paper,", "layers"),
    "huge-layers": ("llama-x,Llama,llm,10000000,8192,64,8,128,32000,70e9,,,a paper,", "layers"),
    "kv-not-dividing": ("llama-x,Llama,llm,80,8192,64,7,128,32000,70e9,,,a paper,", "KV heads"),
    "inf-params": ("llama-x,Llama,llm,80,8192,64,8,128,32000,inf,,,a paper,", "params_total"),
    "absurd-params": ("llama-x,Llama,llm,80,8192,64,8,128,32000,1e30,,,a paper,", "parameters"),
    "active-over-total": ("llama-x,Llama,moe,80,8192,64,8,128,32000,7e9,9e9,,a paper,", "active"),
    "no-source": ("llama-x,Llama,llm,80,8192,64,8,128,32000,70e9,,,,", "source"),
    "bad-kind": ("llama-x,Llama,rnn,80,8192,64,8,128,32000,70e9,,,a paper,", "kind"),
    "bad-name": ("../../etc,Llama,llm,80,8192,64,8,128,32000,70e9,,,a paper,", "name"),
    "short-row": ("llama-x,Llama,llm,80,8192", "cells"),
    "open-quote": ('llama-x,"Llama,llm,80,8192,64,8,128,32000,70e9,,,a paper,', "line"),
    "huge-kv": ("llama-x,Llama,llm,80,8192,64,8,128,32000,70e9,,1e12,a paper,", "kv_per_token"),
}


@pytest.mark.parametrize("case", list(BAD_ROWS))
def test_a_bad_row_is_refused_naming_the_file_and_line(case: str, tmp_path: Path) -> None:
    row, words = BAD_ROWS[case]
    path = tmp_path / "models.csv"
    path.write_text(f"{HEADER}\n{GOOD_ROW.replace('llama-x', 'ok')}\n{row}\n", "utf-8")
    with pytest.raises(InputError) as err:
        load_models(path)
    text = str(err.value)
    assert str(path) in text and "line 3" in text and words in text, text
    assert "\n" not in text


def test_a_row_listed_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "models.csv"
    path.write_text(f"{HEADER}\n{GOOD_ROW}\n{GOOD_ROW.replace('llama-x', 'LLAMA X')}\n", "utf-8")
    with pytest.raises(InputError, match="listed twice"):
        load_models(path)


def test_a_file_without_the_columns_is_not_a_models_file(tmp_path: Path) -> None:
    path = tmp_path / "vms.csv"
    path.write_text("InstanceType,AcceleratorName,Price\np5.48xlarge,H100,98.32\n", "utf-8")
    with pytest.raises(InputError, match="missing columns"):
        load_models(path)


def test_comments_and_a_good_row_load(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text(f"# mine\n{HEADER}\n\n{GOOD_ROW}\n", "utf-8")
    (arch,) = load_models(path).values()
    assert (arch.name, arch.kv_heads, arch.kv_per_token_layer) == ("llama-x", 8, 2 * 8 * 128)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    files = hostile_files(tmp_path_factory.mktemp("hostile-models"))
    text = DEFAULT_MODELS_FILE.read_bytes()
    cut = tmp_path_factory.mktemp("cut") / "truncated-csv"
    cut.write_bytes(text[: text.index(b"\n", len(text) // 2) + 20])  # stops inside a row
    files["truncated-csv"] = cut
    return files


@pytest.mark.parametrize("fault", [*TEXT_FAULTS, "truncated-csv"])
@pytest.mark.slow
def test_the_cli_refuses_a_hostile_models_file_in_one_line(
    fault: str, hostile: dict[str, Path], tmp_path: Path
) -> None:
    path = hostile[fault]
    ran = run_gpuprof(["recommend", "--list-models", "--models-file", str(path)], tmp_path)
    assert_one_clear_error(ran, str(path))


def test_the_cli_refuses_a_hostile_file_given_with_model(tmp_path: Path) -> None:
    path = tmp_path / "models.csv"
    path.write_text(f"{HEADER}\n{BAD_ROWS['nan-layers'][0]}\n", "utf-8")
    args = ["recommend", "--scenario", "inference", "--model", "llama-x", "--tokens", "1e6"]
    ran = run_gpuprof([*args, "--models-file", str(path)], tmp_path)
    assert_one_clear_error(ran, str(path))
