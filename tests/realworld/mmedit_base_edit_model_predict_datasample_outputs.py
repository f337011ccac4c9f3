"""MMEditing 1.x super-resolution model (`BaseEditModel` around an SRCNN-style generator): `forward(inputs,
data_samples=None, mode='predict')` runs the generator, de-normalizes, wraps the result in a stacked `DataSample`
and returns it split into a list of per-image data samples, so the exporter gets no tensor outputs; mmdeploy's
mmedit-2.0 support had to rewrite `BaseEditModel.forward` to return `self.forward_tensor(...)` instead.

Source: https://github.com/open-mmlab/mmdeploy/pull/1017
"""
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-38"


class DataSample:
    """Minimal stand-in for mmedit's DataSample (an mmengine BaseDataElement)."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)

    def set_tensor_data(self, data):
        for k, v in data.items():
            setattr(self, k, v)

    def split(self):
        keys = list(vars(self))
        n = len(getattr(self, keys[0]))
        return [DataSample(**{k: getattr(self, k)[i] for k in keys}) for i in range(n)]


class EditDataPreprocessor(nn.Module):
    def __init__(self, mean=(0., 0., 0.), std=(255., 255., 255.)):
        super().__init__()
        self.register_buffer('mean', torch.tensor(mean).view(1, -1, 1, 1))
        self.register_buffer('std', torch.tensor(std).view(1, -1, 1, 1))

    def destruct(self, outputs, data_samples=None, key='img'):
        return outputs * self.std + self.mean


class SRCNNNet(nn.Module):
    def __init__(self, channels=(3, 16, 8, 3), kernel_sizes=(9, 1, 5), upscale_factor=2):
        super().__init__()
        self.upscale_factor = upscale_factor
        self.img_upsampler = nn.Upsample(scale_factor=self.upscale_factor, mode='bicubic', align_corners=False)
        self.conv1 = nn.Conv2d(channels[0], channels[1], kernel_size=kernel_sizes[0], padding=kernel_sizes[0] // 2)
        self.conv2 = nn.Conv2d(channels[1], channels[2], kernel_size=kernel_sizes[1], padding=kernel_sizes[1] // 2)
        self.conv3 = nn.Conv2d(channels[2], channels[3], kernel_size=kernel_sizes[2], padding=kernel_sizes[2] // 2)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.img_upsampler(x)
        out = self.relu(self.conv1(x))
        out = self.relu(self.conv2(out))
        return self.conv3(out)


class BaseEditModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = SRCNNNet()
        self.data_preprocessor = EditDataPreprocessor()

    def forward(self, inputs: torch.Tensor, data_samples: Optional[List[DataSample]] = None,
                mode: str = 'predict', **kwargs):
        if isinstance(inputs, dict):
            inputs = inputs['img']
        if mode == 'tensor':
            return self.forward_tensor(inputs, data_samples, **kwargs)

        elif mode == 'predict':
            predictions = self.forward_inference(inputs, data_samples, **kwargs)
            predictions = self.convert_to_datasample(predictions, data_samples, inputs)
            return predictions

        elif mode == 'loss':
            return self.forward_train(inputs, data_samples, **kwargs)

    def convert_to_datasample(self, predictions, data_samples, inputs):
        if data_samples is None:
            data_samples = DataSample()
        if inputs is not None:
            destructed_input = self.data_preprocessor.destruct(inputs, data_samples, 'img')
            data_samples.set_tensor_data({'input': destructed_input})
        # split to list of data samples
        data_samples = data_samples.split()
        predictions = predictions.split()

        for data_sample, pred in zip(data_samples, predictions):
            data_sample.output = pred

        return data_samples

    def forward_tensor(self, inputs, data_samples=None, **kwargs):
        feats = self.generator(inputs, **kwargs)
        return feats

    def forward_inference(self, inputs, data_samples=None, **kwargs):
        feats = self.forward_tensor(inputs, data_samples, **kwargs)
        feats = self.data_preprocessor.destruct(feats, data_samples)

        # create a stacked data sample here
        predictions = DataSample(pred_img=feats.cpu())

        return predictions

    def forward_train(self, inputs, data_samples=None, **kwargs):
        feats = self.forward_tensor(inputs, data_samples, **kwargs)
        return dict(loss=F.l1_loss(feats, data_samples.gt_img))


def make_model():
    return BaseEditModel().eval()


def example_inputs():
    return (torch.rand(1, 3, 24, 32),)


def other_inputs():
    return [(torch.rand(2, 3, 32, 24),), (torch.rand(1, 3, 40, 40),)]


def probe_inputs():
    return other_inputs()
