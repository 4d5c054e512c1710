# seed_race.py - the example of PyTorch's CUDA semantics notes that is
# incorrect: sum() on a side stream may start before normal_() on the
# default stream finished.  cudalens must report a stream-race.
import torch

cuda = torch.device("cuda")
s = torch.cuda.Stream()  # Create a new stream.
A = torch.empty((100, 100), device=cuda).normal_(0.0, 1.0)
with torch.cuda.stream(s):
    # sum() may start execution before normal_() finishes!
    B = torch.sum(A)
torch.cuda.synchronize()
print("seed_race: done", float(B))
