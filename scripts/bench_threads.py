#!/usr/bin/env python3
"""How smrt's threading holds up on a CPU that other processes share (issue 33).

    python3 scripts/bench_threads.py [--models mobilenetv2,resnet50] [--neighbours 0,2,4]
        [--rounds 3] [--iters 60] [--warmup 10] [--zoo ~/.cache/smrt/zoo] [--markdown]

For each model (batch 1) and each count K of busy-loop neighbour processes, runs
`build/bin/smrt bench` in fresh processes under each threading variant, alternating the
variants within every round, and prints medians over rounds of p50, p99 and max:

  smrt         the default: oneDNN and smrt's kernels on smrt's own teams
  smrt-passive the same with OMP_WAIT_POLICY=passive (idle team threads never spin)
  smrt-active  the same with OMP_WAIT_POLICY=active (they spin 10 ms before they sleep)
  1-thread     --threads 1
  libgomp      with --libgomp_smrt: an smrt built before it had its own teams (oneDNN and
               smrt's kernels on libgomp), e.g. from `git worktree add /work/old 9f1179e`
  libgomp-passive  the same with OMP_WAIT_POLICY=passive

The neighbours are `while True: pass` processes that die with this script.
"""

import argparse
import ctypes
import json
import os
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# variant: (environment, flags, which binary)
VARIANTS = {
    "smrt": ({}, [], "smrt"),
    "smrt-passive": ({"OMP_WAIT_POLICY": "passive"}, [], "smrt"),
    "1-thread": ({}, ["--threads", "1"], "smrt"),
    "smrt-active": ({"OMP_WAIT_POLICY": "active"}, [], "smrt"),
    "libgomp": ({}, [], "libgomp"),
    "libgomp-passive": ({"OMP_WAIT_POLICY": "passive"}, [], "libgomp"),
}


def die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start_neighbours(k):
    return [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"],
                             preexec_fn=die_with_parent) for _ in range(k)]


def bench(smrt, model_dir, env_extra, flags, iters, warmup):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [smrt, "bench", "--dir", model_dir, "--batch", "1", "--iters", str(iters),
           "--warmup", str(warmup), "--json"] + flags
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="mobilenetv2,resnet50")
    p.add_argument("--neighbours", default="0,2,4")
    p.add_argument("--variants", default="smrt,smrt-passive,1-thread")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--iters", type=int, default=60)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--zoo", default=os.path.expanduser("~/.cache/smrt/zoo"))
    p.add_argument("--smrt", default=os.path.join(ROOT, "build", "bin", "smrt"))
    p.add_argument("--libgomp_smrt", help="smrt binary for the libgomp variants")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    variants = args.variants.split(",")
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown CPU")
    print(f"{cpu}, {len(os.sched_getaffinity(0))} CPUs; rounds={args.rounds} "
          f"iters={args.iters} warmup={args.warmup}; command: {' '.join(sys.argv)}")
    rows = []
    for model in args.models.split(","):
        model_dir = os.path.join(args.zoo, model, "saved_model")
        for k in [int(x) for x in args.neighbours.split(",")]:
            results = {v: [] for v in variants}
            neighbours = start_neighbours(k)
            try:
                for _ in range(args.rounds):
                    for v in variants:
                        env_extra, flags, binary = VARIANTS[v]
                        binary = args.smrt if binary == "smrt" else args.libgomp_smrt
                        results[v].append(bench(binary, model_dir, env_extra, flags,
                                                args.iters, args.warmup))
            finally:
                for n in neighbours:
                    n.kill()
                    n.wait()
            for v in variants:
                med = lambda key: statistics.median(r.get(key, float("nan")) for r in results[v])  # noqa: E731
                rows.append((model, k, v, med("p50_ms"), med("p99_ms"), med("max_ms")))
    if args.markdown:
        print("\n| model | neighbours | variant | p50 ms | p99 ms | max ms | p50 vs smrt |")
        print("|---|---|---|---|---|---|---|")
    base = {(m, k): p50 for m, k, v, p50, _, _ in rows if v == "smrt"}
    for m, k, v, p50, p99, mx in rows:
        ratio = p50 / base[(m, k)] if (m, k) in base else float("nan")
        if args.markdown:
            print(f"| {m} | {k} | {v} | {p50:.2f} | {p99:.2f} | {mx:.2f} | {ratio:.2f} |")
        else:
            print(f"{m:12s} K={k} {v:16s} p50 {p50:8.2f}  p99 {p99:8.2f}  max {mx:8.2f}  "
                  f"x{ratio:.2f}")


if __name__ == "__main__":
    main()
