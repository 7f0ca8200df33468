#include "generators/buffer_shape.h"
#include "generators/resize.h"
#include "generators/schedule_registry.h"

namespace cortado {

class ResizeGenerator : public Halide::Generator<ResizeGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::ResizeOp>(descriptor);
        const ResizeShape &s = op.shape;
        Resize resize(input, s);
        output = resize.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.channels, s.batch});
        require_dense_shape(output, {s.out_w, s.out_h, s.channels, s.batch});
        apply_schedule(resize, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::ResizeGenerator, cortado_resize)
