"""Throughput of one NEE session run from one thread and from two at once.

    /usr/bin/python3 bench/api/concurrent_runs.py MODEL_OR_ARTIFACT [--threads N]
        [--seconds S] [--rounds R] [--build build]

MODEL_OR_ARTIFACT is a deploy artifact (nee-tune --deploy) or an ONNX model; --threads
is the environment's kernel threads (0: one per CPU). Rounds alternate one and two
calling threads, each for S seconds, all on one random input set; every run's outputs
are checked against the first run's. Prints runs per second (median, min, max over the rounds) and
the ratio of two threads' throughput to one's.
"""
import argparse
import statistics
import sys
import threading
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    sys.path.insert(0, f"{args.build}/python")
    import nee

    session = nee.InferenceSession(args.model, threads=args.threads)
    rng = np.random.default_rng(1)
    feed = {}
    for value in session.get_inputs():
        shape = [d if isinstance(d, int) and d > 0 else 1 for d in value.shape]
        if "int" in value.type:
            feed[value.name] = rng.integers(0, 100, size=shape).astype(np.int64)
        else:
            feed[value.name] = rng.standard_normal(shape).astype(np.float32)
    expected = session.run(None, feed)
    for _ in range(5):
        session.run(None, feed)

    def worker(stop, count, wrong):
        while time.perf_counter() < stop:
            outputs = session.run(None, feed)
            count[0] += 1
            if not all(np.array_equal(a, b) for a, b in zip(outputs, expected)):
                wrong[0] += 1

    rates = {1: [], 2: []}
    wrong = [0]
    for _ in range(args.rounds):
        for callers in (1, 2):
            counts = [[0] for _ in range(callers)]
            start = time.perf_counter()
            threads = [threading.Thread(target=worker, args=(start + args.seconds, c, wrong)) for c in counts]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            rates[callers].append(sum(c[0] for c in counts) / (time.perf_counter() - start))
    if wrong[0]:
        sys.exit(f"{wrong[0]} runs gave outputs other than the first run's")
    for callers in (1, 2):
        r = rates[callers]
        print(f"{callers} calling thread(s): {statistics.median(r):.1f} runs/s (min {min(r):.1f}, max {max(r):.1f})")
    print(f"two threads / one: {statistics.median(rates[2]) / statistics.median(rates[1]):.2f}")


if __name__ == "__main__":
    main()
