# compile_race.py - a torch.compile'd function run on a side stream reads a
# tensor that the default stream is refilling, without wait_stream: the
# compiled (Triton) kernel may read it before normal_() finished.  cudalens
# must report a stream-race; with "fixed" the side stream waits for the
# default stream first, and there must be none.
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "bug"


@torch.compile
def reduce_rows(x):
    return (x * 2.0).sin().sum(dim=0)


cuda = torch.device("cuda")
main = torch.cuda.current_stream()
side = torch.cuda.Stream()
x = torch.randn(2048, 2048, device=cuda)
reduce_rows(x)  # compiled here, outside the loop
torch.cuda.synchronize()
for _ in range(3):
    x.normal_()  # writes x on the default stream
    if mode == "fixed":
        side.wait_stream(main)
    with torch.cuda.stream(side):
        y = reduce_rows(x)  # reads x on the side stream
    main.wait_stream(side)
torch.cuda.synchronize()
print("compile_race %s: done" % mode, float(y[0]))
