"""EfficientPhys (rPPG-Toolbox, camera-based vital signs from face video) takes the frame-difference
of its input clip with `torch.diff(inputs, dim=0)` before the TSM/attention branch; exporting it with
a dynamic frame axis fails with "Exporting the operator 'aten::diff' to ONNX opset version 12 is not supported".

Source: https://github.com/ubicomplab/rPPG-Toolbox/issues/272
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"inputs": {0: "frames"}}
BLIND = "operators-4"


class Attention_mask(nn.Module):
    def __init__(self):
        super(Attention_mask, self).__init__()

    def forward(self, x):
        xsum = torch.sum(x, dim=2, keepdim=True)
        xsum = torch.sum(xsum, dim=3, keepdim=True)
        xshape = tuple(x.size())
        return x / xsum * xshape[2] * xshape[3] * 0.5


class TSM(nn.Module):
    def __init__(self, n_segment=10, fold_div=3):
        super(TSM, self).__init__()
        self.n_segment = n_segment
        self.fold_div = fold_div

    def forward(self, x):
        nt, c, h, w = x.size()
        n_batch = nt // self.n_segment
        x = x.view(n_batch, self.n_segment, c, h, w)
        fold = c // self.fold_div
        out = torch.zeros_like(x)
        out[:, :-1, :fold] = x[:, 1:, :fold]  # shift left
        out[:, 1:, fold: 2 * fold] = x[:, :-1, fold: 2 * fold]  # shift right
        out[:, :, 2 * fold:] = x[:, :, 2 * fold:]  # not shift
        return out.view(nt, c, h, w)


class EfficientPhys(nn.Module):
    def __init__(self, in_channels=3, nb_filters1=32, nb_filters2=64, kernel_size=3, pool_size=(2, 2),
                 nb_dense=128, frame_depth=10, img_size=36):
        super(EfficientPhys, self).__init__()
        self.TSM_1 = TSM(n_segment=frame_depth)
        self.TSM_2 = TSM(n_segment=frame_depth)
        self.motion_conv1 = nn.Conv2d(in_channels, nb_filters1, kernel_size=kernel_size, padding=(1, 1), bias=True)
        self.motion_conv2 = nn.Conv2d(nb_filters1, nb_filters1, kernel_size=kernel_size, bias=True)
        self.apperance_att_conv1 = nn.Conv2d(nb_filters1, 1, kernel_size=1, padding=(0, 0), bias=True)
        self.attn_mask_1 = Attention_mask()
        self.avg_pooling_1 = nn.AvgPool2d(pool_size)
        self.dropout_1 = nn.Dropout(0.25)
        self.final_dense_1 = nn.Linear(nb_filters1 * 17 * 17, nb_dense, bias=True)
        self.final_dense_2 = nn.Linear(nb_dense, 1, bias=True)
        self.batch_norm = nn.BatchNorm2d(3)

    def forward(self, inputs, params=None):
        inputs = torch.diff(inputs, dim=0)
        inputs = self.batch_norm(inputs)

        network_input = self.TSM_1(inputs)
        d1 = torch.tanh(self.motion_conv1(network_input))
        d1 = self.TSM_2(d1)
        d2 = torch.tanh(self.motion_conv2(d1))

        g1 = torch.sigmoid(self.apperance_att_conv1(d2))
        g1 = self.attn_mask_1(g1)
        gated1 = d2 * g1

        d3 = self.avg_pooling_1(gated1)
        d4 = self.dropout_1(d3)
        d9 = d4.view(d4.size(0), -1)
        d10 = torch.tanh(self.final_dense_1(d9))
        out = self.final_dense_2(d10)
        return out


def make_model():
    return EfficientPhys(frame_depth=10, img_size=36).eval()


def example_inputs():
    # N * frame_depth + 1 frames (the extra frame is consumed by the difference)
    return (torch.randn(21, 3, 36, 36),)


def other_inputs():
    return [(torch.randn(11, 3, 36, 36),), (torch.randn(31, 3, 36, 36),)]


def probe_inputs():
    return other_inputs()
