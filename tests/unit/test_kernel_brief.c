/* test_kernel_brief.c - unit test of cl_kernel_brief() (analyzer/sites/
 * demangle.c): a demangled kernel name as a finding's first line shows it,
 * without return type and parameters, templates of templates elided. */
#include <stdlib.h>

#include "demangle.h"
#include "unit.h"

static void brief(const char *in, const char *want)
{
  char *got = cl_kernel_brief(in);
  CHECK_STR(got, want);
  free(got);
}

int main(void)
{
  brief(NULL, "(unnamed)");
  brief("saxpy", "saxpy");
  brief("scale(float*, float const*, float, int)", "scale");
  brief("(anonymous namespace)::fill(int*, int)", "(anonymous namespace)::fill");
  brief("void at::native::vectorized_elementwise_kernel<4, "
        "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
        "at::native::FillFunctor<float>, std::array<char*, 1ul>)",
        "at::native::vectorized_elementwise_kernel<4, "
        "at::native::FillFunctor<...>, std::array<...> >");
  /* parentheses inside template arguments (operator(), lambdas) */
  brief("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, "
        "float, float>::operator()(at::TensorIterator&)::{lambda(float, "
        "float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, int>, unsigned int, float, 4, 4>)",
        "at::native::reduce_kernel<512, 1, at::native::ReduceOp<...> >");
  /* a functor's call operator */
  brief("Functor::operator()(int) const", "Functor::operator()");
  /* still over 100 characters: the name's own arguments elided too */
  brief("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4_"
        "with_a_very_long_generated_name_indeed, another_long_argument_type>"
        "(Params)",
        "cutlass::Kernel<...>");
  UNIT_DONE();
}
