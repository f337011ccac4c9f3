"""A point-cloud block flattens its last two axes with einops `rearrange(a, "... c x -> ... (c x)")`;
before einops' uncached fallback (0.7.0) the shape-derived recipe goes through `functools.lru_cache`
keyed on `tensor.shape`, and einops registers `rearrange` with dynamo's `allow_in_graph`, so a
dynamic-shape dynamo export dies with "unhashable type: non-nested SymInt" (fixed by upgrading
einops). The few einops lines involved (0.6.1 body, 0.7.0rc1 registration) are copied below.

Source: https://github.com/microsoft/onnxscript/issues/1883
"""
import functools
from typing import List

import torch
from torch import nn

CLASS = "state"
FAMILY = "shape_math"
DYNAMIC = {"a": {0: "batch", 2: "points"}}
BLIND = "domains-85"


# ---- einops 0.6.1 / 0.7.0rc1 (einops/einops.py), trimmed to the ellipsis-rearrange path ----
class TransformRecipe:
    def __init__(self, elementary_axes_lengths, input_composite_axes, output_composite_axes,
                 axes_permutation, ellipsis_position_in_lhs):
        self.elementary_axes_lengths: List[int] = elementary_axes_lengths
        self.input_composite_axes = input_composite_axes
        self.output_composite_axes = output_composite_axes
        self.axes_permutation: List[int] = axes_permutation
        self.ellipsis_position_in_lhs: int = ellipsis_position_in_lhs


def _product(sequence):
    result = 1
    for element in sequence:
        result *= element
    return result


@functools.lru_cache(256)
def _prepare_transformation_recipe(pattern: str) -> TransformRecipe:
    left, right = pattern.split("->")
    left_names = left.split()                       # e.g. ['...', 'c', 'x']
    axes = {name: i for i, name in enumerate(left_names)}
    input_composite_axes = [([], [axes[name]]) for name in left_names]
    output_composite_axes, group, in_group = [], None, False
    for token in right.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            group, in_group = [], True
        elif token == ")":
            output_composite_axes.append(group)
            in_group = False
        elif in_group:
            group.append(axes[token])
        else:
            output_composite_axes.append([-999] if token == "..." else [axes[token]])
    return TransformRecipe([-1] * len(left_names), input_composite_axes, output_composite_axes,
                           list(range(len(left_names))), left_names.index("..."))


def _reconstruct_from_shape_uncached(self: TransformRecipe, shape: List[int]):
    axes_lengths: List[int] = list(self.elementary_axes_lengths)
    ellipsis_shape: List[int] = []
    for input_axis, (known_axes, unknown_axes) in enumerate(self.input_composite_axes):
        before_ellipsis = input_axis
        after_ellipsis = input_axis + len(shape) - len(self.input_composite_axes)
        if input_axis == self.ellipsis_position_in_lhs:
            ellipsis_shape = shape[before_ellipsis:after_ellipsis + 1]
            axes_lengths[unknown_axes[0]] = _product(ellipsis_shape)
        else:
            length = shape[before_ellipsis] if input_axis < self.ellipsis_position_in_lhs else shape[after_ellipsis]
            axes_lengths[unknown_axes[0]] = length
    init_shapes = axes_lengths
    final_shapes: List[int] = []
    for grouping in self.output_composite_axes:
        if grouping == [-999]:
            final_shapes.extend(ellipsis_shape)
        else:
            final_shapes.append(_product([axes_lengths[a] for a in grouping]))
    return init_shapes, self.axes_permutation, final_shapes


_reconstruct_from_shape = functools.lru_cache(1024)(_reconstruct_from_shape_uncached)


def _apply_recipe(recipe: TransformRecipe, tensor):
    init_shapes, axes_reordering, final_shapes = _reconstruct_from_shape(recipe, tensor.shape)
    tensor = tensor.reshape(init_shapes)
    tensor = tensor.permute(axes_reordering)
    return tensor.reshape(final_shapes)


def rearrange(tensor, pattern: str):
    return _apply_recipe(_prepare_transformation_recipe(pattern), tensor)
# einops >= 0.7.0rc1 (_torch_specific.allow_ops_in_compiled_graph, run at import)
torch._dynamo.allow_in_graph(rearrange)
# ---- end einops ----


class EdgeFeatureHead(nn.Module):
    def __init__(self, channels=4, components=7, hidden=16):
        super().__init__()
        self.mix = nn.Linear(components, components)
        self.out = nn.Linear(channels * components, hidden)

    def forward(self, a):
        a = self.mix(a)                                  # [b, heads, points, c, x]
        a = rearrange(a, "... c x -> ... (c x)")         # [b, heads, points, c*x]
        return self.out(a)


def make_model():
    return EdgeFeatureHead().eval()


def example_inputs():
    return (torch.randn(1, 8, 565, 4, 7),)


def other_inputs():
    return [(torch.randn(2, 8, 300, 4, 7),), (torch.randn(3, 8, 41, 4, 7),)]


def probe_inputs():
    return other_inputs()
