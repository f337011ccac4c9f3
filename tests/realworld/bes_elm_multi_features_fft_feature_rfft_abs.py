"""PPPL BES edge-localized-mode (ELM) predictor, multi-features model: the FFT branch takes the
BES signal window (N, 1, T, 8, 8) and computes `torch.abs(torch.fft.rfft(x, dim=2))` before a Conv3d;
the training script's ONNX export was commented out with "PyTorch ONNX does not support FFT".

Source: https://github.com/PlasmaControl/bes-edgeml-models/blob/732794ddf01230d0c2f447885f4a45a0c5f5898b/_archive/unused_scripts/train_wandb.py
"""
import argparse
from typing import Union

import numpy as np
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-23"


class _BaseFeatureModel(nn.Module):
    def __init__(self, args: argparse.Namespace):
        super(_BaseFeatureModel, self).__init__()
        self.args = args
        assert np.ceil(np.log2(self.args.signal_window_size)) == np.floor(
            np.log2(self.args.signal_window_size)
        ), "Size of signal window should be a power of 2."
        if self.args.mf_maxpool_size > 1:
            self.maxpool = nn.MaxPool3d(
                kernel_size=[1, self.args.mf_maxpool_size, self.args.mf_maxpool_size],
            )
        else:
            self.maxpool = None
        self.relu = nn.LeakyReLU(negative_slope=self.args.mf_negative_slope)
        self.dropout3d = nn.Dropout3d(p=self.args.mf_dropout_rate)
        self.num_filters = None
        self.conv = None

    def _conv_dropout_relu_flatten(self, x: torch.Tensor) -> torch.Tensor:
        if self.maxpool:
            x = self.maxpool(x)
        if self.conv is not None:
            x = self.relu(self.dropout3d(self.conv(x)))
            x = torch.flatten(x, 1)
            return x
        else:
            raise NotImplementedError("Convolution layer is not implemented.")


class RawFeatureModel(_BaseFeatureModel):
    def __init__(self, args):
        super(RawFeatureModel, self).__init__(args)
        self.num_filters = self.args.raw_num_filters
        spatial_dim = int(8 // self.args.mf_maxpool_size)
        filter_size = (self.args.signal_window_size, spatial_dim, spatial_dim)
        self.conv = nn.Conv3d(
            in_channels=1, out_channels=self.num_filters, kernel_size=filter_size
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self._conv_dropout_relu_flatten(x)
        return x


class FFTFeatureModel(_BaseFeatureModel):
    def __init__(self, args):
        super(FFTFeatureModel, self).__init__(args)
        self.num_filters = self.args.fft_num_filters
        temporal_size = int(self.args.signal_window_size // 2) + 1
        filter_size = (temporal_size, 8, 8)
        self.conv = nn.Conv3d(
            in_channels=1, out_channels=self.num_filters, kernel_size=filter_size
        )

    def forward(self, x):
        # apply FFT to the input along the time dimension
        x = x.to(self.args.device)  # needed for PowerPC architecture
        x = torch.abs(torch.fft.rfft(x, dim=2))
        x = self._conv_dropout_relu_flatten(x)
        return x


class MultiFeaturesModel(nn.Module):
    def __init__(
            self,
            args: argparse.Namespace,
            raw_features_model: Union[RawFeatureModel, None] = None,
            fft_features_model: Union[FFTFeatureModel, None] = None,
    ):
        super(MultiFeaturesModel, self).__init__()
        self.args = args
        self.raw_features_model = raw_features_model
        self.fft_features_model = fft_features_model
        input_features = 0
        for model in [self.raw_features_model, self.fft_features_model]:
            if model is not None:
                input_features += model.num_filters
        self.fc1 = nn.Linear(in_features=input_features, out_features=128)
        self.fc2 = nn.Linear(in_features=128, out_features=32)
        self.fc3 = nn.Linear(in_features=32, out_features=1)
        self.dropout = nn.Dropout(p=self.args.mf_dropout_rate)
        self.relu = nn.LeakyReLU(negative_slope=self.args.mf_negative_slope)

    def forward(self, x):
        raw_features = self.raw_features_model(x) if self.raw_features_model else None
        fft_features = self.fft_features_model(x) if self.fft_features_model else None

        active_features_list = [
            features
            for features in [raw_features, fft_features]
            if features is not None
        ]
        x = torch.cat(active_features_list, dim=1)

        x = self.relu(self.dropout(self.fc1(x)))
        x = self.relu(self.dropout(self.fc2(x)))
        x = self.fc3(x)
        return x


def _args():
    return argparse.Namespace(
        signal_window_size=16, mf_maxpool_size=1, mf_negative_slope=0.02,
        mf_dropout_rate=0.2, raw_num_filters=10, fft_num_filters=10, device="cpu",
    )


def make_model():
    args = _args()
    return MultiFeaturesModel(args, RawFeatureModel(args), FFTFeatureModel(args)).eval()


def example_inputs():
    return (torch.randn(4, 1, 16, 8, 8),)


def other_inputs():
    return [(torch.randn(7, 1, 16, 8, 8),), (torch.randn(1, 1, 16, 8, 8),)]


def probe_inputs():
    return other_inputs()
