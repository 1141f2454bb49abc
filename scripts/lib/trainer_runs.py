"""What `aorta train` leaves behind, read for the trainer GPU scripts (trainer-sharded-gpu.sh, trainer-race-gpu.sh):
a run's per-step metrics lines and its --save-weights file (safetensors, fp32), each flattened to a numpy array."""
import json
import os
import struct

import numpy as np


def metrics(run_dir):
    """The rank-0 metrics lines of the run whose output_dir is run_dir, or [] when it wrote none."""
    f = os.path.join(run_dir, "rank_00_metrics.jsonl")
    return [json.loads(line) for line in open(f)] if os.path.exists(f) else []


def weights(path):
    """{tensor name: flat fp32 array} of a safetensors file, or None when it is missing."""
    if not os.path.exists(path):
        return None
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    return {k: np.frombuffer(raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]], dtype=np.float32)
            for k, v in header.items() if k != "__metadata__"}
