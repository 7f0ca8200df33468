#include "generators/buffer_shape.h"
#include "generators/inner_product.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/inner_product.h"
#include "schedules/gpu/inner_product.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

namespace {

const VariantSchedules<InnerProduct, ops::InnerProductOp> inner_product_schedules = {
    {"cpu_lane_partials", [](InnerProduct &a, const ops::InnerProductOp &op, const Halide::Target &t) {
         schedules::cpu::schedule_inner_product(a, op.shape, t);
     }},
    {"gpu_block_partials", [](InnerProduct &a, const ops::InnerProductOp &op, const Halide::Target &t) {
         schedules::gpu::schedule_inner_product(a, op.shape, t);
     }},
    {"hvx_lane_partials", [](InnerProduct &a, const ops::InnerProductOp &op, const Halide::Target &t) {
         schedules::hvx::schedule_inner_product(a, op.shape, t);
     }},
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
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::InnerProductGenerator, cortado_inner_product)
