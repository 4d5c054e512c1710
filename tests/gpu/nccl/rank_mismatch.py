"""rank_mismatch.py - ranks that disagree, for `cudalens run -- torchrun
--nproc_per_node=2 rank_mismatch.py bad|ok` (issue 21, tests/gpu/nccl.sh).
bad: rank 1 all-reduces an int32 tensor where rank 0 all-reduces a float32
one of the same size (the same bytes: NCCL does not hang, the sums are
garbage); the marked line must be a collective-mismatch in ranks 0-1.  ok:
both float32 (no error)."""
import sys

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "bad"
dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank % torch.cuda.device_count())
a = torch.ones(4096, device="cuda")
dist.all_reduce(a)
if mode == "bad" and rank == 1:
    b = torch.ones(4096, device="cuda", dtype=torch.int32)
    dist.all_reduce(b)  # expect: collective-mismatch
else:
    b = torch.ones(4096, device="cuda")
    dist.all_reduce(b)
dist.all_reduce(a)
torch.cuda.synchronize()
print("rank_mismatch %s: rank %d done" % (mode, rank))
dist.destroy_process_group()
