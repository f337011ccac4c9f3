"""RMVPE pitch estimator (RVC): a user wraps the whole RMVPE process (mel2hidden + decode) into one module to
export a single ONNX model; `mel2hidden` pads the mel frames to a multiple of 32 and runs the E2E net, then
the salience goes through `hidden.squeeze(0).cpu().numpy()` and the NumPy `decode` /
`to_local_average_cents` (np.argmax, np.pad, a per-frame Python loop, masked assignment), so the export
fails.

Source: https://github.com/w-okada/voice-changer/issues/1040
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"mel": {2: "n_frames"}}
BLIND = "domains-15"


class BiGRU(nn.Module):
    def __init__(self, input_features, hidden_features, num_layers):
        super(BiGRU, self).__init__()
        self.gru = nn.GRU(input_features, hidden_features, num_layers=num_layers, batch_first=True,
                          bidirectional=True)

    def forward(self, x):
        return self.gru(x)[0]


class E2E(nn.Module):
    """Trimmed: the DeepUnet is reduced to two conv blocks; the head is the original cnn + BiGRU + Linear(360)."""

    def __init__(self, n_gru=1, en_out_channels=4, n_mels=32):
        super(E2E, self).__init__()
        self.unet = nn.Sequential(nn.Conv2d(1, en_out_channels, 3, padding=1), nn.BatchNorm2d(en_out_channels),
                                  nn.ReLU(), nn.Conv2d(en_out_channels, en_out_channels, 3, padding=1))
        self.cnn = nn.Conv2d(en_out_channels, 3, (3, 3), padding=(1, 1))
        self.fc = nn.Sequential(BiGRU(3 * n_mels, 16, n_gru), nn.Linear(32, 360), nn.Dropout(0.25), nn.Sigmoid())

    def forward(self, mel):
        mel = mel.transpose(-1, -2).unsqueeze(1)
        x = self.cnn(self.unet(mel)).transpose(1, 2).flatten(-2)
        x = self.fc(x)
        return x


class RMVPE(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = E2E()
        cents_mapping = 20 * np.arange(360) + 1997.3794084376191
        self.cents_mapping = np.pad(cents_mapping, (4, 4))  # 368

    def mel2hidden(self, mel):
        with torch.no_grad():
            n_frames = mel.shape[-1]
            mel = F.pad(mel, (0, 32 * ((n_frames - 1) // 32 + 1) - n_frames), mode="reflect")
            hidden = self.model(mel)
            return hidden[:, :n_frames]

    def decode(self, hidden, thred=0.03):
        cents_pred = self.to_local_average_cents(hidden, thred=thred)
        f0 = 10 * (2 ** (cents_pred / 1200))
        f0[f0 == 10] = 0
        return f0

    def to_local_average_cents(self, salience, thred=0.05):
        center = np.argmax(salience, axis=1)  # 帧长#index
        salience = np.pad(salience, ((0, 0), (4, 4)))  # 帧长,368
        center += 4
        todo_salience = []
        todo_cents_mapping = []
        starts = center - 4
        ends = center + 5
        for idx in range(salience.shape[0]):
            todo_salience.append(salience[:, starts[idx]: ends[idx]][idx])
            todo_cents_mapping.append(self.cents_mapping[starts[idx]: ends[idx]])
        todo_salience = np.array(todo_salience)  # 帧长，9
        todo_cents_mapping = np.array(todo_cents_mapping)  # 帧长，9
        product_sum = np.sum(todo_salience * todo_cents_mapping, 1)
        weight_sum = np.sum(todo_salience, 1)  # 帧长
        devided = product_sum / weight_sum  # 帧长
        maxx = np.max(salience, axis=1)  # 帧长
        devided[maxx <= thred] = 0
        return devided

    def forward(self, mel):
        hidden = self.mel2hidden(mel)
        hidden = hidden.squeeze(0).cpu().numpy()
        f0 = self.decode(hidden, thred=0.03)
        return torch.from_numpy(f0).float()


def make_model():
    return RMVPE().eval()


def example_inputs():
    return (torch.randn(1, 32, 50),)


def other_inputs():
    return [(torch.randn(1, 32, 100),), (torch.randn(1, 32, 37),)]


def probe_inputs():
    return other_inputs()
