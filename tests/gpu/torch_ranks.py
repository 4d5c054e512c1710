"""torch_ranks.py - a worker for `cudalens run -- torchrun --nproc_per_node=N
torch_ranks.py` (issue 12): each rank does a little CUDA work on GPU
RANK % device_count (all on one GPU where there is one) and prints one line.
No process group: the point is that every worker process is recorded and
torchrun's own process, which never uses CUDA, leaves no file and says
nothing."""
import os

import torch

rank = int(os.environ.get("RANK", "0"))
torch.cuda.set_device(rank % torch.cuda.device_count())
x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
y = (x * 2).sum().item()
print("rank %d: %.0f" % (rank, y))
