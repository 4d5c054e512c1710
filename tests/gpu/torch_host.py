# torch_host.py - the seeds' tutorial bug on the GPU: a device-to-host copy
# with non_blocking=True read before synchronizing ("bug"), and the same
# after torch.cuda.synchronize() ("fixed").  Both print the same value when
# the copy happens to land in time; cudalens must flag the first only.
import sys

import torch

torch.manual_seed(0)
cuda_t = torch.randn(1024, 1024, device="cuda")
x = cuda_t.to("cpu", non_blocking=True)
if sys.argv[1] == "fixed":
    torch.cuda.synchronize()
print("mean", float(x.mean()))  # expect (bug): host-read-before-sync
torch.cuda.synchronize()
