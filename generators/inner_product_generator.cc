#include "generators/buffer_shape.h"
#include "generators/inner_product.h"
#include "generators/schedule_family.h"
#include "schedules/gpu/inner_product.h"
#include "schedules/cpu/inner_product.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

class InnerProductGenerator : public Halide::Generator<InnerProductGenerator> {
  public:
    GeneratorParam<int> rows{"rows", 1}, inputs{"inputs", 1}, outputs{"outputs", 1};
    GeneratorParam<bool> relu{"relu", false};
    GeneratorParam<float> relu_slope{"relu_slope", 0.0f};

    Input<Buffer<float, 2>> input{"input"};
    Input<Buffer<float, 2>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        const InnerProductShape s{rows, inputs, outputs, relu, relu_slope};
        // Partial sums per vector lane on CPUs, per thread of a block on GPUs.
        const int lanes = get_target().has_gpu_feature() ? 64 : float_vector_lanes(get_target());
        InnerProduct ip(input, weights, bias, s, lanes);
        output = ip.output;
        require_dense_shape(input, {s.inputs, s.rows});
        require_dense_shape(weights, {s.inputs, s.outputs});
        require_dense_shape(bias, {s.outputs});
        require_dense_shape(output, {s.outputs, s.rows});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_inner_product(ip, s, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_inner_product(ip, s, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_inner_product(ip, s, get_target()); break;
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::InnerProductGenerator, cortado_inner_product)
