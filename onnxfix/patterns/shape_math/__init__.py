"""ONX4xx: Python arithmetic on values taken from tensor shapes."""

from onnxfix.patterns.shape_math import bool_argument, division, linspace, math_calls, negative_bound, roll, rules, size_numel, whole_pool

RULES = [rules.InplaceShapeMath, math_calls.MathOnSize, rules.BuiltinMaxMin, rules.SizeScaleFactor, division.SizeFloorDivision, roll.RollBySize, *linspace.RULES, *whole_pool.RULES, *bool_argument.RULES, *negative_bound.RULES, *size_numel.RULES]
