#!/usr/bin/python3
"""Exports NEE's model zoo to ONNX with random weights, each with one test data set
(input_0.pb, and output_0.pb computed by PyTorch).

  resnet18, resnet50, mobilenet_v2   torchvision architectures, 1x3x224x224
  bert_encoder                       token embeddings + positions, 4 TransformerEncoder
                                     layers, hidden 256, 4 heads, GELU, sequence 128

and the structures real models use beyond those four (issue 29's wider zoo):

  resnext50        grouped 3x3 convolutions (32 groups)
  mobilenet_v3     depthwise-separable blocks with squeeze-and-excitation, hard-swish
  efficientnet_b0  depthwise blocks with squeeze-and-excitation, SiLU
  shufflenet_v2    channel shuffle (reshape-transpose-reshape), channel split
  densenet121      dense concatenation
  googlenet        multi-branch (inception) blocks
  squeezenet       small-kernel squeeze/expand blocks with concatenation
  convnext_tiny    7x7 depthwise convolutions, LayerNorm over channels, GELU
  vit_small        vision transformer: patch embedding, 12 layers, hidden 384, 6 heads
  gpt_decoder      decoder-only transformer with a causal mask: hidden 256, 4 layers,
                   4 heads, sequence 64
  gpt_decoder_wide the same at hidden 512, 8 heads, sequence 96

and thirteen architectures written from their papers in paper_models.py (the group `papers`;
their small variants are described there): segformer, wav2vec, detr, mobilevit, levit, gmlp,
clip_text, espcn, yolo, ghostnet, poolformer, resmlp and hrnet.

Every model's input and output have a symbolic batch dim 0 ("batch"); the test data is
batch 1, and a bigger batch repeats it along dim 0 (nee-bench --models' batch-8 run).

--small exports reduced variants of the same architectures that export and run in
seconds (for the test suite): ResNet with one block per stage at 64x64, MobileNetV2 at
width 0.25 on 64x64, and a 1-layer encoder with hidden 64 over 16 tokens; the wider zoo's
CNNs at 64x64 with fewer or narrower blocks, the ViT at 32x32 with 2 layers, the decoders
with 1 layer of hidden 64 over 16 and 24 tokens.

A model is re-exported only when its folder lacks the files or was made with other
settings (recorded in zoo.json), so the full zoo is made once and then cached.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-onnx).
"""
import argparse
import json
import math
import os

import numpy as np
import torch
import torchvision
from onnx import numpy_helper

from paper_models import PAPER_MODELS, make_paper

OPSET = 13
# Recorded in zoo.json so exports of an older layout are re-made. 2: symbolic batch dim.
# 3: the transformers' layers have weights of their own.
ZOO_FORMAT = 3


def own_weights(stack):
    """Draws every layer of a torch TransformerEncoder afresh: it holds copies of the one
    layer it was given, which the ONNX export shares (Identity nodes), so a model of four
    layers held one layer's weights, onnxruntime's quantize_dynamic quantized only that
    layer's products, and every engine met one layer's weights in cache four times."""
    for layer in stack.layers:
        for module in layer.modules():
            if isinstance(module, torch.nn.MultiheadAttention):
                module._reset_parameters()
            elif isinstance(module, torch.nn.Linear):
                module.reset_parameters()


class BertStyleEncoder(torch.nn.Module):
    def __init__(self, vocab, hidden, heads, layers, seq):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, hidden)
        self.positions = torch.nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=4 * hidden, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        own_weights(self.encoder)
        self.norm = torch.nn.LayerNorm(hidden)

    def forward(self, ids):
        return self.norm(self.encoder(self.tokens(ids) + self.positions))


class GptDecoder(torch.nn.Module):
    """Token and position embeddings, pre-norm transformer layers under a causal mask (each
    token attends to itself and the tokens before it), a final LayerNorm and the logits."""

    def __init__(self, vocab, hidden, heads, layers, seq):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, hidden)
        self.positions = torch.nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=4 * hidden, dropout=0.0,
                                                 activation="gelu", batch_first=True, norm_first=True)
        self.layers = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        own_weights(self.layers)
        self.norm = torch.nn.LayerNorm(hidden)
        self.head = torch.nn.Linear(hidden, vocab, bias=False)
        self.register_buffer("causal", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, ids):
        return self.head(self.norm(self.layers(self.tokens(ids) + self.positions, mask=self.causal)))


class AudioCnn(torch.nn.Module):
    """A raw-waveform classifier in the style of wav2vec 2.0's feature encoder: a strided
    Conv1d and GELU, strided Conv1d, BatchNorm1d and ReLU blocks, a max pool, a dilated
    grouped Conv1d, the mean over time and a linear head."""

    def __init__(self, width, classes):
        super().__init__()
        layers = [torch.nn.Conv1d(1, width, 10, stride=5), torch.nn.GELU()]
        for _ in range(4):
            layers += [torch.nn.Conv1d(width, width, 3, stride=2, padding=1), torch.nn.BatchNorm1d(width),
                       torch.nn.ReLU()]
        layers += [torch.nn.MaxPool1d(3, stride=2, padding=1),
                   torch.nn.Conv1d(width, width, 3, padding=2, dilation=2, groups=4), torch.nn.ReLU()]
        self.features = torch.nn.Sequential(*layers)
        self.head = torch.nn.Linear(width, classes)

    def forward(self, wave):
        return self.head(self.features(wave).mean(-1))


class SpeechRnn(torch.nn.Module):
    """An acoustic model in the style of DeepSpeech 2's recurrent layers: log-mel frames
    through a bidirectional LSTM, then a GRU, and a linear head on every frame."""

    def __init__(self, features, hidden, classes):
        super().__init__()
        self.lstm = torch.nn.LSTM(features, hidden, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(2 * hidden, hidden, batch_first=True)
        self.head = torch.nn.Linear(hidden, classes)

    def forward(self, frames):
        return self.head(self.gru(self.lstm(frames)[0])[0])


class WaveNet(torch.nn.Module):
    """WaveNet's stack: dilated causal 1-D convs (an explicit Pad before each) whose two
    halves gate each other (tanh times sigmoid), residual and skip 1x1 convs, and a head
    of 1x1 convs."""

    def __init__(self, width, layers, classes):
        super().__init__()
        self.dilations = [2 ** (i % 8) for i in range(layers)]
        self.input = torch.nn.Conv1d(1, width, 1)
        self.filters = torch.nn.ModuleList(torch.nn.Conv1d(width, 2 * width, 2, dilation=d) for d in self.dilations)
        self.residual = torch.nn.ModuleList(torch.nn.Conv1d(width, width, 1) for _ in self.dilations)
        self.skip = torch.nn.ModuleList(torch.nn.Conv1d(width, width, 1) for _ in self.dilations)
        self.head = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Conv1d(width, width, 1), torch.nn.ReLU(),
                                        torch.nn.Conv1d(width, classes, 1))

    def forward(self, wave):
        x, skip = self.input(wave), 0
        for d, f, r, s in zip(self.dilations, self.filters, self.residual, self.skip):
            h = f(torch.nn.functional.pad(x, (d, 0)))
            half = h.shape[1] // 2
            g = torch.tanh(h[:, :half]) * torch.sigmoid(h[:, half:])
            x, skip = x + r(g), skip + s(g)
        return self.head(skip)


class DenoisingBlock(torch.nn.Module):
    """A DDPM residual block: GroupNorm, SiLU and a 3x3 conv twice, the time embedding
    added between, a 1x1 conv on the skip where the width changes."""

    def __init__(self, cin, cout, groups, time_width):
        super().__init__()
        self.norm1, self.conv1 = torch.nn.GroupNorm(groups, cin), torch.nn.Conv2d(cin, cout, 3, padding=1)
        self.time = torch.nn.Linear(time_width, cout)
        self.norm2, self.conv2 = torch.nn.GroupNorm(groups, cout), torch.nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = torch.nn.Conv2d(cin, cout, 1) if cin != cout else torch.nn.Identity()

    def forward(self, x, t):
        silu = torch.nn.functional.silu
        h = self.conv1(silu(self.norm1(x))) + self.time(t)[:, :, None, None]
        return self.skip(x) + self.conv2(silu(self.norm2(h)))


class DenoisingUNet(torch.nn.Module):
    """A DDPM-style denoiser at one timestep: residual blocks over two downsamplings,
    self-attention at the lowest resolution, nearest upsampling and skip concatenations."""

    def __init__(self, width, groups, timestep=500.0):
        super().__init__()
        c, t = width, 4 * width
        half = c // 2
        angles = timestep * torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
        self.register_buffer("angles", torch.cat([angles.sin(), angles.cos()])[None])
        self.time = torch.nn.Sequential(torch.nn.Linear(c, t), torch.nn.SiLU(), torch.nn.Linear(t, t))
        self.input = torch.nn.Conv2d(3, c, 3, padding=1)
        self.down1, self.pool1 = DenoisingBlock(c, c, groups, t), torch.nn.Conv2d(c, c, 3, 2, 1)
        self.down2, self.pool2 = DenoisingBlock(c, 2 * c, groups, t), torch.nn.Conv2d(2 * c, 2 * c, 3, 2, 1)
        self.mid = DenoisingBlock(2 * c, 2 * c, groups, t)
        self.attention_norm = torch.nn.GroupNorm(groups, 2 * c)
        self.attention = torch.nn.MultiheadAttention(2 * c, 2, batch_first=True)
        self.up2, self.up2_conv = DenoisingBlock(4 * c, 2 * c, groups, t), torch.nn.Conv2d(2 * c, 2 * c, 3, padding=1)
        self.up1, self.up1_conv = DenoisingBlock(3 * c, c, groups, t), torch.nn.Conv2d(2 * c, 2 * c, 3, padding=1)
        self.output = torch.nn.Sequential(torch.nn.GroupNorm(groups, c), torch.nn.SiLU(),
                                          torch.nn.Conv2d(c, 3, 3, padding=1))

    def forward(self, x):
        up = torch.nn.functional.interpolate
        t = self.time(self.angles)
        h1 = self.down1(self.input(x), t)
        h2 = self.down2(self.pool1(h1), t)
        h = self.mid(self.pool2(h2), t)
        n, c, height, width = h.shape
        a = self.attention_norm(h).flatten(2).transpose(1, 2)
        h = h + self.attention(a, a, a, need_weights=False)[0].transpose(1, 2).reshape(n, c, height, width)
        h = self.up2(torch.cat([self.up2_conv(up(h, scale_factor=2.0, mode="nearest")), h2], 1), t)
        h = self.up1(torch.cat([self.up1_conv(up(h, scale_factor=2.0, mode="nearest")), h1], 1), t)
        return self.output(h)


class SeparatorBlock(torch.nn.Module):
    """A Conv-TasNet separator block: a 1x1 conv, PReLU and a global layer norm
    (GroupNorm of one group), a dilated depthwise 1-D conv, PReLU and norm again, then 1x1
    convs to the residual and to the skip sum."""

    def __init__(self, width, hidden, skip, dilation):
        super().__init__()
        self.expand, self.act1, self.norm1 = torch.nn.Conv1d(width, hidden, 1), torch.nn.PReLU(), \
            torch.nn.GroupNorm(1, hidden)
        self.depthwise = torch.nn.Conv1d(hidden, hidden, 3, padding=dilation, dilation=dilation, groups=hidden)
        self.act2, self.norm2 = torch.nn.PReLU(), torch.nn.GroupNorm(1, hidden)
        self.residual, self.skip = torch.nn.Conv1d(hidden, width, 1), torch.nn.Conv1d(hidden, skip, 1)
        for norm in (self.norm1, self.norm2):  # fresh norms scale by 1 and shift by 0
            torch.nn.init.uniform_(norm.weight, 0.5, 1.5)
            torch.nn.init.uniform_(norm.bias, -0.2, 0.2)

    def forward(self, x):
        h = self.norm2(self.act2(self.depthwise(self.norm1(self.act1(self.expand(x))))))
        return x + self.residual(h), self.skip(h)


class ConvTasNet(torch.nn.Module):
    """Conv-TasNet's speech separation: a strided 1-D conv encoder, a separator of dilated
    blocks (SeparatorBlock) whose skip sum makes one sigmoid mask per speaker, and a
    transposed 1-D conv decoding each masked encoding back to a waveform."""

    def __init__(self, filters, width, hidden, skip, blocks, speakers=2, window=16):
        super().__init__()
        self.speakers, self.filters = speakers, filters
        self.encoder = torch.nn.Conv1d(1, filters, window, window // 2, bias=False)
        self.norm, self.bottleneck = torch.nn.GroupNorm(1, filters), torch.nn.Conv1d(filters, width, 1)
        self.blocks = torch.nn.ModuleList(SeparatorBlock(width, hidden, skip, 2 ** i) for i in range(blocks))
        self.act, self.masks = torch.nn.PReLU(), torch.nn.Conv1d(skip, filters * speakers, 1)
        self.decoder = torch.nn.ConvTranspose1d(filters, 1, window, window // 2, bias=False)

    def forward(self, wave):
        encoded = torch.relu(self.encoder(wave))
        x, skips = self.bottleneck(self.norm(encoded)), 0
        for block in self.blocks:
            x, s = block(x)
            skips = skips + s
        masks = torch.sigmoid(self.masks(self.act(skips)))
        f = self.filters
        return torch.cat([self.decoder(encoded * masks[:, k * f:(k + 1) * f]) for k in range(self.speakers)], 1)


def make_wider(name, small):
    """The wider zoo's entries, as make() returns them."""
    tv = torchvision.models
    image = torch.rand(1, 3, 64, 64) * 2 - 1 if small else torch.rand(1, 3, 224, 224) * 2 - 1
    if name == "resnext50":
        if small:
            return tv.resnet.ResNet(tv.resnet.Bottleneck, [1, 1, 1, 1], groups=8, width_per_group=8,
                                    num_classes=10), image
        return tv.resnext50_32x4d(weights=None), image
    if name == "mobilenet_v3":
        if small:
            return tv.mobilenet_v3_small(weights=None, width_mult=0.5, num_classes=10), image
        return tv.mobilenet_v3_large(weights=None), image
    if name == "efficientnet_b0":
        return tv.efficientnet_b0(weights=None, num_classes=10 if small else 1000), image
    if name == "shufflenet_v2":
        if small:
            return tv.shufflenet_v2_x0_5(weights=None, num_classes=10), image
        return tv.shufflenet_v2_x1_0(weights=None), image
    if name == "densenet121":
        if small:
            return tv.DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16, num_classes=10), image
        return tv.densenet121(weights=None), image
    if name == "googlenet":
        net = tv.googlenet(weights=None, aux_logits=False, init_weights=True, num_classes=10 if small else 1000)
        return net, image
    if name == "squeezenet":
        return tv.squeezenet1_1(weights=None, num_classes=10 if small else 1000), image
    if name == "convnext_tiny":
        if small:
            config = tv.convnext.CNBlockConfig
            blocks = [config(24, 48, 1), config(48, 96, 1), config(96, 192, 1), config(192, None, 1)]
            return tv.convnext.ConvNeXt(blocks, num_classes=10), image
        return tv.convnext_tiny(weights=None), image
    if name == "vit_small":
        if small:
            net = tv.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=64,
                                       mlp_dim=128, num_classes=10)
            image = torch.rand(1, 3, 32, 32) * 2 - 1
        else:
            net = tv.VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=6, hidden_dim=384,
                                       mlp_dim=1536)
        # torchvision starts the classifier at zero, which would make every output 0.
        torch.nn.init.normal_(net.heads.head.weight, std=0.1)
        return net, image
    if name in ("r3d_18", "r2plus1d_18"):
        # Video CNNs (3-D convs) on a clip of 16 frames of 112x112, as torchvision's are trained.
        video = tv.video.resnet
        if small:
            block = video.Conv3DSimple if name == "r3d_18" else video.Conv2Plus1D
            stem = video.BasicStem if name == "r3d_18" else video.R2Plus1dStem
            net = video.VideoResNet(video.BasicBlock, [block] * 4, [1, 1, 1, 1], stem, num_classes=10)
            return net, torch.rand(1, 3, 4, 32, 32) * 2 - 1
        return getattr(tv.video, name)(weights=None), torch.rand(1, 3, 16, 112, 112) * 2 - 1
    if name == "s3d":
        # Separable 3-D convs, 3-D max pools and inception branches, on 16 frames of 224x224.
        if small:
            net = tv.video.S3D(num_classes=10)
            net.avgpool = torch.nn.AvgPool3d((1, 2, 2))  # the full net's (2, 7, 7) covers 16x224x224's features
            return net, torch.rand(1, 3, 8, 64, 64) * 2 - 1
        return tv.video.s3d(weights=None), torch.rand(1, 3, 16, 224, 224) * 2 - 1
    if name == "audio_cnn":
        # One second of 16 kHz audio (a quarter for the small variant).
        if small:
            return AudioCnn(32, 10), torch.rand(1, 1, 4000) * 2 - 1
        return AudioCnn(256, 35), torch.rand(1, 1, 16000) * 2 - 1
    if name == "speech_rnn":
        # One second of 80 log-mel features every 10 ms (20 frames of 16 for the small variant).
        if small:
            return SpeechRnn(16, 32, 10), torch.rand(1, 20, 16) * 2 - 1
        return SpeechRnn(80, 256, 32), torch.rand(1, 100, 80) * 2 - 1
    if name == "wavenet":
        # A quarter second of 16 kHz audio (400 samples for the small variant).
        if small:
            return WaveNet(16, 4, 8), torch.rand(1, 1, 400) * 2 - 1
        return WaveNet(64, 16, 256), torch.rand(1, 1, 4000) * 2 - 1
    if name == "denoising_unet":
        # The small variant's 48-channel blocks norm groups of 6 channels, which straddle blocks of 16.
        if small:
            return DenoisingUNet(16, 8), torch.rand(1, 3, 16, 16) * 2 - 1
        return DenoisingUNet(64, 32), torch.rand(1, 3, 64, 64) * 2 - 1
    if name == "conv_tasnet":
        # Half a second of 16 kHz audio (2000 samples and 3 blocks for the small variant).
        if small:
            return ConvTasNet(32, 16, 32, 16, 3), torch.rand(1, 1, 2000) * 2 - 1
        return ConvTasNet(256, 128, 256, 128, 8), torch.rand(1, 1, 8000) * 2 - 1
    if name in ("gpt_decoder", "gpt_decoder_wide"):
        wide = name == "gpt_decoder_wide"
        vocab, hidden, heads, layers, seq = (500, 64, 2, 1, 24 if wide else 16) if small else \
            (8000, 512, 8, 4, 96) if wide else (8000, 256, 4, 4, 64)
        return GptDecoder(vocab, hidden, heads, layers, seq), torch.randint(0, vocab, (1, seq))
    if name in PAPER_MODELS:
        return make_paper(name, small)
    raise SystemExit(f"unknown zoo model '{name}'")


WIDER_ZOO = ["resnext50", "mobilenet_v3", "efficientnet_b0", "shufflenet_v2", "densenet121", "googlenet",
             "squeezenet", "convnext_tiny", "vit_small", "gpt_decoder", "gpt_decoder_wide", "r3d_18", "r2plus1d_18",
             "s3d", "audio_cnn", "speech_rnn", "wavenet", "denoising_unet", "conv_tasnet"]


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
    return make_wider(name, small)


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
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,bert_encoder",
                        help=f"comma-separated names; 'wider' for the wider zoo's {len(WIDER_ZOO)}, 'papers' for "
                             f"paper_models.py's {len(PAPER_MODELS)}")
    parser.add_argument("--small", action="store_true", help="the reduced variants used by the tests")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    groups = {"wider": WIDER_ZOO, "papers": PAPER_MODELS}
    names = [n for entry in args.models.split(",") for n in groups.get(entry, [entry])]
    for name in names:
        export(name, args.out_dir, args.small, args.seed)


if __name__ == "__main__":
    main()
