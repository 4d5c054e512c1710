-- fp_shared_write.fp.sql - a footprint fixture (cudalens-db(5), FOOTPRINT FILES), hand-written:
-- scale_into writes out[0, N) through parameter 0 and reads in[0, N) through 1 (N = 65536 floats).
INSERT INTO meta VALUES('format', 'cudalens-footprint');
INSERT INTO meta VALUES('footprint_sample', '4,1');
INSERT INTO fp_kernels VALUES('_Z10scale_intoPfS_i', 2, 2, 0);
INSERT INTO fp_ranges VALUES('_Z10scale_intoPfS_i', 0, 0, 'write', 0, 262144, 1);
INSERT INTO fp_ranges VALUES('_Z10scale_intoPfS_i', 1, 0, 'read', 0, 262144, 1);
