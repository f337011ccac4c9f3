"""deep-text-recognition-benchmark (clovaai scene-text recognizer, None-VGG-BiLSTM-CTC): `Model.forward` pools the
feature map with `self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((None, 1))` after `permute(0, 3, 1, 2)` so the image
width becomes the sequence axis; `torch.onnx.export` stops with "Failed to export an ONNX attribute, since it's not
constant, please try to make things (e.g., kernel size) static if possible" (a commenter traced it to the `None`
output size). (ResNet/VGG extractor reduced to DTRB's VGG layout with fewer channels; TPS disabled as in the report.)

Source: https://github.com/clovaai/deep-text-recognition-benchmark/issues/191
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch", 3: "width"}, "text": {0: "batch"}}
BLIND = "domains-30"


class VGG_FeatureExtractor(nn.Module):
    """ FeatureExtractor of CRNN (https://arxiv.org/pdf/1507.05717.pdf) """

    def __init__(self, input_channel, output_channel=512):
        super(VGG_FeatureExtractor, self).__init__()
        self.output_channel = [int(output_channel / 8), int(output_channel / 4),
                               int(output_channel / 2), output_channel]  # [64, 128, 256, 512]
        self.ConvNet = nn.Sequential(
            nn.Conv2d(input_channel, self.output_channel[0], 3, 1, 1), nn.ReLU(True),
            nn.MaxPool2d(2, 2),  # 64x16x50
            nn.Conv2d(self.output_channel[0], self.output_channel[1], 3, 1, 1), nn.ReLU(True),
            nn.MaxPool2d(2, 2),  # 128x8x25
            nn.Conv2d(self.output_channel[1], self.output_channel[2], 3, 1, 1), nn.ReLU(True),  # 256x8x25
            nn.Conv2d(self.output_channel[2], self.output_channel[2], 3, 1, 1), nn.ReLU(True),
            nn.MaxPool2d((2, 1), (2, 1)),  # 256x4x25
            nn.Conv2d(self.output_channel[2], self.output_channel[3], 3, 1, 1, bias=False),
            nn.BatchNorm2d(self.output_channel[3]), nn.ReLU(True),  # 512x4x25
            nn.Conv2d(self.output_channel[3], self.output_channel[3], 3, 1, 1, bias=False),
            nn.BatchNorm2d(self.output_channel[3]), nn.ReLU(True),
            nn.MaxPool2d((2, 1), (2, 1)),  # 512x2x25
            nn.Conv2d(self.output_channel[3], self.output_channel[3], 2, 1, 0), nn.ReLU(True))  # 512x1x24

    def forward(self, input):
        return self.ConvNet(input)


class BidirectionalLSTM(nn.Module):

    def __init__(self, input_size, hidden_size, output_size):
        super(BidirectionalLSTM, self).__init__()
        self.rnn = nn.LSTM(input_size, hidden_size, bidirectional=True, batch_first=True)
        self.linear = nn.Linear(hidden_size * 2, output_size)

    def forward(self, input):
        """
        input : visual feature [batch_size x T x input_size]
        output : contextual feature [batch_size x T x output_size]
        """
        self.rnn.flatten_parameters()
        recurrent, _ = self.rnn(input)  # batch_size x T x input_size -> batch_size x T x (2*hidden_size)
        output = self.linear(recurrent)  # batch_size x T x output_size
        return output


class Model(nn.Module):

    def __init__(self, input_channel=1, output_channel=64, hidden_size=32, num_class=37):
        super(Model, self).__init__()
        self.stages = {'Trans': 'None', 'Feat': 'VGG', 'Seq': 'BiLSTM', 'Pred': 'CTC'}
        self.FeatureExtraction = VGG_FeatureExtractor(input_channel, output_channel)
        self.FeatureExtraction_output = output_channel  # int(imgH/16-1) * 512
        self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((None, 1))  # Transform final (imgH/16-1) -> 1
        self.SequenceModeling = nn.Sequential(
            BidirectionalLSTM(self.FeatureExtraction_output, hidden_size, hidden_size),
            BidirectionalLSTM(hidden_size, hidden_size, hidden_size))
        self.SequenceModeling_output = hidden_size
        self.Prediction = nn.Linear(self.SequenceModeling_output, num_class)

    def forward(self, input, text, is_train=True):
        """ Feature extraction stage """
        visual_feature = self.FeatureExtraction(input)
        visual_feature = self.AdaptiveAvgPool(visual_feature.permute(0, 3, 1, 2))  # [b, c, h, w] -> [b, w, c, h]
        visual_feature = visual_feature.squeeze(3)

        """ Sequence modeling stage """
        if self.stages['Seq'] == 'BiLSTM':
            contextual_feature = self.SequenceModeling(visual_feature)
        else:
            contextual_feature = visual_feature  # for convenience. this is NOT contextually modeled by BiLSTM

        """ Prediction stage """
        prediction = self.Prediction(contextual_feature.contiguous())
        return prediction


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.rand(2, 1, 32, 100), torch.LongTensor(2, 26).fill_(0))


def other_inputs():
    return [(torch.rand(3, 1, 32, 160), torch.LongTensor(3, 26).fill_(0)),
            (torch.rand(1, 1, 32, 64), torch.LongTensor(1, 26).fill_(0))]


def probe_inputs():
    return other_inputs()
