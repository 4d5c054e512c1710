-- fp_gather.fp.sql - a footprint fixture (cudalens-db(5), FOOTPRINT FILES), hand-written:
-- write_k(p, 64) writes p[0, 64); gather_k writes dst[0, 64), reads table[0]
-- and, through it, [0, 256) of the first 256-byte allocation (src).
INSERT INTO meta VALUES('format', 'cudalens-footprint');
INSERT INTO meta VALUES('footprint_sample', '4,1');
INSERT INTO fp_kernels VALUES('_Z7write_kPfi', 1, 1, 0);
INSERT INTO fp_ranges VALUES('_Z7write_kPfi', 0, 0, 'write', 0, 256, 1);
INSERT INTO fp_kernels VALUES('_Z8gather_kPfPS_i', 1, 1, 1);
INSERT INTO fp_ranges VALUES('_Z8gather_kPfPS_i', 0, 0, 'write', 0, 256, 1);
INSERT INTO fp_ranges VALUES('_Z8gather_kPfPS_i', 1, 0, 'read', 0, 8, 1);
INSERT INTO fp_unattributed VALUES('_Z8gather_kPfPS_i', 'read', 256, 1, 0, 256);
