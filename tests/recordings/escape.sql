-- escape.sql - text that needs escaping: quotes, backslashes, control
-- characters, UTF-8 and an invalid UTF-8 byte in meta values, a command
-- line with JSON escapes, and a kernel name with control characters (ESC,
-- and the C1 control CSI, U+009B), and a synchronization whose kind has an
-- ESC.
INSERT INTO meta(key, value) VALUES
  ('format', 'cudalens'), ('pid', '9'), ('clean_exit', '1'),
  ('hostname', 'tab' || char(9) || 'nl' || char(10) || 'q"b\' || char(1) || 'é' || CAST(x'ff' AS TEXT) || 'end'),
  ('exe', '/tmp/dir with space/app'),
  ('cmdline', '["./app","a\"b","c\\d","\u00e9\ud83d\ude00","x\ty"]');
INSERT INTO api(id, name, domain, cbid, op) VALUES
  (1, '__cudaLaunchKernel_v13000', 'runtime', 211, 'kernel');
INSERT INTO strings(id, value) VALUES (1, 'k' || char(27) || '"ernel\' || char(155));
INSERT INTO calls VALUES (1, 1, 9, 100, 200, 0, 0, NULL, 0, 5, NULL, NULL, NULL);
INSERT INTO kernels VALUES (1, 1, 1, 1, 1, 32, 1, 1, 0, 0);
INSERT INTO api(id, name, domain, cbid, op) VALUES
  (2, 'cudaDeviceSynchronize_v3020', 'runtime', 165, 'sync-device');
INSERT INTO calls VALUES (2, 2, 9, 300, 400, 0, 0, NULL, NULL, 6, NULL, NULL, NULL);
INSERT INTO syncs VALUES (2, 'dev' || char(27) || '[2Jice', NULL, NULL, 1);
