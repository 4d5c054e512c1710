# graph_replay.py - a PyTorch CUDA-graph replay racing with a side stream
# that refills the graph's static input (the pattern of the "CUDA Graphs"
# section of PyTorch's CUDA semantics notes, with the refill moved to a
# side stream): torch.cuda.graph captures `static_in * 2 + 1`; each step a
# side stream copies the next batch into static_in and g.replay() runs on
# the current stream.  Mode "bug" (default): nothing orders the refill and
# the replay, so cudalens must report a stream-race between the copy and
# the graph's kernel node; mode "wait": the current stream waits for the
# refill (wait_stream) and each refill for the earlier replays: no race.
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "bug"
n = 1 << 20
static_in = torch.zeros(n, device="cuda")
# warm up on a side stream before capturing, as the notes say
warm = torch.cuda.Stream()
warm.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(warm):
    for _ in range(2):
        static_out = static_in * 2 + 1
torch.cuda.current_stream().wait_stream(warm)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static_out = static_in * 2 + 1

side = torch.cuda.Stream()
main = torch.cuda.current_stream()
batches = [torch.full((n,), float(i)).pin_memory() for i in range(3)]
total = 0.0
for step, batch in enumerate(batches):
    if mode == "wait":
        side.wait_stream(main)  # the refill waits for the earlier replays
    with torch.cuda.stream(side):
        static_in.copy_(batch, non_blocking=True)  # refill on the side stream
    if mode == "wait":
        main.wait_stream(side)
    g.replay()  # reads static_in on the current stream
    total += float(static_out.sum())
torch.cuda.synchronize()
print("graph_replay %s: done %g" % (mode, total))
