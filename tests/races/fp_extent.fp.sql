-- fp_extent.fp.sql - a footprint fixture (cudalens-db(5), FOOTPRINT FILES), hand-written:
-- write_k(p, N) writes p[0, N) (N = 65536 floats, 262144 bytes).
INSERT INTO meta VALUES('format', 'cudalens-footprint');
INSERT INTO meta VALUES('footprint_sample', '4,1');
INSERT INTO fp_kernels VALUES('_Z7write_kPfi', 1, 1, 0);
INSERT INTO fp_ranges VALUES('_Z7write_kPfi', 0, 0, 'write', 0, 262144, 1);
