# cupy_hostfn.py - CuPy with host functions (issue 20): two pinned staging
# buffers go round a pool (queue.Queue); each step the main thread takes one,
# fills it, copies it to the device on one of two streams and enqueues a
# host function (Stream.launch_host_func, cudaLaunchHostFunc) that returns
# it to the pool once the copy is done; a stream callback
# (Stream.add_callback, cudaStreamAddCallback) counts the steps.  Correct:
# under cudalens no error finding (handoffs through the pool are warnings at
# most).  Prints a checksum (the same without cudalens).
import queue

import cupy as cp
import cupyx
import numpy as np

n = 1 << 20
pool = queue.Queue()
for _ in range(2):
    pool.put(cupyx.zeros_pinned((n,), np.float32))
streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
dev = [cp.empty((n,), cp.float32) for _ in range(2)]
done = []
total = 0.0
for step in range(16):
    s = streams[step % 2]
    d = dev[step % 2]
    h = pool.get()          # the host function of an earlier step put it back
    h[:] = step             # filled on the host
    d.set(h, stream=s)      # async copy from pinned memory
    s.launch_host_func(pool.put, h)
    s.add_callback(lambda stream, status, arg: done.append(arg), step)
    with s:
        r = float((d * 2).sum())  # synchronizes s
    total += r
cp.cuda.Device().synchronize()
print("cupy_hostfn: %g %d" % (total, len(done)))
