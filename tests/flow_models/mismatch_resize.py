"""ONX607 on a resize taken only when the sizes differ: fastai's (and DeOldify's) U-Net block
upsamples the decoder features and resizes them to the skip connection only `if ssh !=
up_out.shape[-2:]`. Both exporters decide the test on the example and keep one branch: exported
from an image whose sizes match, the resize is dropped and onnxruntime fails in the Concat for
sizes that do not (odd ones). Under export the resize is taken always: a nearest resize to the
size the features already have gives them back exactly, so eager keeps the test (safe). IGEV's
Conv2x compares whole shapes and resizes to the skip's last two sizes (`if x.shape != rem.shape: x =
F.interpolate(x, size=(rem.shape[-2], rem.shape[-1]))`): where the shapes are equal, so are those."""
import torch
import torch.nn.functional as F
from torch import nn


class UnetBlock(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c, 2, stride=2)
        self.conv = nn.Conv2d(2 * c, c, 3, padding=1)

    def forward(self, up_in, s):
        up_out = self.up(up_in)
        ssh = s.shape[-2:]
        if ssh != up_out.shape[-2:]:
            up_out = F.interpolate(up_out, s.shape[-2:], mode='nearest')
        return self.conv(torch.cat([up_out, s], dim=1))


class Conv2x(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv1 = nn.ConvTranspose2d(c, c, 4, stride=2, padding=1)

    def forward(self, x, rem):
        x = self.conv1(x)
        if x.shape != rem.shape:
            x = F.interpolate(
                x,
                size=(rem.shape[-2], rem.shape[-1]),
                mode='nearest')
        return x + rem


class TinyUnet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
        self.block = UnetBlock(c)
        self.deconv = Conv2x(c)

    def forward(self, x):
        s = self.stem(x)
        return self.block(self.down(s), s) + self.deconv(self.down(s), s)


def make_model():
    torch.manual_seed(0)
    return TinyUnet()


def example_inputs():
    return (torch.randn(1, 3, 16, 20),)


def probe_inputs():
    return [(torch.randn(2, 3, 17, 21),), (torch.randn(1, 3, 12, 15),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
