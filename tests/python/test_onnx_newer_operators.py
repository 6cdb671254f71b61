"""ONNX's own node test cases for the operators whose definitions came after opset 17, the
last Debian's libonnx-testdata (onnx 1.12) has: made by the onnx package of the peers'
virtual environment (onnx 1.23, whose reference implementation computes the expected
outputs) and run by nee-run on the reference kernels. Among them Attention,
RotaryEmbedding, SwiGLU and GroupNormalization, which NEE's importer expands into the
nodes of their definitions. The cases' "_expanded" twins, which run ONNX's function bodies
rather than the operators, are left out: they test other operators."""
import json
import subprocess

import pytest

# Operators NEE reads in every case onnx 1.23 has for them (cases with tensors numpy holds
# as objects, 4-bit and float8 ones, are not written: see GENERATE). Left out: those it
# refuses by name in some cases (random Dropout and Bernoulli, Scan of opset 8, optional
# graph inputs) and those it does not read (ImageDecoder, string operators). A case runs
# when every operator of its model is listed.
OPERATORS = """
Acos Acosh AffineGrid Asin Asinh Atan Atanh Attention AveragePool BitCast BitShift
BitwiseAnd BitwiseNot BitwiseOr BitwiseXor CausalConvWithState Celu CenterCropPad Col2Im
Compress Constant ConstantOfShape Conv ConvTranspose Cos Cosh CumProd DFT DeformConv
DepthToSpace DequantizeLinear Det Einsum Elu Exp EyeLike Flatten GRU Gelu GlobalAveragePool
GlobalMaxPool GridSample GroupNormalization HardSigmoid HardSwish InstanceNormalization IsInf IsNaN
LSTM LinearAttention LpNormalization LpPool MaxPool MaxUnpool Mish Mod
NegativeLogLikelihoodLoss OneHot Pad QLinearMatMul QuantizeLinear RMSNormalization RNN Range
ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd
ReduceSumSquare Reshape Resize ReverseSequence RoiAlign RotaryEmbedding Round
ScatterElements ScatterND Selu Shape Sin Sinh Size Softplus Softsign SpaceToDepth Split
Squeeze SwiGLU Swish Tan TensorScatter ThresholdedRelu TopK Transpose Unique Unsqueeze
""".split()

GENERATE = """
import json, os, sys
import numpy as np
from onnx import numpy_helper
from onnx.backend.test.case import node
out, operators = sys.argv[1], set(sys.argv[2].split(","))
cases = {}
for case in node.collect_testcases(None):
    ops = {n.op_type for n in case.model.graph.node}
    if "_expanded" in case.name or not ops <= operators:
        continue
    inputs, outputs = case.data_sets[0]
    # Sequences and optionals (Split's, If's) are no tensors to write, nor are 4-bit and
    # float8 arrays (numpy objects).
    if any(isinstance(v, (list, dict)) or np.asarray(v).dtype == object for v in list(inputs) + list(outputs)):
        continue
    folder = os.path.join(out, case.name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for kind, values, infos in (("input", inputs, case.model.graph.input),
                                ("output", outputs, case.model.graph.output)):
        for i, (value, info) in enumerate(zip(values, infos)):
            with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(value), info.name).SerializeToString())
    half = any(np.asarray(v).dtype.itemsize == 2 and np.asarray(v).dtype.kind in "fV" for v in inputs)
    cases[case.name] = {"half": bool(half), "operators": sorted(ops)}
print(json.dumps(cases))
"""


def test_onnx_node_cases_match_the_reference(peers_python, nee_run, work_dir):
    folder = work_dir / "onnx_newer_operator_cases"
    made = subprocess.run([str(peers_python), "-c", GENERATE, str(folder), ",".join(OPERATORS)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        pytest.fail(f"making the cases failed ({made.returncode}): {made.stderr[-2000:]}")
    cases = json.loads(made.stdout.strip().splitlines()[-1])
    covered = {op for case in cases.values() for op in case["operators"]}
    # Every operator listed has cases in onnx 1.23; a package without them would make none.
    assert covered == set(OPERATORS), sorted(set(OPERATORS) - covered)
    failures = []
    for name, case in sorted(cases.items()):
        # bf16 holds 8 bits of mantissa: its outputs round at 2^-8 relative.
        tolerance = ["--rtol", "2e-2", "--atol", "1e-2"] if case["half"] else ["--rtol", "1e-3", "--atol", "1e-5"]
        data = folder / name / "test_data_set_0"
        run = subprocess.run([str(nee_run), str(folder / name / "model.onnx"), "--inputs", str(data), "--expect",
                              str(data)] + tolerance, capture_output=True, text=True)
        if run.returncode != 0 or "MISMATCH" in run.stdout + run.stderr:
            failures.append(f"{name}: {(run.stdout + run.stderr)[-600:]}")
    print(f"{len(cases)} cases of {len(covered)} operators", flush=True)
    assert not failures, "\n".join(failures)
