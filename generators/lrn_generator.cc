#include "generators/buffer_shape.h"
#include "generators/lrn.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/lrn.h"
#include "schedules/gpu/lrn.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

namespace {

const VariantSchedules<LRN, ops::LRNOp> lrn_schedules = {
    {"cpu_direct",
     [](LRN &a, const ops::LRNOp &op, const Halide::Target &t) { schedules::cpu::schedule_lrn(a, op.shape, t); }},
    {"gpu_direct",
     [](LRN &a, const ops::LRNOp &op, const Halide::Target &t) { schedules::gpu::schedule_lrn(a, op.shape, t); }},
    {"hvx_direct",
     [](LRN &a, const ops::LRNOp &op, const Halide::Target &t) { schedules::hvx::schedule_lrn(a, op.shape, t); }},
};

}  // namespace

class LRNGenerator : public Halide::Generator<LRNGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::LRNOp>(descriptor);
        const LRNShape &s = op.shape;
        LRN lrn(input, s);
        output = lrn.output;
        require_dense_shape(input, {s.w, s.h, s.channels, s.batch});
        require_dense_shape(output, {s.w, s.h, s.channels, s.batch});
        apply_variant(lrn_schedules, lrn, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::LRNGenerator, cortado_lrn)
