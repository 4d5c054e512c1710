# torch_pinned_once.py - the fixed twin of torch_pageable.py: the batches
# are pinned once, before the loop, so every to("cuda", non_blocking=True)
# is a real asynchronous copy.  No transfer finding expected.
import torch

batches = [torch.randn(1 << 20).pin_memory() for _ in range(4)]  # pinned once
acc = torch.zeros(1 << 20, device="cuda")
for i in range(40):
    x = batches[i % 4].to("cuda", non_blocking=True)
    acc.add_(x)
torch.cuda.synchronize()
print("torch_pinned_once: ok", float(acc[0]))
