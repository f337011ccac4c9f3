"""SiamMOT (amazon-research/siam-mot) multi-object tracker: after the detection and track heads, the
TrackSolver merges detections with propagated tracks and hands out track ids, keeping the active and
dormant ids in a Python TrackPool, building masks with `torch.tensor([int(x) in active_ids for x in
all_ids])`, sets from `.tolist()` and loops over the start indices; the ailia-models porter reports that
the box_selector / track / solver part is mostly Python code and cannot be exported to ONNX (only the
graph up to the RPN head could be).

Source: https://github.com/ailia-ai/ailia-models/issues/479
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"ids": {0: "num_boxes"}, "scores": {0: "num_boxes"}}
BLIND = "domains-30"


class TrackPool(object):
    """siammot/modelling/track_head/track_utils.py (cache / embedding bookkeeping left out)."""

    def __init__(self, active_ids=None, max_entangle_length=10, max_dormant_frames=1):
        if active_ids is None:
            self._active_ids = set()
            self._dormant_ids = {}
            self._kill_ids = set()
            self._max_id = -1
        self._frame_idx = 0
        self._max_dormant_frames = max_dormant_frames

    def suspend_track(self, track_id):
        if track_id not in self._active_ids:
            raise ValueError
        self._active_ids.remove(track_id)
        self._dormant_ids[track_id] = self._frame_idx - 1

    def expire_tracks(self):
        for track_id, last_active in list(self._dormant_ids.items()):
            if self._frame_idx - last_active >= self._max_dormant_frames:
                self._dormant_ids.pop(track_id)
                self._kill_ids.add(track_id)

    def increment_frame(self, value=1):
        self._frame_idx += value

    def resume_track(self, track_id):
        if track_id not in self._dormant_ids or track_id in self._active_ids:
            raise ValueError
        self._active_ids.add(track_id)
        self._dormant_ids.pop(track_id)

    def start_track(self):
        new_id = self._max_id + 1
        self._max_id = new_id
        self._active_ids.add(new_id)
        return new_id

    def get_active_ids(self):
        return self._active_ids

    def get_dormant_ids(self):
        return set(self._dormant_ids.keys())


class TrackSolver(torch.nn.Module):
    """siammot/modelling/track_head/track_solver.py; the BoxList is a dict of its 'ids' / 'scores'
    fields and boxlist_nms is left out of get_nms_boxes."""

    def __init__(self, track_pool, track_thresh=0.3, start_track_thresh=0.5, resume_track_thresh=0.4):
        super(TrackSolver, self).__init__()
        self.track_pool = track_pool
        self.track_thresh = track_thresh
        self.start_thresh = start_track_thresh
        self.resume_track_thresh = resume_track_thresh

    def get_nms_boxes(self, detection):
        _ids = detection['ids']
        _scores = detection['scores']
        _scores[_scores >= 2.] = _scores[_scores >= 2.] - 2.
        _scores[_scores >= 1.] = _scores[_scores >= 1.] - 1.
        return detection, _ids, _scores

    def forward(self, detection):
        assert len(detection) == 1
        detection = detection[0]

        track_pool = self.track_pool

        all_ids = detection['ids']
        all_scores = detection['scores']
        active_ids = track_pool.get_active_ids()
        dormant_ids = track_pool.get_dormant_ids()
        device = all_ids.device

        active_mask = torch.tensor([int(x) in active_ids for x in all_ids], device=device)
        all_scores[active_mask] += 1.

        nms_detection, nms_ids, nms_scores = self.get_nms_boxes(detection)

        combined_detection = nms_detection
        _ids = combined_detection['ids']
        _scores = combined_detection['scores']

        # start track ids
        start_idxs = ((_ids < 0) & (_scores >= self.start_thresh)).nonzero()

        # inactive track ids
        inactive_idxs = ((_ids >= 0) & (_scores < self.track_thresh))
        nms_track_ids = set(_ids[_ids >= 0].tolist())
        all_track_ids = set(all_ids[all_ids >= 0].tolist())
        nms_removed_ids = all_track_ids - nms_track_ids
        inactive_ids = set(_ids[inactive_idxs].tolist()) | nms_removed_ids

        # resume dormant mask, if needed
        dormant_mask = torch.tensor([int(x) in dormant_ids for x in _ids], device=device)
        resume_ids = _ids[dormant_mask & (_scores >= self.resume_track_thresh)]
        for _id in resume_ids.tolist():
            track_pool.resume_track(_id)

        for _idx in start_idxs:
            _ids[_idx] = track_pool.start_track()

        active_ids = track_pool.get_active_ids()
        for _id in inactive_ids:
            if _id in active_ids:
                track_pool.suspend_track(_id)

        _ids[inactive_idxs] = -1

        track_pool.expire_tracks()
        track_pool.increment_frame()

        return [combined_detection]


class SiamMOTSolverStage(nn.Module):
    def __init__(self):
        super().__init__()
        self.track_pool = TrackPool()
        for _ in range(4):
            self.track_pool.start_track()
        self.solver = TrackSolver(self.track_pool)

    def forward(self, ids, scores):
        detection = [{'ids': ids.clone(), 'scores': scores.clone()}]
        out = self.solver(detection)[0]
        return out['ids'], out['scores']


def make_model():
    return SiamMOTSolverStage().eval()


def _frame(n_tracks, n_dets):
    ids = torch.cat([torch.arange(n_tracks), torch.full((n_dets,), -1)])
    scores = torch.cat([1. + torch.rand(n_tracks), torch.rand(n_dets)])
    return ids, scores


def example_inputs():
    return _frame(3, 5)


def other_inputs():
    return [_frame(4, 7), _frame(2, 3)]


def probe_inputs():
    return other_inputs()
