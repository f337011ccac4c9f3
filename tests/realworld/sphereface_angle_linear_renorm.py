"""SphereFace (A-Softmax face recognition): the AngleLinear classification head renormalises its weight
columns in forward with `w.renorm(2,1,1e-5).mul(1e5)` before the cosine/phi computation; export fails with
"ONNX export failed: Couldn't export operator renorm".

Source: https://github.com/onnx/onnx/issues/627
"""
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.nn import Parameter

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-4"


class AngleLinear(nn.Module):
    def __init__(self, in_features, out_features, m=4, phiflag=True):
        super(AngleLinear, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.Tensor(in_features, out_features))
        self.weight.data.uniform_(-1, 1).renorm_(2, 1, 1e-5).mul_(1e5)
        self.phiflag = phiflag
        self.m = m
        self.mlambda = [
            lambda x: x**0,
            lambda x: x**1,
            lambda x: 2*x**2-1,
            lambda x: 4*x**3-3*x,
            lambda x: 8*x**4-8*x**2+1,
            lambda x: 16*x**5-20*x**3+5*x
        ]

    def forward(self, input):
        x = input   # size=(B,F)    F is feature len
        w = self.weight  # size=(F,Classnum) F=in_features Classnum=out_features

        ww = w.renorm(2, 1, 1e-5).mul(1e5)
        xlen = x.pow(2).sum(1).pow(0.5)  # size=B
        wlen = ww.pow(2).sum(0).pow(0.5)  # size=Classnum

        cos_theta = x.mm(ww)  # size=(B,Classnum)
        cos_theta = cos_theta / xlen.view(-1, 1) / wlen.view(1, -1)
        cos_theta = cos_theta.clamp(-1, 1)

        if self.phiflag:
            cos_m_theta = self.mlambda[self.m](cos_theta)
            theta = Variable(cos_theta.data.acos())
            k = (self.m*theta/3.14159265).floor()
            n_one = k*0.0 - 1
            phi_theta = (n_one**k) * cos_m_theta - 2*k

        cos_theta = cos_theta * xlen.view(-1, 1)
        phi_theta = phi_theta * xlen.view(-1, 1)
        output = (cos_theta, phi_theta)
        return output  # size=(B,Classnum,2)


class Sphere(nn.Module):
    """A few sphere20a stages (input B*3*112*96) and the fc5/fc6 head."""

    def __init__(self, classnum=100):
        super(Sphere, self).__init__()
        self.conv1_1 = nn.Conv2d(3, 16, 3, 2, 1)  # =>B*16*56*48
        self.relu1_1 = nn.PReLU(16)
        self.conv2_1 = nn.Conv2d(16, 32, 3, 2, 1)  # =>B*32*28*24
        self.relu2_1 = nn.PReLU(32)
        self.conv3_1 = nn.Conv2d(32, 64, 3, 2, 1)  # =>B*64*14*12
        self.relu3_1 = nn.PReLU(64)
        self.conv4_1 = nn.Conv2d(64, 128, 3, 2, 1)  # =>B*128*7*6
        self.relu4_1 = nn.PReLU(128)
        self.fc5 = nn.Linear(128*7*6, 512)
        self.fc6 = AngleLinear(512, classnum)

    def forward(self, x):
        x = self.relu1_1(self.conv1_1(x))
        x = self.relu2_1(self.conv2_1(x))
        x = self.relu3_1(self.conv3_1(x))
        x = self.relu4_1(self.conv4_1(x))
        x = x.view(x.size(0), -1)
        x = self.fc5(x)
        x = self.fc6(x)
        return x


def make_model():
    return Sphere().eval()


def example_inputs():
    return (torch.randn(2, 3, 112, 96),)


def other_inputs():
    return [(torch.randn(5, 3, 112, 96),), (torch.randn(1, 3, 112, 96),)]


def probe_inputs():
    return other_inputs()
