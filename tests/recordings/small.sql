-- small.sql - a small full recording: one device, two created streams
-- (non-blocking and blocking with a priority), the legacy and per-thread
-- default streams, copies from pageable and pinned memory with GPU activity,
-- copies without activity (host kind from the memory table), kernels
-- (mangled, template, and a driver-only launch named by its activity),
-- an event record and wait, a memset, and stream/query/device syncs.
INSERT INTO meta(key, value) VALUES
  ('format', 'cudalens'), ('cudalens_version', '0.1.0'), ('pid', '4242'),
  ('ppid', '4200'), ('hostname', 'gpu01'), ('exe', '/home/user/saxpy'),
  ('cmdline', '["./saxpy","--n","1048576","--label","two words","it''s"]'),
  ('cuda_visible_devices', '0'), ('start_ns', '1000000000'),
  ('end_ns', '1250000000'), ('clean_exit', '1'), ('cupti_version', '130000'),
  ('capture', 'full');

INSERT INTO api(id, name, domain, cbid, op) VALUES
  (1, 'cudaMalloc_v3020', 'runtime', 20, 'alloc'),
  (2, 'cudaMallocHost_v3020', 'runtime', 21, 'alloc'),
  (3, 'cudaMemcpyAsync_v3020', 'runtime', 41, 'copy'),
  (4, '__cudaLaunchKernel_v13000', 'runtime', 211, 'kernel'),
  (5, 'cudaStreamCreateWithFlags_v5000', 'runtime', 126, 'stream-create'),
  (6, 'cudaStreamSynchronize_v3020', 'runtime', 131, 'sync-stream'),
  (7, 'cudaDeviceSynchronize_v3020', 'runtime', 165, 'sync-device'),
  (8, 'cudaEventRecord_v3020', 'runtime', 135, 'event-record'),
  (9, 'cudaStreamWaitEvent_v3020', 'runtime', 132, 'stream-wait-event'),
  (10, 'cudaMemsetAsync_v3020', 'runtime', 51, 'memset'),
  (11, 'cudaMemcpy_v3020', 'runtime', 31, 'copy'),
  (12, 'cudaEventCreate_v3020', 'runtime', 133, 'event-create'),
  (13, 'cudaFreeHost_v3020', 'runtime', 22, 'free'),
  (14, 'cuLaunchKernel', 'driver', 307, 'kernel'),
  (15, 'cudaStreamQuery_v3020', 'runtime', 130, 'query-stream'),
  (16, 'cudaMemcpyAsync_ptsz_v7000', 'runtime', 236, 'copy'),
  (17, 'cudaStreamCreateWithPriority_v5050', 'runtime', 188, 'stream-create');

INSERT INTO strings(id, value) VALUES
  (1, '_Z5saxpyifPKfPf'),
  (2, '_ZN4util9reduce_opILi256EEEvPKfPfi'),
  (3, 'ampere_sgemm_128x64_nn');

INSERT INTO devices VALUES
  (0, 'NVIDIA H100 80GB HBM3', 'GPU-6b8f4ad2-1c1e-8e0a-33b1-1f3f1d5a7c11',
   '00000000:19:00.0', 9, 0, 85029158912);
INSERT INTO contexts VALUES (1, 0, 0x5555a0000100, 1, NULL);
INSERT INTO threads VALUES (4242, 'saxpy'), (4243, 'worker');

-- seq, api, tid, start_ns, end_ns, result, device, context, stream,
-- correlation, driver_correlation, stack, pystack
INSERT INTO calls VALUES
  (1, 5, 4242, 1010000000, 1010010000, 0, 0, 1, 0x5555a0001000, 1, NULL, NULL, NULL),
  (2, 17, 4242, 1010020000, 1010030000, 0, 0, 1, 0x5555a0002000, 2, NULL, NULL, NULL),
  (3, 1, 4242, 1010100000, 1010200000, 0, 0, 1, NULL, 3, NULL, NULL, NULL),
  (4, 1, 4242, 1010300000, 1010400000, 0, 0, 1, NULL, 4, NULL, NULL, NULL),
  (5, 2, 4242, 1010500000, 1011500000, 0, 0, 1, NULL, 5, NULL, NULL, NULL),
  (6, 3, 4242, 1020000000, 1020400000, 0, 0, 1, 0x5555a0001000, 101, 1101, NULL, NULL),
  (7, 3, 4242, 1020500000, 1020510000, 0, 0, 1, 0x5555a0002000, 102, 1102, NULL, NULL),
  (8, 4, 4242, 1020600000, 1020605000, 0, 0, 1, 0x5555a0001000, 103, 1103, NULL, NULL),
  (9, 4, 4242, 1020610000, 1020614000, 0, 0, 1, 0x5555a0001000, 104, 1104, NULL, NULL),
  (10, 4, 4242, 1020620000, 1020624000, 0, 0, 1, 0x5555a0002000, 105, 1105, NULL, NULL),
  (11, 12, 4242, 1020630000, 1020631000, 0, 0, 1, NULL, 11, NULL, NULL, NULL),
  (12, 8, 4242, 1020640000, 1020641000, 0, 0, 1, 0x5555a0001000, 12, NULL, NULL, NULL),
  (13, 9, 4242, 1020650000, 1020651000, 0, 0, 1, 0x5555a0002000, 13, NULL, NULL, NULL),
  (14, 10, 4242, 1020660000, 1020663000, 0, 0, 1, 0x5555a0002000, 14, NULL, NULL, NULL),
  (15, 3, 4242, 1020670000, 1020680000, 0, 0, 1, 0x5555a0002000, 106, 1106, NULL, NULL),
  (16, 6, 4242, 1020690000, 1021490000, 0, 0, 1, 0x5555a0002000, 16, NULL, NULL, NULL),
  (17, 11, 4242, 1022000000, 1022900000, 0, 0, 1, NULL, 17, 1117, NULL, NULL),
  (18, 3, 4242, 1023000000, 1023010000, 0, 0, 1, 0x5555a0001000, 18, 1118, NULL, NULL),
  (19, 14, 4242, 1023100000, 1023105000, 0, 0, 1, 0, NULL, 107, NULL, NULL),
  (20, 15, 4242, 1023200000, 1023202000, 0, 0, 1, 0x5555a0001000, 20, NULL, NULL, NULL),
  (21, 7, 4242, 1023300000, 1024500000, 0, 0, 1, NULL, 21, NULL, NULL, NULL),
  (22, 13, 4242, 1024600000, 1024700000, 0, 0, 1, NULL, 22, NULL, NULL, NULL),
  (23, 16, 4243, 1025000000, 1025300000, 0, 0, 1, 2, 108, 1108, NULL, NULL);

-- the main thread created the worker after its cudaDeviceSynchronize
-- (a real recording takes a seq of its own for the edge)
INSERT INTO thread_edges VALUES (22, 'create', 4242, 4243);

INSERT INTO streams VALUES
  (1, 0x5555a0001000, 0, 1, 0, NULL),
  (2, 0x5555a0002000, 0, 0, -1, NULL);
INSERT INTO events VALUES (11, 0x5555a0003000, 0, 0, NULL);
INSERT INTO event_records VALUES (12, 0x5555a0003000, 0x5555a0001000);
INSERT INTO stream_waits VALUES (13, 0x5555a0002000, 0x5555a0003000);
INSERT INTO syncs VALUES
  (16, 'stream', 0x5555a0002000, NULL, 1),
  (20, 'stream-query', 0x5555a0001000, NULL, 1),
  (21, 'device', NULL, NULL, 1);

INSERT INTO memory VALUES
  (3, 'alloc', 0x7f0000000000, 4194304, 'device', 0, 0, NULL),
  (4, 'alloc', 0x7f0000400000, 4194304, 'device', 0, 0, NULL),
  (5, 'alloc', 0x7f8000000000, 4194304, 'pinned', NULL, 0, NULL),
  (22, 'free', 0x7f8000000000, NULL, 'pinned', NULL, NULL, NULL);

-- seq, op, direction, dst, src, bytes, value, async, stream, src_device,
-- dst_device
INSERT INTO transfers VALUES
  (6, 'copy', 'htod', 0x7f0000000000, 0x5555b0000000, 4194304, NULL, 1, 0x5555a0001000, NULL, 0),
  (7, 'copy', 'htod', 0x7f0000400000, 0x7f8000000000, 4194304, NULL, 1, 0x5555a0002000, NULL, 0),
  (14, 'memset', NULL, 0x7f0000400000, NULL, 4096, 0, 1, 0x5555a0002000, NULL, 0),
  (15, 'copy', 'dtoh', 0x7f8000000000, 0x7f0000400000, 4194304, NULL, 1, 0x5555a0002000, 0, NULL),
  (17, 'copy', 'dtoh', 0x5555b0400000, 0x7f0000000000, 1048576, NULL, 0, NULL, 0, NULL),
  (18, 'copy', 'default', 0x7f0000000000, 0x7f8000001000, 65536, NULL, 1, 0x5555a0001000, NULL, NULL),
  (23, 'copy', 'htod', 0x7f0000000000, 0x5555b0800000, 1024, NULL, 1, 2, NULL, 0);

INSERT INTO kernels VALUES
  (8, 1, 4096, 1, 1, 256, 1, 1, 0, 0x5555a0001000),
  (9, 1, 4096, 1, 1, 256, 1, 1, 0, 0x5555a0001000),
  (10, 2, 1024, 1, 1, 256, 1, 1, 1024, 0x5555a0002000),
  (19, NULL, 132, 1, 1, 128, 1, 1, 49152, 0);

-- correlation, kind, start_ns, end_ns, device, context, stream_id, bytes,
-- copy_kind, src_kind, dst_kind, src_device, dst_device, name
INSERT INTO activity VALUES
  (101, 'memcpy', 1020100000, 1020450000, 0, 1, 13, 4194304, 'htod', 'pageable', 'device', NULL, 0, NULL),
  (102, 'memcpy', 1020510000, 1020670000, 0, 1, 14, 4194304, 'htod', 'pinned', 'device', NULL, 0, NULL),
  (103, 'kernel', 1020700000, 1020900000, 0, 1, 13, NULL, NULL, NULL, NULL, NULL, NULL, 1),
  (104, 'kernel', 1020900000, 1021110000, 0, 1, 13, NULL, NULL, NULL, NULL, NULL, NULL, 1),
  (105, 'kernel', 1020700000, 1021200000, 0, 1, 14, NULL, NULL, NULL, NULL, NULL, NULL, 2),
  (106, 'memcpy', 1021200000, 1021350000, 0, 1, 14, 4194304, 'dtoh', 'device', 'pinned', 0, NULL, NULL),
  (107, 'kernel', 1023110000, 1023410000, 0, 1, 7, NULL, NULL, NULL, NULL, NULL, NULL, 3),
  (1108, 'memcpy', 1025010000, 1025012000, 0, 1, 15, 1024, 'htod', 'pageable', 'device', NULL, 0, NULL);
