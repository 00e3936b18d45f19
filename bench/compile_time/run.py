#!/usr/bin/env python3
"""Compile time of symflow translation units, side by side with the dependencies' own cost.

Each TU is compiled REPEAT times (g++ -O2 -c, the flags of symflow's targets); the figure is
the median CPU time (user + sys) of the compiler, and its peak memory. Run from the
repository root: python3 bench/compile_time/run.py [--repeat N] [--cxx g++] [--out FILE]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (name, source, extra flags, what it is)
CASES = [
    ("deps_only", "deps_only.cpp", [], "Eigen/Dense + xtensor + nlohmann-json, no symflow"),
    ("graph_only", "graph_only.cpp", [], "graph-building headers only, no Session, header-only"),
    ("graph_only_compiled", "graph_only.cpp", ["-DSYMFLOW_COMPILED"],
     "the same with SYMFLOW_COMPILED (symflow::compiled)"),
    ("hello_linked", "hello_session.cpp", ["-DSYMFLOW_COMPILED"],
     "builds and runs a graph; symflow compiled once elsewhere (symflow::compiled)"),
    ("hello_header_only", "hello_session.cpp", [],
     "the same program as one TU, header-only (every kernel compiled here)"),
    ("compiled_library", os.path.join(ROOT, "cmake", "symflow_compiled.cpp"),
     ["-DSYMFLOW_COMPILED"], "the one-time library of symflow::compiled"),
]


def compile_once(cxx, src, flags):
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        cmd = [cxx, "-std=c++20", "-O2", "-DNDEBUG", "-DXTENSOR_USE_XSIMD",
               "-I" + os.path.join(ROOT, "include"), "-isystem", "/usr/include/eigen3",
               "-c", src, "-o", os.path.join(tmp, "out.o")] + flags
        subprocess.run(cmd, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return cpu, after.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--out", default=None, help="also write the table (Markdown) here")
    ap.add_argument("--only", default=None, help="comma-separated case names")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    rows, medians = [], {}
    for name, src, flags, what in CASES:
        if only and name not in only:
            continue
        path = src if os.path.isabs(src) else os.path.join(HERE, src)
        times, peak = [], 0.0
        for _ in range(args.repeat):
            t, rss = compile_once(args.cxx, path, flags)
            times.append(t)
            peak = max(peak, rss)
        medians[name] = statistics.median(times)
        rows.append((name, medians[name], min(times), max(times), peak, what))
        print(f"{name:18s} median {medians[name]:6.2f} s  (min {min(times):.2f}, max "
              f"{max(times):.2f})  peak RSS so far {peak:.0f} MB", flush=True)
    lines = ["| TU | median CPU s | min | max | what |", "|---|---|---|---|---|"]
    for name, med, lo, hi, _, what in rows:
        lines.append(f"| {name} | {med:.2f} | {lo:.2f} | {hi:.2f} | {what} |")
    if "deps_only" in medians:
        base = medians["deps_only"]
        for name in ("graph_only", "graph_only_compiled", "hello_linked", "hello_header_only"):
            if name in medians:
                lines.append(f"\n{name}: {medians[name] / base:.2f}x deps_only")
    if "hello_linked" in medians and "hello_header_only" in medians:
        lines.append(f"hello_header_only: {medians['hello_header_only'] / medians['hello_linked']:.2f}x "
                     "hello_linked")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
