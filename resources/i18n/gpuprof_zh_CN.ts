<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>gpuprof</name>
    <message>
        <source>    memory peak {m} (job {j}, others {o}) · power {p} · energy {e} ({k}) · SM clock {c}</source>
        <translation>    显存峰值 {m}（本作业 {j}，其他 {o}）· 功率 {p} · 能耗 {e}（{k}）· SM 时钟 {c}</translation>
    </message>
    <message>
        <source>    PCIe rx {a} / tx {b} · NVLink rx {c} / tx {d}</source>
        <translation>    PCIe 接收 {a} / 发送 {b} · NVLink 接收 {c} / 发送 {d}</translation>
    </message>
    <message>
        <source>    throttled: {t}</source>
        <translation>    降频：{t}</translation>
    </message>
    <message>
        <source>    tokens/s {t} · samples/s {s} · TFLOPS {f} · MFU {m}</source>
        <translation>    tokens/s {t} · samples/s {s} · TFLOPS {f} · MFU {m}</translation>
    </message>
    <message>
        <source>  command: {c}</source>
        <translation>  命令：{c}</translation>
    </message>
    <message>
        <source>  GPU {i} {name}: util {u} · {prof}</source>
        <translation>  GPU {i} {name}：利用率 {u} · {prof}</translation>
    </message>
    <message>
        <source>  host: CPU {c} mean, {cp} peak · RSS peak {r} · disk read {dr} / write {dw} · processes {n}</source>
        <translation>  主机：CPU 平均 {c}，峰值 {cp} · RSS 峰值 {r} · 磁盘读 {dr} / 写 {dw} · 进程数 {n}</translation>
    </message>
    <message>
        <source>  note: {n}</source>
        <translation>  注：{n}</translation>
    </message>
    <message>
        <source>  note: {n} marker lines were not markers</source>
        <translation>  注：有 {n} 行标记不是有效标记</translation>
    </message>
    <message>
        <source>  phases: {p}</source>
        <translation>  阶段：{p}</translation>
    </message>
    <message>
        <source>  steps: {n} · step time P50 {a} / P90 {b} / P99 {c} · trend {t}</source>
        <translation>  步数：{n} · 步骤时间 P50 {a} / P90 {b} / P99 {c} · 趋势 {t}</translation>
    </message>
    <message>
        <source>  wall time {w} · GPUs {g} · GPU time {s}</source>
        <translation>  墙钟时间 {w} · GPU {g} · GPU 时间 {s}</translation>
    </message>
    <message>
        <source>  where the time goes ({d}): {s}</source>
        <translation>  时间分布（{d}）：{s}</translation>
    </message>
    <message>
        <source> (an HTTPS server? try https://)</source>
        <extracomment>The kinds of :func:`describe_url_error` where no HTTP answer came (the others are statuses). the connection was refused (is the server running?) 401 and no token was sent 401 although a token was sent 403 and no token was sent 404 after &quot;the certificate is not trusted&quot;: how to give a CA 403 although a token was sent (default: ``forbidden``)</extracomment>
        <translation>（是 HTTPS 服务器？请尝试 https://）</translation>
    </message>
    <message>
        <source> (SIMULATED data)</source>
        <translation>（SIMULATED 模拟数据）</translation>
    </message>
    <message>
        <source> (SIMULATED telemetry; the acceptance check is MEASURED)</source>
        <translation>（SIMULATED 模拟遥测；验收检查为 MEASURED 实测）</translation>
    </message>
    <message>
        <source> (SIMULATED telemetry; the benchmark run is MEASURED)</source>
        <translation>（SIMULATED 模拟遥测；基准测试运行为 MEASURED 实测）</translation>
    </message>
    <message>
        <source> [red](lost)[/]</source>
        <translation> [red]（已丢失）[/]</translation>
    </message>
    <message>
        <source> by {w}</source>
        <translation>，被 {w} 占用</translation>
    </message>
    <message>
        <source> Interval </source>
        <translation> 间隔 </translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source> pageable</source>
        <translation> 可分页</translation>
    </message>
    <message>
        <source> pinned</source>
        <translation> 锁页</translation>
    </message>
    <message>
        <source> within the latency targets</source>
        <translation>，满足延迟目标</translation>
    </message>
    <message>
        <source> · stopping…</source>
        <translation> · 正在停止…</translation>
    </message>
    <message>
        <source> × expert parallel {e}</source>
        <translation> × 专家并行 {e}</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>$/h</source>
        <translation>$/h</translation>
    </message>
    <message>
        <source>$/M out</source>
        <translation>$/百万输出</translation>
    </message>
    <message>
        <source>$/PFLOP-h</source>
        <translation>$/PFLOP-h</translation>
    </message>
    <message>
        <source>% of peak</source>
        <translation>占峰值 %</translation>
    </message>
    <message>
        <source>%1
in %2
recording to %3</source>
        <translation>%1
位于 %2
录制到 %3</translation>
    </message>
    <message>
        <source>%1 (beyond the table&apos;s rows)</source>
        <translation>%1（超出表格中的行）</translation>
    </message>
    <message>
        <source>%1 (max %2)</source>
        <translation>%1（最大 %2）</translation>
    </message>
    <message>
        <source>%1 (running %2)</source>
        <translation>%1（已运行 %2）</translation>
    </message>
    <message>
        <source>%1 critical</source>
        <translation>%1 个严重</translation>
    </message>
    <message>
        <source>%1 exists; choose another name.</source>
        <translation>%1 已存在；请换一个名称。</translation>
    </message>
    <message>
        <source>%1 file(s) could not be read.</source>
        <translation>%1 个文件无法读取。</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 h</translation>
    </message>
    <message>
        <source>%1 instances, %2 fit the job&apos;s memory; the best %3 are shown.</source>
        <translation>%1 个实例，其中 %2 个能容纳作业的显存；显示最好的 %3 个。</translation>
    </message>
    <message>
        <source>%1 is a folder; name a file.</source>
        <translation>%1 是文件夹；请指定一个文件。</translation>
    </message>
    <message>
        <source>%1 job profile(s) in %2 and the recent recordings.</source>
        <translation>在 %2 和最近的录制文件中找到 %1 个作业分析。</translation>
    </message>
    <message>
        <source>%1 junction</source>
        <translation>%1 结温</translation>
    </message>
    <message>
        <source>%1 machines compared, %2 outliers</source>
        <translation>已比较 %1 台机器，%2 个离群值</translation>
    </message>
    <message>
        <source>%1 marker line(s) were not markers and were skipped</source>
        <translation>%1 行不是标记，已跳过</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 min</translation>
    </message>
    <message>
        <source>%1 of %2 configurations fit · ranked by: %3 · %4 on the Pareto front · prices as of %5</source>
        <translation>%2 种配置中 %1 种可容纳 · 排序依据：%3 · %4 种位于帕累托前沿 · 价格截至 %5</translation>
    </message>
    <message>
        <source>%1 peak %2</source>
        <translation>%1 峰值 %2</translation>
    </message>
    <message>
        <source>%1 per achieved PFLOP-hour</source>
        <translation>%1 / 实际达到的 PFLOP-小时</translation>
    </message>
    <message>
        <source>%1 per million output tokens</source>
        <translation>每百万输出 token 的费用（%1）</translation>
    </message>
    <message>
        <source>%1 processes</source>
        <translation>%1 个进程</translation>
    </message>
    <message>
        <source>%1 ranks (%2), p50 %3, p99 %4</source>
        <translation>%1 个 rank（%2），p50 %3，p99 %4</translation>
    </message>
    <message>
        <source>%1 requests over %2 s: mean prompt %3, output %4 tokens, %5 requests/s</source>
        <translation>%2 秒内 %1 个请求：平均提示 %3、输出 %4 个 token，%5 请求/秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 sent to %2</source>
        <translation>已向 %2 发送 %1</translation>
    </message>
    <message>
        <source>%1 snapshots over %2 of %3 GPUs</source>
        <translation>%3 个 GPU 在 %2 内的 %1 个快照</translation>
    </message>
    <message>
        <source>%1 steps on %2 in %3</source>
        <translation>%1 个步骤，设备 %2，耗时 %3</translation>
    </message>
    <message>
        <source>%1 tok/s per instance · %2 per million</source>
        <translation>每实例 %1 token/秒 · 每百万 %2</translation>
    </message>
    <message>
        <source>%1 warnings</source>
        <translation>%1 个警告</translation>
    </message>
    <message>
        <source>%1 · %2 (beyond the table&apos;s rows)</source>
        <translation>%1 · %2（超出表格的行数）</translation>
    </message>
    <message>
        <source>%1 · %2 steps</source>
        <translation>%1 · %2 步</translation>
    </message>
    <message>
        <source>%1, GPU memory %2</source>
        <translation>%1，GPU 显存 %2</translation>
    </message>
    <message>
        <source>%1. %2 × %3 replicas: TTFT p50 %4, p99 %5; TPOT p50 %6, p99 %7; %8 tokens/s; goodput %9</source>
        <translation>%1. %2 × %3 个副本：TTFT p50 %4、p99 %5；TPOT p50 %6、p99 %7；%8 token/秒；有效吞吐 %9</translation>
    </message>
    <message>
        <source>%1: %2 KiB</source>
        <translation>%1：%2 KiB</translation>
    </message>
    <message>
        <source>%1: %2 nodes (%3 down), %4 GPUs</source>
        <translation>%1：%2 个节点（%3 个离线），%4 个 GPU</translation>
    </message>
    <message>
        <source>%1: %2 of %3 KiB</source>
        <translation>%1：%2 / %3 KiB</translation>
    </message>
    <message>
        <source>%1: %2/h per node (as of %3) → %4/h for %5 instance(s)</source>
        <translation>%1：每节点 %2/小时（截至 %3）→ %5 个实例共 %4/小时</translation>
    </message>
    <message>
        <source>%1: %2/h per node (as of %3) → job %4</source>
        <translation>%1：每节点 %2/h（截至 %3）→ 作业 %4</translation>
    </message>
    <message>
        <source>%1: no such program (not a file in the working folder, not on PATH).</source>
        <translation>%1：找不到该程序（既不是工作文件夹中的文件，也不在 PATH 中）。</translation>
    </message>
    <message>
        <source>&amp;About gpuprof</source>
        <translation>关于 gpuprof(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Add files…</source>
        <translation>添加文件(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;CA file:</source>
        <translation>&amp;CA 文件：</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Copy screenshot</source>
        <translation>复制截图(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Dark theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Export report…</source>
        <translation>导出报告(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Job profiles…</source>
        <translation>作业分析(&amp;J)…</translation>
    </message>
    <message>
        <source>&amp;Kill</source>
        <translation>强制结束(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Light theme</source>
        <translation>浅色主题(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Open recording…</source>
        <translation>打开录制(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Pause plots</source>
        <translation>暂停曲线(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Profile</source>
        <translation>分析(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Profile a command…</source>
        <translation>分析命令(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Project this job…</source>
        <translation>推算此作业(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Run check</source>
        <translation>运行检查(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Summary…</source>
        <translation>摘要(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Terminate</source>
        <translation>终止(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Token file:</source>
        <translation>令牌文件(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation>&amp;URL：</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>(a new file in %1)</source>
        <translation>（%1 中的新文件）</translation>
    </message>
    <message>
        <source>(end)</source>
        <translation>（结束）</translation>
    </message>
    <message>
        <source>(for a GPU, first the PyTorch wheel for your CUDA version from pytorch.org), or use the full build of the packaged app. Telemetry, Health and Recommend work without it.</source>
        <translation>（如有 GPU，请先从 pytorch.org 安装与你的 CUDA 版本匹配的 PyTorch wheel），或使用打包应用的完整版本。遥测、健康和推荐功能无需 PyTorch。</translation>
    </message>
    <message>
        <source>(from the parameter count)</source>
        <translation>（按参数量）</translation>
    </message>
    <message>
        <source>(month only)</source>
        <translation>（仅有月份）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>(not saved)</source>
        <translation>（未保存）</translation>
    </message>
    <message>
        <source>(old)</source>
        <translation>（旧）</translation>
    </message>
    <message>
        <source>(pending: %1)</source>
        <translation>（待生效：%1）</translation>
    </message>
    <message>
        <source>(slowdown %1)</source>
        <translation>（降频温度 %1）</translation>
    </message>
    <message>
        <source>(the program&apos;s name)</source>
        <translation>（程序名）</translation>
    </message>
    <message>
        <source>(undated)</source>
        <translation>（无日期）</translation>
    </message>
    <message>
        <source>(year only)</source>
        <extracomment>&quot;as of&quot; texts already found not to be in the future: time only moves on, so they never will be (a few per catalog; bounded all the same). Prices older than this are flagged (``catalog list``, recommendation rows, the report).</extracomment>
        <translation>（仅有年份）</translation>
    </message>
    <message>
        <source>({n} more GPU columns not shown: see --json)</source>
        <translation>（另有 {n} 列 GPU 未显示：请用 --json）</translation>
    </message>
    <message>
        <source>--billing monthly: {sign}/month = a month (730 h) of all of those instances on their monthly price; {sign}/M out and {sign}/h are at that price</source>
        <translation>--billing monthly：{sign}/月 = 上述全部实例按包月价格计一个月（730 小时）；{sign}/M out 与 {sign}/h 均按该价格计算</translation>
    </message>
    <message>
        <source>--bind needs an IP address, got {b!r}</source>
        <translation>--bind 需要 IP 地址，实际为 {b!r}</translation>
    </message>
    <message>
        <source>--connect and --demo exclude each other</source>
        <translation>--connect 与 --demo 不能同时使用</translation>
    </message>
    <message>
        <source>--currency and --fx-rate are not supported with --from-profile yet</source>
        <translation>--from-profile 暂不支持 --currency 和 --fx-rate</translation>
    </message>
    <message>
        <source>--device must be cuda:N, all or cpu, got {d!r}</source>
        <extracomment>The scorecard&apos;s order (the health window after the measurements is reported second). Polls of the health window before and after the measurements, per level.</extracomment>
        <translation>--device 必须是 cuda:N、&apos;all&apos; 或 &apos;cpu&apos;，得到的是 {d!r}</translation>
    </message>
    <message>
        <source>--expect {t}: a GPU count must be 1..64</source>
        <translation>--expect {t}：GPU 数量必须在 1..64 之间</translation>
    </message>
    <message>
        <source>--expect {t}: neither a GPU spec like 8xH100-SXM nor a catalog instance type (see `gpuprof catalog`)</source>
        <translation>--expect {t}：既不是 8xH100-SXM 这样的 GPU 规格，也不是目录中的实例类型（见 `gpuprof catalog`）</translation>
    </message>
    <message>
        <source>--expect {t}: the catalog row has no whole GPU of a known model</source>
        <translation>--expect {t}：该目录行没有已知型号的整块 GPU</translation>
    </message>
    <message>
        <source>--from-profile takes the workload from the recording; drop {f}</source>
        <comment>, </comment>
        <translation>--from-profile 从录制中获取工作负载；请去掉 {f}</translation>
    </message>
    <message>
        <source>--gpu needs --gpus N (N &gt;= 1)</source>
        <translation>--gpu 需要 --gpus N（N &gt;= 1）</translation>
    </message>
    <message>
        <source>--gpus {n}: more {gpu} than one node holds ({per}), and no catalog instance with {gpu} states its network speed to cost several nodes; use --gpus {per} or fewer</source>
        <translation>--gpus {n}：超过一个节点能容纳的 {gpu} 数量（{per}），且目录中没有任何 {gpu} 实例注明其网络速度，无法估算多节点；请使用 --gpus {per} 或更少</translation>
    </message>
    <message>
        <source>--interval must be between {lo:g} and {hi:g} seconds, got {i:g}</source>
        <extracomment>Seconds of simulated history a ``--demo`` window starts with, so the plots show a story, and its step: the simulator costs milliseconds per poll, so the past is sampled every 2 s.</extracomment>
        <translation>--interval 必须在 {lo:g} 到 {hi:g} 秒之间，实际为 {i:g}</translation>
    </message>
    <message>
        <source>--measured wants GPU:DTYPE=TFLOPS, got {t!r}</source>
        <extracomment>Achieved TFLOPS above this for one GPU is a typo (B200 FP4 dense is ~9000).</extracomment>
        <translation>--measured 的格式应为 GPU:DTYPE=TFLOPS，实际为 {t!r}</translation>
    </message>
    <message>
        <source>--measured {t!r}: TFLOPS must be a finite number &gt; 0 and at most {hi:g}</source>
        <translation>--measured {t!r}：TFLOPS 必须是大于 0 且不超过 {hi:g} 的有限数</translation>
    </message>
    <message>
        <source>--out must end in .html, .pdf, .json or .png, got {p}</source>
        <extracomment>The ``gpuprof recommend`` flags a report&apos;s recommendation takes too, under the same names. The workload flags of ``gpuprof recommend`` that a report has not: never given.</extracomment>
        <translation>--out 必须以 .html、.pdf、.json 或 .png 结尾，实际为 {p}</translation>
    </message>
    <message>
        <source>--output-len must be at least 1</source>
        <translation>--output-len 至少为 1</translation>
    </message>
    <message>
        <source>--prompt-len is for inference (a prompt prefilled, then decoded)</source>
        <translation>--prompt-len 只用于推理（先预填充提示，再逐词解码）</translation>
    </message>
    <message>
        <source>--provider needs --credentials FILE (your own API keys)</source>
        <translation>--provider 需要 --credentials FILE（你自己的 API 密钥）</translation>
    </message>
    <message>
        <source>--providers {v!r} names no provider: give some, e.g. aws,gcp, or leave the option out for all of them</source>
        <translation>--providers {v!r} 未指定任何云服务商：请给出，例如 aws,gcp，或省略此选项以获取全部</translation>
    </message>
    <message>
        <source>--region is needed for the price API (e.g. cn-hangzhou, ap-guangzhou)</source>
        <translation>价格 API 需要 --region（例如 cn-hangzhou、ap-guangzhou）</translation>
    </message>
    <message>
        <source>--screenshot writes PNG; name the file *.png, got {p}</source>
        <translation>--screenshot 输出 PNG；文件名应为 *.png，实际为 {p}</translation>
    </message>
    <message>
        <source>--selector is longer than {n} characters</source>
        <translation>--selector 超过 {n} 个字符</translation>
    </message>
    <message>
        <source>--selector {s!r}: {w} at character {n}</source>
        <extracomment>Labels an exporter puts on each GPU&apos;s series (dcgm-exporter&apos;s and ours, Kubernetes and HPC job mapping, MIG), as opposed to the scrape target&apos;s labels.</extracomment>
        <translation>--selector {s!r}：第 {n} 个字符处{w}</translation>
    </message>
    <message>
        <source>--spot is --billing spot: give one of them</source>
        <translation>--spot 即 --billing spot：二者只需给出其一</translation>
    </message>
    <message>
        <source>--steps needs --from-profile RUN.gpuprof</source>
        <translation>--steps 需要 --from-profile RUN.gpuprof</translation>
    </message>
    <message>
        <source>--tls-key needs --tls-cert</source>
        <translation>--tls-key 需要配合 --tls-cert</translation>
    </message>
    <message>
        <source>--tp must be a power of two from 1 to 64, got {t}</source>
        <translation>--tp 必须是 1 到 64 之间的 2 的幂，实际为 {t}</translation>
    </message>
    <message>
        <source>--trace is for --scenario serve (LLM serving traffic)</source>
        <translation>--trace 用于 --scenario serve（LLM 在线服务流量）</translation>
    </message>
    <message>
        <source>--url-base is empty: give the URL the catalogs are under, or leave the option out for SkyPilot&apos;s</source>
        <translation>--url-base 为空：请给出目录所在的 URL，或省略此选项以使用 SkyPilot 的</translation>
    </message>
    <message>
        <source>.png is a screenshot of the app; --bench, --check and --recommend need .html, .pdf or .json</source>
        <translation>.png 是应用的截图；--bench、--check 和 --recommend 需要 .html、.pdf 或 .json</translation>
    </message>
    <message>
        <source>1 USD = {r:g} {c} as of {d} ({s})</source>
        <extracomment>The display currencies and how an amount in each is written. A rate file larger than this is not a rates file. Units of a currency per US dollar beyond these are a typo (the rupiah is ~16,000).</extracomment>
        <translation>1 美元 = {r:g} {c}，汇率日期 {d}（{s}）</translation>
    </message>
    <message>
        <source>1 warning</source>
        <translation>1 个警告</translation>
    </message>
    <message>
        <source>100B-parameter LLM training</source>
        <translation>100B 参数 LLM 训练</translation>
    </message>
    <message>
        <source>100B-parameter training (200B tokens, bf16)</source>
        <translation>100B 参数训练（200B token，bf16）</translation>
    </message>
    <message>
        <source>1y reserved</source>
        <translation>1 年预留</translation>
    </message>
    <message>
        <source>401 Unauthorized: it needs a token (--token-file)</source>
        <translation>401 未授权：需要令牌（--token-file）</translation>
    </message>
    <message>
        <source>401 Unauthorized: the exporter needs a token (--token-file FILE)</source>
        <translation>401 未授权：导出器需要令牌（--token-file FILE）</translation>
    </message>
    <message>
        <source>401 Unauthorized: the exporter refused the token of --token-file</source>
        <translation>401 未授权：导出器拒绝了 --token-file 中的令牌</translation>
    </message>
    <message>
        <source>401 Unauthorized: the token of --token-file was refused</source>
        <translation>401 未授权：--token-file 中的令牌被拒绝</translation>
    </message>
    <message>
        <source>401 Unauthorized: the user name and password were refused</source>
        <translation>401 未授权：用户名和密码被拒绝</translation>
    </message>
    <message>
        <source>403 Forbidden: the exporter refused access; no token was sent (give one with --token-file FILE)</source>
        <translation>403 禁止访问：导出器拒绝访问；未发送令牌（可用 --token-file FILE 提供）</translation>
    </message>
    <message>
        <source>403 Forbidden: the exporter refused the token of --token-file</source>
        <translation>403 禁止访问：导出器拒绝了 --token-file 中的令牌</translation>
    </message>
    <message>
        <source>403 Forbidden: the server refused access; no token was sent (give one with --token-file)</source>
        <translation>403 禁止访问：服务器拒绝访问；未发送令牌（可用 --token-file 提供）</translation>
    </message>
    <message>
        <source>403 Forbidden: the token was refused</source>
        <translation>403 禁止访问：令牌被拒绝</translation>
    </message>
    <message>
        <source>403 Forbidden: the user name and password were refused</source>
        <translation>403 禁止访问：用户名和密码被拒绝</translation>
    </message>
    <message>
        <source>404: no Prometheus API at this address (wrong path?)</source>
        <translation>404：此地址没有 Prometheus API（路径错误？）</translation>
    </message>
    <message>
        <source>; and {n} more</source>
        <translation>；另有 {n} 项</translation>
    </message>
    <message>
        <source>; outliers need three or more machines (a median of the others to stand against)</source>
        <translation>；离群值需要三台或更多机器（要有其他机器的中位数作对照）</translation>
    </message>
    <message>
        <source>; see --ca-file</source>
        <translation>；参见 --ca-file</translation>
    </message>
    <message>
        <source>[bold yellow]SIMULATED[/] {what} — demo data, not measured on this machine</source>
        <translation>[bold yellow]SIMULATED[/] {what} — 演示数据，并非在本机上测得</translation>
    </message>
    <message>
        <source>[bold]no NVIDIA GPU/driver found[/]: {r}</source>
        <translation>[bold]未找到 NVIDIA GPU/驱动[/]：{r}</translation>
    </message>
    <message>
        <source>[bold]run {i}[/bold]  suite {s}  on {d} ({w})  state {st}  {t:.0f} s</source>
        <translation>[bold]运行 {i}[/bold]  套件 {s}  设备 {d}（{w}）  状态 {st}  {t:.0f} s</translation>
    </message>
    <message>
        <source>[red]error[/]: recording to {p} stopped: {e}; {n} samples ({d}) were saved</source>
        <translation>[red]错误[/]：写入 {p} 的录制已停止：{e}；已保存 {n} 个样本（{d}）</translation>
    </message>
    <message>
        <source>[red]GPU LOST[/]</source>
        <translation>[red]GPU 已丢失[/]</translation>
    </message>
    <message>
        <source>[yellow]warning[/]: sampling reported: {e}</source>
        <translation>[yellow]警告[/]：采样时报告：{e}</translation>
    </message>
    <message>
        <source>`amd-smi set --compute-partition SPX` if the whole GPU was paid for</source>
        <translation>如果购买的是整卡，运行 `amd-smi set --compute-partition SPX`</translation>
    </message>
    <message>
        <source>`gpuprof kill {p} --signal KILL` ends it at once</source>
        <translation>`gpuprof kill {p} --signal KILL` 可立即结束它</translation>
    </message>
    <message>
        <source>`nvidia-smi -e 1` and a reboot</source>
        <translation>`nvidia-smi -e 1` 然后重启</translation>
    </message>
    <message>
        <source>`nvidia-smi -mig 0` if the whole GPU was paid for</source>
        <translation>如果付费的是整块 GPU：`nvidia-smi -mig 0`</translation>
    </message>
    <message>
        <source>`nvidia-smi -pm 1` (or nvidia-persistenced)</source>
        <translation>`nvidia-smi -pm 1`（或 nvidia-persistenced）</translation>
    </message>
    <message>
        <source>a block device</source>
        <translation>块设备</translation>
    </message>
    <message>
        <source>a broken benchmark run ({e})</source>
        <translation>损坏的基准测试运行（{e}）</translation>
    </message>
    <message>
        <source>A card per GPU and one for the host (Alt+1)</source>
        <translation>每个 GPU 一张卡片，另有一张主机卡片 (Alt+1)</translation>
    </message>
    <message>
        <source>a character device</source>
        <translation>字符设备</translation>
    </message>
    <message>
        <source>a check result without a list of items</source>
        <translation>检查结果中没有条目列表</translation>
    </message>
    <message>
        <source>A cluster&apos;s GPUs as a Prometheus sees them</source>
        <translation>从 Prometheus 看到的集群 GPU</translation>
    </message>
    <message>
        <source>A desktop GPU profiler, microbenchmarks and cloud recommender.</source>
        <translation>桌面 GPU 性能分析器，附带微基准测试与云端推荐。</translation>
    </message>
    <message>
        <source>A few are normal over a GPU&apos;s life; a growing count means failing memory — plan a replacement.</source>
        <translation>在 GPU 的生命周期中出现少量属正常；数量持续增长说明显存正在失效 — 请计划更换。</translation>
    </message>
    <message>
        <source>a FIFO</source>
        <extracomment>The largest integer a float holds (1.8e308, 309 digits): past it, float() overflows.</extracomment>
        <translation>FIFO</translation>
    </message>
    <message>
        <source>a file with &apos;id = ...&apos; and &apos;secret = ...&apos; lines, readable by you only</source>
        <translation>含有 &apos;id = ...&apos; 和 &apos;secret = ...&apos; 两行的文件，仅你本人可读</translation>
    </message>
    <message>
        <source>a GPU held at ~0 %% utilization for M minutes is reported (default 30)</source>
        <translation>被占用且利用率约为 0 %% 持续 M 分钟的 GPU 会被报告（默认 30）</translation>
    </message>
    <message>
        <source>A job holds the GPU ({m} in use) but it was busy only {u} of the time on average over {n} samples; the GPU waits for data.</source>
        <translation>有作业在使用 GPU（已占用 {m}），但在 {n} 次采样中平均只有 {u} 的时间处于忙碌；GPU 在等待数据。</translation>
    </message>
    <message>
        <source>A job is being profiled; stop it before starting another</source>
        <translation>正在分析一个作业；请先停止它再启动另一个</translation>
    </message>
    <message>
        <source>a JSON file {&quot;pass&quot;: 0.9, &quot;warn&quot;: 0.75} replacing the default ratios</source>
        <translation>一个 JSON 文件 {&quot;pass&quot;: 0.9, &quot;warn&quot;: 0.75}，替换默认比例</translation>
    </message>
    <message>
        <source>A live table of every GPU (what `nvidia-smi dmon` shows, laid out to read) and the host, refreshed every --interval seconds until Ctrl-C; or one snapshot with --once.</source>
        <translation>每个 GPU（即 `nvidia-smi dmon` 显示的内容，排版更易读）及主机的实时表格，每 --interval 秒刷新一次，直到按下 Ctrl-C；或用 --once 输出单个快照。</translation>
    </message>
    <message>
        <source>a MIG slice here: its parent&apos;s peaks overstate here, so there looks slower</source>
        <translation>本机为 MIG 切片：其所属整卡的峰值高估了本机，因此目标机器显得更慢</translation>
    </message>
    <message>
        <source>a model architecture, e.g. llama-3.1-70b (layers, KV heads, total and active parameters; see --list-models)</source>
        <translation>模型架构，例如 llama-3.1-70b（层数、KV 头数、总参数与激活参数；见 --list-models）</translation>
    </message>
    <message>
        <source>A monthly subscription: the whole job in whole months of every node (at least one); serving: one month of the instances the rate needs, USD</source>
        <translation>包月：整个作业按每个节点的整月数计费（至少一个月）；推理服务：该速率所需实例一个月的费用，USD</translation>
    </message>
    <message>
        <source>a name for the job</source>
        <translation>作业名称</translation>
    </message>
    <message>
        <source>A name for the job, shown in the list of job profiles</source>
        <translation>作业名称，显示在作业分析列表中</translation>
    </message>
    <message>
        <source>a pending remap needs a GPU reset (`nvidia-smi -r`); a failed one, a replacement</source>
        <translation>待处理的重映射需要重置 GPU（`nvidia-smi -r`）；重映射失败则需要更换</translation>
    </message>
    <message>
        <source>a process id is above 0, got {t!r}</source>
        <translation>进程 ID 必须大于 0，收到的是 {t!r}</translation>
    </message>
    <message>
        <source>a process id is written in the digits 0-9 only, got {t!r}</source>
        <translation>进程 ID 只能由数字 0-9 组成，收到的是 {t!r}</translation>
    </message>
    <message>
        <source>a profiled job instead of a workload</source>
        <translation>用已剖析的作业代替工作负载</translation>
    </message>
    <message>
        <source>A published architecture: its layers, KV heads and total and active parameters set the memory and FLOPs (resources/models.csv)</source>
        <translation>已发布的模型架构：其层数、KV 头数以及总参数和激活参数决定显存与 FLOPs（resources/models.csv）</translation>
    </message>
    <message>
        <source>a recorded session (gpuprof record) to report on</source>
        <translation>要生成报告的已录制会话（gpuprof record）</translation>
    </message>
    <message>
        <source>A request trace (CSV: arrival_s, prompt_tokens, output_tokens per line) simulated on the top configurations</source>
        <translation>请求轨迹（CSV：每行 arrival_s, prompt_tokens, output_tokens），在排名最前的配置上模拟</translation>
    </message>
    <message>
        <source>a seed scenario: llm-100b-train, video-analytics, nlp-inference-t4, fp64-risk, cv-train</source>
        <translation>一个种子场景：llm-100b-train、video-analytics、nlp-inference-t4、fp64-risk、cv-train</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>套接字</translation>
    </message>
    <message>
        <source>A software power cap at full load is normal for compute-bound work; if the limit is below default raise it, and check the PSU and power cables for a power brake.</source>
        <translation>计算密集型任务满载时触发软件功耗上限属正常现象；如果上限低于默认值，请调高，并检查电源和供电线缆是否触发了功耗制动（power brake）。</translation>
    </message>
    <message>
        <source>A transformer block and a small conv net on synthetic data: tokens/s and images/s</source>
        <translation>在合成数据上运行一个 Transformer 块和一个小型卷积网络：tokens/s 和 images/s</translation>
    </message>
    <message>
        <source>a workload preset (see `gpuprof recommend --help`)</source>
        <translation>工作负载预设（参见 `gpuprof recommend --help`）</translation>
    </message>
    <message>
        <source>About 30 s on one GPU: a few sizes per benchmark</source>
        <translation>单个 GPU 上约 30 s：每项基准测试测几个尺寸</translation>
    </message>
    <message>
        <source>About 3× the quick suite: more sizes and LLM-shaped products</source>
        <translation>约为 quick 套件的 3 倍：更多尺寸及 LLM 形状的矩阵乘法</translation>
    </message>
    <message>
        <source>About gpuprof</source>
        <translation>关于 gpuprof</translation>
    </message>
    <message>
        <source>acceptance check ({level})</source>
        <translation>验收检查（{level}）</translation>
    </message>
    <message>
        <source>acceptance check of this machine: a PASS/WARN/FAIL scorecard</source>
        <translation>本机验收检查：PASS/WARN/FAIL 评分表</translation>
    </message>
    <message>
        <source>Acceptance check: is this machine what was paid for? A PASS/WARN/FAIL scorecard (Alt+8)</source>
        <translation>验收检查：这台机器是否与所付费用相符？PASS/WARN/FAIL 评分表 (Alt+8)</translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation>实际达到</translation>
    </message>
    <message>
        <source>achieved TFLOPS measured here, e.g. &apos;RTX 4090:bf16=150&apos; (repeatable)</source>
        <translation>在本机实测达到的 TFLOPS，例如 &apos;RTX 4090:bf16=150&apos;（可重复指定）</translation>
    </message>
    <message>
        <source>active</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>active parameters must be &gt; 0 and at most the total</source>
        <translation>激活参数必须 &gt; 0 且不超过总参数</translation>
    </message>
    <message>
        <source>active params</source>
        <translation>激活参数量</translation>
    </message>
    <message>
        <source>Active: {r}; {k} of the node&apos;s {n} GPUs throttle.</source>
        <comment>, </comment>
        <translation>当前原因：{r}；该节点 {n} 个 GPU 中有 {k} 个在降频。</translation>
    </message>
    <message>
        <source>Add check result</source>
        <translation>添加检查结果</translation>
    </message>
    <message>
        <source>Add check result…</source>
        <translation>添加检查结果…</translation>
    </message>
    <message>
        <source>Add this machine (%1) as a row and show how many times faster each configuration is</source>
        <translation>将本机（%1）作为一行加入，并显示每种配置比本机快多少倍</translation>
    </message>
    <message>
        <source>Added to the environment of the command</source>
        <translation>添加到命令的环境变量中</translation>
    </message>
    <message>
        <source>address to listen on (default 127.0.0.1)</source>
        <translation>监听地址（默认 127.0.0.1）</translation>
    </message>
    <message>
        <source>alibaba (DescribePrice), tencent (InquiryPriceRunInstances) or huawei (ListOnDemandResourceRatings)</source>
        <translation>`alibaba`（`DescribePrice`）、`tencent`（`InquiryPriceRunInstances`）或 `huawei`（`ListOnDemandResourceRatings`）</translation>
    </message>
    <message>
        <source>Alibaba Cloud</source>
        <extracomment>Providers whose name the interface translates (zh_CN: 阿里云, 腾讯云, ...): the catalog&apos;s spelling, marked for translation.</extracomment>
        <translation>阿里云</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>All clear</source>
        <translation>一切正常</translation>
    </message>
    <message>
        <source>All clear (%1 notes)</source>
        <translation>一切正常（%1 条提示）</translation>
    </message>
    <message>
        <source>All clear (1 note)</source>
        <translation>一切正常（1 条提示）</translation>
    </message>
    <message>
        <source>All GPUs</source>
        <translation>所有 GPU</translation>
    </message>
    <message>
        <source>All providers</source>
        <extracomment>Delay between the last edit and the new ranking, ms. Rows the table holds. Building a row (its reasons and warnings) is the costly part of a ranking: 10,000 rows take ≈ 400 ms, 300 rows ≈ 13 ms; the scatter still shows every point. The window&apos;s banner (no GPU here, a GPU lost, ...) is about its own source; this tab is about cloud machines: the banner is hidden here. Emitted after each ranking with the :class:`Recommendation` (or ``None`` on bad input). Emitted when a trace simulation&apos;s results are shown (the list of (row, TraceResult)). Values of the saved form that were bad, dropped with a warning (one line each).</extracomment>
        <translation>所有云厂商</translation>
    </message>
    <message>
        <source>all published runs of this kind</source>
        <translation>该类的所有公开运行</translation>
    </message>
    <message>
        <source>All regions</source>
        <translation>所有区域</translation>
    </message>
    <message>
        <source>all stacks and GPUs</source>
        <translation>所有框架和 GPU</translation>
    </message>
    <message>
        <source>All-reduce and all-gather bus bandwidth and latency over sizes</source>
        <translation>不同消息大小下 all-reduce 和 all-gather 的总线带宽与延迟</translation>
    </message>
    <message>
        <source>also serve a series per GPU process: GPU memory, SM %%, host CPU %% and memory, labelled by pid, name, user and container (redacted as in reports); the host figures are then read at every poll instead of every 5 s</source>
        <translation>同时为每个 GPU 进程提供序列：GPU 显存、SM %%、主机 CPU %% 和内存，以 PID、名称、用户和容器为标签（与报告一样做脱敏处理）；此时主机各项数值在每次轮询时读取，而不是每 5 秒读取一次</translation>
    </message>
    <message>
        <source>also write an HTML page to OUT</source>
        <translation>同时把 HTML 页面写入 OUT</translation>
    </message>
    <message>
        <source>also write the comparison as JSON to OUT (- for standard output)</source>
        <translation>同时把对比结果以 JSON 写入 OUT（- 表示标准输出）</translation>
    </message>
    <message>
        <source>also write the job profile as JSON (&apos;-&apos; for standard output)</source>
        <translation>同时将作业画像写为 JSON（&apos;-&apos; 表示标准输出）</translation>
    </message>
    <message>
        <source>also write the run as JSON (docs/bench-schema.md)</source>
        <translation>同时将本次运行写为 JSON（docs/bench-schema.md）</translation>
    </message>
    <message>
        <source>ambiguous option: %(option)s could match %(matches)s</source>
        <translation>选项有歧义：%(option)s 可匹配 %(matches)s</translation>
    </message>
    <message>
        <source>AMD</source>
        <translation>AMD</translation>
    </message>
    <message>
        <source>amdsmi readings: junction (hotspot) and HBM temperatures, multimedia (VCN) activity, SoC clock, XGMI read/write over all links, partition modes (compute SPX/CPX, memory NPS1/NPS4: the analogue of MIG)</source>
        <translation>amdsmi 读数：结温（热点）与 HBM 温度、多媒体（VCN）活动、SoC 时钟、所有链路的 XGMI 读/写、分区模式（计算 SPX/CPX，内存 NPS1/NPS4：相当于 MIG）</translation>
    </message>
    <message>
        <source>an acceptance check result (gpuprof check --json) as the report&apos;s first page: verdict, machine identity and scorecard</source>
        <translation>把验收检查结果（gpuprof check --json）作为报告的第一页：结论、机器身份和评分表</translation>
    </message>
    <message>
        <source>an exchange rate for this command, units per US dollar and the day it holds, e.g. CNY=7.2@2026-11-30 (repeatable; overrides the rates file: gpuprof catalog fx)</source>
        <translation>本命令使用的汇率：每美元折合的单位数及其生效日期，例如 CNY=7.2@2026-11-30（可重复；优先于汇率文件：gpuprof catalog fx）</translation>
    </message>
    <message>
        <source>An HTML, PDF or JSON report of the job&apos;s recording</source>
        <translation>作业录制文件的 HTML、PDF 或 JSON 报告</translation>
    </message>
    <message>
        <source>an instance type from the catalog, e.g. p4d.24xlarge</source>
        <translation>目录中的实例类型，例如 p4d.24xlarge</translation>
    </message>
    <message>
        <source>an item that is not an object with an item_id</source>
        <translation>某个条目不是带 item_id 的对象</translation>
    </message>
    <message>
        <source>answer only requests carrying this file&apos;s token (Authorization: Bearer TOKEN), /metrics included; keep the file private (chmod 600)</source>
        <translation>只响应携带此文件中令牌的请求（Authorization: Bearer TOKEN），/metrics 也包括在内；请保持该文件私有（chmod 600）</translation>
    </message>
    <message>
        <source>application clocks setting</source>
        <translation>应用时钟设置</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>architecture: default from --params ({l} layers, hidden {h}, full multi-head attention, KV cache {kv:.0f} KiB per token); --model NAME uses a real one</source>
        <translation>架构：由 --params 推出的默认架构（{l} 层，隐藏维度 {h}，完整多头注意力，每个 token 的 KV 缓存 {kv:.0f} KiB）；--model NAME 使用真实架构</translation>
    </message>
    <message>
        <source>architecture: {m} ({l} layers, hidden {h}, {a:.3g} of {p:.3g} parameters active, KV cache {kv:.0f} KiB per token)</source>
        <translation>架构：{m}（{l} 层，隐藏维度 {h}，{p:.3g} 个参数中激活 {a:.3g} 个，每个 token 的 KV 缓存 {kv:.0f} KiB）</translation>
    </message>
    <message>
        <source>argument %(argument_name)s: %(message)s</source>
        <translation>参数 %(argument_name)s：%(message)s</translation>
    </message>
    <message>
        <source>arrival_s must be from 0 to {hi:g} s, got {t!r}</source>
        <translation>arrival_s 必须在 0 到 {hi:g} 秒之间，实际为 {t!r}</translation>
    </message>
    <message>
        <source>as of</source>
        <translation>截至</translation>
    </message>
    <message>
        <source>as the weights</source>
        <translation>与权重相同</translation>
    </message>
    <message>
        <source>Ask a Prometheus that scrapes gpuprof exporters or dcgm-exporter for every node and GPU it sees, print a node × GPU grid of one metric and the fleet-wide findings (exporters down, lost GPUs, XID, ECC, throttling outliers, PCIe links below their peers, idle GPUs held by a job). Talks only to the URL given. Exit status: 0, 1 when a finding is critical, 2 when Prometheus could not be asked.</source>
        <translation>向抓取 gpuprof 导出器或 dcgm-exporter 的 Prometheus 查询它看到的每个节点和 GPU，打印某一指标的“节点 × GPU”网格以及整个集群范围的问题（导出器停止、GPU 丢失、XID、ECC、异常降频、PCIe 链路低于同型号、被作业占用却空闲的 GPU）。只访问所给的 URL。退出状态：0；有严重问题时为 1；无法查询 Prometheus 时为 2。</translation>
    </message>
    <message>
        <source>Ask the job&apos;s owner to release it, or find why the job stopped computing.</source>
        <translation>请作业所有者释放它，或查明作业为何停止计算。</translation>
    </message>
    <message>
        <source>Ask the selected process to exit (SIGTERM)</source>
        <translation>请求所选进程退出 (SIGTERM)</translation>
    </message>
    <message>
        <source>Asking %1…</source>
        <translation>正在查询 %1…</translation>
    </message>
    <message>
        <source>assumption</source>
        <translation>假设</translation>
    </message>
    <message>
        <source>assumption: 50% of peak for a decode token&apos;s math; a prompt&apos;s GEMMs at {gemm:.0%} of the peak and its attention at {attn:.0%} of the 16-bit peak (a tuned stack&apos;s fitted training shares); decode bounded by memory bandwidth at 70% of peak</source>
        <translation>假设：解码词元的计算达到峰值的 50%；提示词的 GEMM 达到峰值的 {gemm:.0%}，其注意力达到 16 位峰值的 {attn:.0%}（调优软件栈在训练运行上拟合的占比）；解码受显存带宽限制，为峰值的 70%</translation>
    </message>
    <message>
        <source>assumption: 50% of peak for prefill math; decode bounded by memory bandwidth at 70% of peak</source>
        <translation>假设：预填充计算达到峰值的 50%；解码受显存带宽限制，为峰值的 70%</translation>
    </message>
    <message>
        <source>assumption: batched per-sample inference -&gt; 40% of peak</source>
        <translation>假设：按样本批量推理 -&gt; 峰值的 40%</translation>
    </message>
    <message>
        <source>assumption: CNN/small-model training runs below LLM MFU -&gt; 35%</source>
        <translation>假设：CNN/小模型训练的 MFU 低于 LLM -&gt; 35%</translation>
    </message>
    <message>
        <source>assumption: rendering is not GEMM-bound; FP32 rate x 30% as a proxy</source>
        <translation>假设：渲染不受 GEMM 限制；以 FP32 速率 × 30% 近似</translation>
    </message>
    <message>
        <source>at load</source>
        <translation>负载下</translation>
    </message>
    <message>
        <source>At most {u:.0f} % utilization over {m:g} min while {gib:.1f} GiB of its memory is in use.</source>
        <translation>{m:g} 分钟内利用率最高仅 {u:.0f} %，而其显存已占用 {gib:.1f} GiB。</translation>
    </message>
    <message>
        <source>at this load: TTFT p50 {t50}, p99 {t99}; TPOT p50 {p50}, p99 {p99} (step {step})</source>
        <translation>该负载下：TTFT p50 {t50}，p99 {t99}；TPOT p50 {p50}，p99 {p99}（每步 {step}）</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>auto (first CUDA GPU, else CPU)</source>
        <translation>自动（首个 CUDA GPU，否则用 CPU）</translation>
    </message>
    <message>
        <source>Automatic (from the system)</source>
        <translation>自动（跟随系统）</translation>
    </message>
    <message>
        <source>bad value at {w}: a number of {n} digits is too large for any measurement</source>
        <translation>{w} 处的值有误：{n} 位的数字对任何测量值来说都太大</translation>
    </message>
    <message>
        <source>bad value at {w}: {t} is too large for any measurement</source>
        <translation>{w} 处的值有误：{t} 对任何测量值来说都太大</translation>
    </message>
    <message>
        <source>Baidu AI Cloud</source>
        <translation>百度智能云</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <source>batch scaled by {s:g} after out-of-memory</source>
        <translation>显存不足后批大小缩放为 {s:g} 倍</translation>
    </message>
    <message>
        <source>batch {b:.0f}: the most sequences whose KV cache fits beside the weights</source>
        <translation>批量 {b:.0f}：权重之外显存可容纳其 KV 缓存的最多序列数</translation>
    </message>
    <message>
        <source>Batch: %1 in flight per replica; best %2; %3 fit in the KV cache</source>
        <translation>批量：每个副本在途 %1；最佳 %2；KV 缓存可容纳 %3</translation>
    </message>
    <message>
        <source>batch: {b:.3g} sequences in flight per replica at {load:.0%} load; up to {best} (throughput-best{targets}), {bmax} fit in the KV cache ({kv:.3g} tokens)</source>
        <translation>批量：{load:.0%} 负载下每个副本在途 {b:.3g} 个序列；最多 {best}（吞吐最优{targets}），KV 缓存可容纳 {bmax} 个（{kv:.3g} 个 token）</translation>
    </message>
    <message>
        <source>Benchmark and case (shape, direction, size)</source>
        <translation>基准测试与用例（形状、方向、尺寸）</translation>
    </message>
    <message>
        <source>benchmark run</source>
        <translation>基准测试运行记录</translation>
    </message>
    <message>
        <source>benchmark run schema {v} is newer than this gpuprof reads ({m})</source>
        <translation>基准测试运行记录的格式版本 {v} 比此版本 gpuprof 能读取的更新（{m}）</translation>
    </message>
    <message>
        <source>benchmark runs</source>
        <translation>基准测试运行记录</translation>
    </message>
    <message>
        <source>Benchmarks</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>benchmarks are not available in this build: {e}</source>
        <translation>此构建不含基准测试：{e}</translation>
    </message>
    <message>
        <source>Benchmarks need PyTorch</source>
        <translation>基准测试需要 PyTorch</translation>
    </message>
    <message>
        <source>benchmarks need PyTorch, and it does not import here: {e}; reinstall it (`pip install --force-reinstall torch`)</source>
        <translation>基准测试需要 PyTorch，但在此处无法导入：{e}；请重新安装（`pip install --force-reinstall torch`）</translation>
    </message>
    <message>
        <source>benchmarks need PyTorch, which is not installed here</source>
        <translation>基准测试需要 PyTorch，但此处未安装</translation>
    </message>
    <message>
        <source>benchmarks need PyTorch, which is not installed here; install it with `pip install &apos;gpuprof[bench]&apos;` (or the torch build for your CUDA version, https://pytorch.org/get-started/locally/)</source>
        <translation>基准测试需要 PyTorch，但此处未安装；请用 `pip install &apos;gpuprof[bench]&apos;` 安装（或安装与你的 CUDA 版本对应的 torch 构建，https://pytorch.org/get-started/locally/）</translation>
    </message>
    <message>
        <source>Benchmarks:</source>
        <translation>基准测试：</translation>
    </message>
    <message>
        <source>best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>best %1, %2 iterations</source>
        <translation>最佳 %1，%2 次迭代</translation>
    </message>
    <message>
        <source>BF16 tensor cores need compute capability &gt;= 8.0 (this GPU: {a}.{b})</source>
        <translation>BF16 张量核心需要计算能力 &gt;= 8.0（本 GPU：{a}.{b}）</translation>
    </message>
    <message>
        <source>Billing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>board limit</source>
        <translation>板卡限制</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>瓶颈</translation>
    </message>
    <message>
        <source>bound</source>
        <translation>瓶颈</translation>
    </message>
    <message>
        <source>Bound: %1</source>
        <translation>瓶颈：%1</translation>
    </message>
    <message>
        <source>bound: {b}</source>
        <translation>瓶颈：{b}</translation>
    </message>
    <message>
        <source>breakdown</source>
        <translation>torch 时间分解</translation>
    </message>
    <message>
        <source>broken gpuprof report: {e}</source>
        <translation>gpuprof 报告已损坏：{e}</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>Budget (%1)</source>
        <translation>预算（%1）</translation>
    </message>
    <message>
        <source>Budget (USD)</source>
        <translation>预算（USD）</translation>
    </message>
    <message>
        <source>Building preview…</source>
        <translation>正在生成预览…</translation>
    </message>
    <message>
        <source>Burn-in</source>
        <translation>老化测试</translation>
    </message>
    <message>
        <source>burn-in</source>
        <translation>烤机测试</translation>
    </message>
    <message>
        <source>Burn-in length in minutes</source>
        <translation>老化测试时长（分钟）</translation>
    </message>
    <message>
        <source>burn-in length in minutes (default 10)</source>
        <translation>烤机时长，单位分钟（默认 10）</translation>
    </message>
    <message>
        <source>burn-in not available here</source>
        <translation>此处无法进行烤机测试</translation>
    </message>
    <message>
        <source>burn-in runs with --level burn-in</source>
        <translation>烤机测试在 --level burn-in 时运行</translation>
    </message>
    <message>
        <source>burn-in: {n} products</source>
        <extracomment>How long the end of a burn-in waits for its workers to leave their loops (a batch of products is milliseconds; a worker still inside the driver after this is reported, not waited for). The NVML index of the GPU this load ran on (its telemetry and grading); None for the CPU. Not read from ``device``: torch&apos;s ``cuda:N`` is not NVML GPU N under CUDA_VISIBLE_DEVICES or CUDA&apos;s default device order (:mod:`gpuprof.devices`).</extracomment>
        <translation>压力测试：已完成 {n} 次矩阵乘</translation>
    </message>
    <message>
        <source>bus bandwidth</source>
        <translation>总线带宽</translation>
    </message>
    <message>
        <source>Bus id</source>
        <translation>总线 ID</translation>
    </message>
    <message>
        <source>busbw GB/s</source>
        <translation>busbw GB/s</translation>
    </message>
    <message>
        <source>busy time re-timed from {a} TFLOPS achieved per device while busy to {p} of the {d} peak {b} TFLOPS (× {r}; nothing here to carry an efficiency over from)</source>
        <translation>忙碌时间按每设备忙碌时实际达到的 {a} TFLOPS 重新计时为 {d} 峰值 {b} TFLOPS 的 {p}（× {r}；本机没有可沿用的效率）</translation>
    </message>
    <message>
        <source>bytes copied</source>
        <translation>拷贝字节数</translation>
    </message>
    <message>
        <source>CA file</source>
        <extracomment>The largest CA file read (a bundle of every public CA is about 220 KiB).</extracomment>
        <translation>CA 证书文件</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>cancelled after %1</source>
        <translation>%1 后已取消</translation>
    </message>
    <message>
        <source>cancelled: the items not run are SKIP</source>
        <translation>已取消：未运行的项目为 SKIP</translation>
    </message>
    <message>
        <source>Cancelled; previous prices kept</source>
        <translation>已取消；保留原有价格</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Cannot build the report: %1</source>
        <translation>无法生成报告：%1</translation>
    </message>
    <message>
        <source>Cannot estimate: %1</source>
        <translation>无法估算：%1</translation>
    </message>
    <message>
        <source>cannot listen on {b}:{p}: {e}</source>
        <translation>无法监听 {b}:{p}：{e}</translation>
    </message>
    <message>
        <source>Cannot look for job profiles: %1</source>
        <translation>无法查找作业分析：%1</translation>
    </message>
    <message>
        <source>Cannot project this job: %1</source>
        <translation>无法推算此作业：%1</translation>
    </message>
    <message>
        <source>cannot read catalog {p}: {e}</source>
        <translation>无法读取目录 {p}：{e}</translation>
    </message>
    <message>
        <source>Cannot read {u}: {w}</source>
        <translation>无法读取 {u}：{w}</translation>
    </message>
    <message>
        <source>cannot resolve the host name {h}</source>
        <translation>无法解析主机名 {h}</translation>
    </message>
    <message>
        <source>Cannot use this trace: %1</source>
        <translation>无法使用此轨迹：%1</translation>
    </message>
    <message>
        <source>cannot write {p}: not a regular file, a character device or a FIFO</source>
        <translation>无法写入 {p}：不是普通文件、字符设备或 FIFO</translation>
    </message>
    <message>
        <source>cannot write {p}: not a regular file; choose a file name</source>
        <translation>无法写入 {p}：不是普通文件；请选择一个文件名</translation>
    </message>
    <message>
        <source>cannot write {p}: {e}</source>
        <extracomment>Paths that name one of this process&apos;s descriptors: written through a copy of it, as a shell&apos;s ``&gt; /dev/stdout`` does (reopening a file there would truncate what ``&gt;&gt;`` appends to).</extracomment>
        <translation>无法写入 {p}：{e}</translation>
    </message>
    <message>
        <source>Case</source>
        <translation>用例</translation>
    </message>
    <message>
        <source>case</source>
        <translation>用例</translation>
    </message>
    <message>
        <source>catalog audit: {n} rows, {k} findings</source>
        <translation>目录审核：{n} 行，{k} 项发现</translation>
    </message>
    <message>
        <source>Cheapest that meets the deadline</source>
        <translation>满足截止时间的最便宜配置</translation>
    </message>
    <message>
        <source>cheapest that meets the deadline</source>
        <translation>满足截止时间的最便宜配置</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>验收检查</translation>
    </message>
    <message>
        <source>check `amd-smi topology` and `amd-smi xgmi`; a link down needs a reset</source>
        <translation>检查 `amd-smi topology` 和 `amd-smi xgmi`；链路断开需要复位</translation>
    </message>
    <message>
        <source>check `amd-smi xgmi` for links down</source>
        <translation>用 `amd-smi xgmi` 检查断开的链路</translation>
    </message>
    <message>
        <source>Check `dmesg` for Xid errors; a GPU that fell off the bus needs a reset (nvidia-smi -r) or a reboot. The other GPUs keep updating.</source>
        <translation>请用 `dmesg` 检查 Xid 错误；从总线上掉线的 GPU 需要重置（nvidia-smi -r）或重启。其他 GPU 会继续更新。</translation>
    </message>
    <message>
        <source>check `nvidia-smi -L` and the kernel log for a GPU fallen off the bus (XID 79); ask the provider for the GPUs paid for</source>
        <translation>检查 `nvidia-smi -L` 和内核日志，看是否有 GPU 掉卡（XID 79）；向提供商索要已付费的 GPU</translation>
    </message>
    <message>
        <source>Check a GPU server against what it should be: inventory against the expectation, health (findings, ECC, XID), performance against published references, a memory test and, with --level burn-in, a sustained load. Each item is PASS, WARN, FAIL, SKIP or INFO (measured, not graded: no reference, or repeated runs too far apart). Exit code: 0 all pass, 1 any FAIL, 3 only WARNs, 2 usage errors, 130 cancelled (verdict INCOMPLETE).</source>
        <translation>按应有的配置检查 GPU 服务器：清单与预期对比、健康（问题、ECC、XID）、与公开参考值对比的性能、显存测试，以及 --level burn-in 时的持续负载。每一项为 PASS、WARN、FAIL、SKIP 或 INFO（已测量但不评级：没有参考值，或多次运行结果相差太大）。退出码：0 全部通过，1 有 FAIL，3 只有 WARN，2 用法错误，130 已取消（结论 INCOMPLETE）。</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <source>check airflow, fan curves and the inlet temperature</source>
        <translation>检查气流、风扇曲线和进风温度</translation>
    </message>
    <message>
        <source>check clocks, power cap and throttle reasons (`nvidia-smi -q -d PERFORMANCE`)</source>
        <translation>检查时钟、功率上限和降频原因（`nvidia-smi -q -d PERFORMANCE`）</translation>
    </message>
    <message>
        <source>check cooling, airflow and the power supply; see the throttle reasons</source>
        <translation>检查散热、气流和电源；查看降频原因</translation>
    </message>
    <message>
        <source>check every row: price band per GPU model, its own notes, spot &lt;= on-demand, GPU count and memory, the date it was read; exit 1 when an outlier is unexplained</source>
        <translation>检查每一行：按 GPU 型号的每 GPU 小时价格区间、该行自己的备注、竞价 &lt;= 按需、GPU 数量与显存、读取价格的日期；有无法解释的异常时退出码为 1</translation>
    </message>
    <message>
        <source>check NCCL_* settings, the fabric manager and NVLink state</source>
        <translation>检查 NCCL_* 设置、Fabric Manager 和 NVLink 状态</translation>
    </message>
    <message>
        <source>Check or benchmark results of several machines side by side, outliers flagged</source>
        <translation>并排显示多台机器的检查或基准测试结果，并标出离群值</translation>
    </message>
    <message>
        <source>check result schema {v} is newer than this gpuprof reads ({m})</source>
        <extracomment>The newest check-result schema this reader knows (gpuprof.check.model.SCHEMA_VERSION). Why a check result of a newer schema is refused.</extracomment>
        <translation>检查结果的格式版本 {v} 比此版本 gpuprof 能读取的（{m}）更新</translation>
    </message>
    <message>
        <source>Check that the card sits in a full x16 slot wired to the CPU, the riser and BIOS PCIe settings; a slot of an older generation caps the link.</source>
        <translation>检查显卡是否插在直连 CPU 的完整 x16 插槽上，并检查转接卡和 BIOS 的 PCIe 设置；旧一代的插槽会限制链路速率。</translation>
    </message>
    <message>
        <source>Check that the exporter runs on the node (systemctl status, kubectl get pods) and that Prometheus can reach it.</source>
        <translation>检查导出器是否在该节点上运行（systemctl status、kubectl get pods），以及 Prometheus 能否访问它。</translation>
    </message>
    <message>
        <source>check the fabric manager (nvidia-fabricmanager) service</source>
        <translation>检查 Fabric Manager（nvidia-fabricmanager）服务</translation>
    </message>
    <message>
        <source>check the fabric manager (nvidia-fabricmanager) service and `nvidia-smi topo -m`</source>
        <translation>检查 Fabric Manager（nvidia-fabricmanager）服务和 `nvidia-smi topo -m`</translation>
    </message>
    <message>
        <source>Check the GPU&apos;s cooling (fans, airflow, a blocked slot) and its power cables; compare its temperature and power with its siblings.</source>
        <translation>检查该 GPU 的散热（风扇、气流、插槽是否被挡）和供电线缆；将其温度和功耗与同节点的其他 GPU 对比。</translation>
    </message>
    <message>
        <source>Check the kernel log (dmesg) for Xid 79, then reset the GPU or reboot; repeated losses point at power, cooling or the riser.</source>
        <translation>检查内核日志（dmesg）中是否有 Xid 79，然后重置 GPU 或重启；反复丢失说明电源、散热或转接卡（riser）有问题。</translation>
    </message>
    <message>
        <source>check the PCIe link (gen/width at load) and NUMA placement of the host buffer</source>
        <translation>检查 PCIe 链路（负载下的代数/宽度）以及主机缓冲区的 NUMA 位置</translation>
    </message>
    <message>
        <source>Check: %1</source>
        <translation>检查项：%1</translation>
    </message>
    <message>
        <source>checked %1</source>
        <translation>检查于 %1</translation>
    </message>
    <message>
        <source>Checks in this window</source>
        <translation>本时间窗内的检查</translation>
    </message>
    <message>
        <source>Choose a file</source>
        <translation>选择文件</translation>
    </message>
    <message>
        <source>Choose at least one benchmark.</source>
        <translation>请至少选择一项基准测试。</translation>
    </message>
    <message>
        <source>Choose the recording to write</source>
        <translation>选择要写入的录制文件</translation>
    </message>
    <message>
        <source>Choose the working folder</source>
        <translation>选择工作文件夹</translation>
    </message>
    <message>
        <source>Choose the working folder.</source>
        <translation>请选择工作文件夹。</translation>
    </message>
    <message>
        <source>Choose two or more result files (gpuprof check or bench --json).</source>
        <translation>请选择两个或更多结果文件（gpuprof check 或 bench --json）。</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Click a node or a GPU for its plots.</source>
        <translation>点击节点或 GPU 查看其曲线。</translation>
    </message>
    <message>
        <source>clock</source>
        <translation>时钟</translation>
    </message>
    <message>
        <source>clocks slowed under load: {r}</source>
        <translation>负载下时钟降频：{r}</translation>
    </message>
    <message>
        <source>Clocks were reduced: {what}.</source>
        <translation>时钟被降低：{what}。</translation>
    </message>
    <message>
        <source>Clocks — SM (bright), memory (pale)</source>
        <translation>时钟 — SM（亮色），显存（浅色）</translation>
    </message>
    <message>
        <source>Clocks — SM (memory clock: not drawn)</source>
        <translation>时钟 — SM（显存时钟：未绘制）</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Close gpuprof (Ctrl+Q)</source>
        <translation>关闭 gpuprof (Ctrl+Q)</translation>
    </message>
    <message>
        <source>Cloud configurations for a workload: fit, time and cost (Alt+7)</source>
        <translation>面向工作负载的云端配置：能否容纳、时间和成本 (Alt+7)</translation>
    </message>
    <message>
        <source>Cloud provider (&quot;local&quot; is this machine)</source>
        <translation>云厂商（&quot;local&quot; 为本机）</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Co&amp;mpare results…</source>
        <translation>比较结果(&amp;M)…</translation>
    </message>
    <message>
        <source>Co&amp;nnect</source>
        <translation>连接(&amp;N)</translation>
    </message>
    <message>
        <source>Co&amp;nnect to a machine…</source>
        <translation>连接到机器(&amp;N)…</translation>
    </message>
    <message>
        <source>Collective bus bandwidth vs size</source>
        <translation>集合通信总线带宽与消息大小</translation>
    </message>
    <message>
        <source>Collectives</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>collectives ({b}, {n} ranks)</source>
        <translation>集合通信（{b}，{n} 个 rank）</translation>
    </message>
    <message>
        <source>collectives kept (link unknown here), ring 2(n−1)/n</source>
        <translation>集合通信保持不变（本机链路未知），环形 2(n−1)/n</translation>
    </message>
    <message>
        <source>collectives not measured (one GPU here): ideal scaling assumed</source>
        <translation>未测得集合通信（本机只有一个 GPU）：假定理想扩展</translation>
    </message>
    <message>
        <source>collectives × {r} (link {a} → {b} GB/s, ring 2(n−1)/n)</source>
        <translation>集合通信 × {r}（链路 {a} → {b} GB/s，环形 2(n−1)/n）</translation>
    </message>
    <message>
        <source>Colour by:</source>
        <translation>着色依据：</translation>
    </message>
    <message>
        <source>comma-separated providers (aws,gcp,...)</source>
        <translation>逗号分隔的云厂商（aws,gcp,...）</translation>
    </message>
    <message>
        <source>comma-separated providers, e.g. aws,gcp (default: all six SkyPilot catalogs we read)</source>
        <translation>逗号分隔的云服务商，例如 aws,gcp（默认：我们读取的全部六个 SkyPilot 目录）</translation>
    </message>
    <message>
        <source>comma-separated subset: gemm,memory,p2p,collective,workload</source>
        <translation>逗号分隔的子集：gemm,memory,p2p,collective,workload</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>compare and show prices in this currency (default USD); rows published in another need its rate</source>
        <translation>以此货币比较和显示价格（默认 USD）；以其他货币公布的行需要其汇率</translation>
    </message>
    <message>
        <source>Compare and show prices in this currency, at the dated exchange rates set with gpuprof catalog fx --set CNY=RATE@YYYY-MM-DD</source>
        <translation>以此货币比较和显示价格，使用 gpuprof catalog fx --set CNY=汇率@YYYY-MM-DD 设置的带日期汇率</translation>
    </message>
    <message>
        <source>compare check or benchmark results of several machines side by side</source>
        <translation>并排对比多台机器的检查或基准测试结果</translation>
    </message>
    <message>
        <source>compare needs two different runs</source>
        <translation>比较需要两次不同的运行</translation>
    </message>
    <message>
        <source>Compare results</source>
        <translation>比较结果</translation>
    </message>
    <message>
        <source>Compare the run shown with an earlier one: the ratio column is shown ÷ earlier (&gt; 1: faster now)</source>
        <translation>将所显示的运行与以前的一次比较：比值列为 所显示 ÷ 以前（&gt; 1：现在更快）</translation>
    </message>
    <message>
        <source>compare two runs, measurement by measurement</source>
        <translation>逐项比较两次运行的测量结果</translation>
    </message>
    <message>
        <source>Compare with this machine</source>
        <translation>与本机比较</translation>
    </message>
    <message>
        <source>compare with this machine&apos;s GPUs, e.g. &apos;NVIDIA GeForce RTX 4090x2&apos;</source>
        <translation>与本机的 GPU 比较，例如 &apos;NVIDIA GeForce RTX 4090x2&apos;</translation>
    </message>
    <message>
        <source>Compare with:</source>
        <translation>比较对象：</translation>
    </message>
    <message>
        <source>composed {n} instances from GPU rows and their host VMs</source>
        <translation>已将 GPU 行与其宿主虚拟机组合为 {n} 个实例</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>算力</translation>
    </message>
    <message>
        <source>Compute (C), graphics (G) or both</source>
        <translation>计算（C）、图形（G）或两者</translation>
    </message>
    <message>
        <source>compute bound</source>
        <translation>受算力限制</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <source>compute capability {major}.{minor}: CUDA 12 dropped Kepler; current PyTorch builds need CUDA 11.7+ (seed) — check driver/toolkit compatibility</source>
        <translation>计算能力 {major}.{minor}：CUDA 12 已不再支持 Kepler；当前的 PyTorch 版本需要 CUDA 11.7+（种子文档）——请检查驱动/工具包兼容性</translation>
    </message>
    <message>
        <source>Compute mode</source>
        <translation>计算模式</translation>
    </message>
    <message>
        <source>compute {c} / memory {m}</source>
        <translation>计算 {c} / 访存 {m}</translation>
    </message>
    <message>
        <source>compute {c} / memory {m} / collectives {k}</source>
        <translation>计算 {c} / 访存 {m} / 集合通信 {k}</translation>
    </message>
    <message>
        <source>compute {c} / memory {m} / collectives {k} / idle {f}</source>
        <translation>计算 {c} / 访存 {m} / 集合通信 {k} / 空闲 {f}</translation>
    </message>
    <message>
        <source>compute {c} / memory {m} / idle {f}</source>
        <translation>计算 {c} / 访存 {m} / 空闲 {f}</translation>
    </message>
    <message>
        <source>compute × {g} more ({t}&apos;s fitted share of its peak ÷ {h}&apos;s)</source>
        <translation>计算再 × {g}（{t} 拟合的峰值比例 ÷ {h} 的）</translation>
    </message>
    <message>
        <source>compute × {r} ({d} peak {a} → {b} TFLOPS, efficiency here carried over)</source>
        <translation>计算 × {r}（{d} 峰值 {a} → {b} TFLOPS，沿用本机效率）</translation>
    </message>
    <message>
        <source>compute ×{r}</source>
        <translation>计算 ×{r}</translation>
    </message>
    <message>
        <source>computing-accelerated</source>
        <translation>计算加速型</translation>
    </message>
    <message>
        <source>Configurations ranked for the workload; click a header to sort, a row for its reasoning</source>
        <translation>针对该工作负载排序的配置；点击表头可排序，点击某行可查看其依据</translation>
    </message>
    <message>
        <source>Connect to &amp;Prometheus…</source>
        <translation>连接到 &amp;Prometheus…</translation>
    </message>
    <message>
        <source>Connect to a machine</source>
        <extracomment>What the URL field suggests: the SSH tunnel&apos;s end (README, &quot;One remote machine&quot;).</extracomment>
        <translation>连接到机器</translation>
    </message>
    <message>
        <source>Connect to Prometheus</source>
        <translation>连接到 Prometheus</translation>
    </message>
    <message>
        <source>Connected by %1 NVLinks</source>
        <translation>通过 %1 条 NVLink 连接</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>connection refused</source>
        <extracomment>Redirects are followed only to URLs :func:`catalog_url` would accept: an HTTPS server cannot send the download to plain HTTP elsewhere.</extracomment>
        <translation>连接被拒绝</translation>
    </message>
    <message>
        <source>connection refused (is Prometheus running there?)</source>
        <translation>连接被拒绝（Prometheus 是否在那里运行？）</translation>
    </message>
    <message>
        <source>connection refused: is `gpuprof exporter` running there (or the SSH tunnel open)?</source>
        <translation>连接被拒绝：对方是否在运行 `gpuprof exporter`（或 SSH 隧道是否已打开）？</translation>
    </message>
    <message>
        <source>constraints</source>
        <translation>约束条件</translation>
    </message>
    <message>
        <source>container %1</source>
        <translation>容器 %1</translation>
    </message>
    <message>
        <source>Container / pod</source>
        <translation>容器 / Pod</translation>
    </message>
    <message>
        <source>context parallel {c}</source>
        <translation>上下文并行 {c}</translation>
    </message>
    <message>
        <source>Converted at %1.</source>
        <extracomment>The job&apos;s columns, hidden for serving; the serving ones, hidden for a job. Right-aligned: the numbers (every price among them). The columns on the ranking&apos;s price basis: their headers name it (the Billing setting).</extracomment>
        <translation>按 %1 换算。</translation>
    </message>
    <message>
        <source>Copy bandwidth (largest size)</source>
        <translation>拷贝带宽（最大尺寸）</translation>
    </message>
    <message>
        <source>Copy bandwidth vs size</source>
        <translation>拷贝带宽与数据量</translation>
    </message>
    <message>
        <source>Copy bandwidth: host↔device pageable and pinned, on-device; host copies on a CPU</source>
        <translation>拷贝带宽：主机↔设备的可分页与锁页内存、设备内拷贝；CPU 上为主机内拷贝</translation>
    </message>
    <message>
        <source>Copy findings</source>
        <translation>复制检查结果</translation>
    </message>
    <message>
        <source>Copy the findings with their details and hints to the clipboard as plain text</source>
        <translation>将检查结果连同详细信息和提示以纯文本复制到剪贴板</translation>
    </message>
    <message>
        <source>Copy the window to the clipboard (Ctrl+Shift+C)</source>
        <translation>将窗口复制到剪贴板 (Ctrl+Shift+C)</translation>
    </message>
    <message>
        <source>cost</source>
        <translation>成本</translation>
    </message>
    <message>
        <source>Cost of the whole job on the price the ranking compares (Billing: on-demand, spot, reserved, or a monthly subscription in whole months), USD</source>
        <translation>整个作业按排名所比较价格计算的费用（计费方式：按需、竞价、预留，或按整月计费的包月），USD</translation>
    </message>
    <message>
        <source>Cost per million output tokens vs throughput per instance</source>
        <translation>每百万输出 token 成本与每实例吞吐量</translation>
    </message>
    <message>
        <source>cost per million output tokens, latency targets first</source>
        <translation>每百万输出 token 成本，优先满足延迟目标</translation>
    </message>
    <message>
        <source>Cost per million vs throughput per instance (log–log); ★ Pareto front</source>
        <translation>每百万成本与单实例吞吐（双对数）；★ 帕累托前沿</translation>
    </message>
    <message>
        <source>Cost: %1/h · %2 per million output tokens</source>
        <translation>成本：%1/小时 · 每百万输出 token %2</translation>
    </message>
    <message>
        <source>Costs in %1, converted at %2.</source>
        <translation>费用以 %1 计，按 %2 换算。</translation>
    </message>
    <message>
        <source>Costs in %1.</source>
        <translation>费用以 %1 计。</translation>
    </message>
    <message>
        <source>Could not load run %1: %2</source>
        <translation>无法加载运行 %1：%2</translation>
    </message>
    <message>
        <source>Could not prepare the demo history: %1</source>
        <extracomment>Delay before the demo history is built (ms): the pure-Python simulator would hold the GIL during start-up.</extracomment>
        <translation>无法准备演示历史数据：%1</translation>
    </message>
    <message>
        <source>Could not read the GPU details: %1</source>
        <translation>无法读取 GPU 详细信息：%1</translation>
    </message>
    <message>
        <source>Could not run the benchmarks: %1</source>
        <translation>无法运行基准测试：%1</translation>
    </message>
    <message>
        <source>Could not save the run: %1</source>
        <translation>无法保存本次运行：%1</translation>
    </message>
    <message>
        <source>could not write PDF {p}</source>
        <translation>无法写入 PDF {p}</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>cpu</source>
        <translation>cpu</translation>
    </message>
    <message>
        <source>CPU %</source>
        <translation>CPU %</translation>
    </message>
    <message>
        <source>CPU mean</source>
        <translation>CPU 平均</translation>
    </message>
    <message>
        <source>CPU only: no GPU health counters</source>
        <translation>仅 CPU：没有 GPU 健康计数器</translation>
    </message>
    <message>
        <source>CPU only: no GPU inventory (--device cpu or no NVML)</source>
        <translation>仅 CPU：没有 GPU 清单（--device cpu 或没有 NVML）</translation>
    </message>
    <message>
        <source>CPU peak</source>
        <translation>CPU 峰值</translation>
    </message>
    <message>
        <source>CPU utilization over all cores</source>
        <translation>所有核心的 CPU 利用率</translation>
    </message>
    <message>
        <source>CPU utilization over the last 2 minutes</source>
        <translation>最近 2 分钟的 CPU 利用率</translation>
    </message>
    <message>
        <source>Critical</source>
        <translation>严重</translation>
    </message>
    <message>
        <source>critical</source>
        <translation>严重</translation>
    </message>
    <message>
        <source>critical XID errors during the check</source>
        <translation>检查期间出现严重 XID 错误</translation>
    </message>
    <message>
        <source>CSV file to write (&apos;-&apos; for standard output)</source>
        <translation>要写入的 CSV 文件（&apos;-&apos; 表示标准输出）</translation>
    </message>
    <message>
        <source>CSV files (*.csv *.txt);;All files (*)</source>
        <translation>CSV 文件 (*.csv *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>CSV: one row per GPU per sample</source>
        <translation>CSV：每个 GPU 每次采样一行</translation>
    </message>
    <message>
        <source>Ctrl-C to stop</source>
        <translation>按 Ctrl-C 停止</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>CUDA (driver)</source>
        <translation>CUDA（驱动）</translation>
    </message>
    <message>
        <source>CUDA and NVML device order matched by index (PCI bus ids unavailable)</source>
        <translation>CUDA 与 NVML 的设备顺序按索引对应（无法获取 PCI 总线 ID）</translation>
    </message>
    <message>
        <source>CUDA devices unknown: %1</source>
        <translation>CUDA 设备未知：%1</translation>
    </message>
    <message>
        <source>cuda:N (N: the GPU&apos;s number as nvidia-smi shows it, whatever CUDA_VISIBLE_DEVICES says), all or cpu (default all)</source>
        <translation>cuda:N（N：nvidia-smi 显示的 GPU 编号，与 CUDA_VISIBLE_DEVICES 无关）、&apos;all&apos; 或 &apos;cpu&apos;（默认 &apos;all&apos;）</translation>
    </message>
    <message>
        <source>cuda:N or cpu (default: cuda:0 if available)</source>
        <translation>cuda:N 或 cpu（默认：有 cuda:0 时使用 cuda:0）</translation>
    </message>
    <message>
        <source>cuda:N, all or cpu</source>
        <translation>cuda:N、all 或 cpu</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>货币</translation>
    </message>
    <message>
        <source>Custom workload</source>
        <extracomment>The preset key of a workload typed in by hand. Workload fields of serving traffic (issue 22): kept only when the scenario is inference. A field changed (not emitted while :attr:`filling`). The preset the form started from (its hidden fields carry over), or ``None``. True while the form is being filled by code: no ``changed`` per field.</extracomment>
        <translation>自定义工作负载</translation>
    </message>
    <message>
        <source>CV training (ResNet-50)</source>
        <translation>CV 训练（ResNet-50）</translation>
    </message>
    <message>
        <source>CV training (ResNet-50, ImageNet, 90 epochs, bf16)</source>
        <translation>CV 训练（ResNet-50，ImageNet，90 轮，bf16）</translation>
    </message>
    <message>
        <source>Data an HPC or rendering job keeps in GPU memory, split across the GPUs</source>
        <translation>HPC 或渲染作业驻留在 GPU 显存中的数据，分摊到各 GPU</translation>
    </message>
    <message>
        <source>data is not an object</source>
        <translation>data 不是对象</translation>
    </message>
    <message>
        <source>data parallel with the per-GPU work of here: {n} GPU there for {h} here (× {r})</source>
        <translation>按本机每 GPU 的工作量数据并行：目标 {n} 个 GPU 对应本机 {h} 个（× {r}）</translation>
    </message>
    <message>
        <source>data parallel with the per-GPU work of here: {n} GPUs there for {h} here (× {r})</source>
        <translation>按本机每 GPU 的工作量数据并行：目标 {n} 个 GPU 对应本机 {h} 个（× {r}）</translation>
    </message>
    <message>
        <source>Data-loader wait: %1 a step</source>
        <translation>数据加载等待：每步 %1</translation>
    </message>
    <message>
        <source>Date of the prices in this row (prices change; check the provider)</source>
        <translation>本行价格的日期（价格会变动，请向云厂商核实）</translation>
    </message>
    <message>
        <source>dated only {d}: give the day the row was read (where the source has no date, the day its copy was read, and a notes clause &apos;snapshot date: why&apos;)</source>
        <extracomment>A notes clause ``snapshot date: why``: the row&apos;s date is the day its source was copied or read by gpuprof, the source itself carrying none (its prices may be older). How far a per-GPU-hour price may sit from its model&apos;s median (a 1-GPU VM with a 64-vCPU host is 4.5x the T4 median: AWS g4dn.16xlarge). The most a note&apos;s price may differ from the row&apos;s nearest price before it disagrees. Per GPU-hour, in USD: below and above these no offer exists. The GPU count some providers write into the instance name.</extracomment>
        <translation>只标注到 {d}：请给出读取该行的日期（来源没有日期时，给出读取其副本的日期，并在备注中加一句 &apos;snapshot date: why&apos;）</translation>
    </message>
    <message>
        <source>Deadline</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <source>deadline</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <source>deadline and budget</source>
        <translation>截止时间和预算</translation>
    </message>
    <message>
        <source>derivation</source>
        <translation>推算依据</translation>
    </message>
    <message>
        <source>derived: spec peak {p} {u} × {r} (typical ratio, not published)</source>
        <translation>推算值：规格峰值 {p} {u} × {r}（典型比例，未公开发布）</translation>
    </message>
    <message>
        <source>desktop app</source>
        <translation>桌面应用</translation>
    </message>
    <message>
        <source>destination GPU</source>
        <translation>目标 GPU</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>device must be cpu or cuda:N, got {d!r}</source>
        <translation>设备必须是 cpu 或 cuda:N，实际为 {d!r}</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>diagnostics</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>Differs by more than %1% between the two machines</source>
        <translation>两台机器之间相差超过 %1%</translation>
    </message>
    <message>
        <source>Disable MIG for whole-GPU work: `sudo nvidia-smi -i {i} -mig 0` and reset the GPU.</source>
        <translation>如需整卡运行，请禁用 MIG：`sudo nvidia-smi -i {i} -mig 0`，然后重置 GPU。</translation>
    </message>
    <message>
        <source>Disabled</source>
        <translation>已禁用</translation>
    </message>
    <message>
        <source>disk %1 read / %2 write
net %3 in / %4 out</source>
        <translation>磁盘 读 %1 / 写 %2
网络 入 %3 / 出 %4</translation>
    </message>
    <message>
        <source>Disk r/w</source>
        <translation>磁盘读/写</translation>
    </message>
    <message>
        <source>Disk read</source>
        <translation>磁盘读取</translation>
    </message>
    <message>
        <source>Disk read/write and network receive/send rates</source>
        <translation>磁盘读/写速率和网络接收/发送速率</translation>
    </message>
    <message>
        <source>Disk written</source>
        <translation>磁盘写入</translation>
    </message>
    <message>
        <source>display clock setting</source>
        <translation>显示时钟设置</translation>
    </message>
    <message>
        <source>Display error: %1</source>
        <translation>显示错误：%1</translation>
    </message>
    <message>
        <source>Do more math per byte: fuse element-wise operations (torch.compile), use fused kernels such as FlashAttention, larger batches, and BF16/FP8 activations. A GPU with more memory bandwidth helps this job more than one with more FLOPS.</source>
        <translation>提高每字节的计算量：融合逐元素运算（torch.compile），使用 FlashAttention 等融合内核、更大的批量以及 BF16/FP8 激活值。对这个任务而言，显存带宽更高的 GPU 比 FLOPS 更高的 GPU 更有帮助。</translation>
    </message>
    <message>
        <source>do not ask for confirmation (needed when input is not a terminal)</source>
        <translation>不询问确认（输入不是终端时必须使用）</translation>
    </message>
    <message>
        <source>do not store the run in the results database</source>
        <translation>不将本次运行存入结果数据库</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>无法容纳</translation>
    </message>
    <message>
        <source>does not fit: needs {need} per GPU, {usable} usable on {gpu} even on {nodes} node(s)</source>
        <translation>无法容纳：每 GPU 需 {need}，而 {gpu} 即使用 {nodes} 个节点也只有 {usable} 可用</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>done in %1</source>
        <translation>用时 %1 完成</translation>
    </message>
    <message>
        <source>Double-bit ECC errors on {g}</source>
        <translation>{g} 上出现双比特 ECC 错误</translation>
    </message>
    <message>
        <source>doubtful catalog row: {why}</source>
        <extracomment>A throughput target: instances that together sustain it, and their cost per million tokens (or samples); ``price_per_hour_usd`` / ``cost_usd`` are then for all of them. Training: (tensor, pipeline, data) parallel sizes of the estimate; None otherwise. Training (issue 23): context parallel size and virtual pipeline stages per GPU. Training a mixture of experts: the expert-parallel size (1: dense, or none chosen). Serving traffic: the continuous-batching estimate (then ``hours`` is None and every ``cost_*`` is USD per hour of ``instances_needed`` instances); None for a job. LLM training: the error band of ``hours`` and ``cost_usd`` from the cross-validated errors of comparable published runs (:mod:`gpuprof.recommend.band`); None otherwise. A monthly subscription (包月): a job in whole months (at least one) of its instances; serving: one month (730 h) of ``instances_needed`` instances. None: no monthly price. Serving: the cost per million output tokens of those instances on the monthly price. (hours, cost_usd, pareto) of every viable candidate with both numbers: the scatter plot. Serving: (output tokens/s per instance, USD per million output tokens, pareto). What the scatter&apos;s two numbers are: (&quot;hours&quot;, &quot;cost_usd&quot;) or, for serving, (&quot;tokens_per_s_per_instance&quot;, &quot;usd_per_million&quot;). Serving: the estimate arrays and each row&apos;s index in them (for a trace simulation). Issue 23: nothing priced meets the deadline or budget within ``node_limit`` nodes, but this many would (the smallest power of two tried), and the sentence that says so. A job: the shortest time of any candidate that fits, priced or not, shown or not (the rows shown may be the cheapest few, each at its cheapest node count).</extracomment>
        <translation>存疑的目录行：{why}</translation>
    </message>
    <message>
        <source>doubtful: {why}</source>
        <translation>存疑：{why}</translation>
    </message>
    <message>
        <source>down</source>
        <extracomment>One cell, computed once per refresh: its data by role, set in one call. A cell that holds no GPU is None (no item).</extracomment>
        <translation>已停止</translation>
    </message>
    <message>
        <source>down / stale</source>
        <translation>离线 / 过期</translation>
    </message>
    <message>
        <source>download SkyPilot&apos;s current catalogs (prices dated the fetch day)</source>
        <translation>下载 SkyPilot 当前的目录（价格日期为下载当天）</translation>
    </message>
    <message>
        <source>Download SkyPilot&apos;s current cloud catalogs (only when you press this)</source>
        <translation>下载 SkyPilot 当前的云目录（仅在按下此按钮时）</translation>
    </message>
    <message>
        <source>Drain the GPU, reset it, and run a diagnostic (dcgmi diag -r 3); if errors return, ask for an RMA.</source>
        <translation>排空该 GPU 上的作业，重置它，并运行诊断（dcgmi diag -r 3）；如果错误再次出现，请申请 RMA。</translation>
    </message>
    <message>
        <source>Drain the node, then run `gpuprof check` or nvidia-smi -q on it.</source>
        <translation>先排空该节点，再在其上运行 `gpuprof check` 或 nvidia-smi -q。</translation>
    </message>
    <message>
        <source>DRAM</source>
        <translation>DRAM 显存</translation>
    </message>
    <message>
        <source>DRAM bandwidth active</source>
        <translation>DRAM 带宽活动率</translation>
    </message>
    <message>
        <source>DRAM was active {m} of the cycles while the tensor cores were active {t} (SMs {s}), for {d}: the work waits on memory bandwidth, not on math.</source>
        <translation>DRAM 在 {m} 的周期内处于活动状态，而 Tensor Core 活动率为 {t}（SM 为 {s}），持续 {d}：工作在等待显存带宽，而不是计算。</translation>
    </message>
    <message>
        <source>Draw the pale series too: memory utilization, memory clock, PCIe and NVLink transmit.
By default they are drawn only while %1 or fewer GPUs are plotted, which keeps the plots legible and the redraws cheap.
Tick or untick to choose yourself; the choice is remembered.</source>
        <translation>同时绘制浅色的次要序列：显存利用率、显存时钟、PCIe 和 NVLink 发送。
默认仅在绘制的 GPU 不超过 %1 个时才绘制它们，以保持曲线清晰、重绘开销低。
勾选或取消勾选可自行决定；你的选择会被记住。</translation>
    </message>
    <message>
        <source>drew {p:.0f} W against a limit of {l:.0f} W</source>
        <translation>功耗 {p:.0f} W，上限为 {l:.0f} W</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>驱动</translation>
    </message>
    <message>
        <source>driver</source>
        <translation>驱动</translation>
    </message>
    <message>
        <source>Driver %1</source>
        <translation>驱动 %1</translation>
    </message>
    <message>
        <source>driver %1</source>
        <translation>驱动 %1</translation>
    </message>
    <message>
        <source>Driver %1 · CUDA %2</source>
        <translation>驱动 %1 · CUDA %2</translation>
    </message>
    <message>
        <source>driver version unknown</source>
        <translation>驱动版本未知</translation>
    </message>
    <message>
        <source>driver {v}</source>
        <translation>驱动 {v}</translation>
    </message>
    <message>
        <source>drop the GPU series when no poll succeeded for S seconds (gpuprof_source_up is 0 then; default: 3 intervals, at least 5 s)</source>
        <translation>若 S 秒内没有一次采样成功，则不再提供 GPU 指标（此时 gpuprof_source_up 为 0；默认：3 个采样间隔，至少 5 秒）</translation>
    </message>
    <message>
        <source>dtype {d} assumed (the step markers name none)</source>
        <translation>假定数据类型为 {d}（步骤标记未指明）</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>duration must be &gt; 0: {t!r}</source>
        <translation>时长必须 &gt; 0：{t!r}</translation>
    </message>
    <message>
        <source>e.g. 20</source>
        <translation>例如 20</translation>
    </message>
    <message>
        <source>e.g. 200B</source>
        <translation>例如 200B</translation>
    </message>
    <message>
        <source>e.g. 2s</source>
        <translation>例如 2s</translation>
    </message>
    <message>
        <source>e.g. 5000</source>
        <translation>例如 5000</translation>
    </message>
    <message>
        <source>e.g. 50ms</source>
        <translation>例如 50ms</translation>
    </message>
    <message>
        <source>e.g. 72h</source>
        <translation>例如 72h</translation>
    </message>
    <message>
        <source>e.g. 7B</source>
        <translation>例如 7B</translation>
    </message>
    <message>
        <source>e.g. 8xH100-SXM</source>
        <translation>例如 8xH100-SXM</translation>
    </message>
    <message>
        <source>e.g. cn-hangzhou, ap-guangzhou</source>
        <translation>例如 cn-hangzhou、ap-guangzhou</translation>
    </message>
    <message>
        <source>each GPU&apos;s own spec row</source>
        <translation>每块 GPU 自己的规格行</translation>
    </message>
    <message>
        <source>Each point is one configuration that fits: estimated time against job cost, both on log scales. Orange points joined by a line are the Pareto front. Click a point to select its row.</source>
        <translation>每个点是一种可容纳的配置：预计时间对作业成本，两轴均为对数刻度。以线相连的橙色点构成帕累托前沿。点击某个点可选中对应的行。</translation>
    </message>
    <message>
        <source>Each point is one configuration that fits: output tokens per second one instance sustains against the cost per million output tokens of the instances the traffic needs, both on log scales. Orange points joined by a line are the Pareto front. Click a point to select its row.</source>
        <translation>每个点是一个放得下的配置：单个实例可维持的每秒输出 token 数，对比满足流量所需实例的每百万输出 token 成本，两轴均为对数刻度。连线的橙色点是帕累托前沿。点击一个点可选中对应行。</translation>
    </message>
    <message>
        <source>ECC counters not available</source>
        <translation>ECC 计数器不可用</translation>
    </message>
    <message>
        <source>ECC mode</source>
        <translation>ECC 模式</translation>
    </message>
    <message>
        <source>ECC not supported</source>
        <translation>不支持 ECC</translation>
    </message>
    <message>
        <source>eff.</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>Efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>Efficiency source</source>
        <translation>效率来源</translation>
    </message>
    <message>
        <source>Efficiency: %1 = base %2 × scaling %3 (%4)</source>
        <translation>效率：%1 = 基准 %2 × 扩展系数 %3（%4）</translation>
    </message>
    <message>
        <source>Enable the persistence daemon (systemctl enable --now nvidia-persistenced) or run `sudo nvidia-smi -pm 1`.</source>
        <translation>启用持久化守护进程（systemctl enable --now nvidia-persistenced）或运行 `sudo nvidia-smi -pm 1`。</translation>
    </message>
    <message>
        <source>Enabled</source>
        <translation>已启用</translation>
    </message>
    <message>
        <source>End the selected process at once (SIGKILL)</source>
        <translation>立即结束所选进程 (SIGKILL)</translation>
    </message>
    <message>
        <source>Ended (exit code %1)</source>
        <translation>已结束（退出码 %1）</translation>
    </message>
    <message>
        <source>Ended (killed)</source>
        <translation>已结束（被终止）</translation>
    </message>
    <message>
        <source>ended by %1</source>
        <translation>因 %1 结束</translation>
    </message>
    <message>
        <source>Energy</source>
        <translation>能耗</translation>
    </message>
    <message>
        <source>Energy:</source>
        <translation>能耗：</translation>
    </message>
    <message>
        <source>Enter the command to profile.</source>
        <extracomment>Set by the profiler for the job: an addition of the user&apos;s would be overwritten. Recently used recordings kept for File → Job profiles….</extracomment>
        <translation>请输入要分析的命令。</translation>
    </message>
    <message>
        <source>Environment line %1 holds a NUL character.</source>
        <translation>环境变量第 %1 行包含 NUL 字符。</translation>
    </message>
    <message>
        <source>Environment line %1 is not KEY=VALUE: %2</source>
        <translation>环境变量第 %1 行不是 KEY=VALUE 形式：%2</translation>
    </message>
    <message>
        <source>Environment line %1: %2 is set by the profiler itself.</source>
        <translation>环境变量第 %1 行：%2 由分析器自行设置。</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境变量：</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>error band {span}{cost}: {lo:g}th–{hi:g}th percentile of the errors on {n} comparable published runs not fitted to ({basis})</source>
        <translation>误差范围 {span}{cost}：{n} 个未参与拟合的可比公开运行的误差的第 {lo:g}–{hi:g} 百分位（{basis}）</translation>
    </message>
    <message>
        <source>error band × {lo:.2f}–{hi:.2f}: 10th–90th percentile over {n} {basis}</source>
        <translation>误差带 × {lo:.2f}–{hi:.2f}：基于 {n} 个{basis}的第 10–90 百分位</translation>
    </message>
    <message>
        <source>Error band: %1 (10th–90th percentile of the errors on %2 comparable published runs not fitted to: %3)</source>
        <translation>误差范围：%1（%2 个未参与拟合的可比公开运行的误差的第 10–90 百分位：%3）</translation>
    </message>
    <message>
        <source>estimate one configuration instead of ranking</source>
        <translation>只估算一种配置，不做排序</translation>
    </message>
    <message>
        <source>Estimated wall-clock time of the job, hours (spot: +10% for restarts)</source>
        <translation>作业的预计墙钟时间，小时（竞价：重启另加 10%）</translation>
    </message>
    <message>
        <source>even the fastest candidate needs {t}, beyond any plan: check the workload&apos;s numbers</source>
        <translation>即使最快的候选也需要 {t}，超出任何计划：请检查工作负载的数值</translation>
    </message>
    <message>
        <source>every %1 s</source>
        <translation>每 %1 s</translation>
    </message>
    <message>
        <source>Every check the Health tab runs</source>
        <extracomment>Finding codes per entry of :meth:`HealthTab.checks`, in the same order.</extracomment>
        <translation>健康标签页运行的所有检查</translation>
    </message>
    <message>
        <source>Every measurement of the run shown; failed and skipped cases say why</source>
        <translation>所显示运行的每项测量；失败和跳过的用例会说明原因</translation>
    </message>
    <message>
        <source>every {s} s</source>
        <translation>每 {s} 秒</translation>
    </message>
    <message>
        <source>Executable name</source>
        <translation>可执行文件名</translation>
    </message>
    <message>
        <source>Exit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <extracomment>:func:`gpuprof.profile.project.project`: the job on every catalog instance. Rows shown in the projection table (the catalog has thousands; the best come first).</extracomment>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>exit code unknown (attached)</source>
        <translation>退出码未知（附加模式）</translation>
    </message>
    <message>
        <source>exit code {c}</source>
        <translation>退出码 {c}</translation>
    </message>
    <message>
        <source>Exit:</source>
        <translation>退出：</translation>
    </message>
    <message>
        <source>Expect:</source>
        <translation>预期：</translation>
    </message>
    <message>
        <source>Expected</source>
        <translation>预期</translation>
    </message>
    <message>
        <source>expected</source>
        <translation>预期</translation>
    </message>
    <message>
        <source>expected %s argument</source>
        <translation>需要 %s 个参数</translation>
    </message>
    <message>
        <source>expected %s arguments</source>
        <translation>需要 %s 个参数</translation>
    </message>
    <message>
        <source>expected , between matchers</source>
        <translation>匹配器之间应有逗号 ,</translation>
    </message>
    <message>
        <source>expected 3 fields (arrival_s, prompt_tokens, output_tokens), got {k}</source>
        <translation>应有 3 个字段（arrival_s、prompt_tokens、output_tokens），实际为 {k} 个</translation>
    </message>
    <message>
        <source>expected =, !=, =~ or !~</source>
        <translation>应为 =、!=、=~ 或 !~</translation>
    </message>
    <message>
        <source>expected a file name, got {t!r}</source>
        <translation>需要文件名，得到的是 {t!r}</translation>
    </message>
    <message>
        <source>expected a label name</source>
        <translation>应为标签名</translation>
    </message>
    <message>
        <source>expected a number, got {t!r}</source>
        <translation>应为数字，实际为 {t!r}</translation>
    </message>
    <message>
        <source>expected a quoted value</source>
        <translation>应为带引号的值</translation>
    </message>
    <message>
        <source>expected a whole number, got {t!r}</source>
        <translation>需要整数，得到的是 {t!r}</translation>
    </message>
    <message>
        <source>expected at least one argument</source>
        <translation>至少需要一个参数</translation>
    </message>
    <message>
        <source>expected at most one argument</source>
        <translation>至多需要一个参数</translation>
    </message>
    <message>
        <source>expected one argument</source>
        <translation>需要一个参数</translation>
    </message>
    <message>
        <source>expert parallel {e}</source>
        <translation>专家并行 {e}</translation>
    </message>
    <message>
        <source>experts need 1 to experts routed per token and expert parameters &lt; total</source>
        <translation>专家模型需要每个 token 路由 1 到 experts 个专家，且专家参数小于总参数</translation>
    </message>
    <message>
        <source>Export &amp;HTML…</source>
        <translation>导出 HTML(&amp;H)…</translation>
    </message>
    <message>
        <source>Export &amp;JSON…</source>
        <translation>导出 JSON(&amp;J)…</translation>
    </message>
    <message>
        <source>Export &amp;report…</source>
        <extracomment>The last acceptance check run in this window (the Check feature announces it).</extracomment>
        <translation>导出报告(&amp;R)…</translation>
    </message>
    <message>
        <source>export a recorded session</source>
        <translation>导出录制的会话</translation>
    </message>
    <message>
        <source>Export re&amp;port…</source>
        <translation>导出报告(&amp;P)…</translation>
    </message>
    <message>
        <source>Export report</source>
        <extracomment>Paper and ink of the report preview (the report&apos;s HTML text colour, on white). The preview was filled in (after each build).</extracomment>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Export the check</source>
        <translation>导出检查结果</translation>
    </message>
    <message>
        <source>exporter</source>
        <translation>导出器</translation>
    </message>
    <message>
        <source>Exporter down on {n}</source>
        <translation>{n} 上的导出器已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>failed: destination differs from source after the copy</source>
        <translation>失败：拷贝后目标与源数据不一致</translation>
    </message>
    <message>
        <source>failed: received data differs from what was sent</source>
        <translation>失败：收到的数据与发送的不一致</translation>
    </message>
    <message>
        <source>failed: wrong values after the collective</source>
        <translation>失败：集合通信后的数值错误</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Fastest within the budget</source>
        <translation>预算内最快的配置</translation>
    </message>
    <message>
        <source>fastest within the budget</source>
        <translation>预算内最快的配置</translation>
    </message>
    <message>
        <source>fewer than two result files could be read ({w})</source>
        <translation>可读取的结果文件少于两个（{w}）</translation>
    </message>
    <message>
        <source>Fewer than two result files could be read: add more.</source>
        <translation>可读取的结果文件少于两个：请再添加。</translation>
    </message>
    <message>
        <source>fewer XGMI links than the spec</source>
        <translation>XGMI 链路数少于规格</translation>
    </message>
    <message>
        <source>Fields this GPU does not report, each with the reason the driver gave</source>
        <translation>此 GPU 不报告的字段，以及驱动给出的原因</translation>
    </message>
    <message>
        <source>figures from a seed document, not verified against a catalog</source>
        <translation>数据来自种子文档，未经目录核实</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>File format</source>
        <translation>文件格式</translation>
    </message>
    <message>
        <source>file to write (default: FILE with .recovered before its suffix)</source>
        <translation>要写入的文件（默认：在 FILE 的后缀前加 .recovered）</translation>
    </message>
    <message>
        <source>FILE.html, FILE.pdf, FILE.json or FILE.png</source>
        <extracomment>File suffix → format.</extracomment>
        <translation>FILE.html、FILE.pdf、FILE.json 或 FILE.png</translation>
    </message>
    <message>
        <source>Fill the form with one of the seed documents&apos; scenarios; edit any field afterwards</source>
        <translation>用种子文档中的某个场景填充表单；之后可修改任意字段</translation>
    </message>
    <message>
        <source>Filter by pid, user, name, command line or container</source>
        <translation>按 PID、用户、名称、命令行或容器过滤</translation>
    </message>
    <message>
        <source>filter: cluster=a job=dcgm node=…</source>
        <extracomment>The client ``gpuprof --prometheus URL`` made (checked before the window opens); the first window built opens its Fleet tab on it. Qt&apos;s QWIDGETSIZE_MAX (PySide6 does not export it): no maximum height. The window&apos;s banner (no GPU here, a GPU lost, ...) is about its own source, not the fleet: it is hidden on this tab, which has a banner of its own.</extracomment>
        <translation>筛选：cluster=a job=dcgm node=…</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>检查结果</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>Findings, most urgent first; select one to see what it means and what to do</source>
        <translation>检查结果，最紧急的在前；选中一项可查看其含义和处理方法</translation>
    </message>
    <message>
        <source>Findings:</source>
        <translation>发现的问题：</translation>
    </message>
    <message>
        <source>Fine-tuning (full)</source>
        <translation>微调（全量）</translation>
    </message>
    <message>
        <source>Fine-tuning (LoRA)</source>
        <translation>微调（LoRA）</translation>
    </message>
    <message>
        <source>finish within, e.g. 72h or 3d</source>
        <translation>完成时限，例如 72h 或 3d</translation>
    </message>
    <message>
        <source>Finish within, e.g. 72h, 3d, 90m; empty: no deadline</source>
        <translation>完成时限，例如 72h、3d、90m；留空：无截止时间</translation>
    </message>
    <message>
        <source>First page: the acceptance check, verdict %1</source>
        <translation>第一页：验收检查，结论 %1</translation>
    </message>
    <message>
        <source>first sample</source>
        <translation>首个样本</translation>
    </message>
    <message>
        <source>fit not checked (no memory peak)</source>
        <translation>未检查能否放下（无显存峰值）</translation>
    </message>
    <message>
        <source>fit not checked (no memory size for this GPU)</source>
        <translation>未检查能否放下（此 GPU 无显存容量数据）</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>可容纳</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>可容纳</translation>
    </message>
    <message>
        <source>fits: {need} per GPU of {mem} ({share:.0%}): the weights, one step&apos;s activations and the KV cache in {kv:.0%} of the rest</source>
        <translation>可容纳：每 GPU {need}，共 {mem}（{share:.0%}）：权重、一步的激活，以及占其余 {kv:.0%} 的 KV 缓存</translation>
    </message>
    <message>
        <source>fits: {need} per GPU of {mem} ({share:.0%}; limit {limit:.0%} keeps {headroom:.0%} headroom)</source>
        <translation>可容纳：每 GPU 需 {need}，显存 {mem}（{share:.0%}；上限 {limit:.0%}，保留 {headroom:.0%} 余量）</translation>
    </message>
    <message>
        <source>fitted to {n} published training runs of {s} publications (perf/truth.py, leave-one-source-out cross-validated): achieved share of the matmul peak per stack, the attention&apos;s own share, plus the memory-bound operators&apos; bytes at 70% of the memory bandwidth</source>
        <extracomment>Framework families with their own efficiency. ``tuned``: Megatron-LM, NeMo, Megatron-Core and hand-tuned in-house stacks (Meta&apos;s Llama runs, llm.c) — the default: a well-tuned stack. A stack whose constant was not fitted (no rows in the fit) uses this one&apos;s: torchtitan is built on FSDP2, DeepSpeed&apos;s ZeRO shards like FSDP, FSDP falls back on the tuned default. The share of the matmul peak a GPU architecture reaches relative to Ampere&apos;s (1). Time × this with full activation recomputation (4/3 in FLOPs; less in practice: the larger micro-batches it allows run the GEMMs better). FP8 matmuls in a stack other than the tuned default reach this share of the tuned FP8 recipe&apos;s (Transformer Engine) rate. A whole pretraining run takes (1 + this) × its steady-state time: restarts after failures, checkpoints, evaluations (published GPU-hours against steady throughput). The attention score/context matmuls (``12·L·h·s`` FLOPs per token, the full ``s × s``) reach this share of the 16-bit peak on Ampere (× :attr:`generation` elsewhere); None: the stack&apos;s GEMM share. Fused attention kernels (FlashAttention) are not GEMMs: they skip the masked half of a causal product but run their softmax between the matmuls. :attr:`attention` of an architecture relative to Ampere&apos;s: attention kernels gain less from a new generation than GEMMs (FlashAttention-2 on H100 reaches 35 % of the peak where a GEMM reaches 70-80 %: Shah et al. 2024, &quot;FlashAttention-3&quot;, arXiv 2407.08608). A stack other than the tuned default runs its attention at this share of the tuned stack&apos;s, per architecture (missing: 1). Megatron-Core and NeMo run Transformer Engine&apos;s fused attention (cuDNN), which on Hopper reaches what FlashAttention-3 does (~75 % of an H100&apos;s peak) where FlashAttention-2, the kernel of PyTorch SDPA and flash-attn stacks (llm-foundry, torchtitan), reaches ~35 % (Shah et al. 2024, arXiv 2407.08608); on Ampere both are FlashAttention-2-class kernels: a Hopper factor only. Fitted by ``perf/truth.py`` on the 80 training rows of 12 publications (68 on GPUs the catalog has, 12 of torchtitan&apos;s H100 runs as ratios within their run; it prints the refit; ``tests/test_recommend_crossval.py`` checks these are it). Only ``tuned`` (NeMo, Korthikanti 2022, the Llama papers and cards, llm.c) and ``fsdp`` (llm-foundry, OPT) are seen in two or more publications; ``torchtitan`` and ``deepspeed`` (one each) follow :data:`FALLBACK`.</extracomment>
        <translation>由 {s} 份出版物的 {n} 个公开训练运行拟合（perf/truth.py，留一来源交叉验证）：各框架达到的矩阵乘峰值比例、注意力计算自身的比例，加上受内存带宽限制的算子字节数（按内存带宽的 70%）</translation>
    </message>
    <message>
        <source>Fix the input pipeline before buying a bigger GPU: more DataLoader workers, pin_memory, prefetching, faster storage, larger batches.</source>
        <translation>先修好输入管道，再考虑购买更大的 GPU：增加 DataLoader worker 数、启用 pin_memory、预取、使用更快的存储、加大批大小。</translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>FLOPs / sample</source>
        <translation>FLOPs / 样本</translation>
    </message>
    <message>
        <source>FLOPs per sample (CNNs, per-query inference); overrides 2·N / 6·N per token</source>
        <translation>每个样本的 FLOPs（CNN、逐查询推理）；覆盖按 token 计的 2·N / 6·N</translation>
    </message>
    <message>
        <source>FLOPs total</source>
        <translation>FLOPs 总量</translation>
    </message>
    <message>
        <source>folder {p} does not exist</source>
        <translation>文件夹 {p} 不存在</translation>
    </message>
    <message>
        <source>For https://: the CA certificate (PEM) that signed the exporter&apos;s</source>
        <translation>用于 https://：签发导出器证书的 CA 证书（PEM）</translation>
    </message>
    <message>
        <source>For this workload</source>
        <translation>针对此工作负载</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>Formulas used</source>
        <translation>所用公式</translation>
    </message>
    <message>
        <source>fp32, bf16, fp16, fp8, int8, int4</source>
        <translation>fp32、bf16、fp16、fp8、int8、int4</translation>
    </message>
    <message>
        <source>fp32, bf16, fp16, fp8, int8, int4 (default bf16)</source>
        <translation>fp32、bf16、fp16、fp8、int8、int4（默认 bf16）</translation>
    </message>
    <message>
        <source>FP64 rate of {gpu} is not in the sources</source>
        <translation>资料中没有 {gpu} 的 FP64 算力</translation>
    </message>
    <message>
        <source>FP64 risk simulation</source>
        <translation>FP64 风险模拟</translation>
    </message>
    <message>
        <source>FP64 risk simulation (1 EFLOP FP64)</source>
        <translation>FP64 风险模拟（1 EFLOP FP64）</translation>
    </message>
    <message>
        <source>FP8 needs a CUDA GPU with compute capability &gt;= 8.9</source>
        <translation>FP8 需要计算能力 &gt;= 8.9 的 CUDA GPU</translation>
    </message>
    <message>
        <source>FP8 needs compute capability &gt;= 8.9 (this GPU: {a}.{b})</source>
        <translation>FP8 需要计算能力 &gt;= 8.9（本 GPU：{a}.{b}）</translation>
    </message>
    <message>
        <source>FP8 on AMD GPUs needs MI300 (gfx942) or MI350 (gfx950) (this GPU: {a})</source>
        <translation>AMD GPU 上的 FP8 需要 MI300（gfx942）或 MI350（gfx950）（此 GPU：{a}）</translation>
    </message>
    <message>
        <source>Freeze the plots; sampling and recording go on (Space)</source>
        <translation>冻结曲线；采样和录制继续进行 (Space)</translation>
    </message>
    <message>
        <source>Freeze the plots; sampling goes on (Ctrl+P)</source>
        <translation>冻结曲线；采样继续进行 (Ctrl+P)</translation>
    </message>
    <message>
        <source>From</source>
        <translation>起始</translation>
    </message>
    <message>
        <source>Full command line; hover a row to read it all</source>
        <translation>完整命令行；将鼠标悬停在行上可查看全部</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <source>GCP GPU attachment: price excludes the n1 host VM</source>
        <translation>GCP 挂载式 GPU：价格不含 n1 宿主虚拟机</translation>
    </message>
    <message>
        <source>GEMM</source>
        <translation>GEMM</translation>
    </message>
    <message>
        <source>GEMM throughput by size (dashed: spec peak)</source>
        <extracomment>One colour per GEMM dtype, the same in every run. A benchmark family&apos;s result type.</extracomment>
        <translation>各尺寸的 GEMM 吞吐（虚线：规格峰值）</translation>
    </message>
    <message>
        <source>GEMM throughput vs spec peak</source>
        <translation>GEMM 吞吐与规格峰值</translation>
    </message>
    <message>
        <source>GEMM, memory, P2P, collective and training-step benchmarks (Alt+6)</source>
        <translation>GEMM、内存、P2P、集合通信和训练步基准测试 (Alt+6)</translation>
    </message>
    <message>
        <source>Gen {g} x{w}, while other {m} GPUs reach Gen {bg} x{bw}.</source>
        <translation>当前为 Gen {g} x{w}，而其他 {m} GPU 可达 Gen {bg} x{bw}。</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>give --model or --params, not both</source>
        <translation>请指定 --model 或 --params，不能同时指定</translation>
    </message>
    <message>
        <source>give --params, e.g. --params 7e9, or --model NAME</source>
        <translation>请指定 --params（例如 --params 7e9）或 --model NAME</translation>
    </message>
    <message>
        <source>give --rate (requests/s) or --throughput (tokens/s), not both</source>
        <translation>请给出 --rate（请求/秒）或 --throughput（token/秒），不要同时给出</translation>
    </message>
    <message>
        <source>give --scenario (or --preset)</source>
        <translation>请指定 --scenario（或 --preset）</translation>
    </message>
    <message>
        <source>give --steps or --tokens, not both</source>
        <translation>请给出 --steps 或 --tokens，不要同时给出</translation>
    </message>
    <message>
        <source>give either a command or --attach PID, not both</source>
        <translation>请给出命令或 --attach PID，不能同时给出</translation>
    </message>
    <message>
        <source>give label matchers only, without a metric name</source>
        <translation>只能给出标签匹配器，不能带指标名</translation>
    </message>
    <message>
        <source>give the parameter count, e.g. 7B</source>
        <translation>请填写参数量，例如 7B</translation>
    </message>
    <message>
        <source>global batch (training) or concurrent sequences (inference)</source>
        <translation>全局批大小（训练）或并发序列数（推理）</translation>
    </message>
    <message>
        <source>Global batch in sequences per step (training) or concurrent sequences (inference); auto: 1024 / 16</source>
        <translation>每步的全局批大小，以序列计（训练），或并发序列数（推理）；自动：1024 / 16</translation>
    </message>
    <message>
        <source>Goals and limits</source>
        <translation>目标与限制</translation>
    </message>
    <message>
        <source>goodput</source>
        <translation>有效吞吐</translation>
    </message>
    <message>
        <source>goodput = requests that meet the TTFT and TPOT targets ({t}, {p}); a discrete-event model of the continuous-batching scheduler, not a measurement</source>
        <translation>有效吞吐 = 满足 TTFT 和 TPOT 目标（{t}、{p}）的请求；这是连续批处理调度器的离散事件模型，不是实测</translation>
    </message>
    <message>
        <source>gpm</source>
        <translation>GPM</translation>
    </message>
    <message>
        <source>GPM error</source>
        <translation>GPM 错误</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <extracomment>Seconds of history each sparkline shows.</extracomment>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>GPU %1 %2 — tick to plot</source>
        <translation>GPU %1 %2 — 勾选以绘制</translation>
    </message>
    <message>
        <source>GPU %1 lost: it stopped answering.</source>
        <translation>GPU %1 已丢失：它停止了响应。</translation>
    </message>
    <message>
        <source>GPU %1 · %2</source>
        <translation>GPU %1 · %2</translation>
    </message>
    <message>
        <source>GPU acceptance check ({level})</source>
        <translation>GPU 验收检查（{level}）</translation>
    </message>
    <message>
        <source>GPU compute</source>
        <translation>GPU计算型</translation>
    </message>
    <message>
        <source>GPU compute bare metal</source>
        <translation>GPU计算型弹性裸金属</translation>
    </message>
    <message>
        <source>GPU count differs from the expectation</source>
        <translation>GPU 数量与预期不符</translation>
    </message>
    <message>
        <source>GPU interconnect</source>
        <translation>GPU 互连</translation>
    </message>
    <message>
        <source>GPU interconnect matrix and static details (Alt+4)</source>
        <translation>GPU 互连矩阵和静态详情 (Alt+4)</translation>
    </message>
    <message>
        <source>GPU junction temperature — hotspot sensor (slowdown: dashed line)</source>
        <extracomment>Plot key -&gt; its titles where a vendor field is drawn; never &quot;edge&quot; for a junction value.</extracomment>
        <translation>GPU 结温 — 热点传感器（降频阈值：虚线）</translation>
    </message>
    <message>
        <source>GPU lost</source>
        <extracomment>The activity fields of a sample, in percent of cycles (the DCGM_FI_PROF_* ratios x 100).</extracomment>
        <translation>GPU 已丢失</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <source>GPU memory used by the process (nvidia-smi: GPU Memory Usage)</source>
        <translation>进程占用的 GPU 显存（nvidia-smi：GPU Memory Usage）</translation>
    </message>
    <message>
        <source>GPU model differs from the expectation</source>
        <translation>GPU 型号与预期不符</translation>
    </message>
    <message>
        <source>GPU model not in the spec table</source>
        <translation>GPU 型号不在规格表中</translation>
    </message>
    <message>
        <source>GPU model, e.g. A100-80GB, H100</source>
        <translation>GPU 型号，例如 A100-80GB、H100</translation>
    </message>
    <message>
        <source>GPU partition ({count:g} of a GPU): memory and rate scaled</source>
        <translation>GPU 分区（{count:g} 个 GPU）：显存和算力已按比例缩放</translation>
    </message>
    <message>
        <source>GPU report — {h}</source>
        <translation>GPU 报告 — {h}</translation>
    </message>
    <message>
        <source>GPU specs (dense TFLOPS; blank = not in sources)</source>
        <extracomment>The spec table&apos;s rate columns (gpuprof.catalog.specs.SPEC_DTYPES) in the order shown, with their decimals: dense TFLOPS (INT8: TOPS); fp64 is the matrix rate where there is one.</extracomment>
        <translation>GPU 规格（稠密 TFLOPS；空白 = 来源中没有）</translation>
    </message>
    <message>
        <source>GPU temperature (slowdown: dashed line)</source>
        <translation>GPU 温度（降频温度：虚线）</translation>
    </message>
    <message>
        <source>GPU temperature — junction where a GPU has no edge sensor (slowdown: dashed line)</source>
        <translation>GPU 温度 — 无边缘传感器的 GPU 为结温（降频阈值：虚线）</translation>
    </message>
    <message>
        <source>GPU temperature; the red tick is the slowdown threshold</source>
        <translation>GPU 温度；红色刻度为降频温度阈值</translation>
    </message>
    <message>
        <source>GPU the process runs on</source>
        <translation>进程所在的 GPU</translation>
    </message>
    <message>
        <source>GPU utilization</source>
        <extracomment>(key, title, unit, PromQL metric, scale): the six plots of a node.
----------
Role of a cell&apos;s node key ``(job, instance)`` and of its GPU column name. The colour of a down node&apos;s or a stale GPU&apos;s cells. What the grid can be coloured by: key → (title, unit, low end, high end of the scale).</extracomment>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>GPU utilization at least %1 while a job runs (else the input pipeline is the bottleneck)</source>
        <translation>作业运行时 GPU 利用率至少为 %1（否则瓶颈在输入管道）</translation>
    </message>
    <message>
        <source>GPU utilization over the last 2 minutes</source>
        <translation>最近 2 分钟的 GPU 利用率</translation>
    </message>
    <message>
        <source>GPU utilization read {u}, but the SMs were active only {s} of the cycles, for {d}: kernels ran all the time, yet they kept few SMs busy.</source>
        <translation>GPU 利用率显示为 {u}，但 SM 仅在 {s} 的周期内处于活动状态，持续 {d}：内核一直在运行，却只让少数 SM 忙碌。</translation>
    </message>
    <message>
        <source>GPU utilization seen locally, percent</source>
        <translation>本地观察到的 GPU 利用率，百分比</translation>
    </message>
    <message>
        <source>GPU utilization: share of time a kernel ran (nvidia-smi: GPU-Util)</source>
        <translation>GPU 利用率：有内核在运行的时间占比（nvidia-smi：GPU-Util）</translation>
    </message>
    <message>
        <source>GPU {g}, GPU memory {m}</source>
        <translation>GPU {g}，GPU 显存 {m}</translation>
    </message>
    <message>
        <source>GPU {i}</source>
        <translation>GPU {i}</translation>
    </message>
    <message>
        <source>GPU {i}: energy integrated from power readings (the total-energy counter {why})</source>
        <translation>GPU {i}：能耗由功率读数积分得出（累计能耗计数器{why}）</translation>
    </message>
    <message>
        <source>GPU {i}: {r}</source>
        <extracomment>The SM active cell of a GPU without profiling activity.</extracomment>
        <translation>GPU {i}：{r}</translation>
    </message>
    <message>
        <source>GPU {m} ({u}) by node</source>
        <translation>各节点 GPU {m}（{u}）</translation>
    </message>
    <message>
        <source>GPU {name!r} is not in the spec table: time unknown</source>
        <translation>GPU {name!r} 不在规格表中：时间未知</translation>
    </message>
    <message>
        <source>GPU {n} is not in the spec table: no peak to scale by</source>
        <translation>GPU {n} 不在规格表中：没有可用于缩放的峰值</translation>
    </message>
    <message>
        <source>GPU-seconds:</source>
        <translation>GPU·秒：</translation>
    </message>
    <message>
        <source>GPU-to-GPU bandwidth and latency matrices (needs 2 CUDA devices)</source>
        <translation>GPU 间带宽与延迟矩阵（需要 2 个 CUDA 设备）</translation>
    </message>
    <message>
        <source>GPU-to-GPU copy bandwidth for every pair (GB/s) and the link between them (NVLink or PCIe path from NVML topology).</source>
        <translation>每对 GPU 之间的拷贝带宽（GB/s）及其间的链路（来自 NVML 拓扑的 NVLink 或 PCIe 路径）。</translation>
    </message>
    <message>
        <source>gpuprof exporter: serving {u} ({s}); Ctrl+C stops</source>
        <translation>gpuprof exporter：正在提供 {u}（{s}）；按 Ctrl+C 停止</translation>
    </message>
    <message>
        <source>gpuprof exporter: stopped</source>
        <translation>gpuprof exporter：已停止</translation>
    </message>
    <message>
        <source>gpuprof health</source>
        <translation>gpuprof 健康检查</translation>
    </message>
    <message>
        <source>gpuprof keeps trying at every sampling interval; the plots show a gap until the exporter answers (check that `gpuprof exporter` runs there, or the SSH tunnel).</source>
        <translation>gpuprof 在每个采样间隔都会重试；在导出器响应之前，图表中会出现空缺（请检查对方是否在运行 `gpuprof exporter`，或检查 SSH 隧道）。</translation>
    </message>
    <message>
        <source>gpuprof kill: about to send {s} to</source>
        <translation>gpuprof kill：即将发送 {s} 给</translation>
    </message>
    <message>
        <source>gpuprof sessions (*.gpuprof)</source>
        <translation>gpuprof 会话 (*.gpuprof)</translation>
    </message>
    <message>
        <source>gpuprof — watch what your NVIDIA GPUs are doing, measure what they can really do, and decide which cloud machine a workload should run on, at what cost.

Without a sub-command, opens the desktop app.</source>
        <extracomment>Modules under gpuprof.commands that add sub-commands, in --help order.</extracomment>
        <translation>gpuprof — 观察你的 NVIDIA GPU 在做什么，测量它们的真实能力，并决定某个工作负载应在哪台云机器上运行、花费多少。

不带子命令时打开桌面应用。</translation>
    </message>
    <message>
        <source>gpuprof: budget {b} in {c}, the display currency (--currency): every price is compared in {c}</source>
        <translation>gpuprof：预算 {b}，单位 {c}，即显示币种（--currency）：所有价格都按 {c} 比较</translation>
    </message>
    <message>
        <source>gpuprof: budget {b} in {c}, the display currency (--currency): prices in USD are compared at {r}</source>
        <translation>gpuprof：预算 {b}，单位 {c}，即显示币种（--currency）：以美元标价的价格按 {r} 换算后比较</translation>
    </message>
    <message>
        <source>gpuprof: error: cannot write to stdout: {e}</source>
        <translation>gpuprof: 错误：无法写入 stdout：{e}</translation>
    </message>
    <message>
        <source>gpuprof: fetching {p}…</source>
        <translation>gpuprof：正在下载 {p}…</translation>
    </message>
    <message>
        <source>gpuprof: interrupted</source>
        <translation>gpuprof: 已中断</translation>
    </message>
    <message>
        <source>gpuprof: left out {r}</source>
        <translation>gpuprof：已排除 {r}</translation>
    </message>
    <message>
        <source>gpuprof: prices in {c}; {r}</source>
        <translation>gpuprof：价格以 {c} 计；{r}</translation>
    </message>
    <message>
        <source>gpuprof: rows marked (old) have prices over {n} days old, and (year only) or (month only) prices whose day is unknown: gpuprof catalog update fetches current ones</source>
        <translation>gpuprof：标有（过期）的行价格已超过 {n} 天，标有（仅有年份）或（仅有月份）的行读取日期不明：gpuprof catalog update 可获取当前价格</translation>
    </message>
    <message>
        <source>gpuprof: unexpected error: {t}: {e} (run with --debug for the traceback)</source>
        <translation>gpuprof: 意外错误：{t}: {e}（加 --debug 运行可查看回溯信息）</translation>
    </message>
    <message>
        <source>gpuprof: warning: no data arrived in {s:g} s; the screenshot shows none</source>
        <translation>gpuprof: 警告：{s:g} s 内没有收到数据；截图中将没有数据</translation>
    </message>
    <message>
        <source>gpuprof: warning: {w}</source>
        <translation>gpuprof：警告：{w}</translation>
    </message>
    <message>
        <source>gpuprof: {m} more rows: --offset {o} for the next page, --limit 0 for all</source>
        <translation>gpuprof：还有 {m} 行：用 --offset {o} 查看下一页，用 --limit 0 查看全部</translation>
    </message>
    <message>
        <source>gpuprof: {n} machines compared</source>
        <translation>gpuprof：已对比 {n} 台机器</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPUs %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>GPUs in the configuration (with --gpu)</source>
        <translation>配置中的 GPU 数量（与 --gpu 一起使用）</translation>
    </message>
    <message>
        <source>GPUs in the whole configuration (all nodes) and their model</source>
        <translation>整个配置（所有节点）中的 GPU 数量及型号</translation>
    </message>
    <message>
        <source>GPUs of this model</source>
        <translation>同型号</translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation>GPU：</translation>
    </message>
    <message>
        <source>GPUs: %1</source>
        <translation>GPU：%1</translation>
    </message>
    <message>
        <source>grade against a golden machine&apos;s values (written by --save-reference)</source>
        <translation>按黄金机器的数值评分（由 --save-reference 写出）</translation>
    </message>
    <message>
        <source>graphics-accelerated</source>
        <translation>图形加速型</translation>
    </message>
    <message>
        <source>hardware or thermal slowdown: check cooling, fans and the power brake signal</source>
        <translation>硬件或过热降频：检查散热、风扇和功率制动信号</translation>
    </message>
    <message>
        <source>hardware power brake</source>
        <translation>硬件功率制动</translation>
    </message>
    <message>
        <source>hardware slowdown</source>
        <translation>硬件降频</translation>
    </message>
    <message>
        <source>Hardware slowdown means overheating or a power-supply fault: check the temperatures, PSU capacity and the power connectors.</source>
        <translation>硬件降频意味着过热或供电故障：请检查温度、电源容量和供电接口。</translation>
    </message>
    <message>
        <source>hardware thermal slowdown</source>
        <translation>硬件过热降频</translation>
    </message>
    <message>
        <source>HBM %1</source>
        <translation>HBM %1</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>注意力头数</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>健康</translation>
    </message>
    <message>
        <source>health</source>
        <translation>健康</translation>
    </message>
    <message>
        <source>Health findings: PCIe link, power, throttling, ECC, utilization, driver (Alt+5)</source>
        <translation>健康检查：PCIe 链路、功耗、降频、ECC、利用率、驱动 (Alt+5)</translation>
    </message>
    <message>
        <source>hidden</source>
        <translation>隐藏维度</translation>
    </message>
    <message>
        <source>Hide configurations whose memory need exceeds the GPU memory (with 15% headroom) or whose precision the GPU lacks</source>
        <translation>隐藏显存需求超过 GPU 显存（预留 15% 余量）或 GPU 不支持其精度的配置</translation>
    </message>
    <message>
        <source>Hide this message until the state changes</source>
        <extracomment>Qt&apos;s QWIDGETSIZE_MAX: no maximum height.</extracomment>
        <translation>在状态变化之前隐藏此消息</translation>
    </message>
    <message>
        <source>Hide this strip</source>
        <translation>隐藏此状态栏</translation>
    </message>
    <message>
        <source>Hint</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Hint:</source>
        <translation>提示：</translation>
    </message>
    <message>
        <source>hint: {h}</source>
        <translation>提示：{h}</translation>
    </message>
    <message>
        <source>Host</source>
        <extracomment>What the &quot;N/A&quot; row calls each field (the model&apos;s names are for code).</extracomment>
        <translation>主机</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Host %1</source>
        <translation>主机 %1</translation>
    </message>
    <message>
        <source>Host (the job&apos;s process tree)</source>
        <translation>主机（作业的进程树）</translation>
    </message>
    <message>
        <source>host CPU %</source>
        <translation>主机 CPU %</translation>
    </message>
    <message>
        <source>Host CPU and RAM</source>
        <translation>主机 CPU 和内存</translation>
    </message>
    <message>
        <source>Host CPU used by the process, of one core: 400% is four cores (top: %CPU)</source>
        <translation>该进程使用的主机 CPU，以单核计：400% 即四个核（top：%CPU）</translation>
    </message>
    <message>
        <source>Host CPU utilization</source>
        <translation>主机 CPU 利用率</translation>
    </message>
    <message>
        <source>Host memory</source>
        <translation>主机内存</translation>
    </message>
    <message>
        <source>Host memory resident for the process (top: RES)</source>
        <translation>该进程常驻的主机内存（top：RES）</translation>
    </message>
    <message>
        <source>Host memory used of total</source>
        <translation>已用主机内存 / 总内存</translation>
    </message>
    <message>
        <source>Host · %1</source>
        <translation>主机 · %1</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>How</source>
        <translation>推算方式</translation>
    </message>
    <message>
        <source>How each pair of GPUs is connected (nvidia-smi topo -m). NV# = number of NVLinks; hover a cell for the meaning.</source>
        <translation>每对 GPU 之间的连接方式（nvidia-smi topo -m）。NV# = NVLink 数量；将鼠标悬停在单元格上可查看含义。</translation>
    </message>
    <message>
        <source>how many runs (default 20)</source>
        <translation>显示多少次运行（默认 20）</translation>
    </message>
    <message>
        <source>How many times faster than this machine (&gt; 1: faster)</source>
        <translation>比本机快多少倍（&gt; 1：更快）</translation>
    </message>
    <message>
        <source>how much to measure (quick ≈ 30 s on one GPU; default quick)</source>
        <translation>测量多少（quick 在单个 GPU 上约 30 s；默认 quick）</translation>
    </message>
    <message>
        <source>How much to measure: quick, standard or full</source>
        <translation>测量多少：quick、standard 或 full</translation>
    </message>
    <message>
        <source>how much to run (default quick)</source>
        <translation>运行多少项（默认 quick）</translation>
    </message>
    <message>
        <source>How much to run: quick, standard, or with a sustained load</source>
        <translation>运行多少项：快速、标准，或加上持续负载</translation>
    </message>
    <message>
        <source>How often the GPUs and the job&apos;s processes are sampled</source>
        <translation>对 GPU 和作业进程采样的频率</translation>
    </message>
    <message>
        <source>How the report will look (the PDF layout)</source>
        <translation>报告的外观（PDF 版式）</translation>
    </message>
    <message>
        <source>How to order the configurations that fit; auto: cheapest with a deadline, fastest with only a budget</source>
        <translation>如何对可容纳的配置排序；自动：有截止时间时选最便宜，只有预算时选最快</translation>
    </message>
    <message>
        <source>HPC (FP64)</source>
        <translation>HPC（FP64）</translation>
    </message>
    <message>
        <source>HPC cluster</source>
        <translation>高性能计算集群</translation>
    </message>
    <message>
        <source>HTML (one self-contained file)</source>
        <translation>HTML（单个自包含文件）</translation>
    </message>
    <message>
        <source>HTML pages (*.html)</source>
        <translation>HTML 页面 (*.html)</translation>
    </message>
    <message>
        <source>HTTP {c} {r}</source>
        <translation>HTTP {c} {r}</translation>
    </message>
    <message>
        <source>Huawei Cloud</source>
        <translation>华为云</translation>
    </message>
    <message>
        <source>Huawei&apos;s price inquiry needs --project-id (any project of your account)</source>
        <extracomment>The answer&apos;s measure_id for the currency&apos;s main unit (元 / dollar); 2 and 3 are 角 / 分.</extracomment>
        <translation>华为云的询价需要 --project-id（您账号下任意一个项目 ID）</translation>
    </message>
    <message>
        <source>huawei: any project ID of your account (the inquiry asks for one)</source>
        <translation>`huawei`：您账号下任意一个项目 ID（询价接口需要）</translation>
    </message>
    <message>
        <source>I/O</source>
        <translation>I/O</translation>
    </message>
    <message>
        <source>id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>idle</source>
        <extracomment>Live results are drawn at most this often (ms): a chart redraw per result would be wasted. ``(device, suite, only, source)`` -&gt; the Runner, called in the worker thread. Emitted with the :class:`BenchRun` when a run ends (success, interrupted or failure).</extracomment>
        <translation>空闲</translation>
    </message>
    <message>
        <source>idle unchanged</source>
        <translation>空闲部分不变</translation>
    </message>
    <message>
        <source>If nobody capped it on purpose, restore it with `sudo amd-smi set -g {i} --power-cap {d:.0f}`.</source>
        <translation>如果不是有意限制的，用 `sudo amd-smi set -g {i} --power-cap {d:.0f}` 恢复。</translation>
    </message>
    <message>
        <source>If nobody capped it on purpose, restore it with `sudo nvidia-smi -i {i} -pl {d:.0f}`.</source>
        <translation>如果不是有人有意设置的上限，可用 `sudo nvidia-smi -i {i} -pl {d:.0f}` 恢复。</translation>
    </message>
    <message>
        <source>ignore the GEMM results of `gpuprof bench` on this machine&apos;s GPU model (by default they set its efficiency)</source>
        <translation>忽略 `gpuprof bench` 在本机 GPU 型号上的 GEMM 结果（默认用这些结果设定其效率）</translation>
    </message>
    <message>
        <source>ignored explicit argument %r</source>
        <translation>忽略了显式参数 %r</translation>
    </message>
    <message>
        <source>imported {n} rows into {d} ({b} bad rows skipped, {u} with an unknown GPU)</source>
        <translation>已导入 {n} 行到 {d}（跳过 {b} 个错误行，{u} 行的 GPU 未知）</translation>
    </message>
    <message>
        <source>Improve cooling: airflow, fan curve, dust, ambient temperature; check the fans and that the GPU is not starved by a neighbour&apos;s exhaust.</source>
        <translation>改善散热：风道、风扇曲线、积灰、环境温度；检查风扇，并确认 GPU 没有被相邻设备的排风“闷住”。</translation>
    </message>
    <message>
        <source>include a benchmark run: its id, a unique prefix, or &apos;latest&apos;</source>
        <translation>包含一次基准测试运行：其 ID、唯一前缀或 &apos;latest&apos;</translation>
    </message>
    <message>
        <source>Include command lines</source>
        <translation>包含命令行</translation>
    </message>
    <message>
        <source>Inference / serving</source>
        <translation>推理 / 服务</translation>
    </message>
    <message>
        <source>inference-accelerated</source>
        <translation>推理加速型</translation>
    </message>
    <message>
        <source>inference: prompt tokens per sequence, prefilled before decoding; each sequence then generates seq-len minus this many (default 0: no prefill)</source>
        <translation>推理：每个序列的提示词元数，在解码前预填充；每个序列随后生成 seq-len 减去该数的词元（默认 0：不计预填充）</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>input is not a terminal, so gpuprof cannot ask: add --yes to send {s} to pid {p}</source>
        <translation>输入不是终端，gpuprof 无法询问：添加 --yes 以向 PID {p} 发送 {s}</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver (it ships libnvidia-ml); on a machine without an NVIDIA GPU, try --demo.</source>
        <translation>请安装 NVIDIA 驱动（其中包含 libnvidia-ml）；在没有 NVIDIA GPU 的机器上，可试试 --demo。</translation>
    </message>
    <message>
        <source>Instance</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>instance</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>Instance type; &quot;N×&quot; when the job needs N nodes</source>
        <translation>实例类型；作业需要 N 个节点时显示 &quot;N×&quot;</translation>
    </message>
    <message>
        <source>Instances</source>
        <translation>实例数</translation>
    </message>
    <message>
        <source>instances</source>
        <translation>实例数</translation>
    </message>
    <message>
        <source>Instances that together sustain the request rate</source>
        <translation>共同维持该请求速率所需的实例数</translation>
    </message>
    <message>
        <source>instances {a}–{b} of {n}</source>
        <translation>实例 {a}–{b}，共 {n} 个</translation>
    </message>
    <message>
        <source>Instances: %1 (%2 replica(s) of TP %3 × PP %4%5)</source>
        <translation>实例：%1（%2 个副本，TP %3 × PP %4%5）</translation>
    </message>
    <message>
        <source>instead: fetch your team&apos;s negotiated prices (our catalog CSV, or JSON: an array of rows with the same keys) from URL; they override public prices and are marked &apos;negotiated&apos;</source>
        <translation>改为：从 URL 获取团队协商价格（本工具的目录 CSV，或 JSON：同样键名的行数组）；它们覆盖公开价格并标为 &quot;negotiated&quot;</translation>
    </message>
    <message>
        <source>interleaved 1F1B, {v} stages per GPU</source>
        <translation>交错 1F1B，每个 GPU {v} 个阶段</translation>
    </message>
    <message>
        <source>Interrupt the job (SIGINT, as Ctrl+C would); the profile is saved. Press again to terminate, a third time to kill.</source>
        <translation>中断作业（SIGINT，与 Ctrl+C 相同）；分析结果会被保存。再按一次终止（SIGTERM），第三次强制结束。</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>Interval:</source>
        <translation>采样间隔：</translation>
    </message>
    <message>
        <source>invalid %(type)s value: %(value)r</source>
        <translation>无效的 %(type)s 值：%(value)r</translation>
    </message>
    <message>
        <source>invalid choice: %(value)r (choose from %(choices)s)</source>
        <translation>无效的选项：%(value)r（可选：%(choices)s）</translation>
    </message>
    <message>
        <source>inventory</source>
        <translation>清单</translation>
    </message>
    <message>
        <source>Inventory of the NVIDIA GPUs on this machine (like `nvidia-smi -q` and `nvidia-smi topo -m`) and the host. Without a GPU or driver, says why and still shows the host (exit 0).</source>
        <translation>本机 NVIDIA GPU 及主机的清单（类似 `nvidia-smi -q` 和 `nvidia-smi topo -m`）。没有 GPU 或驱动时会说明原因，仍显示主机信息（退出码 0）。</translation>
    </message>
    <message>
        <source>is not reported</source>
        <translation>未上报</translation>
    </message>
    <message>
        <source>it answered an HTML page</source>
        <translation>它返回了一个 HTML 页面</translation>
    </message>
    <message>
        <source>it answered an HTML page ({c})</source>
        <translation>它返回了一个 HTML 页面（{c}）</translation>
    </message>
    <message>
        <source>Item</source>
        <extracomment>Foreground colours of the statuses (readable on light and dark backgrounds). INCOMPLETE (a verdict only: a cancelled check) is neither green nor red.</extracomment>
        <translation>项目</translation>
    </message>
    <message>
        <source>item</source>
        <extracomment>The scorecard&apos;s columns (to translate), as the terminal, the check page and the report show them; the page adds the reference&apos;s source.</extracomment>
        <translation>项目</translation>
    </message>
    <message>
        <source>iters</source>
        <translation>迭代次数</translation>
    </message>
    <message>
        <source>Its exporter is up, but serves no current value for this GPU.</source>
        <translation>它的导出器在运行，但没有提供该 GPU 的当前数值。</translation>
    </message>
    <message>
        <source>its peers</source>
        <extracomment>Fleet outliers need a median of at least two peers.</extracomment>
        <translation>同类机器</translation>
    </message>
    <message>
        <source>its sibling GPUs</source>
        <translation>同机其他 GPU</translation>
    </message>
    <message>
        <source>Its step time, job time and cost on each cloud instance of the catalog</source>
        <translation>它在目录中每个云实例上的步骤时间、作业时间和费用</translation>
    </message>
    <message>
        <source>job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Job cost</source>
        <translation>作业成本</translation>
    </message>
    <message>
        <source>job cost</source>
        <translation>作业成本</translation>
    </message>
    <message>
        <source>Job memory peak</source>
        <translation>作业显存峰值</translation>
    </message>
    <message>
        <source>Job profile — %1</source>
        <translation>作业分析 — %1</translation>
    </message>
    <message>
        <source>Job profile: {n}{sim} — {e}</source>
        <translation>作业画像：{n}{sim} — {e}</translation>
    </message>
    <message>
        <source>Job profiles</source>
        <translation>作业分析</translation>
    </message>
    <message>
        <source>Job time</source>
        <translation>作业时间</translation>
    </message>
    <message>
        <source>job time</source>
        <translation>作业时间</translation>
    </message>
    <message>
        <source>job: {j}</source>
        <translation>作业：{j}</translation>
    </message>
    <message>
        <source>JSON (docs/report-schema.md)</source>
        <translation>JSON（docs/report-schema.md）</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>JSON report</source>
        <translation>JSON 报告</translation>
    </message>
    <message>
        <source>JSON results (*.json);;All files (*)</source>
        <translation>JSON 结果 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>JSON: one object per snapshot (one line each when streaming)</source>
        <translation>JSON：每个快照一个对象（流式输出时每个占一行）</translation>
    </message>
    <message>
        <source>junction</source>
        <translation>结温</translation>
    </message>
    <message>
        <source>junction %1</source>
        <translation>结温 %1</translation>
    </message>
    <message>
        <source>junction slowdown %1</source>
        <translation>结温降频 %1</translation>
    </message>
    <message>
        <source>keep this run&apos;s measurements as the reference for other machines</source>
        <translation>保存本次测量值，作为其他机器的参考值</translation>
    </message>
    <message>
        <source>Kernel or operator</source>
        <translation>内核或算子</translation>
    </message>
    <message>
        <source>Kill</source>
        <translation>强制结束</translation>
    </message>
    <message>
        <source>Kill (SIGKILL)</source>
        <translation>强制结束 (SIGKILL)</translation>
    </message>
    <message>
        <source>killed by {s}</source>
        <translation>被 {s} 终止</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>known (the row says so)</source>
        <translation>已知（该行已注明）</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation>KV 头数</translation>
    </message>
    <message>
        <source>language of the app and the messages (default: GPUPROF_LANG, else the locale)</source>
        <translation>应用和消息的语言（默认：GPUPROF_LANG，否则取系统区域设置）</translation>
    </message>
    <message>
        <source>Language of the app; takes effect at the next start</source>
        <translation>应用的语言；下次启动时生效</translation>
    </message>
    <message>
        <source>Last error: {e}</source>
        <translation>最近的错误：{e}</translation>
    </message>
    <message>
        <source>Last sampling error: %1</source>
        <translation>上次采样错误：%1</translation>
    </message>
    <message>
        <source>latency at the largest size; no published reference</source>
        <translation>最大数据量下的延迟；没有公开的参考值</translation>
    </message>
    <message>
        <source>latency is host-timed (copy + synchronize), as an upper bound</source>
        <translation>延迟由主机计时（拷贝 + 同步），为上限值</translation>
    </message>
    <message>
        <source>latency must be &gt; 0: {t!r}</source>
        <translation>延迟必须大于 0：{t!r}</translation>
    </message>
    <message>
        <source>latency target</source>
        <extracomment>The bound names of :data:`gpuprof.recommend.serve.BOUNDS`, for translation where shown.</extracomment>
        <translation>延迟目标</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>并行布局</translation>
    </message>
    <message>
        <source>layout</source>
        <translation>并行布局</translation>
    </message>
    <message>
        <source>layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (FSDP: weights, gradients and optimizer sharded), the fastest that fits</source>
        <translation>布局：张量并行 {tp} × 流水线 {pp} × 数据并行 {dp}（FSDP：权重、梯度和优化器状态均分片），可容纳的最快布局</translation>
    </message>
    <message>
        <source>layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (FSDP: weights, gradients and optimizer sharded), the one that needs the least memory (none fits)</source>
        <translation>布局：张量并行 {tp} × 流水线 {pp} × 数据并行 {dp}（FSDP：权重、梯度和优化器状态均分片），所需内存最少的布局（均无法容纳）</translation>
    </message>
    <message>
        <source>layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (ZeRO-1), the fastest that fits</source>
        <translation>并行布局：张量并行 {tp} × 流水线并行 {pp} × 数据并行 {dp}（ZeRO-1），放得下的布局中最快的</translation>
    </message>
    <message>
        <source>layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (ZeRO-1), the one that needs the least memory (none fits)</source>
        <translation>并行布局：张量并行 {tp} × 流水线并行 {pp} × 数据并行 {dp}（ZeRO-1），所需显存最少的布局（没有放得下的）</translation>
    </message>
    <message>
        <source>layout: tensor parallel {tp} × pipeline {pp}{ep}; {dp} replica(s) per instance, {r} in all</source>
        <translation>并行布局：张量并行 {tp} × 流水线 {pp}{ep}；每个实例 {dp} 个副本，共 {r} 个</translation>
    </message>
    <message>
        <source>Left out</source>
        <translation>已排除</translation>
    </message>
    <message>
        <source>Left out:</source>
        <translation>已略去：</translation>
    </message>
    <message>
        <source>less GPU memory than the spec</source>
        <translation>GPU 显存少于规格</translation>
    </message>
    <message>
        <source>Level:</source>
        <translation>级别：</translation>
    </message>
    <message>
        <source>limit %1</source>
        <translation>上限 %1</translation>
    </message>
    <message>
        <source>link</source>
        <translation>互连</translation>
    </message>
    <message>
        <source>list cloud GPU instances; import user catalogs</source>
        <translation>列出云 GPU 实例；导入用户目录</translation>
    </message>
    <message>
        <source>list earlier runs, newest first</source>
        <translation>列出以前的运行，最新的在前</translation>
    </message>
    <message>
        <source>list GPUs, versions and topology</source>
        <translation>列出 GPU、版本和拓扑</translation>
    </message>
    <message>
        <source>list instances (packaged catalog + your overlays)</source>
        <translation>列出实例（内置目录 + 你的叠加目录）</translation>
    </message>
    <message>
        <source>list the known model architectures</source>
        <translation>列出已知的模型架构</translation>
    </message>
    <message>
        <source>live terminal view of GPU and host telemetry</source>
        <translation>GPU 与主机遥测的实时终端视图</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>Load average over 1, 5 and 15 minutes</source>
        <translation>1、5 和 15 分钟平均负载</translation>
    </message>
    <message>
        <source>Load avg</source>
        <translation>平均负载</translation>
    </message>
    <message>
        <source>Load the driver (sudo modprobe nvidia) or reboot after installing it; check `nvidia-smi`.</source>
        <translation>请加载驱动（sudo modprobe nvidia）或在安装后重启；并检查 `nvidia-smi`。</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>Loading the catalog…</source>
        <translation>正在加载目录…</translation>
    </message>
    <message>
        <source>local GPU utilization is {util} (&lt; {threshold:.0f}%): fix the input pipeline first (DataLoader workers/prefetch, DALI, faster storage) — a bigger GPU would idle too (seed pitfall: BERT on H100 at &lt;30% utilization cost 2.8× an A100 setup)</source>
        <extracomment>Below this local GPU utilization, buying a bigger GPU will not help (seed: &quot;利用率&gt;70%时再升级&quot;). training (issue 23): context parallel size, virtual pipeline stages per GPU, and whether data parallelism shards the weights too (FSDP) rather than ZeRO-1 serving: the share of the memory left after the weights the KV cache takes (no headroom)</extracomment>
        <translation>本机 GPU 利用率为 {util}（&lt; {threshold:.0f}%）：先优化输入管线（DataLoader 的 workers/prefetch、DALI、更快的存储）——换更大的 GPU 也只会空转（种子文档中的坑：BERT 在 H100 上利用率 &lt;30%，成本是 A100 方案的 2.8×）</translation>
    </message>
    <message>
        <source>log everything to stderr (core and app, DEBUG level) and show tracebacks of unexpected errors</source>
        <translation>将全部日志（核心与应用，DEBUG 级别）输出到 stderr，并显示意外错误的回溯信息</translation>
    </message>
    <message>
        <source>Look at the exporter&apos;s log on the node: the driver may be in trouble.</source>
        <translation>查看该节点上导出器的日志：驱动程序可能出了问题。</translation>
    </message>
    <message>
        <source>Look for job profiles again</source>
        <translation>重新查找作业分析</translation>
    </message>
    <message>
        <source>Look for PyTorch again after installing it</source>
        <translation>安装 PyTorch 后重新查找</translation>
    </message>
    <message>
        <source>look the XID codes up in NVIDIA&apos;s XID catalog; check dmesg</source>
        <translation>在 NVIDIA 的 XID 目录中查找这些代码；查看 dmesg</translation>
    </message>
    <message>
        <source>look the XID up in NVIDIA&apos;s XID catalog; most need a reset or an RMA</source>
        <translation>在 NVIDIA 的 XID 目录中查找该 XID；多数需要重置或返修（RMA）</translation>
    </message>
    <message>
        <source>looking for CUDA devices…</source>
        <translation>正在查找 CUDA 设备…</translation>
    </message>
    <message>
        <source>Looking for job profiles…</source>
        <translation>正在查找作业分析…</translation>
    </message>
    <message>
        <source>LOST</source>
        <translation>已丢失</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>已丢失</translation>
    </message>
    <message>
        <source>Lost the connection to {u}: {w}</source>
        <translation>与 {u} 的连接中断：{w}</translation>
    </message>
    <message>
        <source>machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Matrix products by dtype (FP32, TF32, FP16, BF16, FP8) against the spec sheet&apos;s peak</source>
        <translation>按数据类型（FP32、TF32、FP16、BF16、FP8）的矩阵乘法，对比规格表峰值</translation>
    </message>
    <message>
        <source>matrix size ∛(m·n·k)</source>
        <translation>矩阵尺寸 ∛(m·n·k)</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Max SM clock</source>
        <translation>最高 SM 频率</translation>
    </message>
    <message>
        <source>maximum (idle GPU; the link slows down on purpose when idle)</source>
        <translation>最大值（GPU 空闲；空闲时链路会有意降速）</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>Mean generated (output) tokens per request; auto: sequence length − prompt</source>
        <translation>每个请求平均生成（输出）的 token 数；自动：序列长度 − 提示长度</translation>
    </message>
    <message>
        <source>mean of {n} measured steps</source>
        <translation>{n} 个实测步骤的均值</translation>
    </message>
    <message>
        <source>Mean prompt (input) tokens per request</source>
        <translation>每个请求平均的提示（输入）token 数</translation>
    </message>
    <message>
        <source>Measure what this GPU really delivers: GEMM TFLOPS by dtype against the spec peak, copy bandwidth, GPU-to-GPU bandwidth, all-reduce / all-gather bus bandwidth and a training step. Without a GPU the CPU versions run for real; what cannot run says why. Results go to the results database; see `gpuprof bench list`.</source>
        <translation>测量这块 GPU 的真实表现：按数据类型的 GEMM TFLOPS 与规格峰值的对比、拷贝带宽、GPU 间带宽、all-reduce / all-gather 总线带宽，以及一个训练步。没有 GPU 时会真实运行 CPU 版本；无法运行的项目会说明原因。结果存入结果数据库；参见 `gpuprof bench list`。</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>measured (best median)</source>
        <translation>实测（最佳中位数）</translation>
    </message>
    <message>
        <source>measured here</source>
        <translation>本机实测</translation>
    </message>
    <message>
        <source>measured here (run {run}, {date})</source>
        <extracomment>Runs read from the database, newest first, before giving up on older ones. What :func:`gpuprof.recommend.estimate.base_efficiency` starts a measured source with.</extracomment>
        <translation>本机实测（运行 {run}，{date}）</translation>
    </message>
    <message>
        <source>measured here (run {run}, {date}): {detail}</source>
        <translation>本机实测（运行 {run}，{date}）：{detail}</translation>
    </message>
    <message>
        <source>measured here (run {run}, {date}); {source}</source>
        <translation>本机实测（运行 {run}，{date}）；{source}</translation>
    </message>
    <message>
        <source>measured here: {detail}</source>
        <translation>本机实测：{detail}</translation>
    </message>
    <message>
        <source>measured in {n} of {m} runs: too few to grade</source>
        <translation>仅在 {m} 次运行中的 {n} 次测得：次数太少，无法评级</translation>
    </message>
    <message>
        <source>measurement</source>
        <translation>测量项</translation>
    </message>
    <message>
        <source>median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>Median bandwidth of each copy (bytes copied ÷ time), by direction; solid pinned, dashed pageable host memory. A device or host copy moves twice the bytes shown.</source>
        <translation>每次拷贝的带宽中位数（拷贝字节数 ÷ 时间），按方向区分；实线为锁页主机内存，虚线为可分页主机内存。设备内或主机内拷贝实际搬运的字节数是所示的两倍。</translation>
    </message>
    <message>
        <source>median of {n} runs, spread {s}%</source>
        <translation>{n} 次运行的中位数，离散度 {s}%</translation>
    </message>
    <message>
        <source>Median TFLOPS of each matrix product, by dtype. Squares are joined; stars are LLM-shaped products at the cube root of m·n·k. Dashed lines: the spec sheet&apos;s dense peak for that dtype on this GPU (none for a CPU or an unknown GPU).</source>
        <translation>各矩阵乘法的 TFLOPS 中位数，按数据类型区分。方块之间连线；星号为 LLM 形状的矩阵乘法，位于 m·n·k 的立方根处。虚线：该数据类型在此 GPU 上的规格表稠密峰值（CPU 或未知 GPU 没有此线）。</translation>
    </message>
    <message>
        <source>mem</source>
        <extracomment>Every GPU / host field some plot draws: fetched together, once per frame. Only the bright (first) field of each plot: what is fetched while the pale ones are off. With more GPUs than this plotted, the pale secondary series are off unless the user ticks them: 8 GPUs draw 49 curves instead of 89, and the plots stay readable.</extracomment>
        <translation>显存</translation>
    </message>
    <message>
        <source>Mem clk</source>
        <translation>显存频率</translation>
    </message>
    <message>
        <source>Mem ctrl %</source>
        <translation>显存控制器 %</translation>
    </message>
    <message>
        <source>Mem util</source>
        <translation>显存利用率</translation>
    </message>
    <message>
        <source>mem ×{r}</source>
        <translation>访存 ×{r}</translation>
    </message>
    <message>
        <source>mem/GPU</source>
        <translation>显存/GPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Memory / GPU</source>
        <translation>显存 / GPU</translation>
    </message>
    <message>
        <source>memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <source>memory bandwidth (bytes copied)</source>
        <translation>内存带宽（拷贝字节数）</translation>
    </message>
    <message>
        <source>memory capacity</source>
        <translation>显存容量</translation>
    </message>
    <message>
        <source>Memory clock max</source>
        <translation>最大显存时钟</translation>
    </message>
    <message>
        <source>memory errors: drain the GPU and ask for a replacement</source>
        <translation>显存错误：停止向该 GPU 调度任务并要求更换</translation>
    </message>
    <message>
        <source>Memory peak</source>
        <translation>显存峰值</translation>
    </message>
    <message>
        <source>Memory per GPU: needs %1 of %2 — %3</source>
        <translation>每个 GPU 的显存：需要 %1，共 %2 — %3</translation>
    </message>
    <message>
        <source>memory share unchanged (no bandwidth in the spec table)</source>
        <translation>访存部分不变（规格表中无带宽数据）</translation>
    </message>
    <message>
        <source>memory size or spec unknown</source>
        <translation>显存大小或规格未知</translation>
    </message>
    <message>
        <source>memory test</source>
        <translation>显存测试</translation>
    </message>
    <message>
        <source>memory test fraction must be in (0, 0.98], got {f}</source>
        <translation>内存测试比例必须在 (0, 0.98] 之间，得到 {f}</translation>
    </message>
    <message>
        <source>memory test not available</source>
        <translation>显存测试不可用</translation>
    </message>
    <message>
        <source>memory test size must be at least {n} bytes</source>
        <translation>内存测试大小至少为 {n} 字节</translation>
    </message>
    <message>
        <source>Memory the workload needs per GPU / memory each GPU has</source>
        <translation>工作负载每个 GPU 所需显存 / 每个 GPU 的显存</translation>
    </message>
    <message>
        <source>memory traffic = 2x bytes copied (read + write)</source>
        <translation>内存流量 = 拷贝字节数 × 2（读 + 写）</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>已用显存</translation>
    </message>
    <message>
        <source>Memory used of total (nvidia-smi: Memory-Usage)</source>
        <translation>已用显存 / 总显存（nvidia-smi：Memory-Usage）</translation>
    </message>
    <message>
        <source>memory × {r} ({a} → {b} GB/s)</source>
        <translation>访存 × {r}（{a} → {b} GB/s）</translation>
    </message>
    <message>
        <source>memory-bandwidth bound (decode)</source>
        <translation>受显存带宽限制（解码）</translation>
    </message>
    <message>
        <source>memory: {m}</source>
        <translation>显存：{m}</translation>
    </message>
    <message>
        <source>merged {n} duplicate rows (same provider, instance, region, GPUs and prices as an earlier row; the first on this line)</source>
        <extracomment>The number columns, in the order :func:`_numbers` returns them; the first two must be &gt; 0. Where each number column sits in a row of :data:`COLUMNS` cells, and whether it must be &gt; 0. Beyond these a catalog cell is a typo, not a machine (a GB200 NVL72 rack is 72 GPUs).</extracomment>
        <translation>合并了 {n} 个重复行（云厂商、实例、区域、GPU 和价格均与前面某行相同；第一个在此行）</translation>
    </message>
    <message>
        <source>message size</source>
        <translation>消息大小</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>MIG devices</source>
        <translation>MIG 设备</translation>
    </message>
    <message>
        <source>MIG disabled (or knowingly enabled)</source>
        <translation>MIG 已禁用（或有意启用）</translation>
    </message>
    <message>
        <source>MIG is on: whole-GPU measurements see one slice</source>
        <translation>MIG 已开启：整卡测量只能看到一个切片</translation>
    </message>
    <message>
        <source>MIG mode</source>
        <translation>MIG 模式</translation>
    </message>
    <message>
        <source>MIG not supported</source>
        <translation>不支持 MIG</translation>
    </message>
    <message>
        <source>MIG or a different SKU? check `nvidia-smi -q -d MEMORY`</source>
        <translation>是 MIG 还是不同的 SKU？检查 `nvidia-smi -q -d MEMORY`</translation>
    </message>
    <message>
        <source>Minor-version compatibility usually lets it run, but kernels needing newer PTX fail; update the driver or install a torch build for CUDA {c}.</source>
        <translation>次版本兼容性通常能让它运行，但需要更新 PTX 的内核会失败；请更新驱动或安装面向 CUDA {c} 的 torch。</translation>
    </message>
    <message>
        <source>misses the deadline of {deadline}</source>
        <translation>赶不上 {deadline} 的截止时间</translation>
    </message>
    <message>
        <source>misses the latency targets ({p}: TTFT {ttft}, TPOT {tpot}) at any batch</source>
        <translation>任何批量下都达不到延迟目标（{p}：TTFT {ttft}，TPOT {tpot}）</translation>
    </message>
    <message>
        <source>mixed GPUs here: {g} taken for all of them</source>
        <translation>本机 GPU 型号不一：全部按 {g} 计算</translation>
    </message>
    <message>
        <source>ml-engineering MAMF table: A100 SXM 85.9%, GH200 83.0%, A100 PCIe 82.2% of spec</source>
        <extracomment>Extra time on spot/preemptible capacity: checkpoint writes + lost work after interruptions. Typical achievable share of the spec peak for a large GEMM (ml-engineering MAMF table).</extracomment>
        <translation>ml-engineering 的 MAMF 表：A100 SXM 85.9%、GH200 83.0%、A100 PCIe 82.2%（相对规格）</translation>
    </message>
    <message>
        <source>MM %1</source>
        <translation>多媒体 %1</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>model architectures</source>
        <translation>模型架构</translation>
    </message>
    <message>
        <source>Model parameters, e.g. 7B, 70e9, 25.6M</source>
        <translation>模型参数量，例如 7B、70e9、25.6M</translation>
    </message>
    <message>
        <source>model vs measured here: compute {p} predicted (the default stack&apos;s fitted share of the {d} peak) vs {m} measured ({r:.2f}×); memory, collectives and idle are measured only (the model needs the architecture for them)</source>
        <translation>此处模型与实测对比：计算 {p} 为预测（默认框架拟合的 {d} 峰值比例）对比 {m} 实测（{r:.2f}×）；内存、集合通信和空闲仅为实测（模型需要架构才能预测它们）</translation>
    </message>
    <message>
        <source>Money for the whole job in %1, the display currency, e.g. 5000 or 5k; empty: no budget</source>
        <translation>整个作业的预算，单位 %1（显示币种），例如 5000 或 5k；留空：不限预算</translation>
    </message>
    <message>
        <source>Money for the whole job in USD, e.g. 5000 or 5k; empty: no budget</source>
        <translation>整个作业的预算（USD），例如 5000 或 5k；留空：无预算限制</translation>
    </message>
    <message>
        <source>money for the whole job, in the display currency (--currency, default USD): --currency CNY --budget 50k is ¥50,000, compared with prices converted at the dated rate</source>
        <translation>整个作业的预算，单位为显示币种（--currency，默认 USD）：--currency CNY --budget 50k 即 ¥50,000，与按带日期的汇率换算后的价格比较</translation>
    </message>
    <message>
        <source>Monthly</source>
        <translation>包月</translation>
    </message>
    <message>
        <source>monthly</source>
        <translation>包月</translation>
    </message>
    <message>
        <source>Monthly: %1/month per node (as of %2) → %3/month for %4 instance(s)</source>
        <translation>包月：每节点 %1/月（截至 %2）→ %4 个实例 %3/月</translation>
    </message>
    <message>
        <source>Monthly: %1/month per node (as of %2) → job %3 in whole months</source>
        <translation>包月：每节点 %1/月（截至 %2）→ 作业按整月计 %3</translation>
    </message>
    <message>
        <source>more than {m} requests in one trace</source>
        <translation>一个轨迹中的请求超过 {m} 个</translation>
    </message>
    <message>
        <source>Most nodes (instances) one job may span</source>
        <translation>单个作业最多可跨越的节点（实例）数</translation>
    </message>
    <message>
        <source>multi-node: put all nodes in one zone (placement group / same AZ) and check the network with iperf3 and nccl-tests first; in the seed&apos;s case cross-zone sync took 40% of step time</source>
        <translation>多节点：把所有节点放在同一可用区（置放群组 / 同一 AZ），并先用 iperf3 和 nccl-tests 检查网络；种子文档的案例中，跨可用区同步占了 40% 的步时间</translation>
    </message>
    <message>
        <source>must be &lt;= {hi}{u}, got {t}</source>
        <translation>必须 &lt;= {hi}{u}，得到的是 {t}</translation>
    </message>
    <message>
        <source>must be a finite number, got {t!r}</source>
        <translation>必须是有限数，得到的是 {t!r}</translation>
    </message>
    <message>
        <source>must be a number &gt;= 0: {t!r}</source>
        <translation>必须是 &gt;= 0 的数字：{t!r}</translation>
    </message>
    <message>
        <source>must be {op} {lo}{u}, got {t}</source>
        <translation>必须 {op} {lo}{u}，得到的是 {t}</translation>
    </message>
    <message>
        <source>N/A</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>Name</source>
        <extracomment>Monitor columns: (header, min terminal width to show it). Narrow terminals keep the essentials.
----------
Folders below the data folder looked into (``profiles/NAME/x.gpuprof`` is 2 down). Recordings opened at most per scan (a data folder full of sessions stays quick).
----------
Detail rows: (label, getter). Labels are translated when shown.</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>namespace %1</source>
        <translation>命名空间 %1</translation>
    </message>
    <message>
        <source>nccl-tests&apos; bus bandwidth: algbw × 2(n−1)/n for all-reduce, × (n−1)/n for all-gather. NCCL across GPUs, gloo between processes on the CPU.</source>
        <translation>nccl-tests 的总线带宽：all-reduce 为 algbw × 2(n−1)/n，all-gather 为 × (n−1)/n。GPU 之间使用 NCCL，CPU 上的进程之间使用 gloo。</translation>
    </message>
    <message>
        <source>Needs %1 per GPU; the GPU has %2</source>
        <translation>每个 GPU 需要 %1；该 GPU 只有 %2</translation>
    </message>
    <message>
        <source>needs 2 CUDA devices</source>
        <translation>需要 2 个 CUDA 设备</translation>
    </message>
    <message>
        <source>needs a CUDA device</source>
        <translation>需要 CUDA 设备</translation>
    </message>
    <message>
        <source>net Gbps</source>
        <translation>网络 Gbps</translation>
    </message>
    <message>
        <source>Net rx/tx</source>
        <translation>网络收/发</translation>
    </message>
    <message>
        <source>network error: {e}</source>
        <translation>网络错误：{e}</translation>
    </message>
    <message>
        <source>Network in</source>
        <translation>网络接收</translation>
    </message>
    <message>
        <source>Network out</source>
        <translation>网络发送</translation>
    </message>
    <message>
        <source>new ECC errors during the check</source>
        <translation>检查期间出现新的 ECC 错误</translation>
    </message>
    <message>
        <source>new ECC errors under load: {u} uncorrected, {c} corrected{p}</source>
        <translation>负载下出现新的 ECC 错误：{u} 个不可纠正，{c} 个已纠正{p}</translation>
    </message>
    <message>
        <source>NLP inference, T4 class</source>
        <translation>NLP 推理（T4 级别）</translation>
    </message>
    <message>
        <source>NLP inference, T4 class (BERT-base, 800 QPS, fp16)</source>
        <translation>NLP 推理，T4 级（BERT-base，800 QPS，fp16）</translation>
    </message>
    <message>
        <source>NO</source>
        <translation>否</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>no active NVLink</source>
        <translation>没有活动的 NVLink</translation>
    </message>
    <message>
        <source>no answer within {s:g} s</source>
        <translation>{s:g} 秒内无响应</translation>
    </message>
    <message>
        <source>no benchmark run {i} (see `gpuprof bench list`)</source>
        <translation>没有基准测试运行 {i}（参见 `gpuprof bench list`）</translation>
    </message>
    <message>
        <source>no benchmark runs yet</source>
        <extracomment>The results database&apos;s schema version (``PRAGMA user_version``); older ones migrate forward. The version of :data:`_SCHEMA`, the first one; every migration chain starts here. ``{N: step}``: ``step`` turns a version-``N`` database into version ``N + 1`` (module doc).</extracomment>
        <translation>还没有基准测试运行记录</translation>
    </message>
    <message>
        <source>no benchmark runs yet: try `gpuprof bench`</source>
        <translation>还没有基准测试运行记录：试试 `gpuprof bench`</translation>
    </message>
    <message>
        <source>no candidate fits this workload ({c} considered): none has enough GPU memory or supports {p}</source>
        <extracomment>A best time longer than this (hours) is not a plan: said above the table.</extracomment>
        <translation>没有候选能容纳此工作负载（共考虑 {c} 个）：都没有足够的显存或不支持 {p}</translation>
    </message>
    <message>
        <source>no candidate has a time estimate: no peak rate for {d}</source>
        <translation>没有候选能估算时间：没有 {d} 的峰值速率</translation>
    </message>
    <message>
        <source>NO CANDIDATE MEETS BOTH the deadline and the budget: the rows show each</source>
        <translation>没有候选能同时满足截止时间和预算：各行分别显示</translation>
    </message>
    <message>
        <source>no case succeeded (%1)</source>
        <translation>没有用例成功（%1）</translation>
    </message>
    <message>
        <source>no Chinese font is installed, so Chinese text shows as boxes; install one (e.g. `sudo apt install fonts-noto-cjk`) or start with `--lang en`</source>
        <translation>系统未安装中文字体，中文会显示为方框；请安装一种中文字体（例如 `sudo apt install fonts-noto-cjk`），或以 `--lang en` 启动</translation>
    </message>
    <message>
        <source>no closing }</source>
        <translation>缺少右花括号 }</translation>
    </message>
    <message>
        <source>no collective time measured</source>
        <translation>未测得集合通信时间</translation>
    </message>
    <message>
        <source>no collectives on one GPU</source>
        <translation>单 GPU 无集合通信</translation>
    </message>
    <message>
        <source>no command to profile; usage: gpuprof profile [options] -- CMD ARGS</source>
        <translation>没有要分析的命令；用法：gpuprof profile [选项] -- CMD ARGS</translation>
    </message>
    <message>
        <source>no complete answer within {s:g} s (the time limit of the whole request)</source>
        <extracomment>What a request may receive beyond its body&apos;s cap: the status line and headers (http.client reads at most 100 lines of 64 KiB), and the bodies of redirects. ``before_read(bytes_so_far, content_length_or_None)``, called before each read of a body: progress, or a cancel that raises. Bytes received from the network so far (headers and redirects included).</extracomment>
        <translation>{s:g} 秒内未收到完整响应（整个请求的时间上限）</translation>
    </message>
    <message>
        <source>no content type</source>
        <extracomment>the clock of the requests&apos; deadlines (a remote source times its notices on it too)</extracomment>
        <translation>无内容类型</translation>
    </message>
    <message>
        <source>no CUDA build of torch is installed: nothing to compare</source>
        <extracomment>A sample counts as &quot;under load&quot; from this GPU utilization on (percent). Below this mean utilization while a job runs, the job waits on its input (the seeds&apos; 70% rule). A job is running when processes use the GPU or this share of its memory is in use (percent). A throttle reason is reported when seen in at least this share of the busy samples. Finding codes of the checks that judge a GPU only under load, and of the ECC check.</extracomment>
        <translation>未安装 CUDA 版本的 torch：无从比较</translation>
    </message>
    <message>
        <source>no CUDA device found</source>
        <translation>未找到 CUDA 设备</translation>
    </message>
    <message>
        <source>NO DATA</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>no data</source>
        <extracomment>Line colours (Okabe–Ito plus extras), readable on white and in greyscale print.</extracomment>
        <translation>无数据</translation>
    </message>
    <message>
        <source>no date the price was read</source>
        <translation>没有读取价格的日期</translation>
    </message>
    <message>
        <source>no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset). Run it in a desktop session or with `ssh -X`, render headless with `gpuprof --screenshot OUT.png`, or use the terminal commands (`gpuprof --help`)</source>
        <extracomment>Extra seconds a screenshot waits for the first snapshot after ``--after`` ran out. Qt messages that say nothing about the app: the offscreen plugin warns on every window with size constraints. Dropped by the handler :func:`run_app` installs (not in tests).</extracomment>
        <translation>没有可用于打开窗口的显示（DISPLAY 和 WAYLAND_DISPLAY 均未设置）。请在桌面会话中或通过 `ssh -X` 运行，用 `gpuprof --screenshot OUT.png` 无界面渲染，或使用终端命令（`gpuprof --help`）</translation>
    </message>
    <message>
        <source>no ECC counters (ECC off or not supported)</source>
        <translation>没有 ECC 计数器（ECC 关闭或不支持）</translation>
    </message>
    <message>
        <source>no ECC counters were read (ECC off or not supported)</source>
        <translation>未读到 ECC 计数（ECC 已关闭或不支持）</translation>
    </message>
    <message>
        <source>No ECC errors, no retired or remapped memory, no memory repair pending</source>
        <translation>没有 ECC 错误，没有退役或重映射的显存，没有待处理的显存修复</translation>
    </message>
    <message>
        <source>No estimate: fix the workload on the left.</source>
        <translation>无估算结果：请修正左侧的工作负载。</translation>
    </message>
    <message>
        <source>no exchange rates set: prices in other currencies are not compared (gpuprof catalog fx --set CNY=RATE@YYYY-MM-DD)</source>
        <translation>未设置汇率：其他货币的价格不参与比较（gpuprof catalog fx --set CNY=汇率@YYYY-MM-DD）</translation>
    </message>
    <message>
        <source>No findings.</source>
        <translation>没有发现问题。</translation>
    </message>
    <message>
        <source>no finite value (without bound)</source>
        <translation>没有有限值（无上限）</translation>
    </message>
    <message>
        <source>no GPU checked: CPU only (inventory and GPU health are skipped)</source>
        <translation>未检查 GPU：仅 CPU（跳过清单和 GPU 健康）</translation>
    </message>
    <message>
        <source>No GPU data from {n}</source>
        <translation>{n} 没有 GPU 数据</translation>
    </message>
    <message>
        <source>No GPU fell off the bus</source>
        <translation>没有 GPU 从总线上掉线</translation>
    </message>
    <message>
        <source>no GPU here</source>
        <translation>本机没有 GPU</translation>
    </message>
    <message>
        <source>no GPU memory measured: the host RSS peak {b} as a proxy</source>
        <translation>未测得 GPU 显存：以主机 RSS 峰值 {b} 代替</translation>
    </message>
    <message>
        <source>no GPU process information (not permitted, or hidden from this container): every GPU is counted as the job&apos;s</source>
        <translation>无 GPU 进程信息（无权限，或在此容器中不可见）：每个 GPU 都计为本作业所有</translation>
    </message>
    <message>
        <source>no GPU rows</source>
        <translation>没有 GPU 行</translation>
    </message>
    <message>
        <source>No GPU series found: is Prometheus scraping a GPU exporter?</source>
        <translation>未找到 GPU 序列：Prometheus 是否在抓取 GPU 导出器？</translation>
    </message>
    <message>
        <source>no GPU telemetry{why}: host only</source>
        <translation>无 GPU 遥测数据{why}：仅有主机数据</translation>
    </message>
    <message>
        <source>No GPU to check</source>
        <translation>没有可检查的 GPU</translation>
    </message>
    <message>
        <source>no GPU was reported</source>
        <translation>没有报告任何 GPU</translation>
    </message>
    <message>
        <source>no GPU was under load (utilization ≥ {p})</source>
        <translation>没有 GPU 处于负载下（利用率 ≥ {p}）</translation>
    </message>
    <message>
        <source>No instance in the catalog matches the filters.</source>
        <translation>目录中没有符合筛选条件的实例。</translation>
    </message>
    <message>
        <source>no instance {i!r} in the catalog; see `gpuprof catalog list`</source>
        <translation>目录中没有实例 {i!r}；参见 `gpuprof catalog list`</translation>
    </message>
    <message>
        <source>no job ran on a GPU in this window</source>
        <translation>此时间窗口内没有作业在 GPU 上运行</translation>
    </message>
    <message>
        <source>no local GPU</source>
        <translation>无本地 GPU</translation>
    </message>
    <message>
        <source>no memory peak measured: the fit is not checked</source>
        <translation>未测得显存峰值：不检查能否放下</translation>
    </message>
    <message>
        <source>No NVIDIA GPU in the last %1: none of the GPU checks ran.</source>
        <translation>最近 %1 内没有 NVIDIA GPU：GPU 检查均未运行。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU is visible. Check CUDA_VISIBLE_DEVICES and `nvidia-smi`.</source>
        <translation>看不到任何 NVIDIA GPU。请检查 CUDA_VISIBLE_DEVICES 和 `nvidia-smi`。</translation>
    </message>
    <message>
        <source>no NVIDIA GPU visible</source>
        <translation>看不到 NVIDIA GPU</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found on this machine, so there is nothing to compare with</source>
        <translation>本机未找到 NVIDIA GPU，因此没有可比较的对象</translation>
    </message>
    <message>
        <source>No NVIDIA GPU: showing host telemetry only.</source>
        <translation>没有 NVIDIA GPU：仅显示主机遥测数据。</translation>
    </message>
    <message>
        <source>No NVIDIA or AMD GPU is visible. Host telemetry is still shown.</source>
        <translation>未发现 NVIDIA 或 AMD GPU。仍显示主机遥测数据。</translation>
    </message>
    <message>
        <source>no on-demand price in the catalog</source>
        <translation>目录中没有按需价格</translation>
    </message>
    <message>
        <source>no partition modes (not an MI300-series GPU)</source>
        <translation>无分区模式（不是 MI300 系列 GPU）</translation>
    </message>
    <message>
        <source>No permission to read other users&apos; GPU processes: the process table is incomplete.</source>
        <translation>没有权限读取其他用户的 GPU 进程：进程表不完整。</translation>
    </message>
    <message>
        <source>no power limit and default limit were read</source>
        <translation>未读到功耗上限和默认上限</translation>
    </message>
    <message>
        <source>no power reading or limit</source>
        <translation>没有功率读数或功率上限</translation>
    </message>
    <message>
        <source>no price API for {p}: one of {ok}</source>
        <extracomment>The providers whose price API is implemented, as ``--provider`` takes them.</extracomment>
        <translation>{p} 没有价格 API：可选 {ok}</translation>
    </message>
    <message>
        <source>no price: listed after every priced row under &apos;cheapest&apos;</source>
        <translation>无价格：在“最便宜”排序下列于所有有价格的行之后</translation>
    </message>
    <message>
        <source>No problems found in the last %1.</source>
        <translation>最近 %1 内未发现问题。</translation>
    </message>
    <message>
        <source>no process id has {n} digits</source>
        <translation>没有哪个进程 ID 有 {n} 位数字</translation>
    </message>
    <message>
        <source>no process with pid {p} is running (it has exited); nothing was signalled</source>
        <translation>没有 PID 为 {p} 的进程在运行（它已退出）；未发送任何信号</translation>
    </message>
    <message>
        <source>no projection: {e}</source>
        <translation>无法推算：{e}</translation>
    </message>
    <message>
        <source>no providers given</source>
        <translation>未指定云服务商</translation>
    </message>
    <message>
        <source>no reference and no spec peak for this GPU</source>
        <extracomment>The CPU&apos;s case budgets (seconds per run) scale with the level. Each run must reach the largest copy (32 MiB, past the caches) even on a busy machine, or runs would be graded on different sizes: 2 s for the copies, 3 s for the two products. Runs of the same cases: a CPU&apos;s speed varies with whatever else the machine does, so it is measured three times and graded on the median, when the runs agree. A GPU runs once (its budgets are sized for an 8-GPU node; see :mod:`gpuprof.check.plan`). Seconds per case on a GPU, per level, and the GEMM dtypes each level runs. Chosen so that the whole check fits its time budget on an 8-GPU node (quick 3 min, standard 10 min) by the estimate of :mod:`gpuprof.check.plan`; the per-GPU cases run once per GPU, one GPU after the other, so they are short; P2P and collectives run once for the node. The host copies get more than D2D: they time pageable sizes before the pinned ones that are graded. quick: BF16 only (the tensor-core path every later dtype shares); standard: all four.</extracomment>
        <translation>此 GPU 没有参考值，也没有规格峰值</translation>
    </message>
    <message>
        <source>no reference for this CPU: save one with --save-reference on a known-good machine</source>
        <translation>此 CPU 没有参考值：请在已知正常的机器上用 --save-reference 保存一份</translation>
    </message>
    <message>
        <source>No run yet</source>
        <translation>尚无运行</translation>
    </message>
    <message>
        <source>no spot price in the catalog</source>
        <translation>目录中没有竞价价格</translation>
    </message>
    <message>
        <source>no status field</source>
        <translation>没有 status 字段</translation>
    </message>
    <message>
        <source>No step markers (see gpuprof.track).</source>
        <translation>没有步骤标记（参见 gpuprof.track）。</translation>
    </message>
    <message>
        <source>no step markers and no wall time</source>
        <translation>无步骤标记，也无墙钟时间</translation>
    </message>
    <message>
        <source>no step markers: the steady phase taken as one step</source>
        <translation>无步骤标记：将稳定阶段视为一步</translation>
    </message>
    <message>
        <source>no step markers: the whole job taken as one step</source>
        <translation>无步骤标记：将整个作业视为一步</translation>
    </message>
    <message>
        <source>no step time here to scale</source>
        <translation>本机没有可供缩放的单步时间</translation>
    </message>
    <message>
        <source>no such file: {p}</source>
        <translation>文件不存在：{p}</translation>
    </message>
    <message>
        <source>no such price in the catalog</source>
        <translation>目录中没有这种价格</translation>
    </message>
    <message>
        <source>no telemetry on the CPU: clocks and throttling not watched</source>
        <translation>CPU 上没有遥测：未监视时钟和降频</translation>
    </message>
    <message>
        <source>no telemetry samples to report on</source>
        <extracomment>Host metrics summarized in a report. GPU metrics drawn as charts (one line per GPU). Points per chart series: min and max of this many time buckets. Processes listed at most. Health findings in a report look at the newest this many samples of its window per GPU (an hour at 1 Hz, what the app&apos;s report covered before it read History).</extracomment>
        <translation>没有可用于生成报告的遥测采样</translation>
    </message>
    <message>
        <source>no telemetry samples were recorded</source>
        <translation>未录制到任何遥测采样</translation>
    </message>
    <message>
        <source>no temperature or no slowdown temperature known</source>
        <translation>没有温度读数或不知道降频温度</translation>
    </message>
    <message>
        <source>No thermal or power throttling under load</source>
        <translation>负载下没有温度或功耗降频</translation>
    </message>
    <message>
        <source>No throttling in this window.</source>
        <translation>此窗口内没有降频。</translation>
    </message>
    <message>
        <source>no warning or critical finding</source>
        <translation>没有警告或严重问题</translation>
    </message>
    <message>
        <source>no {basis} price in the catalog</source>
        <translation>目录中没有{basis}价格</translation>
    </message>
    <message>
        <source>no {basis} price: listed after every priced row (--billing {b})</source>
        <translation>无{basis}价格：排在所有有价格的行之后（--billing {b}）</translation>
    </message>
    <message>
        <source>no {basis} price: listed after every priced row (--billing {b}); it has a price on --billing {others}</source>
        <translation>无{basis}价格：排在所有有价格的行之后（--billing {b}）；它有以下计费方式的价格：--billing {others}</translation>
    </message>
    <message>
        <source>no {dtype} rate for {gpu} in the sources: time unknown</source>
        <translation>资料中没有 {gpu} 的 {dtype} 算力：时间未知</translation>
    </message>
    <message>
        <source>no {d} peak for {k}</source>
        <translation>没有 {k} 的 {d} 峰值</translation>
    </message>
    <message>
        <source>no {d} peak for {k} in the sources</source>
        <translation>资料中没有 {k} 的 {d} 峰值</translation>
    </message>
    <message>
        <source>no {p} instance types in the catalog to price</source>
        <translation>目录中没有可询价的 {p} 实例规格</translation>
    </message>
    <message>
        <source>node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Node limit</source>
        <translation>节点上限</translation>
    </message>
    <message>
        <source>node limit (default 16)</source>
        <translation>节点数上限（默认 16）</translation>
    </message>
    <message>
        <source>none</source>
        <extracomment>The file being read in the background (None: none). The last file chosen (kept in the settings): where the file picker opens. Not read again at start-up: a large trace takes about a second to read.</extracomment>
        <translation>无</translation>
    </message>
    <message>
        <source>not a CUDA device: needs a {stack} build of the framework</source>
        <translation>不是 CUDA 设备：需要基于 {stack} 构建的框架</translation>
    </message>
    <message>
        <source>not a duration: {t!r} (e.g. 72h, 3d, 90m)</source>
        <extracomment>Currency signs an amount may be typed with; the amount is in the display currency whatever the sign (``recommend --currency``, the GUI&apos;s setting): ``¥50k`` with ``--currency CNY``.</extracomment>
        <translation>不是有效的时长：{t!r}（例如 72h、3d、90m）</translation>
    </message>
    <message>
        <source>not a file</source>
        <translation>不是文件</translation>
    </message>
    <message>
        <source>not a gpuprof benchmark run (format is {f!r})</source>
        <translation>不是 gpuprof 基准测试运行记录（格式为 {f!r}）</translation>
    </message>
    <message>
        <source>not a gpuprof exporter: 404 for {p} (an exporter older than this gpuprof?)</source>
        <translation>不是 gpuprof 导出器：{p} 返回 404（导出器版本比本 gpuprof 旧？）</translation>
    </message>
    <message>
        <source>not a gpuprof exporter: {p} answered JSON of another shape ({e})</source>
        <translation>不是 gpuprof 导出器：{p} 返回了结构不符的 JSON（{e}）</translation>
    </message>
    <message>
        <source>not a gpuprof exporter: {p} answered other JSON</source>
        <translation>不是 gpuprof 导出器：{p} 返回了其他 JSON</translation>
    </message>
    <message>
        <source>not a gpuprof exporter: {p} answered {t}</source>
        <translation>不是 gpuprof 导出器：{p} 返回了 {t}</translation>
    </message>
    <message>
        <source>not a gpuprof report (format is {f!r})</source>
        <translation>不是 gpuprof 报告（格式为 {f!r}）</translation>
    </message>
    <message>
        <source>not a JSON report: {e}</source>
        <extracomment>A report holds summaries, not series: a file larger than this is not one.</extracomment>
        <translation>不是 JSON 报告：{e}</translation>
    </message>
    <message>
        <source>not a latency: {t!r} (e.g. 50ms, 2s)</source>
        <translation>不是延迟值：{t!r}（例如 50ms、2s）</translation>
    </message>
    <message>
        <source>not a number: {t!r} (e.g. 7e9 or 7B)</source>
        <translation>不是数字：{t!r}（例如 7e9 或 7B）</translation>
    </message>
    <message>
        <source>not a Prometheus API answer: {w}</source>
        <translation>不是 Prometheus API 的应答：{w}</translation>
    </message>
    <message>
        <source>not a valid URL ({e})</source>
        <translation>不是有效的 URL（{e}）</translation>
    </message>
    <message>
        <source>not allowed with argument %s</source>
        <translation>不能与参数 %s 同时使用</translation>
    </message>
    <message>
        <source>not an http:// or https:// URL with a host name</source>
        <translation>不是带主机名的 http:// 或 https:// URL</translation>
    </message>
    <message>
        <source>not an NVLink part, or a single GPU</source>
        <extracomment>Measured, not graded: no reference to compare with, or runs too noisy to grade. A whole check&apos;s verdict, never an item&apos;s: cancelled before anything failed. Why a GPU has no item for its GPU-to-GPU fabric, by fabric.</extracomment>
        <translation>不是 NVLink 型号，或只有一块 GPU</translation>
    </message>
    <message>
        <source>not an XGMI part, or a single GPU</source>
        <translation>不是 XGMI 部件，或只有一块 GPU</translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message>
        <source>not available: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message>
        <source>Not checked (no GPU):</source>
        <translation>未检查（没有 GPU）：</translation>
    </message>
    <message>
        <source>not checked yet</source>
        <translation>尚未检查</translation>
    </message>
    <message>
        <source>not enough free memory on {d} for a memory test</source>
        <translation>{d} 上的空闲内存不足以进行内存测试</translation>
    </message>
    <message>
        <source>not mapped</source>
        <translation>未能对应到 torch 设备</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>Not offered for SIMULATED data: its processes are made up, not processes of this machine</source>
        <translation>SIMULATED 数据不提供此操作：其进程是虚构的，不是本机的进程</translation>
    </message>
    <message>
        <source>Not offered in REPLAY: the recorded processes are not running now, and their pids may belong to other processes</source>
        <translation>REPLAY 中不提供此操作：录制的进程现在并未运行，其 PID 可能已属于其他进程</translation>
    </message>
    <message>
        <source>Not offered: no live GPU processes are shown</source>
        <translation>不提供此操作：当前未显示正在运行的 GPU 进程</translation>
    </message>
    <message>
        <source>not permitted to read the profiling counters</source>
        <translation>无权读取性能分析计数器</translation>
    </message>
    <message>
        <source>not permitted to signal {t}: {e} (nothing was signalled)</source>
        <translation>无权向 {t} 发送信号：{e}（未发送任何信号）</translation>
    </message>
    <message>
        <source>not reported</source>
        <translation>未报告</translation>
    </message>
    <message>
        <source>Not run (nothing to judge):</source>
        <translation>未运行（没有可判断的数据）：</translation>
    </message>
    <message>
        <source>not run yet: press Run (Ctrl+B)</source>
        <translation>尚未运行：请按“运行” (Ctrl+B)</translation>
    </message>
    <message>
        <source>not seen on any GPU</source>
        <translation>未在任何 GPU 上出现</translation>
    </message>
    <message>
        <source>not started: cancelled</source>
        <translation>未开始：已取消</translation>
    </message>
    <message>
        <source>not supported by this driver or nvidia-ml-py</source>
        <translation>此驱动或 nvidia-ml-py 不支持</translation>
    </message>
    <message>
        <source>not supported on this GPU</source>
        <extracomment>NVML refreshes the GPM counters every 100 ms; samples closer than this are refused. How often a GPU&apos;s GPM counters are sampled while no live view shows them (seconds; at every poll while one does, ``NvmlSource.watch_gpm``): each value is the mean over this span, repeated by the polls in between without a driver call (perf/sampler.py). After a transient failure of the support check or the buffers, ask again this much later.</extracomment>
        <translation>此 GPU 不支持</translation>
    </message>
    <message>
        <source>not UTF-8 text</source>
        <translation>不是 UTF-8 文本</translation>
    </message>
    <message>
        <source>NOT verified</source>
        <translation>未验证</translation>
    </message>
    <message>
        <source>not visible to CUDA (torch does not list this GPU)</source>
        <translation>CUDA 不可见（torch 未列出此 GPU）</translation>
    </message>
    <message>
        <source>not visible to CUDA: CUDA_VISIBLE_DEVICES={v}</source>
        <extracomment>How a match was made (``CudaMatch.how``).</extracomment>
        <translation>CUDA 不可见：CUDA_VISIBLE_DEVICES={v}</translation>
    </message>
    <message>
        <source>note: --gpus {n} on {per}-GPU nodes is costed as {nodes} nodes × {c} = {t} GPUs (the same number on each node)</source>
        <translation>注意：--gpus {n} 在每节点 {per} 块 GPU 的机器上按 {nodes} 个节点 × {c} = {t} 块 GPU 计算（每个节点数量相同）</translation>
    </message>
    <message>
        <source>note: listening on {b} without --tls-cert: the token and the telemetry cross the network unencrypted</source>
        <translation>注意：在 {b} 上监听但未使用 --tls-cert：令牌和遥测数据将以明文在网络上传输</translation>
    </message>
    <message>
        <source>note: listening on {b}; anyone who can reach it can read the GPU telemetry</source>
        <translation>注意：正在监听 {b}；任何能访问该地址的人都能读取 GPU 遥测数据</translation>
    </message>
    <message>
        <source>note: the runs were on different devices ({x} / {y})</source>
        <translation>注意：两次运行在不同的设备上（{x} / {y}）</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>nothing imported from {p}: {r}</source>
        <translation>未从 {p} 导入任何内容：{r}</translation>
    </message>
    <message>
        <source>NOTHING MEETS THE DEADLINE: the fastest fitting candidate needs {t}</source>
        <translation>没有候选能赶上截止时间：可容纳的最快候选需要 {t}</translation>
    </message>
    <message>
        <source>NOTHING MEETS THE LATENCY TARGETS ({p}): the rows show how close each comes</source>
        <translation>没有配置满足延迟目标（{p}）：各行显示各自的差距</translation>
    </message>
    <message>
        <source>nothing priced meets the {what} within --nodes {n}; with --nodes {m}: {nodes} × {provider} {instance} ({t}, {c})</source>
        <translation>在 --nodes {n} 之内没有有价格的配置满足{what}；若用 --nodes {m}：{nodes} × {provider} {instance}（{t}，{c}）</translation>
    </message>
    <message>
        <source>nothing priced meets the {what}, even with --nodes {m}</source>
        <translation>即使用 --nodes {m}，也没有有价格的配置满足{what}</translation>
    </message>
    <message>
        <source>NOTHING STAYS WITHIN THE BUDGET of {b}: the cheapest candidate costs {c}</source>
        <translation>没有候选在 {b} 的预算之内：最便宜的候选花费 {c}</translation>
    </message>
    <message>
        <source>Nothing to do unless the count keeps growing; then watch for row remapping.</source>
        <translation>除非计数持续增长，否则无需处理；若持续增长，请关注行重映射。</translation>
    </message>
    <message>
        <source>Nothing was signalled</source>
        <translation>未发送任何信号</translation>
    </message>
    <message>
        <source>nothing was signalled</source>
        <translation>未发送任何信号</translation>
    </message>
    <message>
        <source>Numeric precision of weights and math; sets bytes per parameter and which spec peak applies</source>
        <translation>权重和计算的数值精度；决定每个参数的字节数以及适用哪种规格峰值</translation>
    </message>
    <message>
        <source>NV# = # NVLinks; PIX/PXB = PCIe switch(es); PHB = host bridge; NODE = same NUMA node; SYS = across sockets</source>
        <translation>NV# = # 条 NVLink；PIX/PXB = PCIe 交换芯片；PHB = 主机桥；NODE = 同一 NUMA 节点；SYS = 跨 CPU 插槽</translation>
    </message>
    <message>
        <source>NV# = NVLinks · PIX/PXB = PCIe switch · PHB = host bridge · NODE = same NUMA node · SYS = across NUMA nodes</source>
        <translation>NV# = NVLink 数 · PIX/PXB = PCIe 交换芯片 · PHB = 主机桥 · NODE = 同一 NUMA 节点 · SYS = 跨 NUMA 节点</translation>
    </message>
    <message>
        <source>NVIDIA driver %1 · CUDA %2 · NVML %3</source>
        <translation>NVIDIA 驱动 %1 · CUDA %2 · NVML %3</translation>
    </message>
    <message>
        <source>NVIDIA driver and the CUDA version it supports</source>
        <translation>NVIDIA 驱动及其支持的 CUDA 版本</translation>
    </message>
    <message>
        <source>NVLink / XGMI — receive or read (bright), transmit or write (pale)</source>
        <translation>NVLink / XGMI — 接收或读（亮色），发送或写（浅色）</translation>
    </message>
    <message>
        <source>NVLink / XGMI — receive or read (transmit, write: not drawn)</source>
        <translation>NVLink / XGMI — 接收或读（发送、写：未绘制）</translation>
    </message>
    <message>
        <source>NVLink rx/tx</source>
        <translation>NVLink 收/发</translation>
    </message>
    <message>
        <source>NVLink — receive (bright), transmit (pale)</source>
        <translation>NVLink — 接收（亮色），发送（浅色）</translation>
    </message>
    <message>
        <source>NVLink — receive (transmit: not drawn)</source>
        <translation>NVLink — 接收（发送：未绘制）</translation>
    </message>
    <message>
        <source>NVLinks</source>
        <translation>NVLink 数</translation>
    </message>
    <message>
        <source>NVML</source>
        <translation>NVML</translation>
    </message>
    <message>
        <source>NVML %1</source>
        <translation>NVML %1</translation>
    </message>
    <message>
        <source>Objective</source>
        <translation>优化目标</translation>
    </message>
    <message>
        <source>Of the spec sheet&apos;s dense peak for this dtype (GEMM only)</source>
        <translation>占规格表中该数据类型稠密峰值的比例（仅 GEMM）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>On-demand</source>
        <translation>按需</translation>
    </message>
    <message>
        <source>on-demand</source>
        <extracomment>Hours in a billed month (365 × 24 ÷ 12): a monthly price&apos;s hourly equivalent and the span one month of a subscription covers.</extracomment>
        <translation>按需</translation>
    </message>
    <message>
        <source>on-demand /h</source>
        <translation>按需 /小时</translation>
    </message>
    <message>
        <source>one GPU</source>
        <translation>单个 GPU</translation>
    </message>
    <message>
        <source>One KEY=VALUE a line, e.g. CUDA_VISIBLE_DEVICES=0</source>
        <translation>每行一个 KEY=VALUE，例如 CUDA_VISIBLE_DEVICES=0</translation>
    </message>
    <message>
        <source>one node</source>
        <translation>单节点</translation>
    </message>
    <message>
        <source>one of the arguments %s is required</source>
        <translation>需要参数 %s 之一</translation>
    </message>
    <message>
        <source>one product would take ~{t:.1f} s on this CPU (limit {limit:.0f} s, so cancel stays prompt)</source>
        <translation>在此 CPU 上一次矩阵乘约需 {t:.1f} 秒（上限 {limit:.0f} 秒，以便及时响应取消）</translation>
    </message>
    <message>
        <source>Only configurations that fit</source>
        <translation>仅显示可容纳的配置</translation>
    </message>
    <message>
        <source>only one file given</source>
        <translation>只给出了一个文件</translation>
    </message>
    <message>
        <source>only the series matching these PromQL label matchers, e.g. &apos;{cluster=&quot;a&quot;}&apos;</source>
        <translation>只看匹配这些 PromQL 标签匹配器的序列，例如 &apos;{cluster=&quot;a&quot;}&apos;</translation>
    </message>
    <message>
        <source>only this GPU model (e.g. H100, A100-80GB)</source>
        <translation>仅限此 GPU 型号（例如 H100、A100-80GB）</translation>
    </message>
    <message>
        <source>Only with a spot price</source>
        <translation>仅限有竞价价格的</translation>
    </message>
    <message>
        <source>op</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>open a recorded session for replay</source>
        <translation>打开录制的会话进行回放</translation>
    </message>
    <message>
        <source>Open in &amp;replay</source>
        <translation>回放(&amp;R)</translation>
    </message>
    <message>
        <source>open the Fleet tab on the Prometheus at URL (with --token-file: its bearer token); each query may take {s:g} s in all and answer at most {n} MiB</source>
        <translation>打开位于 URL 的 Prometheus 的集群标签页（配合 --token-file：其 Bearer 令牌）；每次查询总共最多 {s:g} 秒，响应不超过 {n} MiB</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <source>optional, per second</source>
        <translation>可选，每秒</translation>
    </message>
    <message>
        <source>options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>or: current prices from a provider&apos;s price API, with your own keys</source>
        <translation>或：用你自己的密钥从云厂商的价格 API 获取当前价格</translation>
    </message>
    <message>
        <source>OS</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <source>Other checks</source>
        <translation>其他检查</translation>
    </message>
    <message>
        <source>out of memory at size scale {s:g}; retried with sizes x{half:g}</source>
        <translation>尺寸缩放 {s:g} 倍时显存不足；已按 {half:g} 倍尺寸重试</translation>
    </message>
    <message>
        <source>out of memory even at the smallest size tried</source>
        <translation>即使用尝试过的最小尺寸也显存不足</translation>
    </message>
    <message>
        <source>Outliers between machines need three or more; with two, each row shows the ratio second / first, and gaps over 20% are listed. A result file may hold at most {items} items and {mib} MiB; only regular files are read. The terminal shows at most {rows} rows and {cols} machines (those with something to see when there are more); --html and --json hold every one.</source>
        <translation>机器之间的离群值需要三台或更多机器；只有两台时，每行显示第二台 / 第一台的比值，并列出相差超过 20% 的项。一个结果文件最多 {items} 项、{mib} MiB；只读取普通文件。终端最多显示 {rows} 行和 {cols} 台机器（超出时只显示值得关注的）；--html 和 --json 包含全部。</translation>
    </message>
    <message>
        <source>Output tokens</source>
        <translation>输出 token</translation>
    </message>
    <message>
        <source>Output tokens per second one instance sustains at its best batch</source>
        <translation>单个实例在最佳批量下可维持的每秒输出 token 数</translation>
    </message>
    <message>
        <source>output tokens/s per instance</source>
        <translation>每实例输出 token/秒</translation>
    </message>
    <message>
        <source>over 256 GPUs</source>
        <translation>超过 256 个 GPU</translation>
    </message>
    <message>
        <source>over the budget of {budget}</source>
        <translation>超出 {budget} 的预算</translation>
    </message>
    <message>
        <source>oversized GPU for a {billions:.2g}B-parameter model ({share:.0%} of memory): a smaller GPU is likely cheaper per result</source>
        <translation>对 {billions:.2g}B 参数的模型而言 GPU 过大（占显存 {share:.0%}）：更小的 GPU 单位产出成本可能更低</translation>
    </message>
    <message>
        <source>oversized: the job uses {share:.0%} of each GPU&apos;s memory on {gpus:g} GPUs; fewer or smaller GPUs would do</source>
        <translation>配置过大：作业在 {gpus:g} 个 GPU 上只用了每个 GPU {share:.0%} 的显存；更少或更小的 GPU 即可</translation>
    </message>
    <message>
        <source>Overview</source>
        <extracomment>The redraw timer period: at most 20 frames a second (DESIGN.md, data flow). A plot tab spends at most 1/DUTY_FACTOR of the GUI thread on redraws: a frame that took 40 ms waits DUTY_FACTOR × 40 ms before the next (paint costs about as much again as refresh). Emitted in the GUI thread after each snapshot was taken into the state. ``(StaticFacts)`` of the source being watched, in the GUI thread, once read. ``(Measurements)`` a benchmark run on this machine measured (a feature emits it). ``(CheckResult)`` of an acceptance check run in this window (a feature emits it). Emitted once when the window starts closing, before its features shut down. A new source, or the session&apos;s state changed (a recording stopped on its own).</extracomment>
        <translation>概览</translation>
    </message>
    <message>
        <source>overwrite FILE if it exists</source>
        <translation>如果 FILE 已存在则覆盖</translation>
    </message>
    <message>
        <source>overwrite OUT if it exists</source>
        <translation>如果 OUT 已存在则覆盖</translation>
    </message>
    <message>
        <source>Owner of the process</source>
        <translation>进程所属用户</translation>
    </message>
    <message>
        <source>P ★ = on the Pareto front of time vs cost. &apos;vs here&apos; = times faster than this machine. ✗ = misses the deadline or the budget.</source>
        <translation>P ★ = 位于时间与成本的帕累托前沿。“对比本机” = 比本机快的倍数。✗ = 超出截止时间或预算。</translation>
    </message>
    <message>
        <source>P2P</source>
        <translation>P2P</translation>
    </message>
    <message>
        <source>P2P unidirectional bandwidth, peer access on</source>
        <translation>P2P 单向带宽，已开启对等访问</translation>
    </message>
    <message>
        <source>P2P unidirectional bandwidth, peer access on ({s})</source>
        <translation>P2P 单向带宽，已开启对等访问（{s}）</translation>
    </message>
    <message>
        <source>p50 of requests</source>
        <translation>50% 的请求（p50）</translation>
    </message>
    <message>
        <source>P50 of {n} measured steps</source>
        <translation>{n} 个实测步骤的 P50</translation>
    </message>
    <message>
        <source>p99 of requests</source>
        <translation>99% 的请求（p99）</translation>
    </message>
    <message>
        <source>packaged catalog only</source>
        <translation>仅内置目录</translation>
    </message>
    <message>
        <source>Pages or rows are marked for retirement/remapping, which takes effect at the next GPU reset.</source>
        <translation>有页或行被标记为退役/重映射，将在下次 GPU 重置时生效。</translation>
    </message>
    <message>
        <source>pairs of one publication&apos;s runs</source>
        <translation>同一出版物的运行对</translation>
    </message>
    <message>
        <source>pairs of one publication&apos;s runs across a GPU generation</source>
        <translation>同一出版物跨 GPU 代际的运行对</translation>
    </message>
    <message>
        <source>pairs of one publication&apos;s runs on one GPU generation</source>
        <translation>同一出版物在同一 GPU 代际上的运行对</translation>
    </message>
    <message>
        <source>pairs of one publication&apos;s runs on {here}</source>
        <translation>同一出版物在 {here} 上的运行对</translation>
    </message>
    <message>
        <source>pairs of one publication&apos;s runs on {here} and {there}</source>
        <translation>同一出版物在 {here} 与 {there} 上的运行对</translation>
    </message>
    <message>
        <source>paper must be one of {p}, got {x!r}</source>
        <extracomment>Paper names the CLI and the dialog accept. Chart rasterization scale over CSS pixels (sharp at ~200 dpi on paper). A word longer than this (characters) gets a zero-width break point every as many characters. The space between a number and what follows it (&quot;1,980 MHz&quot;, &quot;80.0 GiB&quot;, &quot;12 %&quot;). The dash of a range (&quot;345 MHz–1,980 MHz&quot;): a line may break after it.</extracomment>
        <translation>纸张必须是 {p} 之一，实际为 {x!r}</translation>
    </message>
    <message>
        <source>Paper:</source>
        <translation>纸张：</translation>
    </message>
    <message>
        <source>parameter count, e.g. 7B</source>
        <translation>参数量，例如 7B</translation>
    </message>
    <message>
        <source>parameter count, e.g. 7e9 or 7B</source>
        <translation>参数量，例如 7e9 或 7B</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>params</source>
        <translation>总参数量</translation>
    </message>
    <message>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <source>partial</source>
        <translation>部分完成</translation>
    </message>
    <message>
        <source>partial: time budget of the case reached</source>
        <translation>部分完成：已达到该用例的时间预算</translation>
    </message>
    <message>
        <source>partition %1</source>
        <translation>分区 %1</translation>
    </message>
    <message>
        <source>Passes over the tokens or samples</source>
        <translation>遍历 token 或样本的轮数</translation>
    </message>
    <message>
        <source>passes over tokens/samples (default 1)</source>
        <translation>遍历 token/样本的轮数（默认 1）</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause replay</source>
        <translation>暂停回放</translation>
    </message>
    <message>
        <source>Pause the replay (Space)</source>
        <translation>暂停回放 (Space)</translation>
    </message>
    <message>
        <source>pay-as-you-go price the provider&apos;s API quoted for this account</source>
        <translation>云厂商 API 为此账户报出的按量付费价格</translation>
    </message>
    <message>
        <source>PCI bus id</source>
        <translation>PCI 总线 ID</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source>PCIe (now / max)</source>
        <translation>PCIe（当前 / 最高）</translation>
    </message>
    <message>
        <source>PCIe link at its maximum generation and width under load</source>
        <translation>负载下 PCIe 链路达到最大代数和宽度</translation>
    </message>
    <message>
        <source>PCIe link below the GPU&apos;s own maximum</source>
        <translation>PCIe 链路低于该 GPU 自身的最大值</translation>
    </message>
    <message>
        <source>PCIe link generation and width now, against the maximum. An idle GPU lowers its link generation to save power; check under load.</source>
        <translation>当前 PCIe 链路代数和宽度，对比最大值。空闲的 GPU 会降低链路代数以节能；请在负载下检查。</translation>
    </message>
    <message>
        <source>PCIe link unknown</source>
        <translation>PCIe 链路未知</translation>
    </message>
    <message>
        <source>PCIe max link</source>
        <translation>PCIe 最大链路</translation>
    </message>
    <message>
        <source>PCIe plus the interconnect between PCIe host bridges within one NUMA node</source>
        <translation>PCIe 加同一 NUMA 节点内 PCIe 主桥之间的互连</translation>
    </message>
    <message>
        <source>PCIe plus the SMP interconnect between NUMA nodes (e.g. QPI/UPI): the slowest path</source>
        <translation>PCIe 加 NUMA 节点间的 SMP 互连（如 QPI/UPI）：最慢的路径</translation>
    </message>
    <message>
        <source>PCIe rx/tx</source>
        <translation>PCIe 收/发</translation>
    </message>
    <message>
        <source>PCIe through a PCIe host bridge (typically the CPU)</source>
        <translation>经过一个 PCIe 主桥（通常是 CPU）的 PCIe</translation>
    </message>
    <message>
        <source>PCIe through at most one PCIe bridge</source>
        <translation>最多经过一个 PCIe 桥的 PCIe</translation>
    </message>
    <message>
        <source>PCIe through several PCIe bridges, without the host bridge</source>
        <translation>经过多个 PCIe 桥、不经过主桥的 PCIe</translation>
    </message>
    <message>
        <source>PCIe — receive (bright), transmit (pale)</source>
        <translation>PCIe — 接收（亮色），发送（浅色）</translation>
    </message>
    <message>
        <source>PCIe — receive (transmit: not drawn)</source>
        <translation>PCIe — 接收（发送：未绘制）</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>PDF needs the desktop app&apos;s Qt (PySide6), which this build lacks: {e}; write .html and print it to PDF instead</source>
        <translation>PDF 需要桌面应用的 Qt（PySide6），但此构建不包含：{e}；请改为输出 .html 再打印为 PDF</translation>
    </message>
    <message>
        <source>PDF paper size</source>
        <translation>PDF 纸张大小</translation>
    </message>
    <message>
        <source>PDF paper size (default a4)</source>
        <translation>PDF 纸张大小（默认 a4）</translation>
    </message>
    <message>
        <source>Peak GPU temperature {t}.</source>
        <translation>GPU 峰值温度 {t}。</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>待处理</translation>
    </message>
    <message>
        <source>Per machine:</source>
        <translation>每台机器：</translation>
    </message>
    <message>
        <source>per MIG instance only</source>
        <translation>仅按 MIG 实例提供</translation>
    </message>
    <message>
        <source>performance</source>
        <translation>性能</translation>
    </message>
    <message>
        <source>Persist.</source>
        <translation>持久模式</translation>
    </message>
    <message>
        <source>Persistence mode</source>
        <translation>持久模式</translation>
    </message>
    <message>
        <source>Persistence mode on</source>
        <translation>持久模式已开启</translation>
    </message>
    <message>
        <source>persistence mode unknown</source>
        <translation>持久模式未知</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Phases</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>phases from the step markers (no GPU activity was seen)</source>
        <translation>阶段依据步骤标记划分（未观察到 GPU 活动）</translation>
    </message>
    <message>
        <source>phases not detected: no GPU activity and no step markers</source>
        <translation>未检测到阶段：既无 GPU 活动，也无步骤标记</translation>
    </message>
    <message>
        <source>PID</source>
        <extracomment>(attribute, header) per column; headers are translated when shown. ``run_time_s`` and ``container`` are derived from the sample (start time; container id and pod).</extracomment>
        <translation>PID</translation>
    </message>
    <message>
        <source>pid</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>pid %1 (%2) on GPU %3</source>
        <translation>GPU %3 上的 PID %1（%2）</translation>
    </message>
    <message>
        <source>pid must be a positive number, got {p}</source>
        <translation>PID 必须是正数，得到的是 {p}</translation>
    </message>
    <message>
        <source>pid {p}</source>
        <translation>PID {p}</translation>
    </message>
    <message>
        <source>pid {p} ({n})</source>
        <extracomment>psutil&apos;s create time is boot time + start ticks: two reads of one process agree to the tick. PF_KTHREAD in the flags of ``/proc/PID/stat`` (field 9), set for every kernel thread. More reliable than &quot;no exe&quot; (a process may lose its exe) or &quot;parent is kthreadd&quot; (pid 2 itself).</extracomment>
        <translation>PID {p}（{n}）</translation>
    </message>
    <message>
        <source>pid {p} is now a different process ({n}, started {s}); nothing was signalled</source>
        <translation>PID {p} 现在是另一个进程（{n}，启动于 {s}）；未发送任何信号</translation>
    </message>
    <message>
        <source>plan: about {m:.1f} min for {level} on {where}</source>
        <extracomment>The time budget of each level on one 8-GPU node (issue 14); burn-in adds its minutes (once: all GPUs are loaded together). Polls of the health window before and after the measurements, per level. Host memory the CPU-only memory test covers, per level (a smoke test of the host). Memory tested per GPU at ``quick`` (at most; less when less is free): 8 GiB. Share of the free memory tested per GPU at ``standard`` and ``burn-in`` (memtest&apos;s default). Bytes read + written per tested byte, per pattern: the write pass and the verify pass each build the pattern (walking ones: arange, ones_like, %, &lt;&lt;, and the int64 → int32 fold, 124 bytes per 4-byte word; address: 76; random: one int32 write), and the verify adds the compare (8 read, 1 written) and the nonzero scan (1 read) per word. Share of the spec memory bandwidth assumed for the memory test&apos;s tensor operations. Allocating a GPU&apos;s test chunks and freeing them afterwards. Bandwidth assumed for a GPU without a spec row (the lowest of the data-center rows, T4/L4). Bandwidth assumed for the host memory test (the CPU-only check; a small test). One step past a case&apos;s budget, and the collectives&apos; give-up time past theirs. importing torch and initialising CUDA once; a context, cuBLAS and the allocator per GPU. NVML inventory (devices, topology, system) and one poll of the health window.</extracomment>
        <translation>计划：{level} 级别在 {where} 上约需 {m:.1f} 分钟</translation>
    </message>
    <message>
        <source>Play a recorded session back at its own pace (or --speed times faster).</source>
        <translation>按原始节奏回放录制的会话（或用 --speed 指定加速倍数）。</translation>
    </message>
    <message>
        <source>play a recorded session in the terminal</source>
        <translation>在终端中播放录制的会话</translation>
    </message>
    <message>
        <source>Play replay</source>
        <translation>播放回放</translation>
    </message>
    <message>
        <source>Play the replay from here (Space)</source>
        <translation>从此处开始播放回放 (Space)</translation>
    </message>
    <message>
        <source>playback speed factor (default 1)</source>
        <translation>回放速度倍数（默认 1）</translation>
    </message>
    <message>
        <source>Plots of every metric over time (Alt+2)</source>
        <translation>每项指标随时间变化的曲线 (Alt+2)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>PNG screenshots need the desktop app, which this build lacks: {e}</source>
        <translation>PNG 截图需要桌面应用，但此构建不包含：{e}</translation>
    </message>
    <message>
        <source>pod %1</source>
        <translation>Pod %1</translation>
    </message>
    <message>
        <source>Poll the GPUs every %1 s</source>
        <translation>每 %1 s 轮询一次 GPU</translation>
    </message>
    <message>
        <source>port must be an integer, got {t!r}</source>
        <translation>端口必须是整数，实际为 {t!r}</translation>
    </message>
    <message>
        <source>port {t} is out of range 0–65535</source>
        <translation>端口 {t} 超出范围 0–65535</translation>
    </message>
    <message>
        <source>Position / length of the recording</source>
        <translation>录制中的位置 / 录制总长度</translation>
    </message>
    <message>
        <source>Position in the recording; drag to seek</source>
        <translation>在录制中的位置；拖动可跳转</translation>
    </message>
    <message>
        <source>positional arguments</source>
        <translation>位置参数</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <source>power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <source>power capping under full load; compare the power limit with the spec</source>
        <translation>满负载下功率封顶；将功率上限与规格对比</translation>
    </message>
    <message>
        <source>Power draw (limit: dashed line)</source>
        <translation>功耗（上限：虚线）</translation>
    </message>
    <message>
        <source>Power draw against the enforced power limit</source>
        <translation>功耗与当前生效的功耗上限</translation>
    </message>
    <message>
        <source>Power limit</source>
        <translation>功耗上限</translation>
    </message>
    <message>
        <source>Power limit at its default</source>
        <translation>功耗上限为默认值</translation>
    </message>
    <message>
        <source>Power limit default</source>
        <translation>默认功耗上限</translation>
    </message>
    <message>
        <source>Power limit range</source>
        <translation>功耗上限范围</translation>
    </message>
    <message>
        <source>power limit {w:.0f} W</source>
        <translation>功耗上限 {w:.0f} W</translation>
    </message>
    <message>
        <source>Pre-training</source>
        <translation>预训练</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Precision of the KV cache</source>
        <translation>KV 缓存的精度</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>pretrain, finetune-full, finetune-lora, inference, hpc-fp64, render</source>
        <translation>可选：pretrain、finetune-full、finetune-lora、inference、hpc-fp64、render</translation>
    </message>
    <message>
        <source>pretrain|train, finetune-full, finetune-lora, serve|inference, hpc-fp64, render</source>
        <translation>pretrain|train、finetune-full、finetune-lora、serve|inference、hpc-fp64、render</translation>
    </message>
    <message>
        <source>Price as of %1 — source: %2</source>
        <translation>价格截至 %1 — 来源：%2</translation>
    </message>
    <message>
        <source>Price per hour of all nodes on the ranking basis, USD/h</source>
        <translation>按排序计价方式计算的所有节点每小时价格，USD/h</translation>
    </message>
    <message>
        <source>Price source: %1</source>
        <translation>价格来源：%1</translation>
    </message>
    <message>
        <source>Prices</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>Prices as of</source>
        <translation>价格日期</translation>
    </message>
    <message>
        <source>prices as of {d} are over {n} days old (gpuprof catalog update)</source>
        <translation>价格日期 {d} 已超过 {n} 天（gpuprof catalog update）</translation>
    </message>
    <message>
        <source>prices carry no date they were read: treat them as old (gpuprof catalog update)</source>
        <translation>价格没有读取日期：按过期价格对待（gpuprof catalog update）</translation>
    </message>
    <message>
        <source>prices dated only {d}: the day they were read is unknown, treat them as old (gpuprof catalog update)</source>
        <translation>价格只标注到 {d}：读取日期不明，按过期价格对待（gpuprof catalog update）</translation>
    </message>
    <message>
        <source>Prices updated: %1 instances from %2 catalogs</source>
        <translation>价格已更新：来自 %2 个目录的 %1 个实例</translation>
    </message>
    <message>
        <source>print each snapshot as one JSON line, as fast as possible</source>
        <translation>以最快速度将每个快照输出为一行 JSON</translation>
    </message>
    <message>
        <source>print JSON</source>
        <translation>输出 JSON</translation>
    </message>
    <message>
        <source>print JSON instead of tables</source>
        <translation>输出 JSON 而不是表格</translation>
    </message>
    <message>
        <source>print one snapshot and exit</source>
        <translation>输出一个快照后退出</translation>
    </message>
    <message>
        <source>print strict JSON instead of tables</source>
        <translation>输出严格的 JSON 而不是表格</translation>
    </message>
    <message>
        <source>Process</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>Process details need more permissions: some rows are missing names or users.</source>
        <translation>进程详情需要更多权限：部分行缺少名称或用户。</translation>
    </message>
    <message>
        <source>Process id</source>
        <translation>进程 ID</translation>
    </message>
    <message>
        <source>process id to signal</source>
        <extracomment>How long to watch for the process to exit after the signal.</extracomment>
        <translation>要发送信号的进程 ID</translation>
    </message>
    <message>
        <source>Processes</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>Processes using the GPUs (Alt+3)</source>
        <translation>使用 GPU 的进程 (Alt+3)</translation>
    </message>
    <message>
        <source>Profile a command</source>
        <translation>分析命令</translation>
    </message>
    <message>
        <source>profile a running process until it exits or Ctrl-C</source>
        <translation>分析一个正在运行的进程，直到它退出或按下 Ctrl-C</translation>
    </message>
    <message>
        <source>profile a window of steps with torch.profiler inside the job (needs gpuprof.track)</source>
        <translation>在作业内用 torch.profiler 分析一段步骤窗口（需要 gpuprof.track）</translation>
    </message>
    <message>
        <source>Profile a window of steps with torch.profiler: shares of matmul, attention, collectives, copies and idle time, and a trace file next to the recording</source>
        <translation>用 torch.profiler 分析一段步骤窗口：矩阵乘、注意力、集合通信、拷贝和空闲时间的占比，并在录制文件旁保存跟踪文件</translation>
    </message>
    <message>
        <source>profiled on the CPU: a CPU step cannot be scaled to a GPU&apos;s (the host work and the kernel launches a GPU would add are not in it); profile the job on a GPU, or estimate it from its size with gpuprof recommend --model/--params</source>
        <extracomment>The dtype of the peaks compared when the step markers do not name one. Share of an instance&apos;s per-GPU memory the job may fill (CUDA context, fragmentation). Fraction of the peak there a job reaches when nothing here measured it (a GPU without a spec row here). Why a profile taken on the CPU is not projected (issue 23): its step is CPU compute and host work together, which no ratio of GPU peaks turns into a GPU&apos;s step (a 2.47 s CPU step became 0.005 ms and $0.00 that way).</extracomment>
        <translation>在 CPU 上剖析：CPU 的步时无法换算为 GPU 的步时（其中不含 GPU 会增加的主机工作和内核启动）；请在 GPU 上剖析该作业，或用 gpuprof recommend --model/--params 按其规模估算</translation>
    </message>
    <message>
        <source>Profiling</source>
        <translation>正在分析</translation>
    </message>
    <message>
        <source>project a job recorded by `gpuprof profile` onto the catalog: its measured step time scaled by peak and bandwidth ratios (with --steps N or --tokens T)</source>
        <translation>把 `gpuprof profile` 录制的作业推算到云目录上：按峰值算力和带宽之比缩放实测的步时间（可配合 --steps N 或 --tokens T）</translation>
    </message>
    <message>
        <source>Project this job — %1</source>
        <translation>推算此作业 — %1</translation>
    </message>
    <message>
        <source>Projection is not available in this gpuprof.</source>
        <translation>此版本的 gpuprof 不支持推算。</translation>
    </message>
    <message>
        <source>Prometheus at {u}: {w}</source>
        <extracomment>Seconds one request may take in all, from connecting to the answer&apos;s last byte. The largest answer read (bytes). FleetError&apos;s kinds for gpuprof.httperrors&apos; where they differ.</extracomment>
        <translation>Prometheus（{u}）：{w}</translation>
    </message>
    <message>
        <source>Prometheus cannot scrape {i} (job {j}): up is 0, so its {n} GPUs are not seen.</source>
        <translation>Prometheus 无法抓取 {i}（job {j}）：up 为 0，因此看不到它的 {n} 个 GPU。</translation>
    </message>
    <message>
        <source>Prometheus did not answer; asking again in %1 s.</source>
        <translation>Prometheus 未应答；%1 秒后重试。</translation>
    </message>
    <message>
        <source>Prometheus URL:</source>
        <translation>Prometheus URL：</translation>
    </message>
    <message>
        <source>Prometheus {u}: {n} nodes ({d} down), {g} GPUs ({s} not reporting)</source>
        <translation>Prometheus {u}：{n} 个节点（{d} 个停止），{g} 个 GPU（{s} 个未上报）</translation>
    </message>
    <message>
        <source>Prometheus&apos;s address, e.g. http://127.0.0.1:9090</source>
        <extracomment>The grid&apos;s GPU columns at most (MIG instances included); --json has them all.</extracomment>
        <translation>Prometheus 的地址，例如 http://127.0.0.1:9090</translation>
    </message>
    <message>
        <source>Prompt tokens</source>
        <translation>提示 token</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>云厂商</translation>
    </message>
    <message>
        <source>provider</source>
        <extracomment>Rows of one ``catalog list`` table: a 100,000-row catalog is shown a page at a time. The columns of ``catalog list``.</extracomment>
        <translation>云厂商</translation>
    </message>
    <message>
        <source>provider / instance</source>
        <extracomment>The first columns of every recommend table (job, serving, a profiled job&apos;s projection).</extracomment>
        <translation>云厂商 / 实例</translation>
    </message>
    <message>
        <source>provider name for SkyPilot rows (default: folder name)</source>
        <translation>SkyPilot 行的云厂商名称（默认：文件夹名）</translation>
    </message>
    <message>
        <source>published</source>
        <translation>公开数据</translation>
    </message>
    <message>
        <source>published MFU: PaLM 540B 46.2% (Chowdhery et al. 2022); Megatron-LM 1T params on 3072 A100 52% of peak (Narayanan et al. 2021); ml-engineering: ~50% MFU &apos;is considered a win&apos; -&gt; 45% assumed</source>
        <extracomment>PCIe x16 bandwidth per direction, GB/s, by generation (unknown generation → gen3). (efficiency, where it comes from) by kind of workload. The sources stay English in results (JSON, reports); they are marked for the catalog and translated where shown (``tr_text``).</extracomment>
        <translation>已发表的 MFU：PaLM 540B 为 46.2%（Chowdhery 等，2022）；Megatron-LM 1T 参数在 3072 块 A100 上达到峰值的 52%（Narayanan 等，2021）；ml-engineering：约 50% 的 MFU 即“算是成功” -&gt; 假设为 45%</translation>
    </message>
    <message>
        <source>Put an acceptance check (gpuprof check --json) on the report&apos;s first page</source>
        <translation>把验收检查（gpuprof check --json）放在报告的第一页</translation>
    </message>
    <message>
        <source>Put the results of `gpuprof check --json` or `gpuprof bench --json` from several machines side by side, one column per machine, and flag outliers: a value worse than the median of its peers (the other machines, or the other GPUs of the same machine) by more than 20% or than three robust deviations of the peers. A file that cannot be read is named with the reason and left out. Exit 0: compared, no outlier; 1: outliers flagged; 2: fewer than two files could be read.</source>
        <translation>把多台机器的 `gpuprof check --json` 或 `gpuprof bench --json` 结果并排显示，每台机器一列，并标出离群值：比同类（其他机器，或同一机器的其他 GPU）中位数差 20% 以上、且超过同类三个稳健偏差的值。无法读取的文件会注明原因并排除。退出码 0：已对比，无离群值；1：发现离群值；2：可读取的文件少于两个。</translation>
    </message>
    <message>
        <source>python train.py --epochs 1</source>
        <translation>python train.py --epochs 1</translation>
    </message>
    <message>
        <source>Quick</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>RAM GiB</source>
        <translation>内存 GiB</translation>
    </message>
    <message>
        <source>RAM used</source>
        <translation>已用内存</translation>
    </message>
    <message>
        <source>rank by spot prices (= --billing spot)</source>
        <translation>按竞价价格排名（= --billing spot）</translation>
    </message>
    <message>
        <source>Rank by the spot price where offered (+10% time for checkpoints and interruptions)</source>
        <translation>在有竞价价格时按竞价价格排序（时间 +10%，用于检查点和中断恢复）</translation>
    </message>
    <message>
        <source>Rank by this price: on-demand, spot (+10% time), reserved for 1 or 3 years, or a monthly subscription paid in whole months. Rows without it come last.</source>
        <translation>按此价格排名：按需、竞价（时间 +10%）、预留 1 年或 3 年，或按整月计费的包月。没有该价格的行排在最后。</translation>
    </message>
    <message>
        <source>Rank cloud GPU instances for a workload. Time = FLOPs / (GPUs × spec peak × efficiency); cost = hours × price. Prices show their as-of date.</source>
        <translation>为工作负载对云 GPU 实例排序。时间 = FLOPs / (GPU 数 × 规格峰值 × 效率)；成本 = 小时数 × 价格。价格会标明其截止日期。</translation>
    </message>
    <message>
        <source>rank cloud instances for a workload (fit, time, cost)</source>
        <translation>为工作负载对云实例排序（能否容纳、时间、成本）</translation>
    </message>
    <message>
        <source>Rank only instances priced in this region</source>
        <translation>只对在该区域有定价的实例排序</translation>
    </message>
    <message>
        <source>Rank only instances that offer spot / preemptible capacity</source>
        <translation>只对提供竞价/可抢占容量的实例排序</translation>
    </message>
    <message>
        <source>Rank only this provider&apos;s instances</source>
        <translation>只对该云厂商的实例排序</translation>
    </message>
    <message>
        <source>Rank: fitting first, then the objective (cheapest or fastest)</source>
        <translation>排名：先按能否容纳，再按优化目标（最便宜或最快）</translation>
    </message>
    <message>
        <source>rate</source>
        <translation>速率</translation>
    </message>
    <message>
        <source>rates file</source>
        <translation>汇率文件</translation>
    </message>
    <message>
        <source>Ratio</source>
        <translation>比例</translation>
    </message>
    <message>
        <source>ratio</source>
        <translation>比例</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>reached {t:.0f} °C under load, {m:.0f} °C from the slowdown temperature {s:.0f} °C</source>
        <translation>负载下达到 {t:.0f} °C，距降频温度 {s:.0f} °C 仅 {m:.0f} °C</translation>
    </message>
    <message>
        <source>read another machine&apos;s `gpuprof exporter` at URL instead of the local GPUs; each answer must come whole within {s:g} s, or the sampling interval when longer, and be at most {n} MiB</source>
        <translation>读取位于 URL 的另一台机器的 `gpuprof exporter`，而非本机 GPU；每个响应须在 {s:g} 秒内完整到达（采样间隔更长时以采样间隔为准），且不超过 {n} MiB</translation>
    </message>
    <message>
        <source>read architectures from this CSV file</source>
        <translation>从此 CSV 文件读取模型架构</translation>
    </message>
    <message>
        <source>Read at every poll while this tab is shown, otherwise every %1 s</source>
        <extracomment>When the host columns are read (gpuprof.telemetry.procstat): what a recording or a remote exporter carries while this tab is not shown.</extracomment>
        <translation>在此标签页显示时每次轮询都读取，否则每 %1 秒读取一次</translation>
    </message>
    <message>
        <source>Read what a recording holds (one whose recorder was killed, one copied without its -wal file, or a damaged one) and write it as a clean, closed session file. Records that cannot be read are left out; the recording itself is not changed.</source>
        <translation>读取录制文件中的内容（录制进程被强行终止的、复制时缺少 -wal 文件的或已损坏的），并写成一个干净、已关闭的会话文件。无法读取的记录会被略去；录制文件本身不会改动。</translation>
    </message>
    <message>
        <source>Reading the trace…</source>
        <translation>正在读取请求轨迹…</translation>
    </message>
    <message>
        <source>Real-time video analytics</source>
        <translation>实时视频分析</translation>
    </message>
    <message>
        <source>Real-time video analytics (100 streams × 30 fps, int8)</source>
        <translation>实时视频分析（100 路 × 30 fps，int8）</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Recommend</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>recommendation (any of these adds one)</source>
        <translation>推荐（指定其中任意一项即添加一条推荐）</translation>
    </message>
    <message>
        <source>record a telemetry session to a file</source>
        <translation>将遥测会话录制到文件</translation>
    </message>
    <message>
        <source>record the SIMULATED 8×H100 box</source>
        <translation>录制 SIMULATED（模拟）的 8×H100 机器</translation>
    </message>
    <message>
        <source>Record to</source>
        <translation>录制到</translation>
    </message>
    <message>
        <source>Recording failed</source>
        <translation>录制失败</translation>
    </message>
    <message>
        <source>Recording stopped: %1. What was recorded before is kept.</source>
        <translation>录制已停止：%1。此前录制的内容已保留。</translation>
    </message>
    <message>
        <source>Recording to write</source>
        <translation>要写入的录制文件</translation>
    </message>
    <message>
        <source>recording to write (default: a timestamped file in the data folder)</source>
        <translation>要写入的录制文件（默认：数据文件夹中带时间戳的文件）</translation>
    </message>
    <message>
        <source>recording {src} every {i:g} s to {p} — Ctrl-C to stop</source>
        <translation>正在每 {i:g} s 录制 {src} 到 {p} — 按 Ctrl-C 停止</translation>
    </message>
    <message>
        <source>Recording:</source>
        <translation>录制文件：</translation>
    </message>
    <message>
        <source>Recordings of profiled jobs: open one in replay or see its summary</source>
        <translation>已分析作业的录制文件：回放或查看摘要</translation>
    </message>
    <message>
        <source>recovered {n} samples ({d}) from {p} to {o}</source>
        <translation>已从 {p} 恢复 {n} 个采样（{d}）到 {o}</translation>
    </message>
    <message>
        <source>redirected to {w}; gpuprof follows no redirect: give that URL</source>
        <translation>被重定向到 {w}；gpuprof 不跟随重定向：请直接给出该 URL</translation>
    </message>
    <message>
        <source>reference</source>
        <translation>参考值</translation>
    </message>
    <message>
        <source>reference file</source>
        <translation>参考值文件</translation>
    </message>
    <message>
        <source>Reference: %1</source>
        <translation>参考值：%1</translation>
    </message>
    <message>
        <source>reference: {s}</source>
        <translation>参考值：{s}</translation>
    </message>
    <message>
        <source>Refresh every</source>
        <translation>刷新间隔</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Region of the price</source>
        <translation>价格所属区域</translation>
    </message>
    <message>
        <source>Region: %1</source>
        <translation>区域：%1</translation>
    </message>
    <message>
        <source>reliability limit</source>
        <translation>可靠性限制</translation>
    </message>
    <message>
        <source>remap failed</source>
        <translation>重映射失败</translation>
    </message>
    <message>
        <source>render the window offscreen, save a PNG and exit</source>
        <translation>在屏幕外渲染窗口，保存 PNG 后退出</translation>
    </message>
    <message>
        <source>Rendering</source>
        <translation>渲染</translation>
    </message>
    <message>
        <source>REPLAY</source>
        <extracomment>Slider positions over the whole recording.</extracomment>
        <translation>REPLAY</translation>
    </message>
    <message>
        <source>Replay a recorded session (Ctrl+O)</source>
        <translation>回放录制的会话 (Ctrl+O)</translation>
    </message>
    <message>
        <source>REPLAY of SIMULATED data — {name}</source>
        <extracomment>A stretch longer than this without a sample (the longest sampling interval) is dead air that replay jumps over: a suspended laptop, or a damaged time years away from the rest. A recording of the simulator stays SIMULATED when played back: in its label (the terminal banner, the window title) and in every snapshot it plays.</extracomment>
        <translation>REPLAY 回放 SIMULATED 模拟数据 — {name}</translation>
    </message>
    <message>
        <source>Replay speed, × the recorded pace</source>
        <translation>回放速度（录制节奏的倍数 ×）</translation>
    </message>
    <message>
        <source>Replay the job&apos;s recording in the window</source>
        <translation>在窗口中回放作业的录制文件</translation>
    </message>
    <message>
        <source>Replay the selected job&apos;s recording (double-click)</source>
        <translation>回放所选作业的录制文件（双击）</translation>
    </message>
    <message>
        <source>REPLAY · SIMULATED</source>
        <translation>REPLAY · SIMULATED</translation>
    </message>
    <message>
        <source>REPLAY — {name}</source>
        <translation>REPLAY 回放 — {name}</translation>
    </message>
    <message>
        <source>replicas</source>
        <translation>副本数</translation>
    </message>
    <message>
        <source>report schema {v} is newer than this gpuprof reads ({m})</source>
        <translation>报告格式版本 {v} 比此版本 gpuprof 能读取的更新（{m}）</translation>
    </message>
    <message>
        <source>report title (default: &apos;GPU report — HOSTNAME&apos;)</source>
        <translation>报告标题（默认：&apos;GPU 报告 — HOSTNAME&apos;）</translation>
    </message>
    <message>
        <source>Reports (*.html *.pdf *.json)</source>
        <translation>报告 (*.html *.pdf *.json)</translation>
    </message>
    <message>
        <source>Request trace</source>
        <translation>请求轨迹</translation>
    </message>
    <message>
        <source>request trace</source>
        <translation>请求轨迹</translation>
    </message>
    <message>
        <source>Requests / s</source>
        <translation>请求/秒</translation>
    </message>
    <message>
        <source>Requests per second to serve; or give the Throughput as output tokens per second</source>
        <translation>需要服务的每秒请求数；或在“吞吐量”中给出每秒输出 token 数</translation>
    </message>
    <message>
        <source>reseat the card or check the slot / riser and BIOS PCIe settings</source>
        <translation>重新插拔显卡，或检查插槽 / 转接卡和 BIOS 的 PCIe 设置</translation>
    </message>
    <message>
        <source>Reseat the GPU or its riser, and check the slot&apos;s BIOS link settings.</source>
        <translation>重新插拔该 GPU 或其转接卡，并检查该插槽的 BIOS 链路设置。</translation>
    </message>
    <message>
        <source>Reserved 1y</source>
        <translation>预留 1 年</translation>
    </message>
    <message>
        <source>reserved 1y</source>
        <translation>预留 1 年</translation>
    </message>
    <message>
        <source>Reserved 3y</source>
        <translation>预留 3 年</translation>
    </message>
    <message>
        <source>reserved 3y</source>
        <translation>预留 3 年</translation>
    </message>
    <message>
        <source>Reset the GPU (`sudo nvidia-smi -i {i} -r`) or reboot.</source>
        <translation>重置 GPU（`sudo nvidia-smi -i {i} -r`）或重启。</translation>
    </message>
    <message>
        <source>reset the GPU to retire or remap the rows; repeated errors mean an RMA</source>
        <translation>重置 GPU 以退役或重映射这些行；错误反复出现则需返修（RMA）</translation>
    </message>
    <message>
        <source>Reset the GPU when it is idle (`sudo nvidia-smi -i {i} -r`) or reboot.</source>
        <translation>在 GPU 空闲时重置它（`sudo nvidia-smi -i {i} -r`）或重启。</translation>
    </message>
    <message>
        <source>result file</source>
        <translation>结果文件</translation>
    </message>
    <message>
        <source>result files (JSON)</source>
        <extracomment>Machines shown side by side in the terminal; --html and --json hold every one. Rows shown in the terminal; --html and --json hold every one.</extracomment>
        <translation>结果文件（JSON）</translation>
    </message>
    <message>
        <source>Result files to compare</source>
        <translation>要比较的结果文件</translation>
    </message>
    <message>
        <source>result is not a list</source>
        <translation>result 不是列表</translation>
    </message>
    <message>
        <source>result type {k!r}, expected {e}</source>
        <translation>结果类型为 {k!r}，应为 {e}</translation>
    </message>
    <message>
        <source>results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>results database {p} does not exist</source>
        <translation>结果数据库 {p} 不存在</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>retired pages / remapped rows not reported</source>
        <translation>未报告退役页 / 重映射行</translation>
    </message>
    <message>
        <source>Row remapping failed on {g}</source>
        <translation>{g} 的行重映射失败</translation>
    </message>
    <message>
        <source>rows to show (default 15)</source>
        <translation>显示的行数（默认 15）</translation>
    </message>
    <message>
        <source>RSS peak</source>
        <translation>RSS 峰值</translation>
    </message>
    <message>
        <source>rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>run a command under the profiler and summarize the job</source>
        <translation>在性能分析器下运行命令并汇总该作业</translation>
    </message>
    <message>
        <source>Run a command under the profiler: its GPUs, steps and time, then a summary</source>
        <translation>在分析器下运行命令：记录其 GPU、步骤和时间，结束后显示摘要</translation>
    </message>
    <message>
        <source>Run as a user in the video group, or ask the administrator.</source>
        <translation>请以 video 组中的用户运行，或联系管理员。</translation>
    </message>
    <message>
        <source>Run check measures this machine&apos;s own GPUs (never the SIMULATED source) against their model&apos;s cited reference values: inventory, health, performance and a memory test, item by item. Quick takes up to 3 minutes on an 8-GPU node, Standard up to 10; Burn-in adds the minutes set.</source>
        <translation>“运行检查”测量本机自己的 GPU（从不测量 SIMULATED 模拟数据源），并与其型号有出处的参考值逐项比较：清单、健康、性能和显存测试。Quick 在 8 GPU 节点上最多 3 分钟，Standard 最多 10 分钟；Burn-in 另加所设的分钟数。</translation>
    </message>
    <message>
        <source>run GPU microbenchmarks (GEMM, memory, P2P, collectives, a training step)</source>
        <translation>运行 GPU 微基准测试（GEMM、内存、P2P、集合通信、训练步）</translation>
    </message>
    <message>
        <source>Run gpuprof as root or as the processes&apos; owner to see them all.</source>
        <translation>以 root 或这些进程的所有者身份运行 gpuprof 才能看到全部进程。</translation>
    </message>
    <message>
        <source>run id {i} is ambiguous: {m}</source>
        <translation>运行 ID {i} 有歧义：{m}</translation>
    </message>
    <message>
        <source>Run the chosen benchmarks (Ctrl+B)</source>
        <translation>运行所选基准测试 (Ctrl+B)</translation>
    </message>
    <message>
        <source>Run time</source>
        <translation>运行时间</translation>
    </message>
    <message>
        <source>Run:</source>
        <translation>运行：</translation>
    </message>
    <message>
        <source>running</source>
        <translation>正在运行</translation>
    </message>
    <message>
        <source>Running %1 on %2…</source>
        <translation>正在 %2 上运行 %1…</translation>
    </message>
    <message>
        <source>S&amp;ummary</source>
        <translation>摘要(&amp;U)</translation>
    </message>
    <message>
        <source>Sample telemetry into a SQLite session file (WAL: a killed recording loses at most the last second). Stops after --duration seconds or on Ctrl-C.</source>
        <translation>将遥测采样写入 SQLite 会话文件（WAL：录制进程被强行终止时最多丢失最后一秒）。在 --duration 秒后或按下 Ctrl-C 时停止。</translation>
    </message>
    <message>
        <source>Sampled at every poll while the Overview or Telemetry tab is shown, otherwise every %1 s, as the mean over that span</source>
        <translation>在“概览”或“遥测”标签页显示时每次轮询都采样，否则每 %1 秒采样一次，取该时段内的平均值</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>采样数</translation>
    </message>
    <message>
        <source>samples (images, queries) instead of tokens</source>
        <translation>以样本数（图像、查询）代替 token 数</translation>
    </message>
    <message>
        <source>Samples (images, queries, frames) instead of tokens</source>
        <translation>以样本数（图像、查询、帧）代替 token 数</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Sampling &amp;interval</source>
        <translation>采样间隔(&amp;I)</translation>
    </message>
    <message>
        <source>Sampling interval</source>
        <translation>采样间隔</translation>
    </message>
    <message>
        <source>Sampling interval (View → Sampling interval)</source>
        <translation>采样间隔（视图 → 采样间隔）</translation>
    </message>
    <message>
        <source>sampling interval in seconds (default 1)</source>
        <translation>采样间隔，单位为秒（默认 1）</translation>
    </message>
    <message>
        <source>sampling interval in seconds ({lo:g}–{hi:g})</source>
        <translation>采样间隔，单位为秒（{lo:g}–{hi:g}）</translation>
    </message>
    <message>
        <source>Save a report (HTML, PDF or JSON) of this machine and the recent telemetry</source>
        <translation>保存本机及近期遥测数据的报告（HTML、PDF 或 JSON）</translation>
    </message>
    <message>
        <source>Save report</source>
        <translation>保存报告</translation>
    </message>
    <message>
        <source>Save screenshot</source>
        <translation>保存截图</translation>
    </message>
    <message>
        <source>Save screenshot of the &amp;window…</source>
        <translation>保存窗口截图(&amp;W)…</translation>
    </message>
    <message>
        <source>Save screenshot of the current &amp;tab…</source>
        <translation>保存当前标签页截图(&amp;T)…</translation>
    </message>
    <message>
        <source>Save the current tab as PNG (Ctrl+Shift+S)</source>
        <translation>将当前标签页保存为 PNG (Ctrl+Shift+S)</translation>
    </message>
    <message>
        <source>Save the whole window as PNG (Ctrl+S)</source>
        <translation>将整个窗口保存为 PNG (Ctrl+S)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>saved as {i}: `gpuprof bench show {i}`</source>
        <translation>已保存为 {i}：`gpuprof bench show {i}`</translation>
    </message>
    <message>
        <source>Saved recording %1</source>
        <translation>已保存录制 %1</translation>
    </message>
    <message>
        <source>saved the recording and its job profile to {p}</source>
        <translation>录制文件及其作业画像已保存到 {p}</translation>
    </message>
    <message>
        <source>saved {n} samples ({d}) to {p}</source>
        <translation>已保存 {n} 个采样（{d}）到 {p}</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>schema_version is not a whole number</source>
        <translation>schema_version 不是整数</translation>
    </message>
    <message>
        <source>scorecard</source>
        <translation>评分表</translation>
    </message>
    <message>
        <source>Screenshot copied to the clipboard</source>
        <translation>截图已复制到剪贴板</translation>
    </message>
    <message>
        <source>Secondary series</source>
        <translation>次要序列</translation>
    </message>
    <message>
        <source>seconds before the latest sample</source>
        <extracomment>(pid, GPU index)</extracomment>
        <translation>距最新样本的秒数</translation>
    </message>
    <message>
        <source>seconds between samples, {lo:g}–{hi:g} (default 1)</source>
        <extracomment>argparse type for ``--interval``: seconds within the sampler&apos;s range (one line, exit 2, like every numeric flag: ``61 is outside 0.1–60 s``).</extracomment>
        <translation>采样间隔秒数，{lo:g}–{hi:g}（默认 1）</translation>
    </message>
    <message>
        <source>Seconds between two looks at Prometheus</source>
        <translation>两次查询 Prometheus 之间的秒数</translation>
    </message>
    <message>
        <source>seconds each provider&apos;s download may take in all, from connecting to the last byte (default {s:g})</source>
        <translation>每个云服务商的下载总共可用的秒数，从连接到最后一个字节（默认 {s:g}）</translation>
    </message>
    <message>
        <source>seconds each query may take in all, from connecting to the answer&apos;s last byte (default {s:g})</source>
        <translation>每次查询总共可用的秒数，从连接到响应的最后一个字节（默认 {s:g}）</translation>
    </message>
    <message>
        <source>seconds the job may take to exit after a SIGINT, SIGTERM or SIGHUP sent to gpuprof (forwarded to the job) before it is killed (default 10); Ctrl-C typed while the job holds the terminal goes to the job alone</source>
        <translation>gpuprof 收到 SIGINT、SIGTERM 或 SIGHUP（转发给作业）后允许作业退出的秒数，超时则强制结束（默认 10）；作业占用终端时按下的 Ctrl-C 只发给作业</translation>
    </message>
    <message>
        <source>seconds to record (default: until Ctrl-C)</source>
        <translation>录制秒数（默认：直到按下 Ctrl-C）</translation>
    </message>
    <message>
        <source>see `amd-smi static --ras`: RAS/ECC is set in the firmware</source>
        <translation>参见 `amd-smi static --ras`：RAS/ECC 在固件中设置</translation>
    </message>
    <message>
        <source>See the message; sampling goes on for what still answers.</source>
        <translation>请查看消息；仍有响应的部分会继续采样。</translation>
    </message>
    <message>
        <source>Select a process first</source>
        <translation>请先选择一个进程</translation>
    </message>
    <message>
        <source>Select a process to see its history</source>
        <translation>选择一个进程以查看其历史</translation>
    </message>
    <message>
        <source>selector: {s}</source>
        <translation>选择器：{s}</translation>
    </message>
    <message>
        <source>Self</source>
        <translation>自身</translation>
    </message>
    <message>
        <source>Send %1 (ask the process to exit) to pid %2?</source>
        <translation>向 PID %2 发送 %1（请求进程退出）？</translation>
    </message>
    <message>
        <source>Send %1 (end the process at once, without cleanup) to pid %2?</source>
        <translation>向 PID %2 发送 %1（立即结束进程，不做清理）？</translation>
    </message>
    <message>
        <source>send the token in FILE as a bearer token</source>
        <translation>将 FILE 中的令牌作为 Bearer 令牌发送</translation>
    </message>
    <message>
        <source>Send {s} to pid {p}? [y/N] </source>
        <translation>向 PID {p} 发送 {s}？[y/N] </translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>sequence length (default 4096)</source>
        <translation>序列长度（默认 4096）</translation>
    </message>
    <message>
        <source>Sequence length in tokens (activations, KV cache)</source>
        <translation>以 token 计的序列长度（影响激活值、KV cache）</translation>
    </message>
    <message>
        <source>Sequences in flight per replica at this load / that fit in the KV cache</source>
        <translation>该负载下每个副本在途的序列数 / KV 缓存可容纳的序列数</translation>
    </message>
    <message>
        <source>Serial</source>
        <translation>序列号</translation>
    </message>
    <message>
        <source>serve a SIMULATED 8×H100 fleet (labelled source=&quot;simulated&quot;)</source>
        <translation>提供 SIMULATED（模拟）的 8×H100 集群（标签为 source=&quot;simulated&quot;）</translation>
    </message>
    <message>
        <source>Serve GPU telemetry at http://BIND:PORT/metrics with NVIDIA dcgm-exporter&apos;s metric names and labels, plus gpuprof_* metrics (throttle reasons, benchmark results). Listens on loopback only unless --bind says otherwise. A remote gpuprof reads /api/v1/snapshot (gpuprof --connect URL).</source>
        <translation>在 http://BIND:PORT/metrics 以 NVIDIA dcgm-exporter 的指标名和标签提供 GPU 遥测，另加 gpuprof_* 指标（降频原因、基准测试结果）。除非 --bind 另行指定，否则只监听回环地址。远程 gpuprof 读取 /api/v1/snapshot（gpuprof --connect URL）。</translation>
    </message>
    <message>
        <source>serve HTTPS with this PEM certificate (chain)</source>
        <translation>使用此 PEM 证书（链）提供 HTTPS</translation>
    </message>
    <message>
        <source>serve Prometheus metrics (dcgm-exporter names) for Grafana</source>
        <translation>为 Grafana 提供 Prometheus 指标（dcgm-exporter 命名）</translation>
    </message>
    <message>
        <source>serving (--scenario serve)</source>
        <translation>在线服务（--scenario serve）</translation>
    </message>
    <message>
        <source>Serving traffic and latency</source>
        <translation>服务流量与延迟</translation>
    </message>
    <message>
        <source>Serving {rate:.4g} requests/s, prompt {p} and output {o} tokens: instances = how many sustain the rate; $/h for all of them; $/M out = per million output tokens; batch = sequences in flight per replica at this load / that fit; TTFT and TPOT {pct} at this load; tok/s/inst = output tokens/s one instance sustains. P ★ = Pareto front of cost per million vs throughput per instance. ✗ = misses a target.</source>
        <translation>服务 {rate:.4g} 请求/秒，提示 {p} 个、输出 {o} 个 token：实例数 = 维持该速率所需的实例数；$/h 为全部实例的费用；$/百万输出 = 每百万输出 token 的费用；批量 = 该负载下每个副本在途的序列数 / 可容纳的序列数；TTFT 和 TPOT 为该负载下的 {pct}；tok/s/实例 = 单个实例可维持的输出 token/秒。P ★ = 每百万成本与单实例吞吐的帕累托前沿。✗ = 未达到目标。</translation>
    </message>
    <message>
        <source>serving: a rate to sustain, not a job; see serving and cost_unit</source>
        <extracomment>The cost fields a ``--json`` row explains when null.</extracomment>
        <translation>在线服务：需要维持的速率，不是一次性作业；见 serving 和 cost_unit</translation>
    </message>
    <message>
        <source>serving: a request trace (arrival_s, prompt_tokens, output_tokens per line) simulated on the top configurations</source>
        <translation>在线服务：请求轨迹（每行 arrival_s、prompt_tokens、output_tokens），在排名靠前的配置上模拟</translation>
    </message>
    <message>
        <source>serving: attention data parallel (TensorRT-LLM&apos;s enable_attention_dp): each GPU runs attention, the LM head and the sampler for its own share of the sequences; MoE layers stay expert parallel</source>
        <translation>服务：注意力数据并行（`TensorRT-LLM` 的 `enable_attention_dp`）：每块 GPU 为其分到的那部分序列运行注意力、`LM head` 和采样器；`MoE` 层保持专家并行</translation>
    </message>
    <message>
        <source>serving: grouped (each KV head read once for its query heads: FlashAttention, XQA) or per-head (once per query head: Hugging Face eager attention, TensorRT-LLM before v0.8); default grouped</source>
        <translation>服务：grouped（每个 KV 头为其查询头只读一次：`FlashAttention`、XQA）或 per-head（每个查询头各读一次：`Hugging Face eager` 注意力、v0.8 之前的 TensorRT-LLM）；默认 grouped</translation>
    </message>
    <message>
        <source>serving: KV-cache precision fp16, bf16, fp8, int8 (default: the weights&apos;)</source>
        <translation>在线服务：KV 缓存精度 fp16、bf16、fp8、int8（默认与权重相同）</translation>
    </message>
    <message>
        <source>serving: mean generated tokens per request (default seq-len minus prompt-len)</source>
        <translation>在线服务：每个请求平均生成的 token 数（默认 seq-len 减去 prompt-len）</translation>
    </message>
    <message>
        <source>serving: requests per second to sustain (or --throughput in output tokens/s)</source>
        <translation>在线服务：需要维持的每秒请求数（或用 --throughput 给出每秒输出 token 数）</translation>
    </message>
    <message>
        <source>serving: tensor-parallel GPUs per replica (default: the cheapest of 1, 2, 4, 8)</source>
        <translation>在线服务：每个副本的张量并行 GPU 数（默认取 1、2、4、8 中最便宜的）</translation>
    </message>
    <message>
        <source>serving: the KV cache the engine holds per sequence: on-demand (vLLM, SGLang: blocks as tokens are generated) or reserve (TensorRT-LLM&apos;s default: the whole prompt + output at admission); default on-demand</source>
        <translation>服务：引擎为每个序列保留的 KV 缓存：on-demand（`vLLM`、`SGLang`：随生成的 token 分配块）或 reserve（TensorRT-LLM 的默认：准入时即保留完整的提示 + 输出）；默认 on-demand</translation>
    </message>
    <message>
        <source>serving: the percentile of requests the targets hold for (default p99)</source>
        <translation>在线服务：目标适用的请求百分位（默认 p99）</translation>
    </message>
    <message>
        <source>serving: time-per-output-token target, e.g. 50ms</source>
        <translation>在线服务：每个输出 token 的时间目标，例如 50ms</translation>
    </message>
    <message>
        <source>serving: time-to-first-token target, e.g. 2s or 500ms</source>
        <translation>在线服务：首 token 时间目标，例如 2s 或 500ms</translation>
    </message>
    <message>
        <source>serving: what the engine does with each token&apos;s logits: argmax (float32, read once: vLLM, SGLang, TensorRT-LLM&apos;s PyTorch backend) or decoder (TensorRT-LLM&apos;s C++ decoder of TensorRT engines: copied, softmax, sampled); default argmax</source>
        <translation>服务：引擎对每个词元的 `logits` 的处理：`argmax`（转为 float32，只读一次：`vLLM`、`SGLang`、`TensorRT-LLM` 的 PyTorch 后端）或 `decoder`（`TensorRT` 引擎的 `TensorRT-LLM` C++ 解码器：复制、`softmax`、采样）；默认 `argmax`</translation>
    </message>
    <message>
        <source>session file</source>
        <translation>会话文件</translation>
    </message>
    <message>
        <source>session file to recover</source>
        <translation>要恢复的会话文件</translation>
    </message>
    <message>
        <source>session file to write (e.g. run.gpuprof)</source>
        <translation>要写入的会话文件（例如 run.gpuprof）</translation>
    </message>
    <message>
        <source>session file written by `gpuprof record` or the app</source>
        <translation>由 `gpuprof record` 或应用写入的会话文件</translation>
    </message>
    <message>
        <source>several GPUs</source>
        <translation>多个 GPU</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Share of memory-controller time used by the process (nvidia-smi pmon: mem)</source>
        <translation>该进程占用的显存控制器时间比例（nvidia-smi pmon：mem）</translation>
    </message>
    <message>
        <source>Share of SM time used by the process (nvidia-smi pmon: sm)</source>
        <translation>进程占用的 SM 时间比例（nvidia-smi pmon：sm）</translation>
    </message>
    <message>
        <source>Share of the spec peak the job achieves: base × multi-GPU scaling; &quot;measured&quot; when benchmarked on this machine</source>
        <translation>作业达到的规格峰值比例：基准 × 多 GPU 扩展系数；在本机跑过基准测试时标为 &quot;measured&quot;</translation>
    </message>
    <message>
        <source>show a SIMULATED 8×H100 fleet instead of real GPUs</source>
        <translation>显示 SIMULATED（模拟）的 8×H100 集群，而不是真实 GPU</translation>
    </message>
    <message>
        <source>Show an earlier run from the results database</source>
        <translation>显示结果数据库中以前的运行</translation>
    </message>
    <message>
        <source>show at most N rows (default {n} in the table, all with --json; 0: all)</source>
        <translation>最多显示 N 行（表格默认 {n} 行，--json 时全部；0 表示全部）</translation>
    </message>
    <message>
        <source>Show every GPU again</source>
        <translation>重新显示所有 GPU</translation>
    </message>
    <message>
        <source>show one run (ID, a unique prefix, or &apos;latest&apos;)</source>
        <translation>显示一次运行（ID、唯一前缀或 &apos;latest&apos;）</translation>
    </message>
    <message>
        <source>Show only rows containing this text (Ctrl+F)</source>
        <translation>只显示包含此文本的行 (Ctrl+F)</translation>
    </message>
    <message>
        <source>show or set the exchange rates prices are compared at</source>
        <translation>显示或设置比较价格所用的汇率</translation>
    </message>
    <message>
        <source>show process command lines (secrets still hidden)</source>
        <translation>显示进程命令行（机密信息仍会隐藏）</translation>
    </message>
    <message>
        <source>Show process command lines; passwords and tokens stay hidden</source>
        <translation>显示进程的命令行；密码和令牌仍会隐藏</translation>
    </message>
    <message>
        <source>show program&apos;s version number and exit</source>
        <translation>显示程序的版本号并退出</translation>
    </message>
    <message>
        <source>show the GPU spec table</source>
        <translation>显示 GPU 规格表</translation>
    </message>
    <message>
        <source>Show the job profile again</source>
        <translation>再次显示作业分析</translation>
    </message>
    <message>
        <source>Show the process (pid, name, user, GPU memory, command line with secrets hidden) and, once confirmed, send it SIGTERM (or SIGKILL with --signal KILL). The process is checked again just before the signal, so a pid that was given to another process in the meantime is not signalled. Another user&apos;s process needs root; the init process, kernel threads and gpuprof itself are never signalled.</source>
        <translation>显示该进程（PID、名称、用户、GPU 显存、隐藏了密钥的命令行），确认后向它发送 SIGTERM（使用 --signal KILL 时发送 SIGKILL）。发送信号前会再次核对进程，因此期间已分配给其他进程的 PID 不会收到信号。其他用户的进程需要超级用户权限；1 号进程、内核线程和 gpuprof 自身永远不会收到信号。</translation>
    </message>
    <message>
        <source>Show the selected job&apos;s profile</source>
        <translation>显示所选作业的分析</translation>
    </message>
    <message>
        <source>show this help message and exit</source>
        <translation>显示此帮助信息并退出</translation>
    </message>
    <message>
        <source>Show this much history in the plots (Ctrl+%1)</source>
        <translation>在曲线中显示这么长的历史 (Ctrl+%1)</translation>
    </message>
    <message>
        <source>showing {r} of {k} rows and {c} of {n} machines (those with an outlier, a WARN, a FAIL or a gap); --html and --json hold every one</source>
        <translation>显示 {k} 行中的 {r} 行、{n} 台机器中的 {c} 台（有离群值、WARN、FAIL 或差距的）；--html 和 --json 包含全部</translation>
    </message>
    <message>
        <source>Shutdown temperature</source>
        <translation>关机温度</translation>
    </message>
    <message>
        <source>signal</source>
        <translation>信号</translation>
    </message>
    <message>
        <source>Signal a process</source>
        <extracomment>Qt&apos;s QWIDGETSIZE_MAX (PySide6 does not export it): no maximum height.</extracomment>
        <translation>向进程发送信号</translation>
    </message>
    <message>
        <source>SIMULATED</source>
        <translation>SIMULATED</translation>
    </message>
    <message>
        <source>SIMULATED (the demo&apos;s GPUs)</source>
        <translation>SIMULATED（演示用 GPU）</translation>
    </message>
    <message>
        <source>SIMULATED data</source>
        <translation>SIMULATED（模拟）数据</translation>
    </message>
    <message>
        <source>SIMULATED data (--demo), not a measurement.</source>
        <translation>SIMULATED（模拟）数据（--demo），并非实测。</translation>
    </message>
    <message>
        <source>SIMULATED data from `--demo`: a scripted machine, not a measurement.</source>
        <translation>SIMULATED（模拟）数据，来自 `--demo`：脚本生成的机器，并非实测。</translation>
    </message>
    <message>
        <source>SIMULATED telemetry (--demo): illustrative, not a measurement</source>
        <translation>SIMULATED 遥测（--demo）：仅作示意，并非实测</translation>
    </message>
    <message>
        <source>SIMULATED telemetry: every simulated GPU and process is counted as the job&apos;s</source>
        <translation>SIMULATED 遥测：每个模拟的 GPU 和进程都计为本作业所有</translation>
    </message>
    <message>
        <source>SIMULATED: %1 nodes serve demo data, not measurements</source>
        <translation>SIMULATED：%1 个节点提供的是演示数据，不是实测值</translation>
    </message>
    <message>
        <source>SIMULATED: the trace (%1 requests over %2 s) on the top configurations</source>
        <translation>SIMULATED：轨迹（%2 秒内 %1 个请求）在排名最前的配置上</translation>
    </message>
    <message>
        <source>SIMULATED: trace {f} ({n} requests over {d:.4g} s) on the top configurations</source>
        <translation>SIMULATED：请求轨迹 {f}（{d:.4g} 秒内 {n} 个请求）在排名靠前的配置上</translation>
    </message>
    <message>
        <source>SIMULATED: {n} nodes serve demo data (gpuprof exporter --demo), not measurements</source>
        <translation>SIMULATED：{n} 个节点提供的是演示数据（gpuprof exporter --demo），不是实测值</translation>
    </message>
    <message>
        <source>Simulating the trace… %p%</source>
        <translation>正在模拟请求轨迹… %p%</translation>
    </message>
    <message>
        <source>size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>size must look like 1600x1000, got {t!r}</source>
        <translation>尺寸格式应类似 1600x1000，实际为 {t!r}</translation>
    </message>
    <message>
        <source>size scaled by {s:g} after out-of-memory</source>
        <translation>显存不足后尺寸缩放为 {s:g} 倍</translation>
    </message>
    <message>
        <source>size {t} is out of range 200..8000</source>
        <translation>尺寸 {t} 超出范围 200..8000</translation>
    </message>
    <message>
        <source>sizes scaled by {s:g} after out-of-memory</source>
        <translation>显存不足后尺寸缩放为 {s:g} 倍</translation>
    </message>
    <message>
        <source>skip the first N rows (the next page: --offset {n})</source>
        <translation>跳过前 N 行（下一页：--offset {n}）</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>skipped: FP16 autocast training is a GPU mode (CPU uses BF16)</source>
        <translation>已跳过：FP16 自动混合精度训练是 GPU 模式（CPU 使用 BF16）</translation>
    </message>
    <message>
        <source>skipped: one step takes {t:.1f} s on this CPU</source>
        <translation>已跳过：在此 CPU 上一步需要 {t:.1f} 秒</translation>
    </message>
    <message>
        <source>skipped: {why}</source>
        <extracomment>Type tag (as stored in JSON) → class.</extracomment>
        <translation>已跳过：{why}</translation>
    </message>
    <message>
        <source>skypilot (a vms.csv) or gpuprof (our CSV format); default: by header</source>
        <translation>skypilot（vms.csv）或 gpuprof（我们的 CSV 格式）；默认：按表头判断</translation>
    </message>
    <message>
        <source>slowdown %1</source>
        <translation>降频温度 %1</translation>
    </message>
    <message>
        <source>Slowdown temperature</source>
        <translation>降频温度</translation>
    </message>
    <message>
        <source>slowest pair</source>
        <translation>最慢的一对</translation>
    </message>
    <message>
        <source>SM %</source>
        <translation>SM %</translation>
    </message>
    <message>
        <source>SM % and host CPU %</source>
        <translation>SM % 与主机 CPU %</translation>
    </message>
    <message>
        <source>SM %1</source>
        <translation>SM %1</translation>
    </message>
    <message>
        <source>SM / tensor / DRAM activity — SM (bright), tensor (pale), DRAM (palest)</source>
        <translation>SM / Tensor / DRAM 活动 — SM（亮色），Tensor（浅色），DRAM（最浅）</translation>
    </message>
    <message>
        <source>SM / tensor / DRAM activity — SM (tensor, DRAM: not drawn)</source>
        <translation>SM / Tensor / DRAM 活动 — SM（Tensor、DRAM：未绘制）</translation>
    </message>
    <message>
        <source>SM active</source>
        <extracomment>GPU metrics summarized in a report: (GpuSample field, label, unit as in Chart.unit). The profiling activities (NVML GPM) have no samples on GPUs without it: their stats have ``count`` 0 and they get no chart.</extracomment>
        <translation>SM 活动率</translation>
    </message>
    <message>
        <source>SM active {na}: {why}</source>
        <translation>SM 活动率 {na}：{why}</translation>
    </message>
    <message>
        <source>SM active: the share of cycles the SMs had work (at least one warp resident; NVML GPM, DCGM_FI_PROF_SM_ACTIVE). GPU utilization only says that some kernel ran during the sample: a GPU can read 100% while most of its SMs are idle (small kernels, launch-bound or sync-heavy code).</source>
        <translation>SM 活动率：SM 有工作（至少驻留一个 warp）的周期占比（NVML GPM，DCGM_FI_PROF_SM_ACTIVE）。GPU 利用率只表示采样期间有内核在运行：GPU 可能显示 100%，而大部分 SM 却处于空闲（小内核、受启动开销限制或同步频繁的代码）。</translation>
    </message>
    <message>
        <source>SM clk</source>
        <translation>SM 频率</translation>
    </message>
    <message>
        <source>SM clock</source>
        <translation>SM 时钟</translation>
    </message>
    <message>
        <source>SM clock against its maximum</source>
        <translation>SM 时钟与其最大值</translation>
    </message>
    <message>
        <source>SM clock fell to {low:.0f} MHz under load, {pct:.0f}% below its early-load median of {base:.0f} MHz, for {n} samples</source>
        <translation>负载下 SM 时钟降到 {low:.0f} MHz，比负载初期的中位数 {base:.0f} MHz 低 {pct:.0f}%，持续 {n} 个样本</translation>
    </message>
    <message>
        <source>SM clock max</source>
        <translation>最大 SM 时钟</translation>
    </message>
    <message>
        <source>SM {s} · tensor {t} · DRAM {d}</source>
        <translation>SM {s} · 张量核心 {t} · DRAM {d}</translation>
    </message>
    <message>
        <source>SM/tensor/DRAM unavailable ({why})</source>
        <translation>SM/Tensor/DRAM 不可用（{why}）</translation>
    </message>
    <message>
        <source>SoC %1</source>
        <translation>SoC %1</translation>
    </message>
    <message>
        <source>software power cap</source>
        <translation>软件功耗上限</translation>
    </message>
    <message>
        <source>software thermal slowdown</source>
        <translation>软件过热降频</translation>
    </message>
    <message>
        <source>some cases failed (%1)</source>
        <translation>部分用例失败（%1）</translation>
    </message>
    <message>
        <source>some GPU pairs talk over PCIe, not NVLink</source>
        <translation>部分 GPU 之间经由 PCIe 而不是 NVLink 通信</translation>
    </message>
    <message>
        <source>some GPU pairs talk over PCIe, not XGMI</source>
        <translation>部分 GPU 之间经 PCIe 而非 XGMI 通信</translation>
    </message>
    <message>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>source GPU</source>
        <translation>源 GPU</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>来源：%1</translation>
    </message>
    <message>
        <source>spec peak (dense)</source>
        <translation>规格峰值（稠密）</translation>
    </message>
    <message>
        <source>spec row</source>
        <translation>规格行</translation>
    </message>
    <message>
        <source>Speed-up</source>
        <translation>加速比</translation>
    </message>
    <message>
        <source>split {src}: {sp}</source>
        <translation>时间划分（{src}）：{sp}</translation>
    </message>
    <message>
        <source>split: {s}</source>
        <translation>时间划分：{s}</translation>
    </message>
    <message>
        <source>Spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>Spot / preemptible allowed</source>
        <translation>允许竞价/可抢占实例</translation>
    </message>
    <message>
        <source>spot /h</source>
        <translation>竞价 /小时</translation>
    </message>
    <message>
        <source>spot {s:g} is above on-demand {o:g}</source>
        <translation>竞价 {s:g} 高于按需 {o:g}</translation>
    </message>
    <message>
        <source>spot: +{pct:.0f}% time assumed for checkpoints and restarts; save checkpoints often (interruptions come with little or no notice) and keep inference on on-demand or reserved capacity</source>
        <translation>竞价：按 +{pct:.0f}% 时间估算检查点与重启开销；请频繁保存检查点（中断几乎没有或完全没有预告），推理服务请放在按需或预留实例上</translation>
    </message>
    <message>
        <source>spot: serving on spot capacity needs spare replicas elsewhere; an interruption drops the requests in flight (the rows assume none)</source>
        <translation>竞价实例：在竞价容量上提供服务需要在别处准备备用副本；一次中断会丢掉在途的请求（各行未计入中断）</translation>
    </message>
    <message>
        <source>stale</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>Standard</source>
        <translation>标准</translation>
    </message>
    <message>
        <source>Start CMD (no shell) with its own process group, record GPU and host telemetry scoped to its process tree and the GPUs it uses, and when it ends store the job profile inside the recording and print its summary. Inside the job, `gpuprof.track` sends step markers (step time, tokens/s, MFU). CMD&apos;s exit code is passed through; Ctrl-C and SIGTERM go to CMD first, then the profile is saved.

Example: gpuprof profile --json run.json -- python train.py --epochs 1</source>
        <translation>启动 CMD（不经过 shell），使其拥有独立的进程组，记录限定于其进程树及其所用 GPU 的 GPU 和主机遥测数据；作业结束时将作业画像存入录制文件并打印摘要。在作业内部，`gpuprof.track` 发送步骤标记（步骤时间、tokens/s、MFU）。CMD 的退出码会被原样传回；Ctrl-C 和 SIGTERM 先发给 CMD，然后保存画像。

示例：gpuprof profile --json run.json -- python train.py --epochs 1</translation>
    </message>
    <message>
        <source>Start or stop recording to a session file (Ctrl+R)</source>
        <translation>开始或停止录制到会话文件 (Ctrl+R)</translation>
    </message>
    <message>
        <source>Start recording</source>
        <translation>开始录制</translation>
    </message>
    <message>
        <source>Start the command under the profiler</source>
        <translation>在分析器下启动命令</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>启动于</translation>
    </message>
    <message>
        <source>started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Started:</source>
        <translation>开始时间：</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>starting</source>
        <extracomment>The benchmark families, in the order the runner runs them. The states&apos; names for the catalog: stored in English, shown translated (``tr_text``).</extracomment>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>starting (importing torch)…</source>
        <translation>正在启动（导入 torch）…</translation>
    </message>
    <message>
        <source>starting (loading PyTorch)…</source>
        <translation>正在启动（加载 PyTorch）…</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>startup</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>static facts of %1 GPUs, no snapshots yet</source>
        <translation>%1 个 GPU 的静态信息，尚无快照</translation>
    </message>
    <message>
        <source>Static facts per GPU (nvidia-smi -q)</source>
        <translation>每个 GPU 的静态信息（nvidia-smi -q）</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>steady</source>
        <translation>稳定</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤时间</translation>
    </message>
    <message>
        <source>step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>step %1, batch %2</source>
        <translation>第 %1 步，批大小 %2</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>步时间</translation>
    </message>
    <message>
        <source>Step time P50 / P90 / P99</source>
        <translation>步骤时间 P50 / P90 / P99</translation>
    </message>
    <message>
        <source>step {s} ({t}) on {h}</source>
        <extracomment>Issue 23: the recommender&apos;s prediction of this job&apos;s matmul time per step here, and the time measured for it (the split&apos;s compute share); None when either is unknown.</extracomment>
        <translation>单步 {s}（{t}），运行于 {h}</translation>
    </message>
    <message>
        <source>step {s} here ({t}, {h})</source>
        <translation>本机单步 {s}（{t}，{h}）</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>steps</source>
        <extracomment>Projection rows a report shows (the cheapest that fit first). Points of the step-time chart per run: above this, the min and max of equal-count buckets. Runs (``track`` names × processes) drawn in the step-time chart; the rest are left out.</extracomment>
        <translation>步数</translation>
    </message>
    <message>
        <source>stop after N samples</source>
        <translation>采样 N 次后停止</translation>
    </message>
    <message>
        <source>Stop after the current step, within a second (Esc); what was measured is kept</source>
        <translation>在当前步骤完成后停止，一秒内生效 (Esc)；已测得的结果会保留</translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation>停止录制</translation>
    </message>
    <message>
        <source>Stop simulating the request trace</source>
        <translation>停止模拟请求轨迹</translation>
    </message>
    <message>
        <source>stopped early: time budget reached or cancelled</source>
        <extracomment>The parent waits this long for workers to exit after a cancel, then terminates them.</extracomment>
        <translation>提前停止：已达到时间预算或已取消</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <source>store a rate, units per US dollar on that day, e.g. CNY=7.2@2026-11-30</source>
        <translation>保存汇率：当日每美元折合的单位数，例如 CNY=7.2@2026-11-30</translation>
    </message>
    <message>
        <source>stored in {d}</source>
        <translation>已保存到 {d}</translation>
    </message>
    <message>
        <source>stored {r} in {p}</source>
        <translation>已将 {r} 保存到 {p}</translation>
    </message>
    <message>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>suite</source>
        <translation>套件</translation>
    </message>
    <message>
        <source>Suite:</source>
        <translation>套件：</translation>
    </message>
    <message>
        <source>summarize a cluster&apos;s GPUs and findings from Prometheus</source>
        <translation>从 Prometheus 汇总集群的 GPU 和发现的问题</translation>
    </message>
    <message>
        <source>Swap used</source>
        <translation>已用交换区</translation>
    </message>
    <message>
        <source>Switch between light and dark (Ctrl+T)</source>
        <translation>在浅色和深色之间切换 (Ctrl+T)</translation>
    </message>
    <message>
        <source>Switch the colour theme (Ctrl+T toggles)</source>
        <translation>切换配色主题（按 Ctrl+T 来回切换）</translation>
    </message>
    <message>
        <source>sync boost</source>
        <translation>同步加速</translation>
    </message>
    <message>
        <source>synthetic data, seed 0; autocast {dtype}</source>
        <translation>合成数据，种子 0；自动混合精度 {dtype}</translation>
    </message>
    <message>
        <source>synthetic data, seed 0; fp32</source>
        <translation>合成数据，种子 0；fp32</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>tab to show first (overview, telemetry, processes, topology, benchmarks, recommend, health, check; fleet with --prometheus)</source>
        <translation>首先显示的标签页（overview、telemetry、processes、topology、benchmarks、recommend、health、check；配合 --prometheus 时还有 fleet）</translation>
    </message>
    <message>
        <source>tail</source>
        <translation>收尾</translation>
    </message>
    <message>
        <source>Take the GPU out of service and ask for an RMA.</source>
        <translation>让该 GPU 停止服务并申请 RMA。</translation>
    </message>
    <message>
        <source>Target tokens or samples per second (serving); it becomes a deadline for the amount of work</source>
        <translation>目标每秒 token 数或样本数（服务）；它会换算为完成该工作量的截止时间</translation>
    </message>
    <message>
        <source>target tokens or samples per second (serving: output tokens per second)</source>
        <translation>目标每秒 token 或样本数（在线服务：每秒输出 token 数）</translation>
    </message>
    <message>
        <source>Targets hold for</source>
        <translation>目标适用于</translation>
    </message>
    <message>
        <source>TCP port (default 9400; 0 picks a free one)</source>
        <translation>TCP 端口（默认 9400；0 表示自动选择空闲端口）</translation>
    </message>
    <message>
        <source>Telemetry</source>
        <translation>遥测</translation>
    </message>
    <message>
        <source>telemetry source is {kind}: not attached to measured results</source>
        <translation>遥测来源为 {kind}：未附加到测量结果</translation>
    </message>
    <message>
        <source>telemetry sources are not available in this build: {e}</source>
        <translation>此构建不含遥测数据源：{e}</translation>
    </message>
    <message>
        <source>Telemetry:</source>
        <translation>遥测来源：</translation>
    </message>
    <message>
        <source>Temp</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>temp</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Temperature plotted: junction (hotspot); this GPU has no edge sensor</source>
        <translation>绘制的温度：结温（热点）；此 GPU 没有边缘传感器</translation>
    </message>
    <message>
        <source>Tencent Cloud</source>
        <translation>腾讯云</translation>
    </message>
    <message>
        <source>Tencent&apos;s price inquiry needs --zone (e.g. ap-guangzhou-3) and --image-id (img-...)</source>
        <translation>腾讯云询价需要 --zone（例如 ap-guangzhou-3）和 --image-id（img-...）</translation>
    </message>
    <message>
        <source>tencent, huawei: the currency your account is billed in (default CNY; Huawei&apos;s answer names its own)</source>
        <translation>`tencent`、`huawei`：您账号的结算币种（默认 CNY；华为云的应答会给出其币种）</translation>
    </message>
    <message>
        <source>tencent: an image to price with (img-...)</source>
        <translation>腾讯云（`tencent`）：用于询价的镜像（img-...）</translation>
    </message>
    <message>
        <source>tencent: e.g. ap-guangzhou-3</source>
        <extracomment>The price API&apos;s options, in --help order.</extracomment>
        <translation>腾讯云（`tencent`）：例如 ap-guangzhou-3</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>张量核心</translation>
    </message>
    <message>
        <source>Tensor core active</source>
        <translation>Tensor Core 活动率</translation>
    </message>
    <message>
        <source>Tensor parallel</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <source>Tensor parallel (TP), pipeline across nodes (PP), expert parallel (EP); ×N replicas</source>
        <translation>张量并行（TP）、跨节点流水线（PP）、专家并行（EP）；×N 个副本</translation>
    </message>
    <message>
        <source>Tensor-parallel GPUs per replica; auto: the cheapest of 1, 2, 4, 8</source>
        <translation>每个副本的张量并行 GPU 数；自动：取 1、2、4、8 中最便宜的</translation>
    </message>
    <message>
        <source>TERM asks the process to exit (default); KILL ends it at once</source>
        <translation>TERM 请求进程退出（默认）；KILL 立即结束它</translation>
    </message>
    <message>
        <source>Terminate</source>
        <translation>终止</translation>
    </message>
    <message>
        <source>Terminate (SIGTERM)</source>
        <translation>终止 (SIGTERM)</translation>
    </message>
    <message>
        <source>terminate or kill a process using a GPU (asks first)</source>
        <translation>终止或强制结束使用 GPU 的进程（会先确认）</translation>
    </message>
    <message>
        <source>TF32 is a CUDA tensor-core mode</source>
        <extracomment>(label, tokens m, out n, in k): the projections of common LLM layers at 4096 tokens. On the CPU, one product longer than this is skipped (cancel acts between products).</extracomment>
        <translation>TF32 是 CUDA 张量核心模式</translation>
    </message>
    <message>
        <source>TF32 needs compute capability &gt;= 8.0 (this GPU: {a}.{b})</source>
        <translation>TF32 需要计算能力 &gt;= 8.0（本 GPU：{a}.{b}）</translation>
    </message>
    <message>
        <source>TF32 on AMD GPUs: MI300 (gfx942) only, with HIPBLASLT_ALLOW_TF32=1 (this GPU: {a})</source>
        <extracomment>AMD architectures with FP8 matrix cores, and the FP8 type torch uses on each: MI300 (CDNA3) has the &quot;fnuz&quot; variant, MI350 (CDNA4) the OCP e4m3 of NVIDIA&apos;s FP8 (ROCm docs, &quot;Precision support&quot;: FP8 E4M3 FNUZ on gfx942, OCP FP8 on gfx950).</extracomment>
        <translation>AMD GPU 上的 TF32：仅 MI300（gfx942），且需 HIPBLASLT_ALLOW_TF32=1（此 GPU：{a}）</translation>
    </message>
    <message>
        <source>TFLOPS (median)</source>
        <translation>TFLOPS（中位数）</translation>
    </message>
    <message>
        <source>TFLOPS median</source>
        <translation>TFLOPS 中位数</translation>
    </message>
    <message>
        <source>The acceptance check is MEASURED (on {h}); the machine, telemetry and health findings after it are SIMULATED.</source>
        <translation>验收检查为 MEASURED 实测（在 {h} 上）；其后的机器、遥测和健康检查结果为 SIMULATED 模拟数据。</translation>
    </message>
    <message>
        <source>the answer is larger than {n} (the size limit)</source>
        <translation>响应大于 {n}（大小上限）</translation>
    </message>
    <message>
        <source>the answer is not HTTP{h}</source>
        <translation>响应不是 HTTP{h}</translation>
    </message>
    <message>
        <source>the answer is not valid JSON (cut short?)</source>
        <translation>应答不是有效的 JSON（被截断？）</translation>
    </message>
    <message>
        <source>the answer of {p} is not UTF-8</source>
        <translation>{p} 的响应不是 UTF-8</translation>
    </message>
    <message>
        <source>the answer of {p} is not valid JSON ({e})</source>
        <translation>{p} 的响应不是有效的 JSON（{e}）</translation>
    </message>
    <message>
        <source>the answer was cut short</source>
        <translation>响应被截断</translation>
    </message>
    <message>
        <source>the API&apos;s address (default: the provider&apos;s)</source>
        <translation>API 地址（默认：云厂商的地址）</translation>
    </message>
    <message>
        <source>The arguments the job will get (argv)</source>
        <translation>作业将收到的参数（argv）</translation>
    </message>
    <message>
        <source>The benchmark run {i} is MEASURED (on {d}); the machine, telemetry and health findings are SIMULATED.</source>
        <translation>基准测试运行 {i} 为 MEASURED 实测（在 {d} 上）；机器、遥测和健康检查结果为 SIMULATED 模拟数据。</translation>
    </message>
    <message>
        <source>The check failed: %1</source>
        <translation>检查失败：%1</translation>
    </message>
    <message>
        <source>The command and its arguments, split as a shell would; no shell runs it</source>
        <translation>命令及其参数，按 shell 的规则拆分；但不经过 shell 运行</translation>
    </message>
    <message>
        <source>The command line cannot be split: %1.</source>
        <translation>无法拆分命令行：%1。</translation>
    </message>
    <message>
        <source>The command line holds a NUL character.</source>
        <translation>命令行包含 NUL 字符。</translation>
    </message>
    <message>
        <source>The connection to {u} is back (it was lost for {s:.0f} s).</source>
        <translation>与 {u} 的连接已恢复（中断了 {s:.0f} 秒）。</translation>
    </message>
    <message>
        <source>the connection was closed</source>
        <translation>连接已关闭</translation>
    </message>
    <message>
        <source>the connection was reset{h}</source>
        <translation>连接被重置{h}</translation>
    </message>
    <message>
        <source>The container the process runs in (its id, from /proc/PID/cgroup) and, on Kubernetes, its pod as namespace/name where this machine can tell</source>
        <translation>进程所在的容器（其 ID，取自 /proc/PID/cgroup），以及在 Kubernetes 上本机能识别时的 Pod（命名空间/名称）</translation>
    </message>
    <message>
        <source>the CPU (no GPU used)</source>
        <translation>CPU（未使用 GPU）</translation>
    </message>
    <message>
        <source>the CPU was busy or its clock varied during the run: rerun on an idle machine</source>
        <extracomment>The CPU&apos;s quick calibration: small squares, so the whole check stays within seconds.</extracomment>
        <translation>运行期间 CPU 繁忙或频率波动：请在空闲的机器上重新运行</translation>
    </message>
    <message>
        <source>the CUDA version the driver supports is not known</source>
        <translation>驱动支持的 CUDA 版本未知</translation>
    </message>
    <message>
        <source>the desktop app is not available in this build; try `gpuprof --help`</source>
        <translation>此构建不含桌面应用；请试试 `gpuprof --help`</translation>
    </message>
    <message>
        <source>the desktop app needs {m}: {e}</source>
        <translation>桌面应用需要 {m}：{e}</translation>
    </message>
    <message>
        <source>The driver reported XID error {n} (DCGM_FI_DEV_XID_ERRORS).</source>
        <translation>驱动程序报告了 XID 错误 {n}（DCGM_FI_DEV_XID_ERRORS）。</translation>
    </message>
    <message>
        <source>The driver reports {gpu} ({name}) as lost; its readings stopped.</source>
        <translation>驱动报告 {gpu}（{name}）已丢失；其读数已停止。</translation>
    </message>
    <message>
        <source>The driver supports CUDA %1, which the installed torch was built for</source>
        <translation>驱动支持已安装 torch 所基于的 CUDA %1</translation>
    </message>
    <message>
        <source>The driver supports the CUDA version the installed torch was built for</source>
        <translation>驱动支持所安装 torch 构建时所用的 CUDA 版本</translation>
    </message>
    <message>
        <source>The driver unloads its state when no client holds the GPU, so every new CUDA process pays the initialisation again (often seconds) and clocks reset.</source>
        <translation>没有客户端占用 GPU 时驱动会卸载其状态，因此每个新的 CUDA 进程都要重新承担初始化开销（通常数秒），时钟也会被重置。</translation>
    </message>
    <message>
        <source>the exporter on {h} has no data: its GPUs have not answered</source>
        <translation>{h} 上的导出器没有数据：其 GPU 未响应</translation>
    </message>
    <message>
        <source>the exporter on {h} has no fresh data: its last good poll was {s:.0f} s ago</source>
        <translation>{h} 上的导出器没有最新数据：上次成功采样在 {s:.0f} 秒前</translation>
    </message>
    <message>
        <source>The exporter reports the GPU as lost (gpuprof_gpu_lost = 1).</source>
        <translation>导出器报告该 GPU 已丢失（gpuprof_gpu_lost = 1）。</translation>
    </message>
    <message>
        <source>the exporter speaks snapshot API version {v}; this gpuprof reads version {n}: use the same gpuprof version on both machines</source>
        <translation>导出器使用快照 API 版本 {v}；本 gpuprof 读取版本 {n}：请在两台机器上使用相同版本的 gpuprof</translation>
    </message>
    <message>
        <source>The file holding the exporter&apos;s --token-file token</source>
        <translation>存放导出器 --token-file 令牌的文件</translation>
    </message>
    <message>
        <source>the Fleet tab shows a Prometheus: add --prometheus URL</source>
        <translation>集群标签页显示的是 Prometheus 的数据：请加上 --prometheus URL</translation>
    </message>
    <message>
        <source>The folder of %1 does not exist.</source>
        <translation>%1 所在的文件夹不存在。</translation>
    </message>
    <message>
        <source>The folder the command runs in</source>
        <translation>命令运行所在的文件夹</translation>
    </message>
    <message>
        <source>the following arguments are required: %s</source>
        <translation>缺少以下必需参数：%s</translation>
    </message>
    <message>
        <source>The GPU could not remap a failing memory row (DCGM_FI_DEV_ROW_REMAP_FAILURE).</source>
        <translation>该 GPU 无法重映射出错的显存行（DCGM_FI_DEV_ROW_REMAP_FAILURE）。</translation>
    </message>
    <message>
        <source>The GPU fell off the bus or stopped answering. Check dmesg for Xid errors; a reset or reboot is usually needed.</source>
        <translation>GPU 已从总线上掉线或停止响应。请检查 dmesg 中的 Xid 错误；通常需要重置或重启。</translation>
    </message>
    <message>
        <source>the GPU is split into compute partitions: whole-GPU measurements see one</source>
        <translation>GPU 被划分为计算分区：整卡测量只能看到其中一个</translation>
    </message>
    <message>
        <source>The GPU is split into MIG instances: each process sees only its slice, whole-GPU utilization is not reported, and benchmarks measure one instance.</source>
        <translation>GPU 被划分为多个 MIG 实例：每个进程只能看到自己的切片，不报告整卡利用率，基准测试只测量一个实例。</translation>
    </message>
    <message>
        <source>The GPU ran out of spare rows to replace failing memory.</source>
        <translation>GPU 已没有可用于替换故障显存的备用行。</translation>
    </message>
    <message>
        <source>the GPU was never seen under load</source>
        <translation>从未观察到该 GPU 处于负载下</translation>
    </message>
    <message>
        <source>the GPU&apos;s peak {b} (all processes) drives the fit</source>
        <translation>按 GPU 的显存峰值 {b}（所有进程）判断能否放下</translation>
    </message>
    <message>
        <source>The gpuprof exporter answers, but its last successful poll of the GPUs is too old (gpuprof_source_up is 0).</source>
        <translation>gpuprof 导出器有应答，但它最近一次成功轮询 GPU 的时间过久（gpuprof_source_up 为 0）。</translation>
    </message>
    <message>
        <source>the image is empty</source>
        <translation>图像为空</translation>
    </message>
    <message>
        <source>The job&apos;s last output (stdout and stderr)</source>
        <translation>作业最近的输出（stdout 和 stderr）</translation>
    </message>
    <message>
        <source>the job&apos;s own peak {b} per GPU drives the fit</source>
        <translation>按本作业自身每 GPU 的显存峰值 {b} 判断能否放下</translation>
    </message>
    <message>
        <source>the job&apos;s processes never showed on a GPU: no GPU is counted</source>
        <translation>作业的进程从未出现在任何 GPU 上：不计入任何 GPU</translation>
    </message>
    <message>
        <source>The job&apos;s recording is not at hand</source>
        <translation>找不到作业的录制文件</translation>
    </message>
    <message>
        <source>The kernel driver and the user-space library differ: reboot after a driver update.</source>
        <translation>内核驱动与用户态库版本不一致：更新驱动后请重启。</translation>
    </message>
    <message>
        <source>The language changes at the next start of gpuprof</source>
        <translation>语言将在下次启动 gpuprof 时生效</translation>
    </message>
    <message>
        <source>the largest answer read, in MiB; a larger one is an error (default {n}: about 500 nodes of 8 GPUs)</source>
        <translation>读取的响应大小上限（MiB）；超过即报错（默认 {n}：约 500 个 8 GPU 节点）</translation>
    </message>
    <message>
        <source>the largest catalog file read, in MiB; a larger one is an error (default {n})</source>
        <translation>读取的目录文件大小上限（MiB）；超过即报错（默认 {n}）</translation>
    </message>
    <message>
        <source>the machine has other GPUs than expected</source>
        <translation>这台机器的 GPU 与预期不同</translation>
    </message>
    <message>
        <source>The machine report (HTML or PDF) with this check as its first page (Ctrl+E)</source>
        <translation>本机报告（HTML 或 PDF），以此检查为第一页（Ctrl+E）</translation>
    </message>
    <message>
        <source>the math precision of the job, for MFU against the spec peak (default bf16)</source>
        <translation>作业的计算精度，用于按规格峰值计算 MFU（默认 bf16）</translation>
    </message>
    <message>
        <source>The measured number with its unit</source>
        <translation>测得的数值及其单位</translation>
    </message>
    <message>
        <source>the memory test needs PyTorch</source>
        <translation>显存测试需要 PyTorch</translation>
    </message>
    <message>
        <source>the metric name cannot be selected</source>
        <translation>不能选择指标名</translation>
    </message>
    <message>
        <source>The MIG mode change waits for a GPU reset.</source>
        <translation>MIG 模式的变更需等待 GPU 重置后生效。</translation>
    </message>
    <message>
        <source>The name must be one line.</source>
        <translation>名称必须为单行。</translation>
    </message>
    <message>
        <source>the notes quote {q:g}/h, the row&apos;s prices are {p}</source>
        <translation>备注引用 {q:g}/小时，该行价格为 {p}</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for the installed torch</source>
        <translation>NVIDIA 驱动版本过旧，不适配已安装的 torch</translation>
    </message>
    <message>
        <source>the PEM private key of --tls-cert (default: in the --tls-cert file)</source>
        <translation>--tls-cert 的 PEM 私钥（默认：在 --tls-cert 文件中）</translation>
    </message>
    <message>
        <source>The plots show a gap where no data came.</source>
        <translation>图表中没有数据的时段显示为空缺。</translation>
    </message>
    <message>
        <source>The power limit is {l} but the default is {d} ({p} of it); under heavy load the clocks will be capped earlier.</source>
        <translation>功耗上限为 {l}，而默认值为 {d}（即默认值的 {p}）；重负载下时钟会更早被压低。</translation>
    </message>
    <message>
        <source>the price rankings compare: on-demand (default), spot (+10%% time), reserved-1y, reserved-3y, or monthly (a monthly subscription, paid in whole months); a row without that price is listed after the priced ones</source>
        <translation>排名所比较的价格：on-demand（按需，默认）、spot（竞价，时间 +10%%）、reserved-1y、reserved-3y，或 monthly（包月，按整月计费）；没有该价格的行排在有价格的行之后</translation>
    </message>
    <message>
        <source>the profile counts no tokens (t.step(tokens=...)): size the job with --steps</source>
        <translation>该画像未统计 token（t.step(tokens=...)）：请用 --steps 指定作业规模</translation>
    </message>
    <message>
        <source>The profiler could not start: %1</source>
        <extracomment>Lines of the job&apos;s output kept (and shown in the strip&apos;s log). The most a summary file may be: a job profile is a few kB; more is not one. How long closing the window waits for the profiler to save after SIGINT, then SIGTERM. What SIGTERM and SIGKILL each get to end the job. New output (text, possibly several lines). The run ended: a :class:`ProfileOutcome`.</extracomment>
        <translation>分析器无法启动：%1</translation>
    </message>
    <message>
        <source>the profiler exited with code %1 and wrote no job profile</source>
        <translation>分析器以退出码 %1 退出，未写入作业分析</translation>
    </message>
    <message>
        <source>the profiler was killed before it saved the job profile</source>
        <translation>分析器在保存作业分析之前被终止</translation>
    </message>
    <message>
        <source>the query failed ({c}): {e}</source>
        <translation>查询失败（{c}）：{e}</translation>
    </message>
    <message>
        <source>the query failed: {t}: {e}</source>
        <translation>查询失败：{t}：{e}</translation>
    </message>
    <message>
        <source>The recording to write; the job profile is stored inside it</source>
        <translation>要写入的录制文件；作业分析保存在其中</translation>
    </message>
    <message>
        <source>The report failed (exit code %1)</source>
        <translation>报告生成失败（退出码 %1）</translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation>运行失败：%1</translation>
    </message>
    <message>
        <source>The run shown: id, suite, device, state and versions</source>
        <translation>所显示的运行：ID、套件、设备、状态和版本</translation>
    </message>
    <message>
        <source>the runs disagree: look for other work on the GPU, and at clocks and throttle reasons (`nvidia-smi -q -d PERFORMANCE`)</source>
        <translation>多次运行结果不一致：检查 GPU 上是否有其他任务，并查看时钟和降频原因（`nvidia-smi -q -d PERFORMANCE`）</translation>
    </message>
    <message>
        <source>the same GPU generation</source>
        <translation>同一 GPU 代际</translation>
    </message>
    <message>
        <source>the same GPU generation, {scale}</source>
        <translation>同一 GPU 代际，{scale}</translation>
    </message>
    <message>
        <source>the series answer is not a list</source>
        <extracomment>What the requests carry to authenticate: &quot;token&quot;, &quot;password&quot; or &quot;&quot; (nothing). Series skipped because their shape was wrong, since this client was made.</extracomment>
        <translation>series 应答不是列表</translation>
    </message>
    <message>
        <source>the server closed the connection without answering{h}</source>
        <translation>服务器未响应即关闭了连接{h}</translation>
    </message>
    <message>
        <source>The share of requests the latency targets must hold for</source>
        <translation>延迟目标必须满足的请求比例</translation>
    </message>
    <message>
        <source>The SMs were active {s} and the FP32 pipes {f}, but the tensor cores only {t}, for {d}: the math runs in FP32 on the CUDA cores.</source>
        <translation>SM 活动率为 {s}，FP32 流水线为 {f}，但 Tensor Core 仅为 {t}，持续 {d}：计算以 FP32 在 CUDA 核心上运行。</translation>
    </message>
    <message>
        <source>The snapshots the checks looked at; they re-run every 2 s while this tab is visible</source>
        <extracomment>Snapshots the checks look at (the most recent ones). Shortest time between two runs of the checks, seconds. The summary line after each run: &quot;1 critical, 2 warnings&quot;, &quot;All clear&quot;, ... The findings (a list of :class:`Finding`) after each run. ``{finding code: why}`` of the checks with nothing to judge in the last run.</extracomment>
        <translation>检查所依据的快照；此标签页可见时每 2 s 重新检查一次</translation>
    </message>
    <message>
        <source>the system&apos;s certificates</source>
        <translation>系统证书</translation>
    </message>
    <message>
        <source>the table shows the first %1</source>
        <translation>表中仅显示前 %1 项</translation>
    </message>
    <message>
        <source>the targets answer has no activeTargets list</source>
        <translation>targets 应答没有 activeTargets 列表</translation>
    </message>
    <message>
        <source>the team&apos;s price list at {u}</source>
        <translation>团队在 {u} 的价格表</translation>
    </message>
    <message>
        <source>the top level</source>
        <translation>顶层</translation>
    </message>
    <message>
        <source>the top rows overlap within their error bands</source>
        <translation>排名靠前的行在误差范围内重叠</translation>
    </message>
    <message>
        <source>the top rows overlap within their error bands ({what}): #1 is not surely better than #2</source>
        <translation>排名靠前的行在误差范围内重叠（{what}）：第 1 名不一定优于第 2 名</translation>
    </message>
    <message>
        <source>The trace simulation failed: %1</source>
        <translation>请求轨迹模拟失败：%1</translation>
    </message>
    <message>
        <source>The trace simulation was cancelled.</source>
        <extracomment>The worker simulating now (None: none running). The last results shown. Results that came back for inputs no longer shown, dropped (tests).</extracomment>
        <translation>请求轨迹模拟已取消。</translation>
    </message>
    <message>
        <source>the URL must not have a query or a fragment</source>
        <translation>URL 不能带查询参数或片段</translation>
    </message>
    <message>
        <source>The URL of `gpuprof exporter` on the other machine; through an SSH tunnel (ssh -L 9400:127.0.0.1:9400 HOST) it is http://127.0.0.1:9400</source>
        <translation>另一台机器上 `gpuprof exporter` 的 URL；经 SSH 隧道（ssh -L 9400:127.0.0.1:9400 HOST）时为 http://127.0.0.1:9400</translation>
    </message>
    <message>
        <source>The whole machine</source>
        <translation>整台机器</translation>
    </message>
    <message>
        <source>The whole run&apos;s progress and the current step</source>
        <translation>整个运行的进度和当前步骤</translation>
    </message>
    <message>
        <source>The whole sweep (GEMM 1024…16384, copies up to 1 GiB): minutes</source>
        <translation>完整扫描（GEMM 1024…16384，拷贝最大 1 GiB）：需数分钟</translation>
    </message>
    <message>
        <source>The working folder %1 does not exist.</source>
        <translation>工作文件夹 %1 不存在。</translation>
    </message>
    <message>
        <source>the workload adds up to {f:.3g} FLOPs, beyond any real job (at most {lim:.3g}); check params, tokens, samples and epochs</source>
        <translation>该工作负载合计 {f:.3g} FLOPs，超出任何真实作业（至多 {lim:.3g}）；请检查参数量、token 数、样本数和轮数</translation>
    </message>
    <message>
        <source>These findings come from the simulated demo machine, not from a measurement</source>
        <translation>这些检查结果来自模拟的演示机器，并非实测</translation>
    </message>
    <message>
        <source>this build of gpuprof has no benchmarks (the lite executable, without PyTorch); use the full build, or `pip install &apos;gpuprof[bench]&apos;`</source>
        <translation>此 gpuprof 构建不含基准测试（精简版可执行文件，不含 PyTorch）；请使用完整构建，或 `pip install &apos;gpuprof[bench]&apos;`</translation>
    </message>
    <message>
        <source>This GPU is missing from the latest sample.</source>
        <translation>最新的采样中缺少此 GPU。</translation>
    </message>
    <message>
        <source>This installation of gpuprof does not include PyTorch, which runs the GEMM, memory, P2P, collective and training-step benchmarks.</source>
        <translation>此 gpuprof 安装不包含 PyTorch，而 GEMM、内存、P2P、集合通信和训练步基准测试都依赖它运行。</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>this machine: %1</source>
        <translation>本机：%1</translation>
    </message>
    <message>
        <source>this PyTorch sees no GPU (a CPU-only build)</source>
        <translation>此 PyTorch 看不到 GPU（仅 CPU 版本）</translation>
    </message>
    <message>
        <source>this PyTorch sees no GPU (a CPU-only build): install a CUDA build for NVIDIA or a ROCm build (torch.version.hip) for AMD GPUs</source>
        <translation>此 PyTorch 看不到 GPU（仅 CPU 版本）：NVIDIA 请安装 CUDA 版本，AMD GPU 请安装 ROCm 版本（torch.version.hip）</translation>
    </message>
    <message>
        <source>This run ÷ run %1 (%2)</source>
        <translation>本次运行 ÷ 运行 %1（%2）</translation>
    </message>
    <message>
        <source>This run ÷ the run chosen under Compare with</source>
        <translation>本次运行 ÷ 在“比较对象”中选择的运行</translation>
    </message>
    <message>
        <source>this workload is {f:.3g} FLOPs, over 10× the largest training runs to date (~1e26): check its numbers</source>
        <translation>该工作负载为 {f:.3g} FLOPs，超过迄今最大训练规模（约 1e26）的 10 倍：请检查其数值</translation>
    </message>
    <message>
        <source>thresholds file</source>
        <translation>阈值文件</translation>
    </message>
    <message>
        <source>Throttle</source>
        <translation>降频</translation>
    </message>
    <message>
        <source>Throttle reasons per GPU (coloured when clocks are held down)</source>
        <translation>各 GPU 的降频原因（时钟被压低时着色）</translation>
    </message>
    <message>
        <source>Throttle reasons seen in the window, by colour</source>
        <translation>此窗口内出现的降频原因，按颜色区分</translation>
    </message>
    <message>
        <source>Throttle reasons: </source>
        <translation>降频原因：</translation>
    </message>
    <message>
        <source>Throttled</source>
        <translation>降频</translation>
    </message>
    <message>
        <source>throttled: %1</source>
        <translation>降频：%1</translation>
    </message>
    <message>
        <source>THROTTLED: {r}</source>
        <comment>, </comment>
        <translation>已降频：{r}</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐</translation>
    </message>
    <message>
        <source>throughput</source>
        <translation>吞吐</translation>
    </message>
    <message>
        <source>Throughput: %1 output tokens/s per instance; load %2</source>
        <translation>吞吐：每实例 %1 输出 token/秒；负载 %2</translation>
    </message>
    <message>
        <source>Tick the GPUs to plot; each GPU keeps its colour everywhere</source>
        <translation>勾选要绘制的 GPU；每个 GPU 在各处保持同一颜色</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Time &amp;window</source>
        <translation>时间窗口(&amp;W)</translation>
    </message>
    <message>
        <source>Time breakdown</source>
        <translation>时间分解</translation>
    </message>
    <message>
        <source>time budget of the case reached</source>
        <translation>已达到该用例的时间预算</translation>
    </message>
    <message>
        <source>Time per output token at this load (the latency percentile of the workload)</source>
        <translation>该负载下每个输出 token 的时间（按工作负载的延迟百分位）</translation>
    </message>
    <message>
        <source>time since start</source>
        <translation>自开始以来的时间</translation>
    </message>
    <message>
        <source>Time since the job started</source>
        <translation>作业开始以来的时间</translation>
    </message>
    <message>
        <source>time since the job started</source>
        <translation>自作业开始的时间</translation>
    </message>
    <message>
        <source>Time since the process started</source>
        <translation>进程启动以来的时间</translation>
    </message>
    <message>
        <source>time to finish</source>
        <translation>完成时间</translation>
    </message>
    <message>
        <source>Time to first token at this load (the latency percentile of the workload)</source>
        <translation>该负载下的首 token 时间（按工作负载的延迟百分位）</translation>
    </message>
    <message>
        <source>time unknown</source>
        <translation>时间未知</translation>
    </message>
    <message>
        <source>Time vs cost (log–log); ★ Pareto front</source>
        <translation>时间与成本（双对数）；★ 帕累托前沿</translation>
    </message>
    <message>
        <source>Time vs cost of every fitting configuration</source>
        <translation>所有可容纳配置的时间与成本</translation>
    </message>
    <message>
        <source>Time window shown in the plots (Ctrl+1 … Ctrl+4)</source>
        <extracomment>Selected GPU indices changed (a set of ints). Time window chosen in the tab (seconds, 0 = all). The secondary-series choice changed: &quot;auto&quot;, &quot;on&quot; or &quot;off&quot; (the window saves it).</extracomment>
        <translation>曲线中显示的时间窗口 (Ctrl+1 … Ctrl+4)</translation>
    </message>
    <message>
        <source>Time-per-output-token target, e.g. 50ms; empty: none</source>
        <translation>每个输出 token 的时间目标，例如 50ms；留空：无</translation>
    </message>
    <message>
        <source>Time-to-first-token target, e.g. 2s or 500ms; empty: none</source>
        <translation>首 token 时间目标，例如 2s 或 500ms；留空：无</translation>
    </message>
    <message>
        <source>Time: %1</source>
        <translation>时间：%1</translation>
    </message>
    <message>
        <source>TLS failed: {e}</source>
        <translation>TLS 失败：{e}</translation>
    </message>
    <message>
        <source>TLS: the server&apos;s certificate is not trusted ({e}){h}</source>
        <translation>TLS：服务器的证书不受信任（{e}）{h}</translation>
    </message>
    <message>
        <source>To get them, install the extra:</source>
        <translation>如需使用，请安装附加组件：</translation>
    </message>
    <message>
        <source>Toggle theme</source>
        <translation>切换主题</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>tok/s/inst</source>
        <translation>token/秒/实例</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <source>tokens to train on / to generate</source>
        <extracomment>The core&apos;s parsers (gpuprof.recommend.parse) for argparse: bad text is a usage error.</extracomment>
        <translation>用于训练 / 要生成的 token 数</translation>
    </message>
    <message>
        <source>Tokens to train on, or to generate for inference (e.g. 2e10, 200B); leave empty when counting samples</source>
        <translation>用于训练或推理生成的 token 数（例如 2e10、200B）；按样本计数时留空</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>too few SM clock samples under load to compare</source>
        <translation>负载下的 SM 时钟样本太少，无法比较</translation>
    </message>
    <message>
        <source>too noisy to grade: spread {s}% &gt; margin {m}% over {n} runs</source>
        <translation>噪声过大，无法评级：{n} 次运行的离散度 {s}% &gt; 容差 {m}%</translation>
    </message>
    <message>
        <source>took {t:.1f} s, over its {budget:.0f} s budget</source>
        <translation>用时 {t:.1f} 秒，超出其 {budget:.0f} 秒的预算</translation>
    </message>
    <message>
        <source>TOP500 HPL Rmax/Rpeak of GPU systems ~0.65-0.75 (Frontier 65%, Summit 74%) -&gt; 70% (HPL is a best case)</source>
        <translation>TOP500 中 GPU 系统的 HPL Rmax/Rpeak 约为 0.65-0.75（Frontier 65%，Summit 74%）-&gt; 70%（HPL 是最理想的情况）</translation>
    </message>
    <message>
        <source>Topology &amp;&amp; details</source>
        <translation>拓扑 &amp;&amp; 详情</translation>
    </message>
    <message>
        <source>Topology (like nvidia-smi topo -m)</source>
        <translation>拓扑（类似 nvidia-smi topo -m）</translation>
    </message>
    <message>
        <source>torch trace: {p}</source>
        <translation>torch 跟踪文件：{p}</translation>
    </message>
    <message>
        <source>torch was built for CUDA {t}; the driver {d} supports CUDA up to {c}.</source>
        <translation>torch 是为 CUDA {t} 构建的；驱动 {d} 最高支持 CUDA {c}。</translation>
    </message>
    <message>
        <source>total FLOPs (HPC, rendering)</source>
        <translation>总 FLOPs（HPC、渲染）</translation>
    </message>
    <message>
        <source>Total FLOPs of the job (HPC, rendering); overrides the count from parameters</source>
        <translation>作业的总 FLOPs（HPC、渲染）；覆盖按参数量算出的值</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>TPOT p50</source>
        <translation>TPOT p50</translation>
    </message>
    <message>
        <source>TPOT p99</source>
        <translation>TPOT p99</translation>
    </message>
    <message>
        <source>TPOT target</source>
        <translation>TPOT 目标</translation>
    </message>
    <message>
        <source>trace {f}: cannot read it ({why})</source>
        <translation>轨迹 {f}：无法读取（{why}）</translation>
    </message>
    <message>
        <source>trace {f}: line {n}: {why}</source>
        <extracomment>The largest trace read (bytes): ~30 bytes a line makes this ~8 M requests&apos; worth. The most requests simulated (the simulation is pure Python: ~1 s per 10⁵ engine steps). The most engine steps simulated over all replicas; past it the run stops, says so. Sanity limits of one request. Configurations a trace is simulated on: the best rows that fit. Engine steps between two calls of a simulation&apos;s ``tick`` (progress, cancel). ``tick(fraction_done)``: called every :data:`TICK_STEPS` engine steps with the share of the work done (0..1); returns True to stop the simulation (it raises :class:`TraceCancelled`).</extracomment>
        <translation>轨迹 {f}：第 {n} 行：{why}</translation>
    </message>
    <message>
        <source>trace {f}: no requests in it</source>
        <translation>轨迹 {f}：其中没有请求</translation>
    </message>
    <message>
        <source>trace {f}: {size} bytes, more than the {lim} a trace may have</source>
        <translation>轨迹 {f}：{size} 字节，超过轨迹允许的 {lim} 字节</translation>
    </message>
    <message>
        <source>Trace: %1</source>
        <translation>跟踪文件：%1</translation>
    </message>
    <message>
        <source>training framework: tuned (Megatron-LM/NeMo, the default), fsdp, deepspeed, torchtitan; its efficiency fitted to published runs of that stack</source>
        <translation>训练框架：tuned（Megatron-LM/NeMo，默认）、fsdp、deepspeed、torchtitan；其效率由该框架的公开运行数据拟合</translation>
    </message>
    <message>
        <source>Training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <source>training: activation recomputation none (default), selective, full (every layer&apos;s forward again)</source>
        <translation>训练：激活重计算 none（默认）、selective、full（每层的前向再算一遍）</translation>
    </message>
    <message>
        <source>training: hold the parallel layout, e.g. &apos;tp4 pp8 cp1 vp6 mbs2 overlap&apos; or &apos;tp1 pp4 vp8 ep8&apos; (sizes left out are searched; epN: expert parallel, a mixture of experts; etp1: whole experts per GPU; deepep: the MoE dispatch sends a token once per remote node; overlap: tensor-parallel communication under the GEMMs)</source>
        <translation>训练：固定并行布局，例如 &apos;tp4 pp8 cp1 vp6 mbs2 overlap&apos; 或 &apos;tp1 pp4 vp8 ep8&apos;（未给出的维度会搜索；`epN`：专家并行，用于混合专家模型；`etp1`：每个 GPU 持有完整的专家；`deepep`：混合专家分发时每个令牌对每个远端节点只发送一次；`overlap`：张量并行通信与矩阵乘重叠）</translation>
    </message>
    <message>
        <source>Trend (first to last quarter)</source>
        <translation>趋势（首个四分之一到最后四分之一）</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <source>TTFT p50</source>
        <translation>TTFT p50</translation>
    </message>
    <message>
        <source>TTFT p50 %1, p99 %2 · TPOT p50 %3, p99 %4</source>
        <translation>TTFT p50 %1，p99 %2 · TPOT p50 %3，p99 %4</translation>
    </message>
    <message>
        <source>TTFT p99</source>
        <translation>TTFT p99</translation>
    </message>
    <message>
        <source>TTFT target</source>
        <translation>TTFT 目标</translation>
    </message>
    <message>
        <source>tx</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Typical causes: many small kernels (launch-bound), small batches, or frequent host synchronisation (.item(), .cpu(), torch.cuda.synchronize()). Batch more work per kernel, capture the step in CUDA graphs or torch.compile, and keep synchronisation out of the training loop.</source>
        <translation>常见原因：大量小内核（受启动开销限制）、批量过小，或频繁的主机同步（.item()、.cpu()、torch.cuda.synchronize()）。让每个内核承担更多工作，用 CUDA graphs 或 torch.compile 捕获训练步，并把同步移出训练循环。</translation>
    </message>
    <message>
        <source>uncorrected ECC errors: drain the GPU and ask for a replacement</source>
        <translation>不可纠正的 ECC 错误：停止向该 GPU 调度任务并要求更换</translation>
    </message>
    <message>
        <source>Under load the link ran at Gen{g} x{w}; the GPU supports Gen{mg} x{mw}. Host-device copies (data loading, checkpoints) get proportionally slower.</source>
        <translation>负载下链路运行在 Gen{g} x{w}；该 GPU 支持 Gen{mg} x{mw}。主机与设备间的拷贝（数据加载、检查点）会按比例变慢。</translation>
    </message>
    <message>
        <source>unexpected option string: %s</source>
        <translation>意外的选项字符串：%s</translation>
    </message>
    <message>
        <source>UNEXPLAINED</source>
        <translation>无法解释</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>unknown (attached)</source>
        <translation>未知（附加模式）</translation>
    </message>
    <message>
        <source>unknown (no NVIDIA or AMD GPU driver here)</source>
        <translation>未知（此处没有 NVIDIA 或 AMD GPU 驱动）</translation>
    </message>
    <message>
        <source>unknown attention kernel {v!r}; use one of {all}</source>
        <translation>未知的注意力内核 {v!r}；请使用 {all} 之一</translation>
    </message>
    <message>
        <source>unknown benchmark {u}; choose from {c}</source>
        <translation>未知基准测试 {u}；请从以下选择：{c}</translation>
    </message>
    <message>
        <source>unknown billing {v!r}; use one of {all}</source>
        <extracomment>Activation recomputation choices and the compute each multiplies (issue 23): full recomputation runs every layer&apos;s forward (2N of the 6N FLOPs per token) twice. KV-cache element types (``--kv-dtype``) and their bytes per element. Latency targets are met at this percentile of requests (``--slo``). The price a ranking compares (``--billing``): hourly on-demand, spot (+10 % time), reserved for 1 or 3 years, or a monthly subscription (包月, whole months of the instance). Bytes per parameter of the weights as stored in GPU memory, by precision. The largest value each field can mean; beyond it a number is a typo (``1e30`` parameters, a deadline in the next century), and the estimate it would give is noise: the workload refuses it with one line. Generous: 50-100x the largest published jobs. Inference without ``--batch``: at most this many sequences in flight, the largest batch in TensorRT-LLM&apos;s published throughput runs (the CUDA-graph batch sizes of perf-overview.md&apos;s llm_options.yml go to 8192; github NVIDIA/TensorRT-LLM commit 00f37686). Memory cuts it. How decode attention reads a grouped-query KV cache: ``grouped`` reads each KV head once for its group of query heads (FlashAttention, FlashInfer, TensorRT-LLM&apos;s XQA kernel); ``per-head`` once per query head (Hugging Face eager attention&apos;s ``repeat_kv``; TensorRT-LLM&apos;s masked multi-head attention before XQA, v0.8: its blog measured Llama-70B 2.4x faster with XQA). What the engine&apos;s scheduler holds for a sequence in flight: ``on-demand`` allocates cache blocks as tokens are generated (vLLM, SGLang: ``prompt + output/2`` on average) and ``reserve`` the whole ``prompt + output`` at admission, so no request is ever paused (TensorRT-LLM&apos;s default capacity policy, GUARANTEED_NO_EVICT). What the engine does with each emitted token&apos;s logits (:mod:`gpuprof.recommend.serve_kernels`): ``argmax`` casts them to float32 and reads them once for the next token (vLLM V1&apos;s sampler, vllm/v1/sample/sampler.py; greedy sampling in SGLang and TensorRT-LLM&apos;s PyTorch backend); ``decoder`` is TensorRT-LLM&apos;s C++ decoder of TensorRT engines: float32 logits copied by its penalty kernel, a softmax, then sampling. More total work than this (FLOPs) gets a warning: 10x the largest training runs to date. Mixture of experts: parameters used per token (FLOPs); ``params`` is the total (memory). Mixture of experts in training (:mod:`gpuprof.recommend.parallel`): routed experts, the experts each token goes to, and the parameters of all routed experts (what expert parallelism shards); 0 = dense. K+V elements cached per token per layer (``2·kv_heads·head_dim``); None = ``2·hidden`` (full multi-head attention, the default architecture of a bare ``--params``). KV heads (grouped-query attention). Tensor parallel splits the cache by head, so past this many GPUs each keeps a copy of one head; 1 = a latent every GPU keeps whole (MLA). None: as many as the GPUs (a bare ``--params``). Query heads × head size, the width attention scores are computed at (None: ``hidden``). Vocabulary size (0: not known): the logits each emitted token carries (serving&apos;s sampler, :mod:`gpuprof.recommend.serve_kernels`). Serving: how decode attention reads a grouped-query KV cache (:data:`ATTENTION_KERNELS`). Serving: the KV cache a sequence in flight holds (:data:`KV_ADMISSION`). Serving: what the engine does with each emitted token&apos;s logits (:data:`SAMPLERS`). Serving: attention data parallel (TensorRT-LLM&apos;s ``enable_attention_dp``): each GPU of the tensor-parallel group runs attention, the LM head and the sampler for its own share of the sequences (whole attention weights, all KV heads, no attention all-reduce); the MoE layers stay expert parallel, tokens all-gathered before them and reduce-scattered after. The architecture&apos;s name in resources/models.csv when ``--model`` filled the fields. LLM inference: prompt tokens per sequence, prefilled before decoding (0 = not costed). Each sequence then generates ``seq_len - prompt_len`` tokens (see :mod:`gpuprof.recommend.decode`). One configuration: exactly this many nodes (None: the fewest of 1, 2, 4 … node_limit that fit, more while a deadline is missed). Serving (:mod:`gpuprof.recommend.serve`): requests per second to sustain; the output token rate ``throughput_per_s`` is the other way to say it (÷ ``output_len``). Serving: mean generated tokens per request (None: ``seq_len - prompt_len``). When given, ``seq_len`` becomes ``prompt_len + output_len``. Serving latency targets, seconds: time to first token, time per output token. The percentile of requests the targets hold for: &quot;p50&quot; or &quot;p99&quot;. KV-cache precision (None: the weights&apos; for 16/32-bit and fp8, else fp16). Serving: tensor-parallel size of each replica (None: the best of 1, 2, 4, 8 per node). Training: the framework family (:data:`gpuprof.recommend.efficiency.STACKS`; aliases such as ``megatron`` or ``nemo`` accepted), whose fitted efficiency times the job. Training: activation recomputation, ``none``, ``selective`` (attention only: a few percent, not costed) or ``full`` (every layer&apos;s forward again in the backward: 4/3 of the compute). Memory is costed as with recomputation either way. Training: a layout held fixed, e.g. ``&quot;tp4 pp8 cp2&quot;`` (sizes left out are searched; see :func:`gpuprof.recommend.parallel.pinned_layout`). Empty: the fastest that fits. The price basis rankings compare (:data:`BILLINGS`); ``spot=True`` is ``&quot;spot&quot;``.</extracomment>
        <translation>未知的计费方式 {v!r}；请使用以下之一：{all}</translation>
    </message>
    <message>
        <source>unknown catalog format {f!r} (use skypilot or gpuprof)</source>
        <translation>未知的目录格式 {f!r}（请使用 &apos;skypilot&apos; 或 &apos;gpuprof&apos;）</translation>
    </message>
    <message>
        <source>unknown date</source>
        <translation>日期未知</translation>
    </message>
    <message>
        <source>unknown demo scenario {s!r} (choose one of: {names})</source>
        <extracomment>One pass through the scripted workload, in seconds; it then repeats. Phase boundaries within a cycle (seconds from the start). Power-capped stretch inside the training phase; the last GPU also slows down thermally. Power (and heat) per % utilization, relative to training&apos;s GEMMs, where the SMs do less. NVML&apos;s memory utilization (% of time the memory was read or written) per % utilization. Per phase: SM active per % utilization; then, as shares of SM active, occupancy and tensor activity; DRAM active per % utilization; FP32 and FP16 pipe activity per SM active. A GPU without GPM (before Hopper, GeForce): absent, with the reason. Where a demo is in the script when it starts: 3 min in, the middle of &quot;training&quot;, so it shows load at once and the power-cap episode a minute later (not the idle warm-up).</extracomment>
        <translation>未知的演示场景 {s!r}（可选：{names}）</translation>
    </message>
    <message>
        <source>unknown device {d!r}: {e}</source>
        <translation>未知设备 {d!r}：{e}</translation>
    </message>
    <message>
        <source>unknown GPU {g!r}; see `gpuprof catalog gpus`</source>
        <translation>未知 GPU {g!r}；参见 `gpuprof catalog gpus`</translation>
    </message>
    <message>
        <source>unknown KV admission {v!r}; use one of {all}</source>
        <translation>未知的 KV 准入方式 {v!r}；请使用 {all} 之一</translation>
    </message>
    <message>
        <source>unknown KV-cache dtype {v!r}; use one of {all}</source>
        <translation>未知的 KV 缓存数据类型 {v!r}；请使用 {all} 之一</translation>
    </message>
    <message>
        <source>unknown layout word {w!r}; use tpN, ppN, cpN, vpN, epN, etpN, mbsN, overlap and deepep</source>
        <translation>未知的布局词 {w!r}；请使用 `tpN`、`ppN`、`cpN`、`vpN`、`epN`、`etpN`、`mbsN`、`overlap` 和 `deepep`</translation>
    </message>
    <message>
        <source>unknown level {s}; choose from {c}</source>
        <translation>未知级别 {s}；可选：{c}</translation>
    </message>
    <message>
        <source>unknown memory test pattern {p!r}</source>
        <extracomment>Host memory tested on ``&quot;cpu&quot;`` when no size is given: a memory test of the host is a smoke test here, not a full one. ``progress(fraction 0..1, stage text)``. ``corrupt(pattern, chunk_offset_bytes, chunk)``: called between write and verify (tests).</extracomment>
        <translation>未知的内存测试模式 {p!r}</translation>
    </message>
    <message>
        <source>unknown model {m!r}; known: {names} (gpuprof recommend --list-models)</source>
        <extracomment>The shipped file (package data ``gpuprof.resources``; on disk in every install layout we ship). A models file larger than this is not a models file (the shipped one is ~6 KB). Mixture-of-experts columns, optional (a file without them, or an empty cell: dense). Bounds of each integer column: beyond them a number is a typo, not an architecture.</extracomment>
        <translation>未知模型 {m!r}；已知：{names}（gpuprof recommend --list-models）</translation>
    </message>
    <message>
        <source>unknown objective {o!r}; use one of {all}</source>
        <translation>未知的优化目标 {o!r}；可选：{all}</translation>
    </message>
    <message>
        <source>unknown percentile {v!r}; use one of {all}</source>
        <translation>未知的百分位 {v!r}；请使用 {all} 之一</translation>
    </message>
    <message>
        <source>unknown preset {p!r}; use one of {all}</source>
        <translation>未知预设 {p!r}；请使用以下之一：{all}</translation>
    </message>
    <message>
        <source>unknown recompute {v!r}; use one of {all}</source>
        <translation>未知的重计算方式 {v!r}；可用：{all}</translation>
    </message>
    <message>
        <source>unknown sampler {v!r}; use one of {all}</source>
        <translation>未知的采样器 {v!r}；请使用 {all} 之一</translation>
    </message>
    <message>
        <source>unknown stack {v!r}; use one of {all}</source>
        <translation>未知的训练框架 {v!r}；可用：{all}</translation>
    </message>
    <message>
        <source>unknown suite {s}; choose from {c}</source>
        <translation>未知套件 {s}；请从以下选择：{c}</translation>
    </message>
    <message>
        <source>unknown tab %1; choose one of: %2</source>
        <translation>未知标签页 %1；请从以下选择：%2</translation>
    </message>
    <message>
        <source>unknown: could not be computed from what is known</source>
        <extracomment>A ``null`` that stands for a non-finite number has this sibling: ``&quot;hours_reason&quot;: &quot;...&quot;``.</extracomment>
        <translation>未知：无法根据已知信息计算</translation>
    </message>
    <message>
        <source>unrecognized arguments: %s</source>
        <translation>无法识别的参数：%s</translation>
    </message>
    <message>
        <source>up to 256 GPUs</source>
        <translation>至多 256 个 GPU</translation>
    </message>
    <message>
        <source>Update failed, previous prices kept: %1</source>
        <translation>更新失败，保留原有价格：%1</translation>
    </message>
    <message>
        <source>Update prices…</source>
        <translation>更新价格…</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver, or install a torch build for CUDA {c} or older.</source>
        <translation>请更新 NVIDIA 驱动，或安装面向 CUDA {c} 或更早版本的 torch。</translation>
    </message>
    <message>
        <source>usage: </source>
        <extracomment>Languages with a catalog (&quot;en&quot; is the source language and needs none), and their names. A template needs this many literal characters to be matched by :func:`tr_text`: &quot;{a}: {b}&quot; alone would claim any text with a colon. argparse&apos;s own texts: the usage prefix, section titles, ``-h``&apos;s help and its parse errors. argparse looks them up through :mod:`gettext` (``argparse._``); :func:`translate_argparse` points that lookup at this catalog.</extracomment>
        <translation>用法：</translation>
    </message>
    <message>
        <source>USD</source>
        <translation>USD</translation>
    </message>
    <message>
        <source>USD per achieved PFLOP-hour (price per hour ÷ achieved PFLOP/s)</source>
        <translation>每实际 PFLOP-小时的 USD（每小时价格 ÷ 实际 PFLOP/s）</translation>
    </message>
    <message>
        <source>USD per million output tokens: the hourly price of all the instances ÷ the output tokens they serve per hour</source>
        <translation>每百万输出 token 的美元成本：全部实例的每小时价格 ÷ 它们每小时服务的输出 token 数</translation>
    </message>
    <message>
        <source>Use mixed precision (torch.autocast with bfloat16) or allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, or torch.set_float32_matmul_precision(&apos;high&apos;)): tensor cores run that math several times faster than FP32.</source>
        <translation>使用混合精度（torch.autocast 配合 bfloat16）或允许 TF32（torch.backends.cuda.matmul.allow_tf32 = True，或 torch.set_float32_matmul_precision(&apos;high&apos;)）：Tensor Core 执行这些计算比 FP32 快数倍。</translation>
    </message>
    <message>
        <source>use the SIMULATED 8×H100 box</source>
        <translation>使用 SIMULATED（模拟）的 8×H100 机器</translation>
    </message>
    <message>
        <source>use the SIMULATED 8×H100 machine (12 scripted minutes); labelled SIMULATED</source>
        <translation>使用 SIMULATED（模拟）的 8×H100 机器（12 分钟脚本数据）；标注为 SIMULATED</translation>
    </message>
    <message>
        <source>used</source>
        <translation>已用</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Util</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>util</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Utilization — GPU (bright), memory (pale)</source>
        <translation>利用率 — GPU（亮色），显存（浅色）</translation>
    </message>
    <message>
        <source>Utilization — GPU (memory: not drawn)</source>
        <translation>利用率 — GPU（显存：未绘制）</translation>
    </message>
    <message>
        <source>UUID</source>
        <translation>UUID</translation>
    </message>
    <message>
        <source>validate a catalog file and store it as an overlay</source>
        <translation>校验目录文件并将其存为叠加目录</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Values under the mouse cursor</source>
        <translation>鼠标光标处的数值</translation>
    </message>
    <message>
        <source>VBIOS</source>
        <translation>VBIOS</translation>
    </message>
    <message>
        <source>Verdict: %1 (exit code %2)</source>
        <translation>结论：%1（退出码 %2）</translation>
    </message>
    <message>
        <source>verdict: {v} (exit code {c})</source>
        <translation>结论：{v}（退出码 {c}）</translation>
    </message>
    <message>
        <source>verified</source>
        <translation>已校验</translation>
    </message>
    <message>
        <source>verifying {p}</source>
        <translation>正在校验 {p}</translation>
    </message>
    <message>
        <source>Versions of gpuprof, Qt, the driver and CUDA (F1)</source>
        <translation>gpuprof、Qt、驱动和 CUDA 的版本 (F1)</translation>
    </message>
    <message>
        <source>vGPU accelerated</source>
        <translation>vGPU加速型</translation>
    </message>
    <message>
        <source>Volcano Engine</source>
        <translation>火山引擎</translation>
    </message>
    <message>
        <source>vs earlier</source>
        <translation>相比以前</translation>
    </message>
    <message>
        <source>vs here</source>
        <translation>对比本机</translation>
    </message>
    <message>
        <source>vs this machine: %1× faster</source>
        <translation>相比本机：快 %1×</translation>
    </message>
    <message>
        <source>waiting for results…</source>
        <extracomment>(kind → what the chart shows now) for tests and the screenshot check.</extracomment>
        <translation>等待结果…</translation>
    </message>
    <message>
        <source>Waiting for telemetry: the checks run once the first snapshot arrives.</source>
        <translation>等待遥测数据：收到第一个快照后开始检查。</translation>
    </message>
    <message>
        <source>Wall time</source>
        <translation>墙钟时间</translation>
    </message>
    <message>
        <source>Wall time:</source>
        <translation>墙钟时间：</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Watch a cluster&apos;s GPUs through the Prometheus that scrapes them</source>
        <translation>通过采集集群 GPU 的 Prometheus 查看它们</translation>
    </message>
    <message>
        <source>Watch another machine running `gpuprof exporter` (Ctrl+Shift+O)</source>
        <translation>查看另一台运行 `gpuprof exporter` 的机器（Ctrl+Shift+O）</translation>
    </message>
    <message>
        <source>watch another machine: the URL of its `gpuprof exporter` (e.g. http://127.0.0.1:9400 through an SSH tunnel); each answer must come whole within {s:g} s and be at most {n} MiB</source>
        <translation>查看另一台机器：其 `gpuprof exporter` 的 URL（例如经 SSH 隧道的 http://127.0.0.1:9400）；每个响应须在 {s:g} 秒内完整到达，且不超过 {n} MiB</translation>
    </message>
    <message>
        <source>weak FP64: {fp64:g} TFLOPS (FP32 {fp32:g}); pick a data-center part (V100/A100/H100/MI300X) for FP64 work</source>
        <translation>FP64 较弱：{fp64:g} TFLOPS（FP32 {fp32:g}）；FP64 负载请选数据中心级 GPU（V100/A100/H100/MI300X）</translation>
    </message>
    <message>
        <source>went backwards</source>
        <extracomment>A GPU counts as active (for the phases) above this utilization, in percent. The longest time one sample stands for, in sampling intervals. The health checks see at most this many samples per GPU (every k-th beyond).</extracomment>
        <translation>出现回退</translation>
    </message>
    <message>
        <source>What</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>What limits the configuration: latency target, communication, compute, memory capacity (the KV cache is full) or memory bandwidth</source>
        <translation>限制该配置的因素：延迟目标、通信、算力、显存容量（KV 缓存已满）或显存带宽</translation>
    </message>
    <message>
        <source>what the grid shows (default util)</source>
        <translation>网格显示的指标（默认 util）</translation>
    </message>
    <message>
        <source>What the job does: it decides the memory model (training keeps gradients and optimizer state) and the FLOPs per token</source>
        <translation>作业做什么：它决定显存模型（训练需保存梯度和优化器状态）以及每个 token 的 FLOPs</translation>
    </message>
    <message>
        <source>what the machine should be: a catalog instance type or a spec like 8xH100-SXM</source>
        <translation>机器应有的配置：目录中的实例类型或 8xH100-SXM 这样的规格</translation>
    </message>
    <message>
        <source>What the machine should be: a catalog instance type or a spec like 8xH100-SXM (empty: each GPU&apos;s own spec row)</source>
        <translation>这台机器应当是什么：目录中的实例类型，或 8xH100-SXM 这样的规格（留空：按每块 GPU 自身的规格行）</translation>
    </message>
    <message>
        <source>What the selected finding means and what to do about it</source>
        <translation>所选检查结果的含义及处理方法</translation>
    </message>
    <message>
        <source>What the value is</source>
        <translation>该数值的含义</translation>
    </message>
    <message>
        <source>What to do:</source>
        <translation>处理建议：</translation>
    </message>
    <message>
        <source>What was checked:</source>
        <translation>检查项目：</translation>
    </message>
    <message>
        <source>where the catalogs are: URL/&lt;provider&gt;/vms.csv (default: SkyPilot&apos;s v8)</source>
        <translation>目录所在位置：URL/&lt;provider&gt;/vms.csv（默认：SkyPilot 的 v8）</translation>
    </message>
    <message>
        <source>Where the device time goes</source>
        <translation>设备时间的去向</translation>
    </message>
    <message>
        <source>where the rate is from (stored with it)</source>
        <translation>汇率来源（随汇率一起保存）</translation>
    </message>
    <message>
        <source>Where the telemetry comes from</source>
        <translation>遥测数据的来源</translation>
    </message>
    <message>
        <source>Where the time goes (PyTorch profiler, --torch)</source>
        <translation>时间都花在哪里（PyTorch 分析器，--torch）</translation>
    </message>
    <message>
        <source>Where the time went</source>
        <translation>时间去向</translation>
    </message>
    <message>
        <source>Where to run. The CUDA devices are listed the first time this list opens (it loads PyTorch)</source>
        <translation>运行位置。首次打开此列表时才会列出 CUDA 设备（需要加载 PyTorch）</translation>
    </message>
    <message>
        <source>Whether the workload fits in GPU memory with 15% headroom</source>
        <translation>在保留 15% 余量的情况下工作负载能否放入 GPU 显存</translation>
    </message>
    <message>
        <source>Whole job at the 1-year reserved price, USD</source>
        <translation>按 1 年预留价格计算的整个作业，USD</translation>
    </message>
    <message>
        <source>Whole job at the 3-year reserved price, USD</source>
        <translation>按 3 年预留价格计算的整个作业，USD</translation>
    </message>
    <message>
        <source>Whole job at the on-demand price, USD</source>
        <translation>按按需价格计算的整个作业，USD</translation>
    </message>
    <message>
        <source>Whole job at the spot price (+10% time for checkpoints and interruptions), USD</source>
        <translation>按竞价价格计算的整个作业（检查点与中断另加 10% 时间），USD</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>理由</translation>
    </message>
    <message>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>why / hint</source>
        <translation>原因 / 提示</translation>
    </message>
    <message>
        <source>Why a case was skipped or failed, throttling seen, details</source>
        <translation>用例被跳过或失败的原因、观察到的降频、详细信息</translation>
    </message>
    <message>
        <source>Why the clocks are held down right now (nvidia-smi -q -d PERFORMANCE)</source>
        <translation>当前时钟被压低的原因（nvidia-smi -q -d PERFORMANCE）</translation>
    </message>
    <message>
        <source>Why this configuration: memory fit, time, cost, the efficiency used and its source, warnings, formulas</source>
        <translation>为何选择此配置：显存容纳、时间、成本、所用效率及其来源、警告、公式</translation>
    </message>
    <message>
        <source>Window:</source>
        <translation>窗口：</translation>
    </message>
    <message>
        <source>with --connect https://…: the CA certificate (PEM) that signed the exporter&apos;s</source>
        <translation>配合 --connect https://…：签发导出器证书的 CA 证书（PEM）</translation>
    </message>
    <message>
        <source>with --connect: the file holding the exporter&apos;s bearer token</source>
        <translation>配合 --connect：存放导出器 Bearer 令牌的文件</translation>
    </message>
    <message>
        <source>with --from-profile: steps of the whole job (default: as profiled)</source>
        <translation>配合 --from-profile：整个作业的步数（默认：与剖析时相同）</translation>
    </message>
    <message>
        <source>with --screenshot: seconds of data to collect first (default 3)</source>
        <translation>与 --screenshot 一起使用：先采集多少秒数据（默认 3）</translation>
    </message>
    <message>
        <source>with --screenshot: window size (default 1600x1000)</source>
        <translation>与 --screenshot 一起使用：窗口尺寸（默认 1600x1000）</translation>
    </message>
    <message>
        <source>with .png: the tab to capture (default: the whole window)</source>
        <translation>与 .png 一起使用：要截取的标签页（默认：整个窗口）</translation>
    </message>
    <message>
        <source>without --session: seconds of live sampling (default 3)</source>
        <translation>不带 --session 时：实时采样的秒数（默认 3）</translation>
    </message>
    <message>
        <source>Working folder</source>
        <translation>工作文件夹</translation>
    </message>
    <message>
        <source>Working folder:</source>
        <translation>工作文件夹：</translation>
    </message>
    <message>
        <source>Working set</source>
        <translation>工作集</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>write a closed copy of a recording that was not closed</source>
        <translation>为未正常关闭的录制文件写一个已关闭的副本</translation>
    </message>
    <message>
        <source>Write a recorded session as CSV: one row per GPU per sample, units in the header.</source>
        <translation>将录制的会话写为 CSV：每个 GPU 每次采样一行，单位写在表头中。</translation>
    </message>
    <message>
        <source>Write a report on this machine: host, GPUs and topology, a telemetry summary with charts and throttle events, health findings, a benchmark run and cloud recommendations. The format follows --out: .html (one self-contained file), .pdf (A4 or Letter), .json (schema: docs/report-schema.md) or .png (a screenshot of the app window or of --tab, like `gpuprof --screenshot`). Without --session, samples the GPUs live for --duration seconds. Command lines are hidden unless --include-cmdlines; passwords and tokens are hidden always.</source>
        <translation>生成本机报告：主机、GPU 与拓扑、带图表和降频事件的遥测摘要、健康检查结果、一次基准测试运行以及云端推荐。格式由 --out 决定：.html（单个自包含文件）、.pdf（A4 或 Letter）、.json（schema：docs/report-schema.md）或 .png（应用窗口或 --tab 的截图，同 `gpuprof --screenshot`）。不带 --session 时，对 GPU 实时采样 --duration 秒。除非指定 --include-cmdlines，否则隐藏命令行；密码和令牌始终隐藏。</translation>
    </message>
    <message>
        <source>write a report: HTML, PDF, JSON (or a PNG screenshot)</source>
        <translation>生成报告：HTML、PDF、JSON（或 PNG 截图）</translation>
    </message>
    <message>
        <source>write an HTML report</source>
        <translation>写出 HTML 报告</translation>
    </message>
    <message>
        <source>write the result as JSON (&apos;-&apos; for stdout; docs/check-schema.md)</source>
        <translation>将结果写为 JSON（&apos;-&apos; 表示标准输出；见 docs/check-schema.md）</translation>
    </message>
    <message>
        <source>write the run as JSON (&apos;-&apos; for stdout)</source>
        <translation>将运行写为 JSON（&apos;-&apos; 表示 stdout）</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>正在写入 %1…</translation>
    </message>
    <message>
        <source>writing {p}</source>
        <translation>正在写入 {p}</translation>
    </message>
    <message>
        <source>wrote {n} samples ({r} rows, one per GPU) to {p}</source>
        <translation>已写入 {n} 个采样（{r} 行，每个 GPU 一行）到 {p}</translation>
    </message>
    <message>
        <source>wrote {p}{n}</source>
        <translation>已写入 {p}{n}</translation>
    </message>
    <message>
        <source>XGMI = AMD Infinity Fabric link (one hop)</source>
        <translation>XGMI = AMD Infinity Fabric 链路（一跳）</translation>
    </message>
    <message>
        <source>XGMI read</source>
        <translation>XGMI 读</translation>
    </message>
    <message>
        <source>XGMI write</source>
        <translation>XGMI 写</translation>
    </message>
    <message>
        <source>XGMI ×%1 read %2 write %3</source>
        <translation>XGMI ×%1 读 %2 写 %3</translation>
    </message>
    <message>
        <source>XGMI — read (bright), write (pale)</source>
        <translation>XGMI — 读（亮色），写（浅色）</translation>
    </message>
    <message>
        <source>XGMI — read (write: not drawn)</source>
        <translation>XGMI — 读（写：未绘制）</translation>
    </message>
    <message>
        <source>XID / ECC errors</source>
        <translation>XID / ECC 错误</translation>
    </message>
    <message>
        <source>XID errors during the load: {x}</source>
        <translation>负载期间出现 XID 错误：{x}</translation>
    </message>
    <message>
        <source>XID events are NVIDIA&apos;s; AMD RAS errors are counted in the ECC items</source>
        <translation>XID 事件是 NVIDIA 的概念；AMD 的 RAS 错误计入 ECC 项</translation>
    </message>
    <message>
        <source>XID events cannot be watched here (NVML event sets unsupported)</source>
        <translation>此处无法监视 XID 事件（不支持 NVML 事件集）</translation>
    </message>
    <message>
        <source>XID or ECC</source>
        <translation>XID 或 ECC</translation>
    </message>
    <message>
        <source>XID {n} on {g}</source>
        <extracomment>A reason active for at least this share of the throttle window counts as throttling. Above this utilization a PCIe link should be at its full generation. Error counters critical at any count above 0: (the FleetGpu field, also the finding&apos;s code, title, detail); ``{n}`` is the count, ``{g}`` the GPU.</extracomment>
        <translation>{g} 上出现 XID {n}</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>{a} (A) vs {b} (B)</source>
        <translation>{a} (A) 对比 {b} (B)</translation>
    </message>
    <message>
        <source>{a} of {b} usable per GPU</source>
        <translation>每 GPU 可用 {b}，需要 {a}</translation>
    </message>
    <message>
        <source>{a} of {b} usable per GPU: does not fit</source>
        <translation>每 GPU 可用 {b}，需要 {a}：放不下</translation>
    </message>
    <message>
        <source>{a}: bad count or price</source>
        <translation>{a}：数量或价格有误</translation>
    </message>
    <message>
        <source>{b:.0f} of the {want} requested sequences fit in memory beside the weights: estimated at batch {b:.0f}</source>
        <translation>{want} 个请求序列中只有 {b:.0f} 个能与权重一起放入显存：按批大小 {b:.0f} 估算</translation>
    </message>
    <message>
        <source>{cost} on a monthly subscription, in whole months (prices as of {date})</source>
        <translation>包月 {cost}，按整月计费（价格截至 {date}）</translation>
    </message>
    <message>
        <source>{cost} on-demand (prices as of {date})</source>
        <translation>按需 {cost}（价格截至 {date}）</translation>
    </message>
    <message>
        <source>{cost} spot (prices as of {date})</source>
        <translation>竞价 {cost}（价格截至 {date}）</translation>
    </message>
    <message>
        <source>{cost} {basis} (prices as of {date})</source>
        <translation>{basis} {cost}（价格截至 {date}）</translation>
    </message>
    <message>
        <source>{c} compute-bound (matmul + attention), {m} memory-bound (copies + other kernels), {k} collectives, {f} idle (torch breakdown, {d})</source>
        <extracomment>(compute-bound, memory-bound) shares of a step when neither a torch breakdown nor GPM says.</extracomment>
        <translation>{c} 受计算限制（矩阵乘法 + 注意力），{m} 受访存限制（拷贝 + 其他内核），{k} 集合通信，{f} 空闲（torch 时间分解，{d}）</translation>
    </message>
    <message>
        <source>{c} compute-bound / {m} memory-bound (an assumption: no torch breakdown and no GPM activity in this profile)</source>
        <translation>{c} 受计算限制 / {m} 受访存限制（假设值：此画像既无 torch 时间分解，也无 GPM 活动数据）</translation>
    </message>
    <message>
        <source>{c} compute-bound, {m} memory-bound, {f} idle (GPM: GPU utilization {u} busy, {n} active {a} vs DRAM active {d})</source>
        <translation>{c} 受计算限制，{m} 受访存限制，{f} 空闲（GPM：GPU 利用率 {u}，{n} 活动率 {a}，DRAM 活动率 {d}）</translation>
    </message>
    <message>
        <source>{c} compute-bound, {m} memory-bound, {f} idle (GPM: {n} active {a} vs DRAM active {d})</source>
        <translation>{c} 受计算限制，{m} 受访存限制，{f} 空闲（GPM：{n} 活动率 {a}，DRAM 活动率 {d}）</translation>
    </message>
    <message>
        <source>{c}: cannot read: {e}</source>
        <translation>{c}：无法读取：{e}</translation>
    </message>
    <message>
        <source>{c}: cannot use this certificate and key: {e}</source>
        <translation>{c}：无法使用此证书和私钥：{e}</translation>
    </message>
    <message>
        <source>{dtype} GEMM {tflops:.0f} TFLOPS = {ratio:.0%} of spec {peak:g}; x {eff:.0%} published/assumed ÷ {ceiling:.0%} typical GEMM ceiling ({why})</source>
        <translation>{dtype} GEMM {tflops:.0f} TFLOPS = 规格 {peak:g} 的 {ratio:.0%}；× {eff:.0%}（已发表/假设）÷ {ceiling:.0%} 典型 GEMM 上限（{why}）</translation>
    </message>
    <message>
        <source>{d}: no CUDA device is available (torch {v}); use --device cpu</source>
        <translation>{d}：没有可用的 CUDA 设备（torch {v}）；请使用 --device cpu</translation>
    </message>
    <message>
        <source>{d}: no NVIDIA GPU or driver here; use --device cpu</source>
        <translation>{d}：此处没有 NVIDIA GPU 或驱动；请使用 --device cpu</translation>
    </message>
    <message>
        <source>{d}: no such GPU (found {n})</source>
        <translation>{d}：没有这块 GPU（找到 {n} 块）</translation>
    </message>
    <message>
        <source>{d}: only {n} CUDA device(s)</source>
        <translation>{d}：只有 {n} 个 CUDA 设备</translation>
    </message>
    <message>
        <source>{file}: {why}</source>
        <translation>{file}：{why}</translation>
    </message>
    <message>
        <source>{flags}: for --scenario serve (LLM inference), not {s}</source>
        <translation>{flags}：用于 --scenario serve（LLM 推理），不适用于 {s}</translation>
    </message>
    <message>
        <source>{gpu} fell off the bus</source>
        <translation>{gpu} 已从总线上掉线</translation>
    </message>
    <message>
        <source>{gpu}: clocks limited by power under load</source>
        <translation>{gpu}：负载下时钟受功耗限制</translation>
    </message>
    <message>
        <source>{gpu}: corrected ECC errors</source>
        <translation>{gpu}：已纠正的 ECC 错误</translation>
    </message>
    <message>
        <source>{gpu}: GPU busy but SMs mostly idle</source>
        <extracomment>&quot;GPU busy&quot;: NVML&apos;s GPU utilization from this on (percent of time a kernel ran) ... ... while the SMs were active (at least one warp resident) less than this share of cycles. A job&apos;s math keeps the SMs active at least this share of cycles (percent) ... ... the tensor cores count as idle at or below this (percent of cycles) ... ... while the FP32 pipes are active at least this share of cycles (percent). Memory-bandwidth bound: DRAM active at least this share of cycles (percent) ... ... while no math pipe (tensor, FP64/FP32/FP16) is active this share of cycles or more. A pattern counts when it holds without a break for this long (seconds) ... ... and over at least this many samples (each GPM value is a mean between two polls). Seconds per sample when the caller has no times (the sampler&apos;s default interval).</extracomment>
        <translation>{gpu}：GPU 忙碌，但 SM 大多空闲</translation>
    </message>
    <message>
        <source>{gpu}: hardware slowdown under load</source>
        <translation>{gpu}：负载下出现硬件降频</translation>
    </message>
    <message>
        <source>{gpu}: low utilization while a job runs</source>
        <translation>{gpu}：作业运行时利用率低</translation>
    </message>
    <message>
        <source>{gpu}: memory repair waits for a reset</source>
        <translation>{gpu}：显存修复等待重置</translation>
    </message>
    <message>
        <source>{gpu}: memory row remapping failed</source>
        <translation>{gpu}：显存行重映射失败</translation>
    </message>
    <message>
        <source>{gpu}: memory was retired or remapped</source>
        <translation>{gpu}：已有显存被退役或重映射</translation>
    </message>
    <message>
        <source>{gpu}: memory-bandwidth bound</source>
        <translation>{gpu}：受显存带宽限制</translation>
    </message>
    <message>
        <source>{gpu}: MIG is enabled ({n} instances)</source>
        <translation>{gpu}：MIG 已启用（{n} 个实例）</translation>
    </message>
    <message>
        <source>{gpu}: MIG is enabled but not active yet</source>
        <translation>{gpu}：MIG 已启用但尚未生效</translation>
    </message>
    <message>
        <source>{gpu}: PCIe link below its maximum under load</source>
        <translation>{gpu}：负载下 PCIe 链路低于其最大规格</translation>
    </message>
    <message>
        <source>{gpu}: persistence mode is off</source>
        <translation>{gpu}：持久模式已关闭</translation>
    </message>
    <message>
        <source>{gpu}: power limit is below the default</source>
        <translation>{gpu}：功耗上限低于默认值</translation>
    </message>
    <message>
        <source>{gpu}: tensor cores idle during a training job</source>
        <translation>{gpu}：训练任务期间 Tensor Core 闲置</translation>
    </message>
    <message>
        <source>{gpu}: thermal throttling under load</source>
        <translation>{gpu}：负载下出现温度降频</translation>
    </message>
    <message>
        <source>{gpu}: uncorrectable ECC errors</source>
        <translation>{gpu}：不可纠正的 ECC 错误</translation>
    </message>
    <message>
        <source>{g} fell off the bus</source>
        <translation>{g} 已从总线上掉线</translation>
    </message>
    <message>
        <source>{g} idle but held{w}</source>
        <translation>{g} 空闲但被占用{w}</translation>
    </message>
    <message>
        <source>{g} stopped reporting</source>
        <translation>{g} 已停止上报</translation>
    </message>
    <message>
        <source>{g} throttles while its siblings do not</source>
        <translation>{g} 在降频，而同节点的其他 GPU 没有</translation>
    </message>
    <message>
        <source>{g}: PCIe link below its peers</source>
        <translation>{g}：PCIe 链路低于同型号 GPU</translation>
    </message>
    <message>
        <source>{g}: {d} GEMM {t:.1f} TFLOPS, {src} — sets its efficiency (--no-measured to ignore)</source>
        <translation>{g}：{d} GEMM {t:.1f} TFLOPS，{src} — 用于设定其效率（--no-measured 可忽略）</translation>
    </message>
    <message>
        <source>{h}: none of {n} measurements differs by more than {t:.0f}%</source>
        <translation>{h}：{n} 项测量中没有相差超过 {t:.0f}% 的</translation>
    </message>
    <message>
        <source>{h}: {g} of {n} measurements differ by more than {t:.0f}% (largest: {k} {r})</source>
        <extracomment>With exactly two machines, second / first per key (None where either has no number or the first is 0); empty otherwise. The relative gap a ratio must pass to be worth a look: the outlier threshold.</extracomment>
        <translation>{h}：{n} 项测量中有 {g} 项相差超过 {t:.0f}%（最大：{k} {r}）</translation>
    </message>
    <message>
        <source>{instance} ({family})</source>
        <translation>{instance}（{family}）</translation>
    </message>
    <message>
        <source>{i}: not saved as a reference: too few of its runs, or too noisy</source>
        <translation>{i}：未保存为参考值：其测得的运行次数太少或噪声过大</translation>
    </message>
    <message>
        <source>{kind} {code}</source>
        <translation>{kind} {code}</translation>
    </message>
    <message>
        <source>{k} at {r:.0f}% of the median of {w}</source>
        <translation>{k} 为{w}中位数的 {r:.0f}%</translation>
    </message>
    <message>
        <source>{k} does not support {d}</source>
        <translation>{k} 不支持 {d}</translation>
    </message>
    <message>
        <source>{k} records that could not be read were left out</source>
        <translation>略去了 {k} 条无法读取的记录</translation>
    </message>
    <message>
        <source>{label} on {host} via {url}</source>
        <extracomment>Seconds the snapshots say the connection is back, after it was lost. Bounds on what a remote may send: GPUs (indices below this too), processes. Longest tuples a sample may hold: (record type, field) -&gt; items.</extracomment>
        <translation>{label}，位于 {host}，经 {url}</translation>
    </message>
    <message>
        <source>{m:g} GiB per GPU; a {g} has {s:g} GiB</source>
        <translation>每 GPU {m:g} GiB；{g} 为 {s:g} GiB</translation>
    </message>
    <message>
        <source>{m:g} GiB per GPU; the published configuration has {k:g}</source>
        <translation>每 GPU {m:g} GiB；公布的配置为 {k:g}</translation>
    </message>
    <message>
        <source>{model} ({n} logical)</source>
        <translation>{model}（{n} 个逻辑核心）</translation>
    </message>
    <message>
        <source>{m}: {kind} {v}, {n} measurements{c}</source>
        <translation>{m}：{kind} {v}，{n} 项测量{c}</translation>
    </message>
    <message>
        <source>{m}: {kind} {v}, {n} measurements{c}; {o} outliers</source>
        <translation>{m}：{kind} {v}，{n} 项测量{c}；{o} 个离群值</translation>
    </message>
    <message>
        <source>{m}: {kind} {v}, {n} measurements{c}; {o} outliers among its GPUs</source>
        <translation>{m}：{kind} {v}，{n} 项测量{c}；其 GPU 之间有 {o} 个离群值</translation>
    </message>
    <message>
        <source>{n:g} GPUs; the published configuration has {k}</source>
        <translation>{n:g} 个 GPU；公布的配置为 {k} 个</translation>
    </message>
    <message>
        <source>{name} is not a number: {t!r}</source>
        <translation>{name} 不是数字：{t!r}</translation>
    </message>
    <message>
        <source>{name} must be a finite number &gt; 0, got {v}</source>
        <translation>{name} 必须是大于 0 的有限数，实际为 {v}</translation>
    </message>
    <message>
        <source>{name} must be a whole number from {lo} to {hi}, got {t!r}</source>
        <translation>{name} 必须是 {lo} 到 {hi} 之间的整数，实际为 {t!r}</translation>
    </message>
    <message>
        <source>{name} must be finite, got {t!r}</source>
        <translation>{name} 必须是有限数，实际为 {t!r}</translation>
    </message>
    <message>
        <source>{name} {v:.3g} is beyond any real workload (at most {lim:.3g}); check the number</source>
        <translation>{name} {v:.3g} 超出任何真实工作负载（至多 {lim:.3g}）；请检查该数值</translation>
    </message>
    <message>
        <source>{name} — {s}, {p:.3g} params, {prec}; objective: {o}; {v} of {c} candidates fit</source>
        <translation>{name} — {s}，{p:.3g} 参数，{prec}；优化目标：{o}；{c} 个候选中有 {v} 个可容纳</translation>
    </message>
    <message>
        <source>{name}: projected onto {n} catalog instances ({f} fit); cheapest first</source>
        <translation>{name}：推算到目录中的 {n} 个实例（{f} 个放得下）；最便宜的在前</translation>
    </message>
    <message>
        <source>{nodes} nodes × {gpus:g} GPUs (as asked)</source>
        <translation>{nodes} 个节点 × {gpus:g} 个 GPU（按要求）</translation>
    </message>
    <message>
        <source>{nodes} nodes × {gpus:g} GPUs (fewer did not fit or missed the deadline)</source>
        <translation>{nodes} 个节点 × {gpus:g} 个 GPU（更少则放不下或赶不上截止时间）</translation>
    </message>
    <message>
        <source>{n} bad words in {m} MiB</source>
        <translation>{m} MiB 中有 {n} 个错误字</translation>
    </message>
    <message>
        <source>{n} bad words in {m} MiB: {a}</source>
        <translation>{m} MiB 中有 {n} 个错误字：{a}</translation>
    </message>
    <message>
        <source>{n} GPU rows without a machine type have no host VM in their zone (first: {c}x {g} in {z}); skipped</source>
        <translation>{n} 个没有机器类型的 GPU 行在其可用区中没有宿主虚拟机（第一个：{z} 中的 {c}x {g}）；已跳过</translation>
    </message>
    <message>
        <source>{n} instances</source>
        <translation>{n} 个实例</translation>
    </message>
    <message>
        <source>{n} is not JSON</source>
        <translation>{n} 不是 JSON</translation>
    </message>
    <message>
        <source>{n} items, more than the {m} a result file may hold</source>
        <translation>{n} 项，超过了一个结果文件最多可含的 {m} 项</translation>
    </message>
    <message>
        <source>{n} machines compared</source>
        <translation>已对比 {n} 台机器</translation>
    </message>
    <message>
        <source>{n} negotiated prices from {u} stored in {p}</source>
        <translation>已将来自 {u} 的 {n} 条协商价格保存到 {p}</translation>
    </message>
    <message>
        <source>{n} of {m} measurements failed</source>
        <translation>{m} 项测量中有 {n} 项失败</translation>
    </message>
    <message>
        <source>{n} prices from {p}&apos;s API stored in {d}</source>
        <translation>已将来自 {p} API 的 {n} 条价格保存到 {d}</translation>
    </message>
    <message>
        <source>{n} rows are not compared in {to}: no exchange rate for {c} (--fx-rate {c}=RATE@YYYY-MM-DD, or gpuprof catalog fx --set)</source>
        <translation>{n} 行未以 {to} 比较：没有 {c} 的汇率（--fx-rate {c}=汇率@YYYY-MM-DD，或 gpuprof catalog fx --set）</translation>
    </message>
    <message>
        <source>{n} rows priced in {c} were not checked against the price bands: no exchange rate for {c} (--fx-rate {c}=RATE@YYYY-MM-DD)</source>
        <translation>{n} 行以 {c} 标价的数据未做价格区间检查：没有 {c} 的汇率（--fx-rate {c}=RATE@YYYY-MM-DD）</translation>
    </message>
    <message>
        <source>{n} series with an unexpected shape were skipped.</source>
        <translation>已跳过 {n} 个格式异常的序列。</translation>
    </message>
    <message>
        <source>{n} single-bit errors were corrected by ECC.</source>
        <translation>ECC 纠正了 {n} 个单比特错误。</translation>
    </message>
    <message>
        <source>{n} step (as profiled)</source>
        <translation>{n} 步（按画像）</translation>
    </message>
    <message>
        <source>{n} steps (as profiled)</source>
        <translation>{n} 步（按画像）</translation>
    </message>
    <message>
        <source>{n} steps (given)</source>
        <translation>{n} 步（给定）</translation>
    </message>
    <message>
        <source>{n} uncorrectable (double-bit) ECC errors.</source>
        <translation>{n} 个不可纠正（双比特）ECC 错误。</translation>
    </message>
    <message>
        <source>{n} uncorrectable memory errors were counted; a job that touched the memory may have crashed or produced wrong results.</source>
        <translation>共记录到 {n} 个不可纠正的显存错误；访问过该显存的作业可能已崩溃或产生了错误结果。</translation>
    </message>
    <message>
        <source>{n} × this instance sustain {rate:.4g} requests/s ({tok:.4g} output tokens/s): {usd}/h, {per_m} per million output tokens</source>
        <translation>{n} × 该实例可维持 {rate:.4g} 请求/秒（{tok:.4g} 输出 token/秒）：{usd}/小时，每百万输出 token {per_m}</translation>
    </message>
    <message>
        <source>{n} × this instance sustain {rate:.4g}/s: {usd}/h, {per_m} per million</source>
        <translation>{n} 台此实例可维持 {rate:.4g}/秒：{usd}/小时，每百万 {per_m}</translation>
    </message>
    <message>
        <source>{n}× unnamed GPU</source>
        <translation>{n}× 未命名 GPU</translation>
    </message>
    <message>
        <source>{p:.2f} USD per GPU-hour is outside {lo}..{hi}</source>
        <translation>每 GPU 小时 {p:.2f} 美元，超出 {lo}..{hi}</translation>
    </message>
    <message>
        <source>{p:.2f} {c} per GPU-hour is {x:.1f}x the median of {n} {g} rows ({m:.2f})</source>
        <translation>每 GPU 小时 {p:.2f} {c}，是 {n} 行 {g} 中位数（{m:.2f}）的 {x:.1f} 倍</translation>
    </message>
    <message>
        <source>{precision} is not supported on {gpu} (compute capability {cc})</source>
        <translation>{gpu} 不支持 {precision}（计算能力 {cc}）</translation>
    </message>
    <message>
        <source>{precision} is not supported on {gpu} (compute capability {cc}; needs ≥ {need})</source>
        <translation>{gpu} 不支持 {precision}（计算能力 {cc}；需要 ≥ {need}）</translation>
    </message>
    <message>
        <source>{p} / {d}</source>
        <translation>{p} / {d}</translation>
    </message>
    <message>
        <source>{p} exists; pass --force to overwrite it</source>
        <translation>{p} 已存在；传入 --force 以覆盖</translation>
    </message>
    <message>
        <source>{p} is a folder; name a file</source>
        <translation>{p} 是文件夹；请指定文件名</translation>
    </message>
    <message>
        <source>{p} is not a folder</source>
        <translation>{p} 不是文件夹</translation>
    </message>
    <message>
        <source>{p} price API, read {d}</source>
        <translation>{p} 价格 API，读取于 {d}</translation>
    </message>
    <message>
        <source>{p} retired pages and {r} remapped rows so far.</source>
        <translation>迄今共有 {p} 个退役页和 {r} 个重映射行。</translation>
    </message>
    <message>
        <source>{p}: a thresholds file is a JSON object with &quot;pass&quot; and/or &quot;warn&quot;</source>
        <translation>{p}：阈值文件是包含 &quot;pass&quot; 和/或 &quot;warn&quot; 的 JSON 对象</translation>
    </message>
    <message>
        <source>{p}: binary data, not a models CSV file</source>
        <translation>{p}：二进制数据，不是模型 CSV 文件</translation>
    </message>
    <message>
        <source>{p}: cannot read the token file: {e}</source>
        <extracomment>A token file longer than this is not a token.</extracomment>
        <translation>{p}：无法读取令牌文件：{e}</translation>
    </message>
    <message>
        <source>{p}: cannot read: {e}</source>
        <extracomment>The most a credentials file may hold.</extracomment>
        <translation>{p}：无法读取：{e}</translation>
    </message>
    <message>
        <source>{p}: cannot use this CA file: {e}</source>
        <translation>{p}：无法使用此 CA 文件：{e}</translation>
    </message>
    <message>
        <source>{p}: empty, no models</source>
        <translation>{p}：为空，没有模型</translation>
    </message>
    <message>
        <source>{p}: holds a NUL byte: not a rates file</source>
        <translation>{p}：含有 NUL 字节，不是汇率文件</translation>
    </message>
    <message>
        <source>{p}: id or secret holds control characters</source>
        <translation>{p}：id 或 secret 含有控制字符</translation>
    </message>
    <message>
        <source>{p}: is a directory, not a session file</source>
        <translation>{p}：这是一个文件夹，不是会话文件</translation>
    </message>
    <message>
        <source>{p}: is a folder, not a models file</source>
        <translation>{p}：是文件夹，不是模型文件</translation>
    </message>
    <message>
        <source>{p}: is a folder, not a {w}</source>
        <translation>{p}：是文件夹，不是{w}</translation>
    </message>
    <message>
        <source>{p}: larger than {n}, not a {w}</source>
        <translation>{p}：大于 {n}，不是{w}</translation>
    </message>
    <message>
        <source>{p}: line {n}: bad model name {v!r}</source>
        <translation>{p}：第 {n} 行：模型名称 {v!r} 无效</translation>
    </message>
    <message>
        <source>{p}: line {n}: every model needs its source</source>
        <translation>{p}：第 {n} 行：每个模型都需要注明来源</translation>
    </message>
    <message>
        <source>{p}: line {n}: experts need top_k (1 to experts), moe_layers (1 to layers) and expert_ffn, and their parameters must be under the total</source>
        <translation>{p}：第 {n} 行：专家列需要 top_k（1 到 experts）、moe_layers（1 到 layers）和 expert_ffn，且专家参数须小于总参数</translation>
    </message>
    <message>
        <source>{p}: line {n}: kind {v!r} is not one of {k}</source>
        <translation>{p}：第 {n} 行：类型 {v!r} 不是 {k} 之一</translation>
    </message>
    <message>
        <source>{p}: line {n}: kv_per_token_layer is out of range</source>
        <translation>{p}：第 {n} 行：kv_per_token_layer 超出范围</translation>
    </message>
    <message>
        <source>{p}: line {n}: model {m!r} listed twice</source>
        <translation>{p}：第 {n} 行：模型 {m!r} 重复列出</translation>
    </message>
    <message>
        <source>{p}: line {n}: not CSV: {e}</source>
        <translation>{p}：第 {n} 行：不是 CSV：{e}</translation>
    </message>
    <message>
        <source>{p}: line {n}: parameters must be &gt; 0, at most {lim:g}, active &lt;= total</source>
        <translation>{p}：第 {n} 行：参数必须 &gt; 0、不超过 {lim:g}，且激活参数 &lt;= 总参数</translation>
    </message>
    <message>
        <source>{p}: line {n}: {c} must be a finite number &gt;= 0</source>
        <translation>{p}：第 {n} 行：{c} 必须是 &gt;= 0 的有限数</translation>
    </message>
    <message>
        <source>{p}: line {n}: {c} {v!r} is not a number</source>
        <translation>{p}：第 {n} 行：{c} {v!r} 不是数字</translation>
    </message>
    <message>
        <source>{p}: line {n}: {c} {v:g} is out of range</source>
        <translation>{p}：第 {n} 行：{c} {v:g} 超出范围</translation>
    </message>
    <message>
        <source>{p}: line {n}: {got} cells, the header has {want}</source>
        <translation>{p}：第 {n} 行：有 {got} 个单元格，表头有 {want} 个</translation>
    </message>
    <message>
        <source>{p}: line {n}: {h} attention heads cannot share {k} KV heads</source>
        <translation>{p}：第 {n} 行：{h} 个注意力头无法均分 {k} 个 KV 头</translation>
    </message>
    <message>
        <source>{p}: needs both id = ... and secret = ...</source>
        <translation>{p}：需要同时有 id = ... 和 secret = ...</translation>
    </message>
    <message>
        <source>{p}: no job profile in this recording (record one with `gpuprof profile -- CMD`)</source>
        <extracomment>Flags that describe a workload by hand: the recording describes it with --from-profile.</extracomment>
        <translation>{p}：此录制中没有作业剖析（用 `gpuprof profile -- CMD` 录制一个）</translation>
    </message>
    <message>
        <source>{p}: no such file</source>
        <extracomment>``WWW-Authenticate`` values (RFC 6750): no token sent, a wrong one.
----------
The most one snapshot record may inflate to. An 8×H100 snapshot is ~15 kB of JSON and a thousand processes add ~300 kB: this leaves room twenty times over, and bounds what one record can cost in memory (JSON parsed into Python objects takes several times its size). The most one metadata value (static facts, label, free-form dict) may be, as stored JSON text. The longest label kept (the window title and report heading show it). Times a recording can hold (Unix s): 1970-01-01 .. 2100-01-01. Anything else (NaN, infinite, 1e300, negative) is a damaged record: it would overflow dates and make replay endless. What :func:`read_header` reads: SQLite&apos;s 100-byte database header and the 8-byte b-tree page header of page 1 after it (https://www.sqlite.org/fileformat.html). A header claiming more is not one of a recording: at ~7 kB a sample (8 GPUs and their processes), 4 TiB is 20 years of samples at one a second. A file cut short claims what it was; 58 TB is what junk read as a page count claims. Page 1&apos;s b-tree page kinds (interior and leaf table pages).
----------
The schema version this gpuprof writes; older files migrate forward to it on open. The version of :data:`_SCHEMA`, the first one; every migration chain starts here. &quot;GPPF&quot; — marks the SQLite file as a gpuprof session. The longest time an appended snapshot waits before it is committed to disk. How often the WAL is copied into the file itself while recording (the file alone, without its ``-wal``, then holds all but the last seconds). Readers keep the first few problems of unreadable records for their one warning. Records a read fetches at once are at most this many bytes together (one may be larger). How many records :meth:`SessionStore.snapshot_at` looks back past unreadable ones. Rows outside the times a recording can hold are left out of every query (read.py). ``{N: step}``: ``step`` turns a version-``N`` file into version ``N + 1`` (see the module doc). The version in the file itself: below :attr:`schema_version` when it was migrated. ``&quot;recording&quot;`` (not closed yet, or never: see :attr:`not_closed`), ``&quot;closed&quot;``, or None in files from before the marker. True when the file says it is being recorded but no recorder holds it (killed). What a reader should be told about the file, one line each (logged by :meth:`open`). Records left out because their time is impossible (NaN, infinite, 1e300, &lt; 1970).</extracomment>
        <translation>{p}：文件不存在</translation>
    </message>
    <message>
        <source>{p}: not a gpuprof check or benchmark result</source>
        <translation>{p}：不是 gpuprof 的检查或基准测试结果</translation>
    </message>
    <message>
        <source>{p}: not a gpuprof check result (gpuprof check --json)</source>
        <extracomment>Scorecard lines and GPUs read at most (a file may claim millions). The latest time a report prints (9999-12-31 23:59:59 UTC); beyond it ``time.localtime`` overflows (OverflowError, or OSError EOVERFLOW), so a later &quot;time&quot; is left out.</extracomment>
        <translation>{p}：不是 gpuprof 检查结果（gpuprof check --json）</translation>
    </message>
    <message>
        <source>{p}: not a models file (missing columns: {c})</source>
        <translation>{p}：不是模型文件（缺少列：{c}）</translation>
    </message>
    <message>
        <source>{p}: not a reference file (no rows)</source>
        <translation>{p}：不是参考值文件（没有行）</translation>
    </message>
    <message>
        <source>{p}: not a reference file (written by --save-reference)</source>
        <translation>{p}：不是参考值文件（应由 --save-reference 写出）</translation>
    </message>
    <message>
        <source>{p}: not a reference table (columns differ)</source>
        <extracomment>Typical achieved share of a spec peak used where nothing is published: the H100 SXM BF16 MAMF efficiency (794.5 of 989 TFLOPS = 80.3 %, ml-engineering&apos;s MAMF table), rounded down.</extracomment>
        <translation>{p}：不是参考值表（列不符）</translation>
    </message>
    <message>
        <source>{p}: not a regular file</source>
        <translation>{p}：不是普通文件</translation>
    </message>
    <message>
        <source>{p}: not a regular file ({k}), not a {w}</source>
        <translation>{p}：不是普通文件（{k}），不是{w}</translation>
    </message>
    <message>
        <source>{p}: not a regular file, not a certificate or key</source>
        <translation>{p}：不是普通文件，不是证书或私钥</translation>
    </message>
    <message>
        <source>{p}: not JSON, not a {w}</source>
        <translation>{p}：不是 JSON，不是{w}</translation>
    </message>
    <message>
        <source>{p}: not UTF-8 text (byte {b})</source>
        <translation>{p}：不是 UTF-8 文本（字节 {b}）</translation>
    </message>
    <message>
        <source>{p}: not UTF-8 text (byte {b}), not a {w}</source>
        <translation>{p}：不是 UTF-8 文本（第 {b} 字节），不是{w}</translation>
    </message>
    <message>
        <source>{p}: not UTF-8 text (byte {n})</source>
        <translation>{p}：不是 UTF-8 文本（第 {n} 字节）</translation>
    </message>
    <message>
        <source>{p}: not UTF-8 text ({e})</source>
        <extracomment>How a composed row&apos;s notes begin (``catalog import`` counts them).</extracomment>
        <translation>{p}：不是 UTF-8 文本（{e}）</translation>
    </message>
    <message>
        <source>{p}: over {n} bytes, not a models file</source>
        <translation>{p}：超过 {n} 字节，不是模型文件</translation>
    </message>
    <message>
        <source>{p}: over {n} bytes: not a credentials file</source>
        <translation>{p}：超过 {n} 字节，不是凭据文件</translation>
    </message>
    <message>
        <source>{p}: over {n} rows, not a models file</source>
        <translation>{p}：超过 {n} 行，不是模型文件</translation>
    </message>
    <message>
        <source>{p}: readable by others (mode {m:o}): chmod 600 it first</source>
        <translation>{p}：其他用户可读（权限 {m:o}）：请先 chmod 600</translation>
    </message>
    <message>
        <source>{p}: reference file version {v} is not supported</source>
        <translation>{p}：不支持参考值文件版本 {v}</translation>
    </message>
    <message>
        <source>{p}: row {n} is not a valid reference</source>
        <translation>{p}：第 {n} 行不是有效的参考值</translation>
    </message>
    <message>
        <source>{p}: the session has no samples</source>
        <translation>{p}：该会话没有采样</translation>
    </message>
    <message>
        <source>{p}: the token file is a folder</source>
        <translation>{p}：令牌文件是一个文件夹</translation>
    </message>
    <message>
        <source>{p}: the token file is empty</source>
        <translation>{p}：令牌文件为空</translation>
    </message>
    <message>
        <source>{p}: the token file is longer than {n} bytes</source>
        <translation>{p}：令牌文件超过 {n} 字节</translation>
    </message>
    <message>
        <source>{p}: the token file is not a regular file</source>
        <translation>{p}：令牌文件不是普通文件</translation>
    </message>
    <message>
        <source>{p}: the token file is readable by every user (chmod 600 {p})</source>
        <translation>{p}：令牌文件所有用户均可读取（chmod 600 {p}）</translation>
    </message>
    <message>
        <source>{p}: the token must be one line of printable ASCII without spaces</source>
        <translation>{p}：令牌必须是一行不含空格的可打印 ASCII 字符</translation>
    </message>
    <message>
        <source>{p}: warn must not be above pass</source>
        <translation>{p}：warn 不能高于 pass</translation>
    </message>
    <message>
        <source>{p}: {e}</source>
        <translation>{p}：{e}</translation>
    </message>
    <message>
        <source>{p}: {k} must be a number</source>
        <translation>{p}：{k} 必须是数字</translation>
    </message>
    <message>
        <source>{p}: {k} must be a ratio above 0 and at most 2</source>
        <translation>{p}：{k} 必须是大于 0 且不超过 2 的比例</translation>
    </message>
    <message>
        <source>{p}: {n} instances ({c} composed) from {u}</source>
        <translation>{p}：{n} 个实例（{c} 个组合而成），来自 {u}</translation>
    </message>
    <message>
        <source>{p}:1: the header must be {h}</source>
        <translation>{p}:1：表头必须是 {h}</translation>
    </message>
    <message>
        <source>{p}:{n}: a reference needs a positive value and a source</source>
        <translation>{p}:{n}：参考值需要一个正数值和出处</translation>
    </message>
    <message>
        <source>{p}:{n}: expected 3 or 4 cells, got {k}</source>
        <translation>{p}:{n}：应有 3 或 4 个单元格，实际为 {k} 个</translation>
    </message>
    <message>
        <source>{p}:{n}: expected key = value</source>
        <translation>{p}:{n}：应为 key = value</translation>
    </message>
    <message>
        <source>{sign}/month</source>
        <translation>{sign}/月</translation>
    </message>
    <message>
        <source>{sim}{t} · GPUs {g} · util {u} · SM {s} · mem {m} · {p} · steps {n} ({st})</source>
        <extracomment>Fewer rows than this: no room for a reserved line (and 0 x 0 is a pty nobody sized). Signals whose default action stops or ends gpuprof: handled (the region reset first) only while nobody else handles or ignores them. None on Windows.</extracomment>
        <translation>{sim}{t} · GPU {g} · 利用率 {u} · SM {s} · 显存 {m} · {p} · 步数 {n}（{st}）</translation>
    </message>
    <message>
        <source>{source}; fitted generation factor for {gpu}: × {g:.2f}</source>
        <translation>{source}；{gpu} 的代际拟合系数：× {g:.2f}</translation>
    </message>
    <message>
        <source>{source}; serving: a prompt&apos;s GEMMs at {gemm:.0%} of the peak and its attention at {attn:.0%} of the 16-bit peak (a tuned stack&apos;s fitted training shares)</source>
        <translation>{source}；服务：提示词的 GEMM 达到峰值的 {gemm:.0%}，其注意力达到 16 位峰值的 {attn:.0%}（调优软件栈在训练运行上拟合的占比）</translation>
    </message>
    <message>
        <source>{source}; stack {stack}: {eff:.0%} of the matmul peak</source>
        <translation>{source}；软件栈 {stack}：矩阵乘峰值的 {eff:.0%}</translation>
    </message>
    <message>
        <source>{src} {v!r}: write CODE=RATE@YYYY-MM-DD, e.g. CNY=7.2@2026-11-30</source>
        <extracomment>Rates by currency code (&quot;USD&quot; is implied: 1).</extracomment>
        <translation>{src} {v!r}：请写成 代码=汇率@YYYY-MM-DD，例如 CNY=7.2@2026-11-30</translation>
    </message>
    <message>
        <source>{src} {v!r}: {why}</source>
        <translation>{src} {v!r}：{why}</translation>
    </message>
    <message>
        <source>{stack}</source>
        <translation>{stack}</translation>
    </message>
    <message>
        <source>{stack}, the same GPU generation</source>
        <translation>{stack}，同一 GPU 代际</translation>
    </message>
    <message>
        <source>{stack}, the same GPU generation, {scale}</source>
        <extracomment>A band rests on at least this many runs (else the comparison is widened). Percentiles of the time ratio that bound the band. The basis as (template, stack, architecture, scale) for a translated display.</extracomment>
        <translation>{stack}，同一 GPU 代际，{scale}</translation>
    </message>
    <message>
        <source>{s} (running {d})</source>
        <translation>{s}（已运行 {d}）</translation>
    </message>
    <message>
        <source>{t} belongs to user {u}; only root may signal another user&apos;s process (nothing was signalled)</source>
        <translation>{t} 属于用户 {u}；只有 root 才能向其他用户的进程发送信号（未发送任何信号）</translation>
    </message>
    <message>
        <source>{t} exited</source>
        <translation>{t} 已退出</translation>
    </message>
    <message>
        <source>{t} is a kernel thread; gpuprof does not signal kernel threads</source>
        <translation>{t} 是内核线程；gpuprof 不向内核线程发送信号</translation>
    </message>
    <message>
        <source>{t} is gpuprof itself; nothing was signalled</source>
        <translation>{t} 是 gpuprof 自身；未发送任何信号</translation>
    </message>
    <message>
        <source>{t} is outside {lo}–{hi}{u}</source>
        <translation>{t} 超出 {lo}–{hi}{u} 的范围</translation>
    </message>
    <message>
        <source>{t} is the init process; gpuprof does not signal it</source>
        <translation>{t} 是 init 进程；gpuprof 不会向它发送信号</translation>
    </message>
    <message>
        <source>{t} received {s} and is still running after {w:g} s</source>
        <translation>{t} 已收到 {s}，{w:g} 秒后仍在运行</translation>
    </message>
    <message>
        <source>{t} tokens at {p} tokens per step = {s} steps</source>
        <translation>{t} 个 token，每步 {p} 个 token = {s} 步</translation>
    </message>
    <message>
        <source>{u} unexplained findings; {k} known (rows marked doubtful: why)</source>
        <translation>{u} 项无法解释的发现；{k} 项已知（标为存疑的行：doubtful: why）</translation>
    </message>
    <message>
        <source>{u}: --connect needs an http:// or https:// URL of a gpuprof exporter</source>
        <translation>{u}：--connect 需要 gpuprof 导出器的 http:// 或 https:// URL</translation>
    </message>
    <message>
        <source>{u}: cannot connect: {e}</source>
        <translation>{u}：无法连接：{e}</translation>
    </message>
    <message>
        <source>{u}: download cut short ({n} of {t} bytes)</source>
        <translation>{u}：下载不完整（{t} 字节中只收到 {n} 字节）</translation>
    </message>
    <message>
        <source>{u}: holds a NUL byte: not a price list</source>
        <translation>{u}：含有 NUL 字节，不是价格表</translation>
    </message>
    <message>
        <source>{u}: implausible price for {i}: {v} per {c}</source>
        <translation>{u}：{i} 的价格不合理：每 {c} {v}</translation>
    </message>
    <message>
        <source>{u}: implausible price for {i}: {v} {c}</source>
        <translation>{u}：{i} 的价格不合理：{v} {c}</translation>
    </message>
    <message>
        <source>{u}: JSON must be an array of rows or {{&quot;rows&quot;: [...]}}</source>
        <translation>{u}：JSON 必须是行数组或 {{&quot;rows&quot;: [...]}}</translation>
    </message>
    <message>
        <source>{u}: no GPU rows read ({e})</source>
        <translation>{u}：未读到任何 GPU 行（{e}）</translation>
    </message>
    <message>
        <source>{u}: no price for {i} in the answer (expected {e})</source>
        <translation>{u}：应答中没有 {i} 的价格（应为 {e}）</translation>
    </message>
    <message>
        <source>{u}: no rows</source>
        <translation>{u}：没有数据行</translation>
    </message>
    <message>
        <source>{u}: not a Huawei Cloud API answer</source>
        <translation>{u}：不是华为云 API 的应答</translation>
    </message>
    <message>
        <source>{u}: not a Tencent Cloud API answer</source>
        <translation>{u}：不是腾讯云 API 的应答</translation>
    </message>
    <message>
        <source>{u}: not a URL ({e})</source>
        <translation>{u}：不是 URL（{e}）</translation>
    </message>
    <message>
        <source>{u}: not valid JSON{w}</source>
        <translation>{u}：不是有效的 JSON{w}</translation>
    </message>
    <message>
        <source>{u}: only https:// URLs are fetched</source>
        <extracomment>SkyPilot&apos;s published catalogs (skypilot-org/skypilot-catalog, format v8). The largest catalog file accepted (AWS&apos;s v8 vms.csv is about 4 MB). Seconds one provider&apos;s download may take in all, from connecting to the last byte. ``progress(provider, bytes_so_far, total_or_None)``</extracomment>
        <translation>{u}：只下载 https:// 地址</translation>
    </message>
    <message>
        <source>{u}: over {n} rows: not a price list</source>
        <translation>{u}：超过 {n} 行，不是价格表</translation>
    </message>
    <message>
        <source>{u}: row {n}: {e}</source>
        <translation>{u}：第 {n} 行：{e}</translation>
    </message>
    <message>
        <source>{u}: {i}: {c}: {m}</source>
        <extracomment>The most one price API answer may hold, and how long one request may take. ``quote(credentials, instance_type, region, options)`` → the API&apos;s price.</extracomment>
        <translation>{u}：{i}：{c}：{m}</translation>
    </message>
    <message>
        <source>{u}: {w}</source>
        <extracomment>Seconds a request (connect, headers and body) may take at least. The timeout at the default interval (1 s). The largest answer read. The deepest JSON nesting read (a snapshot&apos;s is 5).</extracomment>
        <translation>{u}：{w}</translation>
    </message>
    <message>
        <source>{why} and no FLOPs counted (t.step(flops=...)) to re-time</source>
        <translation>{why}，也没有统计 FLOPs（t.step(flops=...)）可用于重新计时</translation>
    </message>
    <message>
        <source>{w} in {p} of busy samples</source>
        <translation>{w}：占忙碌采样的 {p}</translation>
    </message>
    <message>
        <source>{w}: not an object</source>
        <translation>{w}：不是对象</translation>
    </message>
    <message>
        <source>{w}: {k} is not a finite number</source>
        <translation>{w}：{k} 不是有限数值</translation>
    </message>
    <message>
        <source>{w}: {k} is true/false, not a value</source>
        <extracomment>The notes clause that marks a negotiated price. More rows than this is not a team&apos;s price list.</extracomment>
        <translation>{w}：{k} 是 true/false，不是数值</translation>
    </message>
    <message>
        <source>{w}: {k} must be text or a number</source>
        <translation>{w}：{k} 必须是文本或数字</translation>
    </message>
    <message>
        <source>≈ {time} at {eff:.0%} efficiency (base {base:.0%} × scaling {scaling:.0%}; {kind}); base from {source}</source>
        <translation>≈ {time}，效率 {eff:.0%}（基准 {base:.0%} × 扩展系数 {scaling:.0%}；{kind}）；基准来源：{source}</translation>
    </message>
    <message>
        <source>● REC</source>
        <translation>● REC</translation>
    </message>
    <message>
        <source>★</source>
        <translation>★</translation>
    </message>
    <message>
        <source>★ = on the Pareto front of time against cost: nothing else is both faster and cheaper</source>
        <translation>★ = 位于时间-成本的帕累托前沿：没有其他配置既更快又更便宜</translation>
    </message>
</context>
</TS>
