#!/usr/bin/env python3
"""The vendor baselines NEE's CUDA kernels are compared with, timed through PyTorch in fp32.

  matmul    torch.matmul of two 4096x4096 fp32 matrices, which PyTorch runs as cuBLAS
            sgemm; TF32 is off, so the product is computed in fp32 throughout
  resnet50  torchvision's ResNet-50 (random weights, eval mode) at batch 1, 1x3x224x224,
            and at batch 8 (resnet50_b8); cuDNN convolutions with TF32 off and
            cudnn.benchmark on (its fastest fp32 algorithm per conv). Timed two ways: the
            forward pass alone on an input already on the device (CUDA events), and a run
            as nee-run times one, input copied up and output copied back (wall clock)
  resnet50_convs
            each distinct convolution of ResNet-50 at batch 1 alone, as cuDNN runs it
            (F.conv2d, bias included, no activation), with how often the model runs it:
            20 calls captured in a CUDA graph and replayed, so that the time is the
            kernels' and not PyTorch's dispatch (back to back in eager mode, every conv
            took 22 us or more on an H200, the floor of the calls' launch)
  bert_encoder
            the zoo's BERT-style encoder (tests/models/make_zoo.py's BertStyleEncoder:
            hidden 256, 4 layers, 4 heads, sequence 128) in eager mode at batch 1, and at
            batch 8 (bert_encoder_b8), timed as ResNet-50 is

Each timing: warm-up calls, then samples of back-to-back calls; the median, p10 and p90
of the per-call times are written to a JSON file.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "models"))


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


def model_baseline(net, x_host, warmup, samples):
    """`net`'s forward pass on `x_host`, alone on a device input and with host I/O."""
    x = x_host.cuda()
    with torch.inference_mode():
        device_only = summary_ms(time_events(lambda: net(x), warmup, samples, 1))
        host_io = []
        for _ in range(samples):
            start = time.perf_counter()
            net(x_host.cuda()).cpu()
            host_io.append((time.perf_counter() - start) * 1000)
    return {"input": list(x_host.shape), "device_input": device_only, "host_io": summary_ms(host_io)}


def resnet50():
    torch.manual_seed(0)
    return torchvision.models.resnet50(weights=None).cuda().eval()


def bert_encoder():
    from make_zoo import BertStyleEncoder  # the zoo's own definition: the exported model's architecture
    torch.manual_seed(0)
    return BertStyleEncoder(30522, 256, 4, 4, 128).cuda().eval()


def graph_times(fn, warmup, samples, calls=20):
    """Per-call milliseconds of `fn`, `calls` of them captured in one CUDA graph per sample."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # cuDNN picks its algorithm (cudnn.benchmark) before the capture
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return [t / calls for t in time_events(graph.replay, warmup, samples, 1)]


def resnet50_convs(warmup, samples):
    """Each distinct conv of ResNet-50 at batch 1, timed alone through cuDNN."""
    net = resnet50()
    seen = {}

    def hook(module, inputs, _):
        key = (tuple(inputs[0].shape), tuple(module.weight.shape), module.stride, module.padding)
        seen.setdefault(key, [module, inputs[0].detach().clone(), 0])[2] += 1

    handles = [m.register_forward_hook(hook) for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    with torch.inference_mode():
        net(torch.rand(1, 3, 224, 224, device="cuda"))
    for h in handles:
        h.remove()
    rows = []
    with torch.inference_mode():
        for (shape, weight, stride, padding), (module, x, count) in seen.items():
            bias = torch.rand(weight[0], device="cuda")
            fn = lambda: torch.nn.functional.conv2d(x, module.weight, bias, module.stride, module.padding)  # noqa: E731
            s = summary_ms(graph_times(fn, warmup, samples))
            out = fn().shape
            flops = 2.0 * out[0] * out[1] * out[2] * out[3] * weight[1] * weight[2] * weight[3]
            s.update({"input": list(shape), "weight": list(weight), "stride": list(stride), "pad": list(padding),
                      "count": count, "gflops_at_median": flops / (s["median_ms"] * 1e6)})
            rows.append(s)
    return rows


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
    image = torch.rand(8, 3, 224, 224, generator=torch.Generator().manual_seed(1)) * 2 - 1
    tokens = torch.randint(0, 30522, (8, 128), generator=torch.Generator().manual_seed(1))
    parts = (("matmul", lambda: matmul_baseline(args.n, args.warmup, args.samples)),
             ("resnet50", lambda: model_baseline(resnet50(), image[:1], args.warmup, args.samples)),
             ("resnet50_b8", lambda: model_baseline(resnet50(), image, args.warmup, args.samples)),
             ("bert_encoder", lambda: model_baseline(bert_encoder(), tokens[:1], args.warmup, args.samples)),
             ("bert_encoder_b8", lambda: model_baseline(bert_encoder(), tokens, args.warmup, args.samples)),
             ("resnet50_convs", lambda: resnet50_convs(args.warmup, args.samples)))
    for name, measure in parts:
        try:
            result[name] = measure()
        except Exception as e:  # one failed baseline must not lose the other's numbers
            result[name] = {"error": f"{type(e).__name__}: {e}"}
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        print(name, json.dumps(result[name]))
    if any("error" in result[name] for name, _ in parts if isinstance(result[name], dict)):
        sys.exit(1)


if __name__ == "__main__":
    main()
