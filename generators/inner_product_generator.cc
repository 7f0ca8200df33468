#include "generators/buffer_shape.h"
#include "generators/gemm.h"
#include "generators/inner_product.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/gemm.h"
#include "schedules/cpu/inner_product.h"
#include "schedules/gpu/gemm.h"
#include "schedules/gpu/inner_product.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

namespace {

const VariantSchedules<InnerProduct, ops::InnerProductOp> inner_product_schedules = {
    {"cpu_lane_partials", [](InnerProduct &a, const ops::InnerProductOp &op,
                             const Halide::Target &t) { schedules::cpu::schedule_inner_product(a, op.shape, t); }},
    {"gpu_block_partials", [](InnerProduct &a, const ops::InnerProductOp &op,
                              const Halide::Target &t) { schedules::gpu::schedule_inner_product(a, op.shape, t); }},
    {"hvx_lane_partials", [](InnerProduct &a, const ops::InnerProductOp &op,
                             const Halide::Target &t) { schedules::hvx::schedule_inner_product(a, op.shape, t); }},
};

const auto gpu_gemm = [](Gemm &g, const ops::InnerProductOp &op, const Halide::Target &) {
    schedules::gpu::schedule_gemm(g, schedules::gpu::GemmGpuTile::from(op.choice.knobs));
};
const VariantSchedules<Gemm, ops::InnerProductOp> inner_product_gemm_schedules = {
    {"cpu_gemm",
     [](Gemm &g, const ops::InnerProductOp &op, const Halide::Target &t) {
         schedules::cpu::schedule_gemm(g, ops::GemmBlocking::from(op.choice.knobs), t);
     }},
    {"gpu_gemm", gpu_gemm},
    {"gpu_skinny_gemm", gpu_gemm},
};

}  // namespace

class InnerProductGenerator : public Halide::Generator<InnerProductGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 2>> input{"input"};
    Input<Buffer<float, 2>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::InnerProductOp>(descriptor);
        if (inner_product_gemm_schedules.count(op.choice.variant)) return generate_gemm(op);
        const InnerProductShape &s = op.shape;
        // Every variant keeps `lanes` partial sums: vector lanes on CPUs, threads of a block on GPUs.
        InnerProduct ip(input, weights, bias, s, op.choice.epilogue, op.choice.knobs.get("lanes"));
        output = ip.output;
        require_dense_shape(input, {s.inputs, s.rows});
        require_dense_shape(weights, {s.inputs, s.outputs});
        require_dense_shape(bias, {s.outputs});
        require_dense_shape(output, {s.outputs, s.rows});
        apply_variant(inner_product_schedules, ip, op, get_target());
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
        require_dense_shape(input, {s.inputs, s.rows});
        require_dense_shape(weights, {width * s.inputs, panels});
        require_dense_shape(bias, {s.outputs});
        require_dense_shape(output, {s.outputs, s.rows});
        apply_variant(inner_product_gemm_schedules, g, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::InnerProductGenerator, cortado_inner_product)
