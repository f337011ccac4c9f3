"""NVIDIA Tacotron2: the text encoder turns the lengths into a NumPy array (`input_lengths.cpu().numpy()`,
"pytorch tensor are not reversible, hence the conversion") and feeds it to `pack_padded_sequence` before the
BiLSTM; the user's `torch.onnx.export(model, (text_inputs, text_lengths, mels, max_len, output_lengths))` of the
whole Tacotron2 errors out while tracing the model.

Source: https://github.com/NVIDIA/tacotron2/issues/190
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"text_inputs": {0: "batch", 1: "text_len"}, "text_lengths": {0: "batch"}}
BLIND = "domains-19"


class Encoder(nn.Module):
    def __init__(self, encoder_embedding_dim=32, encoder_n_convolutions=3, encoder_kernel_size=5):
        super().__init__()
        convolutions = []
        for _ in range(encoder_n_convolutions):
            conv_layer = nn.Sequential(
                nn.Conv1d(encoder_embedding_dim, encoder_embedding_dim, kernel_size=encoder_kernel_size,
                          stride=1, padding=int((encoder_kernel_size - 1) / 2), dilation=1),
                nn.BatchNorm1d(encoder_embedding_dim))
            convolutions.append(conv_layer)
        self.convolutions = nn.ModuleList(convolutions)
        self.lstm = nn.LSTM(encoder_embedding_dim, int(encoder_embedding_dim / 2), 1,
                            batch_first=True, bidirectional=True)

    def forward(self, x, input_lengths):
        for conv in self.convolutions:
            x = F.dropout(F.relu(conv(x)), 0.5, self.training)

        x = x.transpose(1, 2)

        # pytorch tensor are not reversible, hence the conversion
        input_lengths = input_lengths.cpu().numpy()
        x = nn.utils.rnn.pack_padded_sequence(
            x, input_lengths, batch_first=True)

        self.lstm.flatten_parameters()
        outputs, _ = self.lstm(x)

        outputs, _ = nn.utils.rnn.pad_packed_sequence(
            outputs, batch_first=True)

        return outputs


class Tacotron2Encoding(nn.Module):
    def __init__(self, n_symbols=40, symbols_embedding_dim=32):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, symbols_embedding_dim)
        self.encoder = Encoder(symbols_embedding_dim)

    def forward(self, text_inputs, text_lengths):
        text_lengths = text_lengths.data
        embedded_inputs = self.embedding(text_inputs).transpose(1, 2)
        encoder_outputs = self.encoder(embedded_inputs, text_lengths)
        return encoder_outputs


def make_model():
    return Tacotron2Encoding().eval()


def _batch(lengths):
    # NVIDIA's TextMelCollate sorts the batch by decreasing text length
    return (torch.randint(1, 40, (len(lengths), max(lengths))), torch.tensor(lengths, dtype=torch.long))


def example_inputs():
    return _batch([12, 9, 5])


def other_inputs():
    return [_batch([20, 17, 11, 4]), _batch([7, 3])]


def probe_inputs():
    return other_inputs()
