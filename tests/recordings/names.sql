-- names.sql - NVTX names for the streams and threads of small.sql (loaded
-- after it): a stream renamed (the latest name wins), a name with an escape
-- sequence (shown escaped), the legacy and per-thread default streams, a
-- thread, and an empty name (ignored).
-- seq, kind, handle, name
INSERT INTO names VALUES
  (24, 'stream', 0x5555a0001000, 'old name'),
  (25, 'stream', 0x5555a0001000, 'h2d'),
  (26, 'stream', 0x5555a0002000, 'e' || char(27) || '[31mvil'),
  (27, 'stream', 0, 'main-default'),
  (28, 'stream', 2, 'ptds'),
  (29, 'thread', 4243, 'worker-nvtx'),
  (30, 'thread', 4242, '');
