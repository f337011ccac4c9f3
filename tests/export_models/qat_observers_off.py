"""A QAT model prepared with torch.ao.quantization's fused fake-quantizers (the default QAT qconfig),
its observers then disabled for export: FusedMovingAvgObsFakeQuantize calls
torch.fused_moving_avg_obs_fake_quant, which neither exporter translates, and a plain
FakeQuantize reads its flags out of buffers (`if self.fake_quant_enabled[0] == 1:`), on which
torch.export cannot guard."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.relu = nn.ReLU()
        self.dequant = torch.ao.quantization.DeQuantStub()
        self.plain = torch.ao.quantization.FakeQuantize()

    def forward(self, x):
        x = self.relu(self.conv(self.quant(x)))
        return self.plain(self.dequant(x))


def make_model():
    torch.manual_seed(0)
    model = Net().train()
    model.qconfig = torch.ao.quantization.get_default_qat_qconfig("fbgemm")
    torch.ao.quantization.prepare_qat(model, inplace=True)
    for _ in range(3):
        model(torch.randn(2, 3, 12, 12))
    model.apply(torch.ao.quantization.disable_observer)
    return model


def example_inputs():
    return (torch.randn(2, 3, 12, 12),)


def probe_inputs():
    return [(torch.randn(3, 3, 16, 10) * 3,), (torch.randn(1, 3, 9, 9),)]
