#include "compiler/gemm_kernel.h"

#include <dlfcn.h>

#include <vector>

#include "HalideRuntime.h"
#include "compiler/network_builder.h"
#include "compiler/toolchain.h"
#include "frontend/compile_error.h"
#include "runtime/kernel_hooks.h"

namespace cortado {

GemmKernel::GemmKernel(const ops::GemmShape &shape, const ops::Epilogue &epilogue, const TargetDescription &target,
                       const std::string &scratch_dir, const PlanOptions &options)
    : kernel_(plan_gemm(shape, epilogue, target.plan_target(), options)), shape_(shape) {
    require_runs_here(target.halide_target, "the gemm op");
    const std::string library = link_kernel_library(kernel_, scratch_dir);
    library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library_) throw CompileError(library + ": " + dlerror());
    entry_ = reinterpret_cast<int (*)(void **)>(dlsym(library_, (kernel_.function_name() + "_argv").c_str()));
    if (!entry_) throw CompileError(library + ": no " + kernel_.function_name() + "_argv");
    // What a network installs (runtime/kernel_hooks.h), so that the op runs as it does inside one.
    using SetMalloc = halide_malloc_t (*)(halide_malloc_t);
    using SetFree = halide_free_t (*)(halide_free_t);
    using SetParFor = halide_do_par_for_t (*)(halide_do_par_for_t);
    const auto set_malloc = reinterpret_cast<SetMalloc>(dlsym(library_, "halide_set_custom_malloc"));
    const auto set_free = reinterpret_cast<SetFree>(dlsym(library_, "halide_set_custom_free"));
    const auto set_par_for = reinterpret_cast<SetParFor>(dlsym(library_, "halide_set_custom_do_par_for"));
    if (!set_malloc || !set_free || !set_par_for)
        throw CompileError(library + ": no halide_set_custom_malloc/free/do_par_for");
    install_kernel_hooks(set_malloc, set_free, set_par_for);
}

GemmKernel::~GemmKernel() {
    if (library_) dlclose(library_);
}

namespace {

// A dense row-major rows x cols matrix as a Halide buffer (cols innermost).
struct MatrixBuffer {
    halide_dimension_t dims[2];
    halide_buffer_t buffer{};

    MatrixBuffer(const float *data, int rows, int cols) {
        dims[0] = halide_dimension_t(0, cols, 1);
        dims[1] = halide_dimension_t(0, rows, cols);
        buffer.host = reinterpret_cast<uint8_t *>(const_cast<float *>(data));
        buffer.type = halide_type_t(halide_type_float, 32);
        buffer.dimensions = rows > 0 ? 2 : 1;
        buffer.dim = dims;
    }
};

}  // namespace

void GemmKernel::run(const float *a, const float *b, const float *bias, float *c) const {
    const ops::GemmShape &s = shape_;
    MatrixBuffer a_buffer(a, s.trans_a ? s.k : s.m, s.trans_a ? s.m : s.k);
    MatrixBuffer b_buffer(b, s.trans_b ? s.n : s.k, s.trans_b ? s.k : s.n);
    MatrixBuffer bias_buffer(bias, 0, s.n);
    MatrixBuffer c_buffer(c, s.m, s.n);
    void *args[] = {&a_buffer.buffer, &b_buffer.buffer, &bias_buffer.buffer, &c_buffer.buffer};
    const int result = entry_(args);
    if (result != 0)
        throw CompileError("gemm kernel " + kernel_.function_name() + " failed (Halide error " +
                           std::to_string(result) + ")");
}

}  // namespace cortado
