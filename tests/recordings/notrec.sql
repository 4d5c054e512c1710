-- notrec.sql - an SQLite database that is not a cudalens recording
-- (built with sql2db --bare).
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('format', 'something-else');
CREATE TABLE notes(x);
