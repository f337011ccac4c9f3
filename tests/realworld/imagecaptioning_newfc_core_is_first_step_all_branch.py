"""ImageCaptioning.pytorch NewFCModel (exported whole by ailia-models as model_fc.onnx, fc_feats -> seq,
logprobs): the core decides whether to feed the image first with `is_first_step = (state[0]==0).all(2).all(0)`
and `if is_first_step.all(): ... elif is_first_step.any(): ...`; the export warns "Converting a tensor to a
Python boolean might cause the trace to be incorrect" at `if is_first_step.all():`.

Source: https://github.com/ailia-ai/ailia-models/issues/261
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"fc_feats": {0: "batch"}}
BLIND = "domains-37"


class LSTMCore(nn.Module):
    def __init__(self, input_encoding_size, rnn_size):
        super(LSTMCore, self).__init__()
        self.rnn_size = rnn_size
        self.i2h = nn.Linear(input_encoding_size, 5 * self.rnn_size)
        self.h2h = nn.Linear(self.rnn_size, 5 * self.rnn_size)

    def forward(self, xt, state):
        all_input_sums = self.i2h(xt) + self.h2h(state[0][-1])
        sigmoid_chunk = torch.sigmoid(all_input_sums.narrow(1, 0, 3 * self.rnn_size))
        in_gate = sigmoid_chunk.narrow(1, 0, self.rnn_size)
        forget_gate = sigmoid_chunk.narrow(1, self.rnn_size, self.rnn_size)
        out_gate = sigmoid_chunk.narrow(1, self.rnn_size * 2, self.rnn_size)
        in_transform = torch.max(
            all_input_sums.narrow(1, 3 * self.rnn_size, self.rnn_size),
            all_input_sums.narrow(1, 4 * self.rnn_size, self.rnn_size))
        next_c = forget_gate * state[1][-1] + in_gate * in_transform
        next_h = out_gate * torch.tanh(next_c)
        return next_h, (next_h.unsqueeze(0), next_c.unsqueeze(0))


class NewFCModel(nn.Module):
    def __init__(self, vocab_size=40, fc_feat_size=32, rnn_size=16, seq_length=6):
        super(NewFCModel, self).__init__()
        self.vocab_size, self.rnn_size, self.seq_length, self.num_layers = vocab_size, rnn_size, seq_length, 1
        self.bos_idx = self.eos_idx = self.pad_idx = 0
        self.fc_embed = nn.Linear(fc_feat_size, rnn_size)
        self.embed = nn.Embedding(vocab_size + 1, rnn_size)
        self._core = LSTMCore(rnn_size, rnn_size)
        self.logit = nn.Linear(rnn_size, vocab_size + 1)

    def init_hidden(self, bsz):
        weight = self.logit.weight
        return (weight.new_zeros(self.num_layers, bsz, self.rnn_size),
                weight.new_zeros(self.num_layers, bsz, self.rnn_size))

    def core(self, xt, fc_feats, state):
        is_first_step = (state[0]==0).all(2).all(0) # size: B
        if is_first_step.all():
            _, state = self._core(fc_feats, state)
        elif is_first_step.any():
            # This is mostly for diverse beam search I think
            new_state = [torch.zeros_like(_) for _ in state]
            new_state[0][:, ~is_first_step] = state[0][:, ~is_first_step]
            new_state[1][:, ~is_first_step] = state[1][:, ~is_first_step]
            _, state = self._core(fc_feats, state)
            new_state[0][:, is_first_step] = state[0][:, is_first_step]
            new_state[1][:, is_first_step] = state[1][:, is_first_step]
            state = new_state
        return self._core(xt, state)

    def forward(self, fc_feats):
        batch_size = fc_feats.size(0)
        state = self.init_hidden(batch_size)
        p_fc_feats = self.fc_embed(fc_feats)
        seq = fc_feats.new_full((batch_size, self.seq_length), self.pad_idx, dtype=torch.long)
        seqLogprobs = fc_feats.new_zeros(batch_size, self.seq_length, self.vocab_size + 1)
        for t in range(self.seq_length):
            if t == 0: # input <bos>
                it = fc_feats.new_full([batch_size], self.bos_idx, dtype=torch.long)
            output, state = self.core(self.embed(it), p_fc_feats, state)
            logprobs = F.log_softmax(self.logit(output), dim=1)
            sampleLogprobs, it = torch.max(logprobs.data, 1)
            it = it.view(-1).long()
            if t == 0:
                unfinished = it != self.eos_idx
            else:
                it[~unfinished] = self.pad_idx
                logprobs = logprobs * unfinished.unsqueeze(1).to(logprobs)
                unfinished = unfinished & (it != self.eos_idx)
            seq[:, t] = it
            seqLogprobs[:, t] = logprobs
            # quit loop if all sequences have finished
            if unfinished.sum() == 0:
                break
        return seq, seqLogprobs


def make_model():
    return NewFCModel().eval()


def example_inputs():
    return (torch.randn(2, 32),)


def other_inputs():
    return [(torch.randn(3, 32),), (torch.randn(5, 32),)]


def probe_inputs():
    return other_inputs()
