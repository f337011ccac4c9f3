"""ONX3xx (continued): mutation through views, and copies the exporters cannot trace.

The legacy exporter turns a view (`y[:, 1:]`, `y.view(-1)`, `y.t()`) into a copy in the graph
(Slice, Reshape, Transpose). A write into that copy never reaches `y`. It repairs the common case
itself (an in-place op directly on a subscript of `y`, `y[:, 0].mul_(2)`, measured correct on
torch 2.13) but not a view held in a variable, a view made by a method, or an in-place
functional (`F.relu(y[:, :2], inplace=True)`): those come out silently wrong, even on the
export inputs, with no warning. The dynamo exporter functionalises all of them correctly.
"""

from onnxfix.patterns.views import carried_state, constant_writes, deepcopy, mutation

RULES = [mutation.ViewMutation, deepcopy.DeepcopyInForward, constant_writes.ConstantWrittenInPlace,
         carried_state.CarriedState]
