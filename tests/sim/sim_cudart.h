/* sim_cudart.h - TEST DOUBLE: private helpers of the simulated
 * libcudart.so.13 (the sim_cudart_*.c files).  Each runtime function raises
 * RUNTIME-domain ENTER/EXIT callbacks around its work with the real
 * <name>_params struct, and does the work through the sim driver's public
 * cu* functions, which raise nested DRIVER-domain callbacks as real cudart
 * does.
 */
#ifndef CUDALENS_SIM_CUDART_H
#define CUDALENS_SIM_CUDART_H

#include "sim_internal.h"

/* makes the thread's runtime context current (the current driver context if
 * one is set, else the primary context of the thread's device) */
cudaError_t rt_ctx(void);
int rt_device(void);
void rt_set_device(int device);
/* remembers err as the thread's last error (cudaGetLastError) */
cudaError_t rt_record(cudaError_t err);
/* kernel lookup by host stub address or cudaKernel_t (sim_cudart_launch.c) */
struct clsim_func *rt_func(const void *func);

#define RT_ENTER(name, fname, ...)                                                \
    name##_params rt_p_ = { __VA_ARGS__ };                                        \
    RT_ENTER_P(name, fname, &rt_p_, NULL)

#define RT_ENTER_P(name, fname, params, symbol)                                   \
    cudaError_t rt_r_ = cudaSuccess;                                              \
    struct clsim_api rt_a_;                                                       \
    CUcontext rt_c_ = clsimdrv_current_ctx();                                     \
    clsim_api_enter(&rt_a_, CUPTI_CB_DOMAIN_RUNTIME_API,                          \
                    CUPTI_RUNTIME_TRACE_CBID_##name, fname, params, &rt_r_,       \
                    symbol, rt_c_, clsimdrv_ctx_uid(rt_c_))

#define RT_RETURN(expr)                                                           \
    do {                                                                          \
        rt_r_ = (expr);                                                           \
        rt_a_.cb.context = clsimdrv_current_ctx();                                \
        rt_a_.cb.contextUid = clsimdrv_ctx_uid(rt_a_.cb.context);                 \
        clsim_api_exit(&rt_a_);                                                   \
        return rt_record(rt_r_);                                                  \
    } while (0)

/* the driver's CUresult values equal the runtime's for every error the sim
 * returns (1, 2, 101, 201, 400, 500, 600, 704, 705, 712, 713, 801) */
#define CU2RT(x) ((cudaError_t)(x))

/* initializes the runtime context or returns its error from the API */
#define RT_NEED_CTX()                                                             \
    do {                                                                          \
        cudaError_t e_ = rt_ctx();                                                \
        if (e_ != cudaSuccess)                                                    \
            RT_RETURN(e_);                                                        \
    } while (0)

#endif
