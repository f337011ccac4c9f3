"""YOLOv8-World (ultralytics): the ImagePoolingAttn neck block pools every pyramid level to a 3x3 grid with
`nn.AdaptiveMaxPool2d((k, k))` before the text/image cross-attention; ONNX export fails in adaptive_max_pool2d
because the output size is not a factor of the input size.

Source: https://github.com/ultralytics/ultralytics/issues/8371
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"p3": {0: "batch", 2: "h3", 3: "w3"}, "p4": {0: "batch", 2: "h4", 3: "w4"},
           "p5": {0: "batch", 2: "h5", 3: "w5"}, "text": {0: "batch", 1: "classes"}}
BLIND = "operators-4"


class ImagePoolingAttn(nn.Module):
    """ImagePoolingAttn: Enhance the text embeddings with image-aware information."""

    def __init__(self, ec=256, ch=(), ct=512, nh=8, k=3, scale=False):
        """Initializes ImagePoolingAttn with specified arguments."""
        super().__init__()

        nf = len(ch)
        self.query = nn.Sequential(nn.LayerNorm(ct), nn.Linear(ct, ec))
        self.key = nn.Sequential(nn.LayerNorm(ec), nn.Linear(ec, ec))
        self.value = nn.Sequential(nn.LayerNorm(ec), nn.Linear(ec, ec))
        self.proj = nn.Linear(ec, ct)
        self.scale = nn.Parameter(torch.tensor([0.0]), requires_grad=True) if scale else 1.0
        self.projections = nn.ModuleList([nn.Conv2d(in_channels, ec, kernel_size=1) for in_channels in ch])
        self.im_pools = nn.ModuleList([nn.AdaptiveMaxPool2d((k, k)) for _ in range(nf)])
        self.ec = ec
        self.nh = nh
        self.nf = nf
        self.hc = ec // nh
        self.k = k

    def forward(self, x, text):
        """Executes attention mechanism on input tensor x and guide tensor."""
        bs = x[0].shape[0]
        assert len(x) == self.nf
        num_patches = self.k**2
        x = [pool(proj(x)).view(bs, -1, num_patches) for (x, proj, pool) in zip(x, self.projections, self.im_pools)]
        x = torch.cat(x, dim=-1).transpose(1, 2)
        q = self.query(text)
        k = self.key(x)
        v = self.value(x)

        q = q.reshape(bs, -1, self.nh, self.hc)
        k = k.reshape(bs, -1, self.nh, self.hc)
        v = v.reshape(bs, -1, self.nh, self.hc)

        aw = torch.einsum("bnmc,bkmc->bmnk", q, k)
        aw = aw / (self.hc**0.5)
        aw = F.softmax(aw, dim=-1)

        x = torch.einsum("bmnk,bkmc->bnmc", aw, v)
        x = self.proj(x.reshape(bs, -1, self.ec))
        return x * self.scale + text


class WorldNeckText(nn.Module):
    """The neck step of YOLOv8-World that refreshes the class text embeddings from the P3-P5 features."""

    def __init__(self):
        super().__init__()
        self.attn = ImagePoolingAttn(ec=64, ch=(32, 64, 128), ct=128, nh=8, k=3, scale=True)

    def forward(self, p3, p4, p5, text):
        return self.attn([p3, p4, p5], text)


def make_model():
    return WorldNeckText().eval()


def example_inputs():
    return (torch.randn(2, 32, 20, 20), torch.randn(2, 64, 10, 10), torch.randn(2, 128, 5, 5), torch.randn(2, 6, 128))


def other_inputs():
    return [(torch.randn(3, 32, 16, 24), torch.randn(3, 64, 8, 12), torch.randn(3, 128, 4, 6), torch.randn(3, 4, 128)),
            (torch.randn(1, 32, 28, 14), torch.randn(1, 64, 14, 7), torch.randn(1, 128, 7, 4), torch.randn(1, 9, 128))]


def probe_inputs():
    return other_inputs()
