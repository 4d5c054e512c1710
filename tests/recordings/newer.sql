-- newer.sql - a recording from a future cudalens (schema 99).
INSERT INTO meta(key, value) VALUES ('format', 'cudalens'), ('pid', '1');
PRAGMA user_version = 99;
