"""ddp_train.py - DistributedDataParallel training of a small CNN, for
`cudalens run -- torchrun --nproc_per_node=2 ddp_train.py [STEPS]` (issue
21, tests/gpu/nccl.sh): correct code, which must give no error.  Prints the
time of the steady-state steps (after 5 warm-up steps), for the overhead
side by side with a native run."""
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank % torch.cuda.device_count())
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(64 * 16, 10)).cuda()
model = nn.parallel.DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
x = torch.randn(64, 3, 32, 32, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
t0 = None
for step in range(steps):
    if step == 5:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
dt = time.perf_counter() - t0
if rank == 0:
    print("ddp_train: %d steps, %.3f ms/step, loss %.4f" %
          (steps - 5, 1000 * dt / (steps - 5), loss.item()))
dist.destroy_process_group()
