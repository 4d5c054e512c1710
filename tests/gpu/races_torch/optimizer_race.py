# optimizer_race.py - gradients made on a side stream and an optimizer
# step on the default stream that does not wait for them (PyTorch's CUDA
# semantics notes: work on two streams needs wait_stream).  AdamW's foreach
# step (the default on CUDA; `fused` for the fused kernel) passes the
# addresses of every parameter, gradient and state tensor of up to 36
# tensors in one structure (TensorListMetadata): the gradients are its
# 37th to 72nd words.  cudalens must report a stream-race; with the wait
# (`wait`), none: the structure's words left over from an earlier launch
# must not make one either.
import sys

import torch

args = sys.argv[1:]
cuda = torch.device("cuda")
torch.manual_seed(0)
params = [torch.nn.Parameter(torch.randn(4096, device=cuda)) for _ in range(40)]
opt = torch.optim.AdamW(params, lr=1e-3, foreach="fused" not in args,
                        fused="fused" in args)
main = torch.cuda.current_stream()
side = torch.cuda.Stream()
for _ in range(3):
    side.wait_stream(main)  # the last step's reads are done
    with torch.cuda.stream(side):
        for p in params:
            p.grad = torch.randn_like(p)  # written on the side stream
    if "wait" in args:
        main.wait_stream(side)  # the fix
    opt.step()  # BUG without the wait: may read gradients still being made
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print("optimizer_race: done", float(params[0].sum()))
