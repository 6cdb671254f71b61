"""Runs one ONNX model on a peer engine (ONNX Runtime or OpenVINO, CPU) for
`nee-bench --models`, which starts it as a subprocess with the peers' venv python.

It reads input_<i>.pb tensors, creates the engine's session with T threads, runs it
once, writes that run's outputs as output_<i>.pb for the bench's cross-check, then warms
up and times single runs. Start-up is timed twice to that first result: from process
start (--started-at-ns, CLOCK_MONOTONIC when the bench started this process: the
interpreter and imports count) and from session creation. The result goes to --json,
the same as NEE's bench/models/nee_model_runner_main.cpp writes:

  {"engine", "version", "pid", "process_startup_ms", "session_startup_ms",
   "latencies_ms": [...], "peak_rss_kib", "outputs": [paths]}

Exit status 3 with a one-line message on stderr when the engine is not installed, so
the bench reports the peer as skipped.
"""
import argparse
import glob
import json
import os
import resource
import sys
import time


def load_inputs(folder, batch):
    import numpy as np
    from onnx import numpy_helper, TensorProto

    arrays = []
    paths = sorted(glob.glob(os.path.join(folder, "input_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    if not paths:
        raise SystemExit(f"run_peer: no input_<i>.pb in {folder}")
    for path in paths:
        t = TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        a = numpy_helper.to_array(t)
        # Batch N repeats the batch-1 sample along axis 0; the model must accept it.
        arrays.append(np.concatenate([a] * batch, axis=0) if batch > 1 else a)
    return arrays


class OnnxRuntime:
    def __init__(self, model, threads):
        import onnxruntime as ort

        self.version = ort.__version__
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]

    def run(self, arrays):
        return self.session.run(None, dict(zip(self.input_names, arrays)))


class OpenVino:
    def __init__(self, model, threads):
        import openvino as ov
        import openvino.properties as props
        import openvino.properties.hint as hints

        self.version = ov.get_version()
        core = ov.Core()
        # f32 like every other engine: on a CPU with AVX512-BF16 OpenVINO otherwise infers
        # in bf16 and disagreed with PyTorch by 0.2-0.6% of the output's peak on the zoo.
        config = {props.inference_num_threads: threads,
                  hints.performance_mode: hints.PerformanceMode.LATENCY,
                  hints.inference_precision: ov.Type.f32}
        self.compiled = core.compile_model(core.read_model(model), "CPU", config)
        self.request = self.compiled.create_infer_request()

    def run(self, arrays):
        result = self.request.infer(arrays)
        return [result[o] for o in self.compiled.outputs]


def peak_rss_kib():
    """This process's peak RSS (interpreter and imports included). VmHWM, not ru_maxrss:
    Linux carries ru_maxrss over execve, so it would report the bench's own peak."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


ENGINES = {"onnxruntime": (OnnxRuntime, "onnxruntime"), "openvino": (OpenVino, "openvino")}


def main():
    parser = argparse.ArgumentParser(description="run an ONNX model on a peer engine and time it")
    parser.add_argument("--engine", required=True, choices=sorted(ENGINES))
    parser.add_argument("--model", required=True)
    parser.add_argument("--inputs", required=True, help="folder with input_<i>.pb")
    parser.add_argument("--outputs", required=True, help="folder to write output_<i>.pb into")
    parser.add_argument("--json", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--started-at-ns", type=int, required=True,
                        help="CLOCK_MONOTONIC when the caller started this process")
    args = parser.parse_args()

    engine_class, module = ENGINES[args.engine]
    for needed in (module, "numpy", "onnx"):
        try:
            __import__(needed)
        except ImportError as e:
            print(f"{needed} is not installed in {sys.prefix} ({e})", file=sys.stderr)
            sys.exit(3)
    from onnx import numpy_helper
    import numpy as np

    arrays = load_inputs(args.inputs, args.batch)
    start_ns = time.monotonic_ns()
    engine = engine_class(args.model, args.threads)
    outputs = engine.run(arrays)
    first_outputs_ns = time.monotonic_ns()

    os.makedirs(args.outputs, exist_ok=True)
    paths = []
    for i, out in enumerate(outputs):
        path = os.path.join(args.outputs, f"output_{i}.pb")
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(out), f"output_{i}").SerializeToString())
        paths.append(path)

    for _ in range(args.warmup):
        engine.run(arrays)
    latencies = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        engine.run(arrays)
        latencies.append((time.perf_counter() - t0) * 1e3)

    result = {"engine": args.engine, "version": engine.version, "pid": os.getpid(),
              "process_startup_ms": (first_outputs_ns - args.started_at_ns) / 1e6,
              "session_startup_ms": (first_outputs_ns - start_ns) / 1e6,
              "latencies_ms": latencies, "batch": args.batch, "threads": args.threads,
              "peak_rss_kib": peak_rss_kib(), "outputs": paths}
    with open(args.json, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
