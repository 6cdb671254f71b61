#!/usr/bin/env python3
"""Reads a GPU session's results folder (what on-device.sh wrote to $OUT) and prints NEE
against the vendor baselines: the best 4096^3 fp32 MatMul's GFLOP/s against cuBLAS sgemm
(target: at least 0.5 of it); ResNet-50's and the BERT-style encoder's latency at batch 1
and 8 against PyTorch eager's; and each distinct ResNet-50 convolution, as NEE's profile
timed it in the model, against cuDNN's time for it alone.

With --batch, first copies the session's results.jsonl into the batch folder prepare.sh
made (nee-tune db import-results reads FOLDER/results.jsonl and the folder's manifest)
and imports it into a tuning database (--db). With --tuning (prepare.sh's OUT_DIR.tuning),
does the same for each model's tuning batch from tuning-results.tar.gz, and prints per
model how many candidates ran and how much faster each workload's best is than its
default. Standard library only: it also runs on the
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
    return read_log_file(results, step + ".log")


def read_log_file(results, file_name):
    """A file of logs.tar.gz, or '' where it is not there."""
    path = os.path.join(results, "logs.tar.gz")
    if not os.path.exists(path):
        return ""
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if os.path.basename(member.name) == file_name:
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


def import_tuning(results, tuning, db, nee_tune):
    """Copies each model batch's results out of tuning-results.tar.gz into its batch folder
    under `tuning` and imports them; returns {model: (results, confirmations)}."""
    path = os.path.join(results, "tuning-results.tar.gz")
    if not os.path.exists(path):
        print(f"no tuning results to import: {path} does not exist")
        return {}
    found = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            parts = os.path.normpath(member.name).split(os.sep)
            if member.isfile() and len(parts) == 2 and parts[1] in ("results.jsonl", "confirmations.jsonl"):
                with open(os.path.join(tuning, parts[0], parts[1]), "wb") as f:
                    f.write(tar.extractfile(member).read())
                found.setdefault(parts[0], None)
    for model in sorted(found):
        folder = os.path.join(tuning, model)
        subprocess.run([nee_tune, "db", "--db", db, "import-results", folder], check=True)
        found[model] = (batch_results(folder) or [], confirmed_times(folder))
    return found


def tuning_rows(tuning, model, measured, confirmed):
    """Per workload of a model's tuning batch: its default's time, its best's, the ratio."""
    with open(os.path.join(tuning, model, "manifest.json")) as f:
        tasks = {t["id"]: t for t in json.load(f)["tasks"]}
    by_workload = {}
    for r in measured:
        if r["result"]["status"] != "ok":
            continue
        c = confirmed.get(r["task"])
        us = c["result"]["median_us"] if c else r["result"]["median_us"]
        task = tasks[r["task"]]
        w = task["workload"]
        label = f"{w['op']}({','.join('x'.join(map(str, t['shape'])) for t in w['inputs'])})"
        entry = by_workload.setdefault(label, {"default": None, "best": None, "count": 0})
        entry["count"] += 1
        if task["strategy"] == "default":
            entry["default"] = us
        if entry["best"] is None or us < entry["best"]:
            entry["best"] = us
    rows = []
    for workload, e in sorted(by_workload.items(), key=lambda kv: -(kv[1]["default"] or 0)):
        if e["default"] is None:
            continue
        rows.append((workload[:70], f"default {e['default']:.1f} us", f"best {e['best']:.1f} us",
                     f"x{e['default'] / e['best']:.2f} over {e['count']} ok"))
    failed = sum(r["result"]["status"] != "ok" for r in measured)
    notes = [f"{len(measured)} candidates measured, {failed} not ok; workloads' defaults "
             f"{sum(float(r[1].split()[1]) for r in rows) / 1000:.3f} ms, bests "
             f"{sum(float(r[2].split()[1]) for r in rows) / 1000:.3f} ms in all (each once)"]
    return rows, notes


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


def model_rows(results, vendor, name, batch):
    """Table rows and notes for one model at one batch size: nee-run's log against PyTorch."""
    log = read_log(results, f"nee-run-{name}-b{batch}")
    rows, notes = [], []
    nee_ms = None
    for line in log.splitlines():
        m = TIME_LINE.match(line)
        if m:
            nee_ms = float(m["median"])
            rows.append(("NEE CUDA bundle (nee-run, host I/O)", f"{nee_ms:.3f} ms",
                         f"p10 {m['p10']}, p90 {m['p90']} ms", f"{m['runs']} runs"))
        elif line.startswith(("check ", "device copies, last run", "FLOPs per run")) or "nodes ran bundle kernels" in line:
            notes.append(line.strip())
    torch_run = vendor.get(name if batch == 1 else f"{name}_b{batch}") if vendor else None
    torch_ms = None
    if torch_run and "error" not in torch_run:
        for key, label in (("host_io", "PyTorch eager (host I/O)"), ("device_input", "PyTorch eager (device input)")):
            t = torch_run[key]
            rows.append((label, f"{t['median_ms']:.3f} ms", f"p10 {t['p10_ms']:.3f}, p90 {t['p90_ms']:.3f} ms",
                         f"{t['samples']} runs"))
        torch_ms = torch_run["host_io"]["median_ms"]
    elif torch_run:
        notes.append(f"PyTorch: {torch_run['error'][:200]}")
    if nee_ms and torch_ms:
        notes.append(f"PyTorch / NEE latency = {torch_ms / nee_ms:.2f} (above 1: NEE is faster; both with the "
                     "input copied up and the output copied back)")
    else:
        notes.append("PyTorch / NEE latency: no ratio (" + ", ".join(
            what for what, have in (("no NEE timing", nee_ms), ("no PyTorch timing", torch_ms)) if not have) + ")")
    return rows, notes


def read_profile(results, name):
    """The Chrome trace nee-run --profile wrote into logs.tar.gz, or None."""
    text = read_log_file(results, f"{name}-b1-profile.json")
    return json.loads(text) if text else None


def conv_rows(results, vendor):
    """Each distinct ResNet-50 conv: NEE's median kernel time in the model (its profile,
    each kernel waited for) against cuDNN's for the conv alone."""
    trace = read_profile(results, "resnet50")
    cudnn = vendor.get("resnet50_convs") if vendor else None
    if not trace or not isinstance(cudnn, list):
        return [], ["no conv table (" + ", ".join(what for what, have in (("no NEE profile", trace),
                                                                           ("no cuDNN timings", isinstance(cudnn, list)))
                                                     if not have) + ")"]
    nee = {}
    for e in trace["traceEvents"]:
        args = e.get("args", {})
        if e.get("ph") != "X" or "inputs" not in args or len(args["inputs"]) < 2 or "conv" not in e.get("cat", "").lower():
            continue
        x, y = nchw(dims(args["inputs"][0])), nchw(dims(args["outputs"][0]))
        # The kernel's taps from its FLOPs (2 per tap, input channel and output element):
        # its weights' layout differs by kernel (Winograd's are transformed).
        taps = round(args.get("flops", 0) / (2.0 * x[1] * y[0] * y[1] * y[2] * y[3]))
        nee.setdefault((tuple(x), tuple(y), taps), []).append(e["dur"] / 1000)
    rows, notes = [], []
    nee_total = cudnn_total = 0.0
    for c in cudnn:
        x, (o, _, kh, kw) = c["input"], c["weight"]
        y = [x[0], o] + [(x[2 + i] + 2 * c["pad"][i] - (kh, kw)[i]) // c["stride"][i] + 1 for i in range(2)]
        times = nee.get((tuple(x), tuple(y), kh * kw))
        label = f"{'x'.join(map(str, x[1:]))} -> {o}, {kh}x{kw}/{c['stride'][0]} (x{c['count']})"
        if not times:
            rows.append((label, "-", f"{c['median_ms'] * 1000:.1f} us", "not in NEE's profile"))
            continue
        ms = sorted(times)[len(times) // 2]
        nee_total += ms * c["count"]
        cudnn_total += c["median_ms"] * c["count"]
        rows.append((label, f"{ms * 1000:.1f} us", f"{c['median_ms'] * 1000:.1f} us", f"cuDNN / NEE {c['median_ms'] / ms:.2f}"))
    if cudnn_total:
        notes.append(f"all convs, each times its count: NEE {nee_total:.3f} ms, cuDNN {cudnn_total:.3f} ms, "
                     f"cuDNN / NEE {cudnn_total / nee_total:.2f}")
    return rows, notes


def dims(tensor_type):
    """[1, 3, 224, 224] from 'f32[1,3,224,224]'."""
    return [int(d) for d in tensor_type[tensor_type.index("[") + 1:-1].split(",") if d]


def nchw(shape):
    """The NCHW dims of an activation, which may be in the blocked layout [N, C/b, H, W, b]."""
    return [shape[0], shape[1] * shape[4], shape[2], shape[3]] if len(shape) == 5 else shape


def any_gpu_measurement(results, vendor):
    """Whether any step timed something on a GPU."""
    return bool((vendor and any(k in vendor and "error" not in vendor[k] for k in ("matmul", "resnet50")))
                or any(r["result"]["status"] == "ok" for r in batch_results(results) or [])
                or any(TIME_LINE.search(read_log(results, f"nee-run-{name}-b{b}"))
                       for name in ("resnet50", "bert_encoder") for b in (1, 8)))


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
    parser.add_argument("--tuning", help="prepare.sh's OUT_DIR.tuning: import the models' tuning results into --db")
    parser.add_argument("--db", help="tuning database to import into (default: gpu-tuning.db beside --batch)")
    parser.add_argument("--nee-tune", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "../../build/tuner/nee-tune"))
    args = parser.parse_args()
    if not os.path.isdir(args.results):
        sys.exit(f"summarize: results folder '{args.results}' does not exist")
    steps = read_steps(args.results)
    vendor = read_json(os.path.join(args.results, "vendor.json"))
    on_gpu = any_gpu_measurement(args.results, vendor)
    if args.tuning and not (args.db or args.batch):
        sys.exit("summarize: --tuning imports into --db, or into the database beside --batch")
    db = args.db or (os.path.join(os.path.dirname(os.path.abspath(args.batch)), "gpu-tuning.db") if args.batch else None)
    if args.batch and on_gpu:
        import_results(args.results, args.batch, db, args.nee_tune)
    tuned = {}
    if args.tuning and on_gpu:
        tuned = import_tuning(args.results, args.tuning, db, args.nee_tune)

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
    for name, label, sample in (("resnet50", "ResNet-50", "3x224x224"), ("bert_encoder", "BERT-style encoder", "128")):
        for b in (1, 8):
            print_table(f"{label}, batch {b}, {b}x{sample}", *model_rows(args.results, vendor, name, b))
    print_table("ResNet-50's convolutions at batch 1: NEE (in the model, --profile) against cuDNN (alone)",
                *conv_rows(args.results, vendor))
    for model, (measured, confirmed) in tuned.items():
        print_table(f"tuning batch {model}: each workload's default and best (nee-measure, alone)",
                    *tuning_rows(args.tuning, model, measured, confirmed))


if __name__ == "__main__":
    main()
