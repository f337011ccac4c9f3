"""Person re-ID baseline (ft_net, ResNet-50 + ClassBlock): train.py wraps the model in
`torch.compile(model, mode="reduce-overhead", dynamic=True)`, so test.py's `load_network` can only load the
`_orig_mod.`-prefixed checkpoint after `torch.compile(network, mode="default", dynamic=True)`; exporting that
test model with `torch.onnx.export(the_model, x, ...)` fails ("Detected that you are using FX to torch.jit.trace
a dynamo-optimized function. This is not supported at the moment.").
(torchvision resnet50 trimmed to a stem and one bottleneck per stage; checkpoint loading left out.)

Source: https://github.com/layumi/Person_reID_baseline_pytorch/issues/408
"""
import torch
from torch import nn
from torch.nn import init

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"args": {0: "batch"}}   # OptimizedModule.forward(*args, **kwargs)
BLIND = "domains-85"


def weights_init_kaiming(m):
    classname = m.__class__.__name__
    if classname.find('Linear') != -1:
        init.kaiming_normal_(m.weight.data, a=0, mode='fan_out')
        init.constant_(m.bias.data, 0.0)
    elif classname.find('BatchNorm1d') != -1:
        init.normal_(m.weight.data, 1.0, 0.02)
        init.constant_(m.bias.data, 0.0)


class Bottleneck(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes * 4, 1, stride=stride, bias=False),
                                        nn.BatchNorm2d(planes * 4))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + self.downsample(x))


class ResNet(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = Bottleneck(width, width)
        self.layer2 = Bottleneck(width * 4, width * 2, stride=2)
        self.layer3 = Bottleneck(width * 8, width * 4, stride=2)
        self.layer4 = Bottleneck(width * 16, width * 8, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 32, 1000)


class ClassBlock(nn.Module):
    def __init__(self, input_dim, class_num, droprate, relu=False, bnorm=True, linear=512, return_f=False):
        super(ClassBlock, self).__init__()
        self.return_f = return_f
        add_block = []
        if linear > 0:
            add_block += [nn.Linear(input_dim, linear)]
        else:
            linear = input_dim
        if bnorm:
            add_block += [nn.BatchNorm1d(linear)]
        if relu:
            add_block += [nn.LeakyReLU(0.1)]
        if droprate > 0:
            add_block += [nn.Dropout(p=droprate)]
        add_block = nn.Sequential(*add_block)
        add_block.apply(weights_init_kaiming)
        classifier = nn.Sequential(nn.Linear(linear, class_num))
        self.add_block = add_block
        self.classifier = classifier

    def forward(self, x):
        x = self.add_block(x)
        if self.return_f:
            f = x
            x = self.classifier(x)
            return [x, f]
        else:
            x = self.classifier(x)
            return x


class ft_net(nn.Module):
    def __init__(self, class_num=751, droprate=0.5, stride=2, circle=False, ibn=False, linear_num=512):
        super(ft_net, self).__init__()
        model_ft = ResNet()
        model_ft.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.model = model_ft
        self.circle = circle
        self.classifier = ClassBlock(256, class_num, droprate, linear=linear_num, return_f=circle)

    def forward(self, x):
        x = self.model.conv1(x)
        x = self.model.bn1(x)
        x = self.model.relu(x)
        x = self.model.maxpool(x)
        x = self.model.layer1(x)
        x = self.model.layer2(x)
        x = self.model.layer3(x)
        x = self.model.layer4(x)
        x = self.model.avgpool(x)
        x = x.view(x.size(0), x.size(1))
        x = self.classifier(x)
        return x


def load_network(network):
    # test.py: the checkpoint saved by the compiled training model only loads into a compiled network
    network = torch.compile(network, mode="default", dynamic=True)  # pytorch 2.0
    return network


def make_model():
    model = load_network(ft_net(751, linear_num=512))
    model.classifier.classifier = nn.Sequential()   # test.py: drop the final classifier, keep the feature
    return model.eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 128, 64),), (torch.randn(1, 3, 128, 64),)]


def probe_inputs():
    return other_inputs()
