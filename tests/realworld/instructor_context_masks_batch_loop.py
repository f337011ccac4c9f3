"""INSTRUCTOR text-embedding model: `INSTRUCTOR_Transformer.forward` drops the instruction tokens from
mean pooling with `n = len(attention_mask)` and `for local_idx in range(n): ...
attention_mask[local_idx][:context_masks[local_idx]] = 0`; the PR says `n` is treated as a constant
during ONNX conversion, so inference is wrong when the instruction token length changes.

Source: https://github.com/xlang-ai/instructor-embedding/pull/92
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
           "context_masks": {0: "batch"}}
BLIND = "domains-6"


class TinyEncoder(nn.Module):
    """Stand-in for the T5 encoder (`auto_model`): returns a tuple like return_dict=False."""

    def __init__(self, vocab=100, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, input_ids, attention_mask, return_dict=False):
        h = self.embed(input_ids)
        h = h + self.ff(h) * attention_mask.unsqueeze(-1).to(h.dtype)
        return (h,)


class INSTRUCTOR_Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.auto_model = TinyEncoder()

    def forward(self, features):
        trans_features = {'input_ids': features['input_ids'], 'attention_mask': features['attention_mask']}
        if 'token_type_ids' in features:
            trans_features['token_type_ids'] = features['token_type_ids']

        context_masks = None
        if 'context_masks' in features:
            context_masks = features['context_masks']
        output_states = self.auto_model(**trans_features, return_dict=False)
        output_tokens = output_states[0]
        attention_mask = features['attention_mask']
        if context_masks is not None:
            import torch
            assert len(context_masks) == len(attention_mask)
            n = len(attention_mask)
            for local_idx in range(n):
                assert torch.sum(attention_mask[local_idx]).item() >= context_masks[local_idx].item(),\
                    f'{attention_mask[local_idx]}, {context_masks[local_idx]}, ' \
                    f'{torch.sum(attention_mask[local_idx]).item()}, {context_masks[local_idx].item()}'
                attention_mask[local_idx][:context_masks[local_idx]] = 0

        features.update({'token_embeddings': output_tokens, 'attention_mask': attention_mask})
        return features


class Pooling(nn.Module):
    """sentence-transformers mean pooling."""

    def forward(self, features):
        token_embeddings = features['token_embeddings']
        attention_mask = features['attention_mask']
        input_mask_expanded = attention_mask.unsqueeze(-1).expand(token_embeddings.size()).float()
        sum_embeddings = torch.sum(token_embeddings * input_mask_expanded, 1)
        sum_mask = input_mask_expanded.sum(1)
        sum_mask = torch.clamp(sum_mask, min=1e-9)
        features.update({'sentence_embedding': sum_embeddings / sum_mask})
        return features


class InstructorOnnx(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = INSTRUCTOR_Transformer()
        self.pooling = Pooling()

    def forward(self, input_ids, attention_mask, context_masks):
        features = {'input_ids': input_ids, 'attention_mask': attention_mask, 'context_masks': context_masks}
        features = self.pooling(self.transformer(features))
        return torch.nn.functional.normalize(features['sentence_embedding'], p=2, dim=1)


def make_model():
    return InstructorOnnx().eval()


def _inputs(lengths, max_len, instr):
    ids = torch.randint(1, 100, (len(lengths), max_len))
    mask = torch.zeros(len(lengths), max_len, dtype=torch.long)
    for i, n in enumerate(lengths):
        mask[i, :n] = 1
        ids[i, n:] = 0
    return ids, mask, torch.tensor(instr)


def example_inputs():
    return _inputs([10, 7], 10, [3, 3])


def other_inputs():
    return [_inputs([14, 12, 9], 14, [5, 2, 4]), _inputs([6], 6, [2])]


def probe_inputs():
    return other_inputs()
