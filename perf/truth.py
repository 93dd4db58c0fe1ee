"""The recommender against published runs (issue 16, "Truth"); prints JSON.

For each row of ``tests/data/published_runs.csv`` it asks ``gpuprof recommend`` (the CLI, one
configuration: ``--gpu G --gpus N``) for the same model, precision, sequence length, batch and
tokens, turns the estimate into the row's metric (tokens/s per GPU, or GPU-hours) and prints the
estimate, the published value and the error. The same model explains every row: no per-row
constant. Goals: training median |error| <= 10 % and every row within +-25 %; inference rows
within +-30 %. Each row also carries ``error_pct_before``: its error before the model changes
below (commit 0b3eda1), null for rows added since.

Before -> after (model changes of issue 16, gpuprof/recommend/decode.py and estimate.py):

* Inference, tensor parallel: the all-reduces were charged as bytes over NVLink only (a few
  microseconds per token); each now also pays NCCL's measured small-message latency, 5.56 +
  1.98 x 2(n-1) us (nccl-tests issue #123, DGX-A100), two per layer per token, on the critical
  path. Mixture of experts: a decode step now reads only the routed experts' weights
  (1 - (1 - N_active/N)^b of them; gpt-fast's Mixtral gathers the top-2 experts per token), not
  all 46.7B parameters. Prefill is costed when a prompt length is given (not in these rows).
* Training in FP8: attention score/context FLOPs at the bf16 peak (Transformer Engine runs
  only the linear layers in FP8), not all FLOPs at the FP8 peak.

  row                      before    after
  nemo-llama2-7b           +10.2 %   -2.8 %
  nemo-llama2-13b          +11.4 %   +0.4 %
  nemo-llama2-70b           -5.5 %  -10.7 %
  nemo-llama3-8b           +19.9 %   -0.8 %
  nemo-llama3-70b           +7.9 %   -3.6 %
  nemo-gpt3-175b-128       -21.0 %  -21.0 %   (bare --params: no attention term, unchanged)
  nemo-gpt3-175b-512       -12.6 %  -12.6 %
  llama2-{7,13,70}b-gpu-hours, llama31-405b-gpu-hours (bf16): unchanged (+0.7, -5.3, +4.7, -12.3)
  gptfast-llama2-7b-tp1     -0.1 %   -0.1 %
  gptfast-llama2-7b-tp2    +24.1 %  +10.1 %
  gptfast-llama2-7b-tp8   +154.1 %   -8.4 %
  gptfast-llama2-70b-tp4    +7.1 %   -3.8 %
  gptfast-llama2-70b-tp8   +30.1 %   -9.1 %
  gptfast-mixtral-tp8      -46.4 %   -0.1 %
  training median |error| 10.2 % -> 4.7 % (max 21.0 % both); inference max 154.1 % -> 10.1 %.

Scale-out (gpuprof/recommend/parallel.py; ``error_pct_previous``: the model of commit 77a46a9).
``--gpu G --gpus N`` is now a cluster of ceil(N / 8) catalog nodes (p5.48xlarge for H100,
3,200 Gbit/s; p4de.24xlarge for A100 80GB, 400 Gbit/s) instead of one N-GPU node; training
takes the fastest tensor x pipeline x data parallel layout that fits (ZeRO-1), with tensor-
parallel all-reduces on NVLink, the 1F1B pipeline bubble (p-1)/m and the gradient all-reduce
overlapped with the backward pass, in place of ZeRO-3 traffic (6 bytes per parameter per step
over the slowest link, no overlap). Same model for every row:

  row                      previous  scale-out   (layout chosen; published layout)
  nemo-llama2-7b            -2.8 %    -0.9 %     TP1 PP1 DP8   (TP1 PP1)
  nemo-llama2-13b           +0.4 %    +5.0 %     TP1 PP1 DP16  (TP1 PP4)
  nemo-llama2-70b          -10.7 %   -12.1 %     TP4 PP2 DP8   (TP4 PP4)
  nemo-llama3-8b            -0.8 %     0.0 %
  nemo-llama3-70b           -3.6 %   -11.6 %     TP4 PP2 DP8   (TP4 PP4 CP2; context
                                                  parallelism is not modelled)
  nemo-gpt3-175b-128       -21.0 %    -7.6 %     TP4 PP16 DP2  (TP4 PP8)
  nemo-gpt3-175b-512       -12.6 %    -7.0 %     TP2 PP8 DP32  (TP4 PP8)
  llama2-7b-gpu-hours       +0.7 %    +0.6 %
  llama2-13b-gpu-hours      -5.3 %    -5.5 %
  llama2-70b-gpu-hours      +4.7 %    +8.4 %     TP2 PP4 DP8 on 8 x p4de.24xlarge
  llama31-405b-gpu-hours   -12.3 %    -5.2 %     TP8 PP4 DP32 on 1,024 H100: 39 % MFU (Llama 3
                                                  paper Table 4: 38-43 % on 8K-16K H100)
  inference rows: unchanged (one node each).
  training median |error| 4.7 % -> 5.5 %, max 21.0 % -> 12.1 %.

A decode step then read the KV cache at its mean length over the generation, (prompt + full
length) / 2, not the full length (the memory fit still takes the full length): inference rows
7b-tp1 -0.1 -> +0.4 %, 7b-tp2 +10.1 -> +10.6 %, 7b-tp8 -8.4 -> -8.3 %, 70b-tp4 -3.8 -> -3.7 %,
the others unchanged (their prompts and outputs are short: the weights dominate).

At the layout NeMo published (the same cost model held to that one layout, by hand): GPT-3 175B
TP4 PP8 on 128 GPUs 670 tokens/s/GPU (-7.7 %), on 512 GPUs 707 (-9.6 %); Llama-2 70B TP4 PP4
1465 (-14.2 %); Llama-2 13B TP1 PP4 8175 (-5.5 %). The model stays a little pessimistic there;
Megatron-based frameworks can interleave pipeline stages (Narayanan et al. 2021 sec. 2.2.2: the
bubble divided by the stages per GPU) and overlap tensor-parallel communication with GEMMs
(Transformer Engine); neither is assumed here (whether these runs used them is not checked).

Serving (issue 22; rows of kind ``serve``): an engine's maximum output-token throughput at
stated input/output lengths, from ``gpuprof recommend --scenario serve --tp N`` (the throughput-
best batch that fits; gpuprof/recommend/serve.py). Before (commit 8e63911, asked as a job with
the default batch of 16) -> after, error of the estimate:

  rows (count)                                  before             after
  TRT-LLM perf-overview, in-flight, dense (24)  -37 .. -88 %       -13.5 .. +33.3 % (median |e| 9.7)
  TRT-LLM perf-overview, Qwen3-235B MoE (7)     -71 .. -97 %       +35 .. +152 %
  TRT-LLM v0.6.1 static batch (15)              -28 .. +218 %      -26 .. +143 %
  all 46: median |error| 11.1 %, 36 within +-30 %.

No constant is fitted to these rows: MEM_BW_EFFICIENCY (0.70, gpt-fast) and the 50 % compute
efficiency of inference predate them, so the held-out error is the in-sample error; the one
change made after seeing them is structural (the step adds a per-kernel roofline of the weight
GEMMs and of attention instead of one max over the step). Known misses: the MoE rows (expert
load imbalance across GPUs, the all-to-all of expert parallelism and attention data parallelism
are not modelled; the estimate is 1.4-2.5x high) and v0.6.1's Llama-2-70B at long outputs.

Serving, second pass (issue 22): the serving rows moved to ``tests/data/published_serving.csv``
with the engine's KV handling per row (``--kv-admission``, ``--attention-kernel``). Physical
corrections (gpuprof/recommend/serve.py), no constant fitted: (1) tensor parallel beyond the KV
heads keeps a copy of a head on every GPU (Qwen3-235B: 4 KV heads at TP8 hold and read the cache
twice; TensorRT-LLM's trtllm-bench sizes it with max(tp, kv_heads)); MLA's latent is one head
every GPU keeps; attention FLOPs at the query width (heads x head size, 8,192 for Qwen3-235B,
not its 4,096 hidden); (2) ``reserve``: TensorRT-LLM's default capacity policy
(GUARANTEED_NO_EVICT) holds prompt + output per sequence from admission, not the mean
prompt + output/2 of vLLM's on-demand blocks; (3) ``per-head``: TensorRT-LLM v0.6.1 predates its
XQA kernel (v0.8; NVIDIA's XQA blog: Llama-70B 2.4x faster with it) and read a grouped-query KV
cache once per query head (8x for Llama-2-70B); (4) the KV cache takes 90 % of the memory the
weights and activations leave (TensorRT-LLM's default free_gpu_memory_fraction), not what is
left of 85 % of the GPU (a training headroom); (5) the tensor-parallel all-reduces move data at
370/450 of the link's line rate (NCCL's protocol overhead, its maintainer in nccl-tests issue
#212; serving only: the training fit keeps its own). Before -> after (``python perf/truth.py``,
``summary.serve_by_source``):

  rows (count)                          before (39ff39f)   after (1)-(3)   after (1)-(5)
  TRT-LLM perf-overview dense (24)      -13.5 .. +33.3 %   -13.5 .. +24.2  -13.5 .. +24.7
  TRT-LLM perf-overview Qwen3 MoE (7)   +35 .. +152 %      -2.0 .. +59.4   -6.2 .. +47.3
  TRT-LLM v0.6.1 (15)                   -26.4 .. +143 %    -26.4 .. +19.9  -26.4 .. +19.9
  these 46: median |error|              11.1 %             10.8 %          10.7 %
            within +-30 %               36                 42              42

Then 116 rows of TensorRT-LLM v0.17's table (Llama 3.1 70B TP1-8, Mixtral 8x7B TP1-8, 8x22B
TP8; H200, H100, L40S, A100 FP16), added after (1)-(3), out of sample for them: median |error|
21.4 %, 71 within +-30 %, worst -96 % (a 70B that barely fits: H100 TP1 FP8, A100 TP2 FP16) and
+84 % (L40S over PCIe). (4) and (5) were made after seeing them: now median 18.0 %, 84 within,
-27.6 .. +58.7 %. The misses left are all too optimistic: L40S tensor parallel over PCIe (+30
to +55 %), mixtures of experts at TP2-8 on Hopper (Mixtral +30 to +59 %, 8x22B +32 to +51 %,
Qwen3 on H100 and prefill-heavy +31 to +47 %: expert GEMMs, routing and expert imbalance are
slower than the dense GEMMs the estimate assumes) and a 70B near its memory limit at 5000/500
(+42 to +52 %). All 162: median |error| 15.2 %, 126 within +-30 %, max 58.7 %.

Serving, third pass (issue 22, no constant fitted; gpuprof/recommend/serve.py): (6) chunked
prefill comes in full chunks of the step's token budget, so a share (b*P/O)/(budget - b) of the
steps carries a compute-bound chunk and the rest only decode (``_cycle``); spread thin over every
step, the prompts' compute hid under the weight reads of a memory-bound decode step; (7) GPUs
with no GPU link all-reduce over PCIe through the host bridge at NCCL's own figure for the link
(src/graph/topo.cc kvDictPciGen: 24 GB/s for Gen4 x16; topo.h INTEL_P2P_OVERHEAD 6/5: 20 GB/s),
not at 370/450 of the PCIe line rate (26 GB/s). Before -> after (``python perf/truth.py``):

  rows (count)                          before (6),(7)        after
  L40S, tensor parallel over PCIe (20)  -8.5 .. +58.7 %, 5    -8.8 .. +32.3 %, 19 within +-30 %
  70B at 5000/500 (15)                  -14.9 .. +52.0 %, 11  -17.4 .. +18.6 %, 15 within
  dense, not L40S (79)                  -27.6 .. +52.0 %, 76  -27.8 .. +28.5 %, 79 within
  Mixtral 8x7B / 8x22B (64)             -0.0 .. +58.7 %, 42   -4.8 .. +58.5 %, 51 within
  Qwen3-235B (7)                        -6.2 .. +47.3 %, 3    -6.2 .. +47.2 %, 5 within
  all 162: median |error|               15.2 %                11.9 %
           within +-30 %                126                   147

What still misses is the mixtures of experts on Hopper at TP4-8 (Mixtral +30 to +58 %, 8x22B
+32 to +51 %, Qwen3-235B at 5000/500 +38 / +47 %), all too optimistic. Not modelled: the
grouped-GEMM efficiency of small per-expert batches and expert load imbalance. (The KV cache
is FP8 in these rows, as modelled: "If you specify FP8 quantization, the KV cache will
automatically be set to FP8 as well", perf-overview.md's engine-building section.)

Serving, fourth pass (issue 22, no constant fitted; gpuprof/recommend/serve_kernels.py): (8)
kernels tensor parallel does not split: every GPU of the group moves each token's two fused
residual + RMSNorm kernels (Megatron-LM duplicates layer norms and residuals across tensor-
parallel GPUs, Shoeybi et al. 2019) and a mixture of experts' permute and finalize (TensorRT-
LLM's tensor-parallel MoE gives every GPU all tokens' hidden states, its expert-parallelism
docs): (8 + [2 + 2k]) x hidden 16-bit elements per token per layer, read at the weights'
streaming bandwidth; at TP8 and thousands of tokens a step this is a fifth of a Mixtral step;
(9) tile quantization of the routed experts' grouped GEMM: an expert's m tokens cost
ceil(m/64) x 64 rows of math (NVIDIA's Matrix Multiplication Background guide, 64-row tiles the
smallest of its cuBLAS table), in expectation over uniform random routing (Binomial counts:
the imbalance of random routing is in it). Before -> after (``python perf/truth.py``):

  rows (count)                          before (8),(9)                after
  L40S, all models (20)                 -8.8 .. +32.3 %, 19 within    -9.3 .. +23.8 %, 20 within
  dense, not L40S (79)                  -27.8 .. +28.5 %, 79          -29.9 .. +20.6 %, 79
  Mixtral 8x7B / 8x22B (64)             -4.8 .. +58.5 %, 51           -8.1 .. +40.1 %, 62
  Qwen3-235B (7)                        -6.2 .. +47.2 %, 5            -27.3 .. +8.1 %, 7
  all 162: median |error|               11.9 %                        10.2 %
           within +-30 %                147                           160

Still missing: Mixtral 8x7B at TP8 and 128/2048 on H200 (+40.1 %) and H100 (+30.9 %), too
optimistic, at 4,000-7,000 sequences in flight (a few thousand tokens per expert: no tile
waste left). trtllm-bench caps its batch at 4,096 (tensorrt_llm/bench/build/tuning.py,
finetune_setting); at that batch the estimate moves by 3 %, so the cap does not explain it.
Rows of trtllm-bench now run at that cap, and v0.17's at most at the requests its dataset
sent (perf-overview "Preparing a Dataset": 3,000 at 128/2048 and 1000/1000, 1,500 at
5000/500; ``engine_batch_cap``): 8 Mixtral rows move, all down toward the published figure
(H200 TP8 128/2048 +40.1 -> +33.8 %, H100 TP8 128/2048 +30.9 -> +28.7 %, the others by
0.5-1.5 points); all 162: median 10.2 %, within 30 % 160 -> 161, dense edge -29.9 % unchanged.
Not the cause either: the token budget (max_num_tokens 4,608 at 128/2048 gives the estimate
of 8,192) and the KV cache (64 KiB/token in FP8; 7,341 sequences fit on H200 under reserve).
Left: H200 TP8 128/2048, +33.8 %: the model's step at 3,000 sequences costs ~10.9 us per
sequence (at 4,096: memory 16, compute 14, all-reduces 12 ms), the published figure ~14.6.
The dense A100 prefill-heavy rows are the other edge (-29.9 % at TP4 2048/128).

Serving, fifth pass (issue 22, no constant fitted; gpuprof/recommend/serve_kernels.py): (10) the
logits of each sequence that emits a token in a step. TensorRT-LLM's LM head is a vocabulary-
parallel ColumnLinear with gather_output=True (models/llama/model.py): an all-gather of 2 bytes
per vocabulary entry per sequence over the tensor-parallel link, every rank getting all of them;
the engine marks them float32 (PretrainedConfig.logits_dtype) and its C++ decoder, in the
default TopKTopP mode for beam width 1 (trtGptModelInflightBatching.cpp), copies them through
the penalty kernel (PenaltyLayer::forwardAsync, invokeBatchApplyPenalty), takes their softmax
(SamplingLayer skips it only without top-p) and samples: 26 bytes per vocabulary entry per
sequence, on every GPU whatever the tensor-parallel size (``--sampler decoder``: the v0.17
rows, TensorRT engines). vLLM V1's sampler casts to float32 and reads once (10 bytes:
``--sampler argmax``, the default; the perf-overview rows ran the PyTorch backend's greedy
TorchSampler; v0.6.1's decoder is not read, so the least is assumed). At Mixtral 8x7B TP8 and
3,000 sequences that is 0.5 ms of gather and 0.7 ms of memory per 33 ms step (~0.4 us per
sequence of the ~3.7 missing). Before -> after (``python perf/truth.py``):

  row                                       before     after
  Mixtral 8x7B H200 TP8 128/2048            +33.8 %    +29.0 %
  Mixtral 8x7B H100 TP8 128/2048            +28.7 %    +23.7 %
  Qwen3-235B H200 TP8 128/2048 (argmax)     -27.3 %    -29.9 %   (151,936-entry vocabulary)
  Llama 3.1 70B A100 TP4 2048/128           -29.9 %    -29.9 %
  all 162: median |error| 10.2 -> 9.7 %, within +-30 % 161 -> 162, max 33.8 -> 29.9 %.

Left at the edges: Qwen3-235B H200 TP8 128/2048 (-29.9 %): perf-overview's MoE runs set
enable_attention_dp (its llm_options.yml), where each GPU runs attention, the LM head and the
sampler for its own share of the sequences and nothing is all-gathered; the model's tensor-
parallel attention gathers and samples every sequence on every GPU (and keeps two copies of
each of the 4 KV heads), so it is pessimistic there. The dense A100 prefill-heavy rows
(-29.9 % at TP4 2048/128) are compute bound at the 50 % inference efficiency (sixth pass below:
-10.2 %).

Attention data parallel (issue 22, ``--attention-dp``, commit "serve: --attention-dp"): with
the perf-overview MoE rows flagged (its llm_options.yml for MoE models sets
enable_attention_dp: true) the step model runs each GPU's attention, LM head and sampler for its
own sequences (whole non-expert weights, one KV copy, one all-reduce's bytes per MoE layer for
the token all-gather + reduce-scatter, no logits gather). The seven Qwen3-235B rows then go far
past the goal the other way: H200 128/2048 -30.02 -> +45.99 %, 1000/1000 +51.95, 2048/128
+46.23, 5000/500 +91.99; H100 128/2048 +128.20, 1000/1000 +103.22, 5000/500 +99.63 % (155 of
162 within 30 %). The rows are flagged (the published_serving.csv column attention_dp): every
row runs as its benchmark ran, and without the flag these rows sat inside the goal only because
tensor-parallel attention's extra memory and all-reduce time stood in for what the model lacks:
the expert-parallel MoE's load imbalance across GPUs (a trained router, not uniform routing) and
the ranks waiting for one rank's prompt chunk at every MoE layer. No constant is fitted for
them; the training rows point the same way (the Megatron-MoE runs with expert parallelism inside
one node are 36-43 % too fast).

Serving truth, one request alone (issue 22, "batch-1 figures"): the Low Latency tables of
TensorRT-LLM's v0.6.1 performance.md (data from v0.5; H100 FP8, L40S FP8, A100 FP16; Llama 7B
TP1 and 70B TP4 at 128 and 2048 prompt tokens): the time to the first token at batch 1, rows of
metric ``ttft_ms``, summarized apart (``serve_ttft_*``; error > 0: the estimate is slower).
Added after the model above, out of sample: median |error| 28.0 %, 6 of 10 within +-30 %: the
128-token prompts too fast (H100 7B -57 %, 70B TP4 -53 %: a 3 ms estimate against 7 ms) and
A100's 2048-token prompts too slow (7B +41 %, 70B TP4 +38 %: a compute-bound prefill at the 50 %
inference efficiency).

Serving, sixth pass (issue 22, no constant fitted to a serving row; gpuprof/recommend/serve.py,
estimate.py): (11) a prompt's tokens run at a prompt's rates. Its GEMMs (a chunk's tokens are
their rows: as large as a training micro-batch's) at the tuned stack's fitted GEMM share of the
dtype's peak for the GPU's generation, its attention at the fitted attention share of the 16-bit
peak (TRAIN_EFFICIENCY of gpuprof/recommend/efficiency.py, fitted to the training rows only:
A100 68 % / 57 %, Hopper 56 % / 32 %, Ada as Ampere); a decode token's math stays at the 50 %
base (at 0.68 for every token the decode-heavy MoE rows went too fast: Mixtral 8x22B A100 TP8
128/2048 +25.6 -> +50.2 %). (12) A step that carries a prompt chunk launches its kernels one by
one: engines replay CUDA graphs for decode-only steps ("we do not use the compiled version of
the model during prefill, only during the decoding steps", predibase/lorax PR #154; v0.5's
gptSessionBenchmark graphs nothing unless asked, its in-flight batching cannot: NVIDIA/TensorRT-
LLM issue #402, "We don't support CUDA graph with in-flight batching"), and eager launches cost a
batch-1 Llama 2 7B step 1.5 ms, 47 us a layer (1.2 s against 1.05 s for 100 tokens without and
with CUDA graphs, vllm-project/vllm PR #1440): ``EAGER_LAYER_S`` per layer of such a step. Before
-> after (``python perf/truth.py``):

  row (ttft_ms)                   before     after      row (throughput)              before   after
  H100 Llama 7B 128               -57.2 %    -35.7 %    Llama 3.1 70B A100 TP4 2048/128  -29.9   -10.2
  H100 Llama 70B TP4 128          -53.1 %    -38.6 %    Llama 7B A100 2048/128 (v0.6.1)  -28.2   -15.0
  A100 Llama 7B 128               -29.5 %    -30.3 %    Llama 3.1 70B A100 TP2 2048/128  -27.8    -8.9
  A100 Llama 70B TP4 128          -26.5 %    -27.5 %    Mixtral 8x7B A100 TP2 2048/128    -5.5   +20.6
  L40S Llama 7B 128               -17.1 %     -6.4 %    Mixtral 8x22B A100 TP8 128/2048  +25.6   +26.7
  H100 Llama 7B 2048              -14.3 %    -12.4 %    Qwen3-235B H200 TP8 128/2048     -29.9   -29.9
  H100 Llama 70B TP4 2048          -1.3 %     -2.8 %
  L40S Llama 7B 2048              +17.0 %     -5.2 %
  A100 Llama 7B 2048              +40.6 %     +5.7 %
  A100 Llama 70B TP4 2048         +37.6 %     +5.9 %
  ttft: median |error| 28.0 -> 9.4 %, within +-30 % 6 -> 7 of 10, worst -57.2 -> -38.6 %;
  throughput: 162 all within +-30 %, median 9.7 -> 10.1 %, max 29.9 %.

Left then: three 128-token rows too fast (H100 7B -35.7 %, H100 70B TP4 -38.6 %, A100 7B
-30.3 %), the gap largest where the GPU's ridge point nears a 128-token GEMM's intensity.

Serving, seventh pass (issue 22, no constant fitted; gpuprof/recommend/serve_kernels.py,
serve/step.py): (13) a prompt's dense GEMMs run in waves of tiles over the GPU's SMs (the Matrix
Multiplication Background guide, "Wave Quantization": a partial last wave leaves SMs idle). A
128-token prompt gives each projection one row of 128 x 128 tiles (the guide's cuBLAS tile table):
Llama 2 7B's 4,096-wide output projection is 32 tiles, one wave that idles 76 of an A100's 108 SMs
(100 of an H100's 132); 70B at TP4 splits the QKV projection to 20 tiles a GPU. The layer's GEMMs
(QKV, output, the gated MLP as two GEMMs as v0.5 builds it, down; the MLP width from the layer's
parameters) take ``waves x SMs`` tiles of math, FLOP-weighted: x1.9 (A100), x2.3 (H100), x2.5
(L40S) for 128 tokens at TP1, x1.04-1.07 at 2,048, x1.00-1.03 for a full 8,192-token chunk; decode
tokens keep their rate. SM counts from the GPU table (H100 SXM and H200 132, L40S 142 added with
their sources; unknown: no waves). What v0.5's "1st token latency" measures
(benchmarks/cpp/gptSessionBenchmark.cpp and GptSession::generateSingleBatch, read at a later commit
of NVIDIA/TensorRT-LLM): one generate() of one new token, wall clock to the stream's synchronize:
the context phase, one decoder step over the logits and the host's buffer setup; no tokenization,
warm-up runs excluded: nothing to add there. The TP4 all-reduce of a 128-token prompt (2 MB at h =
8,192) is 25 us in the model (alpha 17 us + the ring at 370 GB/s); no published NCCL time at 2 MB
on four H100s was found, so it is not changed.
Before -> after (``python perf/truth.py``):

  row (ttft_ms)                   before     after      row (throughput)              before   after
  H100 Llama 7B 128               -35.7 %    -27.4 %    Llama 3.1 70B A100 TP8 2048/128  -6.2    -9.1
  H100 Llama 70B TP4 128          -38.6 %    -26.8 %    Llama 3.1 70B A100 TP8 5000/500  +2.1    -0.7
  A100 Llama 7B 128               -30.3 %     +3.9 %    Llama 3.1 70B H200 TP8 2048/128 -12.2   -14.8
  A100 Llama 70B TP4 128          -27.5 %    +16.9 %    Qwen3-235B H200 TP8 128/2048    -29.9   -29.9
  L40S Llama 7B 128                -6.4 %     -6.4 %
  H100 Llama 7B 2048              -12.4 %     -9.7 %
  H100 Llama 70B TP4 2048          -2.8 %     +4.3 %
  L40S Llama 7B 2048               -5.2 %     -1.4 %
  A100 Llama 7B 2048               +5.7 %     +9.4 %
  A100 Llama 70B TP4 2048          +5.9 %    +11.0 %
  ttft: within +-30 % 7 -> 10 of 10, median |error| 9.4 -> 9.6 %, worst -38.6 -> -27.4 %;
  throughput: 162 all within +-30 %, median 10.1 -> 10.4 %, max 29.9 % (Qwen3-235B, unchanged).

The H100 128-token rows stay the most optimistic (-27 %): L40S is memory bound even with the
waves; on H100 what a TensorRT 9 engine of v0.5 launches per layer beyond the 47 us (FP8
quantize kernels under --strongly_typed, a SwiGLU kernel, RMSNorm from element-wise layers:
performance.md's Known Issues) is still not counted, for want of a kernel count or cost. A
per-layer cost on every step instead of prompt steps only breaks the throughput rows of
engines that graph their decode steps (Qwen3-235B H200 TP8 128/2048 -29.9 -> -32.6 % at 30 us a
layer). Not added: MLPerf Inference's Llama 2 70B Offline (OpenOrca): its output mean is
citable (mlcommons/inference language/llama2-70b/README.md: "Tokens per sample: 294.45"), its
input mean was not found in any source read (the README gives only the 1,024-token cap and the
24,576 samples); vLLM / SGLang tables (sglang benchmark/blog_v0_2: commands only, the figures
are plots; its random lengths are uniform up to the stated ones).

Issue 23, "Estimates that hold on runs they were not fitted to": 82 training and fine-tuning
rows of 14 publications (NeMo's performance summary, Megatron-Core's MoE README, the DeepSeek-V2
and V3 reports, the Megatron-MoE ModelZoo, the LLaMA and Llama 2 papers, the Llama 3.1
model card, OPT, BLOOM, llm-foundry's benchmark tables, torchtitan's performance.md,
Korthikanti et al. 2022, llm.c). Training is now a roofline (:mod:`gpuprof.recommend.
efficiency`): matmuls at a stack's fitted share of the peak plus memory-bound operators at 70 %
of the bandwidth. Its free constants (GEMM share of ``tuned`` and ``fsdp``, bytes ``k``) are
fitted here (``perf/truth_train.py``) and the summary reports the error **in-sample** (the
shipped constants, through the recommender's own estimate) and **leave-one-source-out** (every
constant refitted without a publication, that publication predicted; ``error_pct_held_out``).
The cross-validated figures are the ones to quote. ``--residuals PATH`` writes the held-out
errors as the time ratio (true ÷ estimated time) of each row: the bands of the estimates
(``resources/train_cv_residuals.csv``).

Issue 23 results (in the summary ``train_in_sample`` / ``train_held_out``; the rows are the
catalog GPUs' training rows plus torchtitan's H100 runs counted as ratios within their run):

  model                                             in-sample          held-out (LOSO)
                                                    median  <=25%  max  median  <=25%  max
  one 45 % efficiency (before; on its own 11 rows: median 5.5 %, max 12.1 %)
  gemm[stack] + k roofline (commit f784286; 66 rows)  14.8   80 %   85   15.2   74 %   92
  + FSDP (ZeRO-3, data parallel only), interleaved
    1F1B, context parallel, full recompute, Hopper
    factor, whole-run overhead (60 rows)               5.9   93 %   52    6.1   80 %   59
  + attention at its own share (Ampere, Hopper),
    fp8_other from llm-foundry and torchtitan, LLaMA's
    steady hours without run overhead, torchtitan's
    H100 FP8 / CP rows as ratios (commit 0535581, 70)   5.4   94 %   37    9.5   89 %   41
  + each run at its published layout (TP/PP/CP/VP,
    micro-batch size, AsyncTP overlap), full recompute
    repeating the attention forward at 4/3, torchtitan's
    no-AsyncTP and 1F1B rows (commit 192ddde, 72 rows)  4.7   99 %   45    9.2   92 %   45
  + NeMo's stated VP and MBS (commit 0eb1194, 72 rows)  4.8   97 %   43    9.3   92 %   44
  + expert parallelism; Megatron-Core's Mixtral 8x7B
    at TP1 EP8 PP4 VP8 (commit 8e25125, 73 rows)        4.8   96 %   43   10.4   90 %   44
  + MoE parallel folding; the Megatron-MoE ModelZoo's
    Qwen3-235B on 256 H100 (76 rows, 12 sources)        5.2   95 %   43    8.9   89 %   44
  + the ModelZoo's layouts as stated: DeepEP's node-
    deduplicated dispatch (``deepep``), expert tensor
    parallel 1 (``etp1``) (commit 7124ae9)               4.5   95 %   45    8.7   89 %   46
  + the routed experts' weight reads and FP32
    gradient accumulation per micro-batch (a roofline
    per GEMM pass), the fit run to convergence
    (commit e2d58e2)                                    4.6   95 %   43    8.3   89 %   44
  + the Llama 3.1 card rows' long-context stages
    (CSV column ``stages``, commit 71bb1e4)              4.7   95 %   41    8.0   89 %   42
  + attention outside the tuned stack with its own
    Hopper factor, the ModelZoo's long-context table
    (80 rows, commit 1a35c9b; now; fifth look below)    4.4   93 %   43    7.3   91 %   57

Mixtures of experts in training (expert parallel, gpuprof/recommend/parallel.py): Megatron-Core
MoE README's Mixtral 8x7B, 468 TFLOPS/GPU on 64 H100 = 5,643 tokens/s/GPU by Megatron's own
FLOP formula of that release: -4.8 % in-sample, -5.2 % held out (its own source left out).
DeepSeek-V3's 180K H800-hours per trillion tokens on 2,048 H800 at PP16 EP64, FP8 (hardware
other: H800 has no catalog instance, its network is unknown here): 160K estimated, -10.9 %;
DeepSeek-V2's 172.8K per trillion at PP16 EP8, BF16 (GPU count unpublished: 1,024): 143K,
-17.2 % (both report DualPipe / shared-expert overlap of the all-to-all, costed here in full).
Adding the Mixtral row moved the refit (attention_hopper 0.675 -> 0.696, k 76.6 -> 78.0) and
with it the held-out median from 9.3 to 10.4 % (llm.c's rows +5 points: a flat direction of
the fit, not the new row, which is within 6 %). The Megatron-MoE ModelZoo's Qwen3-235B steps on
256 H100 (yanring/Megatron-MoE-ModelZoo best_practice/Qwen3) at three layouts: TP4 EP8 PP8
cross-node EP32 with DeepEP -5.0 % held out (+29.8 % before the ``deepep`` layout word: DeepEP
sends a token across the network once per remote node holding one of its experts, ~2.7 of the
other 3 nodes for top-8 of 128 experts, where the plain all-to-all sends 6 of its 8 copies),
but the two intra-node EP8 rows are too short: TP2 EP8 PP32 VPP3 with the plain all-to-all
dispatcher -36.1 % and TP4 EP8 PP8 with ETP1 -45.8 % (-8.7 % before ``etp1``, which puts its
EP8 in one node as the source states, instead of across 4 nodes: that -8.7 % was right for a
wrong reason). Both miss ~4-6 ms per MoE layer and micro-batch (forward and backward), 1.2-2.3x
the expert GEMMs' own time at their routed rows; the dispatch's permutation bytes (~0.4 ms) do
not explain it, the source's own dropless / forced-balance ratio (1.09-1.24x on its long-
context runs) only part: routing imbalance, grouped-GEMM efficiency and the dispatcher's host
syncs are not modelled. With them the held-out share within +-25 % is 89.5 %, under the 90 %
goal. Not yet in the table: Megatron-Bridge's
fine-grained MoE runs on 8-GPU B200 nodes (25.11 container: DeepSeek-V3 256 GPUs FP8 2,139
tokens/s/GPU, Qwen3-235B 64 GPUs FP8 3,269), which this model puts about 2.2x too fast (the
CLI at their published layouts, steady state): the grouped GEMMs of small experts, token
permutation and routing are not modelled, and Blackwell has no fitted generation factor (no
B200 training row in the fit).

Each addition was kept only where the held-out error says it generalizes. Tried and dropped: an
FP8 cast term (bytes per token for the FP8 casts: fitted to ~0), the attention share without a
Hopper factor of its own (held-out 6.5 % / 87 % / 60 %), the published layouts without the
attention recompute (8.2 % / 87 % / 50 %), the MoE dispatch's permute / unpermute bytes
(``(2 + 2k)·h`` elements per token and MoE layer, forward and backward, as serve_kernels.py
counts them for serving: the ModelZoo rows move 1-2 points, the refit pushes Korthikanti's 22B
past 25 %: 8.7 % / 88 % / 45 %). Goals: held-out median <= 12 % met (8.3 %); 90 %
within +-25 % not met (89.5 %: 68 of 76; 90.4 % before the three ModelZoo rows); none beyond
+-40 % not met: the ModelZoo's TP4 EP8 ETP1 row (-41.7 %, below) and the Llama 3.1 8B card's
GPU-hours (-43.9 % held out, -42.6 % in-sample; 1.46M H100-hours for ~15T tokens is 14 % MFU
where the same card's 70B and 405B imply 25 % and 35 %; GPU count and batch unpublished, and at
256 to 16,384 GPUs the model moves by 7 points only). The card says only that "training time is
the total GPU time required for training each model"; the Llama 3 card of April 2024 (github
meta-llama/llama3 MODEL_CARD.md, commit 13e795f9: "CO2 emissions during pre-training") gives
the Llama 3 8B's pretraining at 8K context alone 1.3M H100-hours (70B: 6.4M), as inefficient,
so Llama 3.1's long-context stage (attention at up to 128K) accounts for 0.16M hours at most;
the Llama 3 paper publishes the 405B's layouts, not the 8B's: no term with a source closes
this gap.
Looked at and not added: the optimizer step per parameter (the ZeRO paper's 16 bytes of state,
~32 bytes moved per parameter per step: <= 3 % of a step except Korthikanti's 22B, 6 %, already
within 25 %), the cross-entropy over the vocabulary (<= 1 % on the rows past +-25 %; its bytes
depend on each stack's kernel, fused or not), and torchtitan's context parallel (sharded head
and tail to balance the causal load: no imbalance term). None moves a row across +-25 %.

Third look at the rows past the goals (issue 23). No row changed. Two changes to the model:
(1) the fit runs to convergence (perf/truth_train.py ``CONVERGED``: 12 rounds of 36 golden-
section steps; 4 of 28 stop early in a valley where ``k`` trades against the Hopper factors:
with (2) they stopped at a mean |log error| of 0.0851, above the old constants' 0.0838, where
12 rounds reach 0.0826 and 24 the same constants: k 52.6, Hopper 0.829, attention on Hopper
0.563); alone it gives held out 8.3 % / 88.2 % / 45.7 %. (2) Each
micro-batch reads a GPU's routed-expert weights twice (three times under full recomputation)
and accumulates their gradients in FP32 (Megatron-LM's gradient-accumulation fusion into an FP32
main_grad, both defaults): 2 + 2 + 8 bytes per weight, a roofline per GEMM pass against its
third of the experts' math (gpuprof/recommend/moe_dispatch.py ``expert_weight_seconds``; no
constant). A dense GEMM has thousands of tokens per weight and never waits; below ~900 tokens
per expert (H100) the weight-gradient pass is memory-bound: the TP4 EP8 ETP1 row (16 experts of
~512 tokens a GPU) gains ~1.2 s a step, -45.2 -> -41.3 % in-sample, no other row moves. With
both: in-sample 4.6 % / 94.7 % / 42.6 %, held out 8.3 % / 89.5 % / 43.9 % (before: 4.5 / 94.7 /
45.2 and 8.7 / 89.5 / 45.8); MPT-1B FP8 comes inside +-25 % (24.3 %), Korthikanti's 22B goes
out (-25.7 %). Serving is unchanged (its constants are its own). Inputs re-read at the source:

* Megatron-MoE ModelZoo (best_practice/Qwen3/readme.md at c1ad0b5, unchanged at e865051): the
  three rows are as published. Per MoE layer and micro-batch (step ÷ (m + (p-1)/v) ÷ the
  fullest stage's layers) the published runs take 12.7 / 15.4 / 9.4 ms (EP32 DeepEP / TP2 EP8
  A2A / TP4 EP8 ETP1), the model 12.1 / 10.0 / 5.5: the two intra-node rows miss 3.9-5.5 ms each,
  whatever their TP (2 or 4). Both ran ``main(1e057005)``, dropless with the router of a loaded
  checkpoint (its yaml: ``--finetune --load``); the EP32 row ran ``moe_dev(f3e6c5)``. The same
  table's third intra-node row (TP2 EP8 PP1, Megatron FSDP, MBS 4, ``main(1e057005)``, 276
  TFLOPS/GPU, not costed: the model has no FSDP with EP) is as fast as EP32 at the same
  4,096 tokens per expert: the miss shrinks with the micro-batch, the signature of host time
  (Megatron-LM's moe/README.md, "CPU Overhead Bottleneck": "Reduce kernel launches: Decrease TP
  size or increase micro-batch size"; TransformerEngine issue #1499: GroupedLinear's per-GEMM
  host ops) and of dropless routing imbalance (the source's own TP4 EP8 runs at 16K-128K:
  forced balance 1.09-1.24x dropless). Out of sample (not in the CSV), Megatron-Bridge's H100
  Qwen3-235B (docs/performance-summary-archive.md, 26.04.01 container: 256 GPUs FP8 TP2 PP8 VP4
  EP32, 1,712 tokens/s/GPU), whose recipe forces balanced routing, CUDA-graphs the router and
  permutation and dispatches with the plain all-to-all (perf_recipes/qwen/h100/qwen3_moe.py),
  comes out -11.1 % with the shipped constants, like the ModelZoo's EP32 row: what the two
  intra-node rows miss is their software and routing, which no input of the estimate states.
  (Its Qwen3-30B-A3B, 16 GPUs FP8 EP16 with HybridEP, 8,960: +69 % with ``deepep``, -1.4 %
  costed as the plain all-to-all: a node-deduplicated dispatch across two nodes is cheaper in
  the model than in that run.) Computed and not added: an imbalance factor falling as
  1/sqrt(sequences pooled in the EP group) fits the two intra-node rows (x2.2 and x2.8 on their
  MoE part) but puts the EP32 row ~50 % too slow.
* Llama 3.1 8B (llama-models MODEL_CARD.md at a9c89c4: 1.46M H100-hours, 700 W, ~15T tokens,
  "total GPU time required for training each model"): as the row has it. Meta's cards give a
  ladder, 6·N·D over the hours: Llama 3.2 1B ~5 % and 3B ~11 % MFU (370k / 460k hours, up to
  9T tokens), 3.1 8B 14 %, 70B 25 %, 405B 35 %; only the 405B's GPU count (16K) is published.
  The model at 256 / 2,048 / 8,192 / 16,384 GPUs: -42.6 / -42.6 / -41.8 / -34.0 % in-sample.
* LLaMA (arXiv 2302.13971): its only GPU count is 2,048 A100-80GB (sec. 2.4 for the 65B; the
  carbon-footprint section: 2,048 "for a period of approximately 5 months to develop our
  models"). The 7B / 13B / 33B rows at 2,048 instead of 256 / 256 / 512 come out -7.6 / +7.8 /
  +3.3 % in-sample, but only through data-parallel gradient traffic on the catalog's
  p4de.24xlarge (400 Gbit/s per node); Meta's RSC links each A100 at 200 Gbit/s (1,600 per
  node), at which they are -28 / -17 / -26 % and the 65B, now -2 %, -19 %. Not applied: right
  for a wrong reason, and the 65B's own fit leans on the same network.
Next worst held out: llm-foundry's MPT-13B on 8 H100 (+32.9 %), torchtitan's CP8 rows (+27 to
+29 %: the published time per token grows faster with the sequence than attention's FLOPs from
CP4 on; their ring's K/V traffic is milliseconds against seconds of attention per layer), LLaMA
7B (-26.9 %), llm-foundry's MPT-1B FP8 (+26.0 %), Korthikanti's 22B on 8 GPUs (-24.7 %).

Fourth look (issue 23): the Llama 3.1 card rows as the stages they ran in. The Llama 3 paper
(arXiv 2407.21783 sec. 3.4.2) trains the context "in six stages, starting from the original 8K
context window and ending in the final 128K context window", "using approximately 800B training
tokens" (the annealing's 40M tokens at 128K are left out). Column ``stages`` of the CSV says so
for all three card rows alike (``8e11@8192-131072/6``: of the row's tokens, 800B in six stages of
equal tokens at lengths rising geometrically to 128K, 13K / 21K / 33K / 52K / 83K / 131K, at the
row's 16M tokens per batch; the paper gives neither the split nor the lengths); perf/truth_train.py
``stage_rows`` costs each stage at its own length, batch and layout and adds their times. The
model's attention grows with the length (``12·L·h·s`` per token), so the 8B (h 4,096) gains most:
in-sample hours +9.6 % (8B), +6.7 % (70B), +4.1 % (405B), against +12 % and +9.4 % that Meta's
own cards put on the 8B and 70B between Llama 3 at 8K only (1.3M / 6.4M H100-hours) and Llama
3.1 (1.46M / 7.0M). Constants refitted (k 52.6 -> 50.0; the others move <= 0.7 %). Held out:
8B -43.9 -> -38.8 %, 70B -8.2 -> -2.5 %, 405B +18.8 -> +23.3 % (in-sample +24.9 %); all rows
8.3 / 89.5 / 43.9 -> 8.0 / 89.5 / 41.7 % (median / within 25 / max), in-sample 4.6 / 94.7 /
42.6 -> 4.7 / 94.7 / 41.2 %. With the six lengths spaced evenly instead (28K .. 128K) the 8B
is -36.2 % and the 405B +25.7 % held out (7.2 / 89.5 / 41.9 %): the split is an assumption the
405B is sensitive to. Caveat, found while checking: the attention cost at long context is fitted
to torchtitan's context-parallel runs, and Megatron-Core runs it much faster. The ModelZoo's own
long-context table (best_practice/Qwen3/readme.md, Qwen3-235B TP4 EP8 PP8 VPP4 DeepEP on 256 H100,
16K-128K at CP1-8, "forced balance" TFLOPS converted to step time with the Megatron FLOP count
that reproduces the table's 4K rows, causal attention) is 1.28 / 1.66 / 2.12 / 2.44 x faster
than the model at 16K / 32K / 64K / 128K; added to the fit with one attention constant they
break torchtitan's CP rows (held out all: 7.0 / 82.5 / 107 %): the attention share differs by
stack (torchtitan's SDPA-based ring attention against Transformer Engine's fused attention), not
modelled yet; with a tuned-stack attention that fast, the card rows' stages would cost less
than here. The other two ideas of this look, computed and not added: (a) routing imbalance from
multinomial statistics: top-8 of 128 experts drawn uniformly for the 8,192-65,536 tokens an EP
group routes per micro-batch gives a fullest EP rank of 1.011-1.016 x the mean (fullest expert
1.04-1.11 x): negligible, the imbalance is the trained router's; the same long-context table
measures it (forced balance / dropless 1.245 at 16K .. 1.090 at 128K), which on the model's
routed-expert FLOP share (30 % at 16K .. 6 % at 128K) is a factor of ~1.8-2.4 on the MoE part:
what the two intra-node 4K rows miss (x2.2-2.8), but the README does not say which 4K rows ran
dropless, and the EP32 row would go ~+50 % with it. (b) Host launch time per MoE layer without
CUDA graphs: TransformerEngine's GroupedLinear pays per-GEMM host ops (torch.split, 2 x
num_gemms torch.empty: TransformerEngine issue #1499), 16 local experts at EP8 against 4 at EP32
fit the pattern of the misses, but no measured per-GEMM host cost for that release on H100 was
found (TE PR #3134 measures ~25 us per expert GEMM of dispatch for NVFP4 on Blackwell; TE issue
#2897 ~3.3 ms of host time per grouped MLP forward + backward for MXFP8 on GB200): not added.

Fifth look (issue 23): attention by stack, and Megatron-Core's long context in the truth set. (1)
Four rows added, the Megatron-MoE ModelZoo's long-context table (best_practice/Qwen3/readme.md at
c1ad0b5; command in run_235b.sh: Qwen3-235B on 256 H100, TP4 EP8 ETP1 PP8 VPP4 DeepEP, CP 1 / 2 / 4
/ 8 at 16K / 32K / 64K / 128K, GBS 256, MBS 1): its TFLOPS as step time through Megatron-LM's own
FLOP count with causal attention (``s/2h``; it reproduces the table's 4K rows within 0.5 %),
dropless, the router's default (the table's forced-balance figures, 1.09-1.25x faster, are its
test mode, ``--moe-router-force-load-balancing``); same group as the 4K rows, so held out together.
(2) ``etp1`` under context parallelism: the folded expert grid takes consecutive ranks
(Megatron-Core orders it etp-ep-dp-pp apart from the attention's), so EP8 under TP4 CP8 stays in
its node; the model had spread it over 8 nodes (at 128K ~58 s of a ~250 s step in all-to-alls;
commit 9d8ef6d, no earlier row moves). (3) ``attention_other`` (gpuprof/recommend/efficiency.py): a
stack other than the tuned one runs attention at its own share of the tuned stack's on Hopper
(FlashAttention-2-class kernels, ~35 % of an H100's peak, against Transformer Engine's fused
attention at FlashAttention-3's ~75 %: Shah et al. 2024, arXiv 2407.08608; on Ampere both are
FlashAttention-2 class, so no Ampere factor), fitted like ``fp8_other``: llm-foundry's and
torchtitan's H100 rows each predict the other held out. Fitted 0.550; the tuned stack's attention
on Hopper 0.570 x 0.561 = 0.32 -> 0.718 x 0.724 = 0.52 of the 16-bit peak (over the full ``s x
s``), the other stacks' 0.29. Variants (training held out median / within +-25 % / max, then
in-sample; the baseline 8.0 / 89.5 / 41.7 and 4.7 / 94.7 / 41.2 on 76 rows):

  variant                                            held out             in-sample (refit)
  (3) alone, 76 rows                                 8.2 / 90.8 / 43.0    3.7 / 93.4 / 41.6
  + (1) forced balance, one attention (no (3))       6.1 / 83.8 / 93.2    4.3 / 86.3 / 53.3
  + (1) forced balance and (3), before (2)           8.2 / 90.0 / 83.7    5.5 / 93.8 / 44.4
  + (1) forced balance, (2), (3)                     8.6 / 91.2 / 70.7    5.5 / 95.0 / 44.7
  + (1) dropless, (2), (3): shipped                  7.3 / 91.2 / 56.8    4.4 / 92.5 / 42.7
  (in-sample through the recommender's estimate at the shipped constants: 4.4 / 92.5 / 42.7)

Shipped: the 90 % goal is met (73 of 80 within +-25 % held out) and the median improves; the worst
row is now the 128K row (+56.8 % held out, +39.1 % in-sample): held out, no other tuned source runs
past 8K and the tuned attention comes from NeMo's, Meta's and llm.c's short rows; in-sample, the
model's time per token grows with the length faster than the published (16K -16.7 %, 32K 0.0 %, 64K
+20.9 %, 128K +39.1 %): the published time per token grows 2.4x from 16K to 128K where attention's
FLOPs per token grow 8x, so attention is about a fifth of the 16K step if the rest costs the same
per token; in the model it is two fifths. Not modelled and stated in the command: the MoE layers'
forward recomputed (``--recompute-modules moe``: about a fifth more linear-layer FLOPs at every
length), which points the same way: computed, not added (it needs a layout or recompute word of
the Workload; the four rows' MoE layers at 1 + share/3 of their compute and 6 all-to-alls for 4):
in-sample 16K -11.4, 128K +28.0 %, but held out 7.2 / 91.2 / 61.1 (128K +61.1 %), in-sample
4.8 / 92.5 / 43.4. torchtitan's CP rows: CP8 8B +25.9 -> +14.9 %, 405B +28.0 ->
+8.6 %, CP4 8B +21.6 -> +12.8 % held out (their CP1 rows, the ratios' reference, -5.4 -> -19.6 %
and -8.2 -> -17.4 %). Moved the other way: the ModelZoo's TP4 EP8 ETP1 row -41.7 -> -43.0 %, the
Llama 3.1 8B card -38.8 -> -41.9 %, the 405B card +23.3 -> +27.0 % (the tuned attention on Hopper
is faster, the GEMMs' Hopper factor 0.829 -> 0.762 slower). Constants: gemm 0.667 / 0.619, k 77.2,
Hopper 0.762, recompute 1.156, fp8_other 0.746, run overhead 0.548. Serving reads the tuned stack's
training shares for a prompt (GEMMs 56.5 -> 50.8 % of an H100's peak, attention 32 -> 52 %), out of
sample: 162 throughput rows all within +-30 %, median 10.4 -> 11.6 %, max 29.9 -> 30.0 %
(Qwen3-235B H200 TP8 128/2048 -29.9 -> -30.0 %; the prefill-heavy H100 rows 4-7 points lower, e.g.
Llama 3.1 8B H100 2048/128 -11.7 -> -18.2 %); TTFT median 9.6 -> 10.3 %, 10 of 10 within 30 % (H100
128-token prompts -27.4 -> -22.0 % and -26.8 -> -22.3 %).

torchtitan's H100 runs were on 96GB HBM2e H100s at a 500 W limit (its docs/performance.md: "the
actual peak TFLOPs number is between SXM and NVL, and we don't know its exact value"). Twelve
of them count as ratios to a row of the same run (FP8 / BF16, 64K-256K / 32K tokens, CP1 32K /
8K, no AsyncTP / AsyncTP, 1F1B / interleaved): the unknown clock cancels to first order. The
four rows they are ratios to stay out (``train_other_hardware``: predicted with the shipped
constants as if on an H100 SXM: median 8.8 %, max 19 %).

Usage: ``python perf/truth.py [--csv PATH] [--residuals PATH]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "tests" / "data" / "published_runs.csv"
#: Serving rows (issue 22): each with the engine's KV admission and attention kernel.
SERVING_CSV = ROOT / "tests" / "data" / "published_serving.csv"


def rows(path: Path) -> list[dict[str, str]]:
    lines = [ln for ln in path.read_text("utf-8").splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines))


#: Each row's error_pct under earlier models, one column a snapshot (commits named in the file).
HISTORY_CSV = ROOT / "perf" / "truth_history.csv"


def history(path: Path = HISTORY_CSV) -> dict[str, dict[str, float]]:
    """{snapshot: {row id: error_pct}} from ``path``; a row without a value is not in it."""
    out: dict[str, dict[str, float]] = {}
    for row in rows(path):
        for key, value in row.items():
            if key != "id" and value:
                out.setdefault(key, {})[row["id"]] = float(value)
    return out


_HISTORY = history()
#: error_pct before the issue-16 model changes (commit 0b3eda1), before the scale-out change
#: (commit 77a46a9), and of the serving rows asked as inference jobs before issue 22 (8e63911).
BEFORE, PREVIOUS, BEFORE_SERVE = (_HISTORY[k] for k in ("before", "previous", "before_serve"))


#: Publications measured with ``trtllm-bench throughput`` on engines ``trtllm-bench build`` sized.
TRTLLM_BENCH_GROUPS = frozenset({"trtllm-v0.17", "trtllm-perf-overview"})
#: trtllm-bench's engine batch cap: ``raw_bs = min(kv_cache_max_requests, 4096) / pp_size``,
#: rounded up to a multiple of 256 (tensorrt_llm/bench/build/tuning.py, ``finetune_setting``:
#: "Cap total batch size to avoid decoder buffer size becoming too large"). Below 4,096 the
#: KV cache binds first, above it the engine's max_batch_size: rows without a stated batch
#: run at ``--batch`` 4096 at most. Its max_num_tokens, ``min(raw_bs·(1 + ISL/OSL), 32768)``, is
#: 4,608 at 128/2048 and 4,096 sequences; the serving model's 8,192 gives the same estimate
#: there (a budget binds only where ``b·(1 + P/O)`` exceeds it), so it is not passed.
TRTLLM_BENCH_MAX_BATCH = 4096
#: Serving rows of one request alone: time to its first token, ms (the others: output tokens/s).
TTFT_METRIC = "ttft_ms"
#: Requests in each dataset of TensorRT-LLM v0.17's perf-overview ("Preparing a Dataset":
#: ``$num_requests`` per input/output length): the engine never holds more sequences than
#: the benchmark sends, so those rows run at ``min(4096, num_requests)``.
TRTLLM_V017_REQUESTS = {
    (128, 128): 30000,
    (128, 2048): 3000,
    (128, 4096): 1500,
    (2048, 128): 3000,
    (2048, 2048): 1500,
    (5000, 500): 1500,
    (1000, 1000): 3000,
    (500, 2000): 3000,
    (20000, 2000): 1000,
}


def engine_batch_cap(row: dict[str, str]) -> str | None:
    """The ``--batch`` a row of a trtllm-bench publication runs at (None: the engine picks)."""
    group = _source_group(row)
    if group not in TRTLLM_BENCH_GROUPS:
        return None
    cap = TRTLLM_BENCH_MAX_BATCH
    if group == "trtllm-v0.17":
        lengths = (int(row["prompt_len"]), int(row["output_len"]))
        cap = min(cap, TRTLLM_V017_REQUESTS.get(lengths, cap))
    return str(cap)


def recommend(row: dict[str, str], flags: list[str]) -> list[dict[str, Any]]:
    """The rows of ``gpuprof recommend FLAGS --json``, run as its own process (as a user runs
    it); a failure ends the run with its message, naming ``row``."""
    args = [sys.executable, "-m", "gpuprof", "recommend", *flags, "--json"]
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{row['id']}: {done.stderr.strip()}")
    rows: list[dict[str, Any]] = json.loads(done.stdout)["rows"]
    return rows


def estimate_serve(row: dict[str, str]) -> tuple[float, Any]:
    """(the configuration's output tokens/s at its throughput-best batch, its layout) from
    ``gpuprof recommend --scenario serve`` on the row's GPUs at tensor parallel = the GPUs;
    for a row of metric ``ttft_ms``, its TTFT p50 at that negligible load, milliseconds."""
    args = [
        "--scenario",
        "serve",
        "--model",
        row["model"],
        "--precision",
        row["precision"],
        "--prompt-len",
        row["prompt_len"],
        "--output-len",
        row["output_len"],
        "--rate",
        "0.001",  # capacity does not depend on the rate; one instance
        "--gpu",
        row["gpu"],
        "--gpus",
        row["gpus"],
        "--tp",
        row["gpus"],
    ]
    if row["batch"]:
        args += ["--batch", row["batch"]]
    elif (cap := engine_batch_cap(row)) is not None:
        args += ["--batch", cap]
    for flag, key in (
        ("--kv-admission", "kv_admission"),
        ("--attention-kernel", "attention_kernel"),
        ("--sampler", "sampler"),
    ):
        if row.get(key):
            args += [flag, row[key]]
    if row.get("attention_dp") == "true":
        args += ["--attention-dp"]
    serving = recommend(row, args)[0]["serving"]
    layout = {k: serving[k] for k in ("tp", "pp", "ep", "batch_best", "batch_max", "bound")}
    if row["metric"] == TTFT_METRIC:
        return float(serving["ttft_p50_s"]) * 1e3, layout
    return float(serving["capacity_tokens_per_s_per_instance"]), layout


def estimate(row: dict[str, str]) -> tuple[float, Any]:
    """(the row's metric as estimated, the training layout chosen or None)."""
    if row["kind"] == "serve":
        return estimate_serve(row)
    args = [
        "--scenario",
        "pretrain" if row["kind"] == "train" else "inference",
        "--precision",
        row["precision"],
        "--seq-len",
        row["seq_len"],
        "--batch",
        row["batch"],
        "--tokens",
        row["tokens"],
        "--gpu",
        row["gpu"],
        "--gpus",
        row["gpus"],
    ]
    args += ["--model", row["model"]] if row["model"] else ["--params", row["params"]]
    best = recommend(row, args)[0]
    hours, gpus = float(best["hours"]), float(best["gpus_total"])
    layout = best.get("layout")
    if row["metric"] == "gpu_hours":
        return hours * gpus, layout
    if row["metric"] == "tokens_per_s":  # the whole configuration (batch-1 decode)
        return float(row["tokens"]) / (hours * 3600.0), layout
    return float(row["tokens"]) / (hours * 3600.0 * gpus), layout


def _source_group(row: dict[str, str]) -> str:
    """Rows of one publication (``group``, else the first words of ``source``)."""
    if row.get("group"):
        return row["group"]
    src = row["source"]
    if "00f37686" in src:
        return "trtllm-perf-overview"
    if "138f96d4" in src:
        return "trtllm-v0.6.1"
    return src.split(" ")[0].lower()


def training(
    path: Path, residuals: Path | None
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Training rows: (per row id: estimate, errors, layout; the summary) — in-sample at the
    shipped constants and leave-one-source-out (issue 23)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import truth_train as tt

    from gpuprof.recommend.crossval import summarize
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY

    models = tt.build(tt.read_rows(path))
    others = tt.build(tt.read_rows(path, hardware="other"))
    cv = tt.cross_validate(models)
    shipped = tt.params_of(TRAIN_EFFICIENCY)
    per_row: dict[str, dict[str, Any]] = {}
    worst_table = 0.0
    other_errors: dict[str, float] = {}
    for m in others:  # never in a fit: the shipped constants predict them out of sample
        est, layout = tt.estimate_metric(m)
        other_errors[m.id] = (est - m.observed) / m.observed * 100.0
        per_row[m.id] = {
            "estimate": est,
            "layout": layout,
            "error_pct_held_out": round(other_errors[m.id], 1),
            "source_group": m.group,
            "stack": m.stack,
            "hardware": "other",
        }
    for m in models:
        est, layout = tt.estimate_metric(m)
        table = tt.predict({**shipped, **{f"fitted_{s}": 1.0 for s in TRAIN_EFFICIENCY.gemm}}, m)
        worst_table = max(worst_table, abs(table / est - 1.0))
        per_row[m.id] = {
            "estimate": est,
            "layout": layout,
            "error_pct_held_out": round(cv.held_out[m.id], 1),
            "source_group": m.group,
            "stack": m.stack,
            # A row counted relative to another of its run (``relative_to``): both ratios.
            "published": m.observed,
            "relative_to": m.ref.id if m.ref is not None else None,
        }
    in_sample = {
        m.id: (per_row[m.id]["estimate"] - m.observed) / m.observed * 100.0 for m in models
    }
    by_source: dict[str, list[float]] = {}
    for m in models:
        by_source.setdefault(m.group, []).append(abs(cv.held_out[m.id]))
    held = summarize(cv.held_out)
    summary = {
        "train_rows": len(models),
        "train_sources": len(by_source),
        "train_in_sample": summarize(in_sample).as_dict(),
        "train_held_out": held.as_dict(),
        "train_held_out_median_abs_by_source": {
            k: round(sorted(v)[len(v) // 2], 1) for k, v in sorted(by_source.items())
        },
        "train_constants_shipped": {k: round(v, 3) for k, v in shipped.items()},
        "train_constants_refit_all_sources": {
            k: round(v, 3) for k, v in cv.params_all.items() if not k.startswith("fitted_")
        },
        "train_table_vs_estimate_max_pct": round(worst_table * 100.0, 2),
        # Runs on GPUs the catalog lacks (torchtitan's 500 W H100 96GB HBM2e): out of every
        # fit, predicted with the shipped constants, not in the statistics above.
        "train_other_hardware": summarize(other_errors).as_dict() if other_errors else None,
        "goal_cv_median_le_12": held.median_abs_pct <= 12.0,
        "goal_cv_90pct_within_25": held.within_25_share >= 0.9,
        "goal_cv_none_beyond_40": held.max_abs_pct <= 40.0,
    }
    return per_row, summary


def _time_ratio(metric: str, error_pct: float) -> float:
    """Published time ÷ estimated time, from (estimate − published) / published of a metric."""
    e = error_pct / 100.0
    return 1.0 / (1.0 + e) if metric in ("gpu_hours", "step_seconds", TTFT_METRIC) else 1.0 + e


def _write_residuals(
    path: Path, rows_out: list[dict[str, Any]], csv_rows: list[dict[str, str]]
) -> None:
    """Each row's error as a time ratio: training held out (leave-one-source-out), inference
    and serving as they are (no constant of theirs is fitted to these rows)."""
    from gpuprof.catalog.names import normalize_gpu_model
    from gpuprof.catalog.specs import load_specs

    specs = load_specs()
    by_id = {r["id"]: r for r in csv_rows}
    lines = [
        "# Errors of the estimates against published runs, as time ratios: written by",
        "# perf/truth.py --residuals; read by gpuprof/recommend/band.py for the bands of",
        "# estimates. time_ratio = published time / estimated time (throughput: the inverse).",
        "# kind train: held out (leave-one-source-out); infer / serve: no constant fitted to them.",
        "id,group,stack,architecture,gpus,time_ratio,kind",
    ]
    for r in rows_out:
        src = by_id[r["id"]]
        if src.get("hardware") == "other":
            continue  # the bands are for the catalog's GPUs
        train = "error_pct_held_out" in r
        error = r["error_pct_held_out"] if train else r["error_pct"]
        spec = specs.get(normalize_gpu_model(src["gpu"]) or "")
        arch = (spec.architecture or "") if spec else ""
        kind = "train" if train else src["kind"]
        stack = src.get("stack") or "-"
        ratio = _time_ratio(r["metric"], error)
        lines.append(
            f"{r['id']},{r['source_group']},{stack},{arch},{src['gpus']},{ratio:.4f},{kind}"
        )
    path.write_text("\n".join(lines) + "\n", "utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", type=Path, default=CSV)
    ap.add_argument("--serving-csv", type=Path, default=SERVING_CSV)
    ap.add_argument("--residuals", type=Path, help="write the held-out time ratios here")
    a = ap.parse_args()
    train, train_summary = training(a.csv, a.residuals)
    serving_rows = rows(a.serving_csv) if a.serving_csv.is_file() else []
    moved = {r["id"] for r in serving_rows}
    csv_rows = [r for r in rows(a.csv) if r["id"] not in moved] + serving_rows
    out: list[dict[str, Any]] = []
    for row in csv_rows:
        if row["id"] in train:
            t = train[row["id"]]
            pub = float(t.get("published", row["published"]))
            out.append(
                {
                    "id": row["id"],
                    "kind": row["kind"],
                    "metric": row["metric"],
                    "estimate": round(t["estimate"], 3),
                    "published": pub,
                    "error_pct": round((t["estimate"] - pub) / pub * 100.0, 1),
                    "error_pct_held_out": t["error_pct_held_out"],
                    "error_pct_before": BEFORE.get(row["id"]),
                    "error_pct_previous": PREVIOUS.get(row["id"]),
                    "layout": t["layout"],
                    "source_group": t["source_group"],
                    "stack": t["stack"],
                    **({"relative_to": t["relative_to"]} if t.get("relative_to") else {}),
                }
            )
            continue
        est, layout = estimate(row)
        pub = float(row["published"])
        out.append(
            {
                "id": row["id"],
                "kind": row["kind"],
                "metric": row["metric"],
                "estimate": round(est, 1),
                "published": pub,
                # Two decimals: a goal's edge (±30 %) is judged on them, not on a rounded 30.0.
                "error_pct": round((est - pub) / pub * 100.0, 2),
                "error_pct_before": BEFORE.get(row["id"], BEFORE_SERVE.get(row["id"])),
                "error_pct_previous": PREVIOUS.get(row["id"]),
                "layout": layout,
                "source_group": _source_group(row),
            }
        )
    infer = [abs(r["error_pct"]) for r in out if r["kind"] == "infer"]
    # Throughput rows; one-request TTFT rows are summarized apart (serve_ttft_*).
    serve = [
        abs(r["error_pct"]) for r in out if r["kind"] == "serve" and r["metric"] != TTFT_METRIC
    ]
    ttft = {r["id"]: r["error_pct"] for r in out if r["metric"] == TTFT_METRIC}
    by_source: dict[str, list[float]] = {}
    for r in out:
        if r["kind"] == "serve" and r["metric"] != TTFT_METRIC:
            by_source.setdefault(r["source_group"], []).append(r["error_pct"])
    by_group: dict[str, list[float]] = {}
    for r in out:
        if r["kind"] == "serve" and r["metric"] != TTFT_METRIC:
            by_group.setdefault(r["source_group"], []).append(abs(r["error_pct"]))
    summary = {
        # Serving has no fitted constant: every serving row is out of sample (MEM_BW_EFFICIENCY
        # and the compute efficiency predate them; the trtllm-v0.17 rows were added after the
        # model's last change), so the in-sample error is the held-out error.
        "serve_out_of_sample": True,
        "serve_rows": len(serve),
        "serve_median_abs_error_pct": round(statistics.median(serve), 1) if serve else None,
        "serve_max_abs_error_pct": max(serve) if serve else None,
        "serve_within_30": sum(1 for e in serve if e <= 30.0),
        "goal_serve_all_within_30": (max(serve) <= 30.0) if serve else None,
        # No constant of the serving model is fitted to these rows (MEM_BW_EFFICIENCY and the
        # 50 % compute efficiency predate them), so in-sample = held-out; per source:
        "serve_by_source_median_error_pct": {
            k: round(statistics.median(v), 1) for k, v in sorted(by_source.items())
        },
        "serve_by_source": {
            k: {
                "rows": len(v),
                "median_abs_error_pct": round(statistics.median(v), 1),
                "within_30": sum(1 for e in v if e <= 30.0),
                "max_abs_error_pct": max(v),
            }
            for k, v in sorted(by_group.items())
        },
        # One request alone (batch 1): time to first token, ms.
        "serve_ttft_rows": len(ttft),
        "serve_ttft_median_abs_error_pct": (
            round(statistics.median(abs(e) for e in ttft.values()), 1) if ttft else None
        ),
        "serve_ttft_within_30": sum(1 for e in ttft.values() if abs(e) <= 30.0),
        "serve_ttft_error_pct": ttft,
        "infer_max_abs_error_pct": max(infer) if infer else None,
        "goal_infer_all_within_30": (max(infer) <= 30.0) if infer else None,
        **train_summary,
    }
    if a.residuals is not None:
        _write_residuals(a.residuals, out, csv_rows)
    print(json.dumps({"rows": out, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
