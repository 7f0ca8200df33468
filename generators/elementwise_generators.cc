// Generators for the element-wise ops (one family: flat views, same schedule shape).
#include "generators/buffer_shape.h"
#include "generators/elementwise.h"
#include "generators/schedule_registry.h"

namespace cortado {

class ReluGenerator : public Halide::Generator<ReluGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 1>> input{"input"};
    Output<Buffer<float, 1>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::ReluOp>(descriptor);
        Relu relu(input, op.shape.slope);
        output = relu.output;
        require_dense_shape(input, {op.shape.count});
        require_dense_shape(output, {op.shape.count});
        FlatOutput flat{relu.output, relu.i};
        apply_schedule(flat, op, get_target());
    }
};

class ActivationGenerator : public Halide::Generator<ActivationGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 1>> input{"input"};
    Output<Buffer<float, 1>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::ActivationOp>(descriptor);
        Activation activation(input, op.shape);
        output = activation.output;
        require_dense_shape(input, {op.shape.count});
        require_dense_shape(output, {op.shape.count});
        FlatOutput flat{activation.output, activation.i};
        apply_schedule(flat, op, get_target());
    }
};

class EltwiseGenerator : public Halide::Generator<EltwiseGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 1>[]> inputs { "inputs" };
    Output<Buffer<float, 1>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::EltwiseOp>(descriptor);
        if (op.shape.inputs() != static_cast<int>(inputs.size()))
            throw Halide::CompileError("eltwise: coeff has " + std::to_string(op.shape.inputs()) +
                                       " values, inputs.size is " + std::to_string(inputs.size()));
        std::vector<Halide::Func> funcs;
        for (size_t k = 0; k < inputs.size(); k++) {
            require_dense_shape(inputs[k], {op.shape.count});
            funcs.push_back(inputs[k]);
        }
        Eltwise eltwise(funcs, op.shape.operation, op.shape.coefficients);
        FlatOutput flat{eltwise.output, eltwise.i};
        // The activations fused from the next layers (ResNet's sum -> ReLU) on the sum's own
        // expression, made strict: fast math takes a sum as never NaN (inf + -inf is) and drops an
        // activation's NaN test. (strict_float of a call to the sum would not reach the sum inlined
        // later.)
        if (op.choice.epilogue.relu || op.choice.epilogue.activation) {
            flat.output = Func("eltwise_activated");
            flat.output(flat.i) = fused_activations(Halide::strict_float(eltwise.output.value()), op.choice.epilogue);
        }
        output = flat.output;
        require_dense_shape(output, {op.shape.count});
        apply_schedule(flat, op, get_target());
    }
};

class ChannelAffineGenerator : public Halide::Generator<ChannelAffineGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 3>> input{"input"};
    Input<Buffer<float, 1>> scale{"scale"};
    Input<Buffer<float, 1>> shift{"shift"};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::ChannelAffineOp>(descriptor);
        const ops::ChannelAffineShape &s = op.shape;
        const ops::Layout &in = op.choice.layout_in, &out = op.choice.layout_out;
        if (out.blocked() && in.channel_block != out.channel_block)
            throw Halide::CompileError("a blocked channel_affine output needs its input in the same blocks");
        if ((in.blocked() && s.channels % in.channel_block) || (out.blocked() && s.channels % out.channel_block))
            throw Halide::CompileError("the " + std::to_string(s.channels) + " channels are not whole blocks");
        ChannelAffine affine(input, scale, shift, s.negative_only, in.channel_block, out.channel_block);
        // The activations fused from the next layers (BatchNorm -> ReLU before a convolution) on
        // the map's own expression, strict as in the eltwise generator: the map's NaN (inf * 0,
        // inf + -inf) must reach their NaN tests. The schedule then treats it as the affine's output.
        if (op.choice.epilogue.relu || op.choice.epilogue.activation) {
            Func fused{"channel_affine_activated"};
            fused(affine.x, affine.c, affine.o) =
                fused_activations(Halide::strict_float(affine.output.value()), op.choice.epilogue);
            affine.output = fused;
        }
        output = affine.output;
        require_activation_shape(input, ops::layout_extents(in, {s.inner, s.channels, s.outer}, 1), s.outer,
                                 op.choice.batch_strided);
        require_dense_shape(scale, {s.channels});
        require_dense_shape(shift, {s.channels});
        require_activation_shape(output, ops::layout_extents(out, {s.inner, s.channels, s.outer}, 1), s.outer,
                                 op.choice.batch_strided);
        apply_schedule(affine, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::ReluGenerator, cortado_relu)
HALIDE_REGISTER_GENERATOR(cortado::ActivationGenerator, cortado_activation)
HALIDE_REGISTER_GENERATOR(cortado::EltwiseGenerator, cortado_eltwise)
HALIDE_REGISTER_GENERATOR(cortado::ChannelAffineGenerator, cortado_channel_affine)
