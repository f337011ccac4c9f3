"""Operators the exporters fail on that only the run shows (a layer's own call, a rank, an old
spelling), each repaired by `onnxfix export --fix` from the failure it names, at export time only
(tests/test_export_operator_repairs.py): torch.norm(x, "nuc") and torch.linalg.norm(x, "nuc") (an SVD: legacy "linalg.matrix_norm,
ord==nuc"), an nn.Conv2d with padding="same" and a dilation (onnxruntime refuses legacy's
SAME_UPPER with dilations), F.pixel_shuffle of a 5-D tensor (legacy: "only support 4d input"), an
FFT filter (fft2, fftshift, a real mask, ifftshift, ifft2, abs: legacy has no aten::fft_*), and
F.grouped_mm of 3-D bfloat16 operands (aten._grouped_mm: no translation in either exporter), and
F.layer_norm over [H, W] sizes a submodule returns (UCM-Net: legacy's symbolic needs the
normalized shape constant; the failing node is the op it was translating), and a complex RoPE
table precomputed in __init__ as a buffer (llama2.c's `freqs_cis`) and a complex weight: legacy
cannot hold a complex constant, whatever the ops around it; and integer ops onnxruntime has no
kernel for (Unique of int32, Relu of int64): computed widened to int64, relu as a clamp; and variants
onnxruntime refuses: an einsum whose ellipses cover different numbers of dims, a transposed convolution
whose output padding reaches its stride; a uint8 cumsum (legacy), an argmax with keepdim=True and no dim
(dynamo: one kept dim), a uint8 image's mean with a float dtype (dynamo: ReduceMean of uint8)."""
import torch
import torch.nn.functional as F
from torch import nn


class NuclearNorm(nn.Module):
    def forward(self, x):
        corner = x[..., :4, :4]  # small matrices: the helper's Jacobi sweeps unroll with their size
        old_spelling = torch.norm(corner.flatten(1, 2), "nuc", dim=(1, 2), keepdim=True)[..., None]
        return x + old_spelling + torch.linalg.norm(corner, "nuc", dim=(-2, -1))[..., None, None]


class DilatedSameConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, (3, 4), padding="same", dilation=2)

    def forward(self, x):
        return self.conv(x)


class ShuffledCoordinates(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        return F.pixel_shuffle(x.reshape(b, 1, c, h, w), 2)


class FourierFilter(nn.Module):
    def forward(self, x):
        spectrum = torch.fft.fftshift(torch.fft.fft2(x, norm="ortho"), dim=(-2, -1)) * (1 + x.mean((0, 1)).abs())
        return torch.fft.ifft2(torch.fft.ifftshift(spectrum, dim=(-2, -1)), norm="ortho").abs()


class GroupedExperts(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 8, 16))

    def forward(self, x):  # (tokens, experts, 8, 8)
        tokens = x.flatten(2)[..., :8].transpose(0, 1).contiguous()  # (experts, tokens, 8)
        return F.grouped_mm(tokens.bfloat16(), self.weight.bfloat16()).float().transpose(0, 1)


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(4, 6, 1)

    def forward(self, x):
        x = self.proj(x)
        _, _, H, W = x.shape
        return x.flatten(2).transpose(1, 2), H, W


class PatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = PatchEmbed()

    def forward(self, x):
        tokens, H, W = self.embed(x)
        B, N, C = tokens.shape
        grid = tokens.transpose(1, 2).view(B, C, H, W)
        return F.layer_norm(grid, [H, W])


class ComplexTable(nn.Module):
    def __init__(self):
        super().__init__()
        angles = torch.outer(torch.arange(8.0), 1.0 / (100 ** (torch.arange(0, 8, 2) / 8)))
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles), persistent=False)
        self.gain = nn.Parameter(torch.randn(4, dtype=torch.cfloat))  # a complex layer's weight

    def forward(self, x):
        pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(pairs * self.freqs_cis[: x.shape[2]] * self.gain).flatten(3)


class IntegerGaps(nn.Module):
    def forward(self, x):
        labels = x.argmax(1).to(torch.int32)  # a label map: onnxruntime has no int32 Unique
        steps = F.relu(labels.flatten(1).long().sum(1) - 40)  # nor an integer Relu
        coarse = F.max_pool2d(x.argmax(1, keepdim=True), 2)  # ONNX MaxPool takes no int64
        positive = x[:, 1] > 0
        allowed = torch.where(x[:, 0] > 0, positive, torch.zeros_like(positive))  # nor a bool Where
        return torch.unique(labels), steps, coarse, allowed


class MixedPrecisionRope(nn.Module):
    def forward(self, x):
        positions = x[:, 0, 0].half()  # float16 positions, a float64 frequency: eager promotes
        omega = 1.0 / (10000 ** (torch.arange(0, 8, 2, dtype=torch.float64) / 8))
        return torch.cos(torch.einsum("...n,d->...nd", positions, omega)).float()


class BitPacking(nn.Module):
    def forward(self, x):
        bits = (x[:, 0] > 0).to(torch.uint8)  # a mask packed eight pixels per byte
        packed = bits[..., 0] << 7  # torch.onnx casts a uint8 shift to int8: silently wrong
        for i in range(1, 8):
            packed = packed + (bits[..., i] << (7 - i))
        return packed


class EllipsisReduce(nn.Module):
    def forward(self, x):
        # the leading dims and k summed, an outer product with a vector (onnx/onnx#5739): the two
        # ellipses cover 3 dims and none, which onnxruntime's Einsum shape inference refuses
        return torch.einsum("...ik, ...j -> ij", x, x[0, 0, 0])


class DilatedDeconv(nn.Module):
    def __init__(self):
        super().__init__()
        # an output padding up to the dilation, which ATen allows and onnxruntime refuses
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=1, padding=1, output_padding=1, dilation=2)

    def forward(self, x):
        return self.up(x)


class IntegralImage(nn.Module):
    def forward(self, x):
        occupied = (x[:, 0] > 0).to(torch.uint8)  # a uint8 occupancy mask
        return occupied.cumsum(-1).cumsum(-2)  # int64 in eager; the legacy exporter writes a uint8 CumSum


class GlobalPeak(nn.Module):
    def forward(self, x):
        score = x[:, 0].abs().sum(0)  # an 8 x 8 map whatever the batch
        flat = score.argmax(keepdim=True)  # [1, 1]; the dynamo translation keeps [1]
        return flat // score.shape[1], flat % score.shape[1]  # the peak's row and column


class ImageStandardize(nn.Module):
    def forward(self, x):
        image = ((x[:, :3] + 3) * 40).clamp(0, 255).to(torch.uint8)  # a raw uint8 image
        mean = image.mean(dim=(2, 3), keepdim=True, dtype=torch.float32)  # ATen casts, then reduces
        return image.float() - mean


class WeightNormedSlopes(nn.Module):
    """A weight-normalised per-channel PReLU (a 1-D weight, dim=0): each slope is g * sign(v) in
    eager; both exporters normalise the whole vector at once. The hook runs inside `self.act`, on
    the line that also runs the convolution."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)
        self.act = nn.utils.weight_norm(nn.PReLU(4))
        with torch.no_grad():
            self.act.weight_v.uniform_(-1.0, 1.0)  # slopes of either sign

    def forward(self, x):
        return self.act(self.conv(x))


class InterleavedTable(nn.Module):
    """Cohere's rotary table: each frequency repeated along dim=-1, the inverse frequencies expanded
    to the batch with -1 keeping their count. The legacy repeat_interleave symbolic turns the graph's
    shared -1 constant into 2, and the expand fails in onnxruntime ("invalid expand shape")."""

    def __init__(self):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8)), persistent=False)

    def forward(self, x):
        positions = x[:, 0, 0, :].abs() * 10  # (batch, width) positions
        inv = self.inv_freq[None, :, None].expand(positions.shape[0], -1, 1)
        freqs = (inv @ positions[:, None, :]).transpose(1, 2)
        return torch.repeat_interleave(freqs, 2, dim=-1).cos()


class MergedLabels(nn.Module):
    """Class scores of an auxiliary head merged into the base ones through a label map that is the
    identity: onnxscript's optimizer folds the accumulating ScatterND into its updates, so the
    dynamo export drops the base scores; the line's value vanishes from the graph."""

    def __init__(self):
        super().__init__()
        self.base, self.aux = nn.Conv2d(4, 6, 1), nn.Conv2d(4, 6, 1)
        self.register_buffer("label_map", torch.arange(6))

    def forward(self, x):
        base, aux = self.base(x).mean((2, 3)).t(), self.aux(x).mean((2, 3)).t()  # (classes, batch)
        merged = base.index_put((self.label_map,), aux, accumulate=True)
        return merged.t()


class MergedLabelsInPlace(MergedLabels):
    """The same merge written into the base scores in place (index_put_: functionalized, the same op)."""

    def forward(self, x):
        base, aux = self.base(x).mean((2, 3)).t(), self.aux(x).mean((2, 3)).t()
        base.index_put_((self.label_map,), aux, accumulate=True)
        return base.t()


def _seeded(cls):
    torch.manual_seed(0)
    return cls().eval()


def make_nuclear_norm():
    return _seeded(NuclearNorm)


def make_dilated_same_conv():
    return _seeded(DilatedSameConv)


def make_shuffled_coordinates():
    return _seeded(ShuffledCoordinates)


def make_fourier_filter():
    return _seeded(FourierFilter)


def make_grouped_experts():
    return _seeded(GroupedExperts)


def make_patch_norm():
    return _seeded(PatchNorm)


def make_complex_table():
    return _seeded(ComplexTable)


def make_integer_gaps():
    return _seeded(IntegerGaps)


def make_mixed_precision_rope():
    return _seeded(MixedPrecisionRope)


def make_bit_packing():
    return _seeded(BitPacking)


def make_ellipsis_reduce():
    return _seeded(EllipsisReduce)


def make_dilated_deconv():
    return _seeded(DilatedDeconv)


def make_integral_image():
    return _seeded(IntegralImage)


def make_global_peak():
    return _seeded(GlobalPeak)


def make_weight_normed_slopes():
    return _seeded(WeightNormedSlopes)


def make_interleaved_table():
    return _seeded(InterleavedTable)


def make_merged_labels():
    return _seeded(MergedLabels)


def make_merged_labels_in_place():
    return _seeded(MergedLabelsInPlace)


def make_image_standardize():
    return _seeded(ImageStandardize)


def example_inputs():
    return (torch.randn(2, 4, 8, 8),)


def probe_inputs():
    return [(torch.randn(3, 4, 8, 8),), (torch.randn(1, 4, 8, 8),)]


DYNAMIC = {0: {0: "b"}}
