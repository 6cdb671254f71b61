#!/usr/bin/python3
"""Exports NEE's model zoo to ONNX with random weights, each with one test data set
(input_0.pb, and output_0.pb computed by PyTorch).

  resnet18, resnet50, mobilenet_v2   torchvision architectures, 1x3x224x224
  bert_encoder                       token embeddings + positions, 4 TransformerEncoder
                                     layers, hidden 256, 4 heads, GELU, sequence 128

Every model's input and output have a symbolic batch dim 0 ("batch"); the test data is
batch 1, and a bigger batch repeats it along dim 0 (nee-bench --models' batch-8 run).

--small exports reduced variants of the same architectures that export and run in
seconds (for the test suite): ResNet with one block per stage at 64x64, MobileNetV2 at
width 0.25 on 64x64, and a 1-layer encoder with hidden 64 over 16 tokens.

A model is re-exported only when its folder lacks the files or was made with other
settings (recorded in zoo.json), so the full zoo is made once and then cached.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
"""
import argparse
import json
import os

import numpy as np
import torch
import torchvision
from onnx import numpy_helper

OPSET = 13
# Recorded in zoo.json so exports of an older layout are re-made. 2: symbolic batch dim.
ZOO_FORMAT = 2


class BertStyleEncoder(torch.nn.Module):
    def __init__(self, vocab, hidden, heads, layers, seq):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, hidden)
        self.positions = torch.nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=4 * hidden, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = torch.nn.LayerNorm(hidden)

    def forward(self, ids):
        return self.norm(self.encoder(self.tokens(ids) + self.positions))


def make(name, small):
    """Returns (module, example input, input dtype) for a zoo entry."""
    if name == "resnet18":
        if small:
            net = torchvision.models.resnet.ResNet(torchvision.models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=10)
            return net, torch.rand(1, 3, 64, 64) * 2 - 1
        return torchvision.models.resnet18(weights=None), torch.rand(1, 3, 224, 224) * 2 - 1
    if name == "resnet50":
        if small:
            net = torchvision.models.resnet.ResNet(torchvision.models.resnet.Bottleneck, [1, 1, 1, 1], num_classes=10)
            return net, torch.rand(1, 3, 64, 64) * 2 - 1
        return torchvision.models.resnet50(weights=None), torch.rand(1, 3, 224, 224) * 2 - 1
    if name == "mobilenet_v2":
        if small:
            return torchvision.models.mobilenet_v2(weights=None, width_mult=0.25, num_classes=10), \
                torch.rand(1, 3, 64, 64) * 2 - 1
        return torchvision.models.mobilenet_v2(weights=None), torch.rand(1, 3, 224, 224) * 2 - 1
    if name == "bert_encoder":
        vocab, hidden, heads, layers, seq = (1000, 64, 2, 1, 16) if small else (30522, 256, 4, 4, 128)
        return BertStyleEncoder(vocab, hidden, heads, layers, seq), torch.randint(0, vocab, (1, seq))
    raise SystemExit(f"unknown zoo model '{name}'")


def randomize_batchnorm(net):
    """Fresh BatchNorm layers hold mean 0 and variance 1, which would leave folding and
    normalization untested: give them random statistics and affine parameters."""
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)


def export(name, out_dir, small, seed):
    folder = os.path.join(out_dir, name + ("_small" if small else ""))
    settings = {"model": name, "small": small, "seed": seed, "opset": OPSET, "format": ZOO_FORMAT,
                "torch": torch.__version__}
    if is_cached(folder, settings):
        print(f"{folder}: cached")
        return
    torch.manual_seed(seed)
    net, example = make(name, small)
    randomize_batchnorm(net)
    export_test_case(folder, settings, net, [example], OPSET,
                     dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    print(f"{folder}: exported ({sum(p.numel() for p in net.parameters()) / 1e6:.1f} M parameters)")


def is_cached(folder, settings):
    """Whether `folder` holds an export made with these settings (zoo.json) and its data."""
    stamp = os.path.join(folder, "zoo.json")
    return os.path.exists(stamp) and json.load(open(stamp)) == settings and \
        os.path.exists(os.path.join(folder, "test_data_set_0", "output_0.pb"))


def export_test_case(folder, settings, net, examples, opset, dynamic_axes=None):
    """Writes folder/model.onnx (traced with the first example), test_data_set_<k> for
    each example (it and PyTorch's output for it) and zoo.json (the settings)."""
    net.eval()
    os.makedirs(folder, exist_ok=True)
    # Exported with autograd on: with it off, torch 1.13 traces TransformerEncoderLayer
    # through its fused fast path (aten::_transformer_encoder_layer_fwd), which has no
    # ONNX export.
    torch.onnx.export(net, (examples[0],), os.path.join(folder, "model.onnx"), opset_version=opset,
                      input_names=["input"], output_names=["output"], do_constant_folding=True,
                      dynamic_axes=dynamic_axes)
    for k, example in enumerate(examples):
        data = os.path.join(folder, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        with torch.no_grad():
            expected = net(example)
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(example.numpy(), "input").SerializeToString())
        with open(os.path.join(data, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(expected.numpy().astype(np.float32), "output").SerializeToString())
    with open(os.path.join(folder, "zoo.json"), "w") as f:
        json.dump(settings, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,bert_encoder")
    parser.add_argument("--small", action="store_true", help="the reduced variants used by the tests")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in args.models.split(","):
        export(name, args.out_dir, args.small, args.seed)


if __name__ == "__main__":
    main()
