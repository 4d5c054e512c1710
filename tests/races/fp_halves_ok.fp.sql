-- fp_halves_ok.fp.sql - a footprint fixture (cudalens-db(5), FOOTPRINT FILES), hand-written:
-- write_k(p, N / 2) writes p[0, N / 2) in every instrumented launch.
INSERT INTO meta VALUES('format', 'cudalens-footprint');
INSERT INTO meta VALUES('footprint_sample', '4,1');
INSERT INTO fp_kernels VALUES('_Z7write_kPfi', 2, 2, 0);
INSERT INTO fp_ranges VALUES('_Z7write_kPfi', 0, 0, 'write', 0, 131072, 1);
