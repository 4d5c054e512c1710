# torch_register_in_loop.py - BUGGY PyTorch sample for `repeated-pinning`
# that does not depend on the caching host allocator: the batch buffer is
# page-locked with cudaHostRegister and unlocked again in every iteration
# (torch.cuda.cudart()).  Exits 77 when this PyTorch lacks the binding.
import sys
import torch

cudart = torch.cuda.cudart()
if not hasattr(cudart, "cudaHostRegister") or not hasattr(cudart, "cudaHostUnregister"):
    print("torch_register_in_loop: SKIP: torch.cuda.cudart() has no cudaHostRegister")
    sys.exit(77)
buf = torch.randn(1 << 20)
nbytes = buf.numel() * buf.element_size()
acc = torch.zeros(1 << 20, device="cuda")
for i in range(20):
    cudart.cudaHostRegister(buf.data_ptr(), nbytes, 0)  # expect: repeated-pinning
    acc.add_(buf.to("cuda", non_blocking=True))
    torch.cuda.current_stream().synchronize()
    cudart.cudaHostUnregister(buf.data_ptr())
torch.cuda.synchronize()
print("torch_register_in_loop: ok", float(acc[0]))
