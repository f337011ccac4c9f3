"""NeuralForecast's univariate MLP forecaster, exported through the ONNX wrapper from the library's
"Converting Models to ONNX" tutorial (tensors in, `windows_batch` dict rebuilt inside). `forward` takes
`batch_size = len(insample_y)` and flattens the exogenous inputs with `.reshape(batch_size, -1)`; the
tutorial notes that "the batch size used when exporting to ONNX becomes fixed and you must use the same
batch size at inference" with the legacy exporter.

Source: https://github.com/Nixtla/neuralforecast/pull/1542
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {
    "insample_y": {0: "batch"},
    "futr_exog": {0: "batch"},
    "hist_exog": {0: "batch"},
    "stat_exog": {0: "batch"},
}
BLIND = "domains-31"


class MAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.outputsize_multiplier = 1


class MLP(nn.Module):
    def __init__(self, h=14, input_size=30, hist_exog_size=1, futr_exog_size=2, stat_exog_size=2,
                 num_layers=2, hidden_size=64):
        super().__init__()
        self.h = h
        self.input_size = input_size
        self.hist_exog_size = hist_exog_size
        self.futr_exog_size = futr_exog_size
        self.stat_exog_size = stat_exog_size
        self.loss = MAE()

        input_size_first_layer = (
            input_size
            + hist_exog_size * input_size
            + futr_exog_size * (input_size + h)
            + stat_exog_size
        )
        layers = [nn.Linear(in_features=input_size_first_layer, out_features=hidden_size)]
        for i in range(num_layers - 1):
            layers += [nn.Linear(in_features=hidden_size, out_features=hidden_size)]
        self.mlp = nn.ModuleList(layers)
        self.out = nn.Linear(in_features=hidden_size, out_features=h * self.loss.outputsize_multiplier)

    def forward(self, windows_batch):

        # Parse windows_batch
        insample_y = windows_batch["insample_y"].squeeze(-1)
        futr_exog = windows_batch["futr_exog"]
        hist_exog = windows_batch["hist_exog"]
        stat_exog = windows_batch["stat_exog"]

        # Flatten MLP inputs [B, L+H, C] -> [B, (L+H)*C]
        batch_size = len(insample_y)
        if self.hist_exog_size > 0:
            insample_y = torch.cat(
                (insample_y, hist_exog.reshape(batch_size, -1)), dim=1
            )

        if self.futr_exog_size > 0:
            insample_y = torch.cat(
                (insample_y, futr_exog.reshape(batch_size, -1)), dim=1
            )

        if self.stat_exog_size > 0:
            insample_y = torch.cat(
                (insample_y, stat_exog.reshape(batch_size, -1)), dim=1
            )

        y_pred = insample_y.clone()
        for layer in self.mlp:
            y_pred = torch.relu(layer(y_pred))
        y_pred = self.out(y_pred)

        y_pred = y_pred.reshape(batch_size, self.h, self.loss.outputsize_multiplier)
        return y_pred


class MLPONNXWrapper(nn.Module):
    def __init__(self, model: MLP):
        super().__init__()
        self.model = model.eval()

    def forward(self, insample_y, futr_exog, hist_exog, stat_exog):
        windows_batch = {
            "insample_y": insample_y,
            "insample_mask": None,
            "futr_exog": futr_exog,
            "hist_exog": hist_exog,
            "stat_exog": stat_exog,
        }
        return self.model(windows_batch)


def make_model():
    return MLPONNXWrapper(MLP()).eval()


def _inputs(B, L=30, h=14):
    return (
        torch.randn(B, L, 1),       # insample_y
        torch.randn(B, L + h, 2),   # futr_exog (input window + horizon)
        torch.randn(B, L, 1),       # hist_exog
        torch.randn(B, 2),          # stat_exog
    )


def example_inputs():
    return _inputs(4)


def other_inputs():
    return [_inputs(7), _inputs(2)]


def probe_inputs():
    return other_inputs()
