"""ASTER text recognizer in MMOCR with the beam-search decoder (`ASTERDecoderWithBs.forward_test`): a
`queue.PriorityQueue` of `DecodeNodes` holding Python lists, each step runs the GRU attention decoder, takes
`torch.topk` and turns every candidate into Python numbers with `topk_score[k].item()` / `topk_idx[k].item()`,
feeds the next step `torch.tensor(node.indexes[i - 1])`, and finally writes the best path into a zeros tensor with
Python indices. The user who trained ASTER reports that exporting it to ONNX keeps failing in "the beam_search and
attention encoder decoder parts".

Source: https://github.com/open-mmlab/mmocr/issues/1179
"""
from queue import PriorityQueue

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"feat": {3: "T"}, "out_enc": {1: "T"}}
BLIND = "domains-78"


def is_type_list(x, type):
    if not isinstance(x, list):
        return False
    return all(isinstance(item, type) for item in x)


def equal_len(*argv):
    assert len(argv) > 0
    num_arg = len(argv[0])
    return all(len(arg) == num_arg for arg in argv)


class AttentionLSTM(nn.Module):
    def __init__(self, H_Dim, S_Dim, Atten_Dim):
        super().__init__()
        self.H_Dim = H_Dim
        self.S_Dim = S_Dim
        self.Atten_Dim = Atten_Dim
        self.V_h = nn.Linear(self.H_Dim, self.Atten_Dim)
        self.W_s = nn.Linear(self.S_Dim, self.Atten_Dim)
        self.W_e = nn.Linear(self.Atten_Dim, 1)

    def forward(self, H_t, S_t):
        b, T, _ = H_t.size()
        H_t = H_t.view(-1, self.H_Dim)
        H_a = self.V_h(H_t)
        H_a = H_a.view(b, T, -1)
        S_t = S_t.squeeze(0)
        s_Proj = self.W_s(S_t)
        s_Proj = torch.unsqueeze(s_Proj, 1)
        s_Proj = s_Proj.expand(b, T, self.Atten_Dim)
        WHtanh = torch.tanh(s_Proj + H_a)
        WHtanh = WHtanh.view(-1, self.Atten_Dim)
        e_t = self.W_e(WHtanh)
        e_t = e_t.view(b, T)
        alpha = F.softmax(e_t, dim=1)
        return alpha


class Decoder(nn.Module):
    def __init__(self, h_Dim, y_Dim, s_Dim, Atten_Dim):
        self.h_Dim = h_Dim
        self.y_Dim = y_Dim
        self.s_Dim = s_Dim
        self.Atten_Dim = Atten_Dim
        self.emb_Dim = Atten_Dim
        super().__init__()
        self.Attention = AttentionLSTM(h_Dim, s_Dim, Atten_Dim)
        self.y_emd = nn.Embedding(y_Dim + 1, self.emb_Dim)
        self.gru = nn.GRU(input_size=h_Dim + self.emb_Dim, hidden_size=s_Dim, batch_first=True)
        self.embeding = nn.Linear(s_Dim, y_Dim)

    def forward(self, h_i, s_t, y_t):
        b, T, _ = h_i.size()
        alpha = self.Attention(h_i, s_t)
        g_t = torch.bmm(alpha.unsqueeze(1), h_i).squeeze(1)
        y_one = self.y_emd(y_t.long())
        x_t, state = self.gru(torch.cat([y_one, g_t], 1).unsqueeze(1), s_t)
        output = x_t.squeeze(1)
        output = self.embeding(output)
        return output, state


class DecodeNodes:
    """Node class to save decoded char indices and scores."""

    def __init__(self, state, indexes=[1], scores=[0.9]):
        assert is_type_list(indexes, int)
        assert is_type_list(scores, float)
        assert equal_len(indexes, scores)
        self.indexes = indexes
        self.scores = scores
        self.state = [state]

    def eval(self):
        accu_score = sum(self.scores)
        return accu_score


class ASTERDecoderWithBs(nn.Module):
    def __init__(self, in_channels=32, num_classes=12, s_Dim=16, Atten_Dim=16, max_seq_len=6, beam_width=3,
                 start_idx=0):
        super().__init__()
        self.num_classes = num_classes
        self.s_Dim = s_Dim
        self.max_seq_len = max_seq_len
        self.decoder = Decoder(in_channels, num_classes, s_Dim, Atten_Dim)
        self.beam_width = beam_width
        self.start_idx = start_idx

    def forward_test(self, feat, out_enc, img_metas):
        x = out_enc
        batch_size = x.size(0)
        assert batch_size == 1, 'batch size must bu 1 for beam search.'
        state = torch.zeros(1, batch_size, self.s_Dim).to(feat.device)
        y_prev = torch.zeros((batch_size)).fill_(self.num_classes).to(feat.device)

        nodes = PriorityQueue()
        init_node = DecodeNodes(state, [self.start_idx], [0.0])
        nodes.put((-init_node.eval(), init_node))
        for i in range(1, self.max_seq_len + 1):
            next_nodes = []
            beam_width = self.beam_width if i > 1 else 1
            for beam_w in range(beam_width):
                _, node = nodes.get()
                if i > 1:
                    y_prev = torch.tensor(node.indexes[i - 1]).view(1).to(feat.device)
                    state = node.state[0][1]
                decoder_output, temp_state = self.decoder(x, state, y_prev)
                decoder_output = F.softmax(decoder_output, dim=1)

                topk_score, topk_idx = torch.topk(decoder_output, self.beam_width)
                topk_score, topk_idx = topk_score.squeeze(0), topk_idx.squeeze(0)

                for k in range(self.beam_width):
                    kth_score = topk_score[k].item()
                    kth_idx = topk_idx[k].item()
                    next_node = DecodeNodes(node.state + [temp_state], node.indexes + [kth_idx],
                                            node.scores + [kth_score])
                    delta = k * 1e-6
                    next_nodes.append(((-node.eval() - kth_score - delta), next_node))
            while not nodes.empty():
                nodes.get()

            for next_node in next_nodes:
                nodes.put(next_node)

        best_node = nodes.get()
        outputs = torch.zeros(batch_size, self.max_seq_len, self.num_classes)

        for i in range(self.max_seq_len):
            idx = best_node[1].indexes[i + 1]
            outputs[0, i, idx] = best_node[1].scores[i + 1]

        return outputs[:, 1:, :]

    def forward(self, feat, out_enc):
        return self.forward_test(feat, out_enc, None)


def make_model():
    return ASTERDecoderWithBs().eval()


def example_inputs():
    return (torch.randn(1, 32, 1, 25), torch.randn(1, 25, 32))


def other_inputs():
    return [(torch.randn(1, 32, 1, 31), torch.randn(1, 31, 32) * 2.0),
            (torch.randn(1, 32, 1, 12), torch.randn(1, 12, 32))]


def probe_inputs():
    return other_inputs()
