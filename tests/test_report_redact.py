"""gpuprof.redact: secrets hidden, ordinary arguments kept, hostile text made safe."""

from __future__ import annotations

import pytest

from gpuprof.redact import MASK, REDACTED_ARGS, clean_text, redact_cmdline, redact_secrets


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("python train.py --password=hunter2", "hunter2"),
        ("python train.py --password hunter2", "hunter2"),
        ("app --db-password 'a b c'", "a b c"),
        ("app --api-key=abc123def", "abc123def"),
        ("app --hf-token hf_live_value_here", "hf_live_value_here"),
        ("HF_TOKEN=xyz987 python run.py", "xyz987"),
        (
            "env AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls",
            "wJalrXUtnFEMI",
        ),
        ("aws configure set key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
        ("aws --access AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        ("git clone https://alice:s3cret@github.com/org/repo", "s3cret"),
        ("psql postgresql://bob:pw1234@db:5432/x", "pw1234"),
        ("curl -H 'Authorization: Bearer eyJabc.def.ghi123456'", "eyJabc.def.ghi123456"),
        ("wget 'https://bucket/x?X-Amz-Signature=deadbeef00&a=1'", "deadbeef00"),
        (
            "run --key ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
        ),
        ("openai sk-proj-abcdefghijklmnopqrstuvwx", "sk-proj-abcdefghijklmnopqrstuvwx"),
        ('{"password": "p@ss word"}', "p@ss word"),
    ],
)
def test_secrets_are_hidden(text: str, secret: str) -> None:
    out = redact_secrets(text)
    assert secret not in out
    assert MASK in out
    assert secret not in (redact_cmdline(text, keep=True) or "")


@pytest.mark.parametrize(
    "text",
    [
        "python -m torch.distributed.run --nproc-per-node 8 train.py --max-tokens 4096",
        "python train.py --tokenizer gpt2 --lr 3e-4 --batch-size 32 --author me",
        "python finetune.py --model mistral-7b --lora --local-rank=3",
        "nvidia-smi --query-gpu=name,memory.total --format=csv",
    ],
)
def test_ordinary_arguments_are_kept(text: str) -> None:
    assert redact_secrets(text) == text


def test_cmdline_hidden_by_default() -> None:
    assert redact_cmdline("/usr/bin/python3 -u train.py --password=x") == f"python3 {REDACTED_ARGS}"
    assert redact_cmdline("/usr/lib/xorg/Xorg") == "Xorg"
    assert redact_cmdline(None) is None
    kept = redact_cmdline("/usr/bin/python3 train.py --password=x --lr 1", keep=True)
    assert kept == f"/usr/bin/python3 train.py --password={MASK} --lr 1"


def test_clean_text_handles_hostile_strings() -> None:
    raw = b"caf\xe9\xff".decode("utf-8", "surrogateescape")
    cleaned = clean_text(raw)
    cleaned.encode("utf-8")  # no lone surrogates left
    assert cleaned == "caf\ufffd\ufffd"
    assert clean_text("a\x1b[31mb\x00c\u202eevil") == "a\ufffd[31mb\ufffdc\ufffdevil"
    assert clean_text("x" * 1000, 10) == "x" * 9 + "…"
    assert clean_text(None) == ""
    assert clean_text(b"\xffok") == "\ufffdok"
