#!/usr/bin/env python3
# run-record.py — what recording costs: `perf bench sched messaging` and
# `perf bench sched pipe` run with nothing recording, under `perf record`
# of the recorder's tracepoints (-a; with its default buffers, and with
# 16 MiB per CPU like the recorder's ring), under a tracefs recording of the
# same events (the kernel's ring buffer, enabled through
# /sys/kernel/tracing, as ../shared/tools/record-ftrace does; the file is
# extracted with `trace-cmd extract` after the clock stops), and under
# `strata-cli record`. The configurations take turns run by run, in an
# order that rotates, so a change in the machine's load hits each alike;
# every number is a median of RUNS, and each slowdown is the median of
# the per-round ratios against that round's unrecorded run.
#
# For each workload and configuration it prints: the workload's own time
# (perf bench's "Total time") and its slowdown, the workload's CPU time
# (user + system of its processes) and that slowdown, the events recorded and lost,
# events per second of workload time, the recorder's own CPU time (user +
# system of the perf or strata-cli process; the tracefs recording has no
# process, its cost is all in the workload's time) and bytes per event of
# the file it wrote. The recorders run without a command (started, then
# the workload, then SIGINT), so their CPU time is theirs alone.
#
# Usage: sudo bench/run-record.py [BUILD_DIR]     (default: _build)
#        bench/run-record.py --table RAW.json      (the tables again, from RAW)
# Environment: RUNS (5), MESSAGING ("-g 2 -l 200"), PIPE ("-l 50000"),
#              BUFFER_KB (tracefs buffer per CPU, default 16384, the same
#              16 MiB the recorder's default ring has for up to 8 CPUs),
#              RAW (a file to keep every run's numbers in, as JSON),
#              WORKLOADS ("messaging,pipe") and CONFIGS (which recordings,
#              by the names in the tables, comma-separated; "none" is
#              always run, the ratios need it).
# Every recording takes /tmp/strata-record.lock, one at a time.

import fcntl
import json
import os
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "_build"
CLI = os.path.join(BUILD, "src", "cli", "strata-cli")
RUNS = int(os.environ.get("RUNS", "5"))
WORKLOADS = {
    "messaging": ["perf", "bench", "sched", "messaging"] + os.environ.get("MESSAGING", "-g 2 -l 200").split(),
    "pipe": ["perf", "bench", "sched", "pipe"] + os.environ.get("PIPE", "-l 50000").split(),
}
BUFFER_KB = os.environ.get("BUFFER_KB", "16384")
EVENTS = [
    "sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup_new",
    "sched:sched_process_fork", "sched:sched_process_exec", "sched:sched_process_exit",
    "task:task_rename", "irq:irq_handler_entry", "irq:irq_handler_exit",
    "irq:softirq_entry", "irq:softirq_exit",
]
TRACEFS = "/sys/kernel/tracing"
LOCK = "/tmp/strata-record.lock"
CONFIGS = ["none", "perf record", "perf record -m 16M", "tracefs", "strata-cli record"]
if os.environ.get("CONFIGS"):
    CONFIGS = ["none"] + [c for c in os.environ["CONFIGS"].split(",") if c != "none"]
if os.environ.get("WORKLOADS"):
    WORKLOADS = {w: WORKLOADS[w] for w in os.environ["WORKLOADS"].split(",")}


class Locked:
    def __enter__(self):
        self.fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def workload_time(argv):
    """perf bench's "Total time" (wall clock) and the CPU time (user +
    system) of the workload's processes: wait4() counts the ones perf bench
    reaped as well. On a machine shared with other builds the wall time
    moves with their load and with where the scheduler puts the two ends of
    a pipe; the CPU time moves far less, and a tracer's cost lands in it
    (the tracepoint handlers, perf's and BPF's alike, run in the task that
    hit the tracepoint)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    p.stdout.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    if status != 0:
        raise RuntimeError(" ".join(argv) + " failed")
    m = re.search(r"Total time:\s*([0-9.]+)", out)
    if not m:
        raise RuntimeError("no total time from " + " ".join(argv) + ":\n" + out)
    return float(m.group(1)), ru.ru_utime + ru.ru_stime


def cpu_seconds(pid):
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime


def run_none(argv, tmp):
    t, wcpu = workload_time(argv)
    return {"time": t, "wcpu": wcpu}


def run_perf_16m(argv, tmp):
    return run_perf(argv, tmp, ["-m", "16M"])


def run_perf(argv, tmp, extra=()):
    data = os.path.join(tmp, "perf.data")
    ctl, ack = os.path.join(tmp, "ctl"), os.path.join(tmp, "ack")
    for f in (ctl, ack):
        if os.path.exists(f):
            os.unlink(f)
        os.mkfifo(f)
    cmd = ["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-a", "-D", "-1",
           "--control", "fifo:%s,%s" % (ctl, ack), "-o", data] + list(extra)
    for e in EVENTS:
        cmd += ["-e", e]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c = os.open(ctl, os.O_RDWR)
    a = os.open(ack, os.O_RDWR)
    os.write(c, b"enable\n")
    while not select.select([a], [], [], 0.5)[0]:
        if p.poll() is not None:
            raise RuntimeError("perf record failed: " + " ".join(cmd))
    os.read(a, 16)
    t, wcpu = workload_time(argv)
    p.send_signal(signal.SIGINT)
    cpu = cpu_seconds(p.pid)
    p.returncode = 0
    os.close(c)
    os.close(a)
    stats = subprocess.run(["perf", "report", "-i", data, "--stats"], capture_output=True,
                           text=True).stdout
    # The first lines of --stats are the whole file's; per-event ones follow.
    whole = re.search(r"Aggregated stats:(.*?)(\n\s*\S+ stats:|\Z)", stats, re.S).group(1)
    samples = sum(int(m) for m in re.findall(r"SAMPLE events:\s*(\d+)", whole))
    lost = perf_lost_samples(data)
    size = os.path.getsize(data)
    os.unlink(data)
    return {"time": t, "wcpu": wcpu, "events": samples, "lost": lost, "cpu": cpu, "bytes": size}


def perf_lost_samples(path):
    """The samples perf.data says were lost. --stats counts the records
    that say so, each of which stands for one or more samples, so the
    records are read here (perf_event.h). PERF_RECORD_LOST (type 2: id,
    lost) is written when a ring overflowed; perf 6.x also writes, at the
    end, PERF_RECORD_LOST_SAMPLES (13: lost) with each event's own count of
    the same losses, so the two sums are not added: the larger is kept."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] != b"PERFILE2":
        raise RuntimeError(path + " is not a perf.data file")
    offset, size = struct.unpack_from("<QQ", raw, 40)
    end = offset + size
    lost = {2: 0, 13: 0}
    while offset + 8 <= end:
        kind, _, length = struct.unpack_from("<IHH", raw, offset)
        if length < 8:
            raise RuntimeError("%s: a record of %d bytes at offset %d" % (path, length, offset))
        if kind == 2:
            lost[2] += struct.unpack_from("<Q", raw, offset + 16)[0]
        elif kind == 13:
            lost[13] += struct.unpack_from("<Q", raw, offset + 8)[0]
        offset += length
    return max(lost.values())


def tracefs_write(name, value, append=False):
    # tracefs files do not seek: O_APPEND as the shell's >> does it.
    fd = os.open(os.path.join(TRACEFS, name), os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def run_tracefs(argv, tmp):
    dat = os.path.join(tmp, "trace.dat")
    tracefs_write("tracing_on", "0")
    tracefs_write("trace", "")
    tracefs_write("buffer_size_kb", BUFFER_KB)
    tracefs_write("trace_clock", "mono")
    tracefs_write("set_event", "")
    for e in EVENTS:
        tracefs_write("set_event", e + "\n", append=True)
    tracefs_write("tracing_on", "1")
    t, wcpu = workload_time(argv)
    tracefs_write("tracing_on", "0")
    entries = overrun = 0
    for cpu in sorted(os.listdir(os.path.join(TRACEFS, "per_cpu"))):
        with open(os.path.join(TRACEFS, "per_cpu", cpu, "stats")) as f:
            s = f.read()
        entries += int(re.search(r"^entries: (\d+)", s, re.M).group(1))
        overrun += int(re.search(r"^overrun: (\d+)", s, re.M).group(1))
    subprocess.run(["trace-cmd", "extract", "-o", dat], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tracefs_write("set_event", "")
    tracefs_write("trace_clock", "local")
    size = os.path.getsize(dat)
    os.unlink(dat)
    return {"time": t, "wcpu": wcpu, "events": entries, "lost": overrun, "cpu": 0.0, "bytes": size}


def run_strata(argv, tmp, extra=()):
    out = os.path.join(tmp, "trace.strata")
    p = subprocess.Popen([CLI, "record", "-q", "-o", out, *extra], stderr=subprocess.PIPE, text=True)
    while True:
        line = p.stderr.readline()
        if not line:
            raise RuntimeError("strata-cli record did not start")
        if line.startswith("strata-cli record: recording to"):
            break
    t, wcpu = workload_time(argv)
    p.send_signal(signal.SIGINT)
    rest = p.stderr.read()
    cpu = cpu_seconds(p.pid)
    p.returncode = 0
    info = json.loads(subprocess.run([CLI, "info", "--json", "--no-index", out], check=True,
                                     capture_output=True, text=True).stdout)
    size = os.path.getsize(out)
    os.unlink(out)
    if "lost: none" not in rest:
        print("strata-cli record lost records:\n" + rest, file=sys.stderr)
    return {"time": t, "wcpu": wcpu, "events": info["events"], "lost": info["lost_events"], "cpu": cpu,
            "bytes": size}


RUNNERS = {"none": run_none, "perf record": run_perf, "perf record -m 16M": run_perf_16m,
           "tracefs": run_tracefs,
           "strata-cli record": run_strata,
           # a drain period 5 times shorter, for a viewer following the file
           "strata-cli record --drain-period 20":
               lambda argv, tmp: run_strata(argv, tmp, ("--drain-period", "20"))}


def print_tables(workloads, results, loads):
    runs = len(loads)
    print("Load average (1 min) after each round: %s\n" % ", ".join("%.1f" % l for l in loads))
    print("lost: the most in one run, and in how many runs any; every other column is a "
          "median; a slowdown is the median of the per-round ratios against that round's "
          "unrecorded run. total CPU: the workload's and the recorder's CPU time over the "
          "unrecorded workload's.\n")
    for w, argv in workloads.items():
        print("### %s (`%s`), median of %d runs\n" % (w, " ".join(argv), runs))
        print("| recording | workload s | slowdown (min–max) | workload CPU s | "
              "CPU slowdown (min–max) | recorder CPU s | total CPU | events | lost | events/s | "
              "CPU µs/event | bytes/event |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        base = results[w]["none"]
        for c, rs in results[w].items():
            t = statistics.median(x["time"] for x in rs)
            wcpu = statistics.median(x["wcpu"] for x in rs)
            ratios = [x["time"] / b["time"] for x, b in zip(rs, base)]
            cratios = [x["wcpu"] / b["wcpu"] for x, b in zip(rs, base)]
            if c == "none":
                print("| %s | %.3f | 1 | %.3f | 1 | | 1 | | | | | |" % (c, t, wcpu))
                continue
            tratios = [(x["wcpu"] + x["cpu"]) / b["wcpu"] for x, b in zip(rs, base)]
            ev = statistics.median(x["events"] for x in rs)
            lost = max(x["lost"] for x in rs)
            lossy = sum(1 for x in rs if x["lost"])
            rate = statistics.median(x["events"] / x["time"] for x in rs)
            cpu = statistics.median(x["cpu"] for x in rs)
            bpe = statistics.median(x["bytes"] / max(x["events"], 1) for x in rs)
            print("| %s | %.3f | %.3f (%.3f–%.3f) | %.3f | %.3f (%.3f–%.3f) | %.3f | %.3f | %d | "
                  "%d (%d of %d) | %.0f | %.2f | %.1f |"
                  % (c, t, statistics.median(ratios), min(ratios), max(ratios),
                     wcpu, statistics.median(cratios), min(cratios), max(cratios),
                     cpu, statistics.median(tratios), ev, lost, lossy, len(rs), rate,
                     1e6 * cpu / max(ev, 1), bpe))
        print()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        with open(sys.argv[2]) as f:
            raw = json.load(f)
        print_tables(raw.get("workloads", {w: WORKLOADS[w] for w in raw["results"]}),
                     raw["results"], raw["loads"])
        return
    if os.geteuid() != 0:
        sys.exit("run-record.py: recording needs root")
    for tool in ("perf", "trace-cmd"):
        if shutil.which(tool) is None:
            sys.exit("run-record.py: %s is missing" % tool)
    if not os.path.exists(os.path.join(TRACEFS, "set_event")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)

    tmp = tempfile.mkdtemp(prefix="strata-bench-record-")
    results = {w: {c: [] for c in CONFIGS} for w in WORKLOADS}
    loads = []
    try:
        for r in range(RUNS):
            for w, argv in WORKLOADS.items():
                order = CONFIGS[r % len(CONFIGS):] + CONFIGS[:r % len(CONFIGS)]
                for c in order:
                    with Locked():
                        res = RUNNERS[c](argv, tmp)
                    results[w][c].append(res)
                    print("round %d %s %-18s %s" % (r + 1, w, c,
                          " ".join("%s=%s" % (k, round(v, 4) if isinstance(v, float) else v)
                                   for k, v in res.items())), file=sys.stderr, flush=True)
            loads.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if os.environ.get("RAW"):
        with open(os.environ["RAW"], "w") as f:
            json.dump({"workloads": WORKLOADS, "loads": loads, "results": results}, f)
    print_tables(WORKLOADS, results, loads)


if __name__ == "__main__":
    main()
