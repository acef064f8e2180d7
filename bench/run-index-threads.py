#!/usr/bin/env python3
# run-index-threads.py — `strata-cli index --force` of two builds against
# each other, interleaved in one session with the bare libtracecmd
# iteration between them (as bench/run-index-ab.sh does), and the CPU
# time of each of the process's threads by name: the builder (the main
# thread, "strata-cli": kernel model, zoom tree, raw store, then the
# index writer), exactly, from bench/strata-main-cpu.c preloaded (built
# here with cc), and the rest of the process's CPU; the other threads by
# name too (reader, levels, packers), polled from /proc/PID/task/*/stat
# every POLL seconds (so the end of each is missed: a rough split); wall
# time, user + system time and peak RSS come from wait4().
#
# Usage: bench/run-index-threads.py A_BUILD_DIR B_BUILD_DIR
# Environment: SIZES ("2000000 5000000"), RUNS (5), DIR (/tmp/strata-ab),
#              CPUS (8), THREADS (256), SEED (1), POLL (0.05), C_ENV (when
#              set, e.g. "STRATA_RAW_STORE_SPILL_QUEUE=8388608", B is run a
#              second time with this environment too, as build "c")
#
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import statistics
import subprocess
import sys
import time

A, B = sys.argv[1], sys.argv[2]
SIZES = [int(s) for s in os.environ.get("SIZES", "2000000 5000000").split()]
RUNS = int(os.environ.get("RUNS", "5"))
DIR = os.environ.get("DIR", "/tmp/strata-ab")
POLL = float(os.environ.get("POLL", "0.05"))
TICK = os.sysconf("SC_CLK_TCK")
GEN = os.path.join(B, "bench", "strata-gen-trace")
ITER = os.path.join(B, "bench", "strata-bench-iterate")


def thread_times(pid, seen):
    """Updates seen[tid] = (name, cpu seconds) from /proc."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        seen[tid] = (name, cpu)


SHIM = os.path.join(DIR, "strata-main-cpu.so")
MAIN_OUT = os.path.join(DIR, "main-cpu.out")


C_ENV = dict(kv.split("=", 1) for kv in os.environ.get("C_ENV", "").split())


def run(argv, extra=None):
    seen = {}
    env = dict(os.environ, LD_PRELOAD=SHIM, STRATA_MAIN_CPU_OUT=MAIN_OUT, **(extra or {}))
    if os.path.exists(MAIN_OUT):
        os.unlink(MAIN_OUT)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid != 0:
            break
        thread_times(proc.pid, seen)
        time.sleep(POLL)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"error: {argv} failed ({status})")
    by_name = {}
    for name, cpu in seen.values():
        by_name[name] = by_name.get(name, 0.0) + cpu
    with open(MAIN_OUT) as f:
        main = float(f.read().split()[-1])
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "main": main,
            "rss": usage.ru_maxrss / 1024, "threads": by_name}


os.makedirs(DIR, exist_ok=True)
subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", SHIM,
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "strata-main-cpu.c")], check=True)
print("| events | build | runs | wall s | CPU s | builder (main) thread CPU s | other threads CPU s "
      "| of which, polled | wall / bare iteration | peak RSS MB (median, largest) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n in SIZES:
    trace = os.path.join(DIR, f"trace-{n}.dat")
    if not os.path.exists(trace):
        subprocess.run([GEN, "--events", str(n), "--cpus", os.environ.get("CPUS", "8"),
                        "--threads", os.environ.get("THREADS", "256"),
                        "--seed", os.environ.get("SEED", "1"), "-o", trace],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = {"a": [], "iter": [], "b": []}
    if C_ENV:
        runs["c"] = []
    for _ in range(RUNS):
        runs["a"].append(run([os.path.join(A, "src", "cli", "strata-cli"), "index", "--force",
                              "--index", os.path.join(DIR, f"a-{n}.idx"), trace]))
        runs["iter"].append(run([ITER, trace]))
        runs["b"].append(run([os.path.join(B, "src", "cli", "strata-cli"), "index", "--force",
                              "--index", os.path.join(DIR, f"b-{n}.idx"), trace]))
        if C_ENV:
            runs["c"].append(run([os.path.join(B, "src", "cli", "strata-cli"), "index", "--force",
                                  "--index", os.path.join(DIR, f"c-{n}.idx"), trace], C_ENV))
    bare = statistics.median(r["wall"] for r in runs["iter"])
    for who, rs in runs.items():
        med = lambda key: statistics.median(r[key] for r in rs)
        names = sorted({k for r in rs for k in r["threads"]})
        others = ", ".join(f"{k} {statistics.median(r['threads'].get(k, 0.0) for r in rs):.2f}"
                           for k in names if k not in ("strata-cli", "strata-bench-it"))
        print(f"| {n} | {who} | {RUNS} | {med('wall'):.2f} | {med('cpu'):.2f} | "
              f"{med('main'):.2f} | {statistics.median(r['cpu'] - r['main'] for r in rs):.2f} | "
              f"{others} | {med('wall') / bare:.2f}x | "
              f"{med('rss'):.0f}, {max(r['rss'] for r in rs):.0f} |")
    with open(os.path.join(DIR, f"a-{n}.idx"), "rb") as fa, open(os.path.join(DIR, f"b-{n}.idx"), "rb") as fb:
        same = fa.read() == fb.read()
    if C_ENV:
        with open(os.path.join(DIR, f"a-{n}.idx"), "rb") as fa, open(os.path.join(DIR, f"c-{n}.idx"), "rb") as fc:
            same = same and fa.read() == fc.read()
    print(f"| {n} | {'a, b, c' if C_ENV else 'a, b'} | | | | | | | {'the same index bytes' if same else '**the indexes differ**'} | |")
    sys.stdout.flush()
