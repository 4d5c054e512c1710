# reuse_race.py - PyTorch's caching-allocator reuse without record_stream
# (pytorch/pytorch#58385; the "Memory management" section of PyTorch's CUDA
# semantics notes): a tensor made on the default stream is read by a long
# kernel on a side stream, the program drops it, and the allocator hands
# its block to new work on the default stream while the side stream may
# still read it.  cudalens must report a stream-race at the reuse
# (`C.fill_`), with the side stream's read as the earlier access.
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "bug"
cuda = torch.device("cuda")
side = torch.cuda.Stream()
main = torch.cuda.current_stream()
for _ in range(3):
    A = torch.empty((4096, 4096), device=cuda).normal_()
    side.wait_stream(main)  # the side stream sees A complete
    with torch.cuda.stream(side):
        B = A @ A  # reads A on the side stream, for a while
    if mode == "record":
        A.record_stream(side)  # the fix the notes give
    elif mode == "wait":
        main.wait_stream(side)  # the other fix: main waits for the side work
    del A  # the block goes back to the caching allocator
    C = torch.empty((4096, 4096), device=cuda)  # very likely A's block
    C.fill_(1.0)  # writes it on the default stream
    main.wait_stream(side)
    del B
torch.cuda.synchronize()
print("reuse_race %s: done" % mode)
