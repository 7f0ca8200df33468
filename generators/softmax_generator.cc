#include "generators/buffer_shape.h"
#include "generators/schedule_family.h"
#include "generators/softmax.h"
#include "schedules/gpu/softmax.h"
#include "schedules/cpu/softmax.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

class SoftmaxGenerator : public Halide::Generator<SoftmaxGenerator> {
  public:
    GeneratorParam<int> inner{"inner", 1}, channels{"channels", 1}, outer{"outer", 1};

    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        const SoftmaxShape s{inner, channels, outer};
        // Partial maxima per vector lane on CPUs whose slices are too narrow to vectorise along.
        const ScheduleFamily family = schedule_family_for(get_target());
        const bool cpu = family == ScheduleFamily::X86 || family == ScheduleFamily::ARM;
        const int vector = float_vector_lanes(get_target());
        Softmax softmax(input, s, cpu && s.inner < vector && s.channels >= vector ? vector : 1);
        output = softmax.output;
        require_dense_shape(input, {s.inner, s.channels, s.outer});
        require_dense_shape(output, {s.inner, s.channels, s.outer});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_softmax(softmax, s, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_softmax(softmax, s, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_softmax(softmax, s, get_target()); break;
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::SoftmaxGenerator, cortado_softmax)
