"""BERT masked-LM whose forward first calls `warn_if_padding_and_no_attention_mask`, a value check that only logs a
warning (`if self.config.pad_token_id in input_ids[:, [-1, 0]]`); exporting BertForMaskedLM with dynamo fails with
GuardOnDataDependentSymNode on Eq(i0, 1) because the `in` test on the tensor turns into a data-dependent bool.

Source: https://github.com/pytorch/pytorch/issues/106183
"""
import logging

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-34"

logger = logging.getLogger(__name__)


class BertConfig:
    vocab_size = 100
    hidden_size = 32
    max_position_embeddings = 64
    pad_token_id = 0
    bos_token_id = None
    eos_token_id = None
    sep_token_id = 3


class BertForMaskedLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size)
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.transform_act_fn = nn.GELU()
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def warn_if_padding_and_no_attention_mask(self, input_ids, attention_mask):
        """
        Shows a one-time warning if the input_ids appear to contain padding and no attention mask was given.
        """
        if (attention_mask is not None) or (self.config.pad_token_id is None):
            return

        # Check only the first and last input IDs to reduce overhead.
        if self.config.pad_token_id in input_ids[:, [-1, 0]]:
            warn_string = (
                "We strongly recommend passing in an `attention_mask` since your input_ids may be padded."
            )
            if (
                (self.config.bos_token_id is not None and self.config.bos_token_id == self.config.pad_token_id)
                or (self.config.eos_token_id is not None and self.config.eos_token_id == self.config.pad_token_id)
                or (self.config.sep_token_id is not None and self.config.sep_token_id == self.config.pad_token_id)
            ):
                warn_string += f"\nYou may ignore this warning if your `pad_token_id` ({self.config.pad_token_id})..."
            logger.warning(warn_string)

    def forward(self, input_ids, attention_mask=None):
        self.warn_if_padding_and_no_attention_mask(input_ids, attention_mask)
        input_shape = input_ids.size()
        seq_length = input_shape[1]
        position_ids = torch.arange(seq_length, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        embeddings = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        hidden = self.transform_act_fn(self.dense(self.LayerNorm(embeddings)))
        return self.decoder(hidden)


def make_model():
    return BertForMaskedLM(BertConfig()).eval()


def example_inputs():
    return (torch.randint(1, 100, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 100, (3, 20)),), (torch.randint(1, 100, (1, 7)),)]


def probe_inputs():
    return other_inputs()
