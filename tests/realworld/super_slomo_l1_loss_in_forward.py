"""Super-SloMo frame interpolation (TorchBench `Super_SloMo`) computes its training loss inside
forward with a module-level `L1_lossFn = nn.L1Loss()` (plus `MSE_LossFn`, smoothness terms) and
returns `(Ft_p, loss)`; exporting it fails with "Exporting the operator 'aten::l1_loss' to ONNX
opset version 17 is not supported". The two UNets and the VGG perceptual branch are cut down to
small conv stacks; the loss lines follow the benchmark's model_wrapper.py.

Source: https://github.com/pytorch/pytorch/issues/100913
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"I0": {0: "batch", 2: "height", 3: "width"},
           "I1": {0: "batch", 2: "height", 3: "width"},
           "IFrame": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"

L1_lossFn = nn.L1Loss()
MSE_LossFn = nn.MSELoss()


def small_unet(inChannels, outChannels):
    return nn.Sequential(nn.Conv2d(inChannels, 16, 3, padding=1), nn.LeakyReLU(0.1),
                         nn.Conv2d(16, 16, 3, padding=1), nn.LeakyReLU(0.1),
                         nn.Conv2d(16, outChannels, 3, padding=1))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.flowComp = small_unet(6, 4)
        self.ArbTimeFlowIntrp = small_unet(10, 5)
        self.vgg16_conv_4_3 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())

    def forward(self, I0, I1, IFrame):
        flowOut = self.flowComp(torch.cat((I0, I1), dim=1))
        F_0_1 = flowOut[:, :2, :, :]
        F_1_0 = flowOut[:, 2:, :, :]
        intrpOut = self.ArbTimeFlowIntrp(torch.cat((I0, I1, F_0_1, F_1_0), dim=1))
        V_t_0 = F.sigmoid(intrpOut[:, 4:5, :, :])
        V_t_1 = 1 - V_t_0
        Ft_p = (0.5 * V_t_0 * I0 + 0.5 * V_t_1 * I1) / (0.5 * V_t_0 + 0.5 * V_t_1)

        # Loss
        recnLoss = L1_lossFn(Ft_p, IFrame)
        prcpLoss = MSE_LossFn(self.vgg16_conv_4_3(Ft_p), self.vgg16_conv_4_3(IFrame))
        warpLoss = L1_lossFn(I0, IFrame) + L1_lossFn(I1, IFrame)
        loss_smooth_1_0 = torch.mean(torch.abs(F_1_0[:, :, :, :-1] - F_1_0[:, :, :, 1:])) + torch.mean(torch.abs(F_1_0[:, :, :-1, :] - F_1_0[:, :, 1:, :]))
        loss_smooth_0_1 = torch.mean(torch.abs(F_0_1[:, :, :, :-1] - F_0_1[:, :, :, 1:])) + torch.mean(torch.abs(F_0_1[:, :, :-1, :] - F_0_1[:, :, 1:, :]))
        loss_smooth = loss_smooth_1_0 + loss_smooth_0_1
        loss = 204 * recnLoss + 102 * warpLoss + 0.005 * prcpLoss + loss_smooth
        return Ft_p, loss


def make_model():
    return Model().eval()


def _frames(b, h, w):
    return (torch.rand(b, 3, h, w), torch.rand(b, 3, h, w), torch.rand(b, 3, h, w))


def example_inputs():
    return _frames(2, 64, 64)


def other_inputs():
    return [_frames(1, 48, 80), _frames(3, 32, 40)]


def probe_inputs():
    return other_inputs()
