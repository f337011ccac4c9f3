"""A multi-task U-Net (init_features=32, one 1x1 head per predicted field) is quantized with eager-mode
static quantization (qnnpack qconfig, `torch.quantization.prepare` / `convert`, no module fusion), so each
Conv2d -> BatchNorm2d -> ReLU block keeps a standalone quantized BatchNorm2d; export fails with
"Exporting the operator 'quantized::batch_norm2d' to ONNX opset version 14 is not supported".

Source: https://github.com/pytorch/pytorch/issues/128323
"""
from collections import OrderedDict

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-46"

N_INPUT_CHANNELS = 3
TARGET_SIZE = (32, 32)
FIELDS_TO_PREDICT = {"pressure": 1, "velocity": 2}


class MultiTaskUnet(nn.Module):
    def __init__(self, n_input_channels=3, output_tasks=("pressure",), autoencoder_task=False, init_features=32):
        super().__init__()
        features = init_features
        self.output_tasks = list(output_tasks)
        self.autoencoder_task = autoencoder_task
        self.quant = torch.quantization.QuantStub()
        self.encoder1 = MultiTaskUnet._block(n_input_channels, features, name="enc1")
        self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.encoder2 = MultiTaskUnet._block(features, features * 2, name="enc2")
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.bottleneck = MultiTaskUnet._block(features * 2, features * 4, name="bottleneck")
        self.upconv2 = nn.ConvTranspose2d(features * 4, features * 2, kernel_size=2, stride=2)
        self.decoder2 = MultiTaskUnet._block(features * 4, features * 2, name="dec2")
        self.upconv1 = nn.ConvTranspose2d(features * 2, features, kernel_size=2, stride=2)
        self.decoder1 = MultiTaskUnet._block(features * 2, features, name="dec1")
        self.heads = nn.ModuleDict(
            {task: nn.Conv2d(features, FIELDS_TO_PREDICT[task], kernel_size=1) for task in self.output_tasks}
        )
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        enc1 = self.encoder1(x)
        enc2 = self.encoder2(self.pool1(enc1))
        bottleneck = self.bottleneck(self.pool2(enc2))
        dec2 = self.upconv2(bottleneck)
        dec2 = torch.cat((dec2, enc2), dim=1)
        dec2 = self.decoder2(dec2)
        dec1 = self.upconv1(dec2)
        dec1 = torch.cat((dec1, enc1), dim=1)
        dec1 = self.decoder1(dec1)
        outputs = [self.heads[task](dec1) for task in self.output_tasks]
        return self.dequant(torch.cat(outputs, dim=1))

    @staticmethod
    def _block(in_channels, features, name):
        return nn.Sequential(
            OrderedDict(
                [
                    (name + "conv1", nn.Conv2d(in_channels, features, kernel_size=3, padding=1, bias=False)),
                    (name + "norm1", nn.BatchNorm2d(num_features=features)),
                    (name + "relu1", nn.ReLU(inplace=True)),
                    (name + "conv2", nn.Conv2d(features, features, kernel_size=3, padding=1, bias=False)),
                    (name + "norm2", nn.BatchNorm2d(num_features=features)),
                    (name + "relu2", nn.ReLU(inplace=True)),
                ]
            )
        )


def make_model():
    model = MultiTaskUnet(n_input_channels=N_INPUT_CHANNELS, output_tasks=list(FIELDS_TO_PREDICT.keys()),
                          autoencoder_task=False, init_features=32)
    model.train()
    torch.backends.quantized.engine = "qnnpack"
    model.qconfig = torch.quantization.get_default_qconfig('qnnpack')
    model_prepared = torch.quantization.prepare(model)
    model_prepared.eval()
    with torch.no_grad():  # a calibration pass
        model_prepared(torch.randn(4, N_INPUT_CHANNELS, *TARGET_SIZE))
    model_int8 = torch.quantization.convert(model_prepared)
    model_int8.eval()
    return model_int8


def example_inputs():
    return (torch.randn(1, N_INPUT_CHANNELS, *TARGET_SIZE),)


def other_inputs():
    return [(torch.randn(3, N_INPUT_CHANNELS, *TARGET_SIZE),), (torch.randn(2, N_INPUT_CHANNELS, *TARGET_SIZE),)]


def probe_inputs():
    return other_inputs()
