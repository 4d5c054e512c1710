-- empty.sql - a recording of a process that made no CUDA calls and was
-- killed (no end_ns, no clean_exit), with a drop counter.
INSERT INTO meta(key, value) VALUES
  ('format', 'cudalens'), ('cudalens_version', '0.1.0'), ('pid', '77'),
  ('hostname', 'node7'), ('exe', '/usr/bin/true'), ('cmdline', '["true"]'),
  ('start_ns', '5000');
INSERT INTO drops VALUES ('activity-buffer-full', 3), ('none', 0);
