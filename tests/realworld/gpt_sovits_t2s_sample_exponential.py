"""GPT-SoVITS text-to-semantic AR decoder step: the next semantic token is drawn by
`multinomial_sample_one_no_sync`, i.e. `q = torch.empty_like(probs_sort).exponential_(1)` then
`argmax(probs_sort / q)`, after top-k / repetition-penalty filtering of the logits; the "Onnx Export"
PR had to ship separate *_onnx modules whose sampler replaces `exponential_` with
`torch.randn_like`, because the TorchScript exporter has no symbolic for aten::exponential.
(The 12-layer transformer is trimmed to an embedding + one linear layer; one decoding step.)

Source: https://github.com/RVC-Boss/GPT-SoVITS/pull/187
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"y": {1: "y_len"}}
BLIND = "operators-7"


def multinomial_sample_one_no_sync(
    probs_sort,
):  # Does multinomial sampling without a cuda synchronization
    q = torch.empty_like(probs_sort).exponential_(1)
    return torch.argmax(probs_sort / q, dim=-1, keepdim=True).to(dtype=torch.int)


def logits_to_probs(
    logits,
    previous_tokens: Optional[torch.Tensor] = None,
    temperature: float = 1.0,
    top_k: Optional[int] = None,
    top_p: Optional[int] = None,
    repetition_penalty: float = 1.0,
):
    previous_tokens = previous_tokens.squeeze()
    if previous_tokens is not None and repetition_penalty != 1.0:
        previous_tokens = previous_tokens.long()
        score = torch.gather(logits, dim=0, index=previous_tokens)
        score = torch.where(
            score < 0, score * repetition_penalty, score / repetition_penalty
        )
        logits.scatter_(dim=0, index=previous_tokens, src=score)

    if top_p is not None and top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cum_probs = torch.cumsum(
            torch.nn.functional.softmax(sorted_logits, dim=-1), dim=-1
        )
        sorted_indices_to_remove = cum_probs > top_p
        sorted_indices_to_remove[0] = False  # keep at least one option
        indices_to_remove = sorted_indices_to_remove.scatter(
            dim=0, index=sorted_indices, src=sorted_indices_to_remove
        )
        logits = logits.masked_fill(indices_to_remove, -float("Inf"))

    logits = logits / max(temperature, 1e-5)

    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        pivot = v.select(-1, -1).unsqueeze(-1)
        logits = torch.where(logits < pivot, -float("Inf"), logits)

    probs = torch.nn.functional.softmax(logits, dim=-1)
    return probs


def sample(
    logits,
    previous_tokens: Optional[torch.Tensor] = None,
    **sampling_kwargs,
) -> Tuple[torch.Tensor, torch.Tensor]:
    probs = logits_to_probs(
        logits=logits, previous_tokens=previous_tokens, **sampling_kwargs
    )
    idx_next = multinomial_sample_one_no_sync(probs)
    return idx_next, probs


class T2SDecodeStep(nn.Module):
    def __init__(self, vocab_size=1025, embedding_dim=64, top_k=15):
        super().__init__()
        self.ar_audio_embedding = nn.Embedding(vocab_size, embedding_dim)
        self.h = nn.Sequential(nn.Linear(embedding_dim, embedding_dim), nn.GELU())
        self.ar_predict_layer = nn.Linear(embedding_dim, vocab_size, bias=False)
        self.top_k = top_k

    def forward(self, y):
        y_emb = self.ar_audio_embedding(y)
        xy_dec = self.h(y_emb)
        logits = self.ar_predict_layer(xy_dec[:, -1])
        samples = sample(
            logits[0], y, top_k=self.top_k, top_p=1.0, repetition_penalty=1.35
        )[0].unsqueeze(0)
        y = torch.concat([y, samples], dim=1)
        return y


def make_model():
    return T2SDecodeStep().eval()


def example_inputs():
    return (torch.randint(0, 1024, (1, 12)),)


def other_inputs():
    return [(torch.randint(0, 1024, (1, 30)),), (torch.randint(0, 1024, (1, 5)),)]


def probe_inputs():
    return other_inputs()
