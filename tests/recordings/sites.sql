-- sites.sql - default-stream-serialization found at eight call sites
-- (module+offset in /nonexistent/app), each serializing with a blocking
-- stream created at a ninth: the creation sites, related locations, are
-- added to the analysis's call sites while its findings are written.
INSERT INTO meta(key, value) VALUES
  ('format', 'cudalens'), ('pid', '31'), ('clean_exit', '1'),
  ('start_ns', '1000'), ('end_ns', '100000');
INSERT INTO api(id, name, domain, cbid, op) VALUES
  (1, 'cudaStreamCreate_v3020', 'runtime', 125, 'stream-create'),
  (2, 'cudaLaunchKernel_v7000', 'runtime', 211, 'kernel');
INSERT INTO strings(id, value) VALUES (1, '_Z4stepPf');
INSERT INTO modules VALUES (1, '/nonexistent/app', 4096, 1048576, 0, NULL);
INSERT INTO stacks VALUES
  (1, x'0011000000000000'),
  (2, x'0012000000000000'),
  (3, x'0013000000000000'),
  (4, x'0014000000000000'),
  (5, x'0015000000000000'),
  (6, x'0016000000000000'),
  (7, x'0017000000000000'),
  (8, x'0018000000000000'),
  (9, x'0019000000000000'),
  (10, x'001a000000000000');
INSERT INTO streams VALUES
  (1, 40960, 0, 0, 0, NULL),
  (2, 45056, 0, 0, 0, NULL);
INSERT INTO calls VALUES
  (1, 1, 31, 1000, 1100, 0, 0, 1, NULL, 1, NULL, 9, NULL),
  (2, 1, 31, 1200, 1300, 0, 0, 1, NULL, 2, NULL, 10, NULL),
  (3, 2, 31, 2000, 2100, 0, 0, 1, 40960, 3, NULL, NULL, NULL),
  (4, 2, 31, 3000, 3100, 0, 0, 1, 0, 4, NULL, 1, NULL),
  (5, 2, 31, 4000, 4100, 0, 0, 1, 45056, 5, NULL, NULL, NULL),
  (6, 2, 31, 5000, 5100, 0, 0, 1, 0, 6, NULL, 2, NULL),
  (7, 2, 31, 6000, 6100, 0, 0, 1, 40960, 7, NULL, NULL, NULL),
  (8, 2, 31, 7000, 7100, 0, 0, 1, 0, 8, NULL, 3, NULL),
  (9, 2, 31, 8000, 8100, 0, 0, 1, 45056, 9, NULL, NULL, NULL),
  (10, 2, 31, 9000, 9100, 0, 0, 1, 0, 10, NULL, 4, NULL),
  (11, 2, 31, 10000, 10100, 0, 0, 1, 40960, 11, NULL, NULL, NULL),
  (12, 2, 31, 11000, 11100, 0, 0, 1, 0, 12, NULL, 5, NULL),
  (13, 2, 31, 12000, 12100, 0, 0, 1, 45056, 13, NULL, NULL, NULL),
  (14, 2, 31, 13000, 13100, 0, 0, 1, 0, 14, NULL, 6, NULL),
  (15, 2, 31, 14000, 14100, 0, 0, 1, 40960, 15, NULL, NULL, NULL),
  (16, 2, 31, 15000, 15100, 0, 0, 1, 0, 16, NULL, 7, NULL),
  (17, 2, 31, 16000, 16100, 0, 0, 1, 45056, 17, NULL, NULL, NULL),
  (18, 2, 31, 17000, 17100, 0, 0, 1, 0, 18, NULL, 8, NULL);
INSERT INTO kernels VALUES
  (3, 1, 1, 1, 1, 32, 1, 1, 0, 40960),
  (4, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (5, 1, 1, 1, 1, 32, 1, 1, 0, 45056),
  (6, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (7, 1, 1, 1, 1, 32, 1, 1, 0, 40960),
  (8, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (9, 1, 1, 1, 1, 32, 1, 1, 0, 45056),
  (10, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (11, 1, 1, 1, 1, 32, 1, 1, 0, 40960),
  (12, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (13, 1, 1, 1, 1, 32, 1, 1, 0, 45056),
  (14, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (15, 1, 1, 1, 1, 32, 1, 1, 0, 40960),
  (16, 1, 1, 1, 1, 32, 1, 1, 0, 0),
  (17, 1, 1, 1, 1, 32, 1, 1, 0, 45056),
  (18, 1, 1, 1, 1, 32, 1, 1, 0, 0);
