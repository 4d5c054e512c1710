-- pyrun.sql - applied on top of transfers.sql: the same calls made from a
-- Python program checked out in /home/alice/proj (calls.pystack, innermost
-- frame first), so that call sites are file:line in train.py and
-- data/loader.py, and one in /srv/shared/util.py, outside the checkout.
-- rerun.sql turns it into another run of the same program elsewhere.
INSERT INTO strings(id, value) VALUES
  (101, '/home/alice/proj/data/loader.py:31:load_batch' || char(10) ||
        '/home/alice/proj/train.py:80:main'),
  (102, '/home/alice/proj/train.py:44:upload' || char(10) ||
        '/home/alice/proj/train.py:82:main'),
  (103, '/home/alice/proj/train.py:52:fetch' || char(10) ||
        '/home/alice/proj/train.py:84:main'),
  (104, '/home/alice/proj/train.py:53:fetch' || char(10) ||
        '/home/alice/proj/train.py:84:main'),
  (105, '/home/alice/proj/data/loader.py:28:load_batch' || char(10) ||
        '/home/alice/proj/train.py:80:main'),
  (106, '/home/alice/proj/train.py:61:step' || char(10) ||
        '/home/alice/proj/train.py:86:main'),
  (107, '/home/alice/proj/train.py:62:step' || char(10) ||
        '/home/alice/proj/train.py:86:main'),
  (108, '/home/alice/proj/train.py:20:setup' || char(10) ||
        '/home/alice/proj/train.py:78:main'),
  (109, '/home/alice/proj/train.py:21:setup' || char(10) ||
        '/home/alice/proj/train.py:78:main'),
  (110, '/home/alice/proj/train.py:12:init' || char(10) ||
        '/home/alice/proj/train.py:77:main'),
  (111, '/srv/shared/util.py:9:pinned_buffer' || char(10) ||
        '/home/alice/proj/train.py:88:main'),
  (112, '/srv/shared/util.py:14:release' || char(10) ||
        '/home/alice/proj/train.py:89:main'),
  (113, '/home/alice/proj/train.py:8:pick_device' || char(10) ||
        '/home/alice/proj/train.py:76:main');
UPDATE calls SET pystack = 100 + stack WHERE stack BETWEEN 1 AND 13;
