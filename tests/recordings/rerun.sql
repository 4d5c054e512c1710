-- rerun.sql - applied on top of transfers.sql and pyrun.sql: the same
-- program run again on another machine, from a checkout in /builds/ci/proj:
-- another pid, host, thread id and clock, call numbers (seq) 1000 higher,
-- the executable elsewhere.  Its findings must be the same, with the same
-- fingerprints, in the same order; with --source-root naming each run's
-- checkout, byte for byte (tests/recordings/rerun.test).
UPDATE strings SET value = replace(value, '/home/alice/proj/', '/builds/ci/proj/')
  WHERE id BETWEEN 101 AND 113;
UPDATE meta SET value = '31337' WHERE key = 'pid';
UPDATE meta SET value = 'ci-runner-7' WHERE key = 'hostname';
UPDATE meta SET value = '/builds/ci/bin/train' WHERE key = 'exe';
UPDATE meta SET value = CAST(value AS INTEGER) + 7000000000
  WHERE key IN ('start_ns', 'end_ns');
UPDATE modules SET path = '/builds/ci/bin/train';
UPDATE threads SET tid = 31337;
UPDATE calls SET tid = 31337, start_ns = start_ns + 7000000000,
                 end_ns = end_ns + 7000000000;
UPDATE activity SET start_ns = start_ns + 7000000000,
                    end_ns = end_ns + 7000000000;
UPDATE calls SET seq = seq + 1000;
UPDATE streams SET seq = seq + 1000;
UPDATE memory SET seq = seq + 1000;
UPDATE transfers SET seq = seq + 1000;
UPDATE kernels SET seq = seq + 1000;
UPDATE kernel_args SET seq = seq + 1000;
UPDATE device_ops SET seq = seq + 1000;
UPDATE syncs SET seq = seq + 1000;
UPDATE contexts SET created_seq = created_seq + 1000
  WHERE created_seq IS NOT NULL;
UPDATE contexts SET destroyed_seq = destroyed_seq + 1000
  WHERE destroyed_seq IS NOT NULL;
UPDATE streams SET destroyed_seq = destroyed_seq + 1000
  WHERE destroyed_seq IS NOT NULL;
