"""Grounding DINO text branch: `generate_masks_with_special_tokens_and_transfer_map` builds the sub-sentence
self-attention mask and position ids inside the model by looping over `torch.nonzero(special_tokens_mask)` and
slicing `attention_mask[row, previous_col + 1 : col + 1, ...]` with the found token positions; the repo's ONNX
export script works around it by calling this function on the example prompt outside the model and feeding
`text_self_attention_masks` and `position_ids` to the exported network as inputs.

Source: https://github.com/IDEA-Research/GroundingDINO/blob/b49ce5798fcf8cc593fe8b40bf2e898ee277dbf9/demo/export_model.py
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "num_token"}, "attention_mask": {0: "batch", 1: "num_token"}}
BLIND = "domains-48"


def generate_masks_with_special_tokens_and_transfer_map(tokenized, special_tokens_list, tokenizer):
    input_ids = tokenized["input_ids"]
    bs, num_token = input_ids.shape
    # special_tokens_mask: bs, num_token. 1 for special tokens. 0 for normal tokens
    special_tokens_mask = torch.zeros((bs, num_token), device=input_ids.device).bool()
    for special_token in special_tokens_list:
        special_tokens_mask |= input_ids == special_token

    # idxs: each row is a list of indices of special tokens
    idxs = torch.nonzero(special_tokens_mask)

    # generate attention mask and positional ids
    attention_mask = (
        torch.eye(num_token, device=input_ids.device).bool().unsqueeze(0).repeat(bs, 1, 1)
    )
    position_ids = torch.zeros((bs, num_token), device=input_ids.device)
    cate_to_token_mask_list = [[] for _ in range(bs)]
    previous_col = 0
    for i in range(idxs.shape[0]):
        row, col = idxs[i]
        if (col == 0) or (col == num_token - 1):
            attention_mask[row, col, col] = True
            position_ids[row, col] = 0
        else:
            attention_mask[row, previous_col + 1 : col + 1, previous_col + 1 : col + 1] = True
            position_ids[row, previous_col + 1 : col + 1] = torch.arange(
                0, col - previous_col, device=input_ids.device
            )
            c2t_maski = torch.zeros((num_token), device=input_ids.device).bool()
            c2t_maski[previous_col + 1 : col] = True
            cate_to_token_mask_list[row].append(c2t_maski)
        previous_col = col

    cate_to_token_mask_list = [
        torch.stack(cate_to_token_mask_listi, dim=0)
        for cate_to_token_mask_listi in cate_to_token_mask_list
    ]

    return attention_mask, position_ids.to(torch.long), cate_to_token_mask_list


class TinyTextEncoder(nn.Module):
    # stands in for the BERT encoder: token + position embeddings, one masked self-attention layer
    def __init__(self, vocab=4096, dim=32, heads=4, max_pos=64):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, dim)
        self.position_embeddings = nn.Embedding(max_pos, dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.heads = heads

    def forward(self, input_ids, attention_mask, position_ids):
        x = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        mask = ~attention_mask.repeat_interleave(self.heads, dim=0)
        out, _ = self.attn(x, x, x, attn_mask=mask)
        return {"last_hidden_state": x + out}


class GroundingDINOText(nn.Module):
    def __init__(self, dim=32, hidden_dim=16, max_text_len=256):
        super().__init__()
        self.bert = TinyTextEncoder(dim=dim)
        self.feat_map = nn.Linear(dim, hidden_dim, bias=True)
        self.specical_tokens = [101, 102, 1012, 1029]  # [CLS], [SEP], ".", "?"
        self.tokenizer = None
        self.max_text_len = max_text_len

    def forward(self, input_ids, attention_mask):
        tokenized = {"input_ids": input_ids, "attention_mask": attention_mask}
        (
            text_self_attention_masks,
            position_ids,
            cate_to_token_mask_list,
        ) = generate_masks_with_special_tokens_and_transfer_map(
            tokenized, self.specical_tokens, self.tokenizer
        )
        if text_self_attention_masks.shape[1] > self.max_text_len:
            text_self_attention_masks = text_self_attention_masks[
                :, : self.max_text_len, : self.max_text_len
            ]
            position_ids = position_ids[:, : self.max_text_len]
        bert_output = self.bert(input_ids, text_self_attention_masks, position_ids)
        encoded_text = self.feat_map(bert_output["last_hidden_state"])
        text_token_mask = attention_mask.bool()
        encoded_text = encoded_text.masked_fill(~text_token_mask[..., None], 0.0)
        return encoded_text, position_ids


def make_model():
    return GroundingDINOText()


def _prompt_ids(bs, num_token, seed):
    # "[CLS] w w . w w w . ... [SEP]": random words, phrase ends "." at varying places per row
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(2000, 4000, (bs, num_token), generator=g)
    ids[:, 0] = 101
    ids[:, -1] = 102
    ids[:, -2] = 1012
    for b in range(bs):
        for p in range(2 + b, num_token - 3, 3 + b):
            ids[b, p] = 1012
    return ids, torch.ones(bs, num_token, dtype=torch.long)


def example_inputs():
    return _prompt_ids(2, 12, 0)


def other_inputs():
    return [_prompt_ids(3, 17, 1), _prompt_ids(1, 9, 2)]


def probe_inputs():
    return other_inputs()
