# tests.mk - written by tests/collect.sh (do not edit): the test scripts
# of each folder of tests/, listed in full (automake must see the names).

CAPTURE_TESTS = \
	tests/capture/abrupt.test \
	tests/capture/api_name.test \
	tests/capture/basic.test \
	tests/capture/benchphase.test \
	tests/capture/clone3.test \
	tests/capture/closefds.test \
	tests/capture/cupti_busy.test \
	tests/capture/cuptifind.test \
	tests/capture/disable.test \
	tests/capture/diskfull.test \
	tests/capture/driver_api.test \
	tests/capture/errors.test \
	tests/capture/exec.test \
	tests/capture/fds.test \
	tests/capture/firstcall.test \
	tests/capture/fork_exec.test \
	tests/capture/forkfork.test \
	tests/capture/forkstorm.test \
	tests/capture/kernel_args.test \
	tests/capture/lateload.test \
	tests/capture/launcher.test \
	tests/capture/launcher_failon.test \
	tests/capture/launcher_unchecked.test \
	tests/capture/lazy_intercept.test \
	tests/capture/managed_async.test \
	tests/capture/multidev.test \
	tests/capture/multiproc.test \
	tests/capture/newrace.test \
	tests/capture/nobuffer.test \
	tests/capture/optimized_launch.test \
	tests/capture/output.test \
	tests/capture/output_dirs.test \
	tests/capture/overflow.test \
	tests/capture/own_dlsym.test \
	tests/capture/pinned.test \
	tests/capture/quiet.test \
	tests/capture/sanitized.test \
	tests/capture/signals.test \
	tests/capture/sqlite_lib.test \
	tests/capture/startup.test \
	tests/capture/startup_cost.test \
	tests/capture/stderr.test \
	tests/capture/streams.test \
	tests/capture/stub.test \
	tests/capture/threads.test \
	tests/capture/unload.test \
	tests/capture/valgrind.test \
	tests/capture/words.test

FOOTPRINT_TESTS = \
	tests/footprint/collector.test

FUZZ_TESTS = \
	tests/fuzz/merge.test \
	tests/fuzz/smoke.test

HOSTSYNC_TESTS = \
	tests/hostsync/callback_ok.test \
	tests/hostsync/capture_ok.test \
	tests/hostsync/copy_loop.test \
	tests/hostsync/double_buffer.test \
	tests/hostsync/event_sync.test \
	tests/hostsync/fault_storm.test \
	tests/hostsync/flag_kernel_ok.test \
	tests/hostsync/free_before_sync.test \
	tests/hostsync/graph_read_after_sync.test \
	tests/hostsync/graph_read_before_sync.test \
	tests/hostsync/hostfn_event_ok.test \
	tests/hostsync/hostfn_handoff_ok.test \
	tests/hostsync/hostfn_no_wait.test \
	tests/hostsync/hostfn_read_early.test \
	tests/hostsync/lazy.test \
	tests/hostsync/managed_attach_host.test \
	tests/hostsync/managed_device_sync.test \
	tests/hostsync/managed_event.test \
	tests/hostsync/managed_legacy.test \
	tests/hostsync/managed_legacy_ok.test \
	tests/hostsync/managed_memset.test \
	tests/hostsync/managed_query.test \
	tests/hostsync/managed_read.test \
	tests/hostsync/managed_sync.test \
	tests/hostsync/managed_write.test \
	tests/hostsync/managed_write_sync.test \
	tests/hostsync/mapped_read.test \
	tests/hostsync/mapped_sync.test \
	tests/hostsync/query_loop.test \
	tests/hostsync/read_before_sync.test \
	tests/hostsync/registered_read.test \
	tests/hostsync/small_managed_read.test \
	tests/hostsync/small_managed_sync.test \
	tests/hostsync/small_pinned_ok.test \
	tests/hostsync/small_pinned_read.test \
	tests/hostsync/step_storm.test \
	tests/hostsync/sync_first.test \
	tests/hostsync/syscall_access.test \
	tests/hostsync/syscall_more.test \
	tests/hostsync/timeline.test \
	tests/hostsync/timeline_layout.test \
	tests/hostsync/write_before_sync.test

NCCL_TESTS = \
	tests/nccl/allreduce_event_ok.test \
	tests/nccl/allreduce_race.test \
	tests/nccl/bind_now.test \
	tests/nccl/dlopen_nccl.test \
	tests/nccl/free_while_sending.test \
	tests/nccl/group_event_early.test \
	tests/nccl/no_nccl.test \
	tests/nccl/own_kernels.test \
	tests/nccl/ranks_mismatch.test \
	tests/nccl/ranks_ok.test \
	tests/nccl/ranks_short.test

PACKAGING_TESTS = \
	tests/packaging/wheel.test

PYTHON_SCRIPT_TESTS = \
	tests/python/pycalls.test \
	tests/python/pyframes.test

RACE_TESTS = \
	tests/races/blocking_legacy.test \
	tests/races/broadcast_ok.test \
	tests/races/broadcast_ok_fp.test \
	tests/races/callback_ok.test \
	tests/races/const_reads_ok.test \
	tests/races/device_sync_ok.test \
	tests/races/event_rerecord_ok.test \
	tests/races/event_sync_ok.test \
	tests/races/event_too_early.test \
	tests/races/fp_atomic_ok.test \
	tests/races/fp_extent.test \
	tests/races/fp_gather.test \
	tests/races/fp_halves_ok.test \
	tests/races/fp_shared_write.test \
	tests/races/freeasync_in_use.test \
	tests/races/graph_exec_update.test \
	tests/races/graph_exec_update_ok.test \
	tests/races/graph_ok.test \
	tests/races/graph_other_stream.test \
	tests/races/graph_other_stream_ok.test \
	tests/races/graph_replay_refill.test \
	tests/races/graph_replay_refill_ok.test \
	tests/races/graph_unordered_nodes.test \
	tests/races/graph_unordered_nodes_ok.test \
	tests/races/h2d_event_ok.test \
	tests/races/h2d_kernel.test \
	tests/races/host_buffer_reuse.test \
	tests/races/kernel_d2h.test \
	tests/races/mallocasync_ok.test \
	tests/races/mallocasync_use.test \
	tests/races/memset_nonblocking.test \
	tests/races/multidev_ok.test \
	tests/races/neighbours_ok.test \
	tests/races/never_waited.test \
	tests/races/nonblocking_legacy.test \
	tests/races/nvtx_names.test \
	tests/races/pageable_h2d_nonblocking.test \
	tests/races/pageable_masked.test \
	tests/races/ptds_threads.test \
	tests/races/raw_event_ok.test \
	tests/races/raw_kernels.test \
	tests/races/stale_struct.test \
	tests/races/struct_event_ok.test \
	tests/races/struct_ptr.test \
	tests/races/sync_wrong_stream.test \
	tests/races/tensor_list.test \
	tests/races/threads_event_ok.test \
	tests/races/threads_shared.test \
	tests/races/untyped_shared.test \
	tests/races/wait_wrong_stream.test \
	tests/races/walk.test \
	tests/races/war_kernels.test \
	tests/races/war_sync_ok.test \
	tests/races/waw_memset.test \
	tests/races/waw_query_ok.test

RECORDING_TESTS = \
	tests/recordings/badopt.test \
	tests/recordings/empty.test \
	tests/recordings/errescape.test \
	tests/recordings/escape.test \
	tests/recordings/extreme.test \
	tests/recordings/failon.test \
	tests/recordings/format5.test \
	tests/recordings/github.test \
	tests/recordings/graphs.test \
	tests/recordings/hostile.test \
	tests/recordings/html.test \
	tests/recordings/missing.test \
	tests/recordings/names.test \
	tests/recordings/newer.test \
	tests/recordings/notsqlite.test \
	tests/recordings/overwrite.test \
	tests/recordings/perfetto.test \
	tests/recordings/planted.test \
	tests/recordings/reduced.test \
	tests/recordings/registry.test \
	tests/recordings/rerun.test \
	tests/recordings/sarif.test \
	tests/recordings/scale.test \
	tests/recordings/schema.test \
	tests/recordings/severity.test \
	tests/recordings/sites.test \
	tests/recordings/small.test \
	tests/recordings/sourceroot.test \
	tests/recordings/stack.test \
	tests/recordings/stub.test \
	tests/recordings/suppress.test \
	tests/recordings/tally.test \
	tests/recordings/tmpcopy.test \
	tests/recordings/transfers.test \
	tests/recordings/vmm.test \
	tests/recordings/wal.test

SEM_TESTS = \
	tests/semantics/coverage.test \
	tests/semantics/ctx_sync_ok.test \
	tests/semantics/dtod_sync.test \
	tests/semantics/dtod_sync_ok.test \
	tests/semantics/event_query_ok.test \
	tests/semantics/hostfn_handoff.test \
	tests/semantics/hostfn_wrong_stream.test \
	tests/semantics/hostfn_xla.test \
	tests/semantics/htoh_ok.test \
	tests/semantics/library_stream.test \
	tests/semantics/library_user_stream.test \
	tests/semantics/memset_managed_ok.test \
	tests/semantics/memset_pinned_ok.test \
	tests/semantics/memset_sync_ok.test \
	tests/semantics/pageable_async_h2d.test \
	tests/semantics/pageable_async_h2d_ok.test \
	tests/semantics/pageable_source_reuse_ok.test \
	tests/semantics/pageable_staged.test \
	tests/semantics/pageable_staged_ok.test \
	tests/semantics/peer_sync_ok.test \
	tests/semantics/pinned_htod_sync_ok.test \
	tests/semantics/prefetch_ok.test \
	tests/semantics/ptds_legacy_ok.test \
	tests/semantics/threads_handoff.test \
	tests/semantics/threads_join_ok.test \
	tests/semantics/threads_two_writers.test

SIGNALS_TESTS = \
	tests/signals/altstack.test \
	tests/signals/early.test \
	tests/signals/flush.test \
	tests/signals/flush2.test \
	tests/signals/masked.test \
	tests/signals/pysigint.test \
	tests/signals/segv.test \
	tests/signals/view.test

TR_TESTS = \
	tests/transfers/cross_device.test \
	tests/transfers/cross_device_ok.test \
	tests/transfers/default_stream.test \
	tests/transfers/default_stream_ok.test \
	tests/transfers/excess_sync.test \
	tests/transfers/excess_sync_ok.test \
	tests/transfers/pageable_async.test \
	tests/transfers/pageable_async_both.test \
	tests/transfers/pageable_async_ok.test \
	tests/transfers/repeated_pinning.test \
	tests/transfers/repeated_pinning_ok.test \
	tests/transfers/stray_context.test \
	tests/transfers/stray_context_ok.test \
	tests/transfers/sync_copy.test \
	tests/transfers/sync_copy_legacy.test \
	tests/transfers/sync_copy_legacy_ok.test \
	tests/transfers/sync_copy_ok.test \
	tests/transfers/sync_memset.test \
	tests/transfers/sync_memset_ok.test

UNIT_SCRIPT_TESTS = \
	tests/unit/analyzer/model.test \
	tests/unit/bench/builds.test \
	tests/unit/bench/ladder.test \
	tests/unit/bench/pcsample.test \
	tests/unit/bench/phases.test \
	tests/unit/bench/run.test \
	tests/unit/bench/selftime.test \
	tests/unit/shim/writer-drop.test

VMM_TESTS = \
	tests/vmm/pool_peer.test \
	tests/vmm/pool_peer_ok.test \
	tests/vmm/vmm_peer.test \
	tests/vmm/vmm_peer_ok.test \
	tests/vmm/vmm_race.test \
	tests/vmm/vmm_race_ok.test \
	tests/vmm/vmm_span_race.test \
	tests/vmm/vmm_span_race_ok.test

COLLECTED_TESTS = tests/collected.test
