"""Mozilla TTS Tacotron2 traced for ONNX/TorchScript: `Decoder.inference` loops `while True:`, feeding each frame
back and leaving when the stop token fires (`stop_token = torch.sigmoid(stop_token.data)`, `if stop_token > 0.7:
break`) or at `max_decoder_steps`; the reporter could only trace it and "it works, obviously, for the same input
length" (the number of decoder steps is frozen to the example's), and could not script it either.

Source: https://github.com/mozilla/TTS/issues/361
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"text": {1: "text_length"}}
BLIND = "domains-17"


class Attention(nn.Module):
    def __init__(self, query_dim, embedding_dim, attention_dim=16, location_filters=4):
        super().__init__()
        self.query_layer = nn.Linear(query_dim, attention_dim, bias=False)
        self.inputs_layer = nn.Linear(embedding_dim, attention_dim, bias=False)
        self.location_conv = nn.Conv1d(2, location_filters, 7, padding=3, bias=False)
        self.location_dense = nn.Linear(location_filters, attention_dim, bias=False)
        self.v = nn.Linear(attention_dim, 1, bias=True)

    def init_states(self, inputs):
        B, T = inputs.shape[0], inputs.shape[1]
        self.attention_weights = torch.zeros([B, T], device=inputs.device)
        self.attention_weights_cum = torch.zeros([B, T], device=inputs.device)

    def preprocess_inputs(self, inputs):
        return self.inputs_layer(inputs)

    def forward(self, query, inputs, processed_inputs, mask):
        attention_cat = torch.cat((self.attention_weights.unsqueeze(1), self.attention_weights_cum.unsqueeze(1)), dim=1)
        processed_attention = self.location_dense(self.location_conv(attention_cat).transpose(1, 2))
        energies = self.v(torch.tanh(self.query_layer(query.unsqueeze(1)) + processed_attention + processed_inputs))
        alignment = torch.softmax(energies.squeeze(-1), dim=-1)
        self.attention_weights = alignment
        self.attention_weights_cum += alignment
        return torch.bmm(alignment.unsqueeze(1), inputs).squeeze(1)


class Decoder(nn.Module):
    def __init__(self, in_features=16, memory_dim=8, r=1):
        super().__init__()
        self.memory_dim, self.r, self.encoder_embedding_dim = memory_dim, r, in_features
        self.query_dim, self.decoder_rnn_dim, self.max_decoder_steps = 32, 32, 200
        self.prenet = nn.Sequential(nn.Linear(memory_dim, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        self.attention_rnn = nn.LSTMCell(16 + in_features, self.query_dim)
        self.attention = Attention(self.query_dim, in_features)
        self.decoder_rnn = nn.LSTMCell(self.query_dim + in_features, self.decoder_rnn_dim)
        self.linear_projection = nn.Linear(self.decoder_rnn_dim + in_features, memory_dim * r)
        self.stopnet = nn.Linear(self.decoder_rnn_dim + memory_dim * r, 1)

    def get_go_frame(self, inputs):
        return torch.zeros(1, device=inputs.device).repeat(inputs.size(0), self.memory_dim * self.r)

    def _init_states(self, inputs):
        B = inputs.size(0)
        self.query = torch.zeros(1, device=inputs.device).repeat(B, self.query_dim)
        self.attention_rnn_cell_state = torch.zeros(1, device=inputs.device).repeat(B, self.query_dim)
        self.decoder_hidden = torch.zeros(1, device=inputs.device).repeat(B, self.decoder_rnn_dim)
        self.decoder_cell = torch.zeros(1, device=inputs.device).repeat(B, self.decoder_rnn_dim)
        self.context = torch.zeros(1, device=inputs.device).repeat(B, self.encoder_embedding_dim)
        self.inputs = inputs
        self.processed_inputs = self.attention.preprocess_inputs(inputs)

    def decode(self, memory):
        query_input = torch.cat((memory, self.context), -1)
        self.query, self.attention_rnn_cell_state = self.attention_rnn(
            query_input, (self.query, self.attention_rnn_cell_state))
        self.context = self.attention(self.query, self.inputs, self.processed_inputs, None)
        decoder_rnn_input = torch.cat((self.query, self.context), -1)
        self.decoder_hidden, self.decoder_cell = self.decoder_rnn(
            decoder_rnn_input, (self.decoder_hidden, self.decoder_cell))
        decoder_hidden_context = torch.cat((self.decoder_hidden, self.context), dim=1)
        decoder_output = self.linear_projection(decoder_hidden_context)
        stop_token = self.stopnet(torch.cat((self.decoder_hidden, decoder_output), dim=1))
        return decoder_output[:, :self.r * self.memory_dim], self.attention.attention_weights, stop_token

    def inference(self, inputs):
        memory = self.get_go_frame(inputs)
        self._init_states(inputs)
        self.attention.init_states(inputs)

        outputs, stop_tokens, alignments, t = [], [], [], 0
        while True:
            memory = self.prenet(memory)
            decoder_output, alignment, stop_token = self.decode(memory)
            stop_token = torch.sigmoid(stop_token.data)
            outputs += [decoder_output.squeeze(1)]
            stop_tokens += [stop_token]
            alignments += [alignment]

            if stop_token > 0.7:
                break
            if len(outputs) == self.max_decoder_steps:
                print("   | > Decoder stopped with 'max_decoder_steps")
                break

            memory = decoder_output
            t += 1
        outputs = torch.stack(outputs).transpose(0, 1).contiguous()
        return outputs.view(outputs.size(0), -1, self.memory_dim).transpose(1, 2)


class Tacotron2(nn.Module):
    def __init__(self, num_chars=40, embedding_dim=16, memory_dim=8):
        super().__init__()
        self.embedding = nn.Embedding(num_chars, embedding_dim)
        self.encoder_conv = nn.Sequential(nn.Conv1d(embedding_dim, embedding_dim, 5, padding=2), nn.ReLU())
        self.lstm = nn.LSTM(embedding_dim, embedding_dim // 2, batch_first=True, bidirectional=True)
        self.decoder = Decoder(embedding_dim, memory_dim)
        self.postnet = nn.Conv1d(memory_dim, memory_dim, 5, padding=2)

    def forward(self, text):
        embedded_inputs = self.embedding(text).transpose(1, 2)
        encoder_outputs, _ = self.lstm(self.encoder_conv(embedded_inputs).transpose(1, 2))
        mel_outputs = self.decoder.inference(encoder_outputs)
        return mel_outputs + self.postnet(mel_outputs)


def make_model():
    model = Tacotron2().eval()
    # stand-in for trained weights: decoder-LSTM unit 0 integrates the attention context step by step and the
    # stopnet fires once it is high enough, so the number of frames depends on the text
    dec, H = model.decoder, model.decoder.decoder_rnn_dim
    with torch.no_grad():
        rnn = dec.decoder_rnn
        for gate in range(4):
            rnn.weight_ih[gate * H].zero_()
            rnn.weight_hh[gate * H].zero_()
            rnn.bias_hh[gate * H] = 0.0
        rnn.bias_ih[0] = rnn.bias_ih[H] = rnn.bias_ih[3 * H] = 10.0  # input, forget, output gates open
        rnn.bias_ih[2 * H] = 0.03
        rnn.weight_ih[2 * H, dec.query_dim:] = 0.02 * torch.randn(dec.encoder_embedding_dim).abs()
        dec.stopnet.weight.zero_()
        dec.stopnet.weight[0, 0] = 10.0
        dec.stopnet.bias.fill_(-6.0)
    return model


def example_inputs():
    return (torch.randint(0, 40, (1, 12)),)


def other_inputs():
    return [(torch.randint(0, 40, (1, 20)),), (torch.randint(0, 40, (1, 5)),)]


def probe_inputs():
    return other_inputs()
