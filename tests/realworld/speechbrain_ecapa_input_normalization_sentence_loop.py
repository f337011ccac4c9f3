"""SpeechBrain ECAPA speaker encoder (`encode_batch`): features go through `mean_var_norm`, an
`InputNormalization(norm_type="sentence", std_norm=False)` whose forward loops `for snt_id in range(N_batches)`
over the batch, takes `actual_size = torch.round(lengths[snt_id] * x.shape[1]).int()` per utterance and writes
`x[snt_id] = (x[snt_id] - current_mean) / current_std` in place; the exported (traced) model gives embeddings that
differ from the pretrained model's.

Source: https://github.com/speechbrain/speechbrain/issues/2129
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"feats": {0: "batch", 1: "frames"}, "wav_lens": {0: "batch"}}
BLIND = "domains-27"


class InputNormalization(torch.nn.Module):
    def __init__(self, mean_norm=True, std_norm=True, norm_type="global", avg_factor=None,
                 requires_grad=False, update_until_epoch=3):
        super().__init__()
        self.mean_norm = mean_norm
        self.std_norm = std_norm
        self.norm_type = norm_type
        self.avg_factor = avg_factor
        self.requires_grad = requires_grad
        self.glob_mean = torch.tensor([0])
        self.glob_std = torch.tensor([0])
        self.eps = 1e-10
        self.update_until_epoch = update_until_epoch

    def forward(self, x, lengths, spk_ids=torch.tensor([]), epoch=0):
        N_batches = x.shape[0]

        current_means = []
        current_stds = []

        for snt_id in range(N_batches):

            # Avoiding padded time steps
            actual_size = torch.round(lengths[snt_id] * x.shape[1]).int()

            # computing statistics
            current_mean, current_std = self._compute_current_stats(
                x[snt_id, 0:actual_size, ...]
            )

            current_means.append(current_mean)
            current_stds.append(current_std)

            if self.norm_type == "sentence":

                x[snt_id] = (x[snt_id] - current_mean.data) / current_std.data

        if self.norm_type == "batch":
            current_mean = torch.mean(torch.stack(current_means), dim=0)
            current_std = torch.mean(torch.stack(current_stds), dim=0)
            x = (x - current_mean.data) / (current_std.data)

        return x

    def _compute_current_stats(self, x):
        # Compute current mean
        if self.mean_norm:
            current_mean = torch.mean(x, dim=0).detach().data
        else:
            current_mean = torch.tensor([0.0], device=x.device)

        # Compute current std
        if self.std_norm:
            current_std = torch.std(x, dim=0).detach().data
        else:
            current_std = torch.tensor([1.0], device=x.device)

        # Improving numerical stability of std
        current_std = torch.max(
            current_std, self.eps * torch.ones_like(current_std)
        )

        return current_mean, current_std


class TinyEmbeddingModel(nn.Module):
    """Stand-in for ECAPA_TDNN: a TDNN block and mean/std statistics pooling over time."""

    def __init__(self, input_size=24, channels=32, lin_neurons=16):
        super().__init__()
        self.tdnn = nn.Sequential(nn.Conv1d(input_size, channels, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(channels))
        self.fc = nn.Linear(2 * channels, lin_neurons)

    def forward(self, x, lengths=None):
        x = self.tdnn(x.transpose(1, 2))
        stats = torch.cat([x.mean(dim=2), x.std(dim=2)], dim=1)
        return self.fc(stats).unsqueeze(1)


class Encoder(nn.Module):
    """The `encode_batch` pipeline of the report, from filterbank features on."""

    def __init__(self):
        super().__init__()
        self.mean_var_norm = InputNormalization(norm_type="sentence", std_norm=False)
        self.embedding_model = TinyEmbeddingModel()

    def forward(self, feats, wav_lens):
        feats = self.mean_var_norm(feats, wav_lens)
        embeddings = self.embedding_model(feats, wav_lens)
        return embeddings


def make_model():
    return Encoder().eval()


def example_inputs():
    return (torch.randn(2, 50, 24) + 3.0, torch.tensor([1.0, 0.8]))


def other_inputs():
    return [
        (torch.randn(3, 70, 24) + 3.0, torch.tensor([0.6, 1.0, 0.9])),
        (torch.randn(1, 33, 24) + 3.0, torch.tensor([1.0])),
    ]


def probe_inputs():
    return other_inputs()
