#include "generators/buffer_shape.h"
#include "generators/gemm.h"
#include "generators/inner_product.h"
#include "generators/schedule_registry.h"

namespace cortado {

class InnerProductGenerator : public Halide::Generator<InnerProductGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 2>> input{"input"};
    Input<Buffer<float, 2>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::InnerProductOp>(descriptor);
        if (op.choice.form.is(ops::Algorithm::Gemm)) return generate_gemm(op);
        const InnerProductShape &s = op.shape;
        // Every variant keeps `lanes` partial sums: vector lanes on CPUs, threads of a block on GPUs.
        InnerProduct ip(input, weights, bias, s, op.choice.epilogue, op.choice.knobs.get("lanes"));
        output = ip.output;
        require_activation_shape(input, {s.inputs, s.rows}, s.rows, op.choice.batch_strided);
        require_dense_shape(weights, {s.inputs, s.outputs});
        require_dense_shape(bias, {s.outputs});
        require_activation_shape(output, {s.outputs, s.rows}, s.rows, op.choice.batch_strided);
        apply_schedule(ip, op, get_target());
    }

  private:
    // The weights arrive as column panels (ops::WeightPacking): panel p holds output neurons
    // [p·w, p·w + w) for every k, neurons innermost, zero-padded past the last neuron.
    void generate_gemm(const ops::InnerProductOp &op) {
        using namespace Halide;
        const InnerProductShape &s = op.shape;
        const int width = ops::panel_width(op.choice);
        const int panels = ops::panel_count(s.outputs, width);
        Var k{"k"}, x{"x"}, y{"y"}, n{"n"};
        Func rows{"rows"}, panel{"panel"};
        // Tasks and register tiles past the last row or panel read it again (never stored).
        rows(k, y, n) = input(k, min(y, s.rows - 1));
        panel(x, k, n) = weights(k * width + x % width, min(x / width, panels - 1));
        Gemm g(rows, panel, bias, op.choice.epilogue.bias ? BiasAxis::Columns : BiasAxis::None, ops::gemm_dims(s),
               op.choice.epilogue, op.choice.knobs.get("k_block"), 2);
        output = g.output;
        require_activation_shape(input, {s.inputs, s.rows}, s.rows, op.choice.batch_strided);
        require_dense_shape(weights, {width * s.inputs, panels});
        require_dense_shape(bias, {s.outputs});
        require_activation_shape(output, {s.outputs, s.rows}, s.rows, op.choice.batch_strided);
        apply_schedule(g, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::InnerProductGenerator, cortado_inner_product)
