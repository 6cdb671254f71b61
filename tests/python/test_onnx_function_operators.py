"""ONNX's own node test cases for Attention (opsets 23 to 25) and RotaryEmbedding (opset 23),
which NEE's importer expands into the nodes of their definitions: each case is made by the
onnx package of the peers' virtual environment (its reference implementation computes the
expected outputs; Debian's libonnx-testdata predates both operators) and run by nee-run
on the reference kernels. The cases' "_expanded" twins, which run ONNX's function bodies
rather than the operators, are left out: they test other operators."""
import json
import subprocess

import pytest

GENERATE = """
import json, os, sys
import numpy as np
from onnx import numpy_helper
from onnx.backend.test.case import node
out, op = sys.argv[1:3]
cases = {}
# One operator per process: the collection imports its modules once, filtered by the first
# operator asked for.
for case in node.collect_testcases(op):
    if not case.name.endswith("_expanded"):
        folder = os.path.join(out, case.name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        inputs, outputs = case.data_sets[0]
        data = os.path.join(folder, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        for kind, values, infos in (("input", inputs, case.model.graph.input),
                                    ("output", outputs, case.model.graph.output)):
            for i, (value, info) in enumerate(zip(values, infos)):
                with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(np.asarray(value), info.name).SerializeToString())
        half = any(np.asarray(v).dtype.itemsize == 2 and np.asarray(v).dtype.kind in "fV" for v in inputs)
        cases[case.name] = {"half": bool(half)}
print(json.dumps(cases))
"""


def test_onnx_node_cases_match_the_reference(peers_python, nee_run, work_dir):
    folder = work_dir / "onnx_function_operator_cases"
    cases = {}
    for op in ("Attention", "RotaryEmbedding"):
        made = subprocess.run([str(peers_python), "-c", GENERATE, str(folder), op], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.fail(f"making the {op} cases failed ({made.returncode}): {made.stderr[-2000:]}")
        made_now = json.loads(made.stdout.strip().splitlines()[-1])
        # onnx 1.23 has 93 and 8; a package too old for the operators would make none.
        assert len(made_now) >= (60 if op == "Attention" else 6), (op, sorted(made_now))
        cases.update(made_now)
    failures = []
    for name, case in sorted(cases.items()):
        # bf16 holds 8 bits of mantissa: its outputs round at 2^-8 relative.
        tolerance = ["--rtol", "2e-2", "--atol", "1e-2"] if case["half"] else ["--rtol", "1e-3", "--atol", "1e-5"]
        data = folder / name / "test_data_set_0"
        run = subprocess.run([str(nee_run), str(folder / name / "model.onnx"), "--inputs", str(data), "--expect",
                              str(data)] + tolerance, capture_output=True, text=True)
        if run.returncode != 0 or "MISMATCH" in run.stdout + run.stderr:
            failures.append(f"{name}: {(run.stdout + run.stderr)[-600:]}")
    assert not failures, "\n".join(failures)
