# man/local.mk - the manual pages: the launcher, the recorder library, the
# database format, and the report tool.
dist_man_MANS += man/cudalens.1 man/libcudalens.7 man/cudalens-db.5 \
	man/cudalens-report.1
