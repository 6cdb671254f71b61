#!/usr/bin/python3
"""Exports small models of the architectures users bring that the zoo does not hold, to
check that NEE imports and runs them (reference kernels; tuning them is later work). Each
gets random weights and one test data set (input_0.pb, output_0.pb computed by PyTorch):

  lstm_tagger             token embeddings, a 2-layer LSTM, a linear head
  bigru_classifier        a bidirectional GRU over feature vectors, a linear head
  llama_decoder           RMSNorm, rotary positions from torch.outer (exported as
                          Einsum), causal attention, SwiGLU feed-forward: 2 layers
  sinusoidal_transformer  sinusoidal positions computed in the graph (Sin, Cos),
                          a TransformerEncoder layer; exported with a symbolic sequence
                          length, with data sets of 16, 7 and 24 tokens
  swin                    torchvision's SwinTransformer (shifted windows: Mod, ScatterND)
  ssdlite                 torchvision's SSDLite (MobileNetV3 backbone) with its
                          post-processing: score thresholds through NonZero, TopK,
                          NonMaxSuppression inside an If; detections as one [N, 6] tensor
                          (box, score, label), N decided by the data

Exports are cached like the zoo's, through make_zoo.py's functions.
Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
"""
import argparse
import math
import os

import torch
import torchvision

from make_zoo import export_test_case, is_cached

OPSET = 14
FORMAT = 5  # 2: the sinusoidal transformer has a symbolic sequence length and three data sets; 5: ssdlite


class LstmTagger(torch.nn.Module):
    def __init__(self, vocab=200, hidden=32, tags=7):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.lstm = torch.nn.LSTM(hidden, hidden, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(hidden, tags)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


class BiGruClassifier(torch.nn.Module):
    def __init__(self, features=12, hidden=16, classes=5):
        super().__init__()
        self.gru = torch.nn.GRU(features, hidden, batch_first=True, bidirectional=True)
        self.head = torch.nn.Linear(2 * hidden, classes)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out[:, -1])


class RmsNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(1 + 0.1 * torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


class LlamaBlock(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.attn_norm, self.ffn_norm = RmsNorm(dim), RmsNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.out = torch.nn.Linear(dim, dim, bias=False)
        self.gate = torch.nn.Linear(dim, 2 * dim, bias=False)
        self.up = torch.nn.Linear(dim, 2 * dim, bias=False)
        self.down = torch.nn.Linear(2 * dim, dim, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, d = x.shape
        q, k, v = self.qkv(self.attn_norm(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + mask
        attn = torch.softmax(scores, dim=-1) @ v
        x = x + self.out(attn.transpose(1, 2).reshape(b, s, d))
        h = self.ffn_norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class LlamaDecoder(torch.nn.Module):
    def __init__(self, vocab=256, dim=32, heads=4, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.blocks = torch.nn.ModuleList(LlamaBlock(dim, heads) for _ in range(layers))
        self.norm = RmsNorm(dim)
        self.lm_head = torch.nn.Linear(dim, vocab, bias=False)
        half = dim // heads // 2
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(half).float() / half)))

    def forward(self, ids):
        s = ids.shape[1]
        freqs = torch.outer(torch.arange(s, dtype=torch.float32), self.inv_freq)
        angles = torch.cat((freqs, freqs), dim=-1)
        cos, sin = angles.cos(), angles.sin()
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, cos, sin, mask)
        return self.lm_head(self.norm(x))


class SinusoidalTransformer(torch.nn.Module):
    def __init__(self, vocab=300, dim=32, heads=4):
        super().__init__()
        self.dim = dim
        self.embed = torch.nn.Embedding(vocab, dim)
        layer = torch.nn.TransformerEncoderLayer(dim, heads, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def forward(self, ids):
        s = ids.shape[1]
        position = torch.arange(s, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, self.dim, 2, dtype=torch.float32) * (-math.log(10000.0) / self.dim))
        pe = torch.zeros(s, self.dim)
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        return self.encoder(self.embed(ids) + pe)


class SsdLite(torch.nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.net = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=classes)
        # Untrained, torchvision's SSDLite computes features of about 1e-14, so every score
        # is 1 / classes, and which of the tied boxes survive is up to each sort's
        # tie-breaking. Kaiming's init keeps the features near unit scale, and the heads
        # scaled down keep the scores off 1.0: 300 distinct scores on the test image.
        for m in self.net.modules():
            if isinstance(m, torch.nn.Conv2d):
                torch.nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
        for m in self.net.head.modules():
            if isinstance(m, torch.nn.Conv2d):
                m.weight.data *= 0.2

    def forward(self, image):
        found = self.net([image])[0]
        return torch.cat((found["boxes"], found["scores"].unsqueeze(1), found["labels"].unsqueeze(1).float()), 1)


def make(name):
    """Returns (module, example inputs, dynamic axes or None) for an entry."""
    if name == "lstm_tagger":
        return LstmTagger(), [torch.randint(0, 200, (2, 10))], None
    if name == "bigru_classifier":
        return BiGruClassifier(), [torch.rand(2, 9, 12) * 2 - 1], None
    if name == "llama_decoder":
        return LlamaDecoder(), [torch.randint(0, 256, (1, 12))], None
    if name == "sinusoidal_transformer":
        examples = [torch.randint(0, 300, (1, seq)) for seq in (16, 7, 24)]
        return SinusoidalTransformer(), examples, {"input": {1: "seq"}, "output": {1: "seq"}}
    if name == "swin":
        net = torchvision.models.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                                                 window_size=[4, 4], num_classes=10)
        return net, [torch.rand(1, 3, 32, 32) * 2 - 1], None
    if name == "ssdlite":
        return SsdLite(), [torch.rand(3, 320, 320), torch.rand(3, 320, 320) * 0.5], None
    raise SystemExit(f"unknown architecture '{name}'")


NAMES = "lstm_tagger,bigru_classifier,llama_decoder,sinusoidal_transformer,swin,ssdlite"


def export(name, out_dir, seed):
    folder = os.path.join(out_dir, name)
    settings = {"model": name, "seed": seed, "opset": OPSET, "format": FORMAT, "torch": torch.__version__}
    if is_cached(folder, settings):
        print(f"{folder}: cached")
        return
    torch.manual_seed(seed)
    net, examples, dynamic_axes = make(name)
    export_test_case(folder, settings, net, examples, OPSET, dynamic_axes)
    print(f"{folder}: exported")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--models", default=NAMES)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name in args.models.split(","):
        export(name, args.out_dir, args.seed)


if __name__ == "__main__":
    main()
