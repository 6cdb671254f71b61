#!/usr/bin/python3
"""Thirteen architectures written from their papers in PyTorch (none is in torchvision), with random
weights: make_zoo.py's `papers` group (make_zoo.py --models papers). Each has one input and one output:

  segformer   SegFormer-B0, 256x256: overlapping patch convs, attention over strided-conv-reduced keys and
              values, a 3x3 depthwise conv inside each MLP, an all-MLP decoder (bilinear resize, concat, 1x1)
  wav2vec     wav2vec 2.0-style encoder, 16000 samples: 7 strided Conv1d, GroupNorm, grouped positional conv,
              post-norm transformer layers
  detr        DETR, 256x256: ResNet-18 trunk, sine positions from the feature map (CumSum), 2+2 layers, 50 queries
  mobilevit   MobileViT-XS, 256x256: inverted residuals, 2x2 patches unfolded and folded by reshape/transpose
  levit       LeViT-128S, 224x224: Linear+BatchNorm1d, Hardswish, gathered attention biases, shrink attention
  gmlp        gMLP-S-style, 224x224: spatial gating units (a Linear over the 196 tokens through transposes)
  clip_text   CLIP text encoder, 77 tokens: causal pre-norm layers, QuickGELU, end-of-text row picked by ArgMax
  espcn       ESPCN x4 super-resolution, 128x128: tanh convs, PixelShuffle (DepthToSpace)
  yolo        YOLOv5s-style, 320x320: 6x6 stem, C3 blocks, SPPF, PANet neck, 3 heads reshaped into one [N, 85]
  ghostnet    GhostNet 1.0, 224x224: ghost modules (1x1 conv + depthwise conv, concat, slice), SE, hard sigmoid
  poolformer  PoolFormer-S12, 224x224: AvgPool minus input as token mixer, GroupNorm(1, C), layer scale
  resmlp      ResMLP-S12, 224x224: Affine norms, a Linear over the 196 tokens through transposes, layer scale
  hrnet       HRNet-style pose net, 256x192: 2, 3 and 4 parallel branches, exchange units (upsample, strided convs)

make_paper(name, small) returns (module, example input) as make_zoo.make_wider does; each small variant's
settings are noted beside its code there.
"""
import math

import torch
import torchvision
from torch import nn
from torch.nn import functional as F

PAPER_MODELS = ["segformer", "wav2vec", "detr", "mobilevit", "levit", "gmlp", "clip_text", "espcn", "yolo",
                "ghostnet", "poolformer", "resmlp", "hrnet"]


def conv_bn(cin, cout, kernel, stride=1, groups=1, act=None, padding=None):
    """A bias-free Conv2d (padding kernel // 2 unless given) and BatchNorm2d, then a fresh `act()` if given."""
    padding = kernel // 2 if padding is None else padding
    conv = nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False)
    # PyTorch's default draw shrinks activations 2-3x a layer, and randomized BatchNorm statistics do not
    # restore them: deep nets' outputs would hardly depend on their input. He's draw keeps their scale.
    nn.init.kaiming_normal_(conv.weight, nonlinearity="linear" if act is None else "relu")
    layers = [conv, nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, *([act()] if act is not None else []))


class Residual(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return x + self.body(x)


class Attention(nn.Module):
    """Multi-head scaled dot-product attention over token rows [B, N, C]: queries from x, keys and values
    from `context` (x itself unless given), an additive mask on the scores if given."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q, self.kv, self.out = nn.Linear(dim, dim), nn.Linear(dim, 2 * dim), nn.Linear(dim, dim)

    def forward(self, x, context=None, mask=None):
        context = x if context is None else context
        b = x.shape[0]
        q = self.q(x).reshape(b, -1, self.heads, self.head_dim).transpose(1, 2)
        kv = self.kv(context).reshape(b, -1, 2, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        scores = q @ kv[0].transpose(-2, -1) * self.head_dim ** -0.5
        if mask is not None:
            scores = scores + mask
        out = (scores.softmax(-1) @ kv[1]).transpose(1, 2).reshape(b, -1, self.heads * self.head_dim)
        return self.out(out)


class PreNormLayer(nn.Module):
    """A pre-norm transformer layer: x + attention(LN(x)), then x + MLP(LN(x)) with `act` between its Linears."""

    def __init__(self, dim, heads, hidden, act):
        super().__init__()
        self.norm1, self.attention = nn.LayerNorm(dim), Attention(dim, heads)
        self.norm2, self.mlp = nn.LayerNorm(dim), nn.Sequential(nn.Linear(dim, hidden), act(), nn.Linear(hidden, dim))

    def forward(self, x, mask=None):
        x = x + self.attention(self.norm1(x), mask=mask)
        return x + self.mlp(self.norm2(x))


class PostNormLayer(nn.Module):
    """A post-norm transformer layer (wav2vec 2.0's, BERT's): LN(x + attention(x)), then LN(x + MLP(x))."""

    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.attention, self.norm1 = Attention(dim, heads), nn.LayerNorm(dim)
        self.mlp, self.norm2 = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)), \
            nn.LayerNorm(dim)

    def forward(self, x):
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.mlp(x))


class SegFormerBlock(nn.Module):
    """Mix Transformer block: attention whose keys and values come from the token grid reduced by a conv of
    stride `reduction` and a LayerNorm, then the Mix-FFN (Linear, 3x3 depthwise conv on the grid, GELU, Linear)."""

    def __init__(self, dim, heads, reduction):
        super().__init__()
        self.norm1, self.attention = nn.LayerNorm(dim), Attention(dim, heads)
        self.reduce = nn.Conv2d(dim, dim, reduction, reduction) if reduction > 1 else None
        self.reduce_norm = nn.LayerNorm(dim) if reduction > 1 else None
        self.norm2, self.fc1 = nn.LayerNorm(dim), nn.Linear(dim, 4 * dim)
        self.depthwise = nn.Conv2d(4 * dim, 4 * dim, 3, padding=1, groups=4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x, h, w):
        b, _, c = x.shape
        y = self.norm1(x)
        context = y
        if self.reduce is not None:
            context = self.reduce_norm(self.reduce(y.transpose(1, 2).reshape(b, c, h, w)).flatten(2).transpose(1, 2))
        x = x + self.attention(y, context)
        y = self.fc1(self.norm2(x))
        y = self.depthwise(y.transpose(1, 2).reshape(b, 4 * c, h, w)).flatten(2).transpose(1, 2)
        return x + self.fc2(F.gelu(y))


class SegFormer(nn.Module):
    """The Mix Transformer encoder (a 7x7 stride-4 patch conv, then 3x3 stride-2 ones, each with a LayerNorm)
    and the all-MLP decoder: each stage's tokens through a Linear, resized to the first stage's grid, concatenated
    (last stage first), a 1x1 conv with BatchNorm and ReLU, and a 1x1 classifier."""

    def __init__(self, dims, heads, reductions, depth, decoder_dim, classes):
        super().__init__()
        cins = (3,) + tuple(dims[:-1])
        self.embeds = nn.ModuleList(nn.Conv2d(cin, c, 7 if i == 0 else 3, 4 if i == 0 else 2, 3 if i == 0 else 1)
                                    for i, (cin, c) in enumerate(zip(cins, dims)))
        self.embed_norms = nn.ModuleList(nn.LayerNorm(c) for c in dims)
        self.stages = nn.ModuleList(nn.ModuleList(SegFormerBlock(c, n, r) for _ in range(depth))
                                    for c, n, r in zip(dims, heads, reductions))
        self.norms = nn.ModuleList(nn.LayerNorm(c) for c in dims)
        self.project = nn.ModuleList(nn.Linear(c, decoder_dim) for c in dims)
        self.fuse = conv_bn(4 * decoder_dim, decoder_dim, 1, act=nn.ReLU)
        self.classify = nn.Conv2d(decoder_dim, classes, 1)

    def forward(self, x):
        decoded = []
        for embed, embed_norm, blocks, norm, project in zip(self.embeds, self.embed_norms, self.stages, self.norms,
                                                            self.project):
            x = embed(x)
            b, c, h, w = x.shape
            tokens = embed_norm(x.flatten(2).transpose(1, 2))
            for block in blocks:
                tokens = block(tokens, h, w)
            tokens = norm(tokens)
            x = tokens.transpose(1, 2).reshape(b, c, h, w)
            y = project(tokens).transpose(1, 2).reshape(b, -1, h, w)
            if decoded:
                y = F.interpolate(y, size=decoded[0].shape[2:], mode="bilinear", align_corners=False)
            decoded.append(y)
        return self.classify(self.fuse(torch.cat(decoded[::-1], 1)))


class Wav2Vec(nn.Module):
    """wav2vec 2.0's encoder: the conv feature encoder (a kernel-10 stride-5 Conv1d, GroupNorm with a group per
    channel, GELU, then six strided Conv1d and GELU), LayerNorm and a Linear to the model width, the positional
    conv (grouped, its GELU output added), a LayerNorm and post-norm transformer layers."""

    def __init__(self, width, dim, heads, hidden, layers, position_kernel, position_groups):
        super().__init__()
        convs = [nn.Conv1d(1, width, 10, 5, bias=False), nn.GroupNorm(width, width), nn.GELU()]
        for kernel in (3, 3, 3, 3, 2, 2):
            convs += [nn.Conv1d(width, width, kernel, 2, bias=False), nn.GELU()]
        self.features = nn.Sequential(*convs)
        self.feature_norm, self.project = nn.LayerNorm(width), nn.Linear(width, dim)
        self.position = nn.Conv1d(dim, dim, position_kernel, padding=position_kernel // 2, groups=position_groups)
        self.norm = nn.LayerNorm(dim)
        self.layers = nn.Sequential(*(PostNormLayer(dim, heads, hidden) for _ in range(layers)))

    def forward(self, wave):
        x = self.project(self.feature_norm(self.features(wave).transpose(1, 2)))
        x = x + F.gelu(self.position(x.transpose(1, 2))).transpose(1, 2)
        return self.layers(self.norm(x))


class DetrEncoderLayer(nn.Module):
    """DETR's post-norm encoder layer: the positions added to the queries and keys, not to the values."""

    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.attention, self.norm1 = nn.MultiheadAttention(dim, heads), nn.LayerNorm(dim)
        self.mlp, self.norm2 = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim)), \
            nn.LayerNorm(dim)

    def forward(self, x, positions):
        q = x + positions
        x = self.norm1(x + self.attention(q, q, x, need_weights=False)[0])
        return self.norm2(x + self.mlp(x))


class DetrDecoderLayer(nn.Module):
    """DETR's post-norm decoder layer: self-attention among the object queries, cross-attention to the encoder's
    memory (positions on its keys), MLP."""

    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.self_attention, self.norm1 = nn.MultiheadAttention(dim, heads), nn.LayerNorm(dim)
        self.cross_attention, self.norm2 = nn.MultiheadAttention(dim, heads), nn.LayerNorm(dim)
        self.mlp, self.norm3 = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim)), \
            nn.LayerNorm(dim)

    def forward(self, x, queries, memory, positions):
        q = x + queries
        x = self.norm1(x + self.self_attention(q, q, x, need_weights=False)[0])
        x = self.norm2(x + self.cross_attention(x + queries, memory + positions, memory, need_weights=False)[0])
        return self.norm3(x + self.mlp(x))


class Detr(nn.Module):
    """DETR: a CNN trunk, a 1x1 projection, the normalized 2-D sine positions of the feature map, a transformer
    (sequence-first, as DETR's is) whose decoder starts from zeros under learned object queries, and the class
    logits and the sigmoid boxes of each query concatenated on the last axis."""

    def __init__(self, trunk, channels, dim, heads, hidden, layers, queries, classes):
        super().__init__()
        self.trunk, self.input_proj = trunk, nn.Conv2d(channels, dim, 1)
        self.encoder = nn.ModuleList(DetrEncoderLayer(dim, heads, hidden) for _ in range(layers))
        self.decoder = nn.ModuleList(DetrDecoderLayer(dim, heads, hidden) for _ in range(layers))
        self.decoder_norm = nn.LayerNorm(dim)
        self.queries = nn.Parameter(torch.randn(queries, dim))
        half = dim // 2
        self.register_buffer("frequencies", 10000.0 ** (2 * (torch.arange(half) // 2) / half))
        self.classify = nn.Linear(dim, classes)
        self.box = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 4))

    def positions(self, feature):
        """[B, dim, H, W]: each pixel's row and column, counted by CumSum over a plane of ones as DETR counts
        unmasked pixels, scaled to (0, 2 pi], over the frequencies, sines and cosines interleaved, rows first."""
        ones = torch.ones_like(feature[:, 0])
        rows, columns = ones.cumsum(1), ones.cumsum(2)
        rows = rows / (rows[:, -1:, :] + 1e-6) * 2 * math.pi
        columns = columns / (columns[:, :, -1:] + 1e-6) * 2 * math.pi
        encoded = []
        for t in (rows[..., None] / self.frequencies, columns[..., None] / self.frequencies):
            encoded.append(torch.stack((t[..., 0::2].sin(), t[..., 1::2].cos()), 4).flatten(3))
        return torch.cat(encoded, 3).permute(0, 3, 1, 2)

    def forward(self, image):
        feature = self.input_proj(self.trunk(image))
        positions = self.positions(feature).flatten(2).permute(2, 0, 1)
        memory = feature.flatten(2).permute(2, 0, 1)
        for layer in self.encoder:
            memory = layer(memory, positions)
        queries = self.queries[:, None].expand(-1, memory.shape[1], -1)
        x = torch.zeros_like(queries)
        for layer in self.decoder:
            x = layer(x, queries, memory, positions)
        x = self.decoder_norm(x).transpose(0, 1)
        return torch.cat((self.classify(x), self.box(x).sigmoid()), -1)


class InvertedResidual(nn.Module):
    """MobileNetV2's block as MobileViT uses it (SiLU): 1x1 expansion, 3x3 depthwise conv, 1x1 projection, each
    with BatchNorm; the input added where the shape holds."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.residual = stride == 1 and cin == cout
        self.body = nn.Sequential(conv_bn(cin, hidden, 1, act=nn.SiLU),
                                  conv_bn(hidden, hidden, 3, stride, groups=hidden, act=nn.SiLU),
                                  conv_bn(hidden, cout, 1))

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


class MobileVitBlock(nn.Module):
    """MobileViT block: local 3x3 and 1x1 convs, the grid unfolded into 2x2 patches (one sequence over the patches
    per pixel position of a patch), transformer layers and a LayerNorm, folded back, a 1x1 conv, concatenated
    with the block's input and fused by a 3x3 conv."""

    def __init__(self, channels, dim, depth, heads, patch=2):
        super().__init__()
        self.patch = patch
        self.local = nn.Sequential(conv_bn(channels, channels, 3, act=nn.SiLU), nn.Conv2d(channels, dim, 1, bias=False))
        self.layers = nn.Sequential(*(PreNormLayer(dim, heads, 2 * dim, nn.SiLU) for _ in range(depth)))
        self.norm = nn.LayerNorm(dim)
        self.project = conv_bn(dim, channels, 1, act=nn.SiLU)
        self.fuse = conv_bn(2 * channels, channels, 3, act=nn.SiLU)

    def forward(self, x):
        y = self.local(x)
        b, d, h, w = y.shape
        p = self.patch
        rows, columns = h // p, w // p
        # [B, d, H, W] -> [B d rows, columns, p, p] -> [B, p p, rows columns, d] -> [B p p, patches, d]
        y = y.reshape(b * d * rows, p, columns, p).transpose(1, 2)
        y = y.reshape(b, d, rows * columns, p * p).transpose(1, 3).reshape(b * p * p, rows * columns, d)
        y = self.norm(self.layers(y))
        y = y.reshape(b, p * p, rows * columns, d).transpose(1, 3)
        y = y.reshape(b * d * rows, columns, p, p).transpose(1, 2).reshape(b, d, h, w)
        return self.fuse(torch.cat((x, self.project(y)), 1))


class MobileVit(nn.Module):
    """MobileViT: a 3x3 stride-2 stem, inverted residuals, three stride-2 inverted residuals each followed by a
    MobileViT block, a 1x1 conv, the mean over the grid and a linear head."""

    def __init__(self, channels, dims, depths, heads, layer2_blocks, head, classes):
        super().__init__()
        c0, c1, c2, c3, c4, c5 = channels
        layers = [conv_bn(3, c0, 3, 2, act=nn.SiLU), InvertedResidual(c0, c1, 1, 4), InvertedResidual(c1, c2, 2, 4)]
        layers += [InvertedResidual(c2, c2, 1, 4) for _ in range(layer2_blocks - 1)]
        for cin, c, dim, depth in zip((c2, c3, c4), (c3, c4, c5), dims, depths):
            layers += [InvertedResidual(cin, c, 2, 4), MobileVitBlock(c, dim, depth, heads)]
        layers.append(conv_bn(c5, head, 1, act=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(head, classes)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


class LinearBn(nn.Module):
    """LeViT's Linear (no bias) and BatchNorm1d over its output channels, on token rows [B, N, C]."""

    def __init__(self, cin, cout):
        super().__init__()
        self.linear, self.norm = nn.Linear(cin, cout, bias=False), nn.BatchNorm1d(cout)
        nn.init.kaiming_normal_(self.linear.weight, nonlinearity="linear")  # as conv_bn, for the same reason

    def forward(self, x):
        y = self.linear(x)
        return self.norm(y.flatten(0, 1)).reshape(y.shape)


def offset_index(keys, stride):
    """LeViT's attention bias index: for each query point (every stride-th point of a keys x keys grid) and each
    key point, the number of their offset (|dy|, |dx|) among the distinct offsets; also their count."""
    queries = (keys - 1) // stride + 1
    offsets, index = {}, []
    for qy in range(queries):
        for qx in range(queries):
            for ky in range(keys):
                for kx in range(keys):
                    index.append(offsets.setdefault((abs(qy * stride - ky), abs(qx * stride - kx)), len(offsets)))
    return len(offsets), torch.tensor(index).reshape(queries * queries, keys * keys)


class LevitAttention(nn.Module):
    """LeViT's attention: keys of `key_dim` per head, values `ratio` times as wide, a learned bias per head and
    offset (gathered from a table) added to the scores, Hardswish before the output LinearBn. With stride 2
    (shrink attention) the queries come from every other point of the grid and the width changes."""

    def __init__(self, cin, cout, heads, key_dim, ratio, resolution, stride):
        super().__init__()
        self.heads, self.key_dim, self.value_dim = heads, key_dim, ratio * key_dim
        self.resolution, self.stride = resolution, stride
        if stride == 1:
            self.qkv = LinearBn(cin, heads * (2 * key_dim + self.value_dim))
        else:
            self.q, self.kv = LinearBn(cin, heads * key_dim), LinearBn(cin, heads * (key_dim + self.value_dim))
        count, index = offset_index(resolution, stride)
        # LeViT starts the biases at zero, which would leave them untested.
        self.biases = nn.Parameter(torch.randn(heads, count) * 0.5)
        self.register_buffer("bias_index", index)
        self.project = nn.Sequential(nn.Hardswish(), LinearBn(heads * self.value_dim, cout))

    def forward(self, x):
        b, k, v = x.shape[0], self.key_dim, self.value_dim
        if self.stride == 1:
            q, key, value = self.qkv(x).reshape(b, -1, self.heads, 2 * k + v).split([k, k, v], 3)
        else:
            key, value = self.kv(x).reshape(b, -1, self.heads, k + v).split([k, v], 3)
            grid = x.reshape(b, self.resolution, self.resolution, -1)[:, ::self.stride, ::self.stride]
            q = self.q(grid.reshape(b, -1, x.shape[2])).reshape(b, -1, self.heads, k)
        q, key, value = q.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
        scores = q @ key.transpose(-2, -1) * k ** -0.5 + self.biases[:, self.bias_index]
        out = (scores.softmax(-1) @ value).transpose(1, 2).reshape(b, -1, self.heads * v)
        return self.project(out)


def levit_mlp(dim):
    return Residual(nn.Sequential(LinearBn(dim, 2 * dim), nn.Hardswish(), LinearBn(2 * dim, dim)))


class Levit(nn.Module):
    """LeViT: four 3x3 stride-2 conv+BatchNorm with Hardswish between, the 16x smaller grid as tokens, stages of
    residual attention and MLP blocks joined by shrink attention (with an MLP after), the mean over the tokens and
    a BatchNorm1d+Linear head."""

    def __init__(self, dims, heads, depths, key_dim, resolution, classes):
        super().__init__()
        d = dims[0]
        self.stem = nn.Sequential(conv_bn(3, d // 8, 3, 2, act=nn.Hardswish),
                                  conv_bn(d // 8, d // 4, 3, 2, act=nn.Hardswish),
                                  conv_bn(d // 4, d // 2, 3, 2, act=nn.Hardswish), conv_bn(d // 2, d, 3, 2))
        blocks = []
        for i, (dim, h, depth) in enumerate(zip(dims, heads, depths)):
            if i > 0:
                blocks += [LevitAttention(dims[i - 1], dim, dims[i - 1] // key_dim, key_dim, 4, resolution, 2),
                           levit_mlp(dim)]
                resolution = (resolution - 1) // 2 + 1
            for _ in range(depth):
                blocks += [Residual(LevitAttention(dim, dim, h, key_dim, 2, resolution, 1)), levit_mlp(dim)]
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Sequential(nn.BatchNorm1d(dims[-1]), nn.Linear(dims[-1], classes))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x).flatten(2).transpose(1, 2)).mean(1))


class GmlpBlock(nn.Module):
    """gMLP block: LayerNorm, Linear, GELU, the spatial gating unit (one half times the other half after a
    LayerNorm and a Linear across the tokens), Linear, residual."""

    def __init__(self, dim, hidden, tokens):
        super().__init__()
        self.norm, self.expand = nn.LayerNorm(dim), nn.Linear(dim, hidden)
        self.gate_norm, self.spatial = nn.LayerNorm(hidden // 2), nn.Linear(tokens, tokens)
        self.shrink = nn.Linear(hidden // 2, dim)
        # The paper's bias of 1 makes the gate start near identity; its near-zero weights would hide the token
        # mixing from the test, so they keep Linear's default.
        nn.init.ones_(self.spatial.bias)

    def forward(self, x):
        u, v = F.gelu(self.expand(self.norm(x))).chunk(2, -1)
        v = self.spatial(self.gate_norm(v).transpose(1, 2)).transpose(1, 2)
        return x + self.shrink(u * v)


class Gmlp(nn.Module):
    def __init__(self, image, patch, dim, hidden, depth, classes):
        super().__init__()
        self.patches = nn.Conv2d(3, dim, patch, patch)
        self.blocks = nn.Sequential(*(GmlpBlock(dim, hidden, (image // patch) ** 2) for _ in range(depth)))
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.patches(x).flatten(2).transpose(1, 2))).mean(1))


class QuickGelu(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class ClipText(nn.Module):
    """CLIP's text encoder: token and position embeddings, pre-norm layers under a causal mask with QuickGELU,
    a final LayerNorm, the row of each sequence's end-of-text token (the largest id, found by ArgMax) projected."""

    def __init__(self, vocab, tokens, width, heads, layers, embed):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        nn.init.normal_(self.tokens.weight, std=0.02)
        self.positions = nn.Parameter(torch.randn(tokens, width) * 0.01)
        self.layers = nn.ModuleList(PreNormLayer(width, heads, 4 * width, QuickGelu) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.projection = nn.Parameter(torch.randn(width, embed) * width ** -0.5)
        self.register_buffer("causal", torch.full((tokens, tokens), float("-inf")).triu(1))

    def forward(self, ids):
        x = self.tokens(ids) + self.positions
        for layer in self.layers:
            x = layer(x, self.causal)
        x = self.norm(x)
        return x[torch.arange(x.shape[0]), ids.argmax(-1)] @ self.projection


def espcn(hidden1, hidden2, scale):
    """ESPCN: 5x5 and 3x3 convs with tanh, a 3x3 conv to scale^2 channels per colour, PixelShuffle."""
    return nn.Sequential(nn.Conv2d(3, hidden1, 5, padding=2), nn.Tanh(), nn.Conv2d(hidden1, hidden2, 3, padding=1),
                         nn.Tanh(), nn.Conv2d(hidden2, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale))


def yolo_conv(cin, cout, kernel=1, stride=1, padding=None):
    return conv_bn(cin, cout, kernel, stride, act=nn.SiLU, padding=padding)


class YoloBottleneck(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.body, self.shortcut = nn.Sequential(yolo_conv(c, c), yolo_conv(c, c, 3)), shortcut

    def forward(self, x):
        return x + self.body(x) if self.shortcut else self.body(x)


class C3(nn.Module):
    """YOLOv5's CSP block: two 1x1 convs to half width, bottlenecks on one, concatenated, a 1x1 conv."""

    def __init__(self, cin, cout, n, shortcut=True):
        super().__init__()
        c = cout // 2
        self.cv1, self.cv2, self.cv3 = yolo_conv(cin, c), yolo_conv(cin, c), yolo_conv(2 * c, cout)
        self.m = nn.Sequential(*(YoloBottleneck(c, shortcut) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class Sppf(nn.Module):
    """Spatial pyramid pooling, fast: a 1x1 conv, three chained 5x5 max pools, all four concatenated, a 1x1 conv."""

    def __init__(self, cin, cout):
        super().__init__()
        self.cv1, self.cv2, self.pool = yolo_conv(cin, cin // 2), yolo_conv(2 * cin, cout), nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        y0 = self.cv1(x)
        y1 = self.pool(y0)
        y2 = self.pool(y1)
        return self.cv2(torch.cat((y0, y1, y2, self.pool(y2)), 1))


class Yolo(nn.Module):
    """YOLOv5 (v6 layout): the backbone's P3, P4 and P5 through a PANet neck (1x1 convs, nearest upsampling and
    concatenation down, strided 3x3 convs and concatenation up), a 1x1 detect conv per level, each reshaped to
    [B, anchors H W, 5 + classes] and through a sigmoid, the three concatenated."""

    def __init__(self, widths, depths, classes, detect_gain, anchors=3):
        super().__init__()
        w0, w1, w2, w3, w4 = widths
        self.anchors, self.outputs = anchors, 5 + classes
        self.p3 = nn.Sequential(yolo_conv(3, w0, 6, 2, 2), yolo_conv(w0, w1, 3, 2), C3(w1, w1, depths[0]),
                                yolo_conv(w1, w2, 3, 2), C3(w2, w2, depths[1]))
        self.p4 = nn.Sequential(yolo_conv(w2, w3, 3, 2), C3(w3, w3, depths[2]))
        self.p5 = nn.Sequential(yolo_conv(w3, w4, 3, 2), C3(w4, w4, depths[3]), Sppf(w4, w4))
        self.lateral5, self.top_down4 = yolo_conv(w4, w3), C3(2 * w3, w3, 1, False)
        self.lateral4, self.top_down3 = yolo_conv(w3, w2), C3(2 * w2, w2, 1, False)
        self.down3, self.bottom_up4 = yolo_conv(w2, w2, 3, 2), C3(2 * w2, w3, 1, False)
        self.down4, self.bottom_up5 = yolo_conv(w3, w3, 3, 2), C3(2 * w3, w4, 1, False)
        self.detect = nn.ModuleList(nn.Conv2d(c, anchors * self.outputs, 1) for c in (w2, w3, w4))
        for detect in self.detect:
            # Drawn to the spread of the features, which random residual stacks shrink in narrow nets and grow in
            # wide deep ones, so the sigmoids neither sit at 0.5 nor saturate.
            nn.init.normal_(detect.weight, std=detect_gain / detect.in_channels ** 0.5)

    def forward(self, x):
        up = F.interpolate
        p3 = self.p3(x)
        p4 = self.p4(p3)
        l5 = self.lateral5(self.p5(p4))
        l4 = self.lateral4(self.top_down4(torch.cat((up(l5, scale_factor=2.0, mode="nearest"), p4), 1)))
        o3 = self.top_down3(torch.cat((up(l4, scale_factor=2.0, mode="nearest"), p3), 1))
        o4 = self.bottom_up4(torch.cat((self.down3(o3), l4), 1))
        o5 = self.bottom_up5(torch.cat((self.down4(o4), l5), 1))
        levels = []
        for detect, o in zip(self.detect, (o3, o4, o5)):
            y = detect(o)
            b, _, h, w = y.shape
            y = y.reshape(b, self.anchors, self.outputs, h, w).permute(0, 1, 3, 4, 2)
            levels.append(y.reshape(b, -1, self.outputs).sigmoid())
        return torch.cat(levels, 1)


def divisible(value, divisor=4):
    """GhostNet's channel rounding: the nearest multiple of `divisor`, at least 90% of `value`."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class GhostModule(nn.Module):
    """A 1x1 conv to half the output channels and a 3x3 depthwise conv of its result, concatenated and sliced to
    the output channels."""

    def __init__(self, cin, cout, relu):
        super().__init__()
        self.cout, half = cout, math.ceil(cout / 2)
        act = nn.ReLU if relu else None
        self.primary, self.cheap = conv_bn(cin, half, 1, act=act), conv_bn(half, half, 3, groups=half, act=act)

    def forward(self, x):
        y = self.primary(x)
        return torch.cat((y, self.cheap(y)), 1)[:, :self.cout]


class SqueezeExcite(nn.Module):
    """GhostNet's squeeze-and-excitation: global mean, 1x1 conv, ReLU, 1x1 conv, hard sigmoid (relu6(x + 3) / 6)."""

    def __init__(self, channels, ratio):
        super().__init__()
        reduced = divisible(channels * ratio)
        self.pool, self.reduce = nn.AdaptiveAvgPool2d(1), nn.Conv2d(channels, reduced, 1)
        self.expand = nn.Conv2d(reduced, channels, 1)

    def forward(self, x):
        return x * F.relu6(self.expand(F.relu(self.reduce(self.pool(x)))) + 3) / 6


class GhostBottleneck(nn.Module):
    """Ghost module (ReLU), a stride-2 depthwise conv where the block downsamples, squeeze-and-excitation where
    the paper has it, ghost module (linear); the shortcut a depthwise and a 1x1 conv where the shape changes."""

    def __init__(self, cin, hidden, cout, kernel, stride, se_ratio):
        super().__init__()
        body = [GhostModule(cin, hidden, True)]
        if stride > 1:
            body.append(conv_bn(hidden, hidden, kernel, stride, groups=hidden))
        if se_ratio:
            body.append(SqueezeExcite(hidden, se_ratio))
        body.append(GhostModule(hidden, cout, False))
        # A random branch as strong as the shortcut doubles the variance at each of the 16 blocks (the logits
        # peaked at 150); at half strength (the cheap conv reads the primary's output) the growth is 1.25x a block.
        with torch.no_grad():
            body[-1].primary[0].weight.mul_(0.5)
        self.body = nn.Sequential(*body)
        self.shortcut = nn.Identity() if cin == cout and stride == 1 else \
            nn.Sequential(conv_bn(cin, cin, kernel, stride, groups=cin), conv_bn(cin, cout, 1))

    def forward(self, x):
        return self.body(x) + self.shortcut(x)


# GhostNet 1.0's bottlenecks: kernel, expansion channels, output channels, SE ratio, stride.
GHOSTNET_BLOCKS = [(3, 16, 16, 0, 1), (3, 48, 24, 0, 2), (3, 72, 24, 0, 1), (5, 72, 40, 0.25, 2),
                   (5, 120, 40, 0.25, 1), (3, 240, 80, 0, 2), (3, 200, 80, 0, 1), (3, 184, 80, 0, 1),
                   (3, 184, 80, 0, 1), (3, 480, 112, 0.25, 1), (3, 672, 112, 0.25, 1), (5, 672, 160, 0.25, 2),
                   (5, 960, 160, 0, 1), (5, 960, 160, 0.25, 1), (5, 960, 160, 0, 1), (5, 960, 160, 0.25, 1)]


class GhostNet(nn.Module):
    """A 3x3 stride-2 stem, ghost bottlenecks, a 1x1 conv to 960 (times the width), the global mean, a 1x1 conv
    with ReLU and a linear head."""

    def __init__(self, blocks, width, head, classes):
        super().__init__()
        c = divisible(16 * width)
        layers = [conv_bn(3, c, 3, 2, act=nn.ReLU)]
        for kernel, expansion, cout, se_ratio, stride in blocks:
            layers.append(GhostBottleneck(c, divisible(expansion * width), divisible(cout * width), kernel, stride,
                                          se_ratio))
            c = divisible(cout * width)
        last = divisible(960 * width)
        layers += [conv_bn(c, last, 1, act=nn.ReLU), nn.AdaptiveAvgPool2d(1), nn.Conv2d(last, head, 1), nn.ReLU(),
                   nn.Flatten()]
        self.features, self.head = nn.Sequential(*layers), nn.Linear(head, classes)

    def forward(self, x):
        return self.head(self.features(x))


class PoolFormerBlock(nn.Module):
    """GroupNorm(1, C), then the pooling mixer AvgPool(3, 1, 1, pads not counted) minus its input; GroupNorm(1, C),
    then a 1x1-conv MLP of ratio 4 with GELU; each branch scaled per channel (layer scale) and added."""

    def __init__(self, dim):
        super().__init__()
        self.norm1, self.pool = nn.GroupNorm(1, dim), nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.norm2 = nn.GroupNorm(1, dim)
        self.mlp = nn.Sequential(nn.Conv2d(dim, 4 * dim, 1), nn.GELU(), nn.Conv2d(4 * dim, dim, 1))
        # The paper's 1e-5 would make both branches vanish against the residual.
        self.scale1 = nn.Parameter(torch.empty(dim, 1, 1).uniform_(0.1, 1.0))
        self.scale2 = nn.Parameter(torch.empty(dim, 1, 1).uniform_(0.1, 1.0))

    def forward(self, x):
        y = self.norm1(x)
        x = x + self.scale1 * (self.pool(y) - y)
        return x + self.scale2 * self.mlp(self.norm2(x))


class PoolFormer(nn.Module):
    """A 7x7 stride-4 patch conv, PoolFormer blocks in four stages joined by 3x3 stride-2 convs, GroupNorm, the
    mean over the grid and a linear head."""

    def __init__(self, layers, dims, classes):
        super().__init__()
        body = [nn.Conv2d(3, dims[0], 7, 4, 2)]
        for i, (n, dim) in enumerate(zip(layers, dims)):
            if i > 0:
                body.append(nn.Conv2d(dims[i - 1], dim, 3, 2, 1))
            body += [PoolFormerBlock(dim) for _ in range(n)]
        body.append(nn.GroupNorm(1, dims[-1]))
        self.features, self.head = nn.Sequential(*body), nn.Linear(dims[-1], classes)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


class Affine(nn.Module):
    """ResMLP's norm: alpha * x + beta per channel."""

    def __init__(self, dim):
        super().__init__()
        self.alpha, self.beta = nn.Parameter(torch.ones(dim)), nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        return self.alpha * x + self.beta


class ResMlpLayer(nn.Module):
    """Affine, a Linear across the tokens (through transposes), layer scale, residual; Affine, a channel MLP of
    ratio 4 with GELU, layer scale, residual."""

    def __init__(self, dim, tokens, scale):
        super().__init__()
        self.norm1, self.mix, self.norm2 = Affine(dim), nn.Linear(tokens, tokens), Affine(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.scale1, self.scale2 = nn.Parameter(torch.full((dim,), scale)), nn.Parameter(torch.full((dim,), scale))

    def forward(self, x):
        x = x + self.scale1 * self.mix(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.scale2 * self.mlp(self.norm2(x))


class ResMlp(nn.Module):
    def __init__(self, image, patch, dim, depth, classes):
        super().__init__()
        self.patches = nn.Conv2d(3, dim, patch, patch)
        # The paper's layer scale for depths up to 18.
        self.layers = nn.Sequential(*(ResMlpLayer(dim, (image // patch) ** 2, 0.1) for _ in range(depth)))
        self.norm, self.head = Affine(dim), nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(self.norm(self.layers(self.patches(x).flatten(2).transpose(1, 2))).mean(1))


class BasicBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(conv_bn(c, c, 3, act=nn.ReLU), conv_bn(c, c, 3))

    def forward(self, x):
        return F.relu(x + self.body(x))


class Exchange(nn.Module):
    """HRNet's exchange unit: output branch i sums every input branch j brought to its resolution and width (a
    1x1 conv, BatchNorm and nearest upsampling from lower resolutions; i - j strided 3x3 convs from higher ones,
    ReLU between), then ReLU."""

    def __init__(self, widths, outputs):
        super().__init__()
        self.paths = nn.ModuleList()
        for i in range(outputs):
            row = nn.ModuleList()
            for j, c in enumerate(widths):
                if j == i:
                    row.append(nn.Identity())
                elif j > i:
                    row.append(nn.Sequential(conv_bn(c, widths[i], 1), nn.Upsample(scale_factor=2 ** (j - i))))
                else:
                    row.append(nn.Sequential(*[conv_bn(c, c, 3, 2, act=nn.ReLU) for _ in range(i - j - 1)],
                                             conv_bn(c, widths[i], 3, 2)))
            self.paths.append(row)

    def forward(self, xs):
        outputs = []
        for row in self.paths:
            total = row[0](xs[0])
            for path, x in zip(row[1:], xs[1:]):
                total = total + path(x)
            outputs.append(F.relu(total))
        return outputs


class HrNet(nn.Module):
    """A stem of two 3x3 stride-2 convs, a split into a full-width and a stride-2 branch, then stages of 2, 3 and 4
    parallel branches (a basic block each, an exchange unit; a stride-2 conv of the lowest branch adds the next),
    the last exchange to the highest resolution only, and a 1x1 conv to the heatmaps."""

    def __init__(self, stem, widths, joints):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, stem, 3, 2, act=nn.ReLU), conv_bn(stem, stem, 3, 2, act=nn.ReLU))
        self.split = nn.ModuleList([conv_bn(stem, widths[0], 3, act=nn.ReLU),
                                    conv_bn(stem, widths[1], 3, 2, act=nn.ReLU)])
        self.blocks = nn.ModuleList(nn.ModuleList(BasicBlock(c) for c in widths[:n]) for n in (2, 3, 4))
        self.exchanges = nn.ModuleList(Exchange(widths[:n], n if n < 4 else 1) for n in (2, 3, 4))
        self.grow = nn.ModuleList(conv_bn(widths[n - 1], widths[n], 3, 2, act=nn.ReLU) for n in (2, 3))
        self.head = nn.Conv2d(widths[0], joints, 1)

    def forward(self, x):
        x = self.stem(x)
        xs = [split(x) for split in self.split]
        for k, (blocks, exchange) in enumerate(zip(self.blocks, self.exchanges)):
            xs = exchange([block(x) for block, x in zip(blocks, xs)])
            if k < len(self.grow):
                xs.append(self.grow[k](xs[-1]))
        return self.head(xs[0])


def randomize_norms(net):
    """Random affine parameters for LayerNorm, GroupNorm, BatchNorm1d and Affine, and random statistics for
    BatchNorm1d (make_zoo's randomize_batchnorm does BatchNorm2d): fresh ones scale by 1 and shift by 0, which
    would leave those parameters untested."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
            if isinstance(m, (nn.BatchNorm1d, nn.LayerNorm, nn.GroupNorm)):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
            elif isinstance(m, Affine):
                m.alpha.uniform_(0.5, 1.5)
                m.beta.uniform_(-0.2, 0.2)


def image(height, width):
    return torch.rand(1, 3, height, width) * 2 - 1


def make_paper(name, small):
    """(module, example input) for one of PAPER_MODELS, as make_zoo.make_wider returns them."""
    if name == "segformer":
        # Small: 64x64, widths 16/32/40/64, heads 1/2/2/4, one block a stage, decoder 32, 5 classes.
        if small:
            net, example = SegFormer((16, 32, 40, 64), (1, 2, 2, 4), (8, 4, 2, 1), 1, 32, 5), image(64, 64)
        else:
            net, example = SegFormer((32, 64, 160, 256), (1, 2, 5, 8), (8, 4, 2, 1), 2, 256, 19), image(256, 256)
    elif name == "wav2vec":
        # Small: 3200 samples (9 frames), conv width 16, hidden 32, 2 heads, FFN 64, positional kernel 5 in 4
        # groups, 1 layer.
        if small:
            net, example = Wav2Vec(16, 32, 2, 64, 1, 5, 4), torch.rand(1, 1, 3200) * 2 - 1
        else:
            net, example = Wav2Vec(64, 192, 4, 768, 4, 31, 16), torch.rand(1, 1, 16000) * 2 - 1
    elif name == "detr":
        # Small: 96x64 (a 3x2 feature map), ResNet with one basic block a stage, hidden 32, 2 heads, FFN 64,
        # 1+1 layers, 10 queries, 8 classes.
        tv = torchvision.models
        if small:
            trunk = tv.resnet.ResNet(tv.resnet.BasicBlock, [1, 1, 1, 1])
            sizes, example = (32, 2, 64, 1, 10, 8), image(96, 64)
        else:
            trunk = tv.resnet18(weights=None)
            sizes, example = (128, 4, 512, 2, 50, 92), image(256, 256)
        net = Detr(nn.Sequential(*list(trunk.children())[:-2]), 512, *sizes)
    elif name == "mobilevit":
        # Small: 64x64, widths 8/16/24/32/40/48, transformer dims 32/40/48 of depth 1, 2 heads, head 96, 10 classes.
        if small:
            net, example = MobileVit((8, 16, 24, 32, 40, 48), (32, 40, 48), (1, 1, 1), 2, 2, 96, 10), image(64, 64)
        else:
            net = MobileVit((16, 32, 48, 64, 80, 96), (96, 120, 144), (2, 4, 3), 4, 3, 384, 1000)
            example = image(256, 256)
    elif name == "levit":
        # Small: 80x80 (a 5x5 grid, then 3x3 and 2x2), dims 32/48/64, heads 2/3/4, one block a stage, keys of 8,
        # 10 classes.
        if small:
            net, example = Levit((32, 48, 64), (2, 3, 4), (1, 1, 1), 8, 5, 10), image(80, 80)
        else:
            net, example = Levit((128, 256, 384), (4, 6, 8), (2, 3, 4), 16, 14, 1000), image(224, 224)
    elif name == "gmlp":
        # Small: 32x32 in 8x8 patches (16 tokens), dim 32, hidden 96, 2 blocks, 10 classes.
        if small:
            net, example = Gmlp(32, 8, 32, 96, 2, 10), image(32, 32)
        else:
            net, example = Gmlp(224, 16, 256, 1536, 8, 1000), image(224, 224)
    elif name == "clip_text":
        # Small: vocabulary 1000, 16 tokens, width 64, 2 heads, 1 layer, projected to 32.
        vocab, tokens, sizes = (1000, 16, (64, 2, 1, 32)) if small else (49408, 77, (512, 8, 6, 512))
        net = ClipText(vocab, tokens, *sizes)
        example = torch.randint(0, vocab - 1, (1, tokens))
        example[0, torch.randint(1, tokens, ()).item()] = vocab - 1
    elif name == "espcn":
        # Small: 32x32, widths 16 and 8.
        if small:
            net, example = espcn(16, 8, 4), image(32, 32)
        else:
            net, example = espcn(64, 32, 4), image(128, 128)
    elif name == "yolo":
        # Small: 64x64, widths 8/16/32/64/128, one bottleneck a C3, 3 classes: output [1, 252, 8]. The detect
        # gains (measured) spread the exported draws' sigmoids over 0.002-0.995 (small) and 0.12-0.91 (full).
        if small:
            net, example = Yolo((8, 16, 32, 64, 128), (1, 1, 1, 1), 3, 6.0), image(64, 64)
        else:
            net, example = Yolo((32, 64, 128, 256, 512), (1, 2, 3, 1), 80, 0.1), image(320, 320)
    elif name == "ghostnet":
        # Small: 64x64, width 0.5, seven of the sixteen bottlenecks (each stride, SE and width change kept),
        # head 128, 10 classes.
        if small:
            blocks = [GHOSTNET_BLOCKS[i] for i in (0, 1, 3, 5, 9, 11, 15)]
            net, example = GhostNet(blocks, 0.5, 128, 10), image(64, 64)
        else:
            net, example = GhostNet(GHOSTNET_BLOCKS, 1.0, 1280, 1000), image(224, 224)
    elif name == "poolformer":
        # Small: 64x64, one block a stage, dims 16/32/40/64, 10 classes.
        if small:
            net, example = PoolFormer((1, 1, 1, 1), (16, 32, 40, 64), 10), image(64, 64)
        else:
            net, example = PoolFormer((2, 2, 6, 2), (64, 128, 320, 512), 1000), image(224, 224)
    elif name == "resmlp":
        # Small: 32x32 in 8x8 patches (16 tokens), dim 32, 2 layers, 10 classes.
        if small:
            net, example = ResMlp(32, 8, 32, 2, 10), image(32, 32)
        else:
            net, example = ResMlp(224, 16, 384, 12, 1000), image(224, 224)
    elif name == "hrnet":
        # Small: 96x64 (branches 24x16 down to 3x2), stem 16, widths 8/16/24/32, 5 heatmaps.
        if small:
            net, example = HrNet(16, (8, 16, 24, 32), 5), image(96, 64)
        else:
            net, example = HrNet(64, (18, 36, 72, 144), 17), image(256, 192)
    else:
        raise SystemExit(f"unknown paper model '{name}'")
    randomize_norms(net)
    return net, example
