"""OpenPifPaf keypoint head CompositeField4 (src/openpifpaf/network/heads.py): at inference with
`inplace_ops=True` it crops the PixelShuffle output with `int(x.shape[2]) - high_cut`, applies
`torch.sigmoid_` / `.add_(index_field)` / `scales_x[:] = softplus(...)` in place on slices of a view,
and the index field comes from `index_field_torch`, an `functools.lru_cache` keyed on the feature
(height, width). The sparseml OpenPifPaf ONNX export script works around it by setting
`openpifpaf.network.heads.CompositeField3.inplace_ops = False` and `CompositeField4.inplace_ops = False`
before exporting.

Source: https://github.com/neuralmagic/sparseml/pull/1178
"""
import functools
import math
import typing as t

import torch

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-50"


@functools.lru_cache(16)
def index_field_torch(shape: t.Tuple[int, int],
                      device: torch.device,
                      unsqueeze: t.Tuple[int, int] = (0, 0)) -> torch.Tensor:
    assert len(shape) == 2
    xy = torch.empty((2, shape[0], shape[1]), device=device)
    xy[0] = torch.arange(shape[1], device=device)
    xy[1] = torch.arange(shape[0], device=device).unsqueeze(1)

    for dim in unsqueeze:
        xy = torch.unsqueeze(xy, dim)

    return xy


class CompositeField4(torch.nn.Module):
    dropout_p = 0.0
    inplace_ops: bool = True

    def __init__(self, in_features, n_fields=17, n_confidences=1, n_vectors=1, n_scales=1,
                 vector_offsets=(True,), upsample_stride=2, *,
                 kernel_size=1, padding=0, dilation=1):
        super().__init__()
        self.dropout = torch.nn.Dropout2d(p=self.dropout_p)

        # convolution
        self.n_components = 1 + n_confidences + n_vectors * 2 + n_scales
        self.conv = torch.nn.Conv2d(
            in_features, n_fields * self.n_components * (upsample_stride ** 2),
            kernel_size, padding=padding, dilation=dilation,
        )

        self.n_fields = n_fields
        self.n_confidences = n_confidences
        self.n_vectors = n_vectors
        self.n_scales = n_scales
        self.vector_offsets = tuple(vector_offsets)
        self.upsample_stride = upsample_stride

        # upsample
        assert upsample_stride >= 1
        self.upsample_op = None
        if upsample_stride > 1:
            self.upsample_op = torch.nn.PixelShuffle(upsample_stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # pylint: disable=arguments-differ
        x = self.dropout(x)
        x = self.conv(x)
        # upscale
        if self.upsample_op is not None:
            x = self.upsample_op(x)
            low_cut = (self.upsample_stride - 1) // 2
            high_cut = math.ceil((self.upsample_stride - 1) / 2.0)
            if self.training:
                # negative axes not supported by ONNX TensorRT
                x = x[:, :, low_cut:-high_cut, low_cut:-high_cut]
            else:
                # the int() forces the tracer to use static shape
                x = x[:, :, low_cut:int(x.shape[2]) - high_cut, low_cut:int(x.shape[3]) - high_cut]

        # Extract some shape parameters once.
        # Convert to int so that shape is constant in ONNX export.
        x_size = x.size()
        batch_size = x_size[0]
        feature_height = x_size[2]
        feature_width = x_size[3]

        x = x.view(
            batch_size,
            self.n_fields,
            self.n_components,
            feature_height,
            feature_width
        )

        if not self.training and self.inplace_ops:
            # classification
            classes_x = x[:, :, 1:1 + self.n_confidences]
            torch.sigmoid_(classes_x)

            # regressions x: add index
            if self.n_vectors > 0:
                index_field = index_field_torch((feature_height, feature_width), device=x.device)
                first_reg_feature = 1 + self.n_confidences
                for i, do_offset in enumerate(self.vector_offsets):
                    if not do_offset:
                        continue
                    reg_x = x[:, :, first_reg_feature + i * 2:first_reg_feature + (i + 1) * 2]
                    reg_x.add_(index_field)

            # scale
            first_scale_feature = 1 + self.n_confidences + self.n_vectors * 2
            scales_x = x[:, :, first_scale_feature:first_scale_feature + self.n_scales]
            scales_x[:] = torch.nn.functional.softplus(scales_x)

        return x


class PifPafHeads(torch.nn.Module):
    def __init__(self, in_features=32):
        super().__init__()
        self.base_net = torch.nn.Sequential(
            torch.nn.Conv2d(3, in_features, 3, stride=16, padding=1), torch.nn.ReLU())
        self.cif = CompositeField4(in_features, n_fields=17, n_vectors=1, n_scales=1,
                                   vector_offsets=(True,))
        self.caf = CompositeField4(in_features, n_fields=19, n_vectors=2, n_scales=2,
                                   vector_offsets=(True, True))

    def forward(self, x):
        f = self.base_net(x)
        return self.cif(f), self.caf(f)


def make_model():
    return PifPafHeads().eval()


def example_inputs():
    return (torch.randn(1, 3, 97, 129),)


def other_inputs():
    return [(torch.randn(2, 3, 129, 97),), (torch.randn(1, 3, 161, 161),)]


def probe_inputs():
    return other_inputs()
