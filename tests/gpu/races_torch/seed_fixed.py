# seed_fixed.py - the same example, fixed: the side stream waits for the
# default stream before sum().  cudalens must report no stream-race.
import torch

cuda = torch.device("cuda")
s = torch.cuda.Stream()
A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    B = torch.sum(A)
A.record_stream(s)
torch.cuda.current_stream().wait_stream(s)
torch.cuda.synchronize()
print("seed_fixed: done", float(B))
