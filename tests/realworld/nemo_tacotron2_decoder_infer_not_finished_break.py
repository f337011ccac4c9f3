"""NeMo Tacotron2 asked to be exported to ONNX ("Is it possible to export Tacotron2 model to onnx?"): the
decoder's `infer` runs `while True:` frame by frame, multiplies a `not_finished` mask by the gate test
`torch.le(torch.sigmoid(gate_output.data), self.gate_threshold)`, and leaves with
`if self.early_stopping and torch.sum(not_finished) == 0 and stepped: break` or at `max_decoder_steps`, so the
number of mel frames depends on the predicted gate values (NeMo's own later PR split the loop out of the graph).

Source: https://github.com/NVIDIA-NeMo/Speech/issues/6999
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"memory": {1: "text_length"}}
BLIND = "domains-28"


class Decoder(nn.Module):
    def __init__(self, n_mel_channels=8, encoder_embedding_dim=16, attention_rnn_dim=24, decoder_rnn_dim=24):
        super().__init__()
        self.n_mel_channels = n_mel_channels
        self.encoder_embedding_dim = encoder_embedding_dim
        self.attention_rnn_dim = attention_rnn_dim
        self.decoder_rnn_dim = decoder_rnn_dim
        self.gate_threshold = 0.5
        self.max_decoder_steps = 60
        self.early_stopping = True
        self.prenet = nn.Sequential(nn.Linear(n_mel_channels, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        self.attention_rnn = nn.LSTMCell(16 + encoder_embedding_dim, attention_rnn_dim)
        self.query_layer = nn.Linear(attention_rnn_dim, 16, bias=False)
        self.memory_layer = nn.Linear(encoder_embedding_dim, 16, bias=False)
        self.v = nn.Linear(16, 1, bias=False)
        self.decoder_rnn = nn.LSTMCell(attention_rnn_dim + encoder_embedding_dim, decoder_rnn_dim)
        self.linear_projection = nn.Linear(decoder_rnn_dim + encoder_embedding_dim, n_mel_channels)
        self.gate_layer = nn.Linear(decoder_rnn_dim + encoder_embedding_dim, 1)

    def get_go_frame(self, memory):
        return memory.new_zeros(memory.size(0), self.n_mel_channels)

    def initialize_decoder_states(self, memory):
        B = memory.size(0)
        self.attention_hidden = memory.new_zeros(B, self.attention_rnn_dim)
        self.attention_cell = memory.new_zeros(B, self.attention_rnn_dim)
        self.decoder_hidden = memory.new_zeros(B, self.decoder_rnn_dim)
        self.decoder_cell = memory.new_zeros(B, self.decoder_rnn_dim)
        self.attention_context = memory.new_zeros(B, self.encoder_embedding_dim)
        self.memory = memory
        self.processed_memory = self.memory_layer(memory)

    def decode(self, decoder_input):
        cell_input = torch.cat((decoder_input, self.attention_context), -1)
        self.attention_hidden, self.attention_cell = self.attention_rnn(
            cell_input, (self.attention_hidden, self.attention_cell))
        energies = self.v(torch.tanh(self.query_layer(self.attention_hidden).unsqueeze(1) + self.processed_memory))
        attention_weights = torch.softmax(energies.squeeze(-1), dim=1)
        self.attention_context = torch.bmm(attention_weights.unsqueeze(1), self.memory).squeeze(1)
        decoder_input = torch.cat((self.attention_hidden, self.attention_context), -1)
        self.decoder_hidden, self.decoder_cell = self.decoder_rnn(
            decoder_input, (self.decoder_hidden, self.decoder_cell))
        decoder_hidden_attention_context = torch.cat((self.decoder_hidden, self.attention_context), dim=1)
        decoder_output = self.linear_projection(decoder_hidden_attention_context)
        gate_prediction = self.gate_layer(decoder_hidden_attention_context)
        return decoder_output, gate_prediction, attention_weights

    def forward(self, memory):  # Decoder.infer
        decoder_input = self.get_go_frame(memory)
        self.initialize_decoder_states(memory)
        mel_lengths = torch.zeros([memory.size(0)], dtype=torch.int32).to(memory.device)
        not_finished = torch.ones([memory.size(0)], dtype=torch.int32).to(memory.device)
        mel_outputs, gate_outputs, alignments = [], [], []
        stepped = False
        while True:
            decoder_input = self.prenet(decoder_input)
            mel_output, gate_output, alignment = self.decode(decoder_input)
            mel_outputs += [mel_output.squeeze(1)]
            gate_outputs += [gate_output]
            alignments += [alignment]
            dec = torch.le(torch.sigmoid(gate_output.data), self.gate_threshold).to(torch.int32).squeeze(1)
            not_finished = not_finished * dec
            mel_lengths += not_finished
            if self.early_stopping and torch.sum(not_finished) == 0 and stepped:
                break
            stepped = True
            if len(mel_outputs) == self.max_decoder_steps:
                print("Reached max decoder steps", self.max_decoder_steps)
                break
            decoder_input = mel_output
        mel_outputs = torch.stack(mel_outputs).transpose(0, 1).transpose(1, 2).contiguous()
        return mel_outputs, mel_lengths


def make_model():
    model = Decoder().eval()
    with torch.no_grad():
        model.gate_layer.weight.mul_(4.0)
    return model


def example_inputs():
    return (torch.randn(1, 12, 16),)


def other_inputs():
    return [(torch.randn(1, 20, 16) * 2.0,), (torch.randn(1, 7, 16) * 0.5,)]


def probe_inputs():
    return other_inputs()
