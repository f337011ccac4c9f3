"""TabPFN (tabular foundation model) PerFeatureTransformer forward: the test rows' targets are set to NaN
(`y["main"][single_eval_pos:] = torch.nan`, single_eval_pos = number of training labels), the NaN-handling y encoder
fills them, and the forward then checks `if torch.isnan(embedded_y).any(): raise ValueError(...)` (and again on the
embedded input). The PR pins `dynamo=False` in the ONNX export tests: "From 2.9 PyTorch changed the default export
mode from TorchScript to Dynamo. We don't support Dynamo". Features are padded to groups of `features_per_group`;
einops.rearrange calls are written out as reshape/permute, the transformer layers are a small stand-in.

Source: https://github.com/PriorLabs/TabPFN/pull/554
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "num_datapoints", 1: "batch_size"}, "y": {0: "num_labels", 1: "batch_size"}}
BLIND = "domains-51"


def torch_nanmean(x, axis=0):
    nan_mask = torch.isnan(x)
    num = torch.where(nan_mask, torch.full_like(x, 0), torch.full_like(x, 1)).sum(axis=axis)
    value = torch.where(nan_mask, torch.full_like(x, 0), x).sum(axis=axis)
    return value / num.clip(min=1.0)


class NanHandlingYEncoder(nn.Module):
    def __init__(self, emsize):
        super().__init__()
        self.layer = nn.Linear(2, emsize)

    def forward(self, y, single_eval_pos):
        x = y["main"]
        self.feature_means_ = torch_nanmean(x[:single_eval_pos], axis=0)  # NanHandlingEncoderStep._fit
        nans_indicator = (torch.isnan(x) * -2.0).to(x.dtype)
        nan_mask = torch.logical_or(torch.isnan(x), torch.isinf(x))
        x = x.clone()
        x[nan_mask] = self.feature_means_.unsqueeze(0).expand_as(x)[nan_mask]
        return self.layer(torch.cat([x, nans_indicator], dim=-1))


class PerFeatureTransformer(nn.Module):
    def __init__(self, features_per_group=2, emsize=16, n_out=3):
        super().__init__()
        self.features_per_group = features_per_group
        self.encoder = nn.Linear(features_per_group, emsize)
        self.y_encoder = NanHandlingYEncoder(emsize)
        self.transformer_encoder = nn.Sequential(nn.Linear(emsize, emsize), nn.GELU(), nn.Linear(emsize, emsize))
        self.decoder = nn.Linear(emsize, n_out)

    def forward(self, x, y, only_return_standard_out=True):
        x = {"main": x}
        seq_len, batch_size, num_features = x["main"].shape
        y = {"main": y}
        single_eval_pos = y["main"].shape[0]

        for k in x:
            num_features_ = x[k].shape[2]
            missing_to_next = (self.features_per_group - (num_features_ % self.features_per_group)) % self.features_per_group
            if missing_to_next > 0:
                x[k] = torch.cat((x[k], torch.zeros(seq_len, batch_size, missing_to_next, device=x[k].device, dtype=x[k].dtype)), dim=-1)
        for k in x:  # einops "s b (f n) -> b s f n"
            x[k] = x[k].reshape(seq_len, batch_size, -1, self.features_per_group).permute(1, 0, 2, 3)

        for k in y:
            if y[k].ndim == 2:
                y[k] = y[k].unsqueeze(-1)  # s b -> s b 1
            y[k] = y[k].transpose(0, 1)  # s b 1 -> b s 1
            if y[k].shape[1] < x["main"].shape[1]:
                y[k] = torch.cat((y[k], torch.nan * torch.zeros(y[k].shape[0], x["main"].shape[1] - y[k].shape[1], y[k].shape[2], device=y[k].device, dtype=y[k].dtype)), dim=1)
            y[k] = y[k].transpose(0, 1)  # b s 1 -> s b 1

        # making sure no label leakage ever happens
        y["main"][single_eval_pos:] = torch.nan

        embedded_y = self.y_encoder(y, single_eval_pos=single_eval_pos).transpose(0, 1)
        if torch.isnan(embedded_y).any():
            raise ValueError(f"{torch.isnan(embedded_y).any()=}, make sure to add nan handlers to the ys that are not fully provided (test set missing)")

        b, s, f, n = x["main"].shape
        embedded_x = self.encoder(x["main"])  # b s f n -> b s f e
        embedded_input = torch.cat((embedded_x, embedded_y.unsqueeze(2)), dim=2)  # b s f+1 e
        if torch.isnan(embedded_input).any():
            raise ValueError("There should be no NaNs in the encoded x and y.")

        encoder_out = self.transformer_encoder(embedded_input)
        test_encoder_out = encoder_out[:, single_eval_pos:, -1].transpose(0, 1)  # s b e
        return self.decoder(test_encoder_out)


def make_model():
    return PerFeatureTransformer()


def example_inputs():
    return (torch.randn(10, 2, 5), torch.randint(0, 3, (6, 2)).float())


def other_inputs():
    return [(torch.randn(15, 3, 5), torch.randint(0, 3, (9, 3)).float()),
            (torch.randn(7, 1, 5), torch.randint(0, 3, (3, 1)).float())]


def probe_inputs():
    return other_inputs()
