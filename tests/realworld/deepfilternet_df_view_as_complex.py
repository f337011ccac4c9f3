"""DeepFilterNet speech enhancement: the deep-filtering stage (`df.multiframe.DF`) turns the noisy
spectrogram and the predicted filter coefficients into complex tensors with `torch.view_as_complex`,
unfolds over time and applies the filter with a complex `torch.einsum`; exporting the full model
(`export_full=True`) fails with "Exporting the operator 'aten::view_as_complex' to ONNX opset
version 14 is not supported". (ERB encoder/decoder trimmed to a GRU coefficient predictor.)

Source: https://github.com/Rikorose/DeepFilterNet/issues/586
"""
from typing import Final

import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"spec": {0: "batch", 2: "frames"}}
BLIND = "operators-5"


class MultiFrameModule(nn.Module):
    num_freqs: Final[int]
    frame_size: Final[int]
    need_unfold: Final[bool]

    def __init__(self, num_freqs: int, frame_size: int, lookahead: int = 0):
        super().__init__()
        self.num_freqs = num_freqs
        self.frame_size = frame_size
        self.pad = nn.ConstantPad2d((0, 0, frame_size - 1 - lookahead, lookahead), 0.0)
        self.need_unfold = frame_size > 1
        self.lookahead = lookahead

    def spec_unfold(self, spec: Tensor):
        if self.need_unfold:
            return self.pad(spec).unfold(2, self.frame_size, 1)
        return spec.unsqueeze(-1)


def df(spec: Tensor, coefs: Tensor) -> Tensor:
    return torch.einsum("...tfn,...ntf->...tf", spec, coefs)


class DF(MultiFrameModule):
    conj: Final[bool]

    def __init__(self, num_freqs: int, frame_size: int, lookahead: int = 0, conj: bool = False):
        super().__init__(num_freqs, frame_size, lookahead)
        self.conj = conj

    def forward(self, spec: Tensor, coefs: Tensor):
        spec_u = self.spec_unfold(torch.view_as_complex(spec))
        coefs = torch.view_as_complex(coefs)
        spec_f = spec_u.narrow(-2, 0, self.num_freqs)
        coefs = coefs.view(coefs.shape[0], -1, self.frame_size, *coefs.shape[2:])
        if self.conj:
            coefs = coefs.conj()
        spec_f = df(spec_f, coefs)
        if self.training:
            spec = spec.clone()
        spec[..., : self.num_freqs, :] = torch.view_as_real(spec_f)
        return spec


class DfOutputReshapeMF(nn.Module):
    """Coefficients output reshape for multiframe/MultiFrameModule: [B, T, F, O*2] -> [B, O, T, F, 2]"""

    def __init__(self, df_order: int, df_bins: int):
        super().__init__()
        self.df_order = df_order
        self.df_bins = df_bins

    def forward(self, coefs: Tensor) -> Tensor:
        new_shape = list(coefs.shape)
        new_shape[-1] = -1
        new_shape.append(2)
        coefs = coefs.view(new_shape)
        coefs = coefs.permute(0, 3, 1, 2, 4)
        return coefs


class DfNetLite(nn.Module):
    def __init__(self, nb_df=96, df_order=5, df_lookahead=2, hidden=64):
        super().__init__()
        self.nb_df = nb_df
        self.df_order = df_order
        self.df_gru = nn.GRU(nb_df * 2, hidden, batch_first=True)
        self.df_fc = nn.Linear(hidden, nb_df * df_order * 2)
        self.df_out_transform = DfOutputReshapeMF(df_order, nb_df)
        self.df_op = DF(num_freqs=nb_df, frame_size=df_order, lookahead=df_lookahead)

    def forward(self, spec: Tensor):
        # spec: [B, 1, T, F, 2] (real/imag of the noisy STFT)
        b, _, t, _, _ = spec.shape
        feat_spec = spec[:, 0, :, : self.nb_df].reshape(b, t, -1)
        c, _ = self.df_gru(feat_spec)
        df_coefs = torch.tanh(self.df_fc(c)).view(b, t, self.nb_df, -1)
        df_coefs = self.df_out_transform(df_coefs)
        spec_e = self.df_op(spec.clone(), df_coefs)
        return spec_e


def make_model():
    return DfNetLite().eval()


def example_inputs():
    return (torch.randn(1, 1, 50, 481, 2),)


def other_inputs():
    return [(torch.randn(2, 1, 73, 481, 2),), (torch.randn(3, 1, 31, 481, 2),)]


def probe_inputs():
    return other_inputs()
