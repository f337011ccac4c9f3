"""UniAD MotionHead.group_mode_query_pos picks each agent's class-group anchor embedding with a
Python loop `for j in range(agent_num)` over the number of tracked agents (and indexes with the 0-d
tensor grouped_label[j]); NVIDIA's uniad-trt ONNX-export patch replaces it with a vectorized
gather (for_loop_agent_num_vec) because the per-agent loop does not export for a varying agent count.

Source: https://github.com/NVIDIA/DL4AGX/blob/e8ac56539968722464ba30e3c04e34f8faf9a251/AV-Solutions/uniad-trt/patch/uniad-onnx-export.patch
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"track_query": {1: "agents"}, "track_labels": {0: "agents"}}
BLIND = "domains-76"


class MotionHead(nn.Module):
    def __init__(self, embed_dims=32, num_anchor=6,
                 group_id_list=[[0, 1, 2, 3, 4], [6, 7], [8], [5, 9]]):
        super().__init__()
        self.num_anchor = num_anchor
        self.group_id_list = group_id_list
        num_classes = sum(len(g) for g in group_id_list)
        self.cls2group = torch.zeros(num_classes, dtype=torch.long)
        for i, grouped_ids in enumerate(group_id_list):
            for gid in grouped_ids:
                self.cls2group[gid] = i
        num_groups = len(group_id_list)
        self.learnable_motion_query_embedding = nn.Embedding(
            num_anchor * num_groups, embed_dims)
        self.query_proj = nn.Linear(embed_dims, embed_dims)

    def group_mode_query_pos(self, bbox_results, mode_query_pos):
        batch_size = len(bbox_results)
        agent_num = mode_query_pos.shape[1]
        batched_mode_query_pos = []
        self.cls2group = self.cls2group.to(mode_query_pos.device)
        # TODO: vectorize this
        # group the embeddings based on the class
        for i in range(batch_size):
            bboxes, scores, labels, bbox_index, mask = bbox_results[i]
            label = labels.to(mode_query_pos.device)
            grouped_label = self.cls2group[label]
            grouped_mode_query_pos = []
            for j in range(agent_num):
                grouped_mode_query_pos.append(
                    mode_query_pos[i, j, grouped_label[j]])
            batched_mode_query_pos.append(torch.stack(grouped_mode_query_pos))
        return torch.stack(batched_mode_query_pos)

    def forward(self, track_query, track_labels):
        # track_query: (B=1, A, D) tracked-agent queries; track_labels: (A,) class ids
        bbox_results = [(None, None, track_labels, None, None)]
        batch_size, num_agents = track_query.shape[:2]
        learnable_query_pos = self.learnable_motion_query_embedding.weight  # (G*P, D)
        learnable_query_pos = torch.stack(
            torch.split(learnable_query_pos, self.num_anchor, dim=0))  # (G, P, D)
        learnable_embed = learnable_query_pos[None, None, ...].expand(
            batch_size, num_agents, -1, -1, -1)  # B, A, G, P, D
        learnable_embed = self.group_mode_query_pos(bbox_results, learnable_embed)  # B, A, P, D
        return self.query_proj(track_query)[:, :, None, :] + learnable_embed


def make_model():
    return MotionHead()


def example_inputs():
    return (torch.randn(1, 5, 32), torch.randint(0, 10, (5,)))


def other_inputs():
    return [(torch.randn(1, 9, 32), torch.randint(0, 10, (9,))),
            (torch.randn(1, 3, 32), torch.randint(0, 10, (3,)))]


def probe_inputs():
    return other_inputs()
