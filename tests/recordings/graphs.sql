-- graphs.sql - CUDA graph tables (schema 4) on top of small.sql, for
-- graphs.test: an executable graph instantiated at call 26 and launched
-- on stream 1 at call 27, whose two saxpy kernel nodes (0 and 1, added by
-- calls 24 and 25) write the same allocation with no edge between them;
-- and rows a damaged or forged
-- recording may hold: nodes outside the structure, a cycle, a self edge,
-- edges and arguments of nodes that do not exist, an unknown node type,
-- a second structure that claims 2^50 nodes and has none.
INSERT INTO api VALUES
  (18, 'cudaGraphInstantiate_v12000', 'runtime', 415, 'graph-exec'),
  (19, 'cudaGraphLaunch_v10000', 'runtime', 311, 'graph-launch'),
  (20, 'cudaGraphAddKernelNode_v10000', 'runtime', 252, 'graph-node');
INSERT INTO calls VALUES
  (24, 20, 4242, 1026000000, 1026001000, 0, 0, 1, NULL, 24, NULL, NULL, NULL),
  (25, 20, 4242, 1026002000, 1026003000, 0, 0, 1, NULL, 25, NULL, NULL, NULL),
  (26, 18, 4242, 1026004000, 1026005000, 0, 0, 1, NULL, 26, NULL, NULL, NULL),
  (27, 19, 4242, 1026006000, 1026007000, 0, 0, 1, 0x5555a0001000, 27, NULL, NULL, NULL),
  (28, 18, 4242, 1026008000, 1026009000, 0, 0, 1, NULL, 28, NULL, NULL, NULL);
INSERT INTO stream_ops VALUES (27, 'graph-launch', 0x5555a0001000, 0x5555c0000000);
INSERT INTO graph_execs VALUES
  (26, 0x5555c0000000, 0x5555c1000000, 6, 7, 0, 0),
  (28, 0x5555c0001000, 0x5555c1000000, 1125899906842624, 0, 0, 1);
INSERT INTO graph_nodes VALUES
  (26, 0, 'kernel', 0x5555c2000000, 24, 1, 0, 0, 0, 0, 'unknown', 0),
  (26, 1, 'kernel', 0x5555c2001000, 25, 1, 0, 0, 0, 0, 'unknown', 0),
  (26, 2, 'empty', 0x5555c2002000, NULL, NULL, 0, 0, 0, 0, 'unknown', 0),
  (26, 3, 'no-such-type', 0x5555c2003000, 999999, 999999, 0, 0, 0, 0, 'sideways', 0),
  (26, 4, 'memset', 0x5555c2004000, NULL, NULL, 0x7f0000400000, 0, -1, 0, NULL, 0),
  (26, 9, 'kernel', 0x5555c2009000, NULL, 1, 0, 0, 0, 0, 'unknown', 0),
  (26, -1, 'kernel', 0x5555c200a000, NULL, 1, 0, 0, 0, 0, 'unknown', 0),
  (26, 4611686018427387904, 'kernel', 0, NULL, 1, 0, 0, 0, 0, 'unknown', 0);
INSERT INTO graph_edges VALUES
  (26, 2, 3), (26, 3, 2), (26, 4, 4), (26, 0, 9), (26, -1, 1),
  (26, 1, 4611686018427387904), (27, 0, 1);
INSERT INTO graph_args VALUES
  (26, 0, 3, 0, 0x7f0000000000),
  (26, 1, 3, 0, 0x7f0000000000),
  (26, 9, 3, 0, 0x7f0000000000),
  (26, -5, 3, 0, 0x7f0000000000),
  (99, 0, 3, 0, 0x7f0000000000);
