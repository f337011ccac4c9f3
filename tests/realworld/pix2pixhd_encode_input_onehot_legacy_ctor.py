"""pix2pixHD inference: `encode_input` builds the one-hot label map and the instance edge map with
legacy constructors from sizes (`FloatTensor(torch.Size(oneHot_size)).zero_()`,
`ByteTensor(t.size()).zero_()`); the exporter warns "Converting a tensor to a Python index" on both.

Source: https://github.com/NVIDIA/pix2pixHD/issues/210
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"label_map": {0: "batch", 2: "height", 3: "width"},
           "inst_map": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-7"


class Pix2PixHDModel(nn.Module):
    def __init__(self, label_nc=6, output_nc=3, ngf=8):
        super().__init__()
        self.label_nc = label_nc
        netG_input_nc = label_nc + 1
        self.netG = nn.Sequential(
            nn.ReflectionPad2d(3), nn.Conv2d(netG_input_nc, ngf, kernel_size=7, padding=0),
            nn.InstanceNorm2d(ngf), nn.ReLU(True),
            nn.ReflectionPad2d(3), nn.Conv2d(ngf, output_nc, kernel_size=7, padding=0), nn.Tanh())

    def get_edges(self, t):
        edge = torch.ByteTensor(t.size()).zero_()
        edge[:,:,:,1:] = edge[:,:,:,1:] | (t[:,:,:,1:] != t[:,:,:,:-1])
        edge[:,:,:,:-1] = edge[:,:,:,:-1] | (t[:,:,:,1:] != t[:,:,:,:-1])
        edge[:,:,1:,:] = edge[:,:,1:,:] | (t[:,:,1:,:] != t[:,:,:-1,:])
        edge[:,:,:-1,:] = edge[:,:,:-1,:] | (t[:,:,1:,:] != t[:,:,:-1,:])
        return edge.float()

    def encode_input(self, label_map, inst_map):
        # create one-hot vector for label map
        size = label_map.size()
        oneHot_size = (size[0], self.label_nc, size[2], size[3])
        input_label = torch.FloatTensor(torch.Size(oneHot_size)).zero_()
        input_label = input_label.scatter_(1, label_map.data.long(), 1.0)

        # get edges from instance map
        edge_map = self.get_edges(inst_map)
        input_label = torch.cat((input_label, edge_map), dim=1)
        return input_label

    def forward(self, label_map, inst_map):
        input_label = self.encode_input(label_map, inst_map)
        fake_image = self.netG(input_label)
        return fake_image


def make_model():
    return Pix2PixHDModel().eval()


def _inputs(b, h, w):
    label = torch.randint(0, 6, (b, 1, h, w)).float()
    inst = torch.randint(0, 4, (b, 1, h, w)).float()
    return (label, inst)


def example_inputs():
    return _inputs(2, 16, 16)


def other_inputs():
    return [_inputs(3, 24, 12), _inputs(1, 10, 20)]


def probe_inputs():
    return other_inputs()
