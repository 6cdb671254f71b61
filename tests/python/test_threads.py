"""The GIL is released while a model runs: another Python thread makes progress during a
run, and runs from several threads give the right results."""
import threading
import time

import numpy as np

import nee
from small_models import cubed_matmul

# 4 * 640^3 = 1.05 GFLOP: 40-70 ms on one thread of NEE's reference matmul (measured on
# the 2-core AMD build machine).
N = 640


def operand(seed):
    # Entries in [0, 1/16): (x @ x) @ x stays near 640^2 / 16^3 = 100, well inside float32.
    return (np.random.default_rng(seed).random((N, N)) / 16).astype(np.float32)


def expected(x):
    x = x.astype(np.float64)
    return x @ x @ x


def test_another_thread_runs_while_a_model_does():
    session = nee.InferenceSession(cubed_matmul(N), threads=1)
    x = operand(0)
    session.run(None, {"x": x})  # binds the kernels for this shape
    ticking = threading.Event()
    spans, results = [], []

    def run():
        ticking.wait()
        for _ in range(5):
            start = time.perf_counter()
            results.append(session.run(None, {"x": x})[0])
            spans.append((start, time.perf_counter()))

    worker = threading.Thread(target=run)
    worker.start()
    ticks = [time.perf_counter()]
    ticking.set()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    # This thread ticks whenever it holds the GIL. Had a run held the GIL, this thread
    # could tick only before the run called into NEE or after it returned, never in the
    # middle half of the run.
    ticks = np.array(ticks)
    in_middle = [int(np.count_nonzero((ticks > a + (b - a) / 4) & (ticks < b - (b - a) / 4))) for a, b in spans]
    assert any(in_middle), f"no tick in the middle of any run: runs {spans}, ticks in their middles {in_middle}"
    for y in results:
        np.testing.assert_allclose(y, expected(x), rtol=1e-4)


def test_runs_from_several_threads_give_the_right_results():
    model = cubed_matmul(N)
    shared = nee.InferenceSession(model, threads=1)
    own = [nee.InferenceSession(model, threads=1) for _ in range(2)]
    inputs = [operand(seed) for seed in range(1, 5)]
    results = [None] * len(inputs)
    barrier = threading.Barrier(len(inputs))

    def run(i):
        # Threads 0 and 1 share one session (NEE serializes its runs); 2 and 3 have their own.
        session = shared if i < 2 else own[i - 2]
        barrier.wait()
        results[i] = session.run(None, {"x": inputs[i]})[0]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, y in zip(inputs, results):
        np.testing.assert_allclose(y, expected(x), rtol=1e-4)
