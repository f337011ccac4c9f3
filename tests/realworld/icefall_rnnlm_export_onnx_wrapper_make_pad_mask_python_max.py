"""icefall's RNN-LM ONNX export (rnn_lm/export-onnx.py, "Support exporting RNNLM to ONNX") wraps
RnnLmModel so that sherpa-onnx can score whole sentences: it prepends SOS, writes EOS at x_lens with
an index_put, and the model masks padded positions with icefall.utils.make_pad_mask, which takes
`max_len = max(max_len, lengths.max())` (a Python max over a tensor) for the mask length.

Source: https://github.com/k2-fsa/icefall/pull/1014
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "N", 1: "L"}, "x_lens": {0: "N"}}
BLIND = "domains-84"


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    assert lengths.ndim == 1, lengths.ndim
    max_len = max(max_len, lengths.max())
    n = lengths.size(0)
    seq_range = torch.arange(0, max_len, device=lengths.device)
    expaned_lengths = seq_range.unsqueeze(0).expand(n, max_len)

    return expaned_lengths >= lengths.unsqueeze(-1)


class RnnLmModel(torch.nn.Module):
    def __init__(self, vocab_size=50, embedding_dim=32, hidden_dim=48, num_layers=2):
        super().__init__()
        self.vocab_size = vocab_size
        self.input_embedding = torch.nn.Embedding(num_embeddings=vocab_size, embedding_dim=embedding_dim)
        self.rnn = torch.nn.LSTM(input_size=embedding_dim, hidden_size=hidden_dim,
                                 num_layers=num_layers, batch_first=True)
        self.output_linear = torch.nn.Linear(in_features=hidden_dim, out_features=vocab_size)

    def forward(self, x: torch.Tensor, y: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        assert x.ndim == y.ndim == 2, (x.ndim, y.ndim)
        assert lengths.ndim == 1, lengths.ndim
        assert x.shape == y.shape, (x.shape, y.shape)

        batch_size = x.size(0)
        assert lengths.size(0) == batch_size, (lengths.size(0), batch_size)

        embedding = self.input_embedding(x)
        rnn_out, _ = self.rnn(embedding)
        logits = self.output_linear(rnn_out)

        nll_loss = F.cross_entropy(logits.reshape(-1, self.vocab_size), y.reshape(-1), reduction="none")
        # Set loss values for padding positions to 0
        mask = make_pad_mask(lengths).reshape(-1)
        nll_loss.masked_fill_(mask, 0)

        nll_loss = nll_loss.reshape(batch_size, -1)
        return nll_loss


class RnnLmModelWrapper(torch.nn.Module):
    def __init__(self, model: RnnLmModel, sos_id: int, eos_id: int):
        super().__init__()
        self.model = model
        self.sos_id = sos_id
        self.eos_id = eos_id

    def forward(self, x: torch.Tensor, x_lens: torch.Tensor) -> torch.Tensor:
        N = x.size(0)

        sos_tensor = torch.full((1,), fill_value=self.sos_id, dtype=x.dtype).expand(N, 1)
        sos_x = torch.cat([sos_tensor, x], dim=1)

        pad_col = torch.zeros((1,), dtype=x.dtype).expand(N, 1)
        x_eos = torch.cat([x, pad_col], dim=1)

        row_index = torch.arange(0, N, dtype=x.dtype)
        x_eos[row_index, x_lens] = self.eos_id

        # use x_lens + 1 here since we prepended x with sos
        return self.model(x=sos_x, y=x_eos, lengths=x_lens + 1).to(torch.float32).sum(dim=1)


def make_model():
    return RnnLmModelWrapper(RnnLmModel(), sos_id=1, eos_id=1).eval()


def _inputs(lens):
    L = max(lens)
    return (torch.randint(low=1, high=50, size=(len(lens), L), dtype=torch.int64),
            torch.tensor(lens, dtype=torch.int64))


def example_inputs():
    # export_without_state: N = 1, L = 20, x_lens = L
    return _inputs([20])


def other_inputs():
    return [_inputs([13, 7, 9]), _inputs([31, 31])]


def probe_inputs():
    return other_inputs()
