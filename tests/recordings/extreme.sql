-- extreme.sql - applied on top of small.sql or transfers.sql: the most
-- extreme 64-bit integers where the report adds, subtracts or multiplies
-- them: call and GPU times whose differences overflow (end INT64_MIN) or
-- whose sums do (0 to INT64_MAX), byte counts and allocation sizes of
-- INT64_MAX, huge stack ids, INT64_MIN as the first call's seq, and a dozen
-- device synchronizations of INT64_MAX ns each.  The report must stay
-- defined (sums saturate at INT64_MAX, never wrap to negative numbers) and
-- say the same every time.
UPDATE calls SET end_ns = -9223372036854775808 WHERE seq % 3 = 0;
UPDATE calls SET start_ns = 0, end_ns = 9223372036854775807 WHERE seq % 3 = 1;
UPDATE activity SET start_ns = -9223372036854775808,
                    end_ns = 9223372036854775807 WHERE correlation % 2 = 0;
UPDATE activity SET start_ns = 0,
                    end_ns = 9223372036854775807 WHERE correlation % 2 = 1;
UPDATE activity SET bytes = 9223372036854775807 WHERE bytes IS NOT NULL;
UPDATE transfers SET bytes = 9223372036854775807;
UPDATE memory SET size = 9223372036854775807;
UPDATE calls SET stack = 9223372036854775807
  WHERE seq = (SELECT max(seq) FROM calls WHERE seq % 3 = 2);
UPDATE calls SET pystack = 9223372036854775807
  WHERE seq = (SELECT max(seq) FROM calls);
UPDATE calls SET seq = -9223372036854775808
  WHERE seq = (SELECT min(seq) FROM calls);
UPDATE meta SET value = '0' WHERE key = 'start_ns';
UPDATE meta SET value = '9223372036854775807' WHERE key = 'end_ns';
INSERT INTO api VALUES
  (1000, 'cudaDeviceSynchronize_v3020', 'runtime', 165, 'sync-device');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
INSERT INTO calls SELECT 1000000 + i, 1000, (SELECT min(tid) FROM calls),
  0, 9223372036854775807, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL FROM n;
INSERT INTO syncs SELECT seq, 'device', NULL, NULL, 1 FROM calls
  WHERE seq > 1000000;
