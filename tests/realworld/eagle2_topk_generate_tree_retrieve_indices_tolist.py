"""EAGLE-2 speculative decoding draft tree (SafeAILab/EAGLE `Model.topK_generate`): after the top-k
drafting steps, the tree is built in Python from `mask_index.tolist()`, `torch.unique(mask_index).tolist()`,
`max_depth.item()` and `tree_position_ids.tolist()`, with `if i not in noleaf_index:` loops filling
`retrieve_indices`; exporting it (ExecuTorch / torch.export) fails with "Dynamic control flow is not
supported at the moment" at that branch.

Source: https://github.com/pytorch/pytorch/issues/148193
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-30"


class EagleTreeDraft(nn.Module):
    """Draft-tree part of EAGLE-2's `topK_generate`; the draft decoder's head logits are inputs."""

    def __init__(self, total_tokens=10, depth=3, top_k=3):
        super().__init__()
        self.total_tokens = total_tokens
        self.depth = depth
        self.top_k = top_k
        self.logsoftmax = nn.LogSoftmax(dim=-1)

    def forward(self, first_headout, step_headouts, sample_token):
        total_tokens = self.total_tokens
        depth = self.depth
        top_k = self.top_k

        scores_list = []
        parents_list = []
        ss_token = []

        last_p = self.logsoftmax(first_headout)
        top = torch.topk(last_p, top_k, dim=-1)
        topk_index, topk_p = top.indices, top.values
        scores = topk_p[0]
        scores_list.append(scores[None])
        parents_list.append(torch.zeros(1, dtype=torch.long, device=scores.device))
        ss_token.append(topk_index)
        topk_cs_index = torch.arange(top_k, device=scores.device)

        for i in range(depth):
            bias1 = top_k if i > 0 else 0
            bias2 = max(0, i - 1)
            bias = 1 + top_k ** 2 * bias2 + bias1
            parents = (topk_cs_index + bias)
            parents_list.append(parents)

            last_headout = step_headouts[i]
            last_p = self.logsoftmax(last_headout)

            top = torch.topk(last_p, top_k, dim=-1)
            topk_index, topk_p = top.indices, top.values

            cu_scores = topk_p + scores[:, None]

            topk_cs = torch.topk(cu_scores.view(-1), top_k, dim=-1)
            topk_cs_index, topk_cs_p = topk_cs.indices, topk_cs.values
            scores = topk_cs_p

            ss_token.append(topk_index)
            scores_list.append(cu_scores)

        scores_list = torch.cat(scores_list, dim=0).view(-1)
        ss_token_list = torch.cat(ss_token, dim=0).view(-1)
        top_scores = torch.topk(scores_list, total_tokens, dim=-1)
        top_scores_index = top_scores.indices
        top_scores_index = torch.sort(top_scores_index).values

        draft_tokens = ss_token_list[top_scores_index]
        draft_tokens = torch.cat((sample_token, draft_tokens), dim=0)

        draft_parents = torch.cat(parents_list, dim=0)[top_scores_index // top_k].long()
        mask_index = torch.searchsorted(top_scores_index, draft_parents - 1, right=False)
        mask_index[draft_parents == 0] = -1
        mask_index = mask_index + 1
        mask_index_list = mask_index.tolist()
        tree_mask = torch.eye(total_tokens + 1).bool()
        tree_mask[:, 0] = True
        for i in range(total_tokens):
            tree_mask[i + 1].add_(tree_mask[mask_index_list[i]])

        tree_position_ids = torch.sum(tree_mask, dim=1) - 1

        tree_mask = tree_mask.float()[None, None]
        draft_tokens = draft_tokens[None]

        max_depth = torch.max(tree_position_ids) + 1
        noleaf_index = torch.unique(mask_index).tolist()
        noleaf_num = len(noleaf_index) - 1
        leaf_num = total_tokens - noleaf_num

        retrieve_indices = torch.zeros(leaf_num, max_depth.item(), dtype=torch.long) - 1
        retrieve_indices = retrieve_indices.tolist()

        rid = 0
        position_ids_list = tree_position_ids.tolist()

        for i in range(total_tokens + 1):
            if i not in noleaf_index:
                cid = i
                depth = position_ids_list[i]
                for j in reversed(range(depth + 1)):
                    retrieve_indices[rid][j] = cid
                    cid = mask_index_list[cid - 1]
                rid += 1

        retrieve_indices = torch.tensor(retrieve_indices, dtype=torch.long)
        return draft_tokens, retrieve_indices, tree_mask, tree_position_ids


VOCAB = 64


def make_model():
    return EagleTreeDraft().eval()


def _inputs(scale):
    return (torch.randn(1, VOCAB) * scale, torch.randn(3, 3, VOCAB) * scale,
            torch.randint(0, VOCAB, (1,)))


def example_inputs():
    return _inputs(2.0)


def other_inputs():
    return [_inputs(4.0), _inputs(1.0)]


def probe_inputs():
    return other_inputs()
