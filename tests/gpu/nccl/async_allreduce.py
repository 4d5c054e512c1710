"""async_allreduce.py - the async collective used before it finished, for
`cudalens run -- torchrun --nproc_per_node=2 async_allreduce.py bug|wait`
(issue 21, tests/gpu/nccl.sh).  bug: t.mul_(2) runs on the current stream
while the all-reduce ProcessGroupNCCL issued on its own stream may still
read and write t (the line marked must be reported, in both ranks); wait:
the correct twin, work.wait() first (no error)."""
import sys

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "bug"
dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank % torch.cuda.device_count())
t = torch.full((1 << 20,), float(rank + 1), device="cuda")
dist.all_reduce(t)  # warm-up: the communicator
for _ in range(3):
    work = dist.all_reduce(t, async_op=True)
    if mode == "bug":
        t.mul_(2)  # expect: stream-race
        work.wait()
    else:
        work.wait()
        t.mul_(2)
torch.cuda.synchronize()
print("async_allreduce %s: rank %d: %.1f" % (mode, rank, t[0].item()))
dist.destroy_process_group()
