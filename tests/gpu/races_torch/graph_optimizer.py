# graph_optimizer.py - an optimizer step captured in a CUDA graph (the
# whole-network capture of PyTorch's CUDA semantics notes: capturable=True,
# warm-up on a side stream) and replayed; a side stream then copies
# parameters 20 to 39 without waiting for the replay.  AdamW's foreach
# kernels take every tensor's address in one structure: these parameters
# are words past the 16th of the graph's kernel nodes.  cudalens must
# report the race; with the wait (`wait`), nothing.
import sys

import torch

args = sys.argv[1:]
cuda = torch.device("cuda")
torch.manual_seed(0)
params = [torch.nn.Parameter(torch.randn(4096, device=cuda)) for _ in range(40)]
for p in params:
    p.grad = torch.randn_like(p)  # static gradients
opt = torch.optim.AdamW(params, lr=1e-3, capturable=True, foreach=True)
main = torch.cuda.current_stream()
warm = torch.cuda.Stream()
warm.wait_stream(main)
with torch.cuda.stream(warm):
    for _ in range(3):
        opt.step()
main.wait_stream(warm)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    opt.step()
side = torch.cuda.Stream()
for _ in range(3):
    graph.replay()
    if "wait" in args:
        side.wait_stream(main)  # the fix
    with torch.cuda.stream(side):
        # BUG without the wait: the replay may still be writing them
        copies = [p.detach().clone() for p in params[20:]]
    main.wait_stream(side)
torch.cuda.synchronize()
print("graph_optimizer: done", float(copies[0].sum()))
