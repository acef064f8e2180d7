#!/usr/bin/env python3
"""The fuzzing harnesses' runner, as meson tests (TAP).

  fuzz-run.py HARNESS CORPUS REGRESSIONS SECONDS
      Runs the libFuzzer HARNESS for SECONDS on a copy of its committed
      corpus: 'ok' with the executions it made, or 'not ok' when it found
      a crash, a leak, a hang or an allocation past the limit. The input
      that did it is copied into REGRESSIONS, where the replay tests of
      every build run it from then on: commit it with the fix.
      STRATA_FUZZ_SECONDS overrides SECONDS (3600 fuzzes for an hour);
      STRATA_FUZZ_KEEP=DIR keeps the grown corpus in DIR/NAME/.

  fuzz-run.py --replay REPLAY CORPUS REGRESSIONS
      Runs the replay program (the harness without libFuzzer) once on
      every input of the corpus and of the regressions.

CORPUS is a folder of inputs, or the same path with .tar.xz added (how
they are committed: a minimized corpus compresses well); REGRESSIONS a
folder, which may not exist."""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile


def unpack(corpus, into):
    """The corpus's inputs, copied or unpacked into the folder @into."""
    os.makedirs(into, exist_ok=True)
    if os.path.isdir(corpus):
        for name in sorted(os.listdir(corpus)):
            shutil.copy(os.path.join(corpus, name), into)
    elif os.path.isfile(corpus + ".tar.xz"):
        with tarfile.open(corpus + ".tar.xz") as tar:
            for member in tar.getmembers():
                if member.isfile():
                    member.name = os.path.basename(member.name)
                    tar.extract(member, into)
    return sorted(os.listdir(into))


def replay(program, corpus, regressions):
    with tempfile.TemporaryDirectory(prefix="strata-replay-") as tmp:
        inputs = os.path.join(tmp, "corpus")
        unpack(corpus, inputs)
        dirs = [inputs] + ([regressions] if os.path.isdir(regressions) else [])
        return subprocess.run([program] + dirs).returncode


def fuzz(harness, corpus, regressions, seconds):
    seconds = int(os.environ.get("STRATA_FUZZ_SECONDS", seconds))
    name = os.path.basename(harness)
    print("1..1", flush=True)

    with tempfile.TemporaryDirectory(prefix=f"strata-{name}-") as tmp:
        keep = os.environ.get("STRATA_FUZZ_KEEP")
        work = os.path.join(keep, name) if keep else os.path.join(tmp, "corpus")
        seeds = unpack(corpus, work)
        if not seeds:
            print(f"# {name}: no corpus at {corpus}: fuzzing from nothing", flush=True)

        artifacts = os.path.join(tmp, "artifacts") + os.sep
        os.makedirs(artifacts)
        cmd = [harness, f"-max_total_time={seconds}", "-timeout=25", "-rss_limit_mb=2048",
               "-print_final_stats=1", "-close_fd_mask=3", f"-artifact_prefix={artifacts}", work]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
        runs = re.search(r"stat::number_of_executed_units: (\d+)", proc.stdout)
        runs = runs.group(1) if runs else "?"
        # slow-unit-* are notes (an input over 10 s, likely a busy
        # machine), not findings: crash-, leak-, timeout- and oom- are.
        found = sorted(f for f in os.listdir(artifacts) if not f.startswith("slow-unit-"))

        if proc.returncode == 0 and not found:
            print(f"ok 1 - {name}: {runs} executions in {seconds} s, corpus {len(seeds)} -> "
                  f"{len(os.listdir(work))} inputs, nothing found")
            return 0

        # libFuzzer's report (the end of its output), then the inputs
        # kept as regressions.
        for line in proc.stdout.splitlines()[-60:]:
            print(f"# {line}")
        os.makedirs(regressions, exist_ok=True)
        for f in found:
            shutil.copy(os.path.join(artifacts, f), os.path.join(regressions, f))
            print(f"# {name}: input saved as {os.path.join(regressions, f)}")
        print(f"not ok 1 - {name}: exit status {proc.returncode} after {runs} executions")
        return 1


if __name__ == "__main__":
    if sys.argv[1] == "--replay":
        sys.exit(replay(*sys.argv[2:5]))
    sys.exit(fuzz(*sys.argv[1:5]))
