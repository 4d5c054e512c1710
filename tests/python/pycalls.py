# pycalls.py - a Python program calling the (simulated) CUDA runtime
# through ctypes, for tests/python/pycalls.test; each call carries a
# "# at:NAME" marker that the test turns into the expected line.
import ctypes
import threading

rt = ctypes.CDLL("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.c_int]
rt.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
H2D = 1
N = 1 << 20


def alloc(n):
    p = ctypes.c_void_p()
    rc = rt.cudaMalloc(ctypes.byref(p), n)  # at:malloc
    assert rc == 0, "cudaMalloc: %d" % rc
    return p


def upload(dst, src, n):
    assert rt.cudaMemcpy(dst, src, n, H2D) == 0  # at:memcpy
    assert rt.cudaMemcpyAsync(dst, src, n, H2D, None) == 0  # at:memcpyasync


def worker():
    rt.cudaDeviceSynchronize()  # at:thread


def step():
    d = alloc(N)
    h = ctypes.create_string_buffer(N)
    upload(d, h, N)
    d2 = alloc(N)  # a call between the async copy and the synchronization
    rt.cudaDeviceSynchronize()  # at:sync
    for _ in range(10):
        rt.cudaMemcpy(d2, h, 4096, H2D)  # at:loopcopy
    t = threading.Thread(target=worker)
    t.start()
    t.join()


step()
