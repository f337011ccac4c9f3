"""PaDiM anomaly detection: `embedding_concat` aligns the layer-1 and layer-2 feature maps with F.unfold,
concatenates them patch by patch and folds them back with `nn.Fold(output_size=(H1, W1), ...)`; exporting at
opset 18 fails with "TypeError: 'NoneType' object is not subscriptable (Occurred when translating col2im)".

Source: https://github.com/pytorch/pytorch/issues/105134
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch"}}
BLIND = "operators-4"


class embedding_concat(nn.Module):
    def __init__(self):
        super(embedding_concat, self).__init__()

    def forward(self, x, y):
        B, C1, H1, W1 = x.size()
        _, C2, H2, W2 = y.size()
        s = int(H1 / H2)
        x = F.unfold(x, kernel_size=s, dilation=1, stride=s)
        x = x.view(B, C1, -1, H2, W2)
        z = torch.zeros(B, C1 + C2, x.size(2), H2, W2)
        for i in range(x.size(2)):
            z[:, :, i, :, :] = torch.cat((x[:, :, i, :, :], y), 1)
        z = z.view(B, -1, H2 * W2)
        fold = nn.Fold(output_size=(H1, W1), kernel_size=s, stride=s)
        z = fold(z)

        return z


class PaDiMEmbedding(nn.Module):
    """ResNet-like layer1/layer2 features followed by PaDiM's embedding concat."""

    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(3, 16, 3, 4, 1), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.concat = embedding_concat()

    def forward(self, img):
        f1 = self.layer1(img)  # B*16*56*56
        f2 = self.layer2(f1)  # B*32*28*28
        return self.concat(f1, f2)


def make_model():
    return PaDiMEmbedding().eval()


def example_inputs():
    return (torch.randn(2, 3, 224, 224),)


def other_inputs():
    return [(torch.randn(3, 3, 224, 224),), (torch.randn(1, 3, 224, 224),)]


def probe_inputs():
    return other_inputs()
