# analyzer/local.mk - cudalens-report, the analyzer of recordings.
# (The launcher `cudalens` also lives in analyzer/, analyzer/launcher.c, with
# its own fragment analyzer/launcher.mk; this fragment defines no `cudalens`.)

# everything but main(), as a convenience library shared with the tests
noinst_LTLIBRARIES += libclreport.la
libclreport_la_SOURCES = \
	analyzer/activity.c analyzer/activity.h \
	analyzer/analyses.c analyzer/analyses.h \
	analyzer/callsite.c analyzer/callsite.h \
	analyzer/db.c analyzer/db.h \
	analyzer/demangle.c analyzer/demangle.h \
	analyzer/checks.c analyzer/checks.h analyzer/checks.def \
	analyzer/replay.c analyzer/replay.h \
	analyzer/findings.c analyzer/findings.h \
	analyzer/find_races.c analyzer/hb_engine.c analyzer/hb_engine.h \
	analyzer/mangle_const.c analyzer/mangle_const.h \
	analyzer/find_common.c analyzer/find_common.h \
	analyzer/find_transfers.c analyzer/find_pinning.c \
	analyzer/find_syncs.c analyzer/find_devices.c analyzer/find_streams.c \
	analyzer/find_host.c \
	analyzer/json.c analyzer/json.h \
	analyzer/memmodel.c analyzer/memmodel.h \
	analyzer/merge.c analyzer/merge.h \
	analyzer/out_json.c analyzer/out_text.c analyzer/output.h \
	analyzer/out_sarif.c analyzer/out_github.c \
	analyzer/recordings.c analyzer/recordings.h \
	analyzer/out_perfetto.c analyzer/out_html.c \
	analyzer/report.h \
	analyzer/strarray.c analyzer/strarray.h \
	analyzer/streams.c analyzer/streams.h \
	analyzer/summary.c analyzer/summary.h \
	analyzer/suppress.c analyzer/suppress.h \
	analyzer/tempdir.c analyzer/tempdir.h \
	analyzer/timeline.c analyzer/timeline.h \
	analyzer/symbolize.c analyzer/symbolize.h \
	analyzer/u64map.c analyzer/u64map.h \
	analyzer/util.c analyzer/util.h
libclreport_la_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
# __cxa_demangle comes from libstdc++
libclreport_la_LIBADD = libclformat.la $(SQLITE_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) -lstdc++ -lm

bin_PROGRAMS += cudalens-report
cudalens_report_SOURCES = analyzer/report_main.c
cudalens_report_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS)
cudalens_report_LDADD = libclreport.la
