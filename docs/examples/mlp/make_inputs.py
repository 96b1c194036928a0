"""Writes the inputs of docs/examples/mlp.mlir (deterministic, seed 7)."""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
arrays = {
    "x": rng.standard_normal((8, 16)),
    "w1": rng.standard_normal((16, 32)) / 4,
    "b1": rng.standard_normal(32) / 10,
    "w2": rng.standard_normal((32, 10)) / 4,
    "b2": rng.standard_normal(10) / 10,
}
for name, value in arrays.items():
    np.save(os.path.join(here, name + ".npy"), value.astype(np.float32))
