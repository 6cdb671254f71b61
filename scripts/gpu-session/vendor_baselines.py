#!/usr/bin/env python3
"""The vendor baselines NEE's CUDA kernels are compared with, timed through PyTorch in fp32.

  matmul    torch.matmul of two 4096x4096 fp32 matrices, which PyTorch runs as cuBLAS
            sgemm; TF32 is off, so the product is computed in fp32 throughout
  resnet50  torchvision's ResNet-50 (random weights, eval mode) at batch 1, 1x3x224x224;
            cuDNN convolutions with TF32 off and cudnn.benchmark on (its fastest fp32
            algorithm per conv). Timed two ways: the forward pass alone on an input
            already on the device (CUDA events), and a run as nee-run times one, input
            copied up and output copied back (wall clock)

Each timing: warm-up calls, then samples of back-to-back calls; the median, p10 and p90
of the per-call times are written to a JSON file.
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torchvision


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary_ms(samples_ms):
    return {"median_ms": statistics.median(samples_ms), "p10_ms": percentile(samples_ms, 0.1),
            "p90_ms": percentile(samples_ms, 0.9), "min_ms": min(samples_ms), "samples": len(samples_ms)}


def time_events(fn, warmup, samples, calls_per_sample):
    """Per-call milliseconds of `fn` on the current stream, one CUDA-event pair per sample."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls_per_sample):
            fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / calls_per_sample)
    return out


def matmul_baseline(n, warmup, samples):
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.rand((n, n), device="cuda", generator=gen) * 2 - 1
    b = torch.rand((n, n), device="cuda", generator=gen) * 2 - 1
    c = torch.empty((n, n), device="cuda")
    # One fp32 product checked against a float64 one on a few rows: TF32 would miss by ~1e-3.
    torch.matmul(a, b, out=c)
    rows = torch.arange(0, n, n // 16, device="cuda")
    want = a[rows].double() @ b.double()
    error = ((c[rows].double() - want).abs().max() / want.abs().max()).item()
    times = time_events(lambda: torch.matmul(a, b, out=c), warmup, samples, 5)
    s = summary_ms(times)
    s.update({"shape": [n, n, n], "gflops_at_median": 2.0 * n ** 3 / (s["median_ms"] * 1e6),
              "peak_rel_error_vs_fp64": error})
    return s


def resnet50_baseline(warmup, samples):
    torch.manual_seed(0)
    net = torchvision.models.resnet50(weights=None).cuda().eval()
    x_host = torch.rand(1, 3, 224, 224) * 2 - 1
    x = x_host.cuda()
    with torch.inference_mode():
        device_only = summary_ms(time_events(lambda: net(x), warmup, samples, 1))
        host_io = []
        for _ in range(samples):
            start = time.perf_counter()
            net(x_host.cuda()).cpu()
            host_io.append((time.perf_counter() - start) * 1000)
    return {"input": [1, 3, 224, 224], "device_input": device_only, "host_io": summary_ms(host_io)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--n", type=int, default=4096, help="matmul size (n x n x n)")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--samples", type=int, default=50)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("vendor_baselines: PyTorch sees no CUDA device (torch.cuda.is_available() is False); "
                 "no vendor baselines measured")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
              "tf32": False, "dtype": "float32"}
    # Each part is written as soon as it is measured, so a later failure keeps it.
    for name, measure in (("matmul", lambda: matmul_baseline(args.n, args.warmup, args.samples)),
                          ("resnet50", lambda: resnet50_baseline(args.warmup, args.samples))):
        try:
            result[name] = measure()
        except Exception as e:  # one failed baseline must not lose the other's numbers
            result[name] = {"error": f"{type(e).__name__}: {e}"}
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        print(name, json.dumps(result[name]))
    if any("error" in result[k] for k in ("matmul", "resnet50")):
        sys.exit(1)


if __name__ == "__main__":
    main()
