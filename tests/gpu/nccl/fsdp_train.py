"""fsdp_train.py - FSDP (fully_shard, FSDP2) training of a small MLP, for
`cudalens run -- torchrun --nproc_per_node=2 fsdp_train.py` (issue 21,
tests/gpu/nccl.sh): correct code, which must give no error.  All-gathers and
reduce-scatters on FSDP's own streams, ordered by its events."""
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import fully_shard

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank % torch.cuda.device_count())
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(256, 256), nn.ReLU()) for _ in range(4)],
                      nn.Linear(256, 10)).cuda()
for layer in model[:4]:
    fully_shard(layer)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(32, 256, device="cuda")
y = torch.randint(0, 10, (32,), device="cuda")
for step in range(8):
    opt.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("fsdp_train: rank %d loss %.4f" % (rank, loss.item()))
dist.destroy_process_group()
