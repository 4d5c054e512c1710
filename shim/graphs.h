/* graphs.h - CUDA graphs (graphs.c): the structure of each executable graph,
 * written when it is instantiated or updated, and what a launch touches. */
#ifndef CUDALENS_SHIM_GRAPHS_H
#define CUDALENS_SHIM_GRAPHS_H

#include "shim.h"

/* NODE was added by call SEQ (an explicit cudaGraphAdd*Node) */
void cl_graph_node_added(uint64_t node, uint64_t seq) CL_HIDDEN;
/* a stream capture begins (1) or ends (0) */
void cl_graph_capture(int begin) CL_HIDDEN;
/* is STREAM (as recorded) capturing now? */
int cl_graph_capturing(uint64_t stream) CL_HIDDEN;
/* call SEQ was just made on STREAM: if it captures, the node it added */
void cl_graph_captured(uint64_t stream, uint64_t seq) CL_HIDDEN;
/* at SEQ, EXEC took the structure of GRAPH: write it */
void cl_graph_snapshot(uint64_t seq, uint64_t exec, uint64_t graph,
                       int32_t device) CL_HIDDEN;
/* EXEC was launched by call SEQ on STREAM: guard what its nodes touch */
void cl_graph_launched(uint64_t exec, uint64_t seq, uint64_t stream,
                       uint64_t tid, int32_t device) CL_HIDDEN;
void cl_graph_exec_destroyed(uint64_t exec) CL_HIDDEN;
/* at SEQ, kernel node NODE of EXEC took new arguments: write EXEC's
 * structure again with them */
void cl_graph_exec_kernel(uint64_t seq, uint64_t exec, uint64_t node,
                          const struct cl_karg *kargs, unsigned nkargs,
                          int truncated) CL_HIDDEN;

#endif
