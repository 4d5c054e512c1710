# torch_pin_in_loop.py - BUGGY PyTorch sample for `repeated-pinning`:
# pin_memory() inside the loop, so each batch is copied into freshly pinned
# memory.  PyTorch's caching host allocator may hand back a block pinned
# for an earlier batch (then there is little to report); keeping the pinned
# batches alive, as here, makes every call pin new memory.
# Twin: torch_pinned_once.py.
import torch

batches = [torch.randn(1 << 18) for _ in range(4)]
acc = torch.zeros(1 << 18, device="cuda")
kept = []
for i in range(40):
    p = batches[i % 4].pin_memory()  # expect: repeated-pinning
    kept.append(p)
    acc.add_(p.to("cuda", non_blocking=True))
torch.cuda.synchronize()
print("torch_pin_in_loop: ok", float(acc[0]), len(kept))
