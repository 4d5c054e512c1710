-- walk.sql - a hand-written recording for the race analysis's walk of the
-- database (find_races.c), without call stacks: work captured into a graph
-- (including a stream that joins the capture through an event) is ignored;
-- a second thread's accesses are not ordered by the first thread's work; a
-- cudaMemcpyAsync to pageable memory (activity dst_kind) orders the host
-- only implicitly (masked-race); memory from cudaMallocAsync used on
-- another stream.  walk.test checks the findings against walk.expected:
--   13/14 stream-race: B written on 0x100 (main), read by the worker's copy
--         on 0x200;
--   14/15 masked-race: the worker's memset of B on 0x100 is ordered after
--         the copy only because the pageable copy blocked the worker;
--   12/16 masked-race: main's write of A on 0x100 comes after the worker's
--         memset in that stream, itself issued after the worker knew its
--         read of A (12) finished, again through the pageable copy only;
--   17/18 stream-race: C from cudaMallocAsync on 0x200, used on 0x100.
-- The captured kernels (6, 9) pair with nothing.
INSERT INTO meta(key, value) VALUES ('format', 'cudalens'), ('pid', '7'),
  ('clean_exit', '1');
INSERT INTO api(id, name, domain, cbid, op) VALUES
  (1, 'cudaStreamCreateWithFlags_v5000', 'runtime', 126, 'stream-create'),
  (2, 'cudaMalloc_v3020', 'runtime', 20, 'alloc'),
  (3, 'cudaStreamBeginCapture_v10000', 'runtime', 311, 'capture-begin'),
  (4, '__cudaLaunchKernel_v13000', 'runtime', 211, 'kernel'),
  (5, 'cudaEventRecord_v3020', 'runtime', 135, 'event-record'),
  (6, 'cudaStreamWaitEvent_v3020', 'runtime', 132, 'stream-wait-event'),
  (7, 'cudaStreamEndCapture_v10000', 'runtime', 312, 'capture-end'),
  (8, 'cudaGraphLaunch_v10000', 'runtime', 311, 'graph-launch'),
  (9, 'cudaMemcpyAsync_v3020', 'runtime', 41, 'copy'),
  (10, 'cudaMemsetAsync_v3020', 'runtime', 51, 'memset'),
  (11, 'cudaMallocAsync_v11020', 'runtime', 400, 'alloc'),
  (12, 'cudaStreamSynchronize_v3020', 'runtime', 131, 'sync-stream');
INSERT INTO strings VALUES (1, '_Z1wPf'), (2, '_Z1rPKf');
INSERT INTO threads VALUES (1, 'main'), (2, 'worker');
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context,
                  stream, correlation) VALUES
  (1, 1, 1, 1, 2, 0, 0, 1, 256, 1),
  (2, 1, 1, 3, 4, 0, 0, 1, 512, 2),
  (3, 2, 1, 5, 6, 0, 0, 1, NULL, 3),
  (4, 2, 1, 7, 8, 0, 0, 1, NULL, 4),
  (5, 3, 1, 9, 10, 0, 0, 1, 256, 5),
  (6, 4, 1, 11, 12, 0, 0, 1, 256, 6),
  (7, 5, 1, 13, 14, 0, 0, 1, 256, 7),
  (8, 6, 1, 15, 16, 0, 0, 1, 512, 8),
  (9, 4, 1, 17, 18, 0, 0, 1, 512, 9),
  (10, 7, 1, 19, 20, 0, 0, 1, 256, 10),
  (11, 8, 1, 21, 22, 0, 0, 1, 256, 11),
  (12, 4, 2, 23, 24, 0, 0, 1, 512, 12),
  (13, 4, 1, 25, 26, 0, 0, 1, 256, 13),
  (14, 9, 2, 27, 28, 0, 0, 1, 512, 14),
  (15, 10, 2, 29, 30, 0, 0, 1, 256, 15),
  (16, 4, 1, 31, 32, 0, 0, 1, 256, 16),
  (17, 11, 1, 33, 34, 0, 0, 1, 512, 17),
  (18, 4, 1, 35, 36, 0, 0, 1, 256, 18),
  (19, 12, 2, 37, 38, 0, 0, 1, 512, 19);
-- the worker's last call comes after the main thread's use of A, so its
-- knowledge is not handed over (the join assumption) before that use
INSERT INTO syncs VALUES (19, 'stream', 512, NULL, 1);
INSERT INTO streams VALUES (1, 256, 0, 1, 0, NULL), (2, 512, 0, 1, 0, NULL);
-- A = 0x10000, B = 0x20000, C = 0x30000 (stream-ordered)
INSERT INTO memory(seq, op, address, size, kind, device, stream) VALUES
  (3, 'alloc', 65536, 4096, 'device', 0, NULL),
  (4, 'alloc', 131072, 4096, 'device', 0, NULL),
  (17, 'alloc', 196608, 4096, 'device-async', 0, 512);
INSERT INTO stream_ops VALUES (5, 'capture-begin', 256, NULL),
  (10, 'capture-end', 256, NULL), (11, 'graph-launch', 256, 4660);
INSERT INTO event_records VALUES (7, 57344, 256);
INSERT INTO stream_waits VALUES (8, 512, 57344);
INSERT INTO kernels(seq, name, grid_x, grid_y, grid_z, block_x, block_y,
                    block_z, shared_mem, stream) VALUES
  (6, 1, 1, 1, 1, 32, 1, 1, 0, 256), (9, 1, 1, 1, 1, 32, 1, 1, 0, 512),
  (12, 2, 1, 1, 1, 32, 1, 1, 0, 512), (13, 1, 1, 1, 1, 32, 1, 1, 0, 256),
  (16, 1, 1, 1, 1, 32, 1, 1, 0, 256), (18, 1, 1, 1, 1, 32, 1, 1, 0, 256);
INSERT INTO kernel_args VALUES (6, 0, 0, 65536), (9, 0, 0, 65536),
  (12, 0, 0, 65536), (13, 0, 0, 131072), (16, 0, 0, 65536),
  (18, 0, 0, 196608);
INSERT INTO transfers(seq, op, direction, dst, src, bytes, value, async,
                      stream) VALUES
  (14, 'copy', 'dtoh', 28672, 131072, 4096, NULL, 1, 512),
  (15, 'memset', NULL, 131072, NULL, 4096, 0, 1, 256);
INSERT INTO activity(correlation, kind, start_ns, end_ns, device, context,
                     stream_id, bytes, copy_kind, src_kind, dst_kind) VALUES
  (14, 'memcpy', 27, 28, 0, 1, 14, 4096, 'dtoh', 'device', 'pageable');
