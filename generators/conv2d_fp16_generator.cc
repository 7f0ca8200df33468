// The half-precision convolution's generator (generators/conv2d_fp16.h): its descriptor arrives
// as one generator parameter. The weights are halves; the rest is fp32.
#include "generators/buffer_shape.h"
#include "generators/conv2d_fp16.h"
#include "generators/schedule_registry.h"
#include "ops/gemm.h"

namespace cortado {

class Conv2dFp16Generator : public Halide::Generator<Conv2dFp16Generator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<Halide::float16_t, 3>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};
    Input<Buffer<float, 4>> *residual = nullptr;

    void configure() {
        if (read_descriptor<ops::Conv2dFp16Op>(descriptor).choice.epilogue.sum)
            residual = add_input<Buffer<float, 4>>("residual");
    }

    void generate() {
        const auto op = read_descriptor<ops::Conv2dFp16Op>(descriptor);
        const ops::Conv2dShape &s = op.shape.conv;
        if (op.choice.layout_in.blocked() || op.choice.layout_out.blocked())
            throw Halide::CompileError(op.choice.variant + " reads and writes NCHW only");
        const int width = ops::panel_width(op.choice), chunk = op.choice.knobs.get("chunk");
        if (s.group > 1 && (s.out_channels / s.group) % width != 0)
            throw Halide::CompileError("a panel of " + std::to_string(width) + " output channels spans two of the " +
                                       std::to_string(s.group) + " groups");
        if ((s.in_channels / s.group) % chunk != 0)
            throw Halide::CompileError("chunk " + std::to_string(chunk) + " does not divide the " +
                                       std::to_string(s.in_channels / s.group) + " input channels of a group");
        Conv2dFp16 conv(input, weights, bias, s, op.choice.epilogue, width, chunk, op.choice.knobs.get("half") != 0,
                        residual ? Halide::Func(*residual) : Halide::Func());
        output = conv.output;
        require_activation_shape(input, {s.in_w, s.in_h, s.in_channels, s.batch}, s.batch, op.choice.batch_strided);
        const int depth = s.in_channels / s.group * s.kernel_h * s.kernel_w;
        require_dense_shape(weights, {width, depth, ops::panel_count(s.out_channels, width)});
        // A panel's halves start 16-byte aligned where the panel is a multiple of 8 wide (the
        // runtime's and the GPU APIs' allocations are): its vectors load in one instruction.
        weights.set_host_alignment(16);
        require_dense_shape(bias, {s.out_channels});
        const std::vector<int> out_extents{s.out_w * s.out_h, s.out_channels, s.batch, 1};
        require_activation_shape(output, out_extents, s.batch, op.choice.batch_strided);
        if (residual) require_activation_shape(*residual, out_extents, s.batch, op.choice.batch_strided);
        apply_schedule(conv, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Conv2dFp16Generator, cortado_conv2d_fp16)
