#!/usr/bin/env python3
"""Runs symflow's benchmark suite (issue 7) and reports it side by side with its peers.

Runs every benchmark executable of the build directory (bench_symflow, bench_native,
bench_libtorch) through Google Benchmark's JSON output, runs bench/tf_peer.py once per
thread count, and writes

  bench/results.json   {"workload/impl/size/threads": median nanoseconds}
  bench/RESULTS.md     the machine, one Markdown table of medians and ratios per workload,
                       the targets of the issue (met or missed, from the numbers) and how
                       each peer was configured

and prints RESULTS.md. The repetitions are spread over rounds: each round runs every
executable in turn, and a figure is the median of all its repetitions, so that a slow
spell of the machine does not fall on one implementation alone. Python 3 standard
library only.

  python3 bench/run.py [--build build-bench] [--repetitions 7] [--rounds 2] [--min-time 0.25]
  python3 bench/run.py --report-only     # RESULTS.md again from results.json
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
EXECUTABLES = ("bench_symflow", "bench_native", "bench_libtorch", "bench_symflow_thrust",
               "bench_symflow_cuda")
THREADS = (1, 2)

WORKLOADS = [
    # name, sizes, impls in column order, what one run is
    ("overhead", ["10"], ["symflow", "symflow_unfused", "tensorflow", "libtorch"],
     "a graph of 10 chained scalar adds on a fed scalar, time per run"),
    ("chain", ["1M", "16M"],
     ["symflow", "symflow_unfused", "symflow_thrust_omp", "symflow_cuda", "eigen", "stream",
      "libtorch", "tensorflow"],
     "((a*b + c)*2 - a)/(b + 1) on fed float32 vectors; stream is the STREAM triad "
     "a = b + s*c over as many floats"),
    ("matmul", ["64", "256", "512", "1024"],
     ["symflow", "eigen", "openblas", "libtorch", "tensorflow"],
     "an NxN float32 matrix product"),
    ("conv2d", ["32"], ["symflow", "eigen", "libtorch", "tensorflow"],
     "3x3 SAME convolution, stride 1, NHWC [32,32,32,16] -> 32 channels"),
    ("branches", ["256"], ["symflow", "symflow_serial", "tensorflow"],
     "four independent 256x256 float32 products of a fed x, each through ReLU and a sum, "
     "added up; symflow_serial runs the nodes in order (inter_op_parallelism_threads = 1)"),
    ("mlp_step", ["64", "256"],
     ["symflow", "symflow_thrust_omp", "symflow_cuda", "eigen", "libtorch", "tensorflow"],
     "one SGD step (forward, backward, update) of the 784-256-128-10 ReLU MLP with "
     "softmax cross-entropy, at this batch size"),
    ("epoch", ["60000"], ["symflow", "libtorch", "tensorflow"],
     "one Fashion-MNIST epoch (60000 images, batch 64) of that MLP"),
    ("while_loop", ["100000"], ["symflow", "tensorflow"],
     "tf.while_loop counting i < n by i + 1 with n = 100000 fed (control flow v1), time per "
     "run: divide by 100000 for one iteration"),
    ("while_rnn", ["1000"], ["symflow", "tensorflow"],
     "tf.while_loop of a small RNN step h = tanh(h W + b), [1,32] x [32,32], 1000 iterations "
     "on a fed h0, time per run: divide by 1000 for one iteration"),
    ("rnn_step", ["32"], ["symflow", "tensorflow"],
     "that RNN step once in a straight line (no loop), time per run"),
    ("frozen_sru", ["1", "64"], ["symflow", "tensorflow"],
     "the real frozen TF1 SRU GraphDef (549 nodes, ../shared/fixtures/tf) at batch 1 and 64, "
     "one Session.run of output_node0"),
    ("frozen_cnn", ["1", "64"], ["symflow", "tensorflow"],
     "the frozen MobileNet-style CNN of tests/interop/mobilenet.py (96x96x3, 27 "
     "FusedBatchNormV3, 13 DepthwiseConv2dNative) at batch 1 and 64"),
    ("frozen_load", ["sru", "cnn"], ["symflow", "tensorflow"],
     "a program's first answer: read the frozen GraphDef, import it, make a Session and run "
     "batch 1"),
]


def log(msg):
    print(f"run.py: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------
# Executables whose peers thread with OpenMP (Eigen in bench_native, ATen in bench_libtorch).
OPENMP_EXECUTABLES = ("bench_native", "bench_libtorch", "bench_symflow_thrust")


def bench_env(omp_wait_policy=None):
    env = dict(os.environ)
    # PASSIVE: idle OpenMP threads sleep instead of spinning on a core that another thread
    # (OpenBLAS's, or another process's) needs. ACTIVE: they spin, which wins on an idle
    # machine when nothing else wants the cores.
    if omp_wait_policy:
        env["OMP_WAIT_POLICY"] = omp_wait_policy
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env.update(FROZEN_MODELS)
    return env


# The frozen GraphDefs of frozen_*: the SRU fixture, and the CNN that
# tests/interop/mobilenet.py writes (with TensorFlow) into the build folder.
FROZEN_MODELS = {}


def write_frozen_models(build):
    sru = ROOT.parent / "shared" / "fixtures" / "tf" / "tf1_frozen_sru_graphdef" / "graph.pb"
    cnn = Path(build) / "bench" / "frozen_cnn.pb"
    cnn.parent.mkdir(parents=True, exist_ok=True)
    made = subprocess.run([sys.executable, str(ROOT / "tests" / "interop" / "mobilenet.py"),
                           str(cnn)], env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
                          capture_output=True, text=True)
    if made.returncode != 0:
        log(f"mobilenet.py failed, frozen_cnn is left out: {made.stderr.strip()[-500:]}")
    if sru.exists():
        FROZEN_MODELS["SYMFLOW_BENCH_SRU"] = str(sru)
    if made.returncode == 0:
        FROZEN_MODELS["SYMFLOW_BENCH_CNN"] = str(cnn)


def gpu_present():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except OSError:
        return False


TIME_UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def benchmark_key(run_name):
    """"chain/symflow/16M/1/iterations:1/repeats:3/real_time" -> "chain/symflow/16M/1"."""
    parts = [p for p in run_name.split("/") if ":" not in p and p not in ("real_time",
                                                                           "manual_time")]
    return "/".join(parts[:4])


def parse_google_benchmark(doc):
    """Every repetition's time per benchmark key, in ns, and the errors."""
    samples, errors = {}, {}
    for b in doc.get("benchmarks", []):
        key = benchmark_key(b.get("run_name", b["name"]))
        if b.get("error_occurred"):
            errors[key] = b.get("error_message", "error")
            continue
        if b.get("run_type", "iteration") == "iteration":
            samples.setdefault(key, []).append(
                b["real_time"] * TIME_UNITS[b.get("time_unit", "ns")])
    return samples, errors


def round_repetitions(total, rounds, r):
    """Round r's share of `total` repetitions (the first rounds take the remainder)."""
    return total // rounds + (1 if r < total % rounds else 0)


def run_executable(exe, args, env, out_json, repetitions, bench_filter=None):
    # The file gets every repetition; the console only the aggregates.
    cmd = [str(exe), f"--benchmark_out={out_json}", "--benchmark_out_format=json",
           "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
           "--benchmark_display_aggregates_only=true",
           f"--benchmark_min_time={args.min_time}"]
    bench_filter = bench_filter or args.filter
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    policy = env.get("OMP_WAIT_POLICY")
    log((f"OMP_WAIT_POLICY={policy} " if policy else "") + " ".join(cmd))
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
    log(f"{exe.name}: {time.monotonic() - start:.0f} s, exit {proc.returncode}")
    try:
        doc = json.loads(Path(out_json).read_text())
    except (OSError, json.JSONDecodeError):
        try:
            doc = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return {}, {exe.name: f"no JSON output (exit {proc.returncode})"}, {}
    samples, errors = parse_google_benchmark(doc)
    if proc.returncode != 0:
        errors[exe.name] = f"exit status {proc.returncode}"
    return samples, errors, doc.get("context", {})


def run_tf_peer(args, env, out_dir, repetitions, round_index):
    samples, errors, context = {}, {}, {}
    pattern = re.compile(args.filter) if args.filter else None
    # Only the workloads the filter can match (tf_peer.py runs whole workloads).
    names = [w for w, sizes, _, _ in WORKLOADS
             if pattern is None or any(pattern.search(f"{w}/tensorflow/{s}/{t}")
                                       for s in sizes for t in THREADS)]
    if not names:
        return samples, errors, context
    workloads = ",".join(names)
    for t in THREADS:
        out_json = out_dir / f"tf_peer_{t}_round{round_index}.json"
        cmd = [sys.executable, str(BENCH / "tf_peer.py"), "--threads", str(t),
               "--repetitions", str(repetitions), "--min-time", str(args.min_time),
               "--workloads", workloads, "--out", str(out_json)]
        log(" ".join(cmd))
        start = time.monotonic()
        proc = subprocess.run(cmd, env=env)
        log(f"tf_peer.py --threads {t}: {time.monotonic() - start:.0f} s, exit {proc.returncode}")
        if proc.returncode != 0:
            errors[f"tf_peer.py --threads {t}"] = f"exit status {proc.returncode}"
            continue
        doc = json.loads(out_json.read_text())
        samples.update(doc["samples"])
        context = doc.get("context", {})
    if pattern is not None:
        samples = {k: v for k, v in samples.items() if pattern.search(k)}
    return samples, errors, context


# ------------------------------------------------------------------------------------------
# Reporting
# ------------------------------------------------------------------------------------------
def cpu_model():
    """The CPU's model name, with its family and model numbers: a cloud VM's name (e.g.
    "AMD EPYC") can stand for generations whose AVX-512 runs at different widths."""
    try:
        fields = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model") and key not in fields:
                fields[key] = value.strip()
        if "model name" in fields:
            numbers = ""
            if "cpu family" in fields and "model" in fields:
                numbers = f" (family {fields['cpu family']}, model {fields['model']})"
            return fields["model name"] + numbers
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def human(ns):
    if ns is None:
        return "n/a"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def ratio_text(r):
    return f"{r:.2f}x" if r < 10 else f"{r:.1f}x"


def workload_table(results, workload, sizes, impls):
    present = [i for i in impls
               if any(f"{workload}/{i}/{s}/{t}" in results for s in sizes for t in THREADS)]
    if not present:
        return ["(no results)"]
    header = ["size", "threads"] + present
    if workload == "overhead":
        header.append("symflow per node")
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for s in sizes:
        for t in THREADS:
            base = results.get(f"{workload}/symflow/{s}/{t}")
            cells = [s, str(t)]
            for i in present:
                v = results.get(f"{workload}/{i}/{s}/{t}")
                if v is None:
                    cells.append("n/a")
                elif i == "symflow" or base is None:
                    cells.append(human(v))
                else:
                    cells.append(f"{human(v)} ({ratio_text(v / base)})")
            if workload == "overhead":
                cells.append(human(base / 10) if base else "n/a")
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def evaluate_targets(results):
    """[(target, threads, measured, met)]; met is None when a figure is missing."""
    out = []

    def get(key):
        return results.get(key)

    for t in THREADS:
        for impl in ("symflow", "symflow_unfused"):
            run = get(f"overhead/{impl}/10/{t}")
            torch = get(f"overhead/libtorch/10/{t}")
            tfl = get(f"overhead/tensorflow/10/{t}")
            per_node = run / 10 if run else None
            if per_node is not None and torch is not None:
                out.append((f"overhead ({impl}): ≤ 0.2 µs per node and 4x under LibTorch's "
                            "per-op dispatch", t,
                            f"{human(per_node)} per node; LibTorch {human(torch / 10)} per op "
                            f"({ratio_text(torch / run)})",
                            per_node <= 200 and 4 * per_node <= torch / 10))
            else:
                out.append((f"overhead ({impl}): ≤ 0.2 µs per node, 4x under LibTorch", t,
                            "missing figure", None))
            if run and tfl:
                out.append((f"overhead ({impl}): ≥ 20x less per run than TensorFlow", t,
                            f"{ratio_text(tfl / run)}", tfl / run >= 20))
            else:
                out.append((f"overhead ({impl}): ≥ 20x less per run than TensorFlow", t,
                            "missing figure", None))
        sf = get(f"chain/symflow/16M/{t}")
        eig = get(f"chain/eigen/16M/{t}")
        torch = get(f"chain/libtorch/16M/{t}")
        out.append(("chain 16M: ≥ 0.9x the speed of the hand-written fused loop", t,
                    f"{ratio_text(eig / sf)}" if sf and eig else "missing figure",
                    eig / sf >= 0.9 if sf and eig else None))
        out.append(("chain 16M: ≥ 8x faster than LibTorch eager", t,
                    f"{ratio_text(torch / sf)}" if sf and torch else "missing figure",
                    torch / sf >= 8 if sf and torch else None))
        for n in ("256", "512", "1024"):
            sf = get(f"matmul/symflow/{n}/{t}")
            refs = [v for v in (get(f"matmul/eigen/{n}/{t}"), get(f"matmul/openblas/{n}/{t}"))
                    if v]
            best = min(refs) if refs else None
            out.append((f"matmul {n}: ≥ 0.9x the faster of Eigen and OpenBLAS", t,
                        f"{ratio_text(best / sf)}" if sf and best else "missing figure",
                        best / sf >= 0.9 if sf and best else None))
        sf = get(f"conv2d/symflow/32/{t}")
        torch = get(f"conv2d/libtorch/32/{t}")
        out.append(("conv2d: within 1.5x of LibTorch (symflow time / LibTorch time ≤ 1.5)", t,
                    f"{ratio_text(sf / torch)}" if sf and torch else "missing figure",
                    sf / torch <= 1.5 if sf and torch else None))
        for b in ("64", "256"):
            sf = get(f"mlp_step/symflow/{b}/{t}")
            eig = get(f"mlp_step/eigen/{b}/{t}")
            out.append((f"mlp_step {b}: ≤ 1.2x the hand-written Eigen step", t,
                        f"{ratio_text(sf / eig)}" if sf and eig else "missing figure",
                        sf / eig <= 1.2 if sf and eig else None))
            for peer, label in (("libtorch", "LibTorch"), ("tensorflow", "TensorFlow")):
                p = get(f"mlp_step/{peer}/{b}/{t}")
                out.append((f"mlp_step {b}: faster than {label}", t,
                            f"{ratio_text(p / sf)}" if sf and p else "missing figure",
                            p > sf if sf and p else None))
        sf = get(f"epoch/symflow/60000/{t}")
        for peer, label in (("libtorch", "LibTorch"), ("tensorflow", "TensorFlow")):
            p = get(f"epoch/{peer}/60000/{t}")
            out.append((f"epoch: faster than {label}", t,
                        f"{ratio_text(p / sf)}" if sf and p else "missing figure",
                        p > sf if sf and p else None))
        for model in ("sru", "cnn"):
            for b, factor, goal in (("1", 3, "≥ 3x faster than"), ("64", 1, "not slower than")):
                sf = get(f"frozen_{model}/symflow/{b}/{t}")
                tfl = get(f"frozen_{model}/tensorflow/{b}/{t}")
                out.append((f"frozen_{model} batch {b}: {goal} TensorFlow (issue 20)", t,
                            f"{ratio_text(tfl / sf)}" if sf and tfl else "missing figure",
                            tfl / sf >= factor if sf and tfl else None))
        # A loop iteration runs Less and Add: against two straight-line nodes plus 1 µs.
        sf = get(f"while_loop/symflow/100000/{t}")
        tfl = get(f"while_loop/tensorflow/100000/{t}")
        node = get(f"overhead/symflow/10/{t}")
        out.append(("while_loop: ≥ 20x less per iteration than TensorFlow", t,
                    f"{ratio_text(tfl / sf)}" if sf and tfl else "missing figure",
                    tfl / sf >= 20 if sf and tfl else None))
        if sf and node:
            per_iteration, straight = sf / 100000, 2 * node / 10
            out.append(("while_loop: ≤ the same ops in a straight line + 1 µs per iteration", t,
                        f"{human(per_iteration)} per iteration; straight line "
                        f"{human(straight)}", per_iteration <= straight + 1000))
        else:
            out.append(("while_loop: ≤ the same ops in a straight line + 1 µs per iteration", t,
                        "missing figure", None))
        # The RNN loop's iteration against one straight-line run of its step plus 1 µs.
        sf = get(f"while_rnn/symflow/1000/{t}")
        step = get(f"rnn_step/symflow/32/{t}")
        tfl = get(f"while_rnn/tensorflow/1000/{t}")
        out.append(("while_rnn: less per iteration than TensorFlow", t,
                    f"{ratio_text(tfl / sf)}" if sf and tfl else "missing figure",
                    tfl > sf if sf and tfl else None))
        out.append(("while_rnn: ≤ its step in a straight line + 1 µs per iteration", t,
                    f"{human(sf / 1000)} per iteration; straight line {human(step)}"
                    if sf and step else "missing figure",
                    sf / 1000 <= step + 1000 if sf and step else None))
    return out


FAIRNESS = """\
## Fairness: how each peer was configured

- **Same work, same clock.** Every figure is the median over repetitions of the wall-clock
  time of one run (Google Benchmark's real time; `time.perf_counter` for TensorFlow).
  The repetitions are spread over rounds that each run every implementation in turn, so
  that a slow spell of a shared machine does not fall on one of them alone. Inputs are
  built once outside the timed loop, and every run's result is written to memory that
  the next run may reuse. Each C++ executable is compiled with the same flags
  (`-O2 -march=native`, GCC {gcc}).
- **OpenMP wait policy.** The peers that thread with OpenMP (Eigen, LibTorch) run once
  with `OMP_WAIT_POLICY=PASSIVE` (idle threads sleep, so no spinning thread takes a core
  that OpenBLAS's threads or another process need) and their 2-thread benchmarks once
  more with `ACTIVE` (idle threads spin: faster on an otherwise idle machine); each
  benchmark keeps the faster median. {omp}
- **symflow**: a `Session` per benchmark with
  `ConfigProto{{.intra_op_parallelism_threads = t, .inter_op_parallelism_threads = 1}}`
  (inter-op threads run independent nodes side by side; they pay on graphs with
  independent heavy branches, so only `branches/symflow` uses `t`, and
  `branches/symflow_serial` shows the same graph with 1), inputs fed through placeholders
  and a fresh `Value` returned by every run (what a user gets); `symflow_unfused` is the
  same with `do_fusion = false`. Built with `-march=native` for an AVX-512 machine,
  symflow's matrix products and forward convolution run on its own register tiles,
  not on Eigen's GEMM (docs/decisions.md says when and why).
- **TensorFlow {tf}** (pip's `tensorflow-cpu`): `tf.compat.v1` graph mode, eager execution
  disabled, `Session.run` with `feed_dict` from Python, exactly as a TF1 program runs it;
  `ConfigProto(intra_op_parallelism_threads=t, inter_op_parallelism_threads=t)`, one
  process per thread count (TensorFlow sizes some pools once per process), its default
  oneDNN build options.
- **LibTorch 1.13** (Debian's `libtorch-dev`, oneDNN: {mkldnn}): eager C++ API;
  `at::set_num_threads(t)` *and* `openblas_set_num_threads(t)` (its GEMM is OpenBLAS,
  which `at::set_num_threads` does not reach); `c10::InferenceMode` for the
  forward-only workloads (it skips autograd bookkeeping); `channels_last` tensors for
  `conv2d` (oneDNN's fast path); `torch::nn::Linear`, `cross_entropy` and `optim::SGD`
  for the training workloads.
- **OpenBLAS {openblas}** (Debian's `libopenblas-dev`, pthread build): `cblas_sgemm` with
  `openblas_set_num_threads(t)`.
- **Eigen {eigen}** (hand-written references, built with OpenMP so that
  `Eigen::setNbThreads(t)` can use a second core): the chain as one Eigen array
  expression into a reused buffer (halves per OpenMP thread at 2 threads); `noalias()`
  products; im2col + one GEMM for conv2d; a hand-written forward + backward + SGD update
  for the MLP with every buffer allocated once.
- **stream**: the STREAM triad `a = b + s*c` over the same number of floats, pages first
  touched by the threads that use them: the memory bandwidth bound for `chain`.
- **epoch**: every implementation reads the real Fashion-MNIST training set
  (`/usr/share/datasets/fashion-mnist`), shuffled once before timing; each batch is
  copied (symflow: into a fresh `Value`; TensorFlow: a NumPy slice in `feed_dict`;
  LibTorch: a view) and one SGD step runs on it; symflow and TensorFlow fetch the loss
  with the train op, LibTorch calls `loss.item()`.
"""


def library_versions(contexts):
    def dpkg(pkg):
        try:
            return subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], text=True,
                                  capture_output=True).stdout.strip() or "?"
        except OSError:
            return "?"

    try:
        gcc = subprocess.run(["g++", "-dumpfullversion"], text=True,
                             capture_output=True).stdout.strip()
    except OSError:
        gcc = "?"
    return {
        "gcc": gcc,
        "tf": contexts.get("tensorflow", {}).get("tensorflow", "?"),
        "mkldnn": contexts.get("libtorch", {}).get("libtorch_mkldnn", "?"),
        "openblas": dpkg("libopenblas0-pthread"),
        "eigen": dpkg("libeigen3-dev"),
        "benchmark": dpkg("libbenchmark-dev"),
        "libtorch": dpkg("libtorch-dev"),
    }


def render(results, meta, contexts, errors):
    lines = ["# symflow benchmarks", ""]
    lines.append(f"- Date: {meta['date']}")
    lines.append(f"- Machine: {meta['cpu']}, {meta['cores']} cores; load average at the start "
                 f"{meta['load']}" + (f", at the end {meta['load_end']}" if "load_end" in meta
                                      else ""))
    other = meta.get("other_cpu_share")
    if other is not None:
        lines.append(f"- Other processes used {100 * other:.0f}% of the machine's CPU time "
                     "while this ran (from /proc/stat, less the benchmarks' own).")
        if other >= 0.1:
            lines.append("- **Noisy run:** other processes competed for the cores, so 1-thread "
                         "figures are inflated and 2-thread figures unreliable (a thread waits "
                         "for a busy core; Eigen's parallel GEMM spins on its partner). Rerun "
                         "on an idle machine before drawing conclusions.")
    v = library_versions(contexts)
    lines.append(f"- Peers: TensorFlow {v['tf']}, LibTorch {v['libtorch']}, OpenBLAS "
                 f"{v['openblas']}, Eigen {v['eigen']}; Google Benchmark {v['benchmark']}; "
                 f"GCC {v['gcc']}")
    rounds = meta.get("rounds", 1)
    lines.append(f"- Medians of {meta['repetitions']} repetitions (epoch: {3 * rounds}), each at "
                 f"least {meta['min_time']} s (epoch: one epoch)"
                 + (f", run in {rounds} rounds: each round runs every implementation in turn"
                    if rounds > 1 else "")
                 + f". Command: `{meta['command']}`")
    lines.append("- A cell reads `time (x)`: x = that implementation's time / symflow's time "
                 "at the same size and threads; above 1, symflow is faster.")
    lines.append("")
    for workload, sizes, impls, what in WORKLOADS:
        lines.append(f"## {workload}")
        lines.append("")
        lines.append(what[0].upper() + what[1:] + ".")
        lines.append("")
        lines.extend(workload_table(results, workload, sizes, impls))
        lines.append("")
    lines.append("## Targets")
    lines.append("")
    lines.append("| target | threads | measured | |")
    lines.append("|---|---|---|---|")
    met = missed = 0
    for target, t, measured, ok in evaluate_targets(results):
        verdict = "n/a" if ok is None else ("met" if ok else "**missed**")
        met += ok is True
        missed += ok is False
        lines.append(f"| {target} | {t} | {measured} | {verdict} |")
    lines.append("")
    lines.append(f"{met} met, {missed} missed.")
    lines.append("")
    if errors:
        lines.append("## Errors")
        lines.append("")
        for k, e in sorted(errors.items()):
            lines.append(f"- `{k}`: {e}")
        lines.append("")
    policies = meta.get("policies", {})
    winners = sorted(k for k, p in policies.items() if p != "PASSIVE")
    v["omp"] = ("Spinning (ACTIVE) won for " + ", ".join(f"`{k}`" for k in winners) + "."
                if winners else
                "PASSIVE won everywhere." if policies else "(Policies not recorded.)")
    lines.append(FAIRNESS.format(**v))
    return "\n".join(lines)


def cpu_seconds():
    """(busy seconds of the whole machine, CPU seconds of this process and its children)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
        busy = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return busy, own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def machine_meta(args):
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "load": load,
        "repetitions": args.repetitions,
        "rounds": args.rounds,
        "min_time": args.min_time,
        "command": "python3 bench/run.py " + " ".join(sys.argv[1:]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build-bench"),
                        help="the CMake build directory with bench/ (default: build-bench)")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds the repetitions are spread over, each running every "
                             "executable in turn (default: 2)")
    parser.add_argument("--min-time", type=float, default=0.25,
                        help="seconds each repetition runs at least")
    parser.add_argument("--filter", help="regex of benchmark keys to run (default: all)")
    parser.add_argument("--skip", default="",
                        help="comma-separated peers to leave out: libtorch,tensorflow,native")
    parser.add_argument("--omp-wait-policies", default="PASSIVE,ACTIVE",
                        help="OMP_WAIT_POLICY values to try for the OpenMP peers (Eigen, "
                             "LibTorch) at 2 threads; the faster one counts (default: "
                             "PASSIVE,ACTIVE)")
    parser.add_argument("--out-dir", default=str(BENCH),
                        help="where results.json and RESULTS.md go (default: bench/)")
    parser.add_argument("--report-only", action="store_true",
                        help="only render RESULTS.md again from the results.json there")
    args = parser.parse_args()
    if args.repetitions < 2:
        parser.error("--repetitions must be at least 2 (medians come from repetitions)")
    if not 1 <= args.rounds <= args.repetitions:
        parser.error("--rounds must be between 1 and --repetitions")

    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path, report_path = out_dir / "results.json", out_dir / "RESULTS.md"
    meta = machine_meta(args)
    skip = {s for s in args.skip.split(",") if s}

    raw_dir = Path(args.build) / "bench" / "json"
    # What RESULTS.md says beside the numbers, kept per output directory for --report-only.
    tag = hashlib.sha1(str(out_dir.resolve()).encode()).hexdigest()[:8]
    context_path = raw_dir / f"run_context-{tag}.json"
    if args.report_only:
        results = json.loads(results_path.read_text())
        saved = json.loads(context_path.read_text()) if context_path.exists() else {}
        report = render(results, saved.get("meta", meta), saved.get("contexts", {}),
                        saved.get("errors", {}))
        report_path.write_text(report + "\n")
        print(report)
        return 0

    policies = [p.strip().upper() for p in args.omp_wait_policies.split(",") if p.strip()]
    raw_dir.mkdir(parents=True, exist_ok=True)
    write_frozen_models(args.build)
    start_cpu, start_wall = cpu_seconds(), time.monotonic()
    # (key, OpenMP policy or None) -> every repetition's time, over all rounds.
    samples, errors, contexts = {}, {}, {}

    def collect(found, policy=None, only_two_threads=False):
        for k, v in found.items():
            if not only_two_threads or k.endswith("/2"):
                samples.setdefault((k, policy), []).extend(v)

    for r in range(args.rounds):
        reps = round_repetitions(args.repetitions, args.rounds, r)
        log(f"round {r + 1} of {args.rounds}: {reps} repetitions")
        for name in EXECUTABLES:
            if (name == "bench_libtorch" and "libtorch" in skip) or \
                    (name == "bench_native" and "native" in skip):
                continue
            exe = Path(args.build) / "bench" / name
            if name == "bench_symflow_cuda" and not gpu_present():
                if r == 0:
                    log("bench_symflow_cuda: no GPU here (nvidia-smi -L fails); not run")
                continue
            if not exe.exists():
                errors[name] = f"not built ({exe} is missing)"
                log(errors[name])
                continue
            if name not in OPENMP_EXECUTABLES:
                found, errs, ctx = run_executable(exe, args, bench_env(),
                                                  raw_dir / f"{name}_round{r}.json", reps)
                collect(found)
            else:
                # Each OpenMP peer in its best wait policy: the first policy for everything,
                # the others again for the 2-thread benchmarks only (one thread never waits);
                # per benchmark the faster median counts (and is said in RESULTS.md).
                ctx = {}
                errs = {}
                for i, policy in enumerate(policies):
                    found, e, c = run_executable(
                        exe, args, bench_env(policy),
                        raw_dir / f"{name}_{policy.lower()}_round{r}.json", reps,
                        None if i == 0 else (args.filter or "/2/"))
                    collect(found, policy, only_two_threads=i > 0)
                    errs.update(e)
                    ctx = ctx or c
            errors.update(errs)
            contexts[name.removeprefix("bench_")] = ctx
        if "tensorflow" not in skip:
            found, errs, ctx = run_tf_peer(args, bench_env(), raw_dir, reps, r)
            collect(found)
            errors.update(errs)
            contexts["tensorflow"] = ctx

    results, policy_of = {}, {}
    for (k, policy), v in samples.items():
        median = statistics.median(v)
        if k not in results or median < results[k]:
            results[k] = median
            if policy is not None:
                policy_of[k] = policy
            else:
                policy_of.pop(k, None)
    results = {k: round(results[k], 1) for k in sorted(results)}
    results_path.write_text(json.dumps(results, indent=1) + "\n")
    meta["policies"] = {k: policy_of[k] for k in results if k in policy_of}
    meta["load_end"] = machine_meta(args)["load"]
    end_cpu, wall = cpu_seconds(), time.monotonic() - start_wall
    if start_cpu and end_cpu and wall > 0:
        other = (end_cpu[0] - start_cpu[0]) - (end_cpu[1] - start_cpu[1])
        meta["other_cpu_share"] = max(0.0, other / (wall * (os.cpu_count() or 1)))
    context_path.write_text(json.dumps({"meta": meta, "contexts": contexts, "errors": errors},
                                       indent=1) + "\n")
    report = render(results, meta, contexts, errors)
    report_path.write_text(report + "\n")
    print(report)
    log(f"wrote {results_path} ({len(results)} medians) and {report_path}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
