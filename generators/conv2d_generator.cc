// The conv2d generator: the descriptor (shape, variant, knobs, epilogue) arrives as one
// generator parameter; every value in it is a compile-time constant of the kernel.
#include "generators/buffer_shape.h"
#include "generators/conv2d.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/conv2d_register_tile.h"
#include "schedules/gpu/conv2d.h"
#include "schedules/hvx/conv2d.h"

namespace cortado {

namespace {

const VariantSchedules<Conv2d, ops::Conv2dOp> conv2d_schedules = {
    {"cpu_register_tile",
     [](Conv2d &a, const ops::Conv2dOp &op, const Halide::Target &t) {
         schedules::cpu::schedule_conv2d_register_tile(a, op.shape, t, op.choice.knobs.get("channel_block"),
                                                       op.choice.knobs.get("vectors_x"));
     }},
    {"gpu_register_tile",
     [](Conv2d &a, const ops::Conv2dOp &op, const Halide::Target &) {
         schedules::gpu::schedule_conv2d_registers(a, op.shape, schedules::gpu::conv2d_knobs(op.choice.knobs));
     }},
    {"gpu_staged",
     [](Conv2d &a, const ops::Conv2dOp &op, const Halide::Target &) {
         schedules::gpu::schedule_conv2d_with_staging(a, op.shape, schedules::gpu::conv2d_knobs(op.choice.knobs));
     }},
    {"hvx_register_tile",
     [](Conv2d &a, const ops::Conv2dOp &op, const Halide::Target &t) { schedules::hvx::schedule_conv2d(a, op.shape, t); }},
};

}  // namespace

class Conv2dGenerator : public Halide::Generator<Conv2dGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<float, 4>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::Conv2dOp>(descriptor);
        const Conv2dShape &s = op.shape;
        Conv2d conv(input, weights, bias, s, op.choice.epilogue);
        output = conv.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.in_channels, s.batch});
        require_dense_shape(weights, {s.kernel_w, s.kernel_h, s.in_channels / s.group, s.out_channels});
        require_dense_shape(bias, {s.out_channels});
        require_dense_shape(output, {s.out_w, s.out_h, s.out_channels, s.batch});
        apply_variant(conv2d_schedules, conv, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Conv2dGenerator, cortado_conv2d)
