"""Generated probes: inputs the export never saw, drawn like the example's."""

import torch

from onnxfix.exporter.probes import generated_probes


def test_one_tensor_passed_as_several_arguments_stays_one():
    # attention called as attn(x, x, x, mask): torch.export traces the aliasing and the graph reads
    # one input for the three; three independent draws would fail a correct export
    x, mask = torch.randn(2, 4, 5, 8), torch.ones(2, 4, 5, 5, dtype=torch.bool)
    probes = generated_probes((x, x, x, mask), {0: {0: "batch", 2: "seq"}, 1: {0: "batch", 2: "seq"},
                                                2: {0: "batch", 2: "seq"}, 3: {0: "batch", 2: "seq", 3: "seq"}})
    assert [p.name for p in probes] == ["generated (other values)", "generated (dynamic dims +1)",
                                        "generated (dynamic dims +3)"]
    for probe in probes:
        query, key, value, drawn_mask = probe.args
        assert query is key is value
        assert drawn_mask.dtype == torch.bool and drawn_mask.shape[-1] == query.shape[2]
    assert not torch.equal(probes[0].args[0], x)
    assert probes[2].args[0].shape == (5, 4, 8, 8)


def test_distinct_tensors_are_drawn_apart():
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    (probe,) = generated_probes((a, b), {})
    assert not torch.equal(probe.args[0], probe.args[1])


def test_a_shared_tensor_grows_where_any_of_its_positions_is_dynamic():
    x = torch.randn(2, 5, 8)
    probes = generated_probes((x, x, x), {1: {1: "seq"}})
    assert [p.args[0].shape for p in probes] == [(2, 5, 8), (2, 6, 8), (2, 8, 8)]
    assert all(p.args[0] is p.args[1] is p.args[2] for p in probes)


def test_each_field_of_an_integer_table_stays_in_its_own_range():
    # VoxelNet: (batch, z, y, x) per voxel, z < 4, y < 10, x < 50: drawn in the whole tensor's
    # range, z and y would index out of the grid (the eager scatter of a sparse tensor crashes)
    coordinates = torch.stack([torch.tensor([0, 0, 1, 1]), torch.tensor([0, 3, 2, 1]),
                               torch.tensor([9, 0, 4, 7]), torch.tensor([49, 12, 0, 30])], dim=1)
    probes = generated_probes((coordinates.unsqueeze(0),), {0: {1: "voxels"}})
    for probe in probes:
        (drawn,) = probe.args
        assert drawn.dtype == torch.int64 and drawn.shape[-1] == 4
        rows = drawn.reshape(-1, 4)
        assert rows.min(0).values.tolist() >= [0, 0, 0, 0]
        assert (rows.max(0).values <= torch.tensor([1, 3, 9, 49])).all(), rows.max(0).values
    assert probes[2].args[0].shape == (1, 7, 4)
    assert len(set(probes[0].args[0][0, :, 3].tolist())) > 1  # still other values


def test_a_dynamic_last_dimension_is_not_a_record_of_fields():
    ids = torch.tensor([[5, 900, 17], [3, 2, 64]])  # token ids over a dynamic sequence
    for probe in generated_probes((ids,), {0: {1: "seq"}}):
        (drawn,) = probe.args
        assert drawn.min() >= 2 and drawn.max() <= 900
        assert not ((drawn[:, 0] >= 3) & (drawn[:, 0] <= 5)).all()  # the first column's own range is not kept
