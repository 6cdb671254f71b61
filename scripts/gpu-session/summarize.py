#!/usr/bin/env python3
"""Reads a GPU session's results folder (what on-device.sh wrote to $OUT) and prints NEE
against the vendor baselines: the best 4096^3 fp32 MatMul's GFLOP/s against cuBLAS sgemm
(issue 7's target: at least 0.5 of it) and ResNet-50's batch-1 latency against PyTorch's.

With --batch, first copies the session's results.jsonl into the batch folder prepare.sh
made (nee-tune db import-results reads FOLDER/results.jsonl and the folder's manifest)
and imports it into a tuning database (--db). Standard library only: it also runs on the
device, at the end of on-device.sh, without --batch.
"""
import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

MATMUL_TARGET = 0.5
TIME_LINE = re.compile(r"^time (?P<bundle>\S+): median (?P<median>[\d.]+) ms \(p10 (?P<p10>[\d.]+), "
                       r"p90 (?P<p90>[\d.]+), min [\d.]+\) over (?P<runs>\d+) runs", re.MULTILINE)


def read_json(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def read_steps(results):
    """steps.txt's lines (name=... status=... rc=... wall_s=... limit_s=...) as dicts."""
    path = os.path.join(results, "steps.txt")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [dict(field.split("=", 1) for field in line.split()) for line in f if "=" in line]


def read_log(results, step):
    """A step's log from logs.tar.gz, or '' where it is not there."""
    path = os.path.join(results, "logs.tar.gz")
    if not os.path.exists(path):
        return ""
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if os.path.basename(member.name) == step + ".log":
                return io.TextIOWrapper(tar.extractfile(member), errors="replace").read()
    return ""


def batch_results(results):
    """results.jsonl's measurements, best first among the ok ones."""
    path = os.path.join(results, "results.jsonl")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return sorted(lines, key=lambda r: (r["result"]["status"] != "ok", r["result"]["median_us"]))


def confirmed_times(results):
    """confirmations.jsonl's re-measured medians by task, the ok ones (empty without it)."""
    path = os.path.join(results, "confirmations.jsonl")
    if not os.path.exists(path):
        return {}
    lines = []
    with open(path) as f:
        for line in f:
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                break  # a last line cut by a kill, as nee-measure itself reads it
    return {c["task"]: c for c in lines if c["result"]["status"] == "ok"}


def import_results(results, batch, db, nee_tune):
    src = os.path.join(results, "results.jsonl")
    if not os.path.exists(src):
        print(f"no GPU results to import: {src} does not exist (nee-measure --batch did not run on a GPU)")
        return
    shutil.copyfile(src, os.path.join(batch, "results.jsonl"))
    confirmations = os.path.join(results, "confirmations.jsonl")
    if os.path.exists(confirmations):
        shutil.copyfile(confirmations, os.path.join(batch, "confirmations.jsonl"))
    subprocess.run([nee_tune, "db", "--db", db, "import-results", batch], check=True)


def gflops(n, ms):
    return 2.0 * n ** 3 / (ms * 1e6)


def matmul_rows(results, vendor):
    """Table rows and notes for the MatMul comparison."""
    measured = batch_results(results)
    n = 4096
    cublas = vendor.get("matmul") if vendor else None
    cublas_gflops = cublas.get("gflops_at_median") if cublas and "error" not in cublas else None
    rows, notes = [], []
    best = None
    confirmed = confirmed_times(results)

    def timed(r):
        """A candidate's time in us, confirmed where it was re-measured, and where it comes from."""
        c = confirmed.get(r["task"])
        if c:
            return c["result"]["median_us"], f"task {r['task']}, median of {len(c['round_medians_us'])} rounds"
        return r["result"]["median_us"], f"task {r['task']}"

    if measured:
        ok = [r for r in measured if r["result"]["status"] == "ok"]
        notes.append(f"nee-measure --batch: {len(ok)} ok of {len(measured)} measured "
                     f"({', '.join(sorted({r['result']['status'] for r in measured}))})" +
                     ("" if ok else f"; {measured[0]['task']}: {measured[0]['result']['error'][:200]}"))
        if confirmed:
            # The re-measured medians rank the candidates, as they do once imported.
            ok = sorted(ok, key=lambda r: confirmed[r["task"]]["result"]["median_us"] if r["task"] in confirmed
                        else float("inf"))
            notes.append(f"ranked by the medians of {len(confirmed)} candidates re-measured in rotated rounds")
        if ok:
            best = ok[0]
            us, where = timed(best)
            rows.append(("NEE best (nee-measure)", f"{us / 1000:.3f} ms", f"{gflops(n, us / 1000):.0f} GFLOP/s", where))
        default = next((r for r in ok if r["task"] == "c0"), None)  # pack puts the default point first
        if default:
            us, where = timed(default)
            rows.append(("NEE default schedule", f"{us / 1000:.3f} ms", f"{gflops(n, us / 1000):.0f} GFLOP/s", where))
    else:
        notes.append("nee-measure --batch: no results.jsonl")
    if cublas_gflops:
        rows.append(("cuBLAS sgemm (torch.matmul, no TF32)", f"{cublas['median_ms']:.3f} ms",
                     f"{cublas_gflops:.0f} GFLOP/s", f"p10 {cublas['p10_ms']:.3f}, p90 {cublas['p90_ms']:.3f} ms"))
    if best and cublas_gflops:
        ratio = gflops(n, timed(best)[0] / 1000) / cublas_gflops
        verdict = "met" if ratio >= MATMUL_TARGET else "not met"
        notes.append(f"NEE / cuBLAS = {ratio:.2f} (target >= {MATMUL_TARGET}: {verdict})")
    else:
        notes.append("NEE / cuBLAS: no ratio (" + ", ".join(
            what for what, have in (("no NEE timing", best), ("no cuBLAS timing", cublas_gflops)) if not have) + ")")
    return rows, notes


def resnet_rows(results, vendor):
    log = read_log(results, "nee-run")
    rows, notes = [], []
    nee_ms = None
    for line in log.splitlines():
        m = TIME_LINE.match(line)
        if m:
            nee_ms = float(m["median"])
            rows.append(("NEE CUDA bundle (nee-run, host I/O)", f"{nee_ms:.3f} ms",
                         f"p10 {m['p10']}, p90 {m['p90']} ms", f"{m['runs']} runs"))
        elif line.startswith("check ") or line.startswith("device copies, last run"):
            notes.append(line.strip())
    torch_run = vendor.get("resnet50") if vendor else None
    torch_ms = None
    if torch_run and "error" not in torch_run:
        for key, label in (("host_io", "PyTorch eager (host I/O)"), ("device_input", "PyTorch eager (device input)")):
            s = torch_run[key]
            rows.append((label, f"{s['median_ms']:.3f} ms", f"p10 {s['p10_ms']:.3f}, p90 {s['p90_ms']:.3f} ms",
                         f"{s['samples']} runs"))
        torch_ms = torch_run["host_io"]["median_ms"]
    if nee_ms and torch_ms:
        notes.append(f"PyTorch / NEE latency = {torch_ms / nee_ms:.2f} (above 1: NEE is faster; both with the "
                     "input copied up and the output copied back)")
    else:
        notes.append("PyTorch / NEE latency: no ratio (" + ", ".join(
            what for what, have in (("no NEE timing", nee_ms), ("no PyTorch timing", torch_ms)) if not have) + ")")
    return rows, notes


def any_gpu_measurement(results, vendor):
    """Whether any step timed something on a GPU."""
    return bool((vendor and any(k in vendor and "error" not in vendor[k] for k in ("matmul", "resnet50")))
                or any(r["result"]["status"] == "ok" for r in batch_results(results) or [])
                or TIME_LINE.search(read_log(results, "nee-run")))


def print_table(title, rows, notes):
    print(f"\n{title}")
    if rows:
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for r in rows:
            print("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    for note in notes:
        print(f"  - {note}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="the folder on-device.sh wrote (the device's $OUT)")
    parser.add_argument("--batch", help="the MatMul batch folder prepare.sh made: import the results into --db")
    parser.add_argument("--db", help="tuning database to import into (default: gpu-tuning.db beside --batch)")
    parser.add_argument("--nee-tune", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "../../build/tuner/nee-tune"))
    args = parser.parse_args()
    if not os.path.isdir(args.results):
        sys.exit(f"summarize: results folder '{args.results}' does not exist")
    steps = read_steps(args.results)
    vendor = read_json(os.path.join(args.results, "vendor.json"))
    on_gpu = any_gpu_measurement(args.results, vendor)
    if args.batch and on_gpu:
        db = args.db or os.path.join(os.path.dirname(os.path.abspath(args.batch)), "gpu-tuning.db")
        import_results(args.results, args.batch, db, args.nee_tune)

    print("GPU session steps:" if steps else "GPU session steps: none recorded (no steps.txt)")
    for s in steps:
        print(f"  {s.get('name', '?'):<16} {s.get('status', '?'):<10} rc={s.get('rc', '-'):<4} "
              f"{s.get('wall_s', '-')}s of {s.get('limit_s', '-')}s")
    gpu = vendor.get("device") if vendor else None
    print(f"device: {gpu}" if gpu else "device: no GPU seen by PyTorch")
    if not on_gpu:
        # Importing would also put a results.jsonl of failures into the batch folder, and a
        # device run of that folder would then skip every candidate as measured.
        print("\nNO GPU RESULTS: nothing was measured on a GPU (each step's log is in logs.tar.gz)" +
              ("; nothing imported" if args.batch else ""))
    print_table("MatMul 4096x4096x4096 fp32", *matmul_rows(args.results, vendor))
    print_table("ResNet-50, batch 1, 1x3x224x224 fp32", *resnet_rows(args.results, vendor))


if __name__ == "__main__":
    main()
