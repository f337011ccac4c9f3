"""EasyOCR recognizer (CRNN: VGG features -> `AdaptiveAvgPool2d((None, 1))` over the permuted map -> BiLSTM ->
CTC logits) exported with `dynamic_axes={'input1': {0: 'batch_size', 2: 'height', 3: 'width'}}` fails with
"Failed to export an ONNX attribute 'onnx::Gather', since it's not constant, please try to make things (e.g.,
kernel size) static if possible".

Source: https://github.com/JaidedAI/EasyOCR/issues/196
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "domains-2"


class BidirectionalLSTM(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(BidirectionalLSTM, self).__init__()
        self.rnn = nn.LSTM(input_size, hidden_size, bidirectional=True, batch_first=True)
        self.linear = nn.Linear(hidden_size * 2, output_size)

    def forward(self, input):
        self.rnn.flatten_parameters()
        recurrent, _ = self.rnn(input)  # batch_size x T x input_size -> batch_size x T x (2*hidden_size)
        output = self.linear(recurrent)  # batch_size x T x output_size
        return output


class Model(nn.Module):
    def __init__(self, input_channel=1, output_channel=32, hidden_size=16, num_class=11):
        super(Model, self).__init__()
        self.FeatureExtraction = nn.Sequential(
            nn.Conv2d(input_channel, output_channel // 2, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(output_channel // 2, output_channel, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d((2, 1), (2, 1)))
        self.FeatureExtraction_output = output_channel
        self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((None, 1))  # Transform final (imgH/16-1) -> 1
        self.SequenceModeling = nn.Sequential(
            BidirectionalLSTM(self.FeatureExtraction_output, hidden_size, hidden_size),
            BidirectionalLSTM(hidden_size, hidden_size, hidden_size))
        self.SequenceModeling_output = hidden_size
        self.Prediction = nn.Linear(self.SequenceModeling_output, num_class)

    def forward(self, input):
        """ Feature extraction stage """
        visual_feature = self.FeatureExtraction(input)
        visual_feature = self.AdaptiveAvgPool(visual_feature.permute(0, 3, 1, 2))  # [b, c, h, w] -> [b, w, c, h]
        visual_feature = visual_feature.squeeze(3)

        """ Sequence modeling stage """
        contextual_feature = self.SequenceModeling(visual_feature)

        """ Prediction stage """
        prediction = self.Prediction(contextual_feature.contiguous())
        return prediction


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(1, 1, 32, 96),)


def other_inputs():
    return [(torch.randn(2, 1, 48, 160),), (torch.randn(3, 1, 64, 64),)]


def probe_inputs():
    return other_inputs()
