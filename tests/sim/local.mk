# tests/sim/local.mk - the simulated CUDA stack for CI (a TEST DOUBLE, never
# installed): libcudart.so.13, libcuda.so.1 and libcupti.so.13 built from
# tests/sim/*.c and copied into $(builddir)/tests/sim/lib.  Run a program
# built with `nvcc -cudart shared` against it with
#   LD_LIBRARY_PATH=$(abs_builddir)/tests/sim/lib ./app
# `make sim` builds just the sim; `make check` builds it too.
# tests/sim/sim_selftest.c is a CUPTI subscriber (LD_PRELOAD) that prints
# every callback and activity record; tests/sim/sim_check.sh runs the
# sample apps of tests/apps under the sim with it and checks the output.

check_LTLIBRARIES = tests/sim/libcupti.la tests/sim/libcuda.la tests/sim/libcudart.la \
	tests/sim/libsimselftest.la

SIM_CFLAGS = $(AM_CFLAGS) -fvisibility=default
SIM_LDFLAGS = -shared -rpath $(abs_builddir)/tests/sim/lib -no-undefined

tests_sim_libcupti_la_SOURCES = tests/sim/sim_cupti.c tests/sim/sim_activity.c \
	tests/sim/sim_internal.h
tests_sim_libcupti_la_CFLAGS = $(SIM_CFLAGS)
tests_sim_libcupti_la_LDFLAGS = $(SIM_LDFLAGS) -version-info 13:0:0 \
	-Wl,--version-script=$(srcdir)/tests/sim/libcupti.map
tests_sim_libcupti_la_LIBADD = -ldl -lpthread
EXTRA_tests_sim_libcupti_la_DEPENDENCIES = $(srcdir)/tests/sim/libcupti.map

tests_sim_libcuda_la_SOURCES = tests/sim/sim_driver_device.c tests/sim/sim_driver_memory.c tests/sim/sim_driver_vmm.c \
	tests/sim/sim_driver_stream.c tests/sim/sim_driver_graph.c tests/sim/sim_driver_module.c tests/sim/sim_fatbin.c \
	tests/sim/sim_driver.h tests/sim/sim_internal.h
tests_sim_libcuda_la_CFLAGS = $(SIM_CFLAGS) $(LIBELF_CFLAGS)
tests_sim_libcuda_la_LDFLAGS = $(SIM_LDFLAGS) -version-info 1:0:0 \
	-Wl,--version-script=$(srcdir)/tests/sim/libcuda.map
tests_sim_libcuda_la_LIBADD = tests/sim/libcupti.la $(LIBELF_LIBS) -lpthread
EXTRA_tests_sim_libcuda_la_DEPENDENCIES = $(srcdir)/tests/sim/libcuda.map

tests_sim_libcudart_la_SOURCES = tests/sim/sim_cudart_device.c tests/sim/sim_cudart_memory.c \
	tests/sim/sim_cudart_streams.c tests/sim/sim_cudart_graph.c tests/sim/sim_cudart_launch.c tests/sim/sim_cudart.h \
	tests/sim/sim_internal.h
tests_sim_libcudart_la_CFLAGS = $(SIM_CFLAGS)
tests_sim_libcudart_la_LDFLAGS = $(SIM_LDFLAGS) -version-info 13:0:0 \
	-Wl,--version-script=$(srcdir)/tests/sim/libcudart.map
tests_sim_libcudart_la_LIBADD = tests/sim/libcuda.la tests/sim/libcupti.la -lpthread
EXTRA_tests_sim_libcudart_la_DEPENDENCIES = $(srcdir)/tests/sim/libcudart.map

# the checking subscriber; on a GPU machine build it against the real
# libraries: cc -shared -fPIC -I$CUDA/include tests/sim/sim_selftest.c \
#   -o selftest.so -L$CUDA/lib64 -lcupti -L$CUDA/lib64/stubs -lcuda
tests_sim_libsimselftest_la_SOURCES = tests/sim/sim_selftest.c
tests_sim_libsimselftest_la_LDFLAGS = -shared -module -avoid-version -no-undefined \
	-rpath $(abs_builddir)/tests/sim/lib
tests_sim_libsimselftest_la_LIBADD = tests/sim/libcupti.la tests/sim/libcuda.la -lpthread

EXTRA_DIST += tests/sim/libcudart.map tests/sim/libcuda.map tests/sim/libcupti.map \
	tests/sim/sim_check.sh

# the loadable directory: exactly the sonames a CUDA program asks for
SIM_LIBDIR = tests/sim/lib
$(SIM_LIBDIR)/.stamp: tests/sim/libcupti.la tests/sim/libcuda.la tests/sim/libcudart.la \
		tests/sim/libsimselftest.la
	$(AM_V_GEN)$(MKDIR_P) $(SIM_LIBDIR) && \
	cp -fL tests/sim/.libs/libcupti.so.13 $(SIM_LIBDIR)/libcupti.so.13 && \
	cp -fL tests/sim/.libs/libcuda.so.1 $(SIM_LIBDIR)/libcuda.so.1 && \
	cp -fL tests/sim/.libs/libcudart.so.13 $(SIM_LIBDIR)/libcudart.so.13 && \
	cp -fL tests/sim/.libs/libsimselftest.so $(SIM_LIBDIR)/libsimselftest.so && \
	touch $@
check_DATA += $(SIM_LIBDIR)/.stamp

.PHONY: sim
sim: $(SIM_LIBDIR)/.stamp

clean-local: clean-sim-lib clean-sim-check
clean-sim-check:
	rm -rf tests/sim/check
.PHONY: clean-sim-check
clean-sim-lib:
	-rm -rf $(SIM_LIBDIR)
.PHONY: clean-sim-lib

if HAVE_NVCC
TESTS += tests/sim/sim_check.sh
endif

# the sample apps the sim runs (tests/apps/local.mk is included from here;
# do not include it again from Makefile.am)
include $(top_srcdir)/tests/apps/local.mk
