-- fp_atomic_ok.fp.sql - a footprint fixture (cudalens-db(5), FOOTPRINT FILES), hand-written:
-- count_k updates counter[0] atomically and reads in[0, N).
INSERT INTO meta VALUES('format', 'cudalens-footprint');
INSERT INTO meta VALUES('footprint_sample', '4,1');
INSERT INTO fp_kernels VALUES('_Z7count_kPiPKfi', 2, 2, 0);
INSERT INTO fp_ranges VALUES('_Z7count_kPiPKfi', 0, 0, 'atomic', 0, 4, 1);
INSERT INTO fp_ranges VALUES('_Z7count_kPiPKfi', 1, 0, 'read', 0, 262144, 1);
