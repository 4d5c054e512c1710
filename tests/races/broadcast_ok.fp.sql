-- broadcast_ok.fp.sql - a footprint fixture (cudalens-db(5), FOOTPRINT FILES), hand-written:
-- scale_by writes out[0, N) through parameter 0 and only reads factor[0, N) through 1.
INSERT INTO meta VALUES('format', 'cudalens-footprint');
INSERT INTO meta VALUES('footprint_sample', '4,1');
INSERT INTO fp_kernels VALUES('_Z8scale_byPfS_i', 4, 4, 0);
INSERT INTO fp_ranges VALUES('_Z8scale_byPfS_i', 0, 0, 'write', 0, 262144, 1);
INSERT INTO fp_ranges VALUES('_Z8scale_byPfS_i', 1, 0, 'read', 0, 262144, 1);
