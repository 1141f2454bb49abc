#!/usr/bin/env python3
"""Writes model/src/test/resources/python-written.safetensors: a parameter file made the way a Python reference
writes one (json + numpy, a __metadata__ entry as the safetensors package adds, json.dumps's spacing), so that
ParameterFileTest proves the Java reader takes files from the Python side. Needs numpy only.

Usage: python3 scripts/model-param-fixture.py [OUT_FILE]
"""
import json
import struct
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "model/src/test/resources/python-written.safetensors"
f32 = np.array([[1.5, -2.0, 0.25], [3.0, 1e-3, -7.5]], dtype="<f4")
bf16 = (np.array([1.0, -0.5, 3.140625], dtype="<f4").view("<u4") >> 16).astype("<u2")  # exact in bf16
f16 = np.array([0.5, -65504.0], dtype="<f2")
i32 = np.array([0, 7, -1, 2147483647], dtype="<i4")
tensors = [("layers.0.linear1.weight", "F32", f32), ("norm.gamma", "BF16", bf16), ("h", "F16", f16),
           ("ids", "I32", i32.reshape(2, 2))]
header = {"__metadata__": {"format": "pt"}}
blobs = []
at = 0
for name, dtype, arr in tensors:
    raw = arr.tobytes()
    header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [at, at + len(raw)]}
    blobs.append(raw)
    at += len(raw)
text = json.dumps(header).encode()
text += b" " * ((8 - len(text) % 8) % 8)
with open(out, "wb") as fh:
    fh.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
