"""The models file's mixture-of-experts cells (``experts, top_k, shared_experts, moe_layers,
expert_ffn``; issue 23) against bad values: one line naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.recommend.models import load_models

HEADER = (
    "name,family,kind,layers,hidden,heads,kv_heads,head_dim,vocab,params_total,params_active,"
    "kv_per_token_layer,source,notes,experts,top_k,shared_experts,moe_layers,expert_ffn"
)
# Mixtral 8x7B's shape: 3 x 32 x 8 x 4096 x 14336 = 45.1e9 routed-expert parameters.
MOE = "mx,Mixtral,moe,32,4096,32,8,128,32000,46.7e9,12.9e9,,a paper,"

BAD: dict[str, str] = {
    "top-k-over-experts": MOE + ",8,9,0,32,14336",
    "no-top-k": MOE + ",8,,0,32,14336",
    "moe-layers-over-layers": MOE + ",8,2,0,33,14336",
    "no-expert-ffn": MOE + ",8,2,0,32,",
    "experts-over-total": MOE + ",8,2,0,32,15000",  # 47.2e9 > 46.7e9
    "nan-experts": MOE + ",nan,2,0,32,14336",
    "negative-top-k": MOE + ",8,-2,0,32,14336",
    "huge-experts": MOE + ",99999999,2,0,32,14336",
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_expert_cells_are_refused_naming_the_file_and_line(case: str, tmp_path: Path) -> None:
    path = tmp_path / "models.csv"
    path.write_text(f"{HEADER}\n{MOE},8,2,0,32,14336\n{BAD[case].replace('mx,', 'my,')}\n")
    with pytest.raises(InputError) as err:
        load_models(path)
    text = str(err.value)
    assert str(path) in text and "line 3" in text and "\n" not in text, text


def test_good_expert_cells_give_the_routed_experts_parameters(tmp_path: Path) -> None:
    path = tmp_path / "models.csv"
    path.write_text(f"{HEADER}\n{MOE},8,2,0,32,14336\n")
    (arch,) = load_models(path).values()
    assert arch.expert_params == pytest.approx(3 * 32 * 8 * 4096 * 14336)
    fields = arch.workload_fields()
    assert (fields["experts"], fields["top_k"]) == (8, 2)


def test_a_file_without_the_expert_columns_is_dense(tmp_path: Path) -> None:
    path = tmp_path / "models.csv"
    path.write_text(HEADER.rsplit(",notes", 1)[0] + ",notes\n" + MOE + "\n")
    (arch,) = load_models(path).values()
    assert arch.experts == 0 and "experts" not in arch.workload_fields()
