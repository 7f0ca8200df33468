#include "generators/buffer_shape.h"
#include "generators/pooling.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/pooling.h"
#include "schedules/gpu/pooling.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

namespace {

const VariantSchedules<Pooling, ops::PoolingOp> pooling_schedules = {
    {"cpu_direct", [](Pooling &a, const ops::PoolingOp &op,
                      const Halide::Target &t) { schedules::cpu::schedule_pooling(a, op.shape, t); }},
    {"gpu_direct", [](Pooling &a, const ops::PoolingOp &op,
                      const Halide::Target &t) { schedules::gpu::schedule_pooling(a, op.shape, t); }},
    {"hvx_direct", [](Pooling &a, const ops::PoolingOp &op,
                      const Halide::Target &t) { schedules::hvx::schedule_pooling(a, op.shape, t); }},
};

}  // namespace

class PoolingGenerator : public Halide::Generator<PoolingGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::PoolingOp>(descriptor);
        const PoolingShape &s = op.shape;
        const bool cpu = op.choice.variant == "cpu_direct";
        Pooling pool(input, s, cpu ? schedules::cpu::max_pooling_form(s, get_target()) : MaxPoolingForm::Window);
        output = pool.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.channels, s.batch});
        require_dense_shape(output, {s.out_w, s.out_h, s.channels, s.batch});
        apply_variant(pooling_schedules, pool, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::PoolingGenerator, cortado_pooling)
