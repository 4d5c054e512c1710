# jax_numpy_train.py - a short JAX training loop fed from NumPy, one
# jax.device_put per step (issue 20): XLA moves each batch through a pinned
# staging buffer that it returns to its pool from a host function
# (cuLaunchHostFunc).  Under cudalens: no error finding.  Prints the losses
# (the same without cudalens).  Run with XLA_PYTHON_CLIENT_PREALLOCATE=false.
#   python3 jax_numpy_train.py [STEPS]
import sys

import jax
import jax.numpy as jnp
import numpy as np


def loss(w, x, y):
    return jnp.mean((jnp.tanh(x @ w[0]) @ w[1] - y) ** 2)


@jax.jit
def step(w, x, y):
    l, g = jax.value_and_grad(loss)(w, x, y)
    return [a - 0.01 * b for a, b in zip(w, g)], l


steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rng = np.random.default_rng(0)
w = [jnp.asarray(rng.standard_normal((64, 128), dtype=np.float32) * 0.1),
     jnp.asarray(rng.standard_normal((128, 8), dtype=np.float32) * 0.1)]
for i in range(steps):
    x = rng.standard_normal((256, 64), dtype=np.float32)
    y = rng.standard_normal((256, 8), dtype=np.float32)
    xd, yd = jax.device_put(x), jax.device_put(y)
    w, l = step(w, xd, yd)
    print(i, "%.4f" % float(l))
