"""Embryo cleavage-time predictor exported for the browser with all eight TTA views (four `rot90` rotations x
horizontal flip) inside the graph, features averaged, 3-seed MLP ensemble averaged as posteriors; with
`torch.onnx.export(..., dynamo=False, opset_version=17)` "`aten::rot90` has no ONNX symbolic at opset 17, so
exporting it fails outright" until rot90 is rebuilt from transpose + flip. (DINOv2 ViT-L trunk replaced by a
small conv trunk.)

Source: https://github.com/RB3572/tempusvitaehumanus/blob/main/scripts/export_champion.py
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "size", 3: "size"}}
BLIND = "operators-20"

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
VIEWS_8 = [(0, False), (1, False), (2, False), (3, False),
           (0, True), (1, True), (2, True), (3, True)]


class Champion(torch.nn.Module):
    """The adopted pipeline, end to end, as one graph."""

    def __init__(self, trunk, heads, mu, sd, views):
        super().__init__()
        self.trunk = trunk
        self.heads = torch.nn.ModuleList(heads)
        self.register_buffer("mu", mu)
        self.register_buffer("sd", sd)
        self.register_buffer("imnet_mean", torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1))
        self.register_buffer("imnet_std", torch.tensor(IMAGENET_STD).view(1, 3, 1, 1))
        self.views = views

    def forward(self, x):                       # x: [1, 1, S, S] in [0, 1]
        acc = None
        for k, flip in self.views:
            v = torch.rot90(x, k, dims=(-2, -1)) if k else x
            if flip:
                v = torch.flip(v, dims=(-1,))
            v = v.repeat(1, 3, 1, 1)
            v = (v - self.imnet_mean) / self.imnet_std
            f = self.trunk(v)
            acc = f if acc is None else acc + f
        feat = (acc / float(len(self.views)) - self.mu) / self.sd
        probs = None
        for h in self.heads:
            p = torch.softmax(h(feat), dim=-1)
            probs = p if probs is None else probs + p
        probs = probs / float(len(self.heads))
        return torch.log(probs.clamp_min(1e-12))


def build_head(d_in, hidden, depth, dropout, n_out):
    layers, d = [], d_in
    for _ in range(depth if hidden else 0):
        layers += [torch.nn.Linear(d, hidden), torch.nn.GELU(), torch.nn.Dropout(dropout)]
        d = hidden
    layers.append(torch.nn.Linear(d, n_out))
    return torch.nn.Sequential(*layers)


def make_model():
    feature_dim = 32
    trunk = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.GELU(),
        torch.nn.Conv2d(16, feature_dim, 3, stride=2, padding=1), torch.nn.GELU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(1))
    heads = [build_head(feature_dim, 64, 2, 0.1, 24) for _ in range(3)]
    mu = torch.randn(feature_dim) * 0.1
    sd = torch.rand(feature_dim) + 0.5
    return Champion(trunk, heads, mu, sd, VIEWS_8).eval()


def example_inputs():
    return (torch.rand(1, 1, 64, 64),)


def other_inputs():
    return [(torch.rand(2, 1, 48, 48),), (torch.rand(3, 1, 80, 80),)]


def probe_inputs():
    return other_inputs()
