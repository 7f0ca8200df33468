// One gemm op (generators/gemm_generator.cc) compiled for a target this machine runs and
// loaded into this process: what `cortado bench sgemm` times, and how the GEMM tests call the
// op on its own.
#pragma once

#include <string>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"

namespace cortado {

class GemmKernel {
  public:
    // Plans (the options' knobs, the target's knob table, the default rules), compiles and loads.
    GemmKernel(const ops::GemmShape &shape, const ops::Epilogue &epilogue, const TargetDescription &target,
               const std::string &scratch_dir, const PlanOptions &options = {});
    ~GemmKernel();
    GemmKernel(const GemmKernel &) = delete;
    GemmKernel &operator=(const GemmKernel &) = delete;

    // c = op(a) · op(b) (+ bias per column, activation), row-major, dense; throws CompileError
    // when the kernel reports an error.
    void run(const float *a, const float *b, const float *bias, float *c) const;

    const KernelInstance &kernel() const { return kernel_; }

  private:
    KernelInstance kernel_;
    ops::GemmShape shape_;
    void *library_ = nullptr;
    int (*entry_)(void **) = nullptr;
};

}  // namespace cortado
