"""Writes the inputs of docs/examples/train.mlir (deterministic, seed 3):
initial parameters (scaled like a standard initialization) and a batch of
64 points in 8 dimensions with 4 classes, labelled by a hidden linear map."""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(3)
x = rng.standard_normal((64, 8))
labels = np.eye(4)[(x @ rng.standard_normal((8, 4))).argmax(1)]
arrays = {
    "w1": rng.standard_normal((8, 32)) / np.sqrt(8),
    "b1": np.zeros(32),
    "w2": rng.standard_normal((32, 4)) / np.sqrt(32),
    "b2": np.zeros(4),
    "x": x,
    "labels": labels,
}
for name, value in arrays.items():
    np.save(os.path.join(here, name + ".npy"), value.astype(np.float32))
