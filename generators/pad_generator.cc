#include "generators/buffer_shape.h"
#include "generators/pad.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/pad.h"
#include "schedules/gpu/pad.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

namespace {

const VariantSchedules<Pad, ops::PadOp> pad_schedules = {
    {"cpu_direct",
     [](Pad &a, const ops::PadOp &op, const Halide::Target &t) { schedules::cpu::schedule_pad(a, op.shape, t); }},
    {"gpu_direct",
     [](Pad &a, const ops::PadOp &op, const Halide::Target &t) { schedules::gpu::schedule_pad(a, op.shape, t); }},
    {"hvx_direct",
     [](Pad &a, const ops::PadOp &op, const Halide::Target &t) { schedules::hvx::schedule_pad(a, op.shape, t); }},
};

}  // namespace

class PadGenerator : public Halide::Generator<PadGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::PadOp>(descriptor);
        const PadShape &s = op.shape;
        Pad pad(input, s);
        output = pad.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.channels, s.batch});
        require_dense_shape(output, {s.out_w(), s.out_h(), s.channels, s.batch});
        apply_variant(pad_schedules, pad, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::PadGenerator, cortado_pad)
