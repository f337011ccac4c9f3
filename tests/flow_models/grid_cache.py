"""ONX609, the cache rebuilt when it no longer matches: YOLOv7's Detect head keeps one decode grid
per level in a list on the module and rebuilds it only when the feature map's size differs; the
export script's dry run fills it. Exported at the dry run's size, both exporters keep the grid as a
constant, and other image sizes fail in onnxruntime. Fixed safely: the grid is rebuilt under export
(eager keeps its cache)."""
import torch
from torch import nn


class Detect(nn.Module):
    def __init__(self, channels=(4, 8), no=6):
        super().__init__()
        self.no = no
        self.grid = [torch.zeros(1)] * len(channels)
        self.m = nn.ModuleList(nn.Conv2d(c, no, 1) for c in channels)

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, ny, nx, 2)).float()

    def forward(self, features):
        z = []
        for i, x in enumerate(features):
            x = self.m[i](x).permute(0, 2, 3, 1)  # (bs, ny, nx, no)
            bs, ny, nx, _ = x.shape
            if self.grid[i].shape[1:3] != x.shape[1:3]:
                self.grid[i] = self._make_grid(nx, ny).to(x.device)
            y = x.sigmoid()
            xy = (y[..., 0:2] * 2.0 - 0.5 + self.grid[i]) * 2 ** (i + 3)
            z.append(torch.cat((xy, y[..., 2:]), -1).view(bs, -1, self.no))
        return torch.cat(z, 1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.p3 = nn.Conv2d(3, 4, 3, 8, 1)
        self.p4 = nn.Conv2d(4, 8, 3, 2, 1)
        self.detect = Detect()

    def forward(self, img):
        p3 = self.p3(img)
        return self.detect([p3, self.p4(p3)])


def make_model():
    torch.manual_seed(0)
    model = Net().eval()
    with torch.no_grad():
        model(torch.zeros(1, 3, 64, 64))  # the export script's dry run
    return model


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def probe_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(3, 3, 64, 128),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
