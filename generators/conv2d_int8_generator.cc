// The int8 convolution's generator (generators/conv2d_int8.h): its descriptor arrives as one
// generator parameter, every value in it (the input's scale and zero point too) a compile-time
// constant of the kernel. The weights are bytes; the rest is fp32.
#include "generators/buffer_shape.h"
#include "generators/conv2d_int8.h"
#include "generators/schedule_registry.h"
#include "ops/gemm.h"

namespace cortado {

class Conv2dInt8Generator : public Halide::Generator<Conv2dInt8Generator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<int8_t, 4>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Input<Buffer<float, 2>> terms{"terms"};
    Output<Buffer<float, 4>> output{"output"};
    Input<Buffer<float, 4>> *residual = nullptr;

    void configure() {
        if (read_descriptor<ops::Conv2dInt8Op>(descriptor).choice.epilogue.sum)
            residual = add_input<Buffer<float, 4>>("residual");
    }

    void generate() {
        const auto op = read_descriptor<ops::Conv2dInt8Op>(descriptor);
        const ops::Conv2dShape &s = op.shape.conv;
        if (op.choice.layout_in.blocked() || op.choice.layout_out.blocked())
            throw Halide::CompileError(op.choice.variant + " reads and writes NCHW only");
        const int width = ops::panel_width(op.choice);
        if (s.group > 1 && (s.out_channels / s.group) % width != 0)
            throw Halide::CompileError("a panel of " + std::to_string(width) + " output channels spans two of the " +
                                       std::to_string(s.group) + " groups");
        // ARM's dot products take like-signed bytes (sdot): the activations are staged signed there.
        const bool signed_activations = get_target().arch == Halide::Target::ARM;
        const bool pair_sums = op.choice.form.is(ops::Algorithm::PairSums);
        if (pair_sums && (signed_activations || op.shape.weight_levels > ops::kInt8PairSumLevels))
            throw Halide::CompileError(op.choice.variant +
                                       " sums pairs of unsigned by 7-bit products; this layer has " +
                                       std::to_string(op.shape.weight_levels) + " weight levels");
        Conv2dInt8 conv(input, weights, bias, terms, op.shape, op.choice.epilogue, width, signed_activations, pair_sums,
                        residual ? Halide::Func(*residual) : Halide::Func());
        output = conv.output;
        require_activation_shape(input, {s.in_w, s.in_h, s.in_channels, s.batch}, s.batch, op.choice.batch_strided);
        require_dense_shape(weights, {ops::kInt8ChannelsPerWord, width, ops::int8_positions(s),
                                      ops::panel_count(s.out_channels, width)});
        require_dense_shape(bias, {s.out_channels});
        require_dense_shape(terms, {s.out_channels, 2});
        const std::vector<int> out_extents{s.out_w * s.out_h, s.out_channels, s.batch, 1};
        require_activation_shape(output, out_extents, s.batch, op.choice.batch_strided);
        if (residual) require_activation_shape(*residual, out_extents, s.batch, op.choice.batch_strided);
        apply_schedule(conv, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Conv2dInt8Generator, cortado_conv2d_int8)
