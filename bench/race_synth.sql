-- race_synth.sql - a synthetic recording for timing the race analysis of
-- cudalens-report (bench/race_cost.sh): 200,000 kernel launches by one
-- thread on four streams of one device (the legacy default stream, a
-- blocking and two non-blocking streams), each kernel reading one of 64
-- device buffers through a const pointer and writing another; an event
-- recorded on the launching stream and waited for by the next stream every
-- 8 launches, a stream synchronization every 1,000 launches, and a
-- host-to-device copy every 100 launches.  Load with tests/recordings/sql2db.
-- The number of launches is the LIMIT of the `seqs` CTE below.
INSERT INTO meta(key, value) VALUES ('format', 'cudalens'),
  ('cudalens_version', '0.1.0'), ('pid', '1'), ('clean_exit', '1');
INSERT INTO api(id, name, domain, cbid, op) VALUES
  (1, 'cudaMalloc_v3020', 'runtime', 20, 'alloc'),
  (2, 'cudaStreamCreateWithFlags_v5000', 'runtime', 126, 'stream-create'),
  (3, '__cudaLaunchKernel_v13000', 'runtime', 211, 'kernel'),
  (4, 'cudaEventRecord_v3020', 'runtime', 135, 'event-record'),
  (5, 'cudaStreamWaitEvent_v3020', 'runtime', 132, 'stream-wait-event'),
  (6, 'cudaStreamSynchronize_v3020', 'runtime', 131, 'sync-stream'),
  (7, 'cudaMemcpyAsync_v3020', 'runtime', 41, 'copy'),
  (8, 'cudaEventCreate_v3020', 'runtime', 133, 'event-create');
INSERT INTO strings VALUES (1, '_Z4stepPfPKfi');
INSERT INTO threads VALUES (1, 'main');
-- streams 0x100 (blocking), 0x200, 0x300 (non-blocking); legacy = 0
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context, stream)
  VALUES (1, 2, 1, 1, 2, 0, 0, 1, 256), (2, 2, 1, 3, 4, 0, 0, 1, 512),
         (3, 2, 1, 5, 6, 0, 0, 1, 768), (4, 8, 1, 7, 8, 0, 0, 1, NULL);
INSERT INTO streams VALUES (1, 256, 0, 0, 0, NULL), (2, 512, 0, 1, 0, NULL),
  (3, 768, 0, 1, 0, NULL);
INSERT INTO events VALUES (4, 4096, 0, 0, NULL);
WITH RECURSIVE b(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM b WHERE i < 63)
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context)
  SELECT 10 + i, 1, 1, 10 + i, 11 + i, 0, 0, 1 FROM b;
WITH RECURSIVE b(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM b WHERE i < 63)
INSERT INTO memory(seq, op, address, size, kind, device)
  SELECT 10 + i, 'alloc', 1099511627776 + i * 1048576, 1048576, 'device', 0 FROM b;

-- every launch n uses 4 seqs: 1000 + 4n (kernel), +1 (record or copy),
-- +2 (wait), +3 (sync)
CREATE TEMP TABLE seqs AS WITH RECURSIVE n(i) AS
  (SELECT 0 UNION ALL SELECT i + 1 FROM n LIMIT 200000) SELECT i FROM n;
CREATE TEMP TABLE sm(k INTEGER PRIMARY KEY, h INTEGER);
INSERT INTO temp.sm VALUES (0, 0), (1, 256), (2, 512), (3, 768);

INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context,
                  stream, correlation)
  SELECT 1000 + 4 * i, 3, 1, 1000 + 4 * i, 1001 + 4 * i, 0, 0, 1,
         (SELECT h FROM temp.sm WHERE k = i % 4), 1000 + 4 * i FROM seqs;
INSERT INTO kernels(seq, name, grid_x, grid_y, grid_z, block_x, block_y,
                    block_z, shared_mem, stream)
  SELECT 1000 + 4 * i, 1, 64, 1, 1, 256, 1, 1, 0,
         (SELECT h FROM temp.sm WHERE k = i % 4) FROM seqs;
INSERT INTO kernel_args(seq, param, offset, value)
  SELECT 1000 + 4 * i, 0, 0, 1099511627776 + ((i * 7) % 64) * 1048576 FROM seqs;
INSERT INTO kernel_args(seq, param, offset, value)
  SELECT 1000 + 4 * i, 1, 0, 1099511627776 + ((i * 13 + 5) % 64) * 1048576
  FROM seqs;
-- events: record on this launch's stream, wait on the next one's
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context, stream)
  SELECT 1001 + 4 * i, 4, 1, 0, 0, 0, 0, 1, (SELECT h FROM temp.sm WHERE k = i % 4)
  FROM seqs WHERE i % 8 = 7;
INSERT INTO event_records SELECT 1001 + 4 * i, 4096,
  (SELECT h FROM temp.sm WHERE k = i % 4) FROM seqs WHERE i % 8 = 7;
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context, stream)
  SELECT 1002 + 4 * i, 5, 1, 0, 0, 0, 0, 1,
         (SELECT h FROM temp.sm WHERE k = (i + 1) % 4) FROM seqs WHERE i % 8 = 7;
INSERT INTO stream_waits SELECT 1002 + 4 * i,
  (SELECT h FROM temp.sm WHERE k = (i + 1) % 4), 4096 FROM seqs WHERE i % 8 = 7;
-- copies into a buffer every 100 launches (not on a record slot)
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context,
                  stream, correlation)
  SELECT 1001 + 4 * i, 7, 1, 0, 0, 0, 0, 1, (SELECT h FROM temp.sm WHERE k = i % 4),
         1001 + 4 * i FROM seqs WHERE i % 100 = 50;
INSERT INTO transfers(seq, op, direction, dst, src, bytes, async, stream)
  SELECT 1001 + 4 * i, 'copy', 'htod', 1099511627776 + (i % 64) * 1048576,
         140000000000000, 65536, 1, (SELECT h FROM temp.sm WHERE k = i % 4)
  FROM seqs WHERE i % 100 = 50;
-- host syncs of the launching stream
INSERT INTO calls(seq, api, tid, start_ns, end_ns, result, device, context, stream)
  SELECT 1003 + 4 * i, 6, 1, 0, 0, 0, 0, 1, (SELECT h FROM temp.sm WHERE k = i % 4)
  FROM seqs WHERE i % 1000 = 999;
INSERT INTO syncs(seq, kind, stream, complete)
  SELECT 1003 + 4 * i, 'stream', (SELECT h FROM temp.sm WHERE k = i % 4), 1
  FROM seqs WHERE i % 1000 = 999;
