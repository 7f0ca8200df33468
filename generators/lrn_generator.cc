#include "generators/buffer_shape.h"
#include "generators/lrn.h"
#include "generators/schedule_family.h"
#include "schedules/gpu/lrn.h"
#include "schedules/cpu/lrn.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

class LRNGenerator : public Halide::Generator<LRNGenerator> {
  public:
    GeneratorParam<int> batch{"batch", 1}, channels{"channels", 1}, h{"h", 1}, w{"w", 1},
        local_size{"local_size", 5};
    GeneratorParam<float> alpha{"alpha", 1.0f}, beta{"beta", 0.75f}, k{"k", 1.0f};
    GeneratorParam<bool> across_channels{"across_channels", true};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const LRNShape s{batch, channels, h, w, local_size, alpha, beta, k, across_channels};
        LRN lrn(input, s);
        output = lrn.output;
        require_dense_shape(input, {s.w, s.h, s.channels, s.batch});
        require_dense_shape(output, {s.w, s.h, s.channels, s.batch});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_lrn(lrn, s, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_lrn(lrn, s, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_lrn(lrn, s, get_target()); break;
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::LRNGenerator, cortado_lrn)
