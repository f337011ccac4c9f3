"""Greedy decoding with an attention GRU decoder (max_length-sized attention, `loop_length` steps) inside one
module: each step takes `topv, topi = decoder_output.topk(1)` and stops `if topi.item() == stop_id`; exporting
the greedy-decoding module to ONNX fails / unrolls the loop for the example only.

Source: https://github.com/pytorch/pytorch/issues/24788
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-2"

hidden_size = 16
output_lang_vocab = 12
max_length = 10
loop_length = 15
stop_id = 3


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1, max_length=max_length):
        super(AttnDecoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.dropout_p = dropout_p
        self.max_length = max_length

        self.embedding = nn.Embedding(self.output_size, self.hidden_size)
        self.attn = nn.Linear(self.hidden_size * 2, self.max_length)
        self.attn_combine = nn.Linear(self.hidden_size * 2, self.hidden_size)
        self.dropout = nn.Dropout(self.dropout_p)
        self.gru = nn.GRU(self.hidden_size, self.hidden_size)
        self.out = nn.Linear(self.hidden_size, self.output_size)

    def step(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input).view(1, 1, -1)  # [1, 1, 256]
        embedded = self.dropout(embedded)
        attn_weights = F.softmax(self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1)
        attn_applied = torch.bmm(attn_weights.unsqueeze(0), encoder_outputs.unsqueeze(0))
        output = torch.cat((embedded[0], attn_applied[0]), 1)
        output = self.attn_combine(output).unsqueeze(0)
        output = F.relu(output)
        output, hidden = self.gru(output, hidden)
        output = F.log_softmax(self.out(output[0]), dim=1)
        return output, hidden, attn_weights

    def forward(self, input, hidden, encoder_outputs):
        # input: [1,1], hidden: [1,1,H], encoder_outputs: [max_length, H]
        decoded = []
        for di in range(loop_length):
            decoder_output, hidden, decoder_attention = self.step(input, hidden, encoder_outputs)
            topv, topi = decoder_output.topk(1)
            decoded.append(topi.view(1))
            if topi.item() == stop_id:
                break
            input = topi.squeeze().detach()
        return torch.cat(decoded)


def make_model():
    return AttnDecoderRNN(hidden_size, output_lang_vocab).eval()


def example_inputs():
    return (torch.tensor([[0]]), torch.randn(1, 1, hidden_size), torch.randn(max_length, hidden_size))


def other_inputs():
    return [(torch.tensor([[5]]), torch.randn(1, 1, hidden_size), torch.randn(max_length, hidden_size)),
            (torch.tensor([[7]]), torch.randn(1, 1, hidden_size) * 3, torch.randn(max_length, hidden_size) * 3)]


def probe_inputs():
    return other_inputs()
