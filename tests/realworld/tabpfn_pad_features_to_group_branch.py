"""TabPFN v2 (tabular in-context learner, PerFeatureTransformer._forward): the feature axis is padded with
zeros up to a multiple of `features_per_group` only `if missing_to_next > 0`, then split into groups of
features; the maintainers note the exported ONNX model can only be used "with the exact same number of
features that the example input for exporting had". (`einops.rearrange` is spelled as reshape/permute and the
NaN-indicator y-encoder is trimmed to a Linear.)

Source: https://github.com/PriorLabs/TabPFN/issues/97
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "rows", 2: "features"}, "y": {0: "train_rows"}}
BLIND = "domains-6"


class PerFeatureTransformer(nn.Module):
    def __init__(self, emsize=16, features_per_group=2, n_out=3):
        super().__init__()
        self.features_per_group = features_per_group
        self.encoder = nn.Linear(features_per_group, emsize)
        self.y_encoder = nn.Linear(2, emsize)   # value + nan indicator
        self.feature_attn = nn.MultiheadAttention(emsize, 2, batch_first=True)
        self.decoder = nn.Linear(emsize, n_out)

    def forward(self, x, y):
        single_eval_pos_ = y.shape[0]
        x = {"main": x}
        seq_len, batch_size, num_features = x["main"].shape
        y = {"main": y}

        for k in x:
            num_features_ = x[k].shape[2]

            # pad to multiple of features_per_group
            missing_to_next = (
                self.features_per_group - (num_features_ % self.features_per_group)
            ) % self.features_per_group

            if missing_to_next > 0:
                x[k] = torch.cat(
                    (
                        x[k],
                        torch.zeros(
                            seq_len,
                            batch_size,
                            missing_to_next,
                            device=x[k].device,
                            dtype=x[k].dtype,
                        ),
                    ),
                    dim=-1,
                )

        # Splits up the input into subgroups: "s b (f n) -> b s f n"
        for k in x:
            s, b, fn = x[k].shape
            x[k] = x[k].reshape(s, b, fn // self.features_per_group, self.features_per_group).permute(1, 0, 2, 3)

        for k in y:
            if y[k].ndim == 2:
                y[k] = y[k].unsqueeze(-1)  # s b -> s b 1
            y[k] = y[k].transpose(0, 1)  # s b 1 -> b s 1
            if y[k].shape[1] < x["main"].shape[1]:
                if y[k].shape[1] == single_eval_pos_:
                    y[k] = torch.cat(
                        (
                            y[k],
                            torch.nan
                            * torch.zeros(
                                y[k].shape[0],
                                x["main"].shape[1] - y[k].shape[1],
                                y[k].shape[2],
                                device=y[k].device,
                                dtype=y[k].dtype,
                            ),
                        ),
                        dim=1,
                    )
            y[k] = y[k].transpose(0, 1)  # b s 1 -> s b 1

        # making sure no label leakage ever happens
        y["main"][single_eval_pos_:] = torch.nan
        y_main = y["main"]
        embedded_y = self.y_encoder(
            torch.cat((torch.nan_to_num(y_main, nan=0.0), torch.isnan(y_main).to(y_main.dtype)), dim=-1)
        ).transpose(0, 1)  # b s e

        b, s, f, n = x["main"].shape
        embedded_x = self.encoder(x["main"])  # b s f e

        # b s f e + b s 1 e -> b s f+1 e
        embedded_input = torch.cat((embedded_x, embedded_y.unsqueeze(2)), dim=2)
        tokens = embedded_input.reshape(b * s, f + 1, -1)
        attn, _ = self.feature_attn(tokens, tokens, tokens, need_weights=False)
        encoder_out = (tokens + attn).reshape(b, s, f + 1, -1)

        test_encoder_out = encoder_out[:, single_eval_pos_:, -1].transpose(0, 1)  # s_test b e
        return self.decoder(test_encoder_out)


def _task(n_train, n_test, n_features):
    x = torch.randn(n_train + n_test, 1, n_features)
    y = torch.randint(0, 3, (n_train, 1)).float()
    return x, y


def make_model():
    return PerFeatureTransformer().eval()


def example_inputs():
    return _task(12, 4, 6)


def other_inputs():
    return [_task(20, 7, 5), _task(9, 3, 8), _task(15, 5, 3)]


def probe_inputs():
    return other_inputs()
