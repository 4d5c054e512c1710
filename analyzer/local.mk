# analyzer/local.mk - cudalens-report, the analyzer of recordings, in the
# order of its pipeline:
#   analyzer/model/   the recording read once (db, replay, activity) and
#                     what it describes: memory, streams, summary, timeline;
#                     the checks' lookups (names, calls, host accesses,
#                     host order, collectives) and the call-site resolver's
#                     modules and stacks (stacks.c): all the SQL
#   analyzer/sites/   call sites from addresses and text, no SQL:
#                     symbolization, demangling, the user's frame, the
#                     places (location.h) findings name
#   analyzer/checks/  what an analysis gets (report.h), the finding registry
#                     (checks.def), the happens-before engine and one file
#                     per analysis; suppressions, merging (merge.h: the
#                     recordings' processes passed in, not the recordings)
#   analyzer/output/  the renderings (text, json, sarif, github, perfetto, html)
#   analyzer/         report_main.c (options, then the pipeline), the
#                     recordings named (recordings.c) and their reduced
#                     results (reduced.c), and small utilities
# Sources include each other's headers by their path under analyzer/
# ("model/replay.h", "checks/findings.h"; "util.h" for those at the top), so
# that an include says which layer it reaches into.

ANALYZER_CPPFLAGS = -I$(top_srcdir)/analyzer

# everything but main(), as a convenience library shared with the tests
noinst_LTLIBRARIES += libclreport.la
libclreport_la_SOURCES = \
	analyzer/model/activity.c analyzer/model/activity.h \
	analyzer/model/calls.c analyzer/model/calls.h \
	analyzer/model/collectives.c analyzer/model/collectives.h \
	analyzer/model/db.c analyzer/model/db.h \
	analyzer/model/footprints.c analyzer/model/footprints.h \
	analyzer/model/graphs.c analyzer/model/graphs.h \
	analyzer/model/host_accesses.c analyzer/model/host_accesses.h \
	analyzer/model/host_order.c analyzer/model/host_order.h \
	analyzer/model/memmodel.c analyzer/model/memmodel.h \
	analyzer/model/names.c analyzer/model/names.h \
	analyzer/model/reading.c analyzer/model/reading.h \
	analyzer/recordings.c analyzer/recordings.h \
	analyzer/reduced.c analyzer/reduced.h \
	analyzer/model/replay.c analyzer/model/replay.h \
	analyzer/model/stacks.c analyzer/model/stacks.h \
	analyzer/model/streams.c analyzer/model/streams.h \
	analyzer/model/summary.c analyzer/model/summary.h \
	analyzer/model/timeline.c analyzer/model/timeline.h \
	analyzer/sites/callsite.c analyzer/sites/callsite.h \
	analyzer/sites/demangle.c analyzer/sites/demangle.h \
	analyzer/sites/location.c analyzer/sites/location.h \
	analyzer/sites/symbolize.c analyzer/sites/symbolize.h \
	analyzer/checks/checks.c analyzer/checks/checks.h analyzer/checks/checks.def \
	analyzer/checks/analyses.c analyzer/checks/analyses.h \
	analyzer/checks/findings.c analyzer/checks/findings.h \
	analyzer/checks/hb_engine.c analyzer/checks/hb_engine.h \
	analyzer/checks/find_common.c analyzer/checks/find_common.h \
	analyzer/checks/find_races.c analyzer/checks/find_transfers.c \
	analyzer/checks/find_collectives.c analyzer/checks/find_collectives.h \
	analyzer/checks/find_pinning.c analyzer/checks/find_syncs.c \
	analyzer/checks/find_devices.c analyzer/checks/find_streams.c \
	analyzer/checks/find_host.c \
	analyzer/checks/merge.c analyzer/checks/merge.h \
	analyzer/checks/report.h \
	analyzer/checks/suppress.c analyzer/checks/suppress.h \
	analyzer/output/output.h analyzer/output/json.c analyzer/output/json.h \
	analyzer/output/out_text.c analyzer/output/out_json.c \
	analyzer/output/out_sarif.c analyzer/output/out_github.c \
	analyzer/output/out_perfetto.c analyzer/output/out_html.c \
	analyzer/strarray.c analyzer/strarray.h \
	analyzer/tempdir.c analyzer/tempdir.h \
	analyzer/u64map.c analyzer/u64map.h \
	analyzer/util.c analyzer/util.h
libclreport_la_CPPFLAGS = $(AM_CPPFLAGS) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
# __cxa_demangle comes from libstdc++
libclreport_la_LIBADD = libclformat.la $(SQLITE_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) -lstdc++ -lm -lpthread

bin_PROGRAMS += cudalens-report
cudalens_report_SOURCES = analyzer/report_main.c
cudalens_report_CPPFLAGS = $(AM_CPPFLAGS) $(ANALYZER_CPPFLAGS) $(SQLITE_CFLAGS)
cudalens_report_LDADD = libclreport.la
