#include "generators/buffer_shape.h"
#include "generators/pooling.h"
#include "generators/schedule_family.h"
#include "schedules/gpu/pooling.h"
#include "schedules/cpu/pooling.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

class PoolingGenerator : public Halide::Generator<PoolingGenerator> {
  public:
    GeneratorParam<int> batch{"batch", 1}, channels{"channels", 1}, in_h{"in_h", 1},
        in_w{"in_w", 1}, out_h{"out_h", 1}, out_w{"out_w", 1}, kernel_h{"kernel_h", 1},
        kernel_w{"kernel_w", 1}, stride_h{"stride_h", 1}, stride_w{"stride_w", 1},
        pad_h{"pad_h", 0}, pad_w{"pad_w", 0};
    GeneratorParam<bool> average{"average", false};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const PoolingShape s{batch,    channels, in_h,     in_w,  out_h, out_w,  kernel_h,
                             kernel_w, stride_h, stride_w, pad_h, pad_w, average};
        Pooling pool(input, s);
        output = pool.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.channels, s.batch});
        require_dense_shape(output, {s.out_w, s.out_h, s.channels, s.batch});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_pooling(pool, s, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_pooling(pool, s, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_pooling(pool, s, get_target()); break;
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::PoolingGenerator, cortado_pooling)
