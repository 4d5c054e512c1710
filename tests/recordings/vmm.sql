-- vmm.sql - a recording of mapped memory and access rights (schema 4): one
-- reserved range grown by two mappings of device 0's memory (cuMemMap),
-- granted to device 0 by one cuMemSetAccess over both; a memset on stream
-- 1 over a buffer across the seam, and a kernel on stream 2 reading its
-- second half, unordered (stream-race, found in the second mapping); a
-- kernel on device 1 reading the first mapping, which device 1 was not
-- given (cross-device-access, mapped memory); two pool allocations of
-- device 0 (cudaMallocAsync), the first from a pool that grants device 1
-- read-write access (cudaMemPoolSetAccess), the second from a pool that
-- grants nothing: kernels on device 1 may read the first
-- (nothing) and not the second (cross-device-access, pool memory), peer
-- access (enabled) notwithstanding.  No stacks: call sites are unknown.
INSERT INTO meta(key, value) VALUES
  ('format', 'cudalens'), ('cudalens_version', '0.1.0'), ('pid', '4242'),
  ('hostname', 'gpu03'), ('exe', '/nonexistent/vmm'),
  ('cmdline', '["./vmm"]'), ('start_ns', '1000000000'),
  ('end_ns', '1100000000'), ('clean_exit', '1');
INSERT INTO api(id, name, domain, cbid, op) VALUES
  (1, 'cudaStreamCreate_v3020', 'runtime', 125, 'stream-create'),
  (2, 'cuMemAddressReserve', 'driver', 547, 'alloc'),
  (3, 'cuMemMap', 'driver', 551, 'alloc'),
  (4, 'cuMemSetAccess', 'driver', 553, 'access'),
  (5, 'cudaMemsetAsync_v3020', 'runtime', 51, 'memset'),
  (6, 'cudaLaunchKernel_v7000', 'runtime', 211, 'kernel'),
  (7, 'cudaSetDevice_v3020', 'runtime', 160, 'set-device'),
  (8, 'cudaMemPoolSetAccess_v11020', 'runtime', 380, 'access'),
  (9, 'cudaMallocAsync_v11020', 'runtime', 373, 'alloc'),
  (10, 'cudaStreamSynchronize_v3020', 'runtime', 131, 'sync-stream'),
  (11, 'cudaDeviceEnablePeerAccess_v4000', 'runtime', 168, 'peer-enable'),
  (12, 'cudaDeviceSynchronize_v3020', 'runtime', 165, 'sync-device');
INSERT INTO strings(id, value) VALUES (1, '_Z6read_kPKfi');
INSERT INTO devices VALUES
  (0, 'NVIDIA H100 80GB HBM3', 'GPU-00000000-0000-0000-0000-000000000000', '00000000:19:00.0', 9, 0, 85029158912),
  (1, 'NVIDIA H100 80GB HBM3', 'GPU-11111111-1111-1111-1111-111111111111', '00000000:3B:00.0', 9, 0, 85029158912);
INSERT INTO contexts VALUES (1, 0, 93824992235776, 0, NULL), (2, 1, 93824992301312, 12, NULL);
INSERT INTO threads VALUES (4242, 'vmm');
-- seq, api, tid, start_ns, end_ns, result, device, context, stream,
-- correlation, driver_correlation, stack, pystack
INSERT INTO calls VALUES
  (1, 1, 4242, 1010000000, 1010001000, 0, 0, 1, 4096, 1, NULL, NULL, NULL),
  (2, 1, 4242, 1010002000, 1010003000, 0, 0, 1, 8192, 2, NULL, NULL, NULL),
  (3, 2, 4242, 1010004000, 1010005000, 0, 0, 1, NULL, 3, NULL, NULL, NULL),
  (4, 3, 4242, 1010006000, 1010007000, 0, 0, 1, NULL, 4, NULL, NULL, NULL),
  (5, 3, 4242, 1010008000, 1010009000, 0, 0, 1, NULL, 5, NULL, NULL, NULL),
  (6, 4, 4242, 1010010000, 1010011000, 0, 0, 1, NULL, 6, NULL, NULL, NULL),
  (7, 5, 4242, 1010012000, 1010013000, 0, 0, 1, 4096, 7, NULL, NULL, NULL),
  (8, 6, 4242, 1010014000, 1010015000, 0, 0, 1, 8192, 8, NULL, NULL, NULL),
  (9, 12, 4242, 1010016000, 1010017000, 0, 0, 1, NULL, 9, NULL, NULL, NULL),
  (10, 7, 4242, 1010018000, 1010019000, 0, 1, 2, NULL, 10, NULL, NULL, NULL),
  (11, 11, 4242, 1010020000, 1010021000, 0, 1, 2, NULL, 11, NULL, NULL, NULL),
  (12, 6, 4242, 1010022000, 1010023000, 0, 1, 2, 0, 12, NULL, NULL, NULL),
  (13, 7, 4242, 1010024000, 1010025000, 0, 0, 1, NULL, 13, NULL, NULL, NULL),
  (14, 8, 4242, 1010026000, 1010027000, 0, 0, 1, NULL, 14, NULL, NULL, NULL),
  (15, 9, 4242, 1010028000, 1010029000, 0, 0, 1, 4096, 15, NULL, NULL, NULL),
  (16, 9, 4242, 1010030000, 1010031000, 0, 0, 1, 4096, 16, NULL, NULL, NULL),
  (17, 10, 4242, 1010032000, 1010033000, 0, 0, 1, 4096, 17, NULL, NULL, NULL),
  (18, 7, 4242, 1010034000, 1010035000, 0, 1, 2, NULL, 18, NULL, NULL, NULL),
  (19, 6, 4242, 1010036000, 1010037000, 0, 1, 2, 0, 19, NULL, NULL, NULL),
  (20, 6, 4242, 1010038000, 1010039000, 0, 1, 2, 0, 20, NULL, NULL, NULL);
INSERT INTO streams VALUES (1, 4096, 0, 1, 0, NULL), (2, 8192, 0, 1, 0, NULL);
INSERT INTO syncs VALUES (9, 'device', NULL, NULL, 1), (17, 'stream', 4096, NULL, 1);
INSERT INTO device_ops VALUES (10, 'set-device', 1, NULL), (11, 'peer-enable', 1, 0),
  (13, 'set-device', 0, NULL), (18, 'set-device', 1, NULL);
-- the range 0x7f0000000000 (8 MiB), mapped 2 MiB + 2 MiB; pools
-- 0x5000 (grants device 1) and 0x6000 (grants nothing)
INSERT INTO memory VALUES
  (3, 'alloc', 139637976727552, 8388608, 'reserved', NULL, 0, NULL),
  (4, 'alloc', 139637976727552, 2097152, 'mapped', 0, 0, NULL),
  (5, 'alloc', 139637978824704, 2097152, 'mapped', 0, 0, NULL),
  (15, 'alloc', 138538465099776, 1048576, 'device-async', 0, 0, 4096),
  (16, 'alloc', 138538466148352, 1048576, 'device-async', 0, 0, 4096);
INSERT INTO alloc_handles VALUES (4, 'physical', 40960), (5, 'physical', 45056),
  (15, 'pool', 20480), (16, 'pool', 24576);
INSERT INTO mem_access VALUES (6, 'range', 139637976727552, 4194304, 0, 3),
  (14, 'pool', 20480, NULL, 1, 3);
-- the memset: 2 MiB from 1 MiB into the range, across the seam
INSERT INTO transfers VALUES
  (7, 'memset', NULL, 139637977776128, NULL, 2097152, 0, 1, 4096, 0, 0);
INSERT INTO kernels VALUES
  (8, 1, 256, 1, 1, 256, 1, 1, 0, 8192),
  (12, 1, 256, 1, 1, 256, 1, 1, 0, 0),
  (19, 1, 256, 1, 1, 256, 1, 1, 0, 0),
  (20, 1, 256, 1, 1, 256, 1, 1, 0, 0);
-- kernel 8 reads 2.5 MiB into the range (the second mapping); kernel 12
-- (device 1) the start of the first; 19 and 20 the two pool blocks
INSERT INTO kernel_args VALUES (8, 0, 0, 139637979348992), (12, 0, 0, 139637976727552),
  (19, 0, 0, 138538465099776), (20, 0, 0, 138538466148352);
