/* test_kernel_brief.c - unit test of cl_kernel_brief() (analyzer/sites/
 * demangle.c): a demangled kernel name as a finding's first line shows it,
 * without return type and parameters, templates of templates elided; and
 * of cl_kernel_argument(): an argument counted from 1, with its type. */
#include <stdlib.h>

#include "sites/demangle.h"
#include "../unit.h"

static void brief(const char *in, const char *want)
{
  char *got = cl_kernel_brief(in);
  CHECK_STR(got, want);
  free(got);
}

static void argument(const char *in, int index, const char *want)
{
  char *got = cl_kernel_argument(in, index);
  CHECK_STR(got, want);
  free(got);
}

int main(void)
{
  argument("sum_into(float*, float const*, int)", 0, "argument 1, float*");
  argument("sum_into(float*, float const*, int)", 1, "argument 2, float const*");
  argument("sum_into(float*, float const*, int)", 2, "argument 3, int");
  argument("sum_into(float*, float const*, int)", 3, "argument 4");
  argument("k(void (*)(int), std::pair<int, float>*, float (&) [4])", 1,
           "argument 2, std::pair<int, float>*");
  argument("k(void (*)(int), std::pair<int, float>*, float (&) [4])", 2,
           "argument 3, float (&) [4]");
  argument("k(void (*)(int), int)", 0, "argument 1, void (*)(int)");
  argument("void ns::k<float, 2>(ns::S<float>, float*)", 1, "argument 2, float*");
  argument("extern_c_kernel", 0, "argument 1");
  argument(NULL, 1, "argument 2");
  argument("k()", 0, "argument 1");
  argument("k(int)", -1, "argument ?");
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
