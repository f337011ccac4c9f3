"""AdaBins (monocular depth, EfficientNet encoder + mini-ViT bins head): PatchTransformerEncoder adds
`self.positional_encodings[:embeddings.shape[2], :]` where the patch count comes from the image size, and
geffnet's Conv2dSame computes its pad with Python `max(...)` on the input size; the export prints
TracerWarnings ("Converting a tensor to a Python index / boolean might cause the trace to be incorrect").

Source: https://github.com/rwightman/gen-efficientnet-pytorch/issues/66
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-28"


def _calc_same_pad(i: int, k: int, s: int, d: int):
    return max((-(i // -s) - 1) * s + (k - 1) * d + 1 - i, 0)


def conv2d_same(x, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    ih, iw = x.size()[-2:]
    kh, kw = weight.size()[-2:]
    pad_h = _calc_same_pad(ih, kh, stride[0], dilation[0])
    pad_w = _calc_same_pad(iw, kw, stride[1], dilation[1])
    x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
    return F.conv2d(x, weight, bias, stride, (0, 0), dilation, groups)


class Conv2dSame(nn.Conv2d):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True):
        super(Conv2dSame, self).__init__(in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)

    def forward(self, x):
        return conv2d_same(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class PatchTransformerEncoder(nn.Module):
    def __init__(self, in_channels, patch_size=10, embedding_dim=128, num_heads=4):
        super(PatchTransformerEncoder, self).__init__()
        encoder_layers = nn.TransformerEncoderLayer(embedding_dim, num_heads, dim_feedforward=1024)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layers, num_layers=4)  # takes shape S,N,E
        self.embedding_convPxP = nn.Conv2d(in_channels, embedding_dim,
                                           kernel_size=patch_size, stride=patch_size, padding=0)
        self.positional_encodings = nn.Parameter(torch.rand(500, embedding_dim), requires_grad=True)

    def forward(self, x):
        embeddings = self.embedding_convPxP(x).flatten(2)  # .shape = n,c,s = n, embedding_dim, s
        embeddings = embeddings + self.positional_encodings[:embeddings.shape[2], :].T.unsqueeze(0)
        embeddings = embeddings.permute(2, 0, 1)
        x = self.transformer_encoder(embeddings)  # .shape = S, N, E
        return x


class mViT(nn.Module):
    def __init__(self, in_channels, n_query_channels=128, patch_size=16, dim_out=256, embedding_dim=128, num_heads=4):
        super(mViT, self).__init__()
        self.n_query_channels = n_query_channels
        self.patch_transformer = PatchTransformerEncoder(in_channels, patch_size, embedding_dim, num_heads)
        self.conv3x3 = nn.Conv2d(in_channels, embedding_dim, kernel_size=3, stride=1, padding=1)
        self.regressor = nn.Sequential(nn.Linear(embedding_dim, 256), nn.LeakyReLU(), nn.Linear(256, dim_out))

    def forward(self, x):
        tgt = self.patch_transformer(x.clone())  # .shape = S, N, E
        x = self.conv3x3(x)
        regression_head, queries = tgt[0, ...], tgt[1:self.n_query_channels + 1, ...]
        queries = queries.permute(1, 0, 2)
        n, c, h, w = x.size()
        y = torch.matmul(x.view(n, c, h * w).permute(0, 2, 1), queries.permute(0, 2, 1))
        range_attention_maps = y.permute(0, 2, 1).view(n, self.n_query_channels, h, w)
        y = torch.relu(self.regressor(regression_head)) + 0.1
        y = y / y.sum(dim=1, keepdim=True)
        return y, range_attention_maps


class UnetAdaptiveBins(nn.Module):
    def __init__(self, n_bins=16, min_val=1e-3, max_val=10):
        super(UnetAdaptiveBins, self).__init__()
        self.min_val, self.max_val = min_val, max_val
        self.stem = Conv2dSame(3, 16, 3, stride=2)
        self.block = Conv2dSame(16, 32, 3, stride=2)
        self.up = nn.Sequential(nn.Conv2d(48, 32, 3, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU())
        self.adaptive_bins_layer = mViT(32, n_query_channels=8, patch_size=16, dim_out=n_bins, embedding_dim=32)
        self.conv_out = nn.Sequential(nn.Conv2d(8, n_bins, kernel_size=1), nn.Softmax(dim=1))

    def forward(self, x):
        x_block0 = self.stem(x)
        x_block1 = self.block(x_block0)
        up_x = F.interpolate(x_block1, size=[x_block0.size(2), x_block0.size(3)], mode='bilinear', align_corners=True)
        unet_out = self.up(torch.cat([up_x, x_block0], dim=1))
        bin_widths_normed, range_attention_maps = self.adaptive_bins_layer(unet_out)
        out = self.conv_out(range_attention_maps)
        bin_widths = (self.max_val - self.min_val) * bin_widths_normed
        bin_widths = nn.functional.pad(bin_widths, (1, 0), mode='constant', value=self.min_val)
        bin_edges = torch.cumsum(bin_widths, dim=1)
        centers = 0.5 * (bin_edges[:, :-1] + bin_edges[:, 1:])
        n, dout = centers.size()
        centers = centers.view(n, dout, 1, 1)
        pred = torch.sum(out * centers, dim=1, keepdim=True)
        return bin_edges, pred


def make_model():
    return UnetAdaptiveBins().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 192),), (torch.randn(1, 3, 192, 224),)]


def probe_inputs():
    return other_inputs()
