"""Mozilla TTS Tacotron exported with torch.onnx.export: the inference decoder runs `while True:` and leaves
the loop when the stop token fires (`if t > inputs.shape[1] / 4 and (stop_token > 0.6 or ...): break`) or at
`max_decoder_steps`; tracing warns "Converting a tensor to a Python boolean might cause the trace to be
incorrect", so the number of decoder steps is frozen to the example sentence's.

Source: https://github.com/mozilla/TTS/issues/143
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"inputs": {1: "text_length"}}
BLIND = "domains-5"


class Decoder(nn.Module):
    def __init__(self, in_features=16, memory_dim=8, r=1, max_decoder_steps=60):
        super().__init__()
        self.r = r
        self.memory_dim = memory_dim
        self.max_decoder_steps = max_decoder_steps
        self.prenet = nn.Sequential(nn.Linear(memory_dim, 16), nn.ReLU())
        self.attention_rnn = nn.GRUCell(in_features + 16, 32)
        self.attn_query = nn.Linear(32, in_features)
        self.decoder_rnn = nn.GRUCell(32 + in_features, 32)
        self.proj_to_mel = nn.Linear(32, memory_dim * r)
        self.stopnet = nn.Linear(32 + memory_dim * r, 1)

    def _init_states(self, inputs):
        B = inputs.size(0)
        self.memory_input = inputs.new_zeros(B, self.memory_dim)
        self.attention_rnn_hidden = inputs.new_zeros(B, 32)
        self.decoder_rnn_hidden = inputs.new_zeros(B, 32)
        self.context_vec = inputs.new_zeros(B, inputs.size(-1))

    def decode(self, inputs):
        processed_memory = self.prenet(self.memory_input)
        self.attention_rnn_hidden = self.attention_rnn(
            torch.cat((processed_memory, self.context_vec), -1), self.attention_rnn_hidden)
        query = self.attn_query(self.attention_rnn_hidden)
        attention = torch.softmax((inputs * query.unsqueeze(1)).sum(-1), dim=-1)
        self.context_vec = torch.bmm(attention.unsqueeze(1), inputs).squeeze(1)
        self.decoder_rnn_hidden = self.decoder_rnn(
            torch.cat((self.attention_rnn_hidden, self.context_vec), -1), self.decoder_rnn_hidden)
        output = self.proj_to_mel(self.decoder_rnn_hidden)
        stop_token = self.stopnet(torch.cat((self.decoder_rnn_hidden, output), -1))
        return output, stop_token, attention

    def forward(self, inputs):
        outputs = []
        attentions = []
        stop_tokens = []
        t = 0
        self._init_states(inputs)
        while True:
            if t > 0:
                self.memory_input = outputs[-1]
            output, stop_token, attention = self.decode(inputs)
            stop_token = torch.sigmoid(stop_token.data)
            outputs += [output]
            attentions += [attention]
            stop_tokens += [stop_token]
            t += 1
            if t > inputs.shape[1] / 4 and (stop_token > 0.6 or attention[:, -1].item() > 0.6):
                break
            elif t > self.max_decoder_steps:
                print("   | > Decoder stopped with 'max_decoder_steps")
                break
        return torch.stack(outputs, dim=1), torch.stack(attentions, dim=1), torch.stack(stop_tokens, dim=1)


def make_model():
    torch.manual_seed(0)
    m = Decoder().eval()
    with torch.no_grad():
        m.stopnet.bias.fill_(0.4)
    return m


def example_inputs():
    return (torch.randn(1, 24, 16),)


def other_inputs():
    return [(torch.randn(1, 60, 16),), (torch.randn(1, 9, 16),)]


def probe_inputs():
    return other_inputs()
