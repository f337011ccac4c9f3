"""OpenPifPaf pose estimation: the CompositeField3 head (CIF/CAF fields) reads its shape with
`batch_size = int(x_size[0])` ("Convert to int so that shape is constant in ONNX export") and views
the conv output with it; the model exported with a dynamic batch axis keeps batch 1 hard-coded in the
head and fails for batch > 1 at inference (the head "has a hypothesis about the batch size").
(Backbone reduced to two strided convs; export path `inplace_ops = False` as in export_onnx.py.)

Source: https://github.com/openpifpaf/openpifpaf/issues/436
"""
import functools
import math
from dataclasses import dataclass, field
from typing import List

import torch

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image_batch": {0: "batch"}}
BLIND = "domains-9"


@dataclass
class HeadMeta:
    name: str
    n_fields: int
    n_confidences: int
    n_vectors: int
    n_scales: int
    vector_offsets: List[bool] = field(default_factory=list)
    upsample_stride: int = 2


@functools.lru_cache(maxsize=16)
def index_field_torch(shape, *, device=None, unsqueeze=(0, 0)):
    assert len(shape) == 2
    xy = torch.empty((2, shape[0], shape[1]), device=device)
    xy[0] = torch.arange(shape[1], device=device)
    xy[1] = torch.arange(shape[0], device=device).unsqueeze(1)

    for dim in unsqueeze:
        xy = torch.unsqueeze(xy, dim)

    return xy


class CompositeField3(torch.nn.Module):
    dropout_p = 0.0
    inplace_ops = False

    def __init__(self, meta, in_features, *, kernel_size=1, padding=0, dilation=1):
        super().__init__()
        self.meta = meta
        self.in_features = in_features
        self.dropout = torch.nn.Dropout2d(p=self.dropout_p)

        # convolution
        out_features = meta.n_fields * (meta.n_confidences + meta.n_vectors * 3 + meta.n_scales)
        self.conv = torch.nn.Conv2d(in_features, out_features * (meta.upsample_stride ** 2),
                                    kernel_size, padding=padding, dilation=dilation)

        # upsample
        assert meta.upsample_stride >= 1
        self.upsample_op = None
        if meta.upsample_stride > 1:
            self.upsample_op = torch.nn.PixelShuffle(meta.upsample_stride)

    def forward(self, x):  # pylint: disable=arguments-differ
        x = self.dropout(x)
        x = self.conv(x)
        # upscale
        if self.upsample_op is not None:
            x = self.upsample_op(x)
            low_cut = (self.meta.upsample_stride - 1) // 2
            high_cut = math.ceil((self.meta.upsample_stride - 1) / 2.0)
            if self.training:
                # negative axes not supported by ONNX TensorRT
                x = x[:, :, low_cut:-high_cut, low_cut:-high_cut]
            else:
                # the int() forces the tracer to use static shape
                x = x[:, :, low_cut:int(x.shape[2]) - high_cut, low_cut:int(x.shape[3]) - high_cut]

        # Extract some shape parameters once.
        # Convert to int so that shape is constant in ONNX export.
        x_size = x.size()
        batch_size = int(x_size[0])
        feature_height = int(x_size[2])
        feature_width = int(x_size[3])

        x = x.view(
            batch_size,
            self.meta.n_fields,
            self.meta.n_confidences + self.meta.n_vectors * 3 + self.meta.n_scales,
            feature_height,
            feature_width
        )

        if not self.training and not self.inplace_ops:
            x = torch.transpose(x, 1, 2)

            # classification
            classes_x = x[:, 0:self.meta.n_confidences]
            classes_x = torch.sigmoid(classes_x)

            # regressions x
            first_reg_feature = self.meta.n_confidences
            regs_x = [
                x[:, first_reg_feature + i * 2:first_reg_feature + (i + 1) * 2]
                for i in range(self.meta.n_vectors)
            ]
            # regressions x: add index
            index_field = index_field_torch(
                (feature_height, feature_width), device=x.device, unsqueeze=(1, 0))
            # TODO: coreml export does not work with the index_field creation in the graph.
            index_field = torch.from_numpy(index_field.numpy())
            regs_x = [reg_x + index_field if do_offset else reg_x
                      for reg_x, do_offset in zip(regs_x, self.meta.vector_offsets)]

            # regressions logb
            first_reglogb_feature = self.meta.n_confidences + self.meta.n_vectors * 2
            regs_logb = x[:, first_reglogb_feature:first_reglogb_feature + self.meta.n_vectors]

            # scale
            first_scale_feature = self.meta.n_confidences + self.meta.n_vectors * 3
            scales_x = x[:, first_scale_feature:first_scale_feature + self.meta.n_scales]
            scales_x = torch.nn.functional.softplus(scales_x)

            # concat
            x = torch.cat([classes_x, *regs_x, regs_logb, scales_x], dim=1)

            x = torch.transpose(x, 1, 2)

        return x


class Shell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.base_net = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3, stride=4, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(32, 64, 3, stride=4, padding=1), torch.nn.ReLU(),
        )
        cif = HeadMeta("cif", n_fields=17, n_confidences=1, n_vectors=1, n_scales=1,
                       vector_offsets=[True])
        caf = HeadMeta("caf", n_fields=19, n_confidences=1, n_vectors=2, n_scales=2,
                       vector_offsets=[True, True])
        self.head_nets = torch.nn.ModuleList([CompositeField3(cif, 64), CompositeField3(caf, 64)])

    def forward(self, image_batch):
        x = self.base_net(image_batch)
        head_outputs = tuple(hn(x) for hn in self.head_nets)
        return head_outputs


def make_model():
    return Shell().eval()


def example_inputs():
    return (torch.randn(1, 3, 97, 129),)


def other_inputs():
    return [(torch.randn(2, 3, 97, 129),), (torch.randn(4, 3, 97, 129),)]


def probe_inputs():
    return other_inputs()
