"""ML-Agents variable-length-observation policy: EntityEmbedding / ResidualSelfAttention built with
`entity_num_max_elements=None` take `num_entities = entities.shape[1]` and tile the self observation with
`torch.cat([expanded_self] * num_entities, dim=1)`; the PR made such networks raise when exported to ONNX
because the entity count must be known ("Trying to export an attention mechanism that doesn't have a set
max number of elements").

Source: https://github.com/Unity-Technologies/ml-agents/pull/4841
"""
from typing import List, Optional

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "shape_math"
DYNAMIC = {"x_self": {0: "batch"}, "entities": {0: "batch", 1: "num_entities"}}
BLIND = "domains-38"


def get_zero_entities_mask(entities: List[torch.Tensor]) -> List[torch.Tensor]:
    with torch.no_grad():
        key_masks: List[torch.Tensor] = [
            (torch.sum(ent ** 2, axis=2) < 0.01).float() for ent in entities
        ]
    return key_masks


class MultiHeadAttention(nn.Module):
    NEG_INF = -1e6

    def __init__(self, embedding_size: int, num_heads: int):
        super().__init__()
        self.n_heads = num_heads
        self.head_size: int = embedding_size // self.n_heads
        self.embedding_size: int = self.head_size * self.n_heads

    def forward(self, query, key, value, n_q: int, n_k: int, key_mask: Optional[torch.Tensor] = None):
        b = -1  # the batch size
        query = query.reshape(b, n_q, self.n_heads, self.head_size)
        key = key.reshape(b, n_k, self.n_heads, self.head_size)
        value = value.reshape(b, n_k, self.n_heads, self.head_size)
        query = query.permute([0, 2, 1, 3])
        key = key.permute([0, 2, 1, 3])
        key = key.permute([0, 1, 3, 2])
        qk = torch.matmul(query, key)
        key_mask = key_mask.reshape(b, 1, 1, n_k)
        qk = (1 - key_mask) * qk / (self.embedding_size ** 0.5) + key_mask * self.NEG_INF
        att = torch.softmax(qk, dim=3)
        value = value.permute([0, 2, 1, 3])
        value_attention = torch.matmul(att, value)
        value_attention = value_attention.permute([0, 2, 1, 3])
        value_attention = value_attention.reshape(b, n_q, self.embedding_size)
        return value_attention, att


class EntityEmbedding(nn.Module):
    def __init__(self, entity_size: int, entity_num_max_elements: Optional[int], embedding_size: int):
        super().__init__()
        self.self_size: int = 0
        self.entity_size: int = entity_size
        self.entity_num_max_elements: int = -1
        if entity_num_max_elements is not None:
            self.entity_num_max_elements = entity_num_max_elements
        self.embedding_size = embedding_size
        self.self_ent_encoder = nn.Linear(self.entity_size, self.embedding_size)

    def add_self_embedding(self, size: int) -> None:
        self.self_size = size
        self.self_ent_encoder = nn.Linear(self.self_size + self.entity_size, self.embedding_size)

    def forward(self, x_self: torch.Tensor, entities: torch.Tensor) -> torch.Tensor:
        num_entities = self.entity_num_max_elements
        if num_entities < 0:
            num_entities = entities.shape[1]
        if self.self_size > 0:
            expanded_self = x_self.reshape(-1, 1, self.self_size)
            expanded_self = torch.cat([expanded_self] * num_entities, dim=1)
            # Concatenate all observations with self
            entities = torch.cat([expanded_self, entities], dim=2)
        encoded_entities = self.self_ent_encoder(entities)
        return encoded_entities


class ResidualSelfAttention(nn.Module):
    EPSILON = 1e-7

    def __init__(self, embedding_size: int, entity_num_max_elements: Optional[int] = None, num_heads: int = 4):
        super().__init__()
        self.max_num_ent: Optional[int] = None
        if entity_num_max_elements is not None:
            self.max_num_ent = entity_num_max_elements
        self.attention = MultiHeadAttention(num_heads=num_heads, embedding_size=embedding_size)
        self.fc_q = nn.Linear(embedding_size, embedding_size)
        self.fc_k = nn.Linear(embedding_size, embedding_size)
        self.fc_v = nn.Linear(embedding_size, embedding_size)
        self.fc_out = nn.Linear(embedding_size, embedding_size)
        self.embedding_norm = nn.LayerNorm(embedding_size, elementwise_affine=False)
        self.residual_norm = nn.LayerNorm(embedding_size, elementwise_affine=False)

    def forward(self, inp: torch.Tensor, key_masks: List[torch.Tensor]) -> torch.Tensor:
        mask = torch.cat(key_masks, dim=1)
        inp = self.embedding_norm(inp)
        query = self.fc_q(inp)
        key = self.fc_k(inp)
        value = self.fc_v(inp)
        # Only use max num if provided
        if self.max_num_ent is not None:
            num_ent = self.max_num_ent
        else:
            num_ent = inp.shape[1]
        output, _ = self.attention(query, key, value, num_ent, num_ent, mask)
        output = self.fc_out(output) + inp
        output = self.residual_norm(output)
        # Average Pooling
        numerator = torch.sum(output * (1 - mask).reshape(-1, num_ent, 1), dim=1)
        denominator = torch.sum(1 - mask, dim=1, keepdim=True) + self.EPSILON
        output = numerator / denominator
        return output


class AttentionPolicy(nn.Module):
    def __init__(self, self_size=8, entity_size=6, h_size=32, num_actions=4):
        super().__init__()
        self.entity_embedding = EntityEmbedding(entity_size, None, h_size)
        self.entity_embedding.add_self_embedding(self_size)
        self.rsa = ResidualSelfAttention(h_size, None)
        self.self_encoder = nn.Linear(self_size, h_size)
        self.policy_head = nn.Linear(2 * h_size, num_actions)

    def forward(self, x_self, entities):
        masks = get_zero_entities_mask([entities])
        encoded = self.entity_embedding(x_self, entities)
        attended = self.rsa(encoded, masks)
        h = torch.cat([self.self_encoder(x_self), attended], dim=1)
        return torch.softmax(self.policy_head(h), dim=-1)


def make_model():
    return AttentionPolicy()


def example_inputs():
    return (torch.randn(2, 8), torch.randn(2, 5, 6))


def other_inputs():
    return [(torch.randn(3, 8), torch.randn(3, 9, 6)), (torch.randn(1, 8), torch.randn(1, 3, 6))]


def probe_inputs():
    return other_inputs()
