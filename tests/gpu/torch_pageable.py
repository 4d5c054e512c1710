# torch_pageable.py - BUGGY PyTorch sample for `pageable-async-copy`:
# to("cuda", non_blocking=True) from tensors that are not pinned.  CUDA
# stages each copy through a pinned buffer, so non_blocking buys nothing.
# Twin: torch_pinned_once.py.  Run under the shim by tests/gpu/transfers.sh.
import torch

batches = [torch.randn(1 << 20) for _ in range(4)]  # pageable host memory
acc = torch.zeros(1 << 20, device="cuda")
for i in range(40):
    x = batches[i % 4].to("cuda", non_blocking=True)  # expect: pageable-async-copy
    acc.add_(x)
torch.cuda.synchronize()
print("torch_pageable: ok", float(acc[0]))
